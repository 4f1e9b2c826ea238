/* test_slack_model.c: slack and export on graph records of the real timing
 * model (model/ooo.h), driven by a synthetic instruction stream (a loop
 * with strided loads over 8 MB, dependent multiplies and a data-dependent
 * branch), so the emulator is not needed.
 *
 * Independent checks on many windows of the run: the longest path through
 * the exported igraph graph (from its "start" vertex, in igraph's
 * topological order) equals the model's stamps for windows from instruction
 * 0, and the slack engine's forward pass and the powerset solver's t({})
 * agree with the model's cycle count; slack is exact in the last window. */
#include <criterion/criterion.h>

#include "graph.h"
#include <igraph.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "ooo.h"
#include "slack.h"
#include "solver.h"
#include "test_igraph_util.h"
#include "test_synth_loop.h"


typedef struct tee {
  ic_graph_sink a, b;
  ic_graph_rec *all;
  size_t n, cap;
} tee;

static ic_status tee_consume(void *ctx, const ic_graph_rec *recs, size_t n, ic_err *err) {
  tee *t = ctx;
  ic_status rc = t->a.consume(t->a.ctx, recs, n, err);
  if (rc == IC_OK) rc = t->b.consume(t->b.ctx, recs, n, err);
  for (size_t i = 0; i < n && t->n < t->cap; i++) t->all[t->n++] = recs[i];
  return rc;
}

static void keep_slack(void *ctx, uint64_t seq, uint64_t pc, const uint64_t arr[IC_NODE_COUNT],
                       const uint64_t slack[IC_NODE_COUNT]) {
  (void)pc;
  (void)arr;
  memcpy(((uint64_t(*)[IC_NODE_COUNT])ctx)[seq], slack, IC_NODE_COUNT * sizeof slack[0]);
}

static void slack_of(const ic_graph_rec *recs, size_t n, uint32_t window, uint64_t (*out)[IC_NODE_COUNT]) {
  ic_slack *s;
  ic_err err;
  cr_assert_eq(ic_slack_create(&s, window, &err), IC_OK, "%s", err.msg);
  ic_slack_set_observer(s, keep_slack, out);
  cr_assert_eq(ic_slack_consume(s, recs, n, &err), IC_OK, "%s", err.msg);
  cr_assert_eq(ic_slack_finish(s, &err), IC_OK);
  ic_slack_destroy(s);
}

Test(slack_model, real_model_records) {
  const uint64_t N = 30000;
  ic_err err;
  ooo_config *cfg;
  cr_assert_eq(ooo_config_load(&cfg, NULL, &err), IC_OK, "%s", err.msg);
  ooo_core *core;
  cr_assert_eq(ooo_create(&core, cfg, 0, &err), IC_OK, "%s", err.msg);
  ic_slack *sl;
  cr_assert_eq(ic_slack_create(&sl, 2048, &err), IC_OK);
  ic_solver *sv;
  cr_assert_eq(ic_solver_create(&sv, NULL, 0, &err), IC_OK, "%s", err.msg);
  tee t = {.a = ic_slack_sink(sl), .b = ic_solver_sink(sv), .cap = N};
  t.all = calloc(N, sizeof *t.all);
  cr_assert(t.all);
  ooo_set_graph_sink(core, (ic_graph_sink){.ctx = &t, .consume = tee_consume});
  synth sy = {.max = N, .x = 12345, .pc = 0x1000};
  cr_assert_eq(ooo_run(core, (ic_inst_source){.ctx = &sy, .fill = synth_fill}, 0, &err), IC_OK, "%s", err.msg);
  cr_assert_eq(ic_slack_finish(sl, &err), IC_OK, "%s", err.msg);
  const ooo_stats *st = ooo_get_stats(core);
  const ic_slack_totals *tt = ic_slack_get_totals(sl);
  cr_assert_eq(t.n, N);
  cr_assert_eq(tt->instructions, N);
  cr_assert_eq(tt->stamp_mismatches, 0, "%llu nodes: forward pass != model stamps",
               (unsigned long long)tt->stamp_mismatches);
  cr_assert_eq(tt->cycles, st->cycles);
  cr_assert_eq(ic_solver_times(sv)[0], st->cycles);
  cr_assert_eq(ic_solver_invariant_violations(sv), 0);
  cr_assert_gt(tt->crit_miss_cycles, 0, "the strided loads should put misses on the critical path");
  cr_assert_gt(tt->misp_count, 0);
  cr_log_info("%llu instructions, %llu cycles; critical E %.3f; crit miss %llu of %llu; crit misp %llu of %llu",
              (unsigned long long)N, (unsigned long long)st->cycles, (double)tt->crit[IC_NODE_E] / (double)N,
              (unsigned long long)tt->crit_miss_cycles, (unsigned long long)tt->miss_cycles,
              (unsigned long long)tt->crit_misp_cycles, (unsigned long long)tt->misp_cycles);

  /* windows from 0 of growing length: longest path == stamps */
  for (size_t m = 100; m <= 6400; m *= 4) {
    igraph_t g;
    cr_assert_eq(ic_export_build(&g, t.all, m, 0, &err), IC_OK, "%s", err.msg);
    double *a = t_igraph_longest(&g);
    for (size_t i = 0; i < m; i++)
      for (int k = 0; k < IC_NODE_COUNT; k++)
        cr_assert_eq((uint64_t)a[IC_NODE_COUNT * i + (size_t)k], t.all[i].t[k], "window 0..%zu: %c%zu", m - 1,
                     ic_node_names[k], i);
    free(a);
    igraph_destroy(&g);
  }
  /* later windows: a lower bound of the stamps, and the solver fed the same
   * window (sources before it at time 0) agrees with igraph */
  for (size_t from = 1000; from + 3000 <= N; from += 5000) {
    size_t m = 3000;
    igraph_t g;
    cr_assert_eq(ic_export_build(&g, t.all + from, m, 0, &err), IC_OK, "%s", err.msg);
    double *a = t_igraph_longest(&g);
    ic_solver_reset(sv);
    cr_assert_eq(ic_solver_feed(sv, t.all + from, m, &err), IC_OK, "%s", err.msg);
    cr_assert_eq((uint64_t)a[IC_NODE_COUNT * (m - 1) + IC_NODE_C], ic_solver_times(sv)[0]);
    for (size_t i = 0; i < m; i++)
      for (int k = 0; k < IC_NODE_COUNT; k++) cr_assert_leq((uint64_t)a[IC_NODE_COUNT * i + (size_t)k], t.all[from + i].t[k]);
    free(a);
    igraph_destroy(&g);
  }
  /* idealized windows: the exported graph (IW edges only where their
   * condition holds in the window's times under the mask) has the
   * reference pass's longest path */
  {
    static const ic_catmask masks[] = {IC_CATBIT(IC_CAT_SHALU),
                                       IC_CATBIT(IC_CAT_DL1) | IC_CATBIT(IC_CAT_LGALU),
                                       IC_CATBIT(IC_CAT_WIN) | IC_CATBIT(IC_CAT_SHALU),
                                       IC_CATBIT(IC_CAT_DMISS)};
    const size_t from = 2000, m = 3000;
    size_t iw = 0;
    for (size_t i = from; i < from + m; i++)
      iw += (t.all[i].slot_w | t.all[i].slot_p) != 0;
    cr_assert_gt(iw, m / 4, "only %zu slot rules in the window", iw);
    for (size_t q = 0; q < sizeof masks / sizeof *masks; q++) {
      igraph_t g;
      cr_assert_eq(ic_export_build(&g, t.all + from, m, masks[q], &err), IC_OK, "%s", err.msg);
      double *a = t_igraph_longest(&g);
      uint64_t ref;
      cr_assert_eq(ic_graph_eval(t.all + from, m, masks[q], NULL, &ref, &err), IC_OK, "%s", err.msg);
      cr_assert_eq((uint64_t)a[IC_NODE_COUNT * (m - 1) + IC_NODE_C], ref, "mask 0x%x", masks[q]);
      free(a);
      igraph_destroy(&g);
    }
  }
  /* windowed slack against the exact one (a single window over the whole
   * run) on these real records: agreement grows with W; the default
   * window's look-ahead (4096) is 16 ROBs of the baseline machine */
  uint64_t(*exact)[IC_NODE_COUNT] = calloc(N, sizeof *exact), (*ws)[IC_NODE_COUNT] = calloc(N, sizeof *ws);
  slack_of(t.all, N, (uint32_t)N, exact);
  static const uint32_t wins[] = {64, 512, 2048, IC_SLACK_DEFAULT_WINDOW};
  double prev = 0;
  for (size_t w = 0; w < sizeof wins / sizeof wins[0]; w++) {
    slack_of(t.all, N, wins[w], ws);
    size_t same = 0, crit_same = 0;
    for (size_t i = 0; i < N; i++) {
      int a = 1, c = 1;
      for (int k = 0; k < IC_NODE_COUNT; k++) {
        a &= ws[i][k] == exact[i][k];
        c &= (ws[i][k] == 0) == (exact[i][k] == 0);
      }
      same += (size_t)a;
      crit_same += (size_t)c;
    }
    double frac = (double)same / (double)N;
    cr_log_info("window %u: %.4f of instructions with exactly the global slack, %.4f with the same critical nodes",
                wins[w], frac, (double)crit_same / (double)N);
    cr_assert_geq(frac, prev - 0.01);
    prev = frac;
  }
  cr_assert_geq(prev, 0.99, "default window: only %.4f of instructions get the global slack", prev);
  free(exact);
  free(ws);
  free(t.all);
  ic_solver_destroy(sv);
  ic_slack_destroy(sl);
  ooo_destroy(core);
  ooo_config_destroy(cfg);
}
