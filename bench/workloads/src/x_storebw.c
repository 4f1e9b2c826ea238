/* x_storebw N: N passes that write two 128 KB arrays word by word and read
 * back every 64th word (bound by store commit bandwidth and the loop
 * counter's chain at once). An extra workload. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 400;
  size_t sz = (size_t)1 << 15;
  uint32_t *a = malloc(sz * sizeof *a), *b = malloc(sz * sizeof *b);
  if (!a || !b) return 1;
  uint64_t s = 0;
  for (long k = 0; k < n; k++) {
    for (size_t i = 0; i < sz; i++) {
      a[i] = (uint32_t)(i * (size_t)k);
      b[i] = (uint32_t)(i ^ (size_t)k);
    }
    for (size_t i = 0; i < sz; i += 64) s += a[i] + b[i];
  }
  printf("%lu\n", (unsigned long)s);
  return 0;
}
