/* x_hist N: N pseudo-random histogram increments into 16 counters on the
 * stack (loads of counters a recent store wrote, a multiply-add chain). On
 * this loop the model's run with one-cycle ALU ops idealized is slower than
 * the baseline (oldest-first issue lets whole zero-latency chains take the
 * slots ahead of the chain's multiply): validate's "not monotone" note. An
 * extra workload. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 4000000;
  uint32_t h[16] = {0};
  uint32_t r = 3;
  for (long i = 0; i < n; i++) {
    r = r * 1664525u + 1013904223u;
    h[r >> 28]++;
    h[(r >> 12) & 3] += 2;
  }
  for (int i = 0; i < 16; i++) printf("%u ", h[i]);
  printf("\n");
  return 0;
}
