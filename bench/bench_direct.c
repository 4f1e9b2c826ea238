/* bench_direct.c: would a direct evaluation of small powersets pay?
 *
 *   bench_direct FILE [CATS] [RECORDS]
 *
 * FILE holds raw records (bench_solver --save, the same build). For up to
 * three categories (CATS, default dl1,win,bmisp: 8 subsets, one 8-lane
 * vector) it evaluates every record under every subset the way
 * model/rec_eval.h does, but with the edges of all lanes in one pass of
 * vector operations (no memo and no plan: each record's edges are read as
 * they are) and the rules lane by lane on the reference's tables. It then
 * runs the solver (one thread) on the same records and checks that t(S)
 * agrees for every subset, and that the empty subset reproduces the
 * records' stamps. Under callgrind (--toggle-collect=direct_feed, then
 * --toggle-collect=ic_solver_feed) the instructions per record of the two
 * compare. A prototype for measurement: times are 32-bit (records of a
 * run whose cycles pass 2^31 are refused) and it needs AVX2. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "graph_rec.h"
#include "rec_eval.h"
#include "solver.h"

#define LANES 8
typedef uint32_t v8 __attribute__((vector_size(32)));

typedef struct direct {
  ic_catmask ideal[LANES];
  v8 keep[256];     /* per part category: all-ones in the lanes that keep its cycles */
  v8 win;           /* all-ones in the lanes that idealize win (CD reaches further) */
  v8 *ring;         /* [w][IC_NODE_COUNT]: node times of the records back */
  uint64_t w, idx;  /* ring rows (a power of two), records evaluated */
  ic_rec_tabs tabs[LANES];
  uint64_t stamp_misses; /* baseline lane against the records' stamps */
} direct;

#define VEC static inline __attribute__((always_inline, target("avx2")))
VEC v8 splat(uint32_t x) { return (v8){x, x, x, x, x, x, x, x}; }
VEC v8 vmax(v8 a, v8 b) {
  const v8 m = (v8)(a > b);
  return (a & m) | (b & ~m);
}

/* Time vector of node `node` of the record dist back (0 before the first). */
VEC v8 past(const direct *d, uint64_t dist, int node) {
  if (dist > d->idx) return splat(0);
  return d->ring[((d->idx - dist) & (d->w - 1)) * IC_NODE_COUNT + (size_t)node];
}

/* The time edge e asks of its node in every lane (0 where a lane drops it):
 * its source's time (self for dist 0) plus its latency with the lane's
 * idealized parts zeroed. */
VEC v8 edge_time(const direct *d, const ic_edge *e, v8 drop, const v8 *self) {
  const int sn = ic_edge_src_node[e->kind];
  v8 src;
  if (!e->dist) {
    src = self[sn];
  } else if (e->kind == IC_EDGE_CD) {
    const v8 near = past(d, e->dist, sn), far = past(d, (uint64_t)e->dist * IC_WIN_FACTOR, sn);
    src = (far & d->win) | (near & ~d->win);
  } else {
    src = past(d, e->dist, sn);
  }
  v8 lat = splat(0);
  for (int k = 0; k < e->nparts; k++) lat += splat(e->part[k].cycles) & d->keep[e->part[k].cat];
  return (src + lat) & ~drop;
}

static __attribute__((target("avx2"))) int direct_feed(direct *d, const ic_graph_rec *recs, size_t n) {
  for (size_t i = 0; i < n; i++) {
    const ic_graph_rec *r = &recs[i];
    ic_catmask rules[LANES];
    v8 rv;
    for (int l = 0; l < LANES; l++) rv[l] = rules[l] = ic_rec_rules_mask(r, d->ideal[l]);
    v8 from[IC_NODE_COUNT] = {0}, dropv[IC_MAX_EDGES];
    uint32_t within[IC_NODE_COUNT] = {0}, iw = 0;
    for (int k = 0; k < r->nedges; k++) {
      const ic_edge *e = &r->edge[k];
      if (e->kind >= IC_EDGE_KIND_COUNT) continue;
      const uint32_t dm = ic_edge_drop_mask(e->kind) & ~(ic_catmask)e->keep;
      dropv[k] = (v8)((rv & splat(dm)) != 0);
      const int dn = ic_edge_dst_node[e->kind];
      if (e->kind == IC_EDGE_IW) iw |= 1u << k;
      else if (!e->dist) within[dn] |= 1u << k;
      else from[dn] = vmax(from[dn], edge_time(d, e, dropv[k], NULL));
    }
    v8 t[IC_NODE_COUNT] = {0};
    const int pool = ooo_pool_of(r->opclass);
    /* D, then the IQ rule and the slot counts' floor, lane by lane */
    t[IC_NODE_D] = from[IC_NODE_D];
    for (uint32_t m = within[IC_NODE_D]; m; m &= m - 1)
      t[IC_NODE_D] = vmax(t[IC_NODE_D], edge_time(d, &r->edge[__builtin_ctz(m)], dropv[__builtin_ctz(m)], t));
    for (int l = 0; l < LANES; l++) {
      ic_rec_tabs *tb = &d->tabs[l];
      const uint32_t qk = ic_rec_iq_rule(r, d->ideal[l]);
      if (qk) {
        if (qk != tb->iq.k && ic_iq_tab_reset(&tb->iq, qk) != 0) return -1;
        const uint64_t b = ic_iq_tab_bound(&tb->iq);
        if (b > t[IC_NODE_D][l]) t[IC_NODE_D][l] = (uint32_t)b;
      }
      if (ic_slot_rule_applies(d->ideal[l])) ic_slot_tab_floor(&tb->slots, t[IC_NODE_D][l]);
    }
    for (int node = IC_NODE_R; node <= IC_NODE_E; node++) {
      t[node] = from[node];
      for (uint32_t m = within[node]; m; m &= m - 1)
        t[node] = vmax(t[node], edge_time(d, &r->edge[__builtin_ctz(m)], dropv[__builtin_ctz(m)], t));
    }
    /* IW edges that hold against E' */
    const v8 e_other = t[IC_NODE_E];
    for (uint32_t m = iw; m; m &= m - 1) {
      const ic_edge *e = &r->edge[__builtin_ctz(m)];
      const v8 srcr = e->dist ? past(d, e->dist, IC_NODE_R) : t[IC_NODE_R];
      const v8 holds = (v8)(srcr <= e_other);
      t[IC_NODE_E] = vmax(t[IC_NODE_E], edge_time(d, e, dropv[__builtin_ctz(m)] | ~holds, t));
    }
    /* the MSHR and slot rules, lane by lane */
    for (int l = 0; l < LANES; l++) {
      ic_rec_tabs *tb = &d->tabs[l];
      int nw, np;
      const int slot = ic_rec_slot_counts(r, d->ideal[l], &nw, &np);
      const int mk = ic_rec_mshr_rule(r, rules[l]);
      if (mk) ic_mshr_tab_floor(&tb->holds, t[IC_NODE_D][l]);
      if (mk || slot)
        t[IC_NODE_E][l] =
            (uint32_t)ic_rules_time(&tb->holds, mk, &tb->slots, slot, nw, np, pool, t[IC_NODE_E][l], NULL, NULL);
    }
    for (int node = IC_NODE_P; node <= IC_NODE_C; node++) {
      t[node] = from[node];
      for (uint32_t m = within[node]; m; m &= m - 1)
        t[node] = vmax(t[node], edge_time(d, &r->edge[__builtin_ctz(m)], dropv[__builtin_ctz(m)], t));
    }
    /* the tables take the record */
    for (int l = 0; l < LANES; l++) {
      ic_rec_tabs *tb = &d->tabs[l];
      if (ic_slot_rule_applies(d->ideal[l]) && ic_slot_tab_add(&tb->slots, t[IC_NODE_E][l], pool) != 0) return -1;
      if (ic_rec_mshr_rule(r, rules[l]) &&
          ic_mshr_tab_add(&tb->holds, t[IC_NODE_E][l], t[IC_NODE_P][l], r->seq) != 0)
        return -1;
      if (ic_rec_iq_rule(r, d->ideal[l]) && ic_iq_tab_add(&tb->iq, t[IC_NODE_E][l]) != 0) return -1;
    }
    for (int node = 0; node < IC_NODE_COUNT; node++) {
      if (t[node][0] != r->t[node]) d->stamp_misses++;
      d->ring[(d->idx & (d->w - 1)) * IC_NODE_COUNT + (size_t)node] = t[node];
    }
    d->idx++;
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: bench_direct FILE [CATS] [RECORDS]\n");
    return 2;
  }
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx2")) {
    printf("bench_direct: needs AVX2; nothing measured\n");
    return 0;
  }
  uint8_t cats[IC_SOLVER_MAX_CATS];
  int ncat = 0;
  ic_err err;
  if (ic_parse_categories(argc > 2 ? argv[2] : "dl1,win,bmisp", cats, &ncat, &err) != IC_OK || ncat > 3) {
    fprintf(stderr, "bench_direct: %s\n", ncat > 3 ? "at most 3 categories" : err.msg);
    return 2;
  }
  FILE *f = fopen(argv[1], "rb");
  struct stat st;
  if (!f || fstat(fileno(f), &st) != 0) {
    fprintf(stderr, "bench_direct: %s: %s\n", argv[1], strerror(errno));
    if (f) fclose(f);
    return 2;
  }
  const long long bytes = (long long)st.st_size;
  if (!S_ISREG(st.st_mode) || bytes % (long long)sizeof(ic_graph_rec) != 0) {
    if (!S_ISREG(st.st_mode)) fprintf(stderr, "bench_direct: %s: not a regular file\n", argv[1]);
    else
      fprintf(stderr, "bench_direct: %s: not whole records of this build (%lld bytes, %zu a record)\n", argv[1],
              bytes, sizeof(ic_graph_rec));
    fclose(f);
    return 2;
  }
  size_t n = (size_t)bytes / sizeof(ic_graph_rec);
  if (argc > 3 && strtoull(argv[3], NULL, 10) < n) n = strtoull(argv[3], NULL, 10);
  ic_graph_rec *recs = malloc((n ? n : 1) * sizeof *recs);
  if (!recs || !n || fread(recs, sizeof *recs, n, f) != n) {
    fprintf(stderr, "bench_direct: %s: %s\n", argv[1], n ? "cannot read records" : "no records");
    fclose(f);
    return 2;
  }
  fclose(f);
  uint64_t maxd = 1;
  for (size_t i = 0; i < n; i++) {
    if (ic_graph_rec_check(&recs[i], &err) != IC_OK) {
      fprintf(stderr, "bench_direct: %s: record %zu: %s\n", argv[1], i, err.msg);
      return 2;
    }
    if (recs[i].t[IC_NODE_C] >= (1u << 31)) {
      fprintf(stderr, "bench_direct: %s: record %zu: times past 2^31 (the prototype's 32-bit lanes)\n", argv[1], i);
      return 2;
    }
    for (int k = 0; k < recs[i].nedges; k++) {
      const uint64_t dd = (uint64_t)recs[i].edge[k].dist * (recs[i].edge[k].kind == IC_EDGE_CD ? IC_WIN_FACTOR : 1);
      if (dd > maxd) maxd = dd;
    }
  }
  direct d = {0};
  for (d.w = 1; d.w <= maxd; d.w *= 2) {
  }
  d.ring = aligned_alloc(32, d.w * IC_NODE_COUNT * sizeof(v8));
  if (!d.ring) {
    fprintf(stderr, "bench_direct: out of memory for a ring of %llu records\n", (unsigned long long)d.w);
    return 2;
  }
  for (int l = 0; l < LANES; l++)
    for (int k = 0; k < ncat; k++)
      if (l >> k & 1) d.ideal[l] |= IC_CATBIT(cats[k]);
  for (int c = 0; c < 256; c++)
    for (int l = 0; l < LANES; l++) d.keep[c][l] = ic_cat_idealized(d.ideal[l], (unsigned)c) ? 0 : UINT32_MAX;
  for (int l = 0; l < LANES; l++) d.win[l] = d.ideal[l] & IC_CATBIT(IC_CAT_WIN) ? UINT32_MAX : 0;
  if (direct_feed(&d, recs, n) != 0) {
    fprintf(stderr, "bench_direct: out of memory\n");
    return 2;
  }
  ic_solver *s;
  if (ic_solver_create(&s, cats, ncat, &err) != IC_OK) {
    fprintf(stderr, "bench_direct: solver: %s\n", err.msg);
    return 2;
  }
  ic_solver_set_threads(s, 1);
  if (ic_solver_feed(s, recs, n, &err) != IC_OK) {
    fprintf(stderr, "bench_direct: solver: %s\n", err.msg);
    return 2;
  }
  const uint64_t *ts = ic_solver_times(s);
  const v8 last = d.ring[((d.idx - 1) & (d.w - 1)) * IC_NODE_COUNT + IC_NODE_C];
  int differ = 0;
  for (uint32_t S = 0; S < (1u << ncat); S++) {
    const uint32_t l = S; /* lane l idealizes the categories of bits of l */
    differ += ts[S] != last[l];
    printf("t(%u) direct %u solver %llu\n", S, last[l], (unsigned long long)ts[S]);
  }
  printf("%zu records, ring %llu, %d of %u subsets differ, %llu baseline stamps missed\n", n,
         (unsigned long long)d.w, differ, 1u << ncat, (unsigned long long)d.stamp_misses);
  ic_solver_destroy(s);
  for (int l = 0; l < LANES; l++) ic_rec_tabs_free(&d.tabs[l]);
  free(d.ring);
  free(recs);
  return differ || d.stamp_misses ? 1 : 0;
}
