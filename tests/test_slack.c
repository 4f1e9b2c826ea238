/* test_slack.c: windowed slack and criticality (engine/slack.h).
 *
 * Hand-built graphs whose slacks are worked out by hand in the comments;
 * random valid graphs checked against an independent longest-path
 * computation done with igraph (topological order from igraph, arrival =
 * longest path from the start, slack = end - arrival - longest path to the
 * end); random graphs with the rules and IW edges, whose arrival times
 * under every idealization are the reference pass's (ic_graph_eval); hand
 * graphs where a rule gives a node its time and so puts its source on the
 * critical path; malformed records. */
#include <criterion/criterion.h>
#include <igraph.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "ooo.h"
#include "slack.h"
#include "solver.h"

static ic_edge mk_edge(int kind, uint32_t dist, uint32_t lat, int cat) {
  ic_edge e = {.kind = (uint8_t)kind, .dist = dist, .nparts = 1};
  e.part[0] = (ic_lat_part){lat, (uint8_t)cat};
  return e;
}

static void add(ic_graph_rec *r, ic_edge e) { r->edge[r->nedges++] = e; }

/* Evaluates the records (graph semantics of graph_rec.h, S = {}) into t[]. */
static void stamp(ic_graph_rec *r, size_t n) {
  for (size_t i = 0; i < n; i++)
    for (int k = 0; k < IC_NODE_COUNT; k++) {
      uint64_t t = 0;
      for (int j = 0; j < r[i].nedges; j++) {
        const ic_edge *e = &r[i].edge[j];
        if (ic_edge_dst_node[e->kind] != k) continue;
        uint64_t src = e->dist > i ? 0 : r[i - e->dist].t[ic_edge_src_node[e->kind]];
        uint64_t v = src + ic_edge_latency(e, 0);
        if (v > t) t = v;
      }
      r[i].t[k] = t;
    }
}

typedef struct obs_log {
  size_t n, cap;
  uint64_t first_seq;
  uint64_t (*arr)[IC_NODE_COUNT];
  uint64_t (*slack)[IC_NODE_COUNT];
  int out_of_order;
} obs_log;

static void observe(void *ctx, uint64_t seq, uint64_t pc, const uint64_t arr[IC_NODE_COUNT],
                    const uint64_t slack[IC_NODE_COUNT]) {
  obs_log *l = ctx;
  (void)pc;
  if (seq != l->first_seq + l->n || l->n >= l->cap) {
    l->out_of_order = 1;
    return;
  }
  memcpy(l->arr[l->n], arr, sizeof l->arr[0]);
  memcpy(l->slack[l->n], slack, sizeof l->slack[0]);
  l->n++;
}

static void log_init(obs_log *l, size_t cap) {
  memset(l, 0, sizeof *l);
  l->cap = cap;
  l->arr = calloc(cap, sizeof *l->arr);
  l->slack = calloc(cap, sizeof *l->slack);
  cr_assert(l->arr && l->slack);
}

static void log_free(obs_log *l) {
  free(l->arr);
  free(l->slack);
}

/* Runs the slack engine over recs in batches of `batch`; returns the log. */
static ic_slack *run_slack(const ic_graph_rec *recs, size_t n, uint32_t window, size_t batch, obs_log *l) {
  ic_slack *s;
  ic_err err;
  cr_assert_eq(ic_slack_create(&s, window, &err), IC_OK, "%s", err.msg);
  ic_slack_set_observer(s, observe, l);
  ic_graph_sink sink = ic_slack_sink(s);
  for (size_t i = 0; i < n; i += batch) {
    size_t m = n - i < batch ? n - i : batch;
    cr_assert_eq(sink.consume(sink.ctx, recs + i, m, &err), IC_OK, "%s", err.msg);
  }
  cr_assert_eq(ic_slack_finish(s, &err), IC_OK, "%s", err.msg);
  cr_assert_eq(l->n, n);
  cr_assert(!l->out_of_order);
  return s;
}

/* Three instructions. i0 is a load (EP = 2 dl1 + 8 dmiss) whose value i2
 * needs (PR, latency 0); i1 is independent. By hand:
 *   i0: D0=0 R0=1 E0=1 P0=11 C0=12
 *   i1: D1=1 R1=2 E1=2 P1=3  C1=max(P1+1, C0+1)=13
 *   i2: D2=2 R2=max(D2+1, P0)=11 E2=11 P2=12 C2=max(P2+1, C1+1)=14
 * Backward from C2 = 14: req P2=13 E2=12 R2=12 D2=11; C1=13 P1=12 E1=11
 * R1=11 D1=min(R1-1, D2-1)=10; C0=12 P0=min(R2-0, C0-1)=11 E0=1 R0=1 D0=0.
 * Slacks: i0 all 0; i1 D9 R9 E9 P9 C0; i2 D9 R1 E1 P1 C0. */
static void hand_graph(ic_graph_rec r[3]) {
  memset(r, 0, 3 * sizeof *r);
  for (int i = 0; i < 3; i++) {
    r[i].seq = (uint64_t)i;
    r[i].pc = 0x1000 + 4 * (uint64_t)i;
    if (i > 0) add(&r[i], mk_edge(IC_EDGE_DD, 1, 1, IC_CAT_NONE));
    add(&r[i], mk_edge(IC_EDGE_DR, 0, 1, IC_CAT_NONE));
    add(&r[i], mk_edge(IC_EDGE_RE, 0, 0, IC_CAT_NONE));
    add(&r[i], mk_edge(IC_EDGE_PC, 0, 1, IC_CAT_NONE));
    if (i > 0) add(&r[i], mk_edge(IC_EDGE_CC, 1, 1, IC_CAT_NONE));
  }
  ic_edge ep = {.kind = IC_EDGE_EP, .nparts = 2};
  ep.part[0] = (ic_lat_part){2, IC_CAT_DL1};
  ep.part[1] = (ic_lat_part){8, IC_CAT_DMISS};
  add(&r[0], ep);
  add(&r[1], mk_edge(IC_EDGE_EP, 0, 1, IC_CAT_SHALU));
  add(&r[2], mk_edge(IC_EDGE_EP, 0, 1, IC_CAT_SHALU));
  add(&r[2], mk_edge(IC_EDGE_PR, 2, 0, IC_CAT_NONE));
  stamp(r, 3);
}

Test(slack, hand_graph_known_slacks) {
  ic_graph_rec r[3];
  hand_graph(r);
  static const uint64_t want_t[3][5] = {{0, 1, 1, 11, 12}, {1, 2, 2, 3, 13}, {2, 11, 11, 12, 14}};
  static const uint64_t want_s[3][5] = {{0, 0, 0, 0, 0}, {9, 9, 9, 9, 0}, {9, 1, 1, 1, 0}};
  for (int i = 0; i < 3; i++)
    for (int k = 0; k < 5; k++) cr_assert_eq(r[i].t[k], want_t[i][k], "t[%d][%d]", i, k);
  obs_log l;
  log_init(&l, 3);
  ic_slack *s = run_slack(r, 3, 0, 3, &l);
  for (int i = 0; i < 3; i++)
    for (int k = 0; k < 5; k++) {
      cr_assert_eq(l.arr[i][k], want_t[i][k]);
      cr_assert_eq(l.slack[i][k], want_s[i][k], "slack of %c%d: %llu, want %llu", ic_node_names[k], i,
                   (unsigned long long)l.slack[i][k], (unsigned long long)want_s[i][k]);
    }
  const ic_slack_totals *t = ic_slack_get_totals(s);
  cr_assert_eq(t->instructions, 3);
  cr_assert_eq(t->cycles, 14);
  cr_assert_eq(t->stamp_mismatches, 0);
  cr_assert_eq(t->crit[IC_NODE_C], 3);
  cr_assert_eq(t->crit[IC_NODE_E], 1);
  cr_assert_eq(t->miss_cycles, 8);
  cr_assert_eq(t->crit_miss_cycles, 8); /* the load's EP edge is critical */
  ic_slack_pc *tab;
  size_t n;
  ic_err err;
  cr_assert_eq(ic_slack_table(s, IC_SLACK_BY_COST, &tab, &n, &err), IC_OK);
  cr_assert_eq(n, 3);
  cr_assert_eq(tab[0].pc, 0x1000);
  cr_assert_eq(tab[0].crit_miss_cycles, 8);
  cr_assert_eq(tab[0].crit_miss_count, 1);
  /* then by critical E count (i2: 0, i1: 0) then pc */
  cr_assert_eq(tab[1].pc, 0x1004);
  cr_assert_eq(tab[2].slack_sum, 1);
  free(tab);
  ic_slack_destroy(s);
  log_free(&l);
}

/* Window 2 (H = 1) on the hand graph: windows [0,2) and [1,3) report i0 and
 * i1, the final one [2,3) reports i2. [0,2) ends at C1 = 13: req C1=13 P1=12
 * E1=11 R1=11 D1=10; C0=12 P0=11 E0=1 R0=1 D0=min(R0-1, D1-1)=0, so i0 is all
 * critical even without i2's PR edge. [1,3) and [2,3) end at the run's last
 * commit, so i1 and i2 get their exact slacks. */
Test(slack, hand_graph_small_window) {
  ic_graph_rec r[3];
  hand_graph(r);
  obs_log l;
  log_init(&l, 3);
  ic_slack *s = run_slack(r, 3, 2, 1, &l);
  static const uint64_t want_s[3][5] = {{0, 0, 0, 0, 0}, {9, 9, 9, 9, 0}, {9, 1, 1, 1, 0}};
  for (int i = 0; i < 3; i++)
    for (int k = 0; k < 5; k++) cr_assert_eq(l.slack[i][k], want_s[i][k]);
  cr_assert_eq(ic_slack_get_totals(s)->windows, 3);
  ic_slack_destroy(s);
  log_free(&l);
}

/* A mispredicted branch: PD from P0 (latency 5) to D1.
 *   i0: D0=0 R0=1 E0=1 P0=2 C0=3;  i1: D1=P0+5=7 R1=8 E1=8 P1=9 C1=10.
 * Every node of i1 is critical, so is P0 (req D1-5 = 2); C0 has slack 6. */
Test(slack, mispredict_attribution) {
  ic_graph_rec r[2];
  memset(r, 0, sizeof r);
  for (int i = 0; i < 2; i++) {
    r[i].seq = (uint64_t)i;
    r[i].pc = 0x2000 + 4 * (uint64_t)i;
    add(&r[i], mk_edge(IC_EDGE_DR, 0, 1, IC_CAT_NONE));
    add(&r[i], mk_edge(IC_EDGE_RE, 0, 0, IC_CAT_NONE));
    add(&r[i], mk_edge(IC_EDGE_EP, 0, 1, IC_CAT_SHALU));
    add(&r[i], mk_edge(IC_EDGE_PC, 0, 1, IC_CAT_NONE));
  }
  add(&r[1], mk_edge(IC_EDGE_DD, 1, 1, IC_CAT_NONE));
  add(&r[1], mk_edge(IC_EDGE_PD, 1, 5, IC_CAT_NONE));
  add(&r[1], mk_edge(IC_EDGE_CC, 1, 1, IC_CAT_NONE));
  stamp(r, 2);
  cr_assert_eq(r[1].t[IC_NODE_C], 10);
  obs_log l;
  log_init(&l, 2);
  ic_slack *s = run_slack(r, 2, 0, 2, &l);
  cr_assert_eq(l.slack[0][IC_NODE_P], 0);
  cr_assert_eq(l.slack[0][IC_NODE_C], 6);
  for (int k = 0; k < 5; k++) cr_assert_eq(l.slack[1][k], 0);
  ic_slack_pc *tab;
  size_t n;
  ic_err err;
  cr_assert_eq(ic_slack_table(s, IC_SLACK_BY_COST, &tab, &n, &err), IC_OK);
  cr_assert_eq(n, 2);
  cr_assert_eq(tab[0].pc, 0x2000);
  cr_assert_eq(tab[0].misp_count, 1);
  cr_assert_eq(tab[0].crit_misp_cycles, 5);
  cr_assert_eq(tab[1].misp_count, 0);
  free(tab);
  ic_slack_destroy(s);
  log_free(&l);
}

/* ---- random valid graphs, checked with igraph ---- */

static uint64_t rng_next(uint64_t *x) {
  *x ^= *x << 13;
  *x ^= *x >> 7;
  *x ^= *x << 17;
  return *x;
}

/* A plausible stream: ROB 32, fetch/commit width 4, loads with misses,
 * mispredicted branches, register and memory dependences, cache-line
 * sharing; some edges reach before the first record. */
static ic_graph_rec *random_graph(size_t n, uint64_t seed) {
  ic_graph_rec *r = calloc(n, sizeof *r);
  cr_assert(r);
  uint64_t x = seed * 0x9e3779b97f4a7c15ULL + 1;
  for (size_t i = 0; i < n; i++) {
    ic_graph_rec *g = &r[i];
    g->seq = i;
    uint64_t site = (i * 7) % 61; /* a loop-like walk over 61 static pcs */
    g->pc = 0x10000 + 4 * site;
    int load = site % 3 == 0, branch = site % 5 == 1;
    ic_edge dd = mk_edge(IC_EDGE_DD, 1, (uint32_t)(rng_next(&x) % 2), IC_CAT_NONE);
    if (rng_next(&x) % 50 == 0) dd.part[dd.nparts++] = (ic_lat_part){12, IC_CAT_IMISS};
    add(g, dd);
    add(g, mk_edge(IC_EDGE_FBW, 4, 1, IC_CAT_BW));
    add(g, mk_edge(IC_EDGE_CD, 32, 0, IC_CAT_WIN));
    if (i > 0 && (r[i - 1].pc - 0x10000) / 4 % 5 == 1 && rng_next(&x) % 4 == 0)
      add(g, mk_edge(IC_EDGE_PD, 1, 4 + (uint32_t)(rng_next(&x) % 6), IC_CAT_NONE));
    add(g, mk_edge(IC_EDGE_DR, 0, 1, IC_CAT_NONE));
    int npr = (int)(rng_next(&x) % 3);
    for (int k = 0; k < npr; k++) {
      ic_edge pr = mk_edge(IC_EDGE_PR, 1 + (uint32_t)(rng_next(&x) % 40), 0, IC_CAT_NONE);
      if (load && k == 0 && rng_next(&x) % 4 == 0) pr.flags = IC_EDGE_MEM;
      add(g, pr);
    }
    add(g, mk_edge(IC_EDGE_RE, 0, (uint32_t)(rng_next(&x) % 3), IC_CAT_BW));
    ic_edge ep = {.kind = IC_EDGE_EP};
    if (load) {
      g->opclass = 6;
      ep.part[ep.nparts++] = (ic_lat_part){2, IC_CAT_DL1};
      if (rng_next(&x) % 5 == 0) ep.part[ep.nparts++] = (ic_lat_part){10 + (uint32_t)(rng_next(&x) % 150), IC_CAT_DMISS};
      if (rng_next(&x) % 8 == 0) add(g, mk_edge(IC_EDGE_PP, 1 + (uint32_t)(rng_next(&x) % 10), 0, IC_CAT_DMISS));
    } else {
      g->opclass = branch ? 8 : 0;
      ep.part[ep.nparts++] = (ic_lat_part){1, IC_CAT_SHALU};
    }
    add(g, ep);
    add(g, mk_edge(IC_EDGE_PC, 0, 1, IC_CAT_NONE));
    add(g, mk_edge(IC_EDGE_CC, 1, (uint32_t)(rng_next(&x) % 8 == 0), IC_CAT_NONE));
    add(g, mk_edge(IC_EDGE_CBW, 4, 1, IC_CAT_BW));
  }
  stamp(r, n);
  return r;
}

/* Independent reference: igraph graph of 5n node vertices plus a start
 * vertex; arrival = longest path from the start (edges from before the
 * first record leave the start with their latency), computed in igraph's
 * topological order; slack = T - arrival - longest path to C(n-1). */
static void igraph_reference(const ic_graph_rec *r, size_t n, uint64_t (*arr)[5], uint64_t (*slack)[5]) {
  igraph_integer_t nv = (igraph_integer_t)(5 * n + 1), start = nv - 1;
  igraph_vector_int_t ev;
  igraph_vector_t w;
  cr_assert_eq(igraph_vector_int_init(&ev, 0), IGRAPH_SUCCESS);
  cr_assert_eq(igraph_vector_init(&w, 0), IGRAPH_SUCCESS);
  for (size_t i = 0; i < n; i++)
    for (int j = 0; j < r[i].nedges; j++) {
      const ic_edge *e = &r[i].edge[j];
      igraph_integer_t dst = (igraph_integer_t)(5 * i + ic_edge_dst_node[e->kind]);
      igraph_integer_t src = e->dist > i ? start : (igraph_integer_t)(5 * (i - e->dist) + ic_edge_src_node[e->kind]);
      igraph_vector_int_push_back(&ev, src);
      igraph_vector_int_push_back(&ev, dst);
      igraph_vector_push_back(&w, (igraph_real_t)ic_edge_latency(e, 0));
    }
  for (igraph_integer_t v = 0; v < start; v++) { /* every node is at least 0 */
    igraph_vector_int_push_back(&ev, start);
    igraph_vector_int_push_back(&ev, v);
    igraph_vector_push_back(&w, 0);
  }
  igraph_t g;
  cr_assert_eq(igraph_create(&g, &ev, nv, IGRAPH_DIRECTED), IGRAPH_SUCCESS);
  igraph_vector_int_t order, inc;
  igraph_vector_int_init(&order, 0);
  igraph_vector_int_init(&inc, 0);
  cr_assert_eq(igraph_topological_sorting(&g, &order, IGRAPH_OUT), IGRAPH_SUCCESS);
  cr_assert_eq(igraph_vector_int_size(&order), nv, "the graph has a cycle");
  double *a = calloc((size_t)nv, sizeof *a), *to_end = calloc((size_t)nv, sizeof *to_end);
  cr_assert(a && to_end);
  for (igraph_integer_t k = 0; k < nv; k++) {
    igraph_integer_t v = VECTOR(order)[k];
    igraph_incident(&g, &inc, v, IGRAPH_IN);
    for (igraph_integer_t q = 0; q < igraph_vector_int_size(&inc); q++) {
      igraph_integer_t eid = VECTOR(inc)[q];
      double c = a[IGRAPH_FROM(&g, eid)] + VECTOR(w)[eid];
      if (c > a[v]) a[v] = c;
    }
  }
  igraph_integer_t endv = (igraph_integer_t)(5 * (n - 1) + IC_NODE_C);
  for (igraph_integer_t v = 0; v < nv; v++) to_end[v] = -1; /* -1: no path to the end */
  to_end[endv] = 0;
  for (igraph_integer_t k = nv; k-- > 0;) {
    igraph_integer_t v = VECTOR(order)[k];
    igraph_incident(&g, &inc, v, IGRAPH_OUT);
    for (igraph_integer_t q = 0; q < igraph_vector_int_size(&inc); q++) {
      igraph_integer_t eid = VECTOR(inc)[q], d = IGRAPH_TO(&g, eid);
      if (to_end[d] < 0) continue;
      double c = to_end[d] + VECTOR(w)[eid];
      if (c > to_end[v]) to_end[v] = c;
    }
  }
  double T = a[endv];
  for (size_t i = 0; i < n; i++)
    for (int k = 0; k < 5; k++) {
      igraph_integer_t v = (igraph_integer_t)(5 * i + k);
      arr[i][k] = (uint64_t)a[v];
      slack[i][k] = (uint64_t)(T - a[v] - (to_end[v] < 0 ? 0 : to_end[v]));
    }
  free(a);
  free(to_end);
  igraph_vector_int_destroy(&order);
  igraph_vector_int_destroy(&inc);
  igraph_vector_int_destroy(&ev);
  igraph_vector_destroy(&w);
  igraph_destroy(&g);
}

Test(slack, random_graphs_match_igraph_longest_paths) {
  for (uint64_t seed = 1; seed <= 6; seed++) {
    size_t n = 1500 + 300 * (size_t)seed;
    ic_graph_rec *r = random_graph(n, seed);
    uint64_t(*ra)[5] = calloc(n, sizeof *ra), (*rs)[5] = calloc(n, sizeof *rs);
    igraph_reference(r, n, ra, rs);
    obs_log l;
    log_init(&l, n);
    ic_slack *s = run_slack(r, n, (uint32_t)n, 97, &l); /* one window: exact */
    const ic_slack_totals *t = ic_slack_get_totals(s);
    cr_assert_eq(t->stamp_mismatches, 0);
    cr_assert_eq(t->cycles, r[n - 1].t[IC_NODE_C]);
    for (size_t i = 0; i < n; i++)
      for (int k = 0; k < 5; k++) {
        cr_assert_eq(ra[i][k], r[i].t[k], "igraph arrival != stamp at %zu%c", i, ic_node_names[k]);
        cr_assert_eq(l.arr[i][k], ra[i][k]);
        cr_assert_eq(l.slack[i][k], rs[i][k], "seed %llu: slack of %c%zu: %llu, igraph says %llu",
                     (unsigned long long)seed, ic_node_names[k], i, (unsigned long long)l.slack[i][k],
                     (unsigned long long)rs[i][k]);
      }
    ic_slack_destroy(s);
    log_free(&l);
    free(ra);
    free(rs);
    free(r);
  }
}

/* Windowed slack vs the exact whole-run slack: records in the last window
 * are exact by construction; elsewhere agreement must grow with W and be
 * near-complete once the look-ahead W/2 spans many ROBs (ROB 32 here). */
Test(slack, window_convergence) {
  size_t n = 6000;
  ic_graph_rec *r = random_graph(n, 11);
  uint64_t(*ra)[5] = calloc(n, sizeof *ra), (*rs)[5] = calloc(n, sizeof *rs);
  igraph_reference(r, n, ra, rs);
  static const uint32_t ws[] = {8, 32, 128, 512, 2048};
  double prev = -1;
  for (size_t wi = 0; wi < sizeof ws / sizeof ws[0]; wi++) {
    obs_log l;
    log_init(&l, n);
    ic_slack *s = run_slack(r, n, ws[wi], 1000, &l);
    size_t agree = 0;
    for (size_t i = 0; i < n; i++) {
      int same = 1;
      for (int k = 0; k < 5; k++) same &= l.slack[i][k] == rs[i][k];
      agree += (size_t)same;
    }
    /* the last window, [win_start, n), is at least W/2 records long */
    for (size_t i = n - ws[wi] / 2; i < n; i++)
      for (int k = 0; k < 5; k++) cr_assert_eq(l.slack[i][k], rs[i][k]);
    double frac = (double)agree / (double)n;
    cr_log_info("window %u: %.4f of instructions have exactly the global slack", ws[wi], frac);
    cr_assert_geq(frac, prev - 0.01, "agreement fell from %.4f to %.4f at window %u", prev, frac, ws[wi]);
    prev = frac;
    ic_slack_destroy(s);
    log_free(&l);
  }
  cr_assert_geq(prev, 0.99, "window 2048 (64 ROBs of look-ahead): only %.4f exact", prev);
  free(ra);
  free(rs);
  free(r);
}

Test(slack, arrival_ring_reach_and_seq_start) {
  /* records may start at any seq; an edge to before the first record and one
   * beyond the arrival ring (IC_SLACK_MIN_REACH records for a small window)
   * both count as source time 0 */
  const uint64_t n = IC_SLACK_MIN_REACH + 100;
  ic_slack *s;
  ic_err err;
  cr_assert_eq(ic_slack_create(&s, 2, &err), IC_OK);
  ic_graph_rec r;
  for (uint64_t i = 0; i < n; i++) {
    memset(&r, 0, sizeof r);
    r.seq = 100 + i;
    add(&r, mk_edge(IC_EDGE_DR, 0, 1, IC_CAT_NONE));
    add(&r, mk_edge(IC_EDGE_PC, 0, 1, IC_CAT_NONE));
    if (i > 0) add(&r, mk_edge(IC_EDGE_CC, 1, 1, IC_CAT_NONE));
    r.t[IC_NODE_R] = 1;
    r.t[IC_NODE_C] = i + 1;
    if (i == 0) { /* source before the first record: time 0 + 7 */
      add(&r, mk_edge(IC_EDGE_PR, 3, 7, IC_CAT_NONE));
      r.t[IC_NODE_R] = 7;
    }
    if (i == 50) { /* 40 back with a window of 2: still reached, P = 0, so R = 1 */
      add(&r, mk_edge(IC_EDGE_PR, 40, 1, IC_CAT_NONE));
    }
    if (i == n - 1) /* beyond the reach: time 0 + 5, while the stamp says 1 */
      add(&r, mk_edge(IC_EDGE_PR, IC_SLACK_MIN_REACH + 10, 5, IC_CAT_NONE));
    cr_assert_eq(ic_slack_consume(s, &r, 1, &err), IC_OK, "%s", err.msg);
  }
  cr_assert_eq(ic_slack_finish(s, &err), IC_OK);
  const ic_slack_totals *t = ic_slack_get_totals(s);
  cr_assert_eq(t->unreached_edges, 1);
  cr_assert_eq(t->stamp_mismatches, 1);
  cr_assert_eq(t->instructions, n);
  cr_assert_eq(t->cycles, n);
  ic_slack_destroy(s);
}

Test(slack, malformed_records_are_rejected) {
  ic_slack *s;
  ic_err err;
  cr_assert_eq(ic_slack_create(&s, 1, &err), IC_EINPUT);
  cr_assert(strstr(err.msg, "window 1"), "%s", err.msg);
  cr_assert_eq(ic_slack_create(&s, 16, &err), IC_OK);
  ic_graph_rec r;
  memset(&r, 0, sizeof r);
  r.seq = 5;
  add(&r, mk_edge(IC_EDGE_EP, 0, 1, IC_CAT_NONE));
  cr_assert_eq(ic_slack_consume(s, &r, 1, &err), IC_OK);
  r.seq = 7;
  cr_assert_eq(ic_slack_consume(s, &r, 1, &err), IC_EINPUT);
  cr_assert(strstr(err.msg, "seq 7: expected seq 6"), "%s", err.msg);
  r.seq = 6;
  r.edge[0] = mk_edge(IC_EDGE_PC, 0, 1, 77);
  cr_assert_eq(ic_slack_consume(s, &r, 1, &err), IC_EINPUT);
  cr_assert(strstr(err.msg, "category 77"), "%s", err.msg);
  r.edge[0] = mk_edge(IC_EDGE_CC, 0, 1, IC_CAT_NONE);
  cr_assert_eq(ic_slack_consume(s, &r, 1, &err), IC_EINPUT);
  cr_assert(strstr(err.msg, "CC edge with distance 0"), "%s", err.msg);
  r.edge[0] = mk_edge(40, 1, 1, IC_CAT_NONE);
  cr_assert_eq(ic_slack_consume(s, &r, 1, &err), IC_EINPUT);
  r.edge[0] = mk_edge(IC_EDGE_CC, 1, 1, IC_CAT_NONE);
  r.edge[0].nparts = 9;
  cr_assert_eq(ic_slack_consume(s, &r, 1, &err), IC_EINPUT);
  r.edge[0].nparts = 1;
  r.nedges = 200;
  cr_assert_eq(ic_slack_consume(s, &r, 1, &err), IC_EINPUT);
  r.nedges = 1;
  cr_assert_eq(ic_slack_consume(s, &r, 1, &err), IC_OK);
  cr_assert_eq(ic_slack_finish(s, &err), IC_OK);
  cr_assert_eq(ic_slack_consume(s, &r, 1, &err), IC_EINPUT);
  ic_slack_destroy(s);
}

/* Records without the commit chain: the window end is its latest node, and
 * every slack stays within the window (no wrap-around). Two instructions,
 * i0 with EP 10 and i1 with EP 1, independent: T = max(C0, C1) = C0 = 11,
 * so i0 is critical and i1's nodes have slack 11 - 2 = 9. */
Test(slack, window_end_is_its_latest_node) {
  ic_graph_rec r[2];
  memset(r, 0, sizeof r);
  for (int i = 0; i < 2; i++) {
    r[i].seq = (uint64_t)i;
    add(&r[i], mk_edge(IC_EDGE_EP, 0, i == 0 ? 10 : 1, IC_CAT_NONE));
    add(&r[i], mk_edge(IC_EDGE_PC, 0, 1, IC_CAT_NONE));
  }
  stamp(r, 2);
  obs_log l;
  log_init(&l, 2);
  ic_slack *s = run_slack(r, 2, 0, 2, &l);
  for (int k = IC_NODE_E; k < IC_NODE_COUNT; k++) {
    cr_assert_eq(l.slack[0][k], 0);
    cr_assert_lt(l.slack[1][k], 12);
  }
  cr_assert_eq(l.slack[1][IC_NODE_E], 9);
  ic_slack_destroy(s);
  log_free(&l);
}

/* The hand graph with dmiss idealized: i0's EP keeps its 2 dl1 cycles.
 *   i0: D0=0 R0=1 E0=1 P0=3 C0=4;  i1: D1=1 R1=2 E1=2 P1=3 C1=max(4, 5)=5;
 *   i2: D2=2 R2=max(3, P0=3)=3 E2=3 P2=4 C2=max(5, 6)=6.
 * Backward from 6: C2=6 P2=5 E2=4 R2=4 D2=3; C1=5 P1=4 E1=3 R1=3
 * D1=min(R1-1, D2-1)=2; C0=4 P0=min(R2, C0-1)=3 E0=1 R0=1 D0=0.
 * Slacks: i0 all 0; i1 D1 R1 E1 P1 C0; i2 D1 R1 E1 P1 C0. */
Test(slack, idealized_hand_graph) {
  ic_graph_rec r[3];
  hand_graph(r);
  ic_slack *s;
  ic_err err;
  obs_log l;
  log_init(&l, 3);
  cr_assert_eq(ic_slack_create(&s, 0, &err), IC_OK);
  cr_assert_eq(ic_slack_set_ideal(s, IC_CATBIT(IC_CAT_DMISS), &err), IC_OK);
  ic_slack_set_observer(s, observe, &l);
  cr_assert_eq(ic_slack_consume(s, r, 3, &err), IC_OK, "%s", err.msg);
  cr_assert_eq(ic_slack_set_ideal(s, 0, &err), IC_EINPUT);
  cr_assert_eq(ic_slack_finish(s, &err), IC_OK);
  static const uint64_t want_t[3][5] = {{0, 1, 1, 3, 4}, {1, 2, 2, 3, 5}, {2, 3, 3, 4, 6}};
  static const uint64_t want_s[3][5] = {{0, 0, 0, 0, 0}, {1, 1, 1, 1, 0}, {1, 1, 1, 1, 0}};
  for (int i = 0; i < 3; i++)
    for (int k = 0; k < 5; k++) {
      cr_assert_eq(l.arr[i][k], want_t[i][k], "arrival of %c%d", ic_node_names[k], i);
      cr_assert_eq(l.slack[i][k], want_s[i][k], "slack of %c%d", ic_node_names[k], i);
    }
  const ic_slack_totals *t = ic_slack_get_totals(s);
  cr_assert_eq(t->cycles, 6);
  cr_assert_eq(t->miss_cycles, 0);
  cr_assert_eq(t->stamp_mismatches, 0); /* not checked under a mask */
  ic_slack_destroy(s);
  log_free(&l);
}

/* Under every single-category mask and all eight together, the slack
 * engine's idealized critical-path length equals the powerset solver's
 * t(S), and no slack is negative (wrapped). With mshr_k, the loads that
 * miss carry the MSHR rule for that many MSHRs (graph_rec.h), and the
 * stamps are the reference pass's. */
static void idealized_lengths_match_solver(int mshr_k, uint32_t iq, int slots) {
  size_t n = 3000;
  ic_graph_rec *r = random_graph(n, 17);
  for (size_t i = 0; i < n; i++) r[i].iq = iq;
  /* slots: one issue a cycle (a slot rule on every record but the first),
     so that with one MSHR the two rules take turns (rules.h) */
  for (size_t i = 1; slots && i < n; i++) r[i].slot_w = 1;
  if (mshr_k || iq) {
    for (size_t i = 1; i < n; i++)
      for (int k = 0; k < r[i].nedges; k++)
        if (mshr_k && r[i].edge[k].kind == IC_EDGE_EP && r[i].edge[k].nparts == 2) {
          r[i].mshr_k = (uint8_t)mshr_k;
          break;
        }
    uint64_t *nt = malloc(n * IC_NODE_COUNT * sizeof *nt), t, tno;
    ic_err err;
    cr_assert_eq(ic_graph_eval(r, n, 0, nt, &t, &err), IC_OK, "%s", err.msg);
    for (size_t i = 0; i < n; i++) memcpy(r[i].t, &nt[i * IC_NODE_COUNT], sizeof r[i].t);
    free(nt);
    /* the rules bind here: without them the graph is shorter */
    ic_graph_rec *w = malloc(n * sizeof *w);
    memcpy(w, r, n * sizeof *w);
    for (size_t i = 0; i < n; i++) w[i].iq = w[i].mshr_k = 0;
    cr_assert_eq(ic_graph_eval(w, n, 0, NULL, &tno, &err), IC_OK, "%s", err.msg);
    cr_assert_lt(tno, t, "without the rules %llu, with them %llu", (unsigned long long)tno,
                 (unsigned long long)t);
    free(w);
  }
  uint8_t cats[IC_CAT_COUNT];
  for (int c = 0; c < IC_CAT_COUNT; c++) cats[c] = (uint8_t)c;
  ic_solver *sv;
  ic_err err;
  cr_assert_eq(ic_solver_create(&sv, cats, IC_CAT_COUNT, &err), IC_OK, "%s", err.msg);
  cr_assert_eq(ic_solver_feed(sv, r, n, &err), IC_OK, "%s", err.msg);
  const uint64_t *ts = ic_solver_times(sv);
  for (int c = -1; c <= IC_CAT_COUNT; c++) {
    uint32_t sub = c < 0 ? 0 : c == IC_CAT_COUNT ? (1u << IC_CAT_COUNT) - 1 : 1u << c;
    ic_catmask mask = ic_solver_subset_catmask(sv, sub);
    ic_slack *s;
    obs_log l;
    log_init(&l, n);
    cr_assert_eq(ic_slack_create(&s, 512, &err), IC_OK);
    cr_assert_eq(ic_slack_set_ideal(s, mask, &err), IC_OK);
    ic_slack_set_observer(s, observe, &l);
    cr_assert_eq(ic_slack_consume(s, r, n, &err), IC_OK, "%s", err.msg);
    cr_assert_eq(ic_slack_finish(s, &err), IC_OK);
    cr_assert_eq(ic_slack_get_totals(s)->cycles, ts[sub], "mask %#x: slack %llu, solver %llu", mask,
                 (unsigned long long)ic_slack_get_totals(s)->cycles, (unsigned long long)ts[sub]);
    for (size_t i = 0; i < n; i++)
      for (int k = 0; k < 5; k++) cr_assert_leq(l.slack[i][k], ts[sub]);
    ic_slack_destroy(s);
    log_free(&l);
  }
  cr_assert_lt(ts[(1u << IC_CAT_COUNT) - 1], ts[0]);
  ic_solver_destroy(sv);
  free(r);
}

Test(slack, idealized_lengths_match_solver) { idealized_lengths_match_solver(0, 0, 0); }
Test(slack, idealized_lengths_match_solver_with_the_mshr_rule) { idealized_lengths_match_solver(2, 0, 0); }
Test(slack, idealized_lengths_match_solver_with_the_iq_rule) { idealized_lengths_match_solver(0, 6, 0); }
Test(slack, idealized_lengths_match_solver_with_both_mshr_and_slot_rules) {
  idealized_lengths_match_solver(1, 0, 1);
}

/* random_graph with the rules and IW edges on top: every record an
 * opclass, the slot rule (width 2, one unit of its pool for some) past the
 * first, the MSHR rule (2) on loads, the IQ rule (iq, 0: none) on all, now
 * and then an IW edge (to E, from 1 to 4 back) that win or dmiss keep;
 * stamps from the reference pass. Records from seq0. */
static ic_graph_rec *random_graph_with_rules(size_t n, uint64_t seed, uint32_t iq, uint64_t seq0) {
  ic_graph_rec *r = random_graph(n, seed);
  static const uint8_t ops[] = {IC_OP_INT_ALU, IC_OP_LOAD, IC_OP_STORE, IC_OP_INT_MUL, IC_OP_FP_ADD};
  uint64_t x = seed * 31 + 7;
  for (size_t i = 0; i < n; i++) {
    ic_graph_rec *g = &r[i];
    const int load = g->opclass == 6;
    g->opclass = load ? IC_OP_LOAD : ops[rng_next(&x) % sizeof ops];
    if (i > 0) {
      g->slot_w = 2;
      g->slot_p = rng_next(&x) % 3 == 0 ? 1 : 0;
    }
    g->mshr_k = g->opclass == IC_OP_LOAD ? 2 : 0;
    g->iq = iq;
    if (rng_next(&x) % 4 == 0 && g->nedges < IC_MAX_EDGES) {
      ic_edge iw = mk_edge(IC_EDGE_IW, 1 + (uint32_t)(rng_next(&x) % 4), 1, IC_CAT_BW);
      iw.keep = (uint8_t)(rng_next(&x) & (IC_CATBIT(IC_CAT_WIN) | IC_CATBIT(IC_CAT_DMISS)));
      add(g, iw);
    }
    g->seq = seq0 + i;
  }
  uint64_t *nt = malloc(n * IC_NODE_COUNT * sizeof *nt), t;
  ic_err err;
  cr_assert(nt);
  cr_assert_eq(ic_graph_eval(r, n, 0, nt, &t, &err), IC_OK, "%s", err.msg);
  for (size_t i = 0; i < n; i++) memcpy(r[i].t, &nt[i * IC_NODE_COUNT], sizeof r[i].t);
  free(nt);
  return r;
}

/* Slack's arrival times of recs under `ideal` (window w) against the
 * reference pass's node times, node by node; slacks never wrap. */
static void arrivals_match_reference(const ic_graph_rec *r, size_t n, ic_catmask ideal, uint32_t w, uint64_t *nt,
                                     const char *what) {
  uint64_t t;
  ic_err err;
  cr_assert_eq(ic_graph_eval(r, n, ideal, nt, &t, &err), IC_OK, "%s", err.msg);
  ic_slack *s;
  obs_log l;
  log_init(&l, n);
  l.first_seq = r[0].seq;
  cr_assert_eq(ic_slack_create(&s, w, &err), IC_OK, "%s", err.msg);
  cr_assert_eq(ic_slack_set_ideal(s, ideal, &err), IC_OK, "%s", err.msg);
  ic_slack_set_observer(s, observe, &l);
  for (size_t i = 0; i < n; i += 97)
    cr_assert_eq(ic_slack_consume(s, r + i, n - i < 97 ? n - i : 97, &err), IC_OK, "%s", err.msg);
  cr_assert_eq(ic_slack_finish(s, &err), IC_OK, "%s", err.msg);
  cr_assert_eq(l.n, n);
  cr_assert(!l.out_of_order);
  const ic_slack_totals *tt = ic_slack_get_totals(s);
  cr_assert_eq(tt->cycles, t, "%s, ideal %#x: slack's length %llu, reference %llu", what, ideal,
               (unsigned long long)tt->cycles, (unsigned long long)t);
  cr_assert_eq(tt->stamp_mismatches, 0);
  cr_assert_eq(tt->unreached_edges, 0);
  for (size_t i = 0; i < n; i++)
    for (int k = 0; k < IC_NODE_COUNT; k++) {
      cr_assert_eq(l.arr[i][k], nt[i * IC_NODE_COUNT + k], "%s, ideal %#x: %c of record %zu: slack %llu, reference %llu",
                   what, ideal, ic_node_names[k], i, (unsigned long long)l.arr[i][k],
                   (unsigned long long)nt[i * IC_NODE_COUNT + k]);
      cr_assert_leq(l.slack[i][k], t, "%s, ideal %#x: slack of %c%zu wrapped", what, ideal, ic_node_names[k], i);
    }
  ic_slack_destroy(s);
  log_free(&l);
}

/* Slack's forward pass is the contract's one evaluation order
 * (rec_eval.h): under every idealization, with the IQ, MSHR and slot rules
 * and IW edges that hold or not, its arrival time of every node is the
 * reference pass's. A run longer than the arrival ring (IC_SLACK_MIN_REACH)
 * from a seq other than 0 reads its ring across the wrap. */
Test(slack, forward_times_are_the_reference_pass) {
  for (uint64_t seed = 1; seed <= 2; seed++) {
    const size_t n = 1500;
    ic_graph_rec *r = random_graph_with_rules(n, seed, seed == 1 ? 6 : 0, 0);
    uint64_t *nt = malloc(n * IC_NODE_COUNT * sizeof *nt);
    cr_assert(nt);
    for (ic_catmask ideal = 0; ideal < IC_CATBIT(IC_CAT_COUNT); ideal++)
      arrivals_match_reference(r, n, ideal, 64, nt, seed == 1 ? "iq 6" : "no iq");
    free(nt);
    free(r);
  }
  const size_t n = IC_SLACK_MIN_REACH + 3000;
  ic_graph_rec *r = random_graph_with_rules(n, 3, 8, 12345);
  uint64_t *nt = malloc(n * IC_NODE_COUNT * sizeof *nt);
  cr_assert(nt);
  static const ic_catmask masks[] = {0, IC_CATBIT(IC_CAT_DL1) | IC_CATBIT(IC_CAT_SHALU),
                                     IC_CATBIT(IC_CAT_WIN) | IC_CATBIT(IC_CAT_DMISS)};
  for (size_t q = 0; q < sizeof masks / sizeof *masks; q++)
    arrivals_match_reference(r, n, masks[q], 4096, nt, "past the ring");
  free(nt);
  free(r);
}

/* Two instructions in one window; i1 waits on i0 through one rule, and
 * i1's long execution makes its own chain the critical one, so i0's E
 * (and where it says, P) is critical only through the rule's edge.
 * Base: i0 D0=0 R0=1 E0=1 P0=2 C0=3 (DR 1, RE 0, EP 1, PC 1); i1 DD 0 from
 * i0, DR 1, RE 0, EP 20, PC 1, CC 1.
 *   slot: width 1 on i1: E1 = 2 (cycle 1 is i0's), P1 = 22, C1 = 23; the
 *         slot edge E0 -> E1 (latency 1) makes E0 critical.
 *   mshr: one MSHR, both loads, i0's EP 10: P0 = 11, and i1 (ready at 1)
 *         issues when i0's frees, E1 = 11, P1 = 31, C1 = 32; the MSHR edge
 *         P0 -> E1 makes P0 and E0 critical.
 *   iq:   an IQ of one: D1 = E0 = 1, R1 = 2, E1 = 2, P1 = 22, C1 = 23;
 *         the IQ edge E0 -> D1 makes E0 critical.
 * Without the rule's edge E0 would have slack 19 in each; C0 has it. */
static void rule_graph(ic_graph_rec r[2], int rule) {
  memset(r, 0, 2 * sizeof *r);
  for (int i = 0; i < 2; i++) {
    r[i].seq = (uint64_t)i;
    r[i].pc = 0x3000 + 4 * (uint64_t)i;
    r[i].opclass = rule == 1 ? IC_OP_LOAD : IC_OP_INT_ALU;
    if (i > 0) add(&r[i], mk_edge(IC_EDGE_DD, 1, 0, IC_CAT_NONE));
    add(&r[i], mk_edge(IC_EDGE_DR, 0, 1, IC_CAT_NONE));
    add(&r[i], mk_edge(IC_EDGE_RE, 0, 0, IC_CAT_NONE));
    add(&r[i], mk_edge(IC_EDGE_EP, 0, i ? 20 : rule == 1 ? 10 : 1, rule == 1 ? IC_CAT_DMISS : IC_CAT_SHALU));
    add(&r[i], mk_edge(IC_EDGE_PC, 0, 1, IC_CAT_NONE));
    if (i > 0) add(&r[i], mk_edge(IC_EDGE_CC, 1, 1, IC_CAT_NONE));
  }
  if (rule == 0) r[1].slot_w = 1;
  if (rule == 1) r[0].mshr_k = r[1].mshr_k = 1;
  if (rule == 2) r[0].iq = r[1].iq = 1;
  uint64_t *nt = malloc(2 * IC_NODE_COUNT * sizeof *nt), t;
  ic_err err;
  cr_assert(nt);
  cr_assert_eq(ic_graph_eval(r, 2, 0, nt, &t, &err), IC_OK, "%s", err.msg);
  for (int i = 0; i < 2; i++) memcpy(r[i].t, &nt[i * IC_NODE_COUNT], sizeof r[i].t);
  free(nt);
}

Test(slack, a_rule_that_gives_a_node_its_time_is_its_edge) {
  static const char *const names[] = {"slot", "MSHR", "IQ"};
  static const uint64_t want_t[3][2][5] = {{{0, 1, 1, 2, 3}, {0, 1, 2, 22, 23}},
                                           {{0, 1, 1, 11, 12}, {0, 1, 11, 31, 32}},
                                           {{0, 1, 1, 2, 3}, {1, 2, 2, 22, 23}}};
  for (int rule = 0; rule < 3; rule++) {
    ic_graph_rec r[2];
    rule_graph(r, rule);
    obs_log l;
    log_init(&l, 2);
    ic_slack *s = run_slack(r, 2, 0, 2, &l);
    for (int i = 0; i < 2; i++)
      for (int k = 0; k < 5; k++)
        cr_assert_eq(l.arr[i][k], want_t[rule][i][k], "%s rule: %c%d = %llu, want %llu", names[rule],
                     ic_node_names[k], i, (unsigned long long)l.arr[i][k], (unsigned long long)want_t[rule][i][k]);
    cr_assert_eq(l.slack[0][IC_NODE_E], 0, "%s rule: E0 has slack %llu", names[rule],
                 (unsigned long long)l.slack[0][IC_NODE_E]);
    cr_assert_eq(l.slack[0][IC_NODE_P], rule == 1 ? 0 : 19, "%s rule: P0 has slack %llu", names[rule],
                 (unsigned long long)l.slack[0][IC_NODE_P]);
    cr_assert_eq(l.slack[0][IC_NODE_C], 19);
    for (int k = IC_NODE_E; k < 5; k++)
      cr_assert_eq(l.slack[1][k], 0, "%s rule: %c1 not critical", names[rule], ic_node_names[k]);
    cr_assert_eq(ic_slack_get_totals(s)->stamp_mismatches, 0);
    ic_slack_destroy(s);
    log_free(&l);
  }
}
