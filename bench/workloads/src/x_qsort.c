/* x_qsort N: libc qsort of N pseudo-random doubles through a comparison
 * function (indirect calls, unpredictable branches). Built -O2 and -O0 (the
 * -O0 build keeps every variable in memory and divides by a constant: an
 * unpipelined divider, store-to-load forwarding). An extra workload. */
#include <stdio.h>
#include <stdlib.h>

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 200000;
  if (n < 1) return 2;
  double *v = malloc((size_t)n * sizeof *v);
  if (!v) return 1;
  unsigned s = 1;
  for (int i = 0; i < n; i++) {
    s = s * 1103515245u + 12345u;
    v[i] = (s >> 8) / 16777216.0;
  }
  qsort(v, (size_t)n, sizeof *v, cmp);
  double acc = 0;
  for (int i = 0; i < n; i++) acc += v[i] * i;
  printf("%.6f\n", acc);
  free(v);
  return 0;
}
