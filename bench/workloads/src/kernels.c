/* kernels.c: the workload suite's kernels (see kernels.h). */
#include "kernels.h"

#include <stdlib.h>
#include <string.h>

#include "wl_common.h"

typedef struct wl_node {
  uint64_t next;   /* index of the next node */
  uint64_t pad[7]; /* one node per 64-byte line */
} wl_node;

uint64_t wl_chase(uint64_t nodes, uint64_t steps, uint64_t seed) {
  wl_node *v = malloc(nodes * sizeof *v);
  if (!v) return 0;
  for (uint64_t i = 0; i < nodes; i++) v[i].next = i;
  /* Sattolo: a uniformly random permutation with a single cycle */
  for (uint64_t i = nodes - 1; i > 0; i--) {
    uint64_t j = (wl_lcg(&seed) >> 33) % i;
    uint64_t t = v[i].next;
    v[i].next = v[j].next;
    v[j].next = t;
  }
  uint64_t p = 0, sum = 0;
  for (uint64_t s = 0; s < steps; s++) {
    p = v[p].next;
    sum += p ^ s; /* order-dependent: a wrong link changes it */
  }
  free(v);
  return sum ^ p;
}

uint64_t wl_stream(uint64_t n, uint64_t reps, uint64_t seed) {
  uint64_t *a = malloc(n * sizeof *a);
  if (!a) return 0;
  for (uint64_t i = 0; i < n; i++) a[i] = wl_lcg(&seed) >> 20;
  uint64_t s0 = 0, s1 = 0;
  for (uint64_t r = 0; r < reps; r++) {
    for (uint64_t i = 0; i + 1 < n; i += 2) {
      s0 += a[i];
      s1 += a[i + 1];
    }
    s0 = (s0 << 1) | (s0 >> 63);
  }
  free(a);
  return s0 ^ s1;
}

uint64_t wl_branchy(uint64_t n, uint64_t seed) {
  uint64_t a = 1, b = 2, c = 3;
  for (uint64_t i = 0; i < n; i++) {
    uint64_t x = wl_lcg(&seed);
    if (x >> 63) { /* decided by a fresh random bit */
      a = a * 5 + (x >> 40);
    } else {
      b ^= x >> 17;
      if (b & 4) c += 7;
    }
    if ((x >> 50) & 1) {
      c = (c << 3) ^ a;
    } else if ((x >> 51) & 1) {
      a -= c >> 5;
    }
  }
  return a ^ b ^ c;
}

uint64_t wl_depchain(uint64_t n, uint64_t seed) {
  uint64_t x = seed | 1;
  for (uint64_t i = 0; i < n; i++) {
    x ^= x >> 13;
    x += i;
    x = (x << 7) | (x >> 57);
    x *= 0x9E3779B97F4A7C15ULL;
    x -= x >> 29;
  }
  return x;
}

uint64_t wl_stencil(uint64_t n, uint64_t iters, uint64_t seed) {
  double *u = malloc(n * n * sizeof *u), *w = malloc(n * n * sizeof *w);
  if (!u || !w) {
    free(u);
    free(w);
    return 0;
  }
  for (uint64_t i = 0; i < n * n; i++) u[i] = (double)(wl_lcg(&seed) >> 11) * 0x1p-53;
  memcpy(w, u, n * n * sizeof *u);
  for (uint64_t t = 0; t < iters; t++) {
    for (uint64_t i = 1; i + 1 < n; i++)
      for (uint64_t j = 1; j + 1 < n; j++)
        w[i * n + j] = 0.2 * (u[i * n + j] + u[(i - 1) * n + j] + u[(i + 1) * n + j] +
                              u[i * n + j - 1] + u[i * n + j + 1]);
    double *s = u;
    u = w;
    w = s;
  }
  double sum = 0;
  for (uint64_t i = 0; i < n * n; i++) sum += u[i] * (double)(i % 7 + 1);
  /* a 16x16 matrix multiply with a divide and a square root per row */
  double m[16][16], r[16][16];
  for (int i = 0; i < 16; i++)
    for (int j = 0; j < 16; j++) m[i][j] = u[(i * 16 + j) % (n * n)] - 0.5;
  for (int i = 0; i < 16; i++) {
    for (int j = 0; j < 16; j++) {
      double acc = 0;
      for (int k = 0; k < 16; k++) acc += m[i][k] * m[k][j];
      r[i][j] = acc;
    }
    sum += __builtin_sqrt(r[i][i] * r[i][i] + 1.0) / (1.0 + (double)i);
  }
  free(u);
  free(w);
  uint64_t bits;
  memcpy(&bits, &sum, sizeof bits);
  return bits;
}
