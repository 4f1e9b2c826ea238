/* x_longjmp N: N times, a recursion 50 calls deep left by longjmp, with
 * atomic read-modify-writes (returns that do not go back to their calls,
 * AMOs). An extra workload. */
#include <setjmp.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

static jmp_buf jb;
static _Atomic long cnt;

static void down(int d) {
  if (d < 0) return;
  if (d == 0) longjmp(jb, 1);
  atomic_fetch_add(&cnt, d);
  down(d - 1);
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 3000;
  static long t; /* static: not clobbered by longjmp */
  static int i;
  for (i = 0; i < n; i++) {
    if (!setjmp(jb)) down(50);
    long e = 5;
    atomic_compare_exchange_strong(&cnt, &e, 7);
    t += atomic_load(&cnt);
  }
  printf("%ld\n", t);
  return 0;
}
