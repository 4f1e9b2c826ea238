/* test_shapley.c: exact Shapley shares (engine/shapley.h) on t(S) worked
 * out by hand, on hand-built graphs whose answers are known (two parallel
 * misses share the joint cost equally; independent events each get their
 * own cost; serial ones share the one saving), against the icost split
 * (phi_k = sum of icost(U) / |U| over U holding k) on random graphs, and
 * `icost --show shapley` end to end. */
#include <math.h>
#include <sys/wait.h>

#include "breakdown.h"
#include "shapley.h"
#include "test_engine_graph_util.h"
#include "test_cmd.h"

static const uint8_t DM = IC_CAT_DMISS, LG = IC_CAT_LGALU, SH = IC_CAT_SHALU;

/* A chain instruction as in test_engine_solver.c: EP of ep cycles of ep_cat. */
static ic_graph_rec *inst(tg *g, uint32_t ep, uint8_t ep_cat) {
  ic_graph_rec *r = tg_inst(g);
  E0(r, IC_EDGE_DD, 1);
  E0(r, IC_EDGE_DR, 0);
  E0(r, IC_EDGE_RE, 0);
  if (ep)
    E1(r, IC_EDGE_EP, 0, ep, ep_cat);
  else
    E0(r, IC_EDGE_EP, 0);
  E0(r, IC_EDGE_PC, 0);
  E0(r, IC_EDGE_CC, 1);
  return r;
}

/* Solves g over cats and returns the Shapley shares in phi; t in *t0 and
 * t(C) in *tc. */
static void graph_shapley(const tg *g, const uint8_t *cats, int ncat, double *phi, double *t0,
                          double *tc) {
  uint64_t t[1 << 4];
  double td[1 << 4];
  tg_solve(g, cats, ncat, t, NULL);
  for (int s = 0; s < (1 << ncat); s++) td[s] = (double)t[s];
  ic_err err;
  cr_assert_eq(ic_shapley(td, ncat, phi, &err), IC_OK, "%s", err.msg);
  *t0 = td[0];
  *tc = td[(1 << ncat) - 1];
}

/* t(S) of test_engine_breakdown.c (cost 0,20,10,40,5,30,15,60 over
 * {dl1, win, bw}); by hand over the 6 orders:
 * dl1: (20 + 20 + 30 + 45 + 40 + 45) / 6... written out per order below. */
Test(shapley, by_hand_three_categories) {
  static const double t[] = {100, 80, 90, 60, 95, 70, 85, 40};
  /* cost(S) = 100 - t(S); marginal of c after the set before it, per order
     (a=dl1 bit0, b=win bit1, c=bw bit2):
       a b c: a 20, b 40-20=20, c 60-40=20
       a c b: a 20, c 30-20=10, b 60-30=30
       b a c: b 10, a 40-10=30, c 20
       b c a: b 10, c 15-10=5,  a 60-15=45
       c a b: c 5,  a 30-5=25,  b 30
       c b a: c 5,  b 15-5=10,  a 45
     a: (20+20+30+45+25+45)/6 = 185/6; b: (20+30+10+10+30+10)/6 = 110/6;
     c: (20+10+20+5+5+5)/6 = 65/6; sum 360/6 = 60 = t - t(C). */
  double phi[3];
  ic_err err;
  cr_assert_eq(ic_shapley(t, 3, phi, &err), IC_OK);
  cr_assert_float_eq(phi[0], 185.0 / 6, 1e-12, "%g", phi[0]);
  cr_assert_float_eq(phi[1], 110.0 / 6, 1e-12, "%g", phi[1]);
  cr_assert_float_eq(phi[2], 65.0 / 6, 1e-12, "%g", phi[2]);
  cr_assert_float_eq(phi[0] + phi[1] + phi[2], 60, 1e-12);
}

/* Two independent 100-cycle misses both feeding one instruction: neither
 * alone saves anything, both together 100: each gets half, 50. */
Test(shapley, parallel_misses_share_equally) {
  tg g = {0};
  inst(&g, 100, DM);
  inst(&g, 100, LG);
  ic_graph_rec *r = inst(&g, 1, NONE);
  E0(r, IC_EDGE_PR, 1);
  E0(r, IC_EDGE_PR, 2);
  cr_assert_eq(tg_stamp(&g), 101);
  uint8_t cats[] = {DM, LG};
  double phi[2], t0, tc;
  graph_shapley(&g, cats, 2, phi, &t0, &tc);
  cr_assert_float_eq(phi[0], 50, 1e-12, "%g", phi[0]);
  cr_assert_float_eq(phi[1], 50, 1e-12, "%g", phi[1]);
  cr_assert_float_eq(phi[0] + phi[1], t0 - tc, 1e-12);
  tg_free(&g);
}

/* Two events in series on the only path (50 and 30 cycles): independent,
 * each gets exactly its own cost; a third category with no events gets 0. */
Test(shapley, independent_events_get_their_own_cost) {
  tg g = {0};
  inst(&g, 50, DM);
  ic_graph_rec *r = inst(&g, 30, LG);
  E0(r, IC_EDGE_PR, 1);
  r = inst(&g, 10, NONE);
  E0(r, IC_EDGE_PR, 1);
  cr_assert_eq(tg_stamp(&g), 90);
  uint8_t cats[] = {DM, LG, IC_CAT_BMISP};
  double phi[3], t0, tc;
  graph_shapley(&g, cats, 3, phi, &t0, &tc);
  cr_assert_float_eq(phi[0], 50, 1e-12, "%g", phi[0]);
  cr_assert_float_eq(phi[1], 30, 1e-12, "%g", phi[1]);
  cr_assert_float_eq(phi[2], 0, 1e-12, "%g", phi[2]);
  cr_assert_float_eq(t0 - tc, 80, 1e-12);
  tg_free(&g);
}

/* Two dependent 100-cycle misses beside 100 cycles of ALU work: either
 * alone saves 100, both also 100 (serial): each gets 50. */
Test(shapley, serial_misses_share_the_one_saving) {
  tg g = {0};
  inst(&g, 100, DM);
  ic_graph_rec *r = inst(&g, 100, LG);
  E0(r, IC_EDGE_PR, 1);
  inst(&g, 100, SH);
  cr_assert_eq(tg_stamp(&g), 200);
  uint8_t cats[] = {DM, LG};
  double phi[2], t0, tc;
  graph_shapley(&g, cats, 2, phi, &t0, &tc);
  cr_assert_float_eq(phi[0], 50, 1e-12);
  cr_assert_float_eq(phi[1], 50, 1e-12);
  tg_free(&g);
}

/* Random graphs, four categories: the shares sum to t - t(C) and equal the
 * icost split sum over U holding k of icost(U) / |U|. */
Test(shapley, sums_and_icost_split_on_random_graphs) {
  const uint8_t cats[] = {IC_CAT_DMISS, IC_CAT_BW, IC_CAT_WIN, IC_CAT_SHALU};
  for (uint64_t seed = 1; seed <= 5; seed++) {
    tg g = {0};
    tg_random(&g, 400, seed, 12, 16);
    tg_stamp(&g);
    double phi[4], t0, tc;
    graph_shapley(&g, cats, 4, phi, &t0, &tc);
    uint64_t t[16];
    double td[16];
    tg_solve(&g, cats, 4, t, NULL);
    for (int s = 0; s < 16; s++) td[s] = (double)t[s];
    ic_breakdown b;
    ic_err err;
    cr_assert_eq(ic_breakdown_from_times(&b, cats, 4, td, &err), IC_OK);
    double sum = 0;
    for (int k = 0; k < 4; k++) {
      double split = 0;
      for (unsigned u = 1; u < 16; u++)
        if (u & (1u << k)) split += b.icost[u] / __builtin_popcount(u);
      cr_assert_float_eq(phi[k], split, 1e-9, "seed %llu cat %d: %g vs %g",
                         (unsigned long long)seed, k, phi[k], split);
      sum += phi[k];
    }
    cr_assert_float_eq(sum, t0 - tc, 1e-9);
    cr_assert(t0 - tc > 0, "seed %llu: no category removes anything", (unsigned long long)seed);
    ic_breakdown_free(&b);
    tg_free(&g);
  }
}

Test(shapley, rejects_missing_subsets) {
  double t[4] = {10, 5, NAN, 2}, phi[2];
  ic_err err;
  cr_assert_eq(ic_shapley(t, 2, phi, &err), IC_EINPUT);
  cr_assert(strstr(err.msg, "every subset"));
  cr_assert_eq(ic_shapley(t, 0, phi, &err), IC_EINPUT);
}

/* ---- icost --show shapley end to end -------------------------------- */

/* csv of the default short workload with 5 categories (so the breakdown
 * alone would not solve every subset): shapley rows sum to t - base. */
Test(shapley, cli_csv_rows_sum_to_t_minus_base) {
  char cmd[1024];
  snprintf(cmd, sizeof cmd,
           "%s --workload mix.short --max 100k --categories dl1,win,bw,dmiss,shalu "
           "--show shapley --format csv 2>&1",
           ICOST_BINARY);
  int st;
  char *out = run_cmd(cmd, &st);
  if (st == 2 && strstr(out, "not been built")) {
    free(out);
    cr_skip("workloads not built");
  }
  cr_assert_eq(st, 0, "%s", out);
  /* the breakdown table (name,kind,percent,cycles), then the shapley
     table (name,percent,cycles); "#" records are the header */
  double base = NAN, sum = 0, total = 0;
  int rows = 0, in_shapley = 0;
  for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
    char name[64], kind[64];
    double cyc, pct;
    if (line[0] == '#') continue;
    if (!strcmp(line, "name,percent,cycles")) in_shapley = 1;
    if (in_shapley && sscanf(line, "%63[^,],%lf,%lf", name, &pct, &cyc) == 3) {
      sum += cyc;
      rows++;
    } else if (!in_shapley && sscanf(line, "%63[^,],%63[^,],%lf,%lf", name, kind, &pct, &cyc) == 4) {
      if (!strcmp(name, "base")) base = cyc;
      total += cyc;
    }
  }
  cr_assert_eq(rows, 5, "%d shapley rows", rows);
  cr_assert(!isnan(base));
  cr_assert(total - base > 0);
  cr_assert_float_eq(sum, total - base, 1e-6 * total, "shapley sum %g, t - base %g", sum,
                     total - base);
  free(out);
}

Test(shapley, cli_text_and_yaml_and_bad_show) {
  char cmd[1024];
  int st;
  snprintf(cmd, sizeof cmd,
           "%s --workload mix.short --max 50k --categories dl1,win --show all,shapley "
           "--format yaml 2>&1",
           ICOST_BINARY);
  char *out = run_cmd(cmd, &st);
  if (st == 2 && strstr(out, "not been built")) {
    free(out);
    cr_skip("workloads not built");
  }
  cr_assert_eq(st, 0, "%s", out);
  char *sh = strstr(out, "\nshapley:\n");
  cr_assert_not_null(sh, "%s", out);
  cr_assert_not_null(strstr(sh, "- name: dl1\n  percent: "));
  cr_assert_not_null(strstr(sh, "- name: win\n  percent: "));
  free(out);
  snprintf(cmd, sizeof cmd, "%s --show shapley,some 2>&1", ICOST_BINARY);
  out = run_cmd(cmd, &st);
  cr_assert_eq(st, 2);
  cr_assert_not_null(strstr(out, "icost: --show 'shapley,some'"), "%s", out);
  free(out);
}
