/* x_bsearch Q: Q binary searches for pseudo-random keys in a sorted 4 MB
 * array (unpredictable branches on loads that miss). An extra workload. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int q = argc > 1 ? atoi(argv[1]) : 200000;
  int n = 1 << 20;
  int *a = malloc((size_t)n * sizeof *a);
  if (!a) return 1;
  for (int i = 0; i < n; i++) a[i] = 3 * i + 1;
  unsigned x = 7;
  long hits = 0;
  for (int k = 0; k < q; k++) {
    x = x * 1664525u + 1013904223u;
    int key = (int)(x % (3u * (unsigned)n));
    int lo = 0, hi = n - 1;
    while (lo <= hi) {
      int mid = (lo + hi) >> 1;
      if (a[mid] < key) lo = mid + 1;
      else if (a[mid] > key) hi = mid - 1;
      else { hits++; break; }
    }
  }
  printf("%ld\n", hits);
  return 0;
}
