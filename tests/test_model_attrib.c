/* test_model_attrib.c: attribution of the model's graph records, checked the
 * way `icost validate` scores it: the critical path of the recorded graph
 * with the edges of S idealized (ic_graph_eval) must come close to the
 * cycles of the model run with S idealized (multisim), on hand-built
 * streams where one mechanism dominates. Each test names the mechanism and
 * the way a wrong attribution fails it. */
#include <criterion/criterion.h>
#include <math.h>

#include "breakdown.h"
#include "graph.h"
#include "solver.h"
#include "test_model_synth.h"

typedef struct rec_buf {
  ic_graph_rec *v;
  size_t n, cap;
} rec_buf;

static ic_status buf_consume(void *ctx, const ic_graph_rec *r, size_t n, ic_err *err) {
  (void)err;
  rec_buf *b = ctx;
  if (b->n + n > b->cap) {
    b->cap = (b->n + n) * 2;
    b->v = realloc(b->v, b->cap * sizeof *b->v);
    cr_assert(b->v);
  }
  memcpy(b->v + b->n, r, n * sizeof *r);
  b->n += n;
  return IC_OK;
}

static ooo_config *base_cfg(void) {
  ooo_config *c;
  ic_err err;
  cr_assert_eq(ooo_config_load(&c, NULL, &err), IC_OK, "%s", err.msg);
  return c;
}

/* Model cycles with `ideal`, and the baseline graph's critical path with
 * `ideal` idealized; the graph's replay of {} must be the model's cycles. */
static void model_vs_graph(const ooo_config *cfg, const ic_inst *v, size_t n, ic_catmask ideal,
                           uint64_t *t_model, uint64_t *t_graph) {
  ic_err err;
  ooo_stats s0 = {0}, si = {0};
  rec_buf b = {0};
  ic_graph_sink sink = {.ctx = &b, .consume = buf_consume};
  cr_assert_eq(run_stream(cfg, 0, v, n, 0, &sink, &s0, &err), IC_OK, "%s", err.msg);
  cr_assert_eq(b.n, n);
  uint64_t t0;
  cr_assert_eq(ic_graph_eval(b.v, b.n, 0, NULL, &t0, &err), IC_OK, "%s", err.msg);
  cr_assert_eq(t0, s0.cycles, "graph replay %llu != model %llu", (unsigned long long)t0,
               (unsigned long long)s0.cycles);
  cr_assert_eq(ic_graph_eval(b.v, b.n, ideal, NULL, t_graph, &err), IC_OK, "%s", err.msg);
  cr_assert_eq(run_stream(cfg, ideal, v, n, 0, NULL, &si, &err), IC_OK, "%s", err.msg);
  *t_model = si.cycles;
  free(b.v);
}

/* For each set: the graph with the set idealized within 5% of the model's
 * idealized run (callers say what the 5% covers). */
static void expect_graph_near_model(const ooo_config *cfg, const ic_inst *v, size_t n,
                                    const ic_catmask *sets, size_t nsets) {
  for (size_t k = 0; k < nsets; k++) {
    uint64_t tm, tg;
    model_vs_graph(cfg, v, n, sets[k], &tm, &tg);
    double rel = ((double)tg - (double)tm) / (double)tm;
    cr_log_info("ideal 0x%x: graph %llu model %llu", sets[k], (unsigned long long)tg,
                (unsigned long long)tm);
    cr_expect(rel > -0.05 && rel < 0.05, "ideal 0x%x: graph %llu vs model %llu cycles (%+.1f%%)",
              sets[k], (unsigned long long)tg, (unsigned long long)tm, 100 * rel);
  }
}

/* Independent integer divides (unpipelined, each holds a multiply unit for
 * its whole latency) between independent one-cycle ops: the dividers'
 * throughput bounds the run. A larger window does not lift that bound,
 * while bw (which scales the units) does. Recorded as fixed RE waits
 * (lgalu), the graph would shrink with win (the waits ride on earlier
 * dispatch) and keep the waits with bw; the FU edge from the divide that
 * held the unit keeps the bound where the model keeps it. */
static void g_divs(ic_inst *in, size_t j, void *st) {
  (void)st;
  if (j % 4 == 0) *in = mk(IC_OP_INT_DIV, (uint8_t)(5 + j % 8), IC_REG_NONE, IC_REG_NONE);
  else *in = mk(IC_OP_INT_ALU, (uint8_t)(20 + j % 8), IC_REG_NONE, IC_REG_NONE);
}

Test(model_attrib, divider_throughput_is_an_fu_edge) {
  ooo_config *cfg = base_cfg();
  const size_t n = 3000;
  ic_inst *v = make_loop(n, 15, g_divs, NULL);
  /* not win+bw: there the idealized machine is still bound by its 20x
   * dividers, which the graph, like FBW and CBW, drops with bw */
  const ic_catmask sets[] = {IC_CATBIT(IC_CAT_WIN), IC_CATBIT(IC_CAT_BW),
                             IC_CATBIT(IC_CAT_WIN) | IC_CATBIT(IC_CAT_SHALU),
                             IC_CATBIT(IC_CAT_BW) | IC_CATBIT(IC_CAT_SHALU)};
  /* the throughput bound is exact in both; 5% covers start-up and the
   * assignment of divides to units */
  expect_graph_near_model(cfg, v, n, sets, sizeof sets / sizeof *sets);
  free(v);
  ooo_config_destroy(cfg);
}

/* x_list's shuffle: per step a pipelined multiply, an independent divide
 * (both on the multiply units) and one-cycle ops. Which unit the multiply
 * takes decides whether, when a divide issues, every unit is still held by
 * a divide: a source taken from the units' holders would exist in some
 * instances and not in others, at distances that vary. The FU edge of a
 * divide is from the n-th most recent divide issued on the pool, which the
 * n units bound whatever the multiplies did: every divide after the first
 * n has one, at one distance in a regular loop (a profiler sample's
 * distance then means the same in any other instance), and the graph keeps
 * the dividers' bound under win. */
static void g_divmul(ic_inst *in, size_t j, void *st) {
  (void)st;
  switch (j % 7) {
  case 0: *in = mk(IC_OP_INT_MUL, 5, 5, 6); break;
  case 3: *in = mk(IC_OP_INT_DIV, (uint8_t)(7 + j % 4), 5, IC_REG_NONE); break;
  default: *in = mk(IC_OP_INT_ALU, (uint8_t)(12 + j % 8), IC_REG_NONE, IC_REG_NONE); break;
  }
}

Test(model_attrib, divide_fu_edge_is_the_nth_previous_divide) {
  ooo_config *cfg = base_cfg();
  const size_t n = 2800;
  ic_inst *v = make_loop(n, 13, g_divmul, NULL); /* + the loop branch: 14 */
  ic_err err;
  ooo_stats s0 = {0};
  rec_buf b = {0};
  ic_graph_sink sink = {.ctx = &b, .consume = buf_consume};
  cr_assert_eq(run_stream(cfg, 0, v, n, 0, &sink, &s0, &err), IC_OK, "%s", err.msg);
  size_t divs = 0, with = 0, same = 0;
  for (size_t i = 0; i < b.n; i++) {
    if (b.v[i].opclass != IC_OP_INT_DIV) continue;
    if (++divs <= 2) continue; /* the baseline machine has 2 multiply units */
    for (int k = 0; k < b.v[i].nedges; k++)
      if (b.v[i].edge[k].kind == IC_EDGE_FU) {
        with++;
        same += b.v[i].edge[k].dist == 14; /* two steps back */
      }
  }
  free(b.v);
  cr_expect_eq(with, divs - 2, "%zu of %zu divides with an FU edge", with, divs - 2);
  cr_expect_eq(same, with, "%zu of %zu FU edges two steps back", same, with);
  const ic_catmask sets[] = {IC_CATBIT(IC_CAT_WIN), IC_CATBIT(IC_CAT_WIN) | IC_CATBIT(IC_CAT_SHALU)};
  /* the dividers' bound is exact in both; 5% covers start-up */
  expect_graph_near_model(cfg, v, n, sets, sizeof sets / sizeof *sets);
  free(v);
  ooo_config_destroy(cfg);
}

/* The same FU edge must leave the graph invariant intact on a mix of
 * divides that depend on each other and on loads (checked by the replay
 * in model_vs_graph), and dropping it under bw may never make the graph
 * slower than its baseline. */
static void g_divchain(ic_inst *in, size_t j, void *st) {
  (void)st;
  switch (j % 5) {
  case 0: *in = mk(IC_OP_INT_DIV, 5, 5, 6); break;
  case 1: *in = mk(IC_OP_FP_DIV, (uint8_t)(IC_REG_F0 + 1), (uint8_t)(IC_REG_F0 + 1), IC_REG_NONE); break;
  case 2: *in = mk(IC_OP_INT_DIV, (uint8_t)(7 + j % 3), 6, IC_REG_NONE); break;
  case 3: *in = mk(IC_OP_INT_MUL, 6, 6, 5); break;
  default: *in = mk(IC_OP_INT_ALU, 6, 6, IC_REG_NONE); break;
  }
}

Test(model_attrib, dependent_divides_replay_exactly) {
  ooo_config *cfg = base_cfg();
  const size_t n = 2000;
  ic_inst *v = make_loop(n, 14, g_divchain, NULL);
  uint64_t tm, tg, t0, tg0;
  model_vs_graph(cfg, v, n, 0, &t0, &tg0);
  cr_expect_eq(t0, tg0);
  model_vs_graph(cfg, v, n, IC_CATBIT(IC_CAT_BW), &tm, &tg);
  cr_expect(tg <= t0, "bw graph %llu > baseline %llu", (unsigned long long)tg, (unsigned long long)t0);
  free(v);
  ooo_config_destroy(cfg);
}

/* A dependent chain of one-cycle ops with a multiply every 9 instructions
 * (depchain's shape). With shalu idealized the one-cycle ops take 0 cycles
 * and the model issues the chain as fast as the issue width allows: about
 * 8/6 cycles after each multiply. A graph without the issue-width
 * constraint collapses the chain to 0 cycles (its RE edges carry no wait:
 * at latency 1 the chain never met the width); the IBW edge from the
 * ancestor iw + 1 steps up the chain keeps one cycle per iw + 1 ops. */
static void g_depchain(ic_inst *in, size_t j, void *st) {
  (void)st;
  if (j % 9 == 8) *in = mk(IC_OP_INT_MUL, 5, 5, 6);
  else *in = mk(IC_OP_INT_ALU, 5, 5, IC_REG_NONE);
}

Test(model_attrib, zero_latency_chain_keeps_issue_width) {
  ooo_config *cfg = base_cfg();
  const size_t n = 4000;
  ic_inst *v = make_loop(n, 27, g_depchain, NULL);
  const ic_catmask sets[] = {IC_CATBIT(IC_CAT_SHALU), IC_CATBIT(IC_CAT_SHALU) | IC_CATBIT(IC_CAT_LGALU),
                             IC_CATBIT(IC_CAT_SHALU) | IC_CATBIT(IC_CAT_BW)};
  /* without IBW: -21% with shalu; 5% covers the ancestor being one path
   * step from the width's exact bound (P(j) instead of E(j)) */
  expect_graph_near_model(cfg, v, n, sets, sizeof sets / sizeof *sets);
  free(v);
  ooo_config_destroy(cfg);
}

/* Independent loads, each to a new line (a stream), between independent
 * one-cycle ops: in the baseline the window (64 entries, 4 loads) bounds
 * how many misses overlap; with win idealized the model is bound by its 8
 * MSHRs instead. The MSHR edge from the earlier miss whose completion frees
 * an MSHR keeps that bound in the graph; without it (a load waiting for an
 * MSHR only ever got a fixed RE part) the graph with win overlaps as many
 * misses as the larger window holds. */
static void g_stream(ic_inst *in, size_t j, void *st) {
  uint64_t *line = st;
  if (j == 0) {
    *in = mk(IC_OP_LOAD, 5, 6, IC_REG_NONE);
    in->mem_size = 8;
    in->mem_addr = 0x40000000 + 64 * (*line)++;
  } else {
    *in = mk(IC_OP_INT_ALU, (uint8_t)(7 + j % 16), IC_REG_NONE, IC_REG_NONE);
  }
}

/* The records with every edge of one kind removed. */
/* kind IC_EDGE_IW drops the slot rule too, IC_EDGE_MSHR the MSHR rule
 * (graph_rec.h: the rules the model sets beside those edges) */
static void drop_kind(rec_buf *b, uint8_t kind) {
  for (size_t i = 0; i < b->n; i++) {
    ic_graph_rec *r = &b->v[i];
    if (kind == IC_EDGE_IW) r->slot_w = r->slot_p = 0;
    if (kind == IC_EDGE_MSHR) r->mshr_k = 0;
    int m = 0;
    for (int k = 0; k < r->nedges; k++)
      if (r->edge[k].kind != kind) r->edge[m++] = r->edge[k];
    r->nedges = (uint8_t)m;
  }
}

/* How a test shows it can fail: the baseline graph without its edges of
 * `kind`, evaluated with `ideal`, must come out faster than `frac` of the
 * model's run with `ideal` (whose stats go to *si). Returns how many such
 * edges the graph had (and records with the rule, drop_kind). */
static size_t expect_too_fast_without(const ooo_config *cfg, const ic_inst *v, size_t n,
                                      ic_catmask ideal, uint8_t kind, double frac, ooo_stats *si) {
  ic_err err;
  ooo_stats s0 = {0};
  rec_buf b = {0};
  ic_graph_sink sink = {.ctx = &b, .consume = buf_consume};
  cr_assert_eq(run_stream(cfg, 0, v, n, 0, &sink, &s0, &err), IC_OK, "%s", err.msg);
  cr_assert_eq(run_stream(cfg, ideal, v, n, 0, NULL, si, &err), IC_OK, "%s", err.msg);
  size_t cnt = 0;
  for (size_t i = 0; i < b.n; i++)
    for (int k = 0; k < b.v[i].nedges; k++) cnt += b.v[i].edge[k].kind == kind;
  if (kind == IC_EDGE_IW)
    for (size_t i = 0; i < b.n; i++) cnt += (b.v[i].slot_w | b.v[i].slot_p) != 0;
  if (kind == IC_EDGE_MSHR)
    for (size_t i = 0; i < b.n; i++) cnt += b.v[i].mshr_k != 0;
  drop_kind(&b, kind);
  uint64_t tno;
  cr_assert_eq(ic_graph_eval(b.v, b.n, ideal, NULL, &tno, &err), IC_OK, "%s", err.msg);
  cr_log_info("ideal 0x%x without %s edges: graph %llu model %llu (baseline %llu)", ideal,
              ic_edge_names[kind], (unsigned long long)tno, (unsigned long long)si->cycles,
              (unsigned long long)s0.cycles);
  cr_expect_lt((double)tno, frac * (double)si->cycles, "without %s edges: graph %llu vs model %llu",
               ic_edge_names[kind], (unsigned long long)tno, (unsigned long long)si->cycles);
  free(b.v);
  return cnt;
}

Test(model_attrib, mshrs_bound_misses_under_win) {
  ooo_config *cfg = base_cfg();
  const size_t n = 16000;
  uint64_t line = 0;
  ic_inst *v = make_loop(n, 15, g_stream, &line);
  const ic_catmask sets[] = {IC_CATBIT(IC_CAT_WIN), IC_CATBIT(IC_CAT_WIN) | IC_CATBIT(IC_CAT_SHALU),
                             IC_CATBIT(IC_CAT_WIN) | IC_CATBIT(IC_CAT_BW), IC_CATBIT(IC_CAT_DMISS),
                             IC_CATBIT(IC_CAT_WIN) | IC_CATBIT(IC_CAT_DMISS)};
  /* 5% covers start-up and misses completing out of allocation order */
  expect_graph_near_model(cfg, v, n, sets, sizeof sets / sizeof *sets);
  /* the test can fail: the same graph without its MSHR edges is far too
   * fast under win (the window's 20x more misses overlap) */
  ooo_stats sw = {0};
  expect_too_fast_without(cfg, v, n, IC_CATBIT(IC_CAT_WIN), IC_EDGE_MSHR, 0.7, &sw);
  cr_expect_gt(sw.mshr_full_stalls, 0, "the win machine never ran out of MSHRs");
  free(v);
  ooo_config_destroy(cfg);
}

/* A pointer chase (each load's address is the previous chase load's value,
 * a new line far away every time) interleaved with a stream of independent
 * misses, 24 instructions apart, so that the baseline's window never holds
 * more than 8 misses (no load waits for an MSHR). A chase miss waits for the
 * previous one, so the two can never hold MSHRs together, and however far a
 * larger window lets the stream run ahead, the chase alone never fills the
 * file: only the independent (root) misses get the capacity edge, and only
 * from other root misses. With the oldest of the last 8 misses of any kind
 * as its source, a stream load would wait for a chase miss it can overtake. */
typedef struct chase_stream {
  uint64_t chase, line;
} chase_stream;

static void g_chase_stream(ic_inst *in, size_t j, void *st) {
  chase_stream *cs = st;
  if (j == 0) {
    *in = mk(IC_OP_LOAD, 5, 5, IC_REG_NONE);
    in->mem_size = 8;
    in->mem_addr = 0x80000000 + 64 * (lcg(&cs->chase) & 0xfffff);
  } else if (j == 12) {
    *in = mk(IC_OP_LOAD, 6, IC_REG_NONE, IC_REG_NONE);
    in->mem_size = 8;
    in->mem_addr = 0x40000000 + 64 * cs->line++;
  } else {
    *in = mk(IC_OP_INT_ALU, (uint8_t)(7 + j % 16), IC_REG_NONE, IC_REG_NONE);
  }
}

Test(model_attrib, mshr_capacity_edges_join_independent_misses) {
  ooo_config *cfg = base_cfg();
  const size_t n = 12000;
  chase_stream cs = {1, 0};
  ic_inst *v = make_loop(n, 24, g_chase_stream, &cs);
  ic_err err;
  ooo_stats s0 = {0};
  rec_buf b = {0};
  ic_graph_sink sink = {.ctx = &b, .consume = buf_consume};
  cr_assert_eq(run_stream(cfg, 0, v, n, 0, &sink, &s0, &err), IC_OK, "%s", err.msg);
  cr_assert_eq(s0.mshr_full_stalls, 0, "the baseline ran out of MSHRs");
  const uint64_t chase_pc = 0x10000, stream_pc = 0x10000 + 4 * 12;
  size_t nstream = 0;
  for (size_t i = 0; i < b.n; i++) {
    const ic_graph_rec *r = &b.v[i];
    for (int k = 0; k < r->nedges; k++) {
      if (r->edge[k].kind != IC_EDGE_MSHR || r->edge[k].flags) continue; /* not the rule */
      const ic_graph_rec *src = &b.v[i - r->edge[k].dist];
      if (src->seq < 25) continue; /* the first chase load waits for no miss: a root */
      cr_assert_neq(r->pc, chase_pc, "chase load %llu has an MSHR edge", (unsigned long long)r->seq);
      cr_assert_eq(src->pc, stream_pc, "the MSHR edge of %llu comes from pc 0x%llx",
                   (unsigned long long)r->seq, (unsigned long long)src->pc);
      nstream++;
    }
  }
  cr_expect_gt(nstream, n / 24 / 2, "only %zu MSHR edges", nstream);
  free(b.v);
  const ic_catmask win = IC_CATBIT(IC_CAT_WIN);
  expect_graph_near_model(cfg, v, n, &win, 1);
  free(v);
  ooo_config_destroy(cfg);
}

/* Pairs of misses 40 instructions apart: a load of a new line, and a load
 * of another new line whose address is the first one's value. The
 * baseline's window holds about 6 misses, so no load waits for an MSHR;
 * with win the independent first loads run ahead and the MSHRs bind. The
 * second loads depend on a miss, so they get no capacity edge (mshr_source:
 * roots only), and the misses that hold MSHRs are twice as many as the
 * roots: without the MSHR rule (graph_rec.h) the graph lets 8 first loads
 * and 8 second loads be in flight at once. */
static void g_miss_pairs(ic_inst *in, size_t j, void *st) {
  uint64_t *line = st;
  if (j == 0 || j == 1) {
    *in = mk(IC_OP_LOAD, (uint8_t)(5 + j), j ? 5 : IC_REG_NONE, IC_REG_NONE);
    in->mem_size = 8;
    in->mem_addr = 0x40000000 + 64 * (*line)++;
  } else {
    *in = mk(IC_OP_INT_ALU, (uint8_t)(7 + j % 16), IC_REG_NONE, IC_REG_NONE);
  }
}

static void expect_solver_equals_reference(const rec_buf *b, uint64_t cycles, int machine);

/* Drops the MSHR rule of every record. */
static void drop_mshr_rule(rec_buf *b) {
  for (size_t i = 0; i < b->n; i++) b->v[i].mshr_k = 0;
}

Test(model_attrib, the_mshr_rule_binds_where_only_an_idealization_fills_the_mshrs) {
  ooo_config *cfg = base_cfg();
  const size_t n = 16000;
  uint64_t line = 0;
  ic_inst *v = make_loop(n, 39, g_miss_pairs, &line);
  ic_err err;
  ooo_stats s0 = {0}, sw = {0};
  rec_buf b = {0};
  ic_graph_sink sink = {.ctx = &b, .consume = buf_consume};
  const ic_catmask win = IC_CATBIT(IC_CAT_WIN);
  cr_assert_eq(run_stream(cfg, 0, v, n, 0, &sink, &s0, &err), IC_OK, "%s", err.msg);
  cr_assert_eq(s0.mshr_full_stalls, 0, "the baseline ran out of MSHRs");
  cr_assert_eq(run_stream(cfg, win, v, n, 0, NULL, &sw, &err), IC_OK, "%s", err.msg);
  cr_assert_gt(sw.mshr_full_stalls, 0, "the win machine never ran out of MSHRs");
  size_t rules = 0;
  for (size_t i = 0; i < b.n; i++) rules += b.v[i].mshr_k != 0;
  cr_expect_gt(rules, n / 40, "only %zu loads with the MSHR rule", rules);
  uint64_t tg, tno;
  cr_assert_eq(ic_graph_eval(b.v, b.n, win, NULL, &tg, &err), IC_OK, "%s", err.msg);
  expect_solver_equals_reference(&b, s0.cycles, 0); /* the rule in every lane without dmiss */
  drop_mshr_rule(&b);
  cr_assert_eq(ic_graph_eval(b.v, b.n, win, NULL, &tno, &err), IC_OK, "%s", err.msg);
  cr_log_info("win: model %llu, graph %llu, without the rule %llu (baseline %llu)",
              (unsigned long long)sw.cycles, (unsigned long long)tg, (unsigned long long)tno,
              (unsigned long long)s0.cycles);
  const double rel = ((double)tg - (double)sw.cycles) / (double)sw.cycles;
  cr_expect(rel > -0.05 && rel < 0.05, "win: graph %llu vs model %llu (%+.1f%%)", (unsigned long long)tg,
            (unsigned long long)sw.cycles, 100 * rel);
  /* the test can fail: without the rule the graph is far too fast */
  cr_expect_lt((double)tno, 0.8 * (double)sw.cycles, "without the rule: graph %llu vs model %llu",
               (unsigned long long)tno, (unsigned long long)sw.cycles);
  free(b.v);
  free(v);
  ooo_config_destroy(cfg);
}

/* Divides and their users on a 1-wide machine with one multiply unit: a
 * divide waits for the unit the one before holds, and when that one
 * completes its users, older, take the issue slot first: the divide waits
 * for the slot too.
 * That wait sat in RE with the unit's (lgalu) beside the FU edge, and bw
 * (which scales the units) kept the lgalu part: the graph read x_strings
 * on such a machine 10 points under multisim's bw. Where the slots alone
 * follow the unit's release, both live on the FU edge (the slots' as its
 * bw part), which bw drops. */
static void g_divs_then_users(ic_inst *in, size_t j, void *st) {
  (void)st;
  const uint8_t d = (uint8_t)(5 + (j / 4) % 2); /* the divide's register */
  if (j % 4 == 0) *in = mk(IC_OP_INT_DIV, d, IC_REG_NONE, IC_REG_NONE);
  else *in = mk(IC_OP_INT_ALU, (uint8_t)(20 + j % 8), d, IC_REG_NONE); /* its users */
}

Test(model_attrib, a_divide_waiting_for_unit_and_slot_moves_with_bw) {
  ooo_config *cfg = base_cfg();
  ic_err err;
  cr_assert_eq(ooo_config_set(cfg, "core.issue_width=1", &err), IC_OK, "%s", err.msg);
  cr_assert_eq(ooo_config_set(cfg, "fu.int_mul=1", &err), IC_OK, "%s", err.msg);
  const size_t n = 3000;
  ic_inst *v = make_loop(n, 15, g_divs_then_users, NULL);
  const ic_catmask sets[] = {IC_CATBIT(IC_CAT_BW), IC_CATBIT(IC_CAT_BW) | IC_CATBIT(IC_CAT_SHALU),
                             IC_CATBIT(IC_CAT_LGALU)};
  expect_graph_near_model(cfg, v, n, sets, sizeof sets / sizeof *sets);
  /* the form is there: FU edges with a bw part */
  rec_buf b = {0};
  ic_graph_sink sink = {.ctx = &b, .consume = buf_consume};
  ooo_stats s0 = {0};
  cr_assert_eq(run_stream(cfg, 0, v, n, 0, &sink, &s0, &err), IC_OK, "%s", err.msg);
  size_t slotted = 0;
  for (size_t i = 0; i < b.n; i++)
    for (int k = 0; k < b.v[i].nedges; k++)
      slotted += b.v[i].edge[k].kind == IC_EDGE_FU && b.v[i].edge[k].nparts > 0;
  cr_expect_gt(slotted, 0, "no divide waited for a slot after its unit");
  free(b.v);
  free(v);
  ooo_config_destroy(cfg);
}

/* Bursts of ready one-cycle ops behind a chain of divides. Each loop waits
 * for a divide (20 cycles) of the previous loop's sum, then runs 4
 * independent chains of 10 one-cycle ops from its result, interleaved, and
 * sums them into the next divide's operand. In the baseline at most 4 of
 * them are ready per cycle, fewer than the 6 issue slots, so RE records no
 * wait; with shalu the chains take 0 cycles and all 40 ops are ready at
 * once: the model issues them 6 per cycle. Without the IW edges the graph
 * lets them all issue in the divide's completion cycle (IBW only spaces
 * one chain, every 7 ops), so shalu looks much cheaper than it is. */
static void g_bursts(ic_inst *in, size_t j, void *st) {
  (void)st;
  if (j == 0) *in = mk(IC_OP_INT_DIV, 5, 5, 6);
  else if (j <= 40) {
    uint8_t c = (uint8_t)(20 + (j - 1) % 4);
    *in = mk(IC_OP_INT_ALU, c, j <= 4 ? 5 : c, IC_REG_NONE);
  } else *in = mk(IC_OP_INT_ALU, 5, 5, (uint8_t)(20 + (j - 41)));
}

Test(model_attrib, issue_slots_bind_when_latencies_collapse) {
  ooo_config *cfg = base_cfg();
  const size_t n = 9000;
  ic_inst *v = make_loop(n, 44, g_bursts, NULL);
  const ic_catmask shalu = IC_CATBIT(IC_CAT_SHALU);
  /* with imiss, bmisp or dmiss, which change nothing here (the loop's
   * code stays in the I-cache, its one branch is predicted, it has no
   * loads), and with win, the slot rule must hold: only bw drops it */
  const ic_catmask sets[] = {shalu, shalu | IC_CATBIT(IC_CAT_LGALU), IC_CATBIT(IC_CAT_LGALU),
                             shalu | IC_CATBIT(IC_CAT_IMISS), shalu | IC_CATBIT(IC_CAT_BMISP),
                             shalu | IC_CATBIT(IC_CAT_DMISS), shalu | IC_CATBIT(IC_CAT_WIN)};
  /* 5% covers where in a cycle each burst starts */
  expect_graph_near_model(cfg, v, n, sets, sizeof sets / sizeof *sets);
  /* the test can fail: without IW edges the graph is far too fast */
  ooo_stats ss = {0};
  size_t niw = expect_too_fast_without(cfg, v, n, shalu, IC_EDGE_IW, 0.9, &ss);
  cr_expect_gt(niw, n / 2, "only %zu slot rules", niw);
  free(v);
  ooo_config_destroy(cfg);
}

/* An issue queue smaller than the ROB (IQ 32, ROB 128) on 3-wide issue:
 * independent one-cycle ops, so the IQ fills and holds dispatch to the
 * issue rate, and bw (wider issue) drains it: the model runs much faster.
 * With the IQ's hold a fixed DD part (win), as before the IQ edge, the
 * graph kept the baseline's time under bw (x_storebw on such a machine:
 * bw 0.1% against 60.3% in multisim); the IQ rule (graph_rec.h: D at least
 * the IQ-th largest E before it) moves with issue. */
static void g_indep20(ic_inst *in, size_t j, void *st) {
  (void)st;
  *in = mk(IC_OP_INT_ALU, (uint8_t)(5 + j % 20), IC_REG_NONE, IC_REG_NONE);
}

Test(model_attrib, a_small_issue_queue_drains_with_bw) {
  ooo_config *cfg = base_cfg();
  ic_err err;
  cr_assert_eq(ooo_config_set(cfg, "core.rob=128", &err), IC_OK, "%s", err.msg);
  cr_assert_eq(ooo_config_set(cfg, "core.iq=32", &err), IC_OK, "%s", err.msg);
  cr_assert_eq(ooo_config_set(cfg, "core.issue_width=3", &err), IC_OK, "%s", err.msg);
  const size_t n = 6000;
  ic_inst *v = make_loop(n, 30, g_indep20, NULL);
  const ic_catmask bw = IC_CATBIT(IC_CAT_BW);
  /* and win, where the model (2277 cycles against 654 with bw) is slower
   * than its baseline: the 20x window dispatches far younger ops that take
   * slots older ones wanted. The slot rule counts every older issue in
   * flight; when it counted the 64 instructions before each, the graph
   * read 1303 */
  const ic_catmask sets[] = {bw, bw | IC_CATBIT(IC_CAT_SHALU), IC_CATBIT(IC_CAT_WIN)};
  /* 5% covers the start-up and the loop branch's fetch breaks */
  expect_graph_near_model(cfg, v, n, sets, sizeof sets / sizeof *sets);
  /* the IQ bound dispatch, and bw lifts it */
  ooo_stats s0 = {0}, sb = {0};
  rec_buf b = {0};
  ic_graph_sink sink = {.ctx = &b, .consume = buf_consume};
  cr_assert_eq(run_stream(cfg, 0, v, n, 0, &sink, &s0, &err), IC_OK, "%s", err.msg);
  cr_assert_eq(run_stream(cfg, bw, v, n, 0, NULL, &sb, &err), IC_OK, "%s", err.msg);
  cr_expect_lt((double)sb.cycles, 0.7 * (double)s0.cycles, "bw: %llu of %llu cycles",
               (unsigned long long)sb.cycles, (unsigned long long)s0.cycles);
  /* the IQ rule on every record, no IQ edge (the rule replaces them); the
     test can fail: without the rule nothing holds dispatch to the IQ, and
     the graph is far too fast under bw */
  size_t niq = 0;
  for (size_t i = 0; i < b.n; i++) {
    cr_assert_eq(b.v[i].iq, 32, "record %zu: IQ rule %u", i, b.v[i].iq);
    for (int k = 0; k < b.v[i].nedges; k++) niq += b.v[i].edge[k].kind == IC_EDGE_IQ;
  }
  cr_expect_eq(niq, 0, "%zu IQ edges beside the rule", niq);
  for (size_t i = 0; i < b.n; i++) b.v[i].iq = 0;
  uint64_t tno;
  cr_assert_eq(ic_graph_eval(b.v, b.n, bw, NULL, &tno, &err), IC_OK, "%s", err.msg);
  cr_expect_lt((double)tno, 0.8 * (double)sb.cycles, "without the IQ rule: graph %llu, model %llu under bw",
               (unsigned long long)tno, (unsigned long long)sb.cycles);
  free(b.v);
  free(v);
  ooo_config_destroy(cfg);
}

/* A load/store queue smaller than the ROB (LSQ 8, ROB and IQ 64): loads of
 * a small array (L1 hits) every other instruction, so the LSQ holds
 * dispatch until the memory instruction 8 back commits. The LSQ edge from
 * that commit carries the bound: exact in the baseline, and with win (a
 * 20x LSQ) dropped, where the model's larger queue frees dispatch too. */
static void g_loads(ic_inst *in, size_t j, void *st) {
  uint64_t *k = st;
  if (j % 2 == 0) {
    *in = mk(IC_OP_LOAD, (uint8_t)(5 + j % 8), 4, IC_REG_NONE);
    in->mem_size = 8;
    in->mem_addr = 0x40000000 + 8 * ((*k)++ % 256);
  } else {
    *in = mk(IC_OP_INT_ALU, (uint8_t)(20 + j % 8), (uint8_t)(5 + (j - 1) % 8), IC_REG_NONE);
  }
}

Test(model_attrib, a_small_lsq_holds_dispatch_until_commit) {
  ooo_config *cfg = base_cfg();
  ic_err err;
  cr_assert_eq(ooo_config_set(cfg, "core.lsq=8", &err), IC_OK, "%s", err.msg);
  const size_t n = 6000;
  uint64_t k = 0;
  ic_inst *v = make_loop(n, 20, g_loads, &k);
  const ic_catmask sets[] = {IC_CATBIT(IC_CAT_WIN), IC_CATBIT(IC_CAT_BW),
                             IC_CATBIT(IC_CAT_DL1)};
  /* 5% covers the start-up and the loop branch */
  expect_graph_near_model(cfg, v, n, sets, sizeof sets / sizeof *sets);
  /* the test can fail: without the LSQ edges the graph is far too fast */
  ooo_stats s0 = {0};
  size_t nlsq = expect_too_fast_without(cfg, v, n, 0, IC_EDGE_LSQ, 0.8, &s0);
  cr_expect_gt(nlsq, n / 3, "only %zu LSQ edges", nlsq);
  free(v);
  ooo_config_destroy(cfg);
}

/* The powerset solver on the records of random machines (random_machine:
 * split windows, 1-wide issue, a 1-entry ROB, ...) with all eight
 * categories: every subset's critical path equals the one-subset reference
 * pass (ic_graph_eval). The solver's own tests draw random graphs; these
 * are the model's, with the edge mixes an unusual machine produces. */
/* The 8-category solver fed b's records gives the model's cycles for {}
 * and the reference pass's time for every subset. */
static void expect_solver_equals_reference(const rec_buf *b, uint64_t cycles, int machine) {
  static const uint8_t all8[] = {IC_CAT_DL1,   IC_CAT_WIN,   IC_CAT_BW,    IC_CAT_BMISP,
                                 IC_CAT_DMISS, IC_CAT_SHALU, IC_CAT_LGALU, IC_CAT_IMISS};
  ic_err err;
  ic_solver *s;
  cr_assert_eq(ic_solver_create(&s, all8, 8, &err), IC_OK, "%s", err.msg);
  cr_assert_eq(ic_solver_feed(s, b->v, b->n, &err), IC_OK, "machine %d: %s", machine, err.msg);
  cr_assert_eq(ic_solver_invariant_violations(s), 0);
  const uint64_t *t = ic_solver_times(s);
  cr_assert_eq(t[0], cycles, "machine %d: solver {} %llu != model %llu", machine,
               (unsigned long long)t[0], (unsigned long long)cycles);
  for (uint32_t sub = 0; sub < 256; sub++) {
    uint64_t ref;
    const ic_catmask m = ic_solver_subset_catmask(s, sub);
    cr_assert_eq(ic_graph_eval(b->v, b->n, m, NULL, &ref, &err), IC_OK, "%s", err.msg);
    cr_assert_eq(t[sub], ref, "machine %d subset 0x%x: solver %llu reference %llu", machine, m,
                 (unsigned long long)t[sub], (unsigned long long)ref);
  }
  /* only the subsets a breakdown shows (ic_solver_set_subsets), in either
     thread mode: the same times for those, 0 for the others */
  uint64_t full[256];
  memcpy(full, t, sizeof full);
  uint8_t need[256];
  ic_breakdown_needed(8, 0, need);
  for (int threads = 1; threads <= 2; threads++) {
    ic_solver_reset(s);
    ic_solver_set_threads(s, threads);
    cr_assert_eq(ic_solver_set_subsets(s, need, &err), IC_OK, "%s", err.msg);
    for (size_t i = 0; i < b->n; i += 97) {
      const size_t k = b->n - i < 97 ? b->n - i : 97;
      cr_assert_eq(ic_solver_feed(s, b->v + i, k, &err), IC_OK, "machine %d: %s", machine, err.msg);
    }
    cr_assert_eq(ic_solver_invariant_violations(s), 0);
    t = ic_solver_times(s);
    for (uint32_t sub = 0; sub < 256; sub++)
      cr_assert_eq(t[sub], need[sub] ? full[sub] : 0,
                   "machine %d, %d threads, subset %u: sparse %llu, all subsets %llu", machine,
                   threads, sub, (unsigned long long)t[sub], (unsigned long long)full[sub]);
  }
  ic_solver_destroy(s);
}

Test(model_attrib, solver_equals_reference_on_random_machines) {
  uint64_t seed = 3, ms = 77;
  const size_t n = 1500;
  ic_inst *v = make_loop(n, 47, g_mix, &seed);
  for (int f = 0; f < 8; f++) {
    ooo_config *cfg = base_cfg();
    random_machine(cfg, &ms);
    ic_err err;
    rec_buf b = {0};
    ic_graph_sink sink = {.ctx = &b, .consume = buf_consume};
    ooo_stats st = {0};
    cr_assert_eq(run_stream(cfg, 0, v, n, 0, &sink, &st, &err), IC_OK, "%s", err.msg);
    expect_solver_equals_reference(&b, st.cycles, f);
    free(b.v);
    ooo_config_destroy(cfg);
  }
  free(v);
}

/* A chain of eight dependent loads (L1 hits) heads each iteration, then a
 * chain of one-cycle ops with a store of each result, among independent
 * one-cycle ops. The machine commits at most core.store_bw stores a cycle.
 * In the baseline the loads hold the ROB head while the stores behind them
 * complete, and they then commit as a burst that waits for store bandwidth;
 * with dl1 the head no longer holds them and the stores commit as their
 * chain produces them, without waiting. As fixed bw parts of CC where the
 * baseline's bursts waited, the graph kept those waits with dl1 (7% too
 * slow); the store-bandwidth source of CBW (graph_rec.h) moves with the
 * stores' commits instead. */
static void g_store_bursts(ic_inst *in, size_t j, void *st) {
  (void)st;
  if (j < 8) {
    *in = mk(IC_OP_LOAD, 5, 5, IC_REG_NONE);
    in->mem_size = 8;
    in->mem_addr = 0x50000 + 64 * j;
  } else if (j < 16 && j % 2 == 1) {
    *in = mk(IC_OP_INT_ALU, 7, 7, IC_REG_NONE);
  } else if (j < 16) {
    *in = mk(IC_OP_STORE, IC_REG_NONE, 7, IC_REG_NONE);
    in->mem_size = 1;
    in->mem_addr = 0x70000 + 64 * j;
  } else {
    *in = mk(IC_OP_INT_ALU, (uint8_t)(8 + j % 16), IC_REG_NONE, IC_REG_NONE);
  }
}

Test(model_attrib, store_bandwidth_moves_with_dl1) {
  ooo_config *cfg = base_cfg();
  const size_t n = 12000;
  ic_inst *v = make_loop(n, 36, g_store_bursts, NULL);
  const ic_catmask dl1 = IC_CATBIT(IC_CAT_DL1);
  const ic_catmask sets[] = {dl1, dl1 | IC_CATBIT(IC_CAT_SHALU), dl1 | IC_CATBIT(IC_CAT_WIN),
                             dl1 | IC_CATBIT(IC_CAT_BW)};
  uint64_t t0, tm, tg;
  model_vs_graph(cfg, v, n, 0, &t0, &tg);
  for (size_t k = 0; k < sizeof sets / sizeof *sets; k++) {
    model_vs_graph(cfg, v, n, sets[k], &tm, &tg);
    /* the cost, t - t(S), within 3% (each burst's phase in a cycle) */
    double cm = (double)t0 - (double)tm, cg = (double)t0 - (double)tg;
    cr_log_info("ideal 0x%x: graph %llu model %llu", sets[k], (unsigned long long)tg,
                (unsigned long long)tm);
    cr_expect(cm > 0 && fabs(cg - cm) <= 0.03 * cm,
              "ideal 0x%x: cost in the graph %.0f, in the model %.0f cycles (t %llu)", sets[k], cg,
              cm, (unsigned long long)t0);
  }
  /* the run is what the comment says: bursts waited in the baseline, and
     the stores' CBW edges come from the store_bw-th store before them */
  ic_err err;
  ooo_stats s0 = {0};
  rec_buf b = {0};
  ic_graph_sink sink = {.ctx = &b, .consume = buf_consume};
  cr_assert_eq(run_stream(cfg, 0, v, n, 0, &sink, &s0, &err), IC_OK, "%s", err.msg);
  cr_expect_gt(s0.stall_store_bw, n / 37 / 2, "the baseline waited for store bandwidth %llu cycles",
               (unsigned long long)s0.stall_store_bw);
  const uint32_t cw = ooo_config_commit_width(cfg);
  size_t nstore = 0;
  for (size_t i = 0; i < b.n; i++)
    for (int k = 0; k < b.v[i].nedges; k++)
      nstore += b.v[i].opclass == IC_OP_STORE && b.v[i].edge[k].kind == IC_EDGE_CBW &&
                b.v[i].edge[k].dist < cw;
  cr_expect_gt(nstore, n / 37, "only %zu store-bandwidth CBW edges", nstore);
  free(b.v);
  free(v);
  ooo_config_destroy(cfg);
}
