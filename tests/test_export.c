/* test_export.c: igraph export of graph windows (engine/export.h).
 *
 * Counts of vertices and edges, idealization rules (longest path through the
 * exported graph, computed with igraph's topological order, equals a direct
 * evaluation of the records under the same mask), the rules' edges as the
 * one evaluation gives them (longest paths the reference pass's times, node
 * slacks the slack pass's, on hand-built, random and real-model records),
 * GraphML round trip, DOT output, all-or-nothing file writes, and the
 * recorder sink. */
#include <criterion/criterion.h>
#include <igraph.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export.h"
#include "graph.h"
#include "inst.h"
#include "ooo.h"
#include "slack.h"
#include "solver.h"
#include "test_igraph_util.h"
#include "test_synth_loop.h"

static uint64_t rng(uint64_t *x) {
  *x ^= *x << 13;
  *x ^= *x >> 7;
  *x ^= *x << 17;
  return *x;
}

static void add(ic_graph_rec *r, int kind, uint32_t dist, uint32_t lat, int cat) {
  ic_edge *e = &r->edge[r->nedges++];
  memset(e, 0, sizeof *e);
  e->kind = (uint8_t)kind;
  e->dist = dist;
  e->nparts = 1;
  e->part[0] = (ic_lat_part){lat, (uint8_t)cat};
}

/* Node times of the records under `ideal` with the graph_rec.h rules,
 * window-relative: sources before the first record are time 0. */
static void evaluate(const ic_graph_rec *r, size_t n, ic_catmask ideal, uint64_t (*t)[5]) {
  for (size_t i = 0; i < n; i++)
    for (int k = 0; k < 5; k++) {
      uint64_t best = 0;
      for (int j = 0; j < r[i].nedges; j++) {
        const ic_edge *e = &r[i].edge[j];
        if (ic_edge_dst_node[e->kind] != k) continue;
        if ((ideal & IC_CATBIT(IC_CAT_BW)) && (e->kind == IC_EDGE_FBW || e->kind == IC_EDGE_CBW)) continue;
        if ((ideal & IC_CATBIT(IC_CAT_BMISP)) && e->kind == IC_EDGE_PD) continue;
        if ((ideal & IC_CATBIT(IC_CAT_DMISS)) && e->kind == IC_EDGE_PP) continue;
        uint64_t d = e->dist;
        if (e->kind == IC_EDGE_CD && (ideal & IC_CATBIT(IC_CAT_WIN))) d *= IC_WIN_FACTOR;
        uint64_t src = d > i ? 0 : t[i - d][ic_edge_src_node[e->kind]];
        uint64_t v = src + ic_edge_latency(e, ideal);
        if (v > best) best = v;
      }
      t[i][k] = best;
    }
}

static ic_graph_rec *gen(size_t n, uint64_t seed) {
  ic_graph_rec *r = calloc(n, sizeof *r);
  cr_assert(r);
  uint64_t x = seed * 0x9e3779b97f4a7c15ULL + 7;
  for (size_t i = 0; i < n; i++) {
    ic_graph_rec *g = &r[i];
    g->seq = i;
    g->pc = 0x10000 + 4 * (i % 37);
    g->opclass = (uint8_t)(i % 3 == 0 ? 6 : 0);
    add(g, IC_EDGE_DD, 1, (uint32_t)(rng(&x) % 2), IC_CAT_IMISS);
    add(g, IC_EDGE_FBW, 4, 1, IC_CAT_NONE);
    add(g, IC_EDGE_CD, 8, 0, IC_CAT_NONE);
    if (rng(&x) % 6 == 0) add(g, IC_EDGE_PD, 1, 7, IC_CAT_NONE);
    add(g, IC_EDGE_DR, 0, 1, IC_CAT_NONE);
    if (rng(&x) % 2) add(g, IC_EDGE_PR, 1 + (uint32_t)(rng(&x) % 12), 0, IC_CAT_NONE);
    add(g, IC_EDGE_RE, 0, (uint32_t)(rng(&x) % 2), IC_CAT_BW);
    add(g, IC_EDGE_EP, 0, i % 3 == 0 ? 2 : 1, i % 3 == 0 ? IC_CAT_DL1 : IC_CAT_SHALU);
    if (i % 3 == 0 && rng(&x) % 4 == 0) {
      ic_edge *ep = &g->edge[g->nedges - 1];
      ep->part[ep->nparts++] = (ic_lat_part){40, IC_CAT_DMISS};
    }
    if (rng(&x) % 9 == 0) add(g, IC_EDGE_PP, 1 + (uint32_t)(rng(&x) % 5), 0, IC_CAT_NONE);
    add(g, IC_EDGE_PC, 0, 1, IC_CAT_NONE);
    add(g, IC_EDGE_CC, 1, 0, IC_CAT_NONE);
    add(g, IC_EDGE_CBW, 4, 1, IC_CAT_NONE);
  }
  uint64_t(*t)[5] = calloc(n, sizeof *t);
  evaluate(r, n, 0, t);
  for (size_t i = 0; i < n; i++) memcpy(r[i].t, t[i], sizeof t[i]);
  free(t);
  return r;
}

static size_t count_edges(const ic_graph_rec *r, size_t n, int kind) {
  size_t c = 0;
  for (size_t i = 0; i < n; i++)
    for (int j = 0; j < r[i].nedges; j++) c += r[i].edge[j].kind == kind;
  return c;
}

Test(export, counts_names_and_attributes) {
  size_t n = 50;
  ic_graph_rec *r = gen(n, 3);
  igraph_t g;
  ic_err err;
  cr_assert_eq(ic_export_build(&g, r, n, 0, &err), IC_OK, "%s", err.msg);
  cr_assert_eq(igraph_vcount(&g), 5 * (igraph_integer_t)n + 1);
  cr_assert_str_eq(VAS(&g, "name", 5 * (igraph_integer_t)n), "start");
  size_t total = 0, external = 0;
  for (size_t i = 0; i < n; i++)
    for (int j = 0; j < r[i].nedges; j++) {
      total++;
      external += r[i].edge[j].dist > i;
    }
  cr_assert_gt(external, 0);
  cr_assert_eq((size_t)igraph_ecount(&g), total);
  cr_assert_eq((size_t)GAN(&g, "external_edges"), external);
  cr_assert_str_eq(VAS(&g, "name", 5 * 12 + IC_NODE_E), "E12");
  cr_assert_eq(VAN(&g, "t", 5 * 12 + IC_NODE_E), (double)r[12].t[IC_NODE_E]);
  cr_assert_str_eq(VAS(&g, "pc", 5 * 12), "0x10030");
  cr_assert_str_eq(VAS(&g, "opclass", 5 * 12), "load");
  /* record 0's edges in order: DD, FBW, CD from "start", then DR */
  cr_assert_str_eq(EAS(&g, "kind", 0), "DD");
  cr_assert_eq(IGRAPH_FROM(&g, 0), 5 * (igraph_integer_t)n);
  cr_assert_eq(EAN(&g, "external", 0), 1);
  cr_assert_str_eq(EAS(&g, "kind", 3), "DR");
  cr_assert_eq(IGRAPH_FROM(&g, 3), IC_NODE_D);
  cr_assert_eq(IGRAPH_TO(&g, 3), IC_NODE_R);
  cr_assert_eq(EAN(&g, "external", 3), 0);
  igraph_destroy(&g);
  free(r);
}

/* The longest path through the exported graph is the records' evaluation:
 * with no mask, the stamps themselves (window from seq 0); under each mask,
 * the independent evaluation above. */
Test(export, longest_path_matches_evaluation_under_masks) {
  size_t n = 400;
  ic_graph_rec *r = gen(n, 5);
  uint64_t(*t)[5] = calloc(n, sizeof *t);
  ic_catmask masks[] = {0,
                        IC_CATBIT(IC_CAT_BW),
                        IC_CATBIT(IC_CAT_BMISP),
                        IC_CATBIT(IC_CAT_DMISS),
                        IC_CATBIT(IC_CAT_WIN),
                        IC_CATBIT(IC_CAT_DMISS) | IC_CATBIT(IC_CAT_DL1) | IC_CATBIT(IC_CAT_IMISS),
                        (1u << IC_CAT_COUNT) - 1};
  for (size_t m = 0; m < sizeof masks / sizeof masks[0]; m++) {
    igraph_t g;
    ic_err err;
    cr_assert_eq(ic_export_build(&g, r, n, masks[m], &err), IC_OK, "%s", err.msg);
    evaluate(r, n, masks[m], t);
    double *a = t_igraph_longest(&g);
    for (size_t i = 0; i < n; i++)
      for (int k = 0; k < 5; k++) {
        cr_assert_eq((uint64_t)a[5 * i + (size_t)k], t[i][k], "mask %#x node %c%zu", masks[m], ic_node_names[k], i);
        if (masks[m] == 0) cr_assert_eq(t[i][k], r[i].t[k]);
      }
    if (masks[m] & IC_CATBIT(IC_CAT_BMISP))
      cr_assert_geq(GAN(&g, "dropped_edges"), (double)count_edges(r, n, IC_EDGE_PD));
    free(a);
    igraph_destroy(&g);
  }
  /* the masks really change something on this graph */
  evaluate(r, n, (1u << IC_CAT_COUNT) - 1, t);
  cr_assert_lt(t[n - 1][IC_NODE_C], r[n - 1].t[IC_NODE_C]);
  free(t);
  free(r);
}

/* A window that starts later: edges from before it leave "start" (time 0),
 * so the longest path is a lower bound of the stamps, and equal to the
 * evaluation of the window on its own. */
Test(export, later_window_is_a_lower_bound) {
  size_t n = 300, from = 120, m = 100;
  ic_graph_rec *r = gen(n, 9);
  igraph_t g;
  ic_err err;
  cr_assert_eq(ic_export_build(&g, r + from, m, 0, &err), IC_OK, "%s", err.msg);
  cr_assert_gt(GAN(&g, "external_edges"), 0);
  cr_assert_eq(GAN(&g, "first_seq"), (double)from);
  double *a = t_igraph_longest(&g);
  /* evaluate the window with seqs rebased to 0: sources before it are 0 */
  ic_graph_rec *w = malloc(m * sizeof *w);
  memcpy(w, r + from, m * sizeof *w);
  for (size_t i = 0; i < m; i++) w[i].seq = i;
  uint64_t(*t)[5] = calloc(m, sizeof *t);
  evaluate(w, m, 0, t);
  for (size_t i = 0; i < m; i++)
    for (int k = 0; k < 5; k++) {
      cr_assert_eq((uint64_t)a[5 * i + (size_t)k], t[i][k]);
      cr_assert_leq(t[i][k], r[from + i].t[k]);
    }
  free(t);
  free(w);
  free(a);
  igraph_destroy(&g);
  free(r);
}

Test(export, graphml_round_trip_and_dot) {
  size_t n = 80;
  ic_graph_rec *r = gen(n, 4);
  char dir[] = "/tmp/icost_export_XXXXXX";
  cr_assert(mkdtemp(dir));
  char path[256];
  snprintf(path, sizeof path, "%s/w.graphml", dir);
  ic_err err;
  cr_assert_eq(ic_export_write_path(path, r, n, IC_CATBIT(IC_CAT_BW), IC_EXPORT_GRAPHML, &err), IC_OK, "%s",
               err.msg);
  igraph_t g, h;
  cr_assert_eq(ic_export_build(&g, r, n, IC_CATBIT(IC_CAT_BW), &err), IC_OK);
  ic_export_igraph_init();
  FILE *f = fopen(path, "r");
  cr_assert(f);
  cr_assert_eq(igraph_read_graph_graphml(&h, f, 0), IGRAPH_SUCCESS);
  fclose(f);
  cr_assert_eq(igraph_vcount(&h), igraph_vcount(&g));
  cr_assert_eq(igraph_ecount(&h), igraph_ecount(&g));
  cr_assert(igraph_is_directed(&h));
  for (igraph_integer_t e = 0; e < igraph_ecount(&g); e += 17) {
    cr_assert_str_eq(EAS(&h, "kind", e), EAS(&g, "kind", e));
    cr_assert_eq(EAN(&h, "latency", e), EAN(&g, "latency", e));
    cr_assert_eq(IGRAPH_FROM(&h, e), IGRAPH_FROM(&g, e));
    cr_assert_eq(IGRAPH_TO(&h, e), IGRAPH_TO(&g, e));
  }
  cr_assert_str_eq(VAS(&h, "name", 6), "R1");
  cr_assert_str_eq(GAS(&h, "ideal"), "bw");
  igraph_destroy(&h);
  igraph_destroy(&g);
  /* no temporary file left beside it */
  char cmd[300];
  snprintf(cmd, sizeof cmd, "test $(ls %s | wc -l) -eq 1", dir);
  cr_assert_eq(system(cmd), 0);

  snprintf(path, sizeof path, "%s/w.dot", dir);
  cr_assert_eq(ic_export_write_path(path, r, n, 0, IC_EXPORT_DOT, &err), IC_OK, "%s", err.msg);
  f = fopen(path, "r");
  char buf[4096];
  size_t got = fread(buf, 1, sizeof buf - 1, f);
  buf[got] = 0;
  fclose(f);
  cr_assert(strstr(buf, "digraph"), "%s", buf);
  char want[64];
  snprintf(want, sizeof want, "label=\"D0 @%llu\"", (unsigned long long)r[0].t[IC_NODE_D]);
  cr_assert(strstr(buf, want), "no %s in %s", want, buf);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  cr_assert_eq(system(cmd), 0);
  free(r);
}

Test(export, failed_write_leaves_nothing) {
  size_t n = 10;
  ic_graph_rec *r = gen(n, 2);
  ic_err err;
  cr_assert_eq(ic_export_write_path("/nonexistent_dir_icost/x.graphml", r, n, 0, IC_EXPORT_GRAPHML, &err),
               IC_EINPUT);
  cr_assert(strstr(err.msg, "/nonexistent_dir_icost/x.graphml: cannot create"), "%s", err.msg);
  /* a malformed window fails before anything is written */
  char dir[] = "/tmp/icost_export_XXXXXX";
  cr_assert(mkdtemp(dir));
  char path[256];
  snprintf(path, sizeof path, "%s/bad.graphml", dir);
  r[4].seq = 99;
  cr_assert_eq(ic_export_write_path(path, r, n, 0, IC_EXPORT_GRAPHML, &err), IC_EINPUT);
  cr_assert(strstr(err.msg, "seq 99: expected seq 4"), "%s", err.msg);
  struct stat st;
  cr_assert_neq(stat(path, &st), 0);
  cr_assert_eq(rmdir(dir), 0, "temporary file left behind");
  cr_assert_eq(ic_export_write_path(path, r, 0, 0, IC_EXPORT_GRAPHML, &err), IC_EINPUT);
  ic_export_format fmt;
  cr_assert_eq(ic_export_parse_format("svg", &fmt, &err), IC_EINPUT);
  cr_assert(strstr(err.msg, "'svg'"));
  cr_assert_eq(ic_export_parse_format("dot", &fmt, &err), IC_OK);
  cr_assert_eq(fmt, IC_EXPORT_DOT);
  free(r);
}

Test(export, recorder_keeps_the_window) {
  size_t n = 100;
  ic_graph_rec *r = gen(n, 6);
  ic_export_recorder *rec;
  ic_err err;
  cr_assert_eq(ic_export_recorder_create(&rec, 30, 25, &err), IC_OK);
  ic_graph_sink s = ic_export_recorder_sink(rec);
  for (size_t i = 0; i < n; i += 7)
    cr_assert_eq(s.consume(s.ctx, r + i, n - i < 7 ? n - i : 7, &err), IC_OK, "%s", err.msg);
  size_t m;
  const ic_graph_rec *w = ic_export_recorder_records(rec, &m);
  cr_assert_eq(m, 25);
  cr_assert_eq(w[0].seq, 30);
  cr_assert_eq(w[24].seq, 54);
  cr_assert_eq(memcmp(&w[3], &r[33], sizeof *w), 0);
  cr_assert_eq(ic_export_recorder_seen(rec), n);
  ic_export_recorder_destroy(rec);
  cr_assert_eq(ic_export_recorder_create(&rec, 0, 0, &err), IC_EINPUT);
  free(r);
}

/* Three-way check on every subset of five categories: the longest path to
 * the last commit through the graph exported under the subset's mask equals
 * the streaming powerset solver's t(S) and the direct evaluation. */
Test(export, idealized_longest_path_matches_solver) {
  size_t n = 500;
  ic_graph_rec *r = gen(n, 21);
  static const uint8_t cats[] = {IC_CAT_BW, IC_CAT_BMISP, IC_CAT_DMISS, IC_CAT_WIN, IC_CAT_DL1};
  int ncat = (int)sizeof cats;
  ic_solver *sv;
  ic_err err;
  cr_assert_eq(ic_solver_create(&sv, cats, ncat, &err), IC_OK, "%s", err.msg);
  cr_assert_eq(ic_solver_feed(sv, r, n, &err), IC_OK, "%s", err.msg);
  cr_assert_eq(ic_solver_invariant_violations(sv), 0);
  const uint64_t *ts = ic_solver_times(sv);
  uint64_t(*t)[5] = calloc(n, sizeof *t);
  for (uint32_t sub = 0; sub < (1u << ncat); sub++) {
    ic_catmask mask = ic_solver_subset_catmask(sv, sub);
    igraph_t g;
    cr_assert_eq(ic_export_build(&g, r, n, mask, &err), IC_OK, "%s", err.msg);
    double *a = t_igraph_longest(&g);
    evaluate(r, n, mask, t);
    uint64_t lp = (uint64_t)a[5 * (n - 1) + IC_NODE_C];
    cr_assert_eq(lp, ts[sub], "subset %#x: igraph %llu, solver %llu", sub, (unsigned long long)lp,
                 (unsigned long long)ts[sub]);
    cr_assert_eq(lp, t[n - 1][IC_NODE_C]);
    free(a);
    igraph_destroy(&g);
  }
  cr_assert_lt(ts[(1u << ncat) - 1], ts[0]);
  free(t);
  ic_solver_destroy(sv);
  free(r);
}

/* The three-way check of a graph whose rules bind: the records' stamps
 * become the reference pass's; then on every subset of the four cats the
 * longest path to every node of the graph exported under the subset's mask
 * equals the reference pass's time, whose end equals the solver's t(S).
 * Returns how many exported edges over all subsets are of kind `kind` (the
 * rules' exported form). */
static size_t expect_paths_match(ic_graph_rec *r, size_t n, const uint8_t cats[4], const char *kind) {
  uint64_t *nt = malloc(n * IC_NODE_COUNT * sizeof *nt), tend;
  ic_err err;
  cr_assert_eq(ic_graph_eval(r, n, 0, nt, &tend, &err), IC_OK, "%s", err.msg);
  for (size_t i = 0; i < n; i++) memcpy(r[i].t, &nt[i * IC_NODE_COUNT], sizeof r[i].t);
  ic_solver *sv;
  cr_assert_eq(ic_solver_create(&sv, cats, 4, &err), IC_OK, "%s", err.msg);
  cr_assert_eq(ic_solver_feed(sv, r, n, &err), IC_OK, "%s", err.msg);
  cr_assert_eq(ic_solver_invariant_violations(sv), 0);
  const uint64_t *ts = ic_solver_times(sv);
  size_t exported = 0;
  for (uint32_t sub = 0; sub < 16; sub++) {
    ic_catmask mask = ic_solver_subset_catmask(sv, sub);
    uint64_t tref;
    cr_assert_eq(ic_graph_eval(r, n, mask, nt, &tref, &err), IC_OK, "%s", err.msg);
    igraph_t g;
    cr_assert_eq(ic_export_build(&g, r, n, mask, &err), IC_OK, "%s", err.msg);
    double *a = t_igraph_longest(&g);
    for (size_t i = 0; i < n; i++)
      for (int k = 0; k < IC_NODE_COUNT; k++)
        cr_assert_eq((uint64_t)a[5 * i + (size_t)k], nt[i * IC_NODE_COUNT + (size_t)k],
                     "subset %#x: record %zu node %d: igraph %g, reference %llu", sub, i, k,
                     a[5 * i + (size_t)k], (unsigned long long)nt[i * IC_NODE_COUNT + (size_t)k]);
    cr_assert_eq(tref, ts[sub], "subset %#x: reference %llu, solver %llu", sub,
                 (unsigned long long)tref, (unsigned long long)ts[sub]);
    for (igraph_integer_t e = 0; e < igraph_ecount(&g); e++) exported += !strcmp(EAS(&g, "kind", e), kind);
    free(a);
    igraph_destroy(&g);
  }
  ic_solver_destroy(sv);
  free(nt);
  return exported;
}

/* The slot rule (graph_rec.h, SLOT RULE): exported as an IW edge only
 * where the rule delayed E, from an instruction of the full cycle before,
 * so that the exported graph's longest paths are the idealized times of
 * the reference pass and of the solver, on every subset of four
 * categories; and under dl1 + shalu, where the chains collapse, the rule
 * does delay some. */
Test(export, slot_form_longest_path_matches_solver) {
  size_t n = 400;
  ic_graph_rec *r = gen(n, 33);
  uint64_t x = 99;
  for (size_t i = 1; i < n; i++) {
    r[i].slot_w = (uint8_t)(1 + rng(&x) % 2);
    if (rng(&x) % 2) r[i].slot_p = 1;
  }
  static const uint8_t cats[] = {IC_CAT_DL1, IC_CAT_SHALU, IC_CAT_BW, IC_CAT_BMISP};
  expect_paths_match(r, n, cats, "IW");
  /* the rule binds somewhere under dl1 + shalu: an IW edge is exported for it */
  igraph_t g;
  ic_err err;
  cr_assert_eq(ic_export_build(&g, r, n, IC_CATBIT(IC_CAT_DL1) | IC_CATBIT(IC_CAT_SHALU), &err), IC_OK);
  size_t iw = 0;
  for (igraph_integer_t e = 0; e < igraph_ecount(&g); e++) iw += !strcmp(EAS(&g, "kind", e), "IW");
  cr_assert_gt(iw, 0);
  igraph_destroy(&g);
  free(r);
}

/* The MSHR rule (graph_rec.h, MSHR RULE): exported as an MSHR edge only
 * where the rule delayed E, from the P of the holder whose completion
 * gave its E (dmiss drops the rule); the loads that miss hold one of 2
 * MSHRs. */
Test(export, mshr_rule_longest_path_matches_solver) {
  size_t n = 400;
  ic_graph_rec *r = gen(n, 45);
  size_t rules = 0;
  for (size_t i = 1; i < n; i++)
    for (int k = 0; k < r[i].nedges; k++)
      if (r[i].edge[k].kind == IC_EDGE_EP && r[i].edge[k].nparts == 2) {
        r[i].mshr_k = 2;
        rules++;
        break;
      }
  cr_assert_gt(rules, 10);
  static const uint8_t cats[] = {IC_CAT_DL1, IC_CAT_DMISS, IC_CAT_WIN, IC_CAT_BMISP};
  cr_assert_gt(expect_paths_match(r, n, cats, "MSHR"), 0, "the rule never delayed a load");
  free(r);
}

/* The IQ rule (graph_rec.h, a record's iq): exported as IQ edges only
 * where it gave D, from the instruction whose issue did (win drops the
 * rule); an IQ of 3 entries binds in the baseline here. */
Test(export, iq_rule_longest_path_matches_solver) {
  size_t n = 400;
  ic_graph_rec *r = gen(n, 46);
  for (size_t i = 0; i < n; i++) r[i].iq = 3;
  static const uint8_t cats[] = {IC_CAT_DL1, IC_CAT_WIN, IC_CAT_BW, IC_CAT_BMISP};
  cr_assert_gt(expect_paths_match(r, n, cats, "IQ"), 0, "the rule never gave a D");
  free(r);
}

/* An IW edge is exported only where its condition holds under the mask:
 * k (seq 0) ready 2 cycles after dispatch (shalu), i (seq 1) after 1, IW
 * E(k) -> E(i) of 3 cycles. Baseline: k is not ready when i could issue,
 * the edge is left out and the last commit is at 3 (6 with the edge);
 * with shalu k is ready at 0 and the edge holds: 4. */
Test(export, iw_edges_only_where_their_condition_holds) {
  ic_graph_rec r[2];
  memset(r, 0, sizeof r);
  for (int i = 0; i < 2; i++) {
    r[i].seq = (uint64_t)i;
    add(&r[i], IC_EDGE_DD, 1, 0, IC_CAT_NONE);
    add(&r[i], IC_EDGE_DR, 0, i ? 1 : 2, i ? IC_CAT_NONE : IC_CAT_SHALU);
    add(&r[i], IC_EDGE_RE, 0, 0, IC_CAT_NONE);
    if (i) add(&r[i], IC_EDGE_IW, 1, 3, IC_CAT_BW);
    add(&r[i], IC_EDGE_EP, 0, 1, IC_CAT_NONE);
    add(&r[i], IC_EDGE_PC, 0, 0, IC_CAT_NONE);
    add(&r[i], IC_EDGE_CC, 1, 0, IC_CAT_NONE);
  }
  static const struct {
    ic_catmask mask;
    uint64_t c;
    double dropped;
  } want[] = {{0, 3, 1}, {IC_CATBIT(IC_CAT_SHALU), 4, 0}, {IC_CATBIT(IC_CAT_BW), 3, 1}};
  for (size_t q = 0; q < sizeof want / sizeof *want; q++) {
    ic_err err;
    igraph_t g;
    cr_assert_eq(ic_export_build(&g, r, 2, want[q].mask, &err), IC_OK, "%s", err.msg);
    double *a = t_igraph_longest(&g);
    cr_assert_eq((uint64_t)a[IC_NODE_COUNT + IC_NODE_C], want[q].c, "mask 0x%x: %g", want[q].mask,
                 a[IC_NODE_COUNT + IC_NODE_C]);
    cr_assert_eq(GAN(&g, "dropped_edges"), want[q].dropped, "mask 0x%x", want[q].mask);
    uint64_t ref;
    cr_assert_eq(ic_graph_eval(r, 2, want[q].mask, NULL, &ref, &err), IC_OK, "%s", err.msg);
    cr_assert_eq(ref, want[q].c);
    free(a);
    igraph_destroy(&g);
  }
}

/* Both rules on one E (model/rules.h): the loads that miss hold the one
 * MSHR and issue one a cycle (a slot rule of width 1), so the slot
 * rule moves misses past the MSHR rule's cycle and the rules take turns.
 * The exported graph's longest paths are still the reference pass's and
 * the solver's on every subset. */
Test(export, mshr_and_slot_rules_together_match_solver) {
  size_t n = 400;
  ic_graph_rec *r = gen(n, 47);
  size_t rules = 0;
  for (size_t i = 1; i < n; i++) {
    r[i].slot_w = 1;
    for (int k = 0; k < r[i].nedges; k++)
      if (r[i].edge[k].kind == IC_EDGE_EP && r[i].edge[k].nparts == 2) {
        r[i].mshr_k = 1;
        rules++;
        break;
      }
  }
  cr_assert_gt(rules, 10);
  static const uint8_t cats[] = {IC_CAT_DL1, IC_CAT_DMISS, IC_CAT_WIN, IC_CAT_BW};
  cr_assert_gt(expect_paths_match(r, n, cats, "MSHR"), 0, "the MSHR rule never delayed a load");
  free(r);
}

/* The attribute `key=` of a DOT line as a number, -1 when absent. */
static double dot_attr(const char *line, const char *key) {
  char k[32];
  snprintf(k, sizeof k, " %s=", key);
  const char *p = strstr(line, k);
  return p ? atof(p + strlen(k)) : -1;
}

/* DOT: every instruction's five nodes in one rank=same subgraph; the edges
 * marked critical=1 form one path whose latencies add up to the window's
 * critical-path length, the independent evaluation's last commit (window
 * from seq 0), under no mask and under bw; its nodes are marked too and it
 * ends at the last instruction's C; long edges leave stubs named after
 * their sources. */
Test(export, dot_ranks_and_critical_path) {
  const size_t n = 60;
  ic_graph_rec *r = gen(n, 11);
  const ic_catmask masks[] = {0, IC_CATBIT(IC_CAT_BW)};
  for (size_t m = 0; m < 2; m++) {
    uint64_t(*t)[5] = calloc(n, sizeof *t);
    evaluate(r, n, masks[m], t);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    ic_err err;
    cr_assert_eq(ic_export_write(f, r, n, masks[m], IC_EXPORT_DOT, &err), IC_OK, "%s", err.msg);
    fclose(f);
    for (size_t i = 0; i < n; i++) {
      char head[64], node[32];
      snprintf(head, sizeof head, "subgraph i%zu {\n    rank=same;", i);
      const char *s = strstr(text, head);
      cr_assert(s, "no %s", head);
      const char *end = strstr(s, "\n  }\n");
      cr_assert(end);
      for (int k = 0; k < 5; k++) {
        snprintf(node, sizeof node, "\n    %c%zu [", "DREPC"[k], i);
        const char *v = strstr(s, node);
        cr_assert(v && v < end, "%s outside its rank", node + 5);
      }
    }
    const char *g = strstr(text, "critical_path=");
    cr_assert(g);
    const uint64_t want_len = strtoull(g + 14, NULL, 10);
    const double want_edges = dot_attr(text, "critical_edges");
    double sum = 0, crit_edges = 0, stubs = 0;
    char last[32] = "", ends[32];
    for (char *line = text; line && *line;) {
      char *nl = strchr(line, '\n');
      if (nl) *nl = 0;
      if (strstr(line, " -> ") && strstr(line, "critical=1")) {
        sum += dot_attr(line, "latency");
        crit_edges++;
        /* one path: each critical edge starts where the previous ended
           (the path is written in edge order, sources first) */
        char a[32], b[32];
        cr_assert_eq(sscanf(line, " %31s -> %31s", a, b), 2, "%s", line);
        if (last[0] && a[0] != 'x') cr_assert_str_eq(a, last, "path breaks at %s", line);
        snprintf(last, sizeof last, "%s", b);
      }
      if (strstr(line, "stub_of=") && !strstr(line, "stub_of=\"start\"")) stubs++;
      line = nl ? nl + 1 : NULL;
    }
    cr_assert_gt(stubs, 0, "CD edges span 8 instructions: stubs expected");
    snprintf(ends, sizeof ends, "C%zu", n - 1);
    cr_assert_str_eq(last, ends);
    cr_assert_eq((uint64_t)sum, t[n - 1][IC_NODE_C], "critical edges add up to %.0f, want %llu", sum,
                 (unsigned long long)t[n - 1][IC_NODE_C]);
    cr_assert_eq(want_len, t[n - 1][IC_NODE_C]);
    cr_assert_eq(want_edges, crit_edges);
    free(text);
    free(t);
  }
  free(r);
}

/* Slack of every node of an exported graph g whose longest paths are a[]:
 * the latest node time of the window less the longest path from the node
 * to it, over the edges within the window (those from "start" left out),
 * as the slack pass defines it (slack.h). Node ids are a topological order
 * ("start" aside): the edges in decreasing destination order, each
 * destination's required time is final before its in-edges relax. */
static uint64_t *graph_slack(const igraph_t *g, const double *a) {
  const igraph_integer_t nv = igraph_vcount(g), ne = igraph_ecount(g), start = nv - 1;
  uint64_t T = 0, *req = malloc((size_t)nv * sizeof *req);
  igraph_integer_t *first = calloc((size_t)nv + 1, sizeof *first), *ord = malloc((size_t)(ne + 1) * sizeof *ord);
  cr_assert(req && first && ord);
  for (igraph_integer_t v = 0; v < start; v++)
    if ((uint64_t)a[v] > T) T = (uint64_t)a[v];
  for (igraph_integer_t e = 0; e < ne; e++) first[IGRAPH_TO(g, e) + 1]++;
  for (igraph_integer_t v = 0; v < nv; v++) first[v + 1] += first[v];
  for (igraph_integer_t e = 0; e < ne; e++) ord[first[IGRAPH_TO(g, e)]++] = e;
  for (igraph_integer_t v = 0; v < nv; v++) req[v] = T;
  for (igraph_integer_t q = ne; q-- > 0;) {
    const igraph_integer_t e = ord[q], u = IGRAPH_FROM(g, e), v = IGRAPH_TO(g, e);
    const uint64_t lat = (uint64_t)EAN(g, "latency", e);
    if (u != start && req[v] - lat < req[u]) req[u] = req[v] - lat;
  }
  for (igraph_integer_t v = 0; v < start; v++) req[v] -= (uint64_t)a[v];
  free(first);
  free(ord);
  return req;
}

typedef struct slack_log {
  uint64_t first;
  uint64_t (*sl)[IC_NODE_COUNT];
} slack_log;

static void log_slack(void *ctx, uint64_t seq, uint64_t pc, const uint64_t arr[IC_NODE_COUNT],
                      const uint64_t slack[IC_NODE_COUNT]) {
  slack_log *l = ctx;
  (void)pc;
  (void)arr;
  memcpy(l->sl[seq - l->first], slack, IC_NODE_COUNT * sizeof *slack);
}

/* The exported graph of recs under `ideal` is the one evaluation's: the
 * longest path to every node is the reference pass's time (ic_graph_eval),
 * and every node's slack in it is the slack pass's (ic_slack over the same
 * records in one window: exact), node by node. Returns the edges the rules
 * gave (IW, MSHR and IQ edges not among the records' own). */
static size_t expect_export_is_evaluation(const ic_graph_rec *r, size_t n, ic_catmask ideal, const char *what) {
  ic_err err;
  uint64_t *nt = malloc(n * IC_NODE_COUNT * sizeof *nt), tend;
  cr_assert(nt);
  cr_assert_eq(ic_graph_eval(r, n, ideal, nt, &tend, &err), IC_OK, "%s", err.msg);
  slack_log l = {r[0].seq, calloc(n, sizeof *l.sl)};
  ic_slack *s;
  cr_assert_eq(ic_slack_create(&s, (uint32_t)n + 1, &err), IC_OK, "%s", err.msg);
  cr_assert_eq(ic_slack_set_ideal(s, ideal, &err), IC_OK, "%s", err.msg);
  ic_slack_set_observer(s, log_slack, &l);
  cr_assert_eq(ic_slack_consume(s, r, n, &err), IC_OK, "%s", err.msg);
  cr_assert_eq(ic_slack_finish(s, &err), IC_OK, "%s", err.msg);
  ic_slack_destroy(s);
  igraph_t g;
  cr_assert_eq(ic_export_build(&g, r, n, ideal, &err), IC_OK, "%s", err.msg);
  double *a = t_igraph_longest(&g);
  uint64_t *gs = graph_slack(&g, a);
  size_t own = 0, rules = 0;
  for (size_t i = 0; i < n; i++)
    for (int j = 0; j < r[i].nedges; j++) {
      const int k = r[i].edge[j].kind;
      own += k == IC_EDGE_IW || k == IC_EDGE_MSHR || k == IC_EDGE_IQ;
    }
  for (igraph_integer_t e = 0; e < igraph_ecount(&g); e++) {
    const char *k = EAS(&g, "kind", e);
    rules += !strcmp(k, "IW") || !strcmp(k, "MSHR") || !strcmp(k, "IQ");
  }
  for (size_t i = 0; i < n; i++)
    for (int k = 0; k < IC_NODE_COUNT; k++) {
      const size_t v = IC_NODE_COUNT * i + (size_t)k;
      cr_assert_eq((uint64_t)a[v], nt[v], "%s, ideal %#x: %c%llu: longest path %.0f, reference %llu", what, ideal,
                   ic_node_names[k], (unsigned long long)r[i].seq, a[v], (unsigned long long)nt[v]);
      cr_assert_eq(gs[v], l.sl[i][k], "%s, ideal %#x: %c%llu: slack in the exported graph %llu, slack pass %llu",
                   what, ideal, ic_node_names[k], (unsigned long long)r[i].seq, (unsigned long long)gs[v],
                   (unsigned long long)l.sl[i][k]);
    }
  free(gs);
  free(a);
  igraph_destroy(&g);
  free(l.sl);
  free(nt);
  return rules >= own ? rules - own : 0;
}

/* The index of the edge of g into node `dst` of kind `kind`, -1 if none. */
static igraph_integer_t edge_into(const igraph_t *g, igraph_integer_t dst, const char *kind) {
  for (igraph_integer_t e = 0; e < igraph_ecount(g); e++)
    if (IGRAPH_TO(g, e) == dst && !strcmp(EAS(g, "kind", e), kind)) return e;
  return -1;
}

/* A hand-built instruction: D from the one before (latency 0), R = D +
 * ready, E from R through the rules, P = E + lat (tagged cat), C one after
 * P and in order. */
static void hand_rec(ic_graph_rec *r, size_t i, uint8_t opclass, uint32_t ready, uint32_t lat, int cat) {
  memset(r, 0, sizeof *r);
  r->seq = i;
  r->pc = 0x4000 + 4 * i;
  r->opclass = opclass;
  if (i) add(r, IC_EDGE_DD, 1, 0, IC_CAT_NONE);
  add(r, IC_EDGE_DR, 0, ready, IC_CAT_NONE);
  add(r, IC_EDGE_RE, 0, 0, IC_CAT_NONE);
  add(r, IC_EDGE_EP, 0, lat, cat);
  add(r, IC_EDGE_PC, 0, 1, IC_CAT_NONE);
  if (i) add(r, IC_EDGE_CC, 1, 0, IC_CAT_NONE);
}

static void stamp_reference(ic_graph_rec *r, size_t n) {
  uint64_t *nt = malloc(n * IC_NODE_COUNT * sizeof *nt), t;
  ic_err err;
  cr_assert_eq(ic_graph_eval(r, n, 0, nt, &t, &err), IC_OK, "%s", err.msg);
  for (size_t i = 0; i < n; i++) memcpy(r[i].t, &nt[i * IC_NODE_COUNT], sizeof r[i].t);
  free(nt);
}

/* Both E rules on one load, the MSHR rule moving it last (model/rules.h):
 * one MSHR, an issue width of 2.
 *   i0 load  E 0, P 10 (a miss): holds the MSHR over [0, 10)
 *   i1, i2   ALU ops ready at 10: both issue at 10, which is then full
 *   i3 load  ready at 11, E 11 (i0's MSHR is free), P 40
 *   i4 load  ready at 1: the MSHR rule moves it to 10 (i0's completion),
 *            the slot rule to 11 (10 is full: its edge from i2, the latest
 *            issue of 10, latency 1), the MSHR rule to 40 (i3's
 *            completion: its edge from P3), where both hold: E4 40, P4 90.
 * The slot rule's edge is not tight but it bounds E2's slack: 40 - 1 - 10
 * = 29, not the 79 its commit leaves it (C4 = 91). */
Test(export, rules_edges_are_the_evaluations_slot_then_mshr) {
  ic_graph_rec r[5];
  hand_rec(&r[0], 0, IC_OP_LOAD, 0, 10, IC_CAT_DMISS);
  hand_rec(&r[1], 1, IC_OP_INT_ALU, 10, 1, IC_CAT_SHALU);
  hand_rec(&r[2], 2, IC_OP_INT_ALU, 10, 1, IC_CAT_SHALU);
  hand_rec(&r[3], 3, IC_OP_LOAD, 11, 29, IC_CAT_DMISS);
  hand_rec(&r[4], 4, IC_OP_LOAD, 1, 50, IC_CAT_DMISS);
  for (int i = 0; i < 5; i++) {
    r[i].slot_w = i ? 2 : 0;
    r[i].mshr_k = r[i].opclass == IC_OP_LOAD;
  }
  stamp_reference(r, 5);
  static const uint64_t want_e[] = {0, 10, 10, 11, 40};
  for (int i = 0; i < 5; i++) cr_assert_eq(r[i].t[IC_NODE_E], want_e[i], "E%d = %llu", i, (unsigned long long)r[i].t[IC_NODE_E]);
  cr_assert_eq(r[4].t[IC_NODE_C], 91);
  cr_assert_eq(expect_export_is_evaluation(r, 5, 0, "slot then MSHR"), 2);
  igraph_t g;
  ic_err err;
  cr_assert_eq(ic_export_build(&g, r, 5, 0, &err), IC_OK, "%s", err.msg);
  const igraph_integer_t e4 = 4 * IC_NODE_COUNT + IC_NODE_E;
  const igraph_integer_t ms = edge_into(&g, e4, "MSHR"), iw = edge_into(&g, e4, "IW");
  cr_assert_geq(ms, 0);
  cr_assert_eq(IGRAPH_FROM(&g, ms), 3 * IC_NODE_COUNT + IC_NODE_P);
  cr_assert_geq(iw, 0, "no slot rule edge into E4");
  cr_assert_eq(IGRAPH_FROM(&g, iw), 2 * IC_NODE_COUNT + IC_NODE_E);
  cr_assert_eq(EAN(&g, "latency", iw), 1);
  cr_assert_eq(EAN(&g, "dist", iw), 2);
  igraph_destroy(&g);
  for (ic_catmask ideal = 1; ideal < IC_CATBIT(IC_CAT_COUNT); ideal++)
    expect_export_is_evaluation(r, 5, ideal, "slot then MSHR");
}

/* Each rule binding on its own, with tied sources: the IQ rule (an IQ of
 * 2: i2 dispatches when the second of i0, i1 issues, both at 4: one edge,
 * from i1, the latest), the slot rule (width 1: i3 and i4 ready at 10, i4
 * waits for i3's slot) and the MSHR rule (one MSHR: i6 waits for i5's
 * miss). Longest paths and slacks are the evaluation's under each
 * idealization. */
Test(export, rules_edges_are_the_evaluations_each_rule) {
  ic_graph_rec r[7];
  hand_rec(&r[0], 0, IC_OP_INT_ALU, 4, 1, IC_CAT_SHALU);
  hand_rec(&r[1], 1, IC_OP_INT_ALU, 4, 1, IC_CAT_SHALU);
  hand_rec(&r[2], 2, IC_OP_INT_ALU, 1, 3, IC_CAT_LGALU);
  hand_rec(&r[3], 3, IC_OP_INT_ALU, 6, 1, IC_CAT_SHALU);
  hand_rec(&r[4], 4, IC_OP_INT_ALU, 6, 1, IC_CAT_SHALU);
  hand_rec(&r[5], 5, IC_OP_LOAD, 0, 30, IC_CAT_DMISS);
  hand_rec(&r[6], 6, IC_OP_LOAD, 0, 30, IC_CAT_DMISS);
  for (int i = 0; i < 7; i++) {
    r[i].iq = i < 3 ? 2 : 0;
    r[i].slot_w = i == 4 ? 1 : 0;
    r[i].mshr_k = r[i].opclass == IC_OP_LOAD;
  }
  stamp_reference(r, 7);
  cr_assert_eq(r[2].t[IC_NODE_D], 4);
  cr_assert_eq(r[4].t[IC_NODE_E], 11);
  cr_assert_eq(r[6].t[IC_NODE_E], r[5].t[IC_NODE_P]);
  igraph_t g;
  ic_err err;
  cr_assert_eq(ic_export_build(&g, r, 7, 0, &err), IC_OK, "%s", err.msg);
  const igraph_integer_t iq = edge_into(&g, 2 * IC_NODE_COUNT + IC_NODE_D, "IQ");
  const igraph_integer_t iw = edge_into(&g, 4 * IC_NODE_COUNT + IC_NODE_E, "IW");
  const igraph_integer_t ms = edge_into(&g, 6 * IC_NODE_COUNT + IC_NODE_E, "MSHR");
  cr_assert(iq >= 0 && iw >= 0 && ms >= 0);
  cr_assert_eq(IGRAPH_FROM(&g, iq), 1 * IC_NODE_COUNT + IC_NODE_E);
  cr_assert_eq(IGRAPH_FROM(&g, iw), 3 * IC_NODE_COUNT + IC_NODE_E);
  cr_assert_eq(IGRAPH_FROM(&g, ms), 5 * IC_NODE_COUNT + IC_NODE_P);
  igraph_destroy(&g);
  for (ic_catmask ideal = 0; ideal < IC_CATBIT(IC_CAT_COUNT); ideal++)
    expect_export_is_evaluation(r, 7, ideal, "each rule");
}

/* gen's records with the rules on top: the slot rule (width 2, one unit of
 * the pool for some) past the first, the MSHR rule (mshrs) on the loads
 * that miss, the IQ rule (iq) on all, now and then an IW edge that win or
 * dmiss keep; stamps from the reference pass. */
static ic_graph_rec *gen_rules(size_t n, uint64_t seed, uint32_t iq, uint8_t mshrs) {
  ic_graph_rec *r = gen(n, seed);
  static const uint8_t ops[] = {IC_OP_INT_ALU, IC_OP_STORE, IC_OP_INT_MUL, IC_OP_FP_ADD};
  uint64_t x = seed * 77 + 3;
  for (size_t i = 0; i < n; i++) {
    ic_graph_rec *g = &r[i];
    int miss = 0;
    for (int k = 0; k < g->nedges; k++) miss |= g->edge[k].kind == IC_EDGE_EP && g->edge[k].nparts == 2;
    if (g->opclass != IC_OP_LOAD) g->opclass = ops[rng(&x) % sizeof ops];
    g->slot_w = i ? 2 : 0;
    g->slot_p = i && rng(&x) % 3 == 0 ? 1 : 0;
    g->mshr_k = miss ? mshrs : 0;
    g->iq = iq;
    if (i && rng(&x) % 5 == 0 && g->nedges < IC_MAX_EDGES) {
      add(g, IC_EDGE_IW, 1 + (uint32_t)(rng(&x) % 3), 1, IC_CAT_BW);
      g->edge[g->nedges - 1].keep = (uint8_t)(rng(&x) & (IC_CATBIT(IC_CAT_WIN) | IC_CATBIT(IC_CAT_DMISS)));
    }
  }
  stamp_reference(r, n);
  return r;
}

/* Random records with every rule, under every idealization of the eight
 * categories, and a window that starts later (its sources before it at
 * time 0 for both). */
Test(export, rules_edges_are_the_evaluations_random) {
  for (uint64_t seed = 1; seed <= 2; seed++) {
    const size_t n = 300;
    ic_graph_rec *r = gen_rules(n, seed, seed == 1 ? 5 : 0, (uint8_t)seed);
    size_t rules = 0;
    for (ic_catmask ideal = 0; ideal < IC_CATBIT(IC_CAT_COUNT); ideal++)
      rules += expect_export_is_evaluation(r, n, ideal, seed == 1 ? "random, iq 5, 1 MSHR" : "random, 2 MSHRs");
    rules += expect_export_is_evaluation(r + 100, 200, 0, "random, a later window");
    cr_assert_gt(rules, 0);
    free(r);
  }
}


/* The timing model's records (a narrow machine: an IQ of 16 of a 64-entry
 * ROB, 2 MSHRs, an issue width of 2, so that every rule binds), windows
 * from the first instruction and later, nothing idealized and under
 * several idealizations. */
Test(export, rules_edges_are_the_evaluations_real_model) {
  const uint64_t N = 6000;
  ic_err err;
  ooo_config *cfg;
  cr_assert_eq(ooo_config_load(&cfg, NULL, &err), IC_OK, "%s", err.msg);
  static const char *const sets[] = {"core.iq=16", "core.rob=64", "mem.mshrs=2", "core.issue_width=2"};
  for (size_t k = 0; k < sizeof sets / sizeof *sets; k++)
    cr_assert_eq(ooo_config_set(cfg, sets[k], &err), IC_OK, "%s", err.msg);
  ooo_core *core;
  cr_assert_eq(ooo_create(&core, cfg, 0, &err), IC_OK, "%s", err.msg);
  ic_export_recorder *rec;
  cr_assert_eq(ic_export_recorder_create(&rec, 0, N, &err), IC_OK, "%s", err.msg);
  ooo_set_graph_sink(core, ic_export_recorder_sink(rec));
  synth sy = {.max = N, .x = 2024, .pc = 0x1000};
  cr_assert_eq(ooo_run(core, (ic_inst_source){.ctx = &sy, .fill = synth_fill}, 0, &err), IC_OK, "%s", err.msg);
  size_t n;
  const ic_graph_rec *r = ic_export_recorder_records(rec, &n);
  cr_assert_eq(n, N);
  size_t iq = 0, mshr = 0, slot = 0;
  for (size_t i = 0; i < n; i++) {
    iq += r[i].iq != 0;
    mshr += r[i].mshr_k != 0;
    slot += r[i].slot_w != 0;
  }
  cr_assert(iq && mshr && slot, "rules: iq %zu, mshr %zu, slot %zu", iq, mshr, slot);
  static const ic_catmask masks[] = {0,
                                     IC_CATBIT(IC_CAT_WIN),
                                     IC_CATBIT(IC_CAT_DL1) | IC_CATBIT(IC_CAT_SHALU),
                                     IC_CATBIT(IC_CAT_BMISP),
                                     IC_CATBIT(IC_CAT_DMISS),
                                     IC_CATBIT(IC_CAT_BW) | IC_CATBIT(IC_CAT_LGALU)};
  size_t rules = 0;
  for (size_t q = 0; q < sizeof masks / sizeof *masks; q++) {
    rules += expect_export_is_evaluation(r, 3000, masks[q], "model, window from 0");
    rules += expect_export_is_evaluation(r + 2500, 3500, masks[q], "model, window from 2500");
  }
  cr_assert_gt(rules, 0);
  ic_export_recorder_destroy(rec);
  ooo_destroy(core);
  ooo_config_destroy(cfg);
}
