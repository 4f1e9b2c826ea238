/* test_model_timing.c: the timing model on hand-built streams whose timing
 * follows from the machine parameters (each expectation is derived from the
 * config and states its tolerance), the idealizations, determinism and
 * independence of two cores. */
#include <criterion/criterion.h>

#include "test_model_synth.h"

static ooo_config *base_cfg(void) {
  ooo_config *c;
  ic_err err;
  cr_assert_eq(ooo_config_load(&c, NULL, &err), IC_OK, "%s", err.msg);
  return c;
}

static int64_t param(const ooo_config *c, const char *key) {
  int64_t v;
  ic_err err;
  cr_assert_eq(ooo_config_get(c, key, &v, &err), IC_OK, "%s", err.msg);
  return v;
}

static ooo_stats run(const ooo_config *c, ic_catmask ideal, const ic_inst *v, size_t n, size_t warm) {
  ooo_stats s;
  ic_err err;
  cr_assert_eq(run_stream(c, ideal, v, n, warm, NULL, &s, &err), IC_OK, "%s", err.msg);
  cr_assert_eq(s.instructions, n - warm);
  return s;
}

#define N 32000
#define BODY 15 /* generated instructions per loop iteration (+1 branch) */

/* Count of generated (non-loop-branch) instructions in a stream of n. */
static double body_count(size_t n) { return (double)n * BODY / (BODY + 1); }

Test(model_timing, dependent_adds_one_cycle_each) {
  ooo_config *c = base_cfg();
  ic_inst *v = make_loop(N, BODY, g_chain, NULL);
  ooo_stats s = run(c, 0, v, N, 0);
  double per = (double)s.cycles / body_count(N);
  int64_t lat = param(c, "latency.int_alu");
  /* the loop branches are independent and overlap; pipeline fill is small */
  cr_expect(per >= lat * 0.99 && per <= lat * 1.02, "cycles per dependent add %.3f, expected ~%lld",
            per, (long long)lat);
  free(v);
  ooo_config_destroy(c);
}

Test(model_timing, independent_adds_approach_width) {
  ooo_config *c = base_cfg();
  ic_inst *v = make_loop(N, BODY, g_indep, NULL);
  ooo_stats s = run(c, 0, v, N, 0);
  double ipc = (double)s.instructions / (double)s.cycles;
  int64_t w = param(c, "core.issue_width");
  cr_expect(ipc >= w * 0.9 && ipc <= w, "IPC %.3f on independent adds, width %lld", ipc, (long long)w);
  free(v);
  ooo_config_destroy(c);
}

Test(model_timing, dependent_multiplies_cost_latency) {
  ooo_config *c = base_cfg();
  ic_inst *v = make_loop(N, BODY, g_mul, NULL);
  ooo_stats s = run(c, 0, v, N, 0);
  double per = (double)s.cycles / body_count(N);
  int64_t lat = param(c, "latency.int_mul");
  cr_expect(per >= lat * 0.99 && per <= lat * 1.02, "cycles per dependent mul %.3f, latency %lld", per,
            (long long)lat);
  free(v);
  ooo_config_destroy(c);
}

Test(model_timing, pointer_chase_beyond_l2_costs_memory_latency) {
  ooo_config *c = base_cfg();
  chase_st st = {1, 1u << 20}; /* 64 MB of lines: misses L2, mostly the DTLB too */
  size_t n = 8000;
  ic_inst *v = make_loop(n, BODY, g_chase, &st);
  ooo_stats s = run(c, 0, v, n, 0);
  double per = (double)s.cycles / body_count(n);
  double lo = (double)(param(c, "mem.latency") + param(c, "l2.latency") + param(c, "l1d.latency"));
  double hi = lo + (double)param(c, "tlb.miss_latency");
  cr_expect(per >= lo * 0.98 && per <= hi * 1.02, "cycles per hop %.1f, expected in [%.0f, %.0f]", per,
            lo, hi);
  cr_expect(s.l2_misses >= body_count(n) * 0.95);
  free(v);
  ooo_config_destroy(c);
}

Test(model_timing, pointer_chase_in_l1_costs_l1_latency) {
  ooo_config *c = base_cfg();
  chase_st st = {1, 128}; /* 8 KB: fits the L1D */
  size_t n = 32000, warm = 16000;
  ic_inst *v = make_loop(n, BODY, g_chase, &st);
  ooo_stats s = run(c, 0, v, n, warm);
  double per = (double)s.cycles / body_count(n - warm);
  double l1 = (double)param(c, "l1d.latency");
  cr_expect(per >= l1 * 0.99 && per <= l1 * 1.05, "cycles per hop %.3f, L1 latency %.0f", per, l1);
  cr_expect_eq(s.l1d_misses, 0);
  free(v);
  ooo_config_destroy(c);
}

Test(model_timing, random_branch_mispredicts_half_the_time) {
  ooo_config *c = base_cfg();
  uint64_t seed = 7;
  ic_inst *v = make_loop(N, BODY, g_randbr, &seed);
  ooo_stats s = run(c, 0, v, N, 0);
  uint64_t random_branches = 0;
  for (size_t k = 0; k < N; k++)
    /* the generator's branches, except the last slot's (never taken) */
    if (v[k].opclass == IC_OP_BRANCH && v[k].src[0] == 7 && (v[k].pc - 0x10000) / 4 + 2 < BODY)
      random_branches++;
  double rate = (double)s.branch_mispredictions / (double)random_branches;
  cr_expect(rate >= 0.4 && rate <= 0.6, "misprediction rate %.3f on random branches", rate);
  /* each misprediction costs at least the recovery + front-end refill */
  cr_expect(s.cycles >= s.branch_mispredictions * (uint64_t)(param(c, "core.recovery") +
                                                               param(c, "core.frontend_depth")));
  free(v);
  ooo_config_destroy(c);
}

/* ---- idealizations ------------------------------------------------------- */

Test(model_timing, idealizations_never_slower_on_a_mix) {
  ooo_config *c = base_cfg();
  uint64_t seed = 3;
  size_t n = 24000;
  ic_inst *v = make_loop(n, 47, g_mix, &seed);
  ooo_stats b = run(c, 0, v, n, 0);
  for (int k = 0; k < IC_CAT_COUNT; k++) {
    ooo_stats s = run(c, IC_CATBIT(k), v, n, 0);
    /* tolerance 1%: an idealization can shift cache replacement and MSHR
     * timing a little, never by more */
    cr_expect(s.cycles <= b.cycles * 1.01, "%s made the run slower: %llu > %llu",
              ic_category_names[k], (unsigned long long)s.cycles, (unsigned long long)b.cycles);
  }
  ooo_stats all = run(c, (1u << IC_CAT_COUNT) - 1, v, n, 0);
  cr_expect(all.cycles < b.cycles / 2, "everything ideal: %llu vs %llu", (unsigned long long)all.cycles,
            (unsigned long long)b.cycles);
  free(v);
  ooo_config_destroy(c);
}

Test(model_timing, each_idealization_does_what_it_says) {
  ooo_config *c = base_cfg();
  /* bmisp: no mispredictions */
  uint64_t seed = 7;
  ic_inst *v = make_loop(N, BODY, g_randbr, &seed);
  ooo_stats s = run(c, IC_CATBIT(IC_CAT_BMISP), v, N, 0);
  cr_expect_eq(s.branch_mispredictions, 0);
  free(v);
  /* dmiss: the big chase hits the L1 at L1 latency */
  chase_st st = {1, 1u << 20};
  size_t n = 8000;
  v = make_loop(n, BODY, g_chase, &st);
  s = run(c, IC_CATBIT(IC_CAT_DMISS), v, n, 0);
  double per = (double)s.cycles / body_count(n);
  cr_expect(per <= param(c, "l1d.latency") * 1.05, "dmiss chase: %.2f cycles per hop", per);
  cr_expect_eq(s.l1d_misses + s.dtlb_misses, 0);
  /* dl1: the misses remain, each L1 part is gone */
  ooo_stats b = run(c, 0, v, n, 0), d = run(c, IC_CATBIT(IC_CAT_DL1), v, n, 0);
  double saved = (double)(b.cycles - d.cycles) / body_count(n);
  cr_expect(saved >= param(c, "l1d.latency") * 0.95 && saved <= param(c, "l1d.latency") * 1.05,
            "dl1 saved %.2f cycles per hop", saved);
  free(v);
  /* shalu: dependent adds issue in the same cycle: bound by fetch */
  v = make_loop(N, BODY, g_chain, NULL);
  s = run(c, IC_CATBIT(IC_CAT_SHALU), v, N, 0);
  cr_expect((double)s.instructions / s.cycles >= param(c, "core.fetch_width") * 0.9);
  free(v);
  /* lgalu: dependent multiplies issue together, limited by the multipliers */
  v = make_loop(N, BODY, g_mul, NULL);
  s = run(c, IC_CATBIT(IC_CAT_LGALU), v, N, 0);
  per = (double)s.cycles / body_count(N);
  cr_expect(per <= 1.05 / (double)param(c, "fu.int_mul"), "lgalu: %.3f cycles per mul", per);
  free(v);
  /* bw: independent adds beyond the baseline width (given enough ALUs) */
  ooo_config *wide = ooo_config_clone(c);
  ic_err werr;
  cr_assert_eq(ooo_config_set(wide, "fu.int_alu=64", &werr), IC_OK, "%s", werr.msg);
  v = make_loop(N, BODY, g_indep, NULL);
  b = run(wide, 0, v, N, 0);
  s = run(wide, IC_CATBIT(IC_CAT_BW), v, N, 0);
  cr_expect((double)b.instructions / b.cycles <= param(c, "core.issue_width"));
  cr_expect((double)s.instructions / s.cycles > param(c, "core.issue_width") * 1.5,
            "bw IPC %.2f", (double)s.instructions / s.cycles);
  ooo_config_destroy(wide);
  free(v);
  /* win: independent misses overlap 20x more */
  chase_st st2 = {5, 1u << 20};
  n = 3000;
  v = make_loop(n, BODY, g_chase, &st2);
  for (size_t k = 0; k < n; k++) v[k].src[0] = IC_REG_NONE; /* independent loads */
  b = run(c, 0, v, n, 0);
  s = run(c, IC_CATBIT(IC_CAT_WIN), v, n, 0);
  cr_expect(s.cycles <= b.cycles, "win %llu vs %llu", (unsigned long long)s.cycles,
            (unsigned long long)b.cycles);
  /* and with more MSHRs it pays: the window was the limit */
  ooo_config *m = ooo_config_clone(c);
  ic_err err;
  cr_assert_eq(ooo_config_set(m, "mem.mshrs=1024", &err), IC_OK, "%s", err.msg);
  b = run(m, 0, v, n, 0);
  s = run(m, IC_CATBIT(IC_CAT_WIN), v, n, 0);
  cr_expect(s.cycles * 4 < b.cycles, "win with many MSHRs %llu vs %llu", (unsigned long long)s.cycles,
            (unsigned long long)b.cycles);
  ooo_config_destroy(m);
  free(v);
  /* imiss: code spread over 128 KB misses the L1I unless idealized */
  n = 32768;
  v = calloc(n, sizeof *v);
  for (size_t k = 0; k < n; k++) {
    v[k] = mk(IC_OP_INT_ALU, (uint8_t)(6 + k % 20), IC_REG_NONE, IC_REG_NONE);
    v[k].pc = 0x100000 + 4 * k;
    v[k].next_pc = v[k].pc + 4;
  }
  b = run(c, 0, v, n, 0);
  s = run(c, IC_CATBIT(IC_CAT_IMISS), v, n, 0);
  cr_expect(b.l1i_misses >= n * 4 / 64 * 0.99);
  cr_expect_eq(s.l1i_misses, 0);
  cr_expect(s.cycles * 5 < b.cycles);
  free(v);
  ooo_config_destroy(c);
}

/* ---- determinism and independence --------------------------------------- */

Test(model_timing, same_input_same_stats) {
  ooo_config *c = base_cfg();
  uint64_t seed = 11;
  size_t n = 15000;
  ic_inst *v = make_loop(n, 47, g_mix, &seed);
  ooo_stats a = run(c, 0, v, n, 1000), b = run(c, 0, v, n, 1000);
  cr_expect_eq(memcmp(&a, &b, sizeof a), 0);
  free(v);
  ooo_config_destroy(c);
}

Test(model_timing, two_cores_do_not_interfere) {
  ooo_config *c = base_cfg();
  ooo_config *c2 = ooo_config_clone(c);
  ic_err err;
  cr_assert_eq(ooo_config_set(c2, "core.rob=16", &err), IC_OK);
  uint64_t seed = 13;
  size_t n = 15000;
  ic_inst *v = make_loop(n, 47, g_mix, &seed);
  ooo_stats solo[2], mixed[2];
  for (int pass = 0; pass < 2; pass++) {
    /* core a runs the stream in two calls; in pass 1 a second core with
     * another machine runs in between */
    ooo_core *a, *b = NULL;
    arr_src sa, sb;
    uint64_t d;
    cr_assert_eq(ooo_create(&a, c, 0, &err), IC_OK);
    if (pass) {
      cr_assert_eq(ooo_create(&b, c2, IC_CATBIT(IC_CAT_DL1), &err), IC_OK);
      cr_assert_eq(ooo_warm(b, arr_source(&sb, v, 5000), 5000, &d, &err), IC_OK);
    }
    cr_assert_eq(ooo_run(a, arr_source(&sa, v, n / 2), 0, &err), IC_OK);
    if (pass) cr_assert_eq(ooo_run(b, arr_source(&sb, v, n), 0, &err), IC_OK);
    cr_assert_eq(ooo_run(a, arr_source(&sa, v + n / 2, n - n / 2), 0, &err), IC_OK);
    (pass ? mixed : solo)[0] = *ooo_get_stats(a);
    if (pass) (pass ? mixed : solo)[1] = *ooo_get_stats(b);
    ooo_destroy(a);
    ooo_destroy(b);
  }
  cr_expect_eq(memcmp(&solo[0], &mixed[0], sizeof solo[0]), 0);
  cr_expect_eq(mixed[0].instructions, n);
  /* b alone gives what it gave beside a */
  ooo_core *b;
  arr_src sb;
  uint64_t d;
  cr_assert_eq(ooo_create(&b, c2, IC_CATBIT(IC_CAT_DL1), &err), IC_OK);
  cr_assert_eq(ooo_warm(b, arr_source(&sb, v, 5000), 5000, &d, &err), IC_OK);
  cr_assert_eq(ooo_run(b, arr_source(&sb, v, n), 0, &err), IC_OK);
  cr_expect_eq(memcmp(ooo_get_stats(b), &mixed[1], sizeof mixed[1]), 0);
  ooo_destroy(b);
  free(v);
  ooo_config_destroy(c);
  ooo_config_destroy(c2);
}
