/* x_hash N: N xorshift keys looked up in a chained hash table, a new node
 * malloc'ed for each key not found (remainders, dependent misses, stores
 * to fresh memory read back soon after). An extra workload. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct node {
  uint64_t k, v;
  struct node *next;
} node;

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 300000;
  size_t nb = (size_t)1 << 16;
  node **tab = calloc(nb, sizeof *tab);
  if (!tab) return 1;
  uint64_t x = 1, sum = 0;
  for (long i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    uint64_t k = x % 200000;
    size_t h = (size_t)((k * 0x9E3779B97F4A7C15ull) >> 48);
    node *e = tab[h];
    while (e && e->k != k) e = e->next;
    if (e) {
      sum += ++e->v;
    } else {
      if (!(e = malloc(sizeof *e))) return 1;
      e->k = k;
      e->v = 1;
      e->next = tab[h];
      tab[h] = e;
    }
  }
  printf("%llu\n", (unsigned long long)sum);
  return 0;
}
