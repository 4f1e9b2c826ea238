/* x_list N R: a Fisher-Yates shuffle of N indices (a remainder per step,
 * loads of random entries that miss the L1), then R walks of a linked list
 * of N 64-byte nodes in that order (dependent misses). An extra workload. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

struct node {
  struct node *next;
  long val;
  long pad[6];
};

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 200000;
  int reps = argc > 2 ? atoi(argv[2]) : 20;
  if (n < 2) return 1;
  struct node *v = malloc((size_t)n * sizeof *v);
  long *perm = malloc((size_t)n * sizeof *perm);
  if (!v || !perm) return 1;
  for (long i = 0; i < n; i++) perm[i] = i;
  uint32_t r = 9;
  for (long i = n - 1; i > 0; i--) {
    r = r * 1664525u + 1013904223u;
    long j = (long)(r % (uint32_t)(i + 1)), t = perm[i];
    perm[i] = perm[j];
    perm[j] = t;
  }
  for (long i = 0; i < n; i++) {
    v[perm[i]].next = &v[perm[(i + 1) % n]];
    v[perm[i]].val = i;
  }
  long s = 0;
  for (int k = 0; k < reps; k++) {
    struct node *p = &v[perm[0]];
    for (long i = 0; i < n; i++) {
      s += p->val * 3 + (p->val & 1 ? 5 : 1);
      p = p->next;
    }
  }
  printf("%ld\n", s);
  return 0;
}
