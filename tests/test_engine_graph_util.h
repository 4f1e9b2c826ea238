/* test_engine_graph_util.h: building small graphs by hand for the engine
 * tests (header-only; included by tests/test_engine_*.c). */
#ifndef TEST_ENGINE_GRAPH_UTIL_H
#define TEST_ENGINE_GRAPH_UTIL_H

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "solver.h"

/* A graph under construction: records seq0, seq0+1, ... */
typedef struct tg {
  ic_graph_rec *r;
  size_t n, cap;
  uint64_t seq0;
} tg;

static inline ic_graph_rec *tg_inst(tg *g) {
  if (g->n == g->cap) {
    g->cap = g->cap ? g->cap * 2 : 16;
    g->r = realloc(g->r, g->cap * sizeof *g->r);
    cr_assert(g->r);
  }
  ic_graph_rec *r = &g->r[g->n];
  memset(r, 0, sizeof *r);
  r->seq = g->seq0 + g->n;
  g->n++;
  return r;
}

/* Adds an edge with up to 3 parts (cycles, cat) pairs; pass nparts. */
static inline ic_edge *tg_edge(ic_graph_rec *r, ic_edge_kind kind, uint32_t dist, int nparts,
                               uint32_t c0, uint8_t k0, uint32_t c1, uint8_t k1, uint32_t c2,
                               uint8_t k2) {
  cr_assert(r->nedges < IC_MAX_EDGES);
  ic_edge *e = &r->edge[r->nedges++];
  memset(e, 0, sizeof *e);
  e->kind = (uint8_t)kind;
  e->dist = dist;
  e->nparts = (uint8_t)nparts;
  uint32_t c[3] = {c0, c1, c2};
  uint8_t k[3] = {k0, k1, k2};
  for (int p = 0; p < nparts; p++) e->part[p] = (ic_lat_part){c[p], k[p]};
  return e;
}
#define E0(r, kind, dist) tg_edge(r, kind, dist, 0, 0, 0, 0, 0, 0, 0)
#define E1(r, kind, dist, c, k) tg_edge(r, kind, dist, 1, c, k, 0, 0, 0, 0)
#define E2(r, kind, dist, c, k, c1, k1) tg_edge(r, kind, dist, 2, c, k, c1, k1, 0, 0)
#define NONE IC_CAT_NONE

/* Stamps every record with its baseline (S = {}) node times, as the model
 * would; returns the critical-path length. */
static inline uint64_t tg_stamp(tg *g) {
  uint64_t *nt = malloc((g->n ? g->n : 1) * IC_NODE_COUNT * sizeof *nt), t = 0;
  ic_err err = {{0}};
  cr_assert_eq(ic_graph_eval(g->r, g->n, 0, nt, &t, &err), IC_OK, "%s", err.msg);
  for (size_t i = 0; i < g->n; i++)
    for (int k = 0; k < IC_NODE_COUNT; k++) g->r[i].t[k] = nt[i * IC_NODE_COUNT + k];
  free(nt);
  return t;
}

/* t(S) for one set of category ids by the reference pass. */
static inline uint64_t tg_ref(const tg *g, ic_catmask ideal) {
  uint64_t t = 0;
  ic_err err = {{0}};
  cr_assert_eq(ic_graph_eval(g->r, g->n, ideal, NULL, &t, &err), IC_OK, "%s", err.msg);
  return t;
}

/* The solver's kernels as the tests go through them (index < T_KERNELS):
 * 0 AVX-512, 1 portable, 2 AVX2; where the CPU lacks one, the fastest it
 * runs instead (ic_solver_kernel_in_use says which ran). */
#define T_KERNELS 3
static inline void t_use_kernel(ic_solver *s, int k) {
  static const ic_solver_kernel ks[T_KERNELS] = {IC_KERNEL_AVX512, IC_KERNEL_PORTABLE, IC_KERNEL_AVX2};
  if (!ic_solver_set_kernel(s, ks[k % T_KERNELS])) cr_assert(ic_solver_set_kernel(s, IC_KERNEL_AUTO));
}

/* Runs the solver on the whole graph with kernel index `kernel`
 * (t_use_kernel); times copied into t (2^ncat). */
static inline void tg_solve_k(const tg *g, const uint8_t *cats, int ncat, uint64_t *t,
                              ic_solver_stats *st, int kernel) {
  ic_solver *s = NULL;
  ic_err err = {{0}};
  cr_assert_eq(ic_solver_create(&s, cats, ncat, &err), IC_OK, "%s", err.msg);
  t_use_kernel(s, kernel);
  cr_assert_eq(ic_solver_feed(s, g->r, g->n, &err), IC_OK, "%s", err.msg);
  memcpy(t, ic_solver_times(s), ((size_t)1 << ncat) * sizeof *t);
  if (st) ic_solver_get_stats(s, st);
  ic_solver_destroy(s);
}

static inline void tg_solve(const tg *g, const uint8_t *cats, int ncat, uint64_t *t,
                            ic_solver_stats *st) {
  tg_solve_k(g, cats, ncat, t, st, 0);
}

static inline void tg_free(tg *g) {
  free(g->r);
  memset(g, 0, sizeof *g);
}

/* A random valid graph of n instructions: every record has DD, DR, RE, EP,
 * PC, CC, and randomly FBW, CD, PD, PR (up to 3), PP, CBW; latencies are
 * random sums of parts over all categories and none, up to maxlat per
 * part. Deterministic in *seed. */
static inline uint32_t tg_rand(uint64_t *x) {
  *x ^= *x << 13;
  *x ^= *x >> 7;
  *x ^= *x << 17;
  return (uint32_t)(*x >> 11);
}
static inline uint8_t tg_rcat(uint64_t *x) {
  uint32_t v = tg_rand(x) % (IC_CAT_COUNT + 3);
  return v >= IC_CAT_COUNT ? IC_CAT_NONE : (uint8_t)v;
}
static inline void tg_rparts(ic_edge *e, uint64_t *x, uint32_t maxlat) {
  e->nparts = (uint8_t)(tg_rand(x) % 4);
  for (int p = 0; p < e->nparts; p++)
    e->part[p] = (ic_lat_part){tg_rand(x) % (maxlat + 1), tg_rcat(x)};
}
static inline void tg_random(tg *g, size_t n, uint64_t seed, uint32_t maxlat, uint32_t rob) {
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  for (size_t i = 0; i < n; i++) {
    ic_graph_rec *r = tg_inst(g);
    static const ic_edge_kind always[] = {IC_EDGE_DD, IC_EDGE_DR, IC_EDGE_RE, IC_EDGE_EP,
                                          IC_EDGE_PC, IC_EDGE_CC};
    for (size_t k = 0; k < sizeof always / sizeof always[0]; k++) {
      uint32_t d = (always[k] == IC_EDGE_DD || always[k] == IC_EDGE_CC) ? 1 : 0;
      tg_rparts(E0(r, always[k], d), &x, maxlat);
    }
    if (tg_rand(&x) % 2) tg_rparts(E0(r, IC_EDGE_FBW, 4), &x, 1);
    if (tg_rand(&x) % 2) tg_rparts(E0(r, IC_EDGE_CBW, 4), &x, 1);
    if (tg_rand(&x) % 2) tg_rparts(E0(r, IC_EDGE_CD, rob), &x, maxlat);
    if (tg_rand(&x) % 5 == 0) tg_rparts(E0(r, IC_EDGE_PD, 1), &x, maxlat);
    if (tg_rand(&x) % 6 == 0) tg_rparts(E0(r, IC_EDGE_PP, 1 + tg_rand(&x) % 30), &x, maxlat);
    int npr = (int)(tg_rand(&x) % 4);
    for (int k = 0; k < npr; k++) tg_rparts(E0(r, IC_EDGE_PR, 1 + tg_rand(&x) % 40), &x, maxlat);
  }
}

#endif
