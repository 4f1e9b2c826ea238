/* test_engine_solver.c: the streaming powerset solver on hand-built graphs
 * whose answers are known by hand, and against the one-subset reference pass
 * on random graphs. */
#include "breakdown.h"
#include "inst.h"
#include "test_engine_graph_util.h"

static const uint8_t DM = IC_CAT_DMISS, LG = IC_CAT_LGALU, SH = IC_CAT_SHALU;

/* A chain instruction: D from D(i-1), R from D, E from R, P = E + EP, C from
 * P and C(i-1). Returns the record so callers can add edges. */
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

/* Paper Fig. 1: critical path 20 through edge A (11 cycles, here a data
 * miss); idealizing A leaves the path through edge C, 9 cycles: cost(A) =
 * 20 - 9 = 11. Instruction 0's miss (A) feeds instruction 1 (9 untagged
 * cycles); instruction 2 is independent, 9 cycles of ALU (edge C). */
Test(solver, paper_fig1_cost_of_A_is_11) {
  tg g = {0};
  inst(&g, 11, DM);
  ic_graph_rec *r1 = inst(&g, 9, NONE);
  E0(r1, IC_EDGE_PR, 1);
  inst(&g, 9, SH);
  cr_assert_eq(tg_stamp(&g), 20);
  uint8_t cats[] = {DM, SH};
  uint64_t t[4];
  ic_solver_stats st;
  tg_solve(&g, cats, 2, t, &st);
  cr_assert_eq(t[0], 20);
  cr_assert_eq(t[1], 9, "t(A) = %llu", (unsigned long long)t[1]);
  cr_assert_eq(20 - t[1], 11);
  cr_assert_eq(t[2], 20); /* idealizing C alone saves nothing */
  cr_assert_eq(t[3], 9);  /* the untagged 9 cycles remain */
  cr_assert_eq(st.violations, 0);
  cr_assert_eq(st.instructions, 3);
  tg_free(&g);
}

/* Two independent 100-cycle misses (categories dmiss, lgalu as labels)
 * both feeding instruction 2: fixing either alone saves nothing, both
 * together 100: icost = cost(AB) - cost(A) - cost(B) = +100 (parallel). */
Test(solver, parallel_misses_positive_interaction) {
  tg g = {0};
  inst(&g, 100, DM);
  inst(&g, 100, LG);
  ic_graph_rec *r = inst(&g, 1, NONE);
  E0(r, IC_EDGE_PR, 1);
  E0(r, IC_EDGE_PR, 2);
  cr_assert_eq(tg_stamp(&g), 101);
  uint8_t cats[] = {DM, LG};
  uint64_t t[4];
  tg_solve(&g, cats, 2, t, NULL);
  int64_t c1 = 101 - (int64_t)t[1], c2 = 101 - (int64_t)t[2], c12 = 101 - (int64_t)t[3];
  cr_assert_eq(c1, 0);
  cr_assert_eq(c2, 0);
  cr_assert_eq(c12, 100);
  cr_assert_eq(c12 - c1 - c2, 100);
  tg_free(&g);
}

/* Paper Section 2: two dependent 100-cycle misses in parallel with 100
 * cycles of ALU work: t = 200, fixing either miss saves 100, both also only
 * 100 (the ALU path remains): icost = 100 - 100 - 100 = -100 (serial). */
Test(solver, serial_misses_negative_interaction) {
  tg g = {0};
  inst(&g, 100, DM);
  ic_graph_rec *r = inst(&g, 100, LG);
  E0(r, IC_EDGE_PR, 1);
  inst(&g, 100, SH); /* independent ALU chain of 100 cycles */
  cr_assert_eq(tg_stamp(&g), 200);
  uint8_t cats[] = {DM, LG};
  uint64_t t[4];
  tg_solve(&g, cats, 2, t, NULL);
  int64_t c1 = 200 - (int64_t)t[1], c2 = 200 - (int64_t)t[2], c12 = 200 - (int64_t)t[3];
  cr_assert_eq(c1, 100);
  cr_assert_eq(c2, 100);
  cr_assert_eq(c12, 100);
  cr_assert_eq(c12 - c1 - c2, -100);
  tg_free(&g);
}

/* Two events in series on the only path: independent, icost 0. */
Test(solver, independent_events_zero_interaction) {
  tg g = {0};
  inst(&g, 50, DM);
  ic_graph_rec *r = inst(&g, 30, LG);
  E0(r, IC_EDGE_PR, 1);
  r = inst(&g, 10, NONE);
  E0(r, IC_EDGE_PR, 1);
  cr_assert_eq(tg_stamp(&g), 90);
  uint8_t cats[] = {DM, LG};
  uint64_t t[4];
  tg_solve(&g, cats, 2, t, NULL);
  cr_assert_eq(t[1], 40);
  cr_assert_eq(t[2], 60);
  cr_assert_eq(t[3], 10);
  cr_assert_eq((90 - t[3]) - (90 - t[1]) - (90 - t[2]), 0);
  tg_free(&g);
}

/* bmisp drops PD: instruction 1 dispatches 10 cycles after the branch
 * completes (P0 = 5); perfect prediction lets it dispatch at 0. */
Test(solver, bmisp_drops_pd) {
  tg g = {0};
  inst(&g, 5, NONE);
  ic_graph_rec *r = inst(&g, 1, NONE);
  E1(r, IC_EDGE_PD, 1, 10, NONE);
  cr_assert_eq(tg_stamp(&g), 16); /* D1 = 15, P1 = C1 = 16 */
  uint8_t cats[] = {IC_CAT_BMISP};
  uint64_t t[2];
  tg_solve(&g, cats, 1, t, NULL);
  cr_assert_eq(t[0], 16);
  cr_assert_eq(t[1], 5); /* C1 = max(C0 = 5, P1 = 1) */
  cr_assert_eq(tg_ref(&g, IC_CATBIT(IC_CAT_BMISP)), 5);
  tg_free(&g);
}

/* bw drops FBW and CBW and zeroes bw-tagged parts (here a fetch break on
 * DD). Four instructions of 1 cycle; fetch bandwidth 1 (FBW from D(i-1), 1
 * cycle), commit bandwidth 1 (CBW from C(i-1)), plus a 3-cycle fetch break
 * before instruction 3. */
Test(solver, bw_drops_fbw_cbw_and_zeroes_parts) {
  tg g = {0};
  for (int i = 0; i < 4; i++) {
    ic_graph_rec *r = tg_inst(&g);
    if (i == 3)
      E1(r, IC_EDGE_DD, 1, 3, IC_CAT_BW);
    else
      E0(r, IC_EDGE_DD, 1);
    if (i) E1(r, IC_EDGE_FBW, 1, 1, NONE);
    E0(r, IC_EDGE_DR, 0);
    E0(r, IC_EDGE_RE, 0);
    E1(r, IC_EDGE_EP, 0, 1, NONE);
    E0(r, IC_EDGE_PC, 0);
    E0(r, IC_EDGE_CC, 1);
    if (i) E1(r, IC_EDGE_CBW, 1, 1, NONE);
  }
  /* D = 0,1,2,5 ; P = 1,2,3,6 ; C = 1,2,3,6 */
  cr_assert_eq(tg_stamp(&g), 6);
  uint8_t cats[] = {IC_CAT_BW};
  uint64_t t[2];
  tg_solve(&g, cats, 1, t, NULL);
  cr_assert_eq(t[0], 6);
  cr_assert_eq(t[1], 1); /* everything dispatches at 0, completes at 1 */
  tg_free(&g);
}

/* dmiss drops PP and zeroes dmiss parts; dl1 parts stay. */
Test(solver, dmiss_drops_pp) {
  tg g = {0};
  inst(&g, 0, NONE);
  ic_graph_rec *r = tg_inst(&g); /* a load missing: 2 dl1 + 50 dmiss */
  E0(r, IC_EDGE_DD, 1);
  E0(r, IC_EDGE_DR, 0);
  E0(r, IC_EDGE_RE, 0);
  E2(r, IC_EDGE_EP, 0, 2, IC_CAT_DL1, 50, DM);
  E0(r, IC_EDGE_PC, 0);
  E0(r, IC_EDGE_CC, 1);
  r = inst(&g, 2, IC_CAT_DL1); /* a load to the same line: waits for it */
  E1(r, IC_EDGE_PP, 1, 1, NONE);
  cr_assert_eq(tg_stamp(&g), 53);
  uint8_t cats[] = {DM, IC_CAT_DL1};
  uint64_t t[4];
  tg_solve(&g, cats, 2, t, NULL);
  cr_assert_eq(t[1], 2);  /* both loads take their 2 dl1 cycles */
  cr_assert_eq(t[2], 51); /* 50 + 1 via PP; dl1 parts zeroed */
  cr_assert_eq(t[3], 0);
  tg_free(&g);
}

/* win moves CD from C(i-w) to C(i-20w). A ROB of 2: instruction 0 takes
 * 100 cycles; instructions 1..41 are 1-cycle and independent. With the
 * window, instruction 2 cannot dispatch before C0 = 100; with it 20x larger
 * (40), instruction 40 still waits for C0 but 1..39 do not. */
Test(solver, win_stretches_cd) {
  tg g = {0};
  inst(&g, 100, NONE);
  for (int i = 1; i <= 41; i++) {
    ic_graph_rec *r = inst(&g, 1, NONE);
    if (i >= 2) E0(r, IC_EDGE_CD, 2);
  }
  /* baseline: D(i) = C(i-2), so C(i) = max(C(i-1), C(i-2) + 1): C0 = C1 =
   * 100, C2 = C3 = 101, ..., C(2k) = C(2k+1) = 100 + k: C41 = 120 */
  uint64_t t0 = tg_stamp(&g);
  cr_assert_eq(t0, 120);
  uint8_t cats[] = {IC_CAT_WIN};
  uint64_t t[2];
  tg_solve(&g, cats, 1, t, NULL);
  cr_assert_eq(t[0], 120);
  /* win: 1..39 dispatch at 0 and commit at 100 behind C0; D40 = C0 = 100
   * and D41 = C1 = 100, so C40 = C41 = 101 */
  cr_assert_eq(t[1], 101);
  cr_assert_eq(tg_ref(&g, IC_CATBIT(IC_CAT_WIN)), 101);
  tg_free(&g);
}

/* An edge whose source left the window is evaluated with source time 0 and
 * counted. Window capped at 64 instructions: instruction 100 depends on
 * instruction 0 (a 1000-cycle miss) through PR with distance 100. */
Test(solver, window_overflow_counts_and_uses_time_zero) {
  tg g = {0};
  inst(&g, 1000, DM);
  for (int i = 1; i < 100; i++) inst(&g, 1, NONE);
  ic_graph_rec *r = tg_inst(&g);
  E0(r, IC_EDGE_DD, 1);
  E0(r, IC_EDGE_DR, 0);
  E1(r, IC_EDGE_PR, 100, 5, NONE);
  E0(r, IC_EDGE_RE, 0);
  E1(r, IC_EDGE_EP, 0, 7, NONE);
  E0(r, IC_EDGE_PC, 0);
  E0(r, IC_EDGE_CC, 1);
  tg_stamp(&g);
  uint8_t cats[] = {DM};
  ic_solver *s = NULL;
  ic_err err;
  cr_assert_eq(ic_solver_create(&s, cats, 1, &err), IC_OK);
  ic_solver_set_window_cap(s, 64);
  cr_assert_eq(ic_solver_feed(s, g.r, g.n, &err), IC_OK, "%s", err.msg);
  ic_solver_stats st;
  ic_solver_get_stats(s, &st);
  cr_assert_eq(st.window, 64);
  cr_assert_eq(st.out_of_window, 1);
  /* Baseline: C0 = 1000 keeps every commit at >= 1000; instruction 100 has
   * R = max(D100 = 0, 0 + 5) = 5, P = 12, C = max(C99 = 1000, 12) = 1000.
   * The true R would be 1005 (P0 + 5): the record's stamps disagree there. */
  cr_assert_eq(ic_solver_times(s)[0], 1000);
  cr_assert_eq(ic_solver_times(s)[1], 12); /* C0 = 0, C1..C99 = 1, C100 = 5 + 7 */
  cr_assert_eq(st.violations, 1);
  cr_assert_eq(st.first_violation_seq, 100);
  ic_solver_destroy(s);
  /* The default window (>= 1024 instructions) holds the source. */
  uint64_t t[2];
  tg_solve(&g, cats, 1, t, &st);
  cr_assert_eq(st.out_of_window, 0);
  cr_assert_eq(st.violations, 0);
  cr_assert_eq(t[0], 1012);
  cr_assert_eq(t[1], 12);
  cr_assert_geq(st.window, 1024);
  tg_free(&g);
}

/* The window grows when an edge with a longer distance is first seen, even
 * one reaching before the first record, and keeps what it held. */
Test(solver, window_grows_on_first_long_distance) {
  tg g = {0};
  ic_graph_rec *r0 = inst(&g, 1000, DM);
  E0(r0, IC_EDGE_PR, 100); /* before the first record: time 0, window -> 128 */
  for (int i = 1; i < 100; i++) inst(&g, 1, NONE);
  ic_graph_rec *r = inst(&g, 7, NONE);
  E1(r, IC_EDGE_PR, 100, 5, NONE);
  cr_assert_eq(tg_stamp(&g), 1012);
  uint8_t cats[] = {DM};
  ic_solver *s = NULL;
  ic_err err;
  cr_assert_eq(ic_solver_create(&s, cats, 1, &err), IC_OK);
  ic_solver_set_window_cap(s, 64);
  ic_solver_set_window_cap(s, 4096); /* cap raised, window still 64 */
  ic_solver_stats st;
  ic_solver_get_stats(s, &st);
  cr_assert_eq(st.window, 64);
  cr_assert_eq(ic_solver_feed(s, g.r, 50, &err), IC_OK, "%s", err.msg);
  cr_assert_eq(ic_solver_feed(s, g.r + 50, g.n - 50, &err), IC_OK, "%s", err.msg);
  ic_solver_get_stats(s, &st);
  cr_assert_eq(st.window, 128);
  cr_assert_eq(st.out_of_window, 0);
  cr_assert_eq(st.violations, 0);
  cr_assert_eq(ic_solver_times(s)[0], 1012);
  cr_assert_eq(ic_solver_times(s)[1], 12);
  ic_solver_destroy(s);
  tg_free(&g);
}

/* A window that grows mid-run keeps the entries it held and never reads
 * slots it did not: a source that was lost before the growth stays lost. */
Test(solver, window_growth_mid_run_keeps_live_entries) {
  tg g = {0};
  inst(&g, 1000, DM);
  for (int i = 1; i < 100; i++) inst(&g, 1, NONE);
  ic_graph_rec *r = inst(&g, 1, NONE);
  E0(r, IC_EDGE_PR, 100); /* seq 0: lost (window 64), triggers growth to 128 */
  r = inst(&g, 1, NONE);
  E1(r, IC_EDGE_PR, 101, 2, NONE); /* seq 0 again: still lost */
  r = inst(&g, 1, NONE);
  E1(r, IC_EDGE_PR, 60, 3, NONE); /* seq 42: held across the growth */
  tg_stamp(&g);
  uint8_t cats[] = {DM};
  ic_solver *s = NULL;
  ic_err err;
  cr_assert_eq(ic_solver_create(&s, cats, 1, &err), IC_OK);
  ic_solver_set_window_cap(s, 64);
  ic_solver_set_window_cap(s, 4096);
  cr_assert_eq(ic_solver_feed(s, g.r, g.n, &err), IC_OK, "%s", err.msg);
  ic_solver_stats st;
  ic_solver_get_stats(s, &st);
  cr_assert_eq(st.window, 128);
  cr_assert_eq(st.out_of_window, 2);
  /* baseline with seq 0 seen as time 0: C102 = max(C101 = 1000, ...) */
  cr_assert_eq(ic_solver_times(s)[0], 1000);
  /* dmiss: C0 = 0, 1..99 commit at 1; P42 = 1 -> R102 = 4, P = C = 5 */
  cr_assert_eq(ic_solver_times(s)[1], 5);
  ic_solver_destroy(s);
  tg_free(&g);
}

/* Sources before the first record have time 0; a window of records from
 * the middle of a graph (seq not starting at 0) works after reset. */
Test(solver, reset_and_window_from_the_middle) {
  tg g = {0};
  g.seq0 = 5000;
  inst(&g, 10, DM);
  ic_graph_rec *r = inst(&g, 10, LG);
  E1(r, IC_EDGE_PR, 3, 100, NONE); /* source before the first record: time 0 */
  tg_stamp(&g);
  uint8_t cats[] = {DM, LG};
  ic_solver *s = NULL;
  ic_err err;
  cr_assert_eq(ic_solver_create(&s, cats, 2, &err), IC_OK);
  for (int rep = 0; rep < 2; rep++) {
    cr_assert_eq(ic_solver_feed(s, g.r, g.n, &err), IC_OK, "%s", err.msg);
    const uint64_t *t = ic_solver_times(s);
    cr_assert_eq(t[0], 110);
    cr_assert_eq(t[1], 110);
    cr_assert_eq(t[2], 100);
    cr_assert_eq(t[3], 100);
    cr_assert_eq(ic_solver_instructions(s), 2);
    cr_assert_eq(ic_solver_invariant_violations(s), 0);
    ic_solver_reset(s);
  }
  ic_solver_destroy(s);
  tg_free(&g);
}

Test(solver, rejects_gaps_and_bad_records) {
  tg g = {0};
  inst(&g, 1, NONE);
  inst(&g, 1, NONE);
  g.r[1].seq = 7;
  uint8_t cats[] = {DM};
  ic_solver *s = NULL;
  ic_err err = {{0}};
  cr_assert_eq(ic_solver_create(&s, cats, 1, &err), IC_OK);
  cr_assert_eq(ic_solver_feed(s, g.r, g.n, &err), IC_EINPUT);
  cr_assert(strstr(err.msg, "sequence gap"), "%s", err.msg);
  ic_solver_reset(s);
  g.r[1].seq = 1;
  g.r[1].edge[0].kind = 200;
  cr_assert_eq(ic_solver_feed(s, g.r, g.n, &err), IC_EINPUT);
  cr_assert(strstr(err.msg, "unknown kind"), "%s", err.msg);
  ic_solver_reset(s);
  g.r[1].edge[0].kind = IC_EDGE_DD;
  g.r[1].edge[0].nparts = 1;
  g.r[1].edge[0].part[0] = (ic_lat_part){IC_GRAPH_MAX_EDGE_LAT + 1, NONE};
  cr_assert_eq(ic_solver_feed(s, g.r, g.n, &err), IC_EINPUT);
  cr_assert(strstr(err.msg, "exceeds"), "%s", err.msg);
  ic_solver_reset(s);
  /* a part too long for its 24 bits saturates, and is rejected, never
     wrapped to a short one: 2^24 + 5 cycles would read as 5 */
  ic_part_set(&g.r[1].edge[0].part[0], (UINT64_C(1) << 24) + 5, NONE);
  cr_assert_eq(g.r[1].edge[0].part[0].cycles, IC_PART_MAX_CYCLES);
  cr_assert_eq(ic_solver_feed(s, g.r, g.n, &err), IC_EINPUT);
  cr_assert(strstr(err.msg, "exceeds"), "%s", err.msg);
  ic_solver_reset(s);
  ic_part_set(&g.r[1].edge[0].part[0], 3, NONE);
  ic_part_add(&g.r[1].edge[0].part[0], UINT64_C(1) << 32);
  cr_assert_eq(g.r[1].edge[0].part[0].cycles, IC_PART_MAX_CYCLES);
  cr_assert_eq(ic_solver_feed(s, g.r, g.n, &err), IC_EINPUT);
  cr_assert(strstr(err.msg, "exceeds"), "%s", err.msg);
  ic_solver_reset(s);
  g.r[1].edge[0].part[0] = (ic_lat_part){1, 77};
  cr_assert_eq(ic_solver_feed(s, g.r, g.n, &err), IC_EINPUT);
  cr_assert(strstr(err.msg, "unknown category"), "%s", err.msg);
  ic_solver_reset(s);
  g.r[1].edge[0].part[0] = (ic_lat_part){1, NONE};
  g.r[1].edge[0].keep = (uint8_t)IC_CATBIT(IC_CAT_WIN); /* DD: no category drops it */
  cr_assert_eq(ic_solver_feed(s, g.r, g.n, &err), IC_EINPUT);
  cr_assert(strstr(err.msg, "keeps categories"), "%s", err.msg);
  uint64_t tk;
  cr_assert_eq(ic_graph_eval(g.r, g.n, 0, NULL, &tk, &err), IC_EINPUT);
  cr_assert(strstr(err.msg, "keeps categories"), "%s", err.msg);
  g.r[1].edge[0].keep = 0;
  /* an IQ rule larger than any evaluation keeps, and an MSHR edge with
     flags but no rule or no count */
  ic_solver_reset(s);
  g.r[1].iq = IC_IQ_RULE_MAX + 1;
  cr_assert_eq(ic_solver_feed(s, g.r, g.n, &err), IC_EINPUT);
  cr_assert(strstr(err.msg, "IQ rule"), "%s", err.msg);
  cr_assert_eq(ic_graph_eval(g.r, g.n, 0, NULL, &tk, &err), IC_EINPUT);
  g.r[1].iq = 0;
  const ic_edge dd = g.r[1].edge[0];
  for (int f = 0; f < 2; f++) { /* flags on an IW or MSHR edge: their rules are record fields */
    ic_solver_reset(s);
    g.r[1].edge[0] = (ic_edge){.kind = f ? IC_EDGE_MSHR : IC_EDGE_IW, .dist = 1, .flags = 0x82};
    cr_assert_eq(ic_solver_feed(s, g.r, g.n, &err), IC_EINPUT);
    cr_assert(strstr(err.msg, f ? "MSHR edge" : "IW edge"), "%s", err.msg);
    cr_assert_eq(ic_graph_eval(g.r, g.n, 0, NULL, &tk, &err), IC_EINPUT);
  }
  g.r[1].edge[0] = dd;
  ic_solver_reset(s);
  g.r[1].mshr_k = IC_MSHR_RULE_MAX + 1; /* a rule count out of range */
  cr_assert_eq(ic_solver_feed(s, g.r, g.n, &err), IC_EINPUT);
  cr_assert(strstr(err.msg, "rule counts"), "%s", err.msg);
  cr_assert_eq(ic_graph_eval(g.r, g.n, 0, NULL, &tk, &err), IC_EINPUT);
  g.r[1].mshr_k = 0;
  ic_solver_reset(s);
  g.r[1].edge[0].part[0] = (ic_lat_part){1, NONE};
  g.r[1].edge[0].kind = IC_EDGE_PC; /* P -> C with distance 1: fine */
  g.r[1].edge[1].dist = 1;          /* DR from D(i-1): fine */
  g.r[1].edge[2].dist = 1;          /* RE from R(i-1): R is not kept */
  cr_assert_eq(ic_solver_feed(s, g.r, g.n, &err), IC_EINPUT);
  cr_assert(strstr(err.msg, "same instruction"), "%s", err.msg);
  ic_solver_destroy(s);
  uint8_t dup[] = {DM, DM};
  cr_assert_eq(ic_solver_create(&s, dup, 2, &err), IC_EINPUT);
  cr_assert_null(s);
  tg_free(&g);
}

/* The vectorized solver equals the one-subset reference pass for every
 * subset, on random graphs over all edge kinds and categories. */
static uint64_t check_random(size_t n, uint64_t seed, uint32_t maxlat, const uint8_t *cats,
                             int ncat) {
  tg g = {0};
  tg_random(&g, n, seed, maxlat, 8);
  tg_stamp(&g);
  uint64_t *t = malloc(sizeof(uint64_t) << ncat);
  ic_solver_stats st;
  tg_solve_k(&g, cats, ncat, t, &st, (int)(seed % T_KERNELS)); /* every kernel */
  cr_assert_eq(st.violations, 0);
  cr_assert_eq(st.out_of_window, 0);
  cr_assert_eq(st.instructions, n);
  for (uint32_t sub = 0; sub < (1u << ncat); sub++) {
    ic_catmask m = 0;
    for (int k = 0; k < ncat; k++)
      if (sub & (1u << k)) m |= IC_CATBIT(cats[k]);
    uint64_t ref = tg_ref(&g, m);
    cr_assert_eq(t[sub], ref, "seed %llu subset %u: solver %llu reference %llu",
                 (unsigned long long)seed, sub, (unsigned long long)t[sub],
                 (unsigned long long)ref);
  }
  free(t);
  tg_free(&g);
  return st.rebases;
}

static const uint8_t all8[] = {IC_CAT_DL1,   IC_CAT_WIN,   IC_CAT_BW,    IC_CAT_BMISP,
                               IC_CAT_DMISS, IC_CAT_SHALU, IC_CAT_LGALU, IC_CAT_IMISS};

/* Category lists with 256, 128, 64 and 8 lanes, in orders unlike the
 * solver's internal one. */
static const uint8_t seven[] = {IC_CAT_WIN,   IC_CAT_BMISP, IC_CAT_LGALU, IC_CAT_BW,
                                IC_CAT_DMISS, IC_CAT_DL1,   IC_CAT_SHALU};
static const uint8_t six[] = {IC_CAT_BW, IC_CAT_DL1, IC_CAT_WIN, IC_CAT_SHALU, IC_CAT_BMISP,
                              IC_CAT_DMISS};
static const uint8_t three[] = {IC_CAT_BMISP, IC_CAT_WIN, IC_CAT_DMISS};
static const struct {
  const uint8_t *cats;
  int ncat;
} lists[] = {{all8, 8}, {seven, 7}, {six, 6}, {three, 3}};

Test(solver, equals_reference_on_random_graphs) {
  static const uint8_t odd[] = {IC_CAT_IMISS, IC_CAT_SHALU, IC_CAT_BW, IC_CAT_DL1, IC_CAT_WIN};
  for (uint64_t seed = 1; seed <= 3; seed++) check_random(400, seed, 30, all8, 8);
  for (uint64_t seed = 7; seed <= 12; seed++) check_random(300, seed, 200, three, 3);
  for (uint64_t seed = 13; seed <= 16; seed++) check_random(300, seed, 5, odd, 5);
  check_random(50, 17, 3, NULL, 0);
  /* edge-removing categories at the internal bits the kernels handle per
   * block (win, bw, bmisp at 32-subset blocks; all four at 8-subset blocks),
   * in user orders unlike the internal one */
  static const uint8_t four[] = {IC_CAT_WIN, IC_CAT_DMISS, IC_CAT_BW, IC_CAT_BMISP};
  for (uint64_t seed = 18; seed <= 19; seed++) check_random(300, seed, 40, four, 4);
  for (uint64_t seed = 20; seed <= 21; seed++) check_random(300, seed, 40, six, 6);
  for (uint64_t seed = 22; seed <= 23; seed++) check_random(300, seed, 40, seven, 7);
}

/* Huge latencies make the 32-bit relative times rebase many times; results
 * must still equal the 64-bit reference. */
Test(solver, rebasing_keeps_results_exact) {
  static const uint8_t cats[] = {IC_CAT_DMISS, IC_CAT_WIN, IC_CAT_BMISP, IC_CAT_LGALU};
  cr_assert_gt(check_random(3000, 99, IC_GRAPH_MAX_EDGE_LAT / 4, cats, 4), 10);
}

/* The same with enough categories that the kernels skip whole blocks of
 * subsets (win, bw, bmisp on the 32-subset lane bits) and treat dropped
 * edges and CD halves as scalar there, under huge latencies and rebases,
 * with every kernel (check_random alternates them by seed). */
Test(solver, block_skipping_exact_with_rebases) {
  static const uint8_t cats[] = {IC_CAT_SHALU, IC_CAT_BW,    IC_CAT_WIN,  IC_CAT_DL1,
                                 IC_CAT_BMISP, IC_CAT_DMISS, IC_CAT_LGALU};
  for (uint64_t seed = 100; seed <= 101; seed++)
    cr_assert_gt(check_random(1200, seed, IC_GRAPH_MAX_EDGE_LAT / 4, cats, 7), 3);
}

Test(solver, parse_categories) {
  uint8_t c[16];
  int n = -1;
  ic_err err = {{0}};
  cr_assert_eq(ic_parse_categories("dl1,win,bmisp", c, &n, &err), IC_OK);
  cr_assert_eq(n, 3);
  cr_assert_eq(c[0], IC_CAT_DL1);
  cr_assert_eq(c[2], IC_CAT_BMISP);
  cr_assert_eq(ic_parse_categories("", c, &n, &err), IC_EINPUT);
  cr_assert(strstr(err.msg, "empty list"), "%s", err.msg);
  cr_assert_eq(ic_parse_categories("dl1,,win", c, &n, &err), IC_EINPUT);
  cr_assert(strstr(err.msg, "empty item"), "%s", err.msg);
  cr_assert_eq(ic_parse_categories("dl1,foo", c, &n, &err), IC_EINPUT);
  cr_assert(strstr(err.msg, "unknown category 'foo'"), "%s", err.msg);
  cr_assert_eq(ic_parse_categories("win,dl1,win", c, &n, &err), IC_EINPUT);
  cr_assert(strstr(err.msg, "'win' given twice"), "%s", err.msg);
  cr_assert_eq(ic_parse_categories("dl1,", c, &n, &err), IC_EINPUT);
}

/* ---- threads, batches, the latency-vector store ----------------------- */

/* t(S) of the first n records of g by the reference pass. */
static uint64_t ref_prefix(const tg *g, size_t n, ic_catmask m) {
  tg view = *g;
  view.n = n;
  return tg_ref(&view, m);
}

static void assert_all_subsets(ic_solver *s, const tg *g, size_t n, int ncat, const char *what) {
  const uint64_t *t = ic_solver_times(s);
  for (uint32_t sub = 0; sub < (1u << ncat); sub++) {
    uint64_t ref = ref_prefix(g, n, ic_solver_subset_catmask(s, sub));
    cr_assert_eq(t[sub], ref, "%s, %zu records, subset %u: solver %llu reference %llu", what, n,
                 sub, (unsigned long long)t[sub], (unsigned long long)ref);
  }
}

/* A solver in the given mode, starting from the smallest window (rings grow
 * while plans are in flight), and its description for messages. */
static ic_solver *mode_solver(const uint8_t *cats, int ncat, int threads, int lanes, int generic,
                              uint64_t seed, char *what, size_t wsize) {
  ic_solver *s = NULL;
  ic_err err = {{0}};
  cr_assert_eq(ic_solver_create(&s, cats, ncat, &err), IC_OK, "%s", err.msg);
  ic_solver_set_threads(s, threads);
  cr_assert_eq(ic_solver_threads(s), threads > 1 ? 2 : 1);
  ic_solver_set_split(s, lanes);
  t_use_kernel(s, generic);
  ic_solver_set_window_cap(s, 64);
  ic_solver_set_window_cap(s, 1u << 16);
  snprintf(what, wsize, "seed %llu, %d categories, %d threads, split %d, %s kernel",
           (unsigned long long)seed, ncat, threads, lanes, ic_solver_kernel_name(ic_solver_kernel_in_use(s)));
  return s;
}

/* Feeds g in batches of 1..maxbatch records (as the model's sink does) with
 * `threads` threads, the worker evaluating `lanes` lanes (the rest: the
 * caller's thread), and the AVX2 or the portable kernel, from the smallest
 * window, checking every subset against the reference at the end and, for
 * short graphs, at a batch boundary past a third of g;
 * switches the thread mode halfway (2 -> 1 -> 2 must stay exact) and then
 * the split (to the worker evaluating all lanes). Returns the stats at the
 * end. */
static ic_solver_stats check_mode(const tg *g, uint64_t seed, const uint8_t *cats, int ncat,
                                  int threads, int lanes, int generic, size_t maxbatch) {
  ic_err err = {{0}};
  char what[96];
  ic_solver *s = mode_solver(cats, ncat, threads, lanes, generic, seed, what, sizeof what);
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 7;
  size_t fed = 0;
  int checked = 0, switched = 0;
  while (fed < g->n) {
    size_t b = 1 + tg_rand(&x) % maxbatch;
    if (b > g->n - fed) b = g->n - fed;
    cr_assert_eq(ic_solver_feed(s, g->r + fed, b, &err), IC_OK, "%s: %s", what, err.msg);
    fed += b;
    if (!checked && fed >= g->n / 3 && g->n <= 1500) {
      checked = 1;
      assert_all_subsets(s, g, fed, ncat, what);
    }
    if (!switched && fed >= g->n / 2) {
      switched = 1;
      ic_solver_set_threads(s, 1);
      cr_assert_eq(ic_solver_threads(s), 1);
      cr_assert_eq(ic_solver_feed(s, g->r + fed, 1, &err), IC_OK, "%s: %s", what, err.msg);
      fed++;
      ic_solver_set_threads(s, threads);
      ic_solver_set_split(s, 1 << ncat);
    }
  }
  assert_all_subsets(s, g, g->n, ncat, what);
  ic_solver_stats st;
  ic_solver_get_stats(s, &st);
  cr_assert_eq(st.threads, (uint32_t)(threads > 1 ? 2 : 1));
  cr_assert_eq(st.instructions, g->n);
  cr_assert_eq(st.violations, 0, "%s", what);
  ic_solver_destroy(s);
  return st;
}


/* Both thread modes, lane splits at 64, 32 and 8-lane boundaries, both
 * kernels, on category counts with 256, 128, 64 and 8 lanes. */
Test(solver_threads, equal_reference_in_both_modes_and_kernels) {
  uint64_t seed = 200;
  for (size_t l = 0; l < sizeof lists / sizeof lists[0]; l++) {
    const int np = 1 << lists[l].ncat;
    /* one thread; two with the worker on half the lanes, on all but the
     * last 32 (8 below 64 lanes), on every other 32-lane block, on all
     * (default) */
    const int modes[][2] = {{1, -1}, {2, np / 2}, {2, np >= 64 ? np - 32 : np - 8},
                            {2, IC_SOLVER_SPLIT_BLOCKS}, {2, -1}};
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++, seed++) {
      tg g = {0};
      tg_random(&g, 500, seed, 40, 8);
      tg_stamp(&g);
      check_mode(&g, seed, lists[l].cats, lists[l].ncat, modes[m][0], modes[m][1],
                 (int)(seed & 1), 40);
      tg_free(&g);
    }
  }
}

/* Rebases (huge latencies) and a ring growth in the middle of the run (a
 * PR edge farther back than any before) while plans are in flight. */
Test(solver_threads, rebase_and_growth_mid_run_exact) {
  for (uint64_t seed = 300; seed < 302; seed++) {
    tg g = {0};
    tg_random(&g, 1200, seed, IC_GRAPH_MAX_EDGE_LAT / 4, 8);
    ic_graph_rec *r = &g.r[700];
    cr_assert_lt(r->nedges, IC_MAX_EDGES);
    tg_rparts(E0(r, IC_EDGE_PR, 600), &seed, 50);
    tg_stamp(&g);
    for (int threads = 1; threads <= 2; threads++) {
      ic_solver_stats st = check_mode(&g, seed, all8, 8, threads, seed & 1 ? IC_SOLVER_SPLIT_BLOCKS : 128,
                                      (int)(seed & 1), 64);
      cr_assert_gt(st.rebases, 3);
      cr_assert_eq(st.window, 1024); /* grown from 64: 256 at once (CD), 1024 mid-run */
    }
    tg_free(&g);
  }
}

/* More edge shapes than the latency-vector store holds: it fills and is
 * cleared (with plans in flight in two-thread mode); results stay exact. */
Test(solver_threads, latency_store_flush_exact) {
  tg g = {0};
  tg_random(&g, 2500, 400, 100000, 8);
  tg_stamp(&g);
  for (int threads = 1; threads <= 2; threads++) {
    ic_solver_stats st = check_mode(&g, 400, all8, 8, threads, 192, 0, 200);
    cr_assert_gt(st.lat_flushes, 0);
  }
  tg_free(&g);
}

/* Errors are still reported by the feed that meets them in two-thread
 * mode; a reset starts over. */
Test(solver_threads, errors_and_reset_with_worker) {
  tg g = {0};
  tg_random(&g, 300, 500, 20, 8);
  tg_stamp(&g);
  ic_solver *s = NULL;
  ic_err err = {{0}};
  cr_assert_eq(ic_solver_create(&s, all8, 8, &err), IC_OK);
  ic_solver_set_threads(s, 2);
  cr_assert_eq(ic_solver_feed(s, g.r, 100, &err), IC_OK, "%s", err.msg);
  cr_assert_eq(ic_solver_feed(s, g.r + 101, 10, &err), IC_EINPUT);
  cr_assert(strstr(err.msg, "sequence gap"), "%s", err.msg);
  ic_solver_reset(s);
  uint8_t kind = g.r[150].edge[0].kind;
  g.r[150].edge[0].kind = 200;
  cr_assert_eq(ic_solver_feed(s, g.r, 200, &err), IC_EINPUT);
  cr_assert(strstr(err.msg, "unknown kind"), "%s", err.msg);
  g.r[150].edge[0].kind = kind;
  ic_solver_reset(s);
  cr_assert_eq(ic_solver_feed(s, g.r, g.n, &err), IC_OK, "%s", err.msg);
  assert_all_subsets(s, &g, g.n, 8, "after reset");
  cr_assert_eq(ic_solver_invariant_violations(s), 0);
  ic_solver_destroy(s);
  tg_free(&g);
}

/* A loop: n dynamic instances of 7 static instructions (pcs), each a copy
 * of its random template's edges, in about every `every`-th instance of
 * which one latency part (all: the first part of every edge) changes to a
 * random value below vary: most records repeat an earlier one of their pc
 * byte for byte (memo hits), the others must not be taken for them. */
static void tg_loop(tg *g, size_t n, uint64_t seed, uint32_t vary, uint32_t every, int all) {
  tg tmpl = {0};
  tg_random(&tmpl, 7, seed, 30, 8);
  uint64_t x = seed * 0x2545F4914F6CDD1Dull + 3;
  for (size_t i = 0; i < n; i++) {
    ic_graph_rec *r = tg_inst(g);
    const ic_graph_rec *t = &tmpl.r[i % 7];
    r->pc = 0x10000 + 4 * (i % 7);
    r->nedges = t->nedges;
    memcpy(r->edge, t->edge, sizeof r->edge);
    if (tg_rand(&x) % every == 0)
      for (int k = 0; k < r->nedges; k++) {
        ic_edge *e = &r->edge[all ? k : (int)(tg_rand(&x) % r->nedges)];
        if (e->nparts) e->part[0].cycles = tg_rand(&x) % vary;
        if (!all) break;
      }
  }
  tg_free(&tmpl);
}

Test(solver_threads, memo_of_repeated_records_exact) {
  for (uint64_t seed = 600; seed < 602; seed++) {
    tg g = {0};
    tg_loop(&g, 1000, seed, 50, 4, 0);
    tg_stamp(&g);
    for (int threads = 1; threads <= 2; threads++) {
      ic_solver_stats st = check_mode(&g, seed, all8, 8, threads, 64, (int)(seed & 1), 64);
      cr_assert_gt(st.memo_hits, g.n / 2, "%llu memo hits", (unsigned long long)st.memo_hits);
      cr_assert_lt(st.memo_hits, g.n);
    }
    tg_free(&g);
  }
}

/* Memos point into the latency-vector store: a store cleared under them
 * (many shapes) must not leave one in use. */
Test(solver_threads, memo_survives_store_flush_exact) {
  tg g = {0};
  tg_loop(&g, 3000, 700, 1u << 18, 2, 1);
  tg_stamp(&g);
  for (int threads = 1; threads <= 2; threads++) {
    ic_solver_stats st = check_mode(&g, 700, all8, 8, threads, 224, 1, 200);
    cr_assert_gt(st.lat_flushes, 0);
    cr_assert_gt(st.memo_hits, g.n / 8);
  }
  tg_free(&g);
}

/* A plan in the pipeline points to its memo's entries, so a memo must not
 * be rewritten until the plans made from it are evaluated. Seven pcs of
 * one memo set (solver_plan.c's memo_set, copied here) taking turns in its
 * four ways: each record replaces the memo of the record four back, whose
 * plan may still wait for the worker. */
static uint32_t t_memo_set(uint64_t pc) {
  return (uint32_t)((pc >> 1) * 0x9E3779B97F4A7C15ull >> 54) & 1023u;
}
Test(solver_threads, memo_rewritten_under_queued_plans_exact) {
  uint64_t pcs[7];
  int found = 0;
  for (uint64_t pc = 0x10000; found < 7; pc += 4)
    if (t_memo_set(pc) == t_memo_set(0x10000)) pcs[found++] = pc;
  tg g = {0};
  tg_loop(&g, 2000, 710, 50, 4, 0);
  for (size_t i = 0; i < g.n; i++) g.r[i].pc = pcs[i % 7];
  tg_stamp(&g);
  for (int threads = 1; threads <= 2; threads++) check_mode(&g, 710, all8, 8, threads, 256, 0, 256);
  tg_free(&g);
}

/* The default split adapts while the run goes on: it tries each candidate
 * for an epoch of 8192 records (draining the queue at each change), so a
 * run of 4 epochs changes it at least twice. Checked on a sample of the
 * subsets (the reference pass per subset is the slow part). */
Test(solver_threads, adaptive_split_changes_exact) {
  tg g = {0};
  tg_loop(&g, 4 * 8192 + 1000, 800, 40, 3, 0);
  tg_stamp(&g);
  ic_solver *s = NULL;
  ic_err err = {{0}};
  cr_assert_eq(ic_solver_create(&s, all8, 8, &err), IC_OK);
  ic_solver_set_threads(s, 2);
  for (size_t fed = 0; fed < g.n; fed += 32) {
    size_t b = g.n - fed < 32 ? g.n - fed : 32;
    cr_assert_eq(ic_solver_feed(s, g.r + fed, b, &err), IC_OK, "%s", err.msg);
  }
  const uint64_t *t = ic_solver_times(s);
  for (uint32_t sub = 0; sub < 256; sub += 17) {
    uint64_t ref = tg_ref(&g, ic_solver_subset_catmask(s, sub));
    cr_assert_eq(t[sub], ref, "subset %u: solver %llu reference %llu", sub,
                 (unsigned long long)t[sub], (unsigned long long)ref);
  }
  cr_assert_eq(t[255], tg_ref(&g, ic_solver_subset_catmask(s, 255)));
  ic_solver_stats st;
  ic_solver_get_stats(s, &st);
  cr_assert_eq(st.violations, 0);
  cr_assert_geq(st.split_changes, 2);
  ic_solver_destroy(s);
  tg_free(&g);
}

/* ---- IW: E(k) -> E(i), the first edge from an earlier E node ----------- */

/* Three independent loads issuing one per cycle: IW E(i-1) -> E(i), 1
 * cycle tagged bw; EP 2 cycles of dl1; dispatch all at 0. Baseline E = 0,
 * 1, 2, P = C = 2, 3, 4. dl1 keeps the issue order (E = 0, 1, 2, P = E);
 * bw, win, bmisp, dmiss and imiss each drop IW (all issue at 0). */
/* One instruction of the IW hand graphs: dispatched with the previous
 * one, ready dr cycles later (one part of category drc), an IW edge from
 * the previous one of iw cycles (tagged bw; none if iw is 0), executing in
 * ep cycles (category epc), committing at completion, in order. */
static void iw_inst(tg *g, uint32_t dr, uint8_t drc, uint32_t iw, uint32_t ep, uint8_t epc) {
  ic_graph_rec *r = tg_inst(g);
  E0(r, IC_EDGE_DD, 1);
  E1(r, IC_EDGE_DR, 0, dr, drc);
  E0(r, IC_EDGE_RE, 0);
  if (iw) E1(r, IC_EDGE_IW, 1, iw, IC_CAT_BW);
  E1(r, IC_EDGE_EP, 0, ep, epc);
  E0(r, IC_EDGE_PC, 0);
  E0(r, IC_EDGE_CC, 1);
}

static void iw_loads(tg *g) {
  for (int i = 0; i < 3; i++) iw_inst(g, 0, NONE, i ? 1 : 0, 2, IC_CAT_DL1);
}

Test(solver_iw, issue_slots_kept_by_dl1_dropped_by_the_others) {
  tg g = {0};
  iw_loads(&g);
  cr_assert_eq(tg_stamp(&g), 4);
  static const uint8_t drops[] = {IC_CAT_BW, IC_CAT_WIN, IC_CAT_BMISP, IC_CAT_DMISS,
                                  IC_CAT_IMISS};
  for (size_t k = 0; k < sizeof drops; k++) {
    uint8_t cats[] = {IC_CAT_DL1, drops[k], SH};
    uint64_t t[8];
    ic_solver_stats st;
    tg_solve(&g, cats, 3, t, &st);
    cr_assert_eq(st.violations, 0);
    cr_assert_eq(t[0], 4);
    cr_assert_eq(t[1], 2, "dl1: the loads still issue one per cycle, t %llu",
                 (unsigned long long)t[1]);
    cr_assert_eq(t[2], 2, "%s: IW dropped, t %llu", ic_category_names[drops[k]],
                 (unsigned long long)t[2]);
    cr_assert_eq(t[3], 0);
    cr_assert_eq(t[4], 4); /* shalu: nothing of it here */
    cr_assert_eq(t[5], 2);
  }
  /* no dropping category chosen */
  uint8_t cats[] = {SH, IC_CAT_DL1};
  uint64_t t[4];
  tg_solve(&g, cats, 2, t, NULL);
  cr_assert_eq(t[0], 4);
  cr_assert_eq(t[2], 2);
  tg_free(&g);
}

/* The IW condition: the edge holds only where its source was ready no
 * later than i. k (seq 0) becomes ready 2 cycles after dispatch (a shalu
 * wait on DR), i (seq 1) after 1; IW E(k) -> E(i) of 3 cycles. Baseline:
 * R(k) = 2 > R(i) = 1, so k takes no slot ahead of i: E(i) = 1, P(i) = 2,
 * C(i) = max(P(i), C(k) = 3) = 3. With shalu idealized R(k) = 0 <= 1: the
 * edge holds, E(i) = E(k) + 3 = 3, C(i) = 4. An edge that ignored the
 * condition would give E(i) = 5 in the baseline (C 6). */
static void iw_cond(tg *g) {
  iw_inst(g, 2, IC_CAT_SHALU, 0, 1, NONE);
  iw_inst(g, 1, NONE, 3, 1, NONE);
}

Test(solver_iw, holds_only_where_its_source_was_ready_first) {
  tg g = {0};
  iw_cond(&g);
  cr_assert_eq(tg_stamp(&g), 3);
  cr_assert_eq(g.r[1].t[IC_NODE_E], 1);
  cr_assert_eq(tg_ref(&g, IC_CATBIT(IC_CAT_SHALU)), 4, "reference with shalu");
  uint8_t cats[] = {SH, IC_CAT_DL1};
  uint64_t t[4];
  for (int generic = 0; generic < T_KERNELS; generic++) {
    ic_solver_stats st;
    tg_solve_k(&g, cats, 2, t, &st, generic);
    cr_assert_eq(st.violations, 0);
    cr_assert_eq(t[0], 3);
    cr_assert_eq(t[1], 4, "shalu: k ready first, the edge holds: t %llu", (unsigned long long)t[1]);
    cr_assert_eq(t[2], 3);
  }
  tg_free(&g);
}

/* E sources: only IW reads an earlier instruction's E; an EP edge from
 * E(i-1), an RE edge from R(i-1) and an IW edge of distance 0 are
 * rejected. */
Test(solver_iw, only_iw_reads_an_earlier_e) {
  static const struct {
    ic_edge_kind kind;
    uint32_t dist;
    const char *msg;
  } bad[] = {{IC_EDGE_EP, 1, "same instruction"},
             {IC_EDGE_RE, 1, "same instruction"},
             {IC_EDGE_IW, 0, "distance 0"}};
  uint8_t cats[] = {IC_CAT_DL1, IC_CAT_BW};
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    for (int threads = 1; threads <= 2; threads++) {
      tg g = {0};
      iw_loads(&g);
      ic_graph_rec *r = &g.r[2];
      E1(r, bad[k].kind, bad[k].dist, 1, NONE);
      ic_solver *s = NULL;
      ic_err err = {{0}};
      cr_assert_eq(ic_solver_create(&s, cats, 2, &err), IC_OK);
      ic_solver_set_threads(s, threads);
      cr_assert_eq(ic_solver_feed(s, g.r, g.n, &err), IC_EINPUT, "%s dist %u accepted",
                   ic_edge_names[bad[k].kind], bad[k].dist);
      cr_assert(strstr(err.msg, bad[k].msg), "%s", err.msg);
      ic_solver_destroy(s);
      tg_free(&g);
    }
  }
}

/* Adds to every record of a random graph (tg_random) 0 to 2 IW edges of
 * distance 1..maxdist (some longer than the E ring's first window), and
 * now and then an FU, IBW or MSHR edge (P(j) -> E(i)) and an IQ or LSQ
 * edge (E(j) or C(j) -> D(i)). Most IW edges are
 * what the model emits (1 cycle of bw); a third have random parts over all
 * categories (a latency vector over the block, with parts of categories
 * that do not drop IW), one in 20 reaches farther (up to 300 back). The
 * first record reaches 300 back (before the first record: time 0), so that
 * a solver started from the smallest window (check_mode) grows its rings to
 * hold the farthest IW sources before they are needed, as a model's run
 * shows its longest distances early (window_grows_on_first_long_distance). */
static void tg_add_iw(tg *g, uint64_t seed, uint32_t maxdist, uint32_t maxlat) {
  uint64_t x = seed * 0xD1B54A32D192ED03ull + 5;
  cr_assert(g->n && g->r[0].nedges < IC_MAX_EDGES);
  E1(&g->r[0], IC_EDGE_IW, 300, 1, IC_CAT_BW);
  for (size_t i = 0; i < g->n; i++) {
    ic_graph_rec *r = &g->r[i];
    int niw = (int)(tg_rand(&x) % 3);
    for (int k = 0; k < niw && r->nedges < IC_MAX_EDGES; k++) {
      uint32_t d = 1 + tg_rand(&x) % maxdist;
      if (tg_rand(&x) % 20 == 0) d = 1 + tg_rand(&x) % 300;
      ic_edge *e = E1(r, IC_EDGE_IW, d, 1, IC_CAT_BW);
      if (tg_rand(&x) % 3 == 0) tg_rparts(e, &x, maxlat);
    }
    if (tg_rand(&x) % 4 == 0 && r->nedges < IC_MAX_EDGES) {
      static const ic_edge_kind pe[] = {IC_EDGE_FU, IC_EDGE_IBW, IC_EDGE_MSHR};
      ic_edge *e = E0(r, pe[tg_rand(&x) % 3], 1 + tg_rand(&x) % 20);
      tg_rparts(e, &x, maxlat);
    }
    /* now and then an IQ edge (E(j) -> D(i)) or an LSQ edge (C(j) ->
       D(i)), which win drops: an E or C source read by D, up to maxdist
       back */
    if (tg_rand(&x) % 5 == 0 && r->nedges < IC_MAX_EDGES) {
      ic_edge *e = E0(r, tg_rand(&x) % 2 ? IC_EDGE_IQ : IC_EDGE_LSQ, 1 + tg_rand(&x) % maxdist);
      if (tg_rand(&x) % 2) tg_rparts(e, &x, maxlat);
    }
  }
}

/* Category lists for IW: every dropping category chosen (IW lives in the
 * 8 lowest lanes, a copy of E kept for them), some (a block with dropped
 * lanes in it: a latency vector), none (the whole vector), one, in orders
 * unlike the internal one. */
static const uint8_t iw_all8[] = {IC_CAT_IMISS, IC_CAT_DL1,   IC_CAT_WIN,   IC_CAT_BW,
                                  IC_CAT_LGALU, IC_CAT_BMISP, IC_CAT_DMISS, IC_CAT_SHALU};
static const uint8_t iw_none[] = {IC_CAT_LGALU, IC_CAT_DL1, IC_CAT_SHALU};
static const uint8_t iw_some3[] = {IC_CAT_DL1, IC_CAT_BW, IC_CAT_SHALU};
static const uint8_t iw_some5[] = {IC_CAT_DMISS, IC_CAT_SHALU, IC_CAT_IMISS, IC_CAT_DL1,
                                   IC_CAT_LGALU};
static const uint8_t iw_some6[] = {IC_CAT_BW, IC_CAT_DL1, IC_CAT_WIN, IC_CAT_SHALU,
                                   IC_CAT_BMISP, IC_CAT_DMISS};
static const uint8_t iw_seven[] = {IC_CAT_WIN,   IC_CAT_BMISP, IC_CAT_LGALU, IC_CAT_BW,
                                   IC_CAT_DMISS, IC_CAT_DL1,   IC_CAT_SHALU};
static const uint8_t iw_two[] = {IC_CAT_WIN, IC_CAT_DL1};
static const uint8_t iw_one[] = {IC_CAT_IMISS};
static const struct {
  const uint8_t *cats;
  int ncat;
} iw_lists[] = {{iw_all8, 8},  {iw_none, 3},  {iw_some3, 3}, {iw_some5, 5},
                {iw_some6, 6}, {iw_seven, 7}, {iw_two, 2},   {iw_one, 1}};

static void iw_graph(tg *g, size_t n, uint64_t seed, uint32_t maxlat, uint32_t maxdist) {
  tg_random(g, n, seed, maxlat, 8);
  tg_add_iw(g, seed, maxdist, maxlat);
  tg_stamp(g);
}

/* The solver (one thread, each kernel) against the
 * reference on every subset of cats, with no baseline violation and no
 * edge out of the window; `seed` names the graph in a failure. */
static void assert_subsets_exact_k(const tg *g, const uint8_t *cats, int ncat, uint64_t seed,
                                   int generic) {
  uint64_t *t = malloc(sizeof(uint64_t) << ncat);
  cr_assert_not_null(t);
  ic_solver_stats st;
  tg_solve_k(g, cats, ncat, t, &st, generic);
  cr_assert_eq(st.violations, 0);
  cr_assert_eq(st.out_of_window, 0);
  for (uint32_t sub = 0; sub < (1u << ncat); sub++) {
    ic_catmask m = 0;
    for (int k = 0; k < ncat; k++)
      if (sub >> k & 1) m |= IC_CATBIT(cats[k]);
    uint64_t want = tg_ref(g, m);
    cr_assert_eq(t[sub], want, "seed %llu subset %u: solver %llu reference %llu", (unsigned long long)seed,
                 sub, (unsigned long long)t[sub], (unsigned long long)want);
  }
  free(t);
}

/* The same on category list l of iw_lists. */
static void assert_iw_list_exact(const tg *g, size_t l, uint64_t seed, int generic) {
  assert_subsets_exact_k(g, iw_lists[l].cats, iw_lists[l].ncat, seed, generic);
}

/* Every subset against the reference, every kernel, one thread. */
Test(solver_iw, equals_reference_on_random_graphs) {
  uint64_t seed = 900;
  for (size_t l = 0; l < sizeof iw_lists / sizeof iw_lists[0]; l++)
    for (int rep = 0; rep < 2; rep++, seed++) {
      tg g = {0};
      iw_graph(&g, 400, seed, 30, rep ? 12 : 3);
      assert_iw_list_exact(&g, l, seed, rep);
      tg_free(&g);
    }
}

/* Both thread modes with lane splits (the worker with none, some or all of
 * the block), every kernel, batches, growth of the E ring from 64 while
 * plans are in flight. */
Test(solver_iw, equal_reference_in_both_modes) {
  uint64_t seed = 950;
  for (size_t l = 0; l < sizeof iw_lists / sizeof iw_lists[0]; l++) {
    const int np = 1 << iw_lists[l].ncat;
    const int modes[][2] = {{1, -1}, {2, 0}, {2, np / 2}, {2, IC_SOLVER_SPLIT_BLOCKS}, {2, -1}};
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++, seed++) {
      tg g = {0};
      iw_graph(&g, 500, seed, 40, 1 + (uint32_t)(seed % 16));
      check_mode(&g, seed, iw_lists[l].cats, iw_lists[l].ncat, modes[m][0], modes[m][1],
                 (int)(seed & 1), 40);
      tg_free(&g);
    }
  }
}

/* The slot rule (graph_rec.h, SLOT RULE): each IW edge of a random IW
 * graph becomes a slot rule of its record instead, a count of 1 to 3 slots,
 * a third of them of the record's pool, whose opclass is drawn so that the
 * pools mix; the reference applies the rule over the records before each
 * (ic_graph_eval). */
static void iw_slot_graph(tg *g, size_t n, uint64_t seed, uint32_t maxlat, uint32_t maxdist) {
  static const uint8_t ops[] = {IC_OP_INT_ALU, IC_OP_LOAD, IC_OP_STORE, IC_OP_INT_MUL, IC_OP_FP_ADD};
  uint64_t x = seed * 0xA24BAED4963EE407ull + 3;
  tg_random(g, n, seed, maxlat, 8);
  tg_add_iw(g, seed, maxdist, maxlat);
  for (size_t i = 0; i < g->n; i++) {
    ic_graph_rec *r = &g->r[i];
    r->opclass = ops[tg_rand(&x) % (sizeof ops)];
    int m = 0;
    for (int k = 0; k < r->nedges; k++) {
      if (r->edge[k].kind != IC_EDGE_IW) {
        r->edge[m++] = r->edge[k];
        continue;
      }
      const uint8_t n = (uint8_t)(1 + tg_rand(&x) % 3);
      if (tg_rand(&x) % 3)
        r->slot_w = n;
      else
        r->slot_p = n;
    }
    r->nedges = (uint8_t)m;
  }
  tg_stamp(g);
}

/* Every subset against the reference, every kernel, one thread and both
 * thread modes with lane splits. */
Test(solver_iw, slot_form_equals_reference) {
  uint64_t seed = 2100;
  for (size_t l = 0; l < sizeof iw_lists / sizeof iw_lists[0]; l++)
    for (int rep = 0; rep < 2; rep++, seed++) {
      tg g = {0};
      iw_slot_graph(&g, 400, seed, rep ? 30 : 2, rep ? 12 : 3);
      assert_iw_list_exact(&g, l, seed, rep);
      const int np = 1 << iw_lists[l].ncat;
      check_mode(&g, seed, iw_lists[l].cats, iw_lists[l].ncat, 2, rep ? np / 2 : -1, rep, 40);
      tg_free(&g);
    }
}

/* The same with the default kernel. */
static void assert_subsets_exact(const tg *g, const uint8_t *cats, int ncat) {
  assert_subsets_exact_k(g, cats, ncat, 0, 0);
}

/* k_slots counts in 16 bits where the cycles allow (solver.c, k_slots16):
 * never where two cycles 65536 apart would look the same. Instruction 2
 * becomes ready exactly 65536 cycles after instruction 1 issued, with one
 * slot per cycle: read in 16 bits the slot would look taken. Four more
 * categories act (a record with a part of each), so the solver has the 16
 * lanes the 16-bit counts need; and random slot-rule graphs with latencies
 * that far apart. */
Test(solver_iw, slot_counts_never_alias_cycles_65536_apart) {
  tg g = {0};
  static const uint8_t cats[] = {IC_CAT_SHALU, IC_CAT_DL1, IC_CAT_LGALU, IC_CAT_DMISS, IC_CAT_WIN};
  for (int i = 0; i < 8; i++) {
    ic_graph_rec *r = tg_inst(&g);
    E0(r, IC_EDGE_DD, 1);
    E0(r, IC_EDGE_DR, 0);
    if (i == 0) {
      tg_edge(r, IC_EDGE_RE, 0, 3, 1, IC_CAT_DL1, 1, IC_CAT_LGALU, 1, IC_CAT_DMISS);
    } else if (i == 2) {
      E1(r, IC_EDGE_PR, 1, 65536, IC_CAT_SHALU); /* R(2) = P(1) + 65536 = E(1) + 65536 */
      E1(r, IC_EDGE_RE, 0, 0, NONE);
    } else {
      E1(r, IC_EDGE_RE, 0, 0, NONE);
    }
    if (i >= 1) r->slot_w = 1;
    E1(r, IC_EDGE_EP, 0, 0, NONE);
    E0(r, IC_EDGE_PC, 0);
    E0(r, IC_EDGE_CC, 1);
  }
  tg_stamp(&g);
  assert_subsets_exact(&g, cats, 5);
  tg_free(&g);
  uint64_t seed = 2300;
  for (int rep = 0; rep < 3; rep++, seed++) {
    tg r = {0};
    iw_slot_graph(&r, 300, seed, 70000, 8);
    assert_iw_list_exact(&r, 0, seed, rep & 1); /* all 8 categories */
    tg_free(&r);
  }
}

/* The rule itself, on 4 independent instructions ready at cycle 0 whose E
 * takes dl1 latency from R (so idealizing dl1 makes them ready together):
 * with 2 slots per cycle the third and the fourth issue a cycle later;
 * with the slot rule of a pool, only the same pool's issues count. */
/* The solver, every kernel, equals the reference pass on g on every
 * subset of dl1 and bw. */
static void expect_dl1_bw_equal_reference(tg *g, int tag) {
  static const uint8_t cats[] = {IC_CAT_DL1, IC_CAT_BW};
  uint64_t ts[4];
  for (int generic = 0; generic < T_KERNELS; generic++) {
    tg_solve_k(g, cats, 2, ts, NULL, generic);
    for (uint32_t sub = 0; sub < 4; sub++) {
      ic_catmask m = (sub & 1 ? IC_CATBIT(IC_CAT_DL1) : 0) | (sub & 2 ? IC_CATBIT(IC_CAT_BW) : 0);
      cr_assert_eq(ts[sub], tg_ref(g, m), "case %d generic %d subset %u", tag, generic, sub);
    }
  }
}

Test(solver_iw, slot_rule_counts_the_cycle) {
  for (int pool = 0; pool < 2; pool++) {
    tg g = {0};
    for (int i = 0; i < 4; i++) {
      ic_graph_rec *r = tg_inst(&g);
      r->opclass = pool && i == 2 ? IC_OP_LOAD : IC_OP_INT_ALU;
      E0(r, IC_EDGE_DD, 1);
      E0(r, IC_EDGE_DR, 0);
      E1(r, IC_EDGE_RE, 0, 2 + (uint32_t)i, IC_CAT_DL1); /* baseline: E = 2, 3, 4, 5 */
      if (i >= 2) {
        if (pool)
          r->slot_p = 2;
        else
          r->slot_w = 2;
      }
      E1(r, IC_EDGE_EP, 0, 1, NONE);
      E0(r, IC_EDGE_PC, 0);
      E0(r, IC_EDGE_CC, 1);
    }
    tg_stamp(&g);
    uint64_t nt[4 * IC_NODE_COUNT], t;
    ic_err err = {{0}};
    cr_assert_eq(ic_graph_eval(g.r, g.n, IC_CATBIT(IC_CAT_DL1), nt, &t, &err), IC_OK);
    /* dl1: all ready at 0; 0 and 1 fill cycle 0; the third goes at 1 with
       the width rule, but at 0 with the pool rule (a load, and no load
       before it); the fourth, an ALU op, at 1 either way (two ALU ops in
       cycle 0) */
    cr_assert_eq(nt[0 * IC_NODE_COUNT + IC_NODE_E], 0);
    cr_assert_eq(nt[1 * IC_NODE_COUNT + IC_NODE_E], 0);
    cr_assert_eq(nt[2 * IC_NODE_COUNT + IC_NODE_E], pool ? 0u : 1u, "pool %d", pool);
    cr_assert_eq(nt[3 * IC_NODE_COUNT + IC_NODE_E], 1u, "pool %d", pool);
    /* the solver agrees on every subset of dl1 and bw */
    expect_dl1_bw_equal_reference(&g, pool);
    tg_free(&g);
  }
}

/* The rule counts every older issue in flight, however far back: record
 * 0 waits 300 cycles (dl1) and issues with the last of 200 records, whose
 * one slot (width 1) it takes; record 199 goes a cycle later. When the
 * rule counted the 64 records before, it went in the same cycle. */
Test(solver_iw, slot_rule_counts_older_issues_beyond_64_records) {
  tg g = {0};
  const int n = 200;
  for (int i = 0; i < n; i++) {
    ic_graph_rec *r = tg_inst(&g);
    r->opclass = IC_OP_INT_ALU;
    E0(r, IC_EDGE_DD, 1);
    E0(r, IC_EDGE_DR, 0);
    /* records 0 and n - 1 ready at 300, record i at i otherwise */
    E1(r, IC_EDGE_RE, 0, i == 0 || i == n - 1 ? 300 : (uint32_t)i, IC_CAT_DL1);
    if (i >= 1) r->slot_w = 1; /* one issue a cycle */
    E1(r, IC_EDGE_EP, 0, 1, NONE);
    E0(r, IC_EDGE_PC, 0);
    E0(r, IC_EDGE_CC, 1);
  }
  tg_stamp(&g);
  uint64_t *nt = malloc((size_t)n * IC_NODE_COUNT * sizeof *nt), t;
  ic_err err = {{0}};
  cr_assert_eq(ic_graph_eval(g.r, g.n, 0, nt, &t, &err), IC_OK, "%s", err.msg);
  cr_assert_eq(nt[0 * IC_NODE_COUNT + IC_NODE_E], 300);
  cr_assert_eq(nt[(n - 1) * IC_NODE_COUNT + IC_NODE_E], 301, "record 0, %d back, took 300", n - 1);
  expect_dl1_bw_equal_reference(&g, 0);
  free(nt);
  tg_free(&g);
}

/* The slot rule holds under every category but bw (dg_slot_rule_applies):
 * win, bmisp and dmiss, which drop IW edges, leave it (and fold onto the
 * subsets without them: on this graph they act nowhere), bw drops it. */
Test(solver_iw, slot_rule_holds_under_all_but_bw) {
  tg g = {0};
  for (int i = 0; i < 60; i++) {
    ic_graph_rec *r = tg_inst(&g);
    E0(r, IC_EDGE_DD, 1);
    E0(r, IC_EDGE_DR, 0);
    E1(r, IC_EDGE_RE, 0, 1 + (uint32_t)(i * 7 % 5), IC_CAT_SHALU);
    if (i >= 3) r->slot_w = 1;
    E1(r, IC_EDGE_EP, 0, 1, NONE);
    E0(r, IC_EDGE_PC, 0);
    E0(r, IC_EDGE_CC, 1);
  }
  tg_stamp(&g);
  static const uint8_t cats[] = {IC_CAT_SHALU, IC_CAT_WIN, IC_CAT_BMISP, IC_CAT_DMISS, IC_CAT_BW};
  assert_subsets_exact(&g, cats, 5);
  for (uint32_t sub = 0; sub < 32; sub++) {
    ic_catmask m = 0;
    for (int k = 0; k < 5; k++)
      if (sub >> k & 1) m |= IC_CATBIT(cats[k]);
    uint64_t want = tg_ref(&g, m);
    /* only shalu and bw change anything */
    ic_catmask kept = m & (IC_CATBIT(IC_CAT_SHALU) | IC_CATBIT(IC_CAT_BW));
    cr_assert_eq(want, tg_ref(&g, kept), "subset %u", sub);
  }
  /* the rule binds here: without it (bw) the run is shorter */
  cr_assert_lt(tg_ref(&g, IC_CATBIT(IC_CAT_BW)), tg_ref(&g, 0));
  cr_assert_lt(tg_ref(&g, IC_CATBIT(IC_CAT_BW) | IC_CATBIT(IC_CAT_SHALU)),
               tg_ref(&g, IC_CATBIT(IC_CAT_SHALU)));
  tg_free(&g);
}

/* Huge latencies (rebases move the E ring with the others), repeated
 * records (memo hits carry IW entries) and a full latency-vector store. */
Test(solver_iw, rebase_memo_and_store_flush_exact) {
  {
    tg g = {0};
    iw_graph(&g, 1200, 980, IC_GRAPH_MAX_EDGE_LAT / 4, 8);
    for (int threads = 1; threads <= 2; threads++) {
      ic_solver_stats st = check_mode(&g, 980, iw_all8, 8, threads, 128, threads & 1, 64);
      cr_assert_gt(st.rebases, 3);
      st = check_mode(&g, 981, iw_some6, 6, threads, -1, ~threads & 1, 64);
      cr_assert_gt(st.rebases, 3);
    }
    tg_free(&g);
  }
  tg g = {0};
  tg_loop(&g, 2500, 990, 1u << 18, 2, 1);
  tg_add_iw(&g, 990, 6, 1u << 18);
  tg_stamp(&g);
  for (int threads = 1; threads <= 2; threads++) {
    ic_solver_stats st = check_mode(&g, 990, iw_all8, 8, threads, 224, 1, 200);
    cr_assert_gt(st.lat_flushes, 0);
  }
  tg_free(&g);
  tg h = {0};
  tg_loop(&h, 1000, 991, 50, 4, 0);
  for (size_t i = 0; i < h.n; i++) /* the same IW edges per pc: memo hits */
    if (h.r[i].nedges < IC_MAX_EDGES) E1(&h.r[i], IC_EDGE_IW, 1 + (uint32_t)(i % 7) % 3, 1, IC_CAT_BW);
  tg_stamp(&h);
  for (int threads = 1; threads <= 2; threads++) {
    ic_solver_stats st = check_mode(&h, 991, iw_all8, 8, threads, -1, 0, 64);
    cr_assert_gt(st.memo_hits, h.n / 2);
  }
  tg_free(&h);
}

/* IW edges that keep some of the categories dropping their kind
 * (ic_edge.keep): alive in lanes above the lowest block (up to all of
 * them), evaluated there with a latency vector. */
Test(solver_iw, kept_categories_exact) {
  static const uint8_t keeps[] = {IC_CATBIT(IC_CAT_DMISS), IC_CATBIT(IC_CAT_IMISS),
                                  IC_CATBIT(IC_CAT_WIN),
                                  IC_CATBIT(IC_CAT_BW) | IC_CATBIT(IC_CAT_BMISP), 0xff};
  uint64_t seed = 1000;
  for (size_t l = 0; l < sizeof iw_lists / sizeof iw_lists[0]; l++, seed++) {
    tg g = {0};
    tg_random(&g, 300, seed, 30, 8);
    tg_add_iw(&g, seed, 8, 30);
    uint64_t x = seed;
    for (size_t i = 0; i < g.n; i++)
      for (int k = 0; k < g.r[i].nedges; k++)
        if (g.r[i].edge[k].kind == IC_EDGE_IW && tg_rand(&x) % 2)
          g.r[i].edge[k].keep =
              (uint8_t)(keeps[tg_rand(&x) % sizeof keeps] & dg_edge_drop_mask(IC_EDGE_IW));
    tg_stamp(&g);
    check_mode(&g, seed, iw_lists[l].cats, iw_lists[l].ncat, 1 + (int)(seed & 1), -1,
               (int)(seed >> 1 & 1), 40);
    tg_free(&g);
  }
}

/* The memo takes a record for an earlier one of its pc when only IW
 * distances differ (the issue order changes from instance to instance) and
 * whatever lies in the parts past nparts (the model need not clear them);
 * any other difference (a latency, a part's category, a kind) is a new
 * plan. */
Test(solver_iw, memo_ignores_iw_distances_and_unused_parts) {
  tg g = {0};
  tg_loop(&g, 1500, 1100, 40, 3, 0);
  uint64_t x = 1100;
  for (size_t i = 0; i < g.n; i++) {
    ic_graph_rec *r = &g.r[i];
    if (r->nedges < IC_MAX_EDGES) E1(r, IC_EDGE_IW, 1 + tg_rand(&x) % 6, 1, IC_CAT_BW);
    for (int k = 0; k < r->nedges; k++)
      for (int p = r->edge[k].nparts; p < IC_MAX_PARTS; p++)
        r->edge[k].part[p] = (ic_lat_part){tg_rand(&x), (uint8_t)tg_rand(&x)};
  }
  tg_stamp(&g);
  for (int threads = 1; threads <= 2; threads++) {
    ic_solver_stats st = check_mode(&g, 1100, iw_all8, 8, threads, -1, threads & 1, 64);
    cr_assert_gt(st.memo_hits, g.n / 2, "%llu memo hits", (unsigned long long)st.memo_hits);
    cr_assert_lt(st.memo_hits, g.n - g.n / 6);
  }
  tg_free(&g);
}

/* Random graphs whose records list their edges in a random order and lack
 * some of the edges every record has otherwise (DD, DR, RE, EP, PC, CC):
 * a node may then have no scalar edge, start from a vector edge (the AVX2
 * kernel starts from the first vector edge with no dropped lane), or have
 * only edges that some subsets drop (there it stays at time 0). Every
 * subset against the reference, every kernel, 256, 128, 64 and 8 lanes. */
static void tg_scramble(tg *g, uint64_t seed) {
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 3;
  for (size_t i = 0; i < g->n; i++) {
    ic_graph_rec *r = &g->r[i];
    int n = 0;
    for (int k = 0; k < r->nedges; k++) {
      const uint8_t kind = r->edge[k].kind;
      const int inorder = kind == IC_EDGE_DD || kind == IC_EDGE_DR || kind == IC_EDGE_RE ||
                          kind == IC_EDGE_EP || kind == IC_EDGE_PC || kind == IC_EDGE_CC;
      if (inorder && tg_rand(&x) % 3 == 0) continue;
      r->edge[n++] = r->edge[k];
    }
    r->nedges = (uint8_t)n;
    for (int k = n - 1; k > 0; k--) {
      int j = (int)(tg_rand(&x) % (uint32_t)(k + 1));
      ic_edge t = r->edge[k];
      r->edge[k] = r->edge[j];
      r->edge[j] = t;
    }
  }
}

/* A node with no edge live in a subset stays at time 0 there: near the
 * start of a run that decides the result, so short scrambled graphs are
 * checked after every record. */
static void check_scrambled(const uint8_t *cats, int ncat, uint64_t seed, size_t n, int generic,
                            int every) {
  tg g = {0};
  tg_random(&g, n, seed, 20, 8);
  tg_scramble(&g, seed);
  tg_stamp(&g);
  ic_solver *s = NULL;
  ic_err err = {{0}};
  cr_assert_eq(ic_solver_create(&s, cats, ncat, &err), IC_OK, "%s", err.msg);
  t_use_kernel(s, generic);
  char what[64];
  snprintf(what, sizeof what, "seed %llu, %d categories, %s kernel", (unsigned long long)seed,
           ncat, ic_solver_kernel_name(ic_solver_kernel_in_use(s)));
  for (size_t i = 0; i < n; i++) {
    cr_assert_eq(ic_solver_feed(s, g.r + i, 1, &err), IC_OK, "%s: %s", what, err.msg);
    if (every || i + 1 == n) assert_all_subsets(s, &g, i + 1, ncat, what);
  }
  ic_solver_stats st;
  ic_solver_get_stats(s, &st);
  cr_assert_eq(st.violations, 0, "%s", what);
  ic_solver_destroy(s);
  tg_free(&g);
}

Test(solver, any_edge_order_and_missing_in_order_edges) {
  uint64_t seed = 1100;
  for (size_t l = 0; l < sizeof lists / sizeof lists[0]; l++)
    for (int generic = 0; generic < T_KERNELS; generic++) {
      check_scrambled(lists[l].cats, lists[l].ncat, seed++, 300, generic, 0);
      for (int k = 0; k < 12; k++) check_scrambled(lists[l].cats, lists[l].ncat, seed++, 10, generic, 1);
    }
}

/* ---- categories that have not acted yet (inert) ----------------------- */

/* The rules by which a category acts (solver_layout.c, set_layout): a latency
 * part of it with cycles, an edge it drops (its kind's rule; IW not kept),
 * for win a CD edge. */
enum { ACT_PART, ACT_DROP, ACT_CD };

/* Makes category c act nowhere in record r: each part of c loses its
 * cycles or its category (alternately: a part of c with no cycles does not
 * act), an edge c drops is removed (IW: kept by c instead), and for win
 * every CD edge is removed. */
static void make_inert(ic_graph_rec *r, uint8_t c, uint64_t *x) {
  for (int k = 0; k < r->nedges;) {
    ic_edge *e = &r->edge[k];
    for (int p = 0; p < e->nparts; p++)
      if (e->part[p].cat == c) {
        if (tg_rand(x) % 2)
          e->part[p].cycles = 0;
        else
          e->part[p].cat = NONE;
      }
    int gone = (dg_edge_drop_mask(e->kind) & ~(ic_catmask)e->keep & IC_CATBIT(c)) != 0;
    if (gone && e->kind == IC_EDGE_IW) {
      e->keep = (uint8_t)(e->keep | IC_CATBIT(c));
      gone = 0;
    }
    if (gone || (c == IC_CAT_WIN && e->kind == IC_EDGE_CD)) {
      memmove(e, e + 1, (size_t)(r->nedges - k - 1) * sizeof *e);
      r->nedges--;
      continue;
    }
    k++;
  }
}

/* Room for one more edge in r: removes a PR edge if r is full (no rule
 * of any category depends on a PR edge). 0 if there is none. */
static int edge_room(ic_graph_rec *r) {
  if (r->nedges < IC_MAX_EDGES) return 1;
  for (int k = r->nedges - 1; k >= 0; k--)
    if (r->edge[k].kind == IC_EDGE_PR) {
      memmove(&r->edge[k], &r->edge[k + 1], (size_t)(r->nedges - k - 1) * sizeof r->edge[k]);
      r->nedges--;
      return 1;
    }
  return 0;
}

/* Makes c act in record r by `rule` and by nothing else that c's rules
 * would see (r was made inert for c first): a part of c with cycles on an
 * edge with a free part (the only rule of dl1, shalu, lgalu); an edge of a
 * kind c drops (IW keeping every other category, so that only c acts by
 * it); a CD edge (win). Returns the rule applied. */
static int make_act(ic_graph_rec *r, uint8_t c, int rule, uint64_t *x, uint32_t maxlat) {
  const ic_catmask iwm = dg_edge_drop_mask(IC_EDGE_IW);
  if (rule == ACT_CD && c != IC_CAT_WIN) rule = ACT_DROP;
  if (rule == ACT_DROP && !(iwm & IC_CATBIT(c))) rule = ACT_PART;
  if (rule != ACT_PART && !edge_room(r)) rule = ACT_PART;
  if (rule == ACT_CD) {
    E0(r, IC_EDGE_CD, 8);
  } else if (rule == ACT_DROP) {
    static const ic_edge_kind bwk[] = {IC_EDGE_FBW, IC_EDGE_CBW, IC_EDGE_FU, IC_EDGE_IBW};
    uint32_t d = 1 + tg_rand(x) % 6;
    ic_edge *e;
    if (c == IC_CAT_BW && tg_rand(x) % 2)
      e = E0(r, bwk[tg_rand(x) % 4], d);
    else if (c == IC_CAT_BMISP && tg_rand(x) % 2)
      e = E0(r, IC_EDGE_PD, 1);
    else if (c == IC_CAT_DMISS && tg_rand(x) % 2)
      e = E0(r, tg_rand(x) % 2 ? IC_EDGE_PP : IC_EDGE_MSHR, d);
    else if (c == IC_CAT_WIN && tg_rand(x) % 2)
      e = E0(r, tg_rand(x) % 2 ? IC_EDGE_IQ : IC_EDGE_LSQ, d);
    else
      e = E0(r, IC_EDGE_IW, d);
    if (e->kind == IC_EDGE_IW) e->keep = (uint8_t)(iwm & ~IC_CATBIT(c));
    e->nparts = 1;
    e->part[0] = (ic_lat_part){1 + tg_rand(x) % 3, NONE};
  } else {
    for (int k = 0; k < r->nedges; k++) {
      ic_edge *e = &r->edge[(k + (int)(tg_rand(x) % r->nedges)) % r->nedges];
      if (e->nparts < IC_MAX_PARTS) {
        e->part[e->nparts++] = (ic_lat_part){1 + tg_rand(x) % maxlat, c};
        return ACT_PART;
      }
    }
    cr_assert_fail("no edge with a free part");
  }
  return rule;
}

/* Record 0 reaches 300 back on the P and C rings (sources before the first
 * record: time 0), as tg_add_iw does on the E and R rings, so that a
 * solver started from the smallest window grows its rings to hold the
 * farthest sources before they are needed (here also a win-idealized CD
 * edge seen only when win begins to act, IC_WIN_FACTOR * 8 back). */
static void tg_far_first(tg *g) {
  cr_assert(g->n && g->r[0].nedges + 2 <= IC_MAX_EDGES);
  E0(&g->r[0], IC_EDGE_PR, 300);
  E0(&g->r[0], IC_EDGE_CC, 300);
}

/* A random graph of n records (tg_random with IW, FU, IBW, MSHR edges) in
 * which category cats[k] first acts at record at[k] (n or more: never) by
 * rule rules[k]: before it, it acts nowhere. */
static void tg_acts(tg *g, size_t n, uint64_t seed, uint32_t maxlat, const uint8_t *cats,
                    int ncat, const size_t *at, const int *rules) {
  tg_random(g, n, seed, maxlat, 8);
  g->r[0].nedges = 6; /* room for tg_far_first: only the in-order edges */
  tg_add_iw(g, seed, 8, maxlat);
  tg_far_first(g);
  uint64_t x = seed * 0x94D049BB133111EBull + 11;
  for (size_t i = 0; i < n; i++) {
    for (int k = 0; k < ncat; k++)
      if (at[k] >= i) make_inert(&g->r[i], cats[k], &x);
    for (int k = 0; k < ncat; k++)
      if (at[k] == i) make_act(&g->r[i], cats[k], rules[k], &x, maxlat);
  }
  tg_stamp(g);
}

/* Feeds g in random batches of 1..maxbatch records with `threads`
 * threads, the worker on `lanes` lanes, either kernel, from the smallest
 * window, and after about every other batch compares every subset with
 * the reference C time of the last record fed (the reference's node times
 * of every record, one pass per subset) and checks which categories the
 * solver has as inert: those with at[k] past the records fed. Returns the
 * number of activations that came after a rebase, and the stats in *out
 * (if not NULL). */
static int check_acts_need(const tg *g, const uint8_t *cats, int ncat, const size_t *at,
                           uint64_t seed, int threads, int lanes, int generic, size_t maxbatch,
                           const uint8_t *need, ic_solver_stats *out) {
  const uint32_t nsub = 1u << ncat;
  uint64_t *ref = malloc((size_t)nsub * g->n * sizeof *ref);
  uint64_t *nt = malloc(g->n * IC_NODE_COUNT * sizeof *nt);
  cr_assert(ref && nt);
  ic_err err = {{0}};
  for (uint32_t sub = 0; sub < nsub; sub++) {
    ic_catmask m = 0;
    for (int k = 0; k < ncat; k++)
      if (sub & (1u << k)) m |= IC_CATBIT(cats[k]);
    uint64_t t;
    cr_assert_eq(ic_graph_eval(g->r, g->n, m, nt, &t, &err), IC_OK, "%s", err.msg);
    for (size_t i = 0; i < g->n; i++) ref[sub * g->n + i] = nt[i * IC_NODE_COUNT + IC_NODE_C];
  }
  char what[128];
  ic_solver *s = mode_solver(cats, ncat, threads, lanes, generic, seed, what, sizeof what);
  cr_assert_eq(ic_solver_set_subsets(s, need, &err), IC_OK, "%s", err.msg);
  if (need) strcat(what, ", some subsets");
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 13;
  size_t fed = 0;
  int after_rebase = 0;
  ic_solver_stats st;
  while (fed < g->n) {
    size_t b = 1 + tg_rand(&x) % maxbatch;
    if (b > g->n - fed) b = g->n - fed;
    ic_solver_get_stats(s, &st);
    for (int k = 0; k < ncat; k++) after_rebase += st.rebases && at[k] >= fed && at[k] < fed + b;
    cr_assert_eq(ic_solver_feed(s, g->r + fed, b, &err), IC_OK, "%s: %s", what, err.msg);
    fed += b;
    if (fed < g->n && tg_rand(&x) % 2) continue;
    const uint64_t *t = ic_solver_times(s);
    for (uint32_t sub = 0; sub < nsub; sub++)
      cr_assert_eq(t[sub], need && sub && !need[sub] ? 0 : ref[sub * g->n + fed - 1],
                   "%s, %zu records, subset %u: solver %llu reference %llu", what, fed, sub,
                   (unsigned long long)t[sub], (unsigned long long)ref[sub * g->n + fed - 1]);
    ic_solver_get_stats(s, &st);
    for (int k = 0; k < ncat; k++)
      cr_assert_eq(st.inert >> k & 1, at[k] >= fed, "%s, %zu records: category %s %s", what, fed,
                   ic_category_names[cats[k]], at[k] >= fed ? "acted early" : "still inert");
  }
  ic_solver_get_stats(s, &st);
  cr_assert_eq(st.violations, 0, "%s", what);
  cr_assert_eq(st.out_of_window, 0, "%s", what);
  if (out) *out = st;
  ic_solver_destroy(s);
  free(ref);
  free(nt);
  return after_rebase;
}

static int check_acts(const tg *g, const uint8_t *cats, int ncat, const size_t *at,
                      uint64_t seed, int threads, int lanes, int generic, size_t maxbatch,
                      ic_solver_stats *out) {
  return check_acts_need(g, cats, ncat, at, seed, threads, lanes, generic, maxbatch, NULL, out);
}

/* One category at a time begins to act in the middle of the run, by each
 * of its rules, the others from the first record (the usual run: one
 * category with no event for a long while); every kernel, both thread
 * modes, with 8 (the lane with it above the seven others'), 5 and 3
 * categories. */
Test(solver_inert, each_category_by_each_rule) {
  uint64_t seed = 1200;
  static const uint8_t five[] = {IC_CAT_LGALU, IC_CAT_WIN, IC_CAT_IMISS, IC_CAT_DL1, IC_CAT_BMISP};
  static const struct {
    const uint8_t *cats;
    int ncat;
  } ls[] = {{all8, 8}, {five, 5}, {three, 3}};
  for (size_t l = 0; l < sizeof ls / sizeof ls[0]; l++)
    for (int c = 0; c < ls[l].ncat; c++)
      for (int rule = ACT_PART; rule <= ACT_CD; rule++, seed++) {
        const uint8_t cat = ls[l].cats[c];
        if (rule == ACT_CD && cat != IC_CAT_WIN) continue;
        if (rule == ACT_DROP && !(dg_edge_drop_mask(IC_EDGE_IW) & IC_CATBIT(cat))) continue;
        size_t at[8];
        int rules[8];
        uint64_t x = seed;
        for (int k = 0; k < ls[l].ncat; k++) {
          at[k] = k == c ? 20 + tg_rand(&x) % 200 : 0;
          rules[k] = k == c ? rule : (int)(tg_rand(&x) % 3);
        }
        tg g = {0};
        tg_acts(&g, 250, seed, 30, ls[l].cats, ls[l].ncat, at, rules);
        check_acts(&g, ls[l].cats, ls[l].ncat, at, seed, 1 + (int)(seed % 2), -1,
                   (int)(seed / 2 % 2), 24, NULL);
        tg_free(&g);
      }
}

/* Every category starts inert and begins to act at its own point (at the
 * first record, mid-run, mid-batch, near the end, or never), so the lanes
 * are laid out again several times with plans in flight; huge latencies
 * rebase the times (from about record 550 the bases and time 0 differ per
 * lane) before about half the activations; two threads with the worker on
 * all, half or none of the lanes, and one. In the second half one record
 * in eight has only a CBW edge into C once bw acts: where bw is
 * idealized its C is at time 0, which the solver gives as the lane's base
 * plus its offset of time 0 (so both must follow the lanes); the P ring
 * grows at record 800. */
Test(solver_inert, staggered_activations_with_rebases_and_threads) {
  uint64_t seed = 1300;
  int after_rebase = 0;
  for (int rep = 0; rep < 4; rep++, seed++) {
    size_t at[8];
    int rules[8];
    uint64_t x = seed;
    const size_t n = 1200;
    for (int k = 0; k < 8; k++) {
      uint32_t v = tg_rand(&x) % 8;
      at[k] = v == 0 ? 0 : v == 1 ? n : 1 + tg_rand(&x) % (n - 1);
      rules[k] = (int)(tg_rand(&x) % 3);
    }
    tg g = {0};
    tg_acts(&g, n, seed, IC_GRAPH_MAX_EDGE_LAT / 4, all8, 8, at, rules);
    for (size_t i = n / 2; i < n; i++) {
      ic_graph_rec *r = &g.r[i];
      if (i <= at[2] || tg_rand(&x) % 8) continue; /* all8[2]: bw */
      int m = 0;
      for (int k = 0; k < r->nedges; k++)
        if (r->edge[k].kind != IC_EDGE_PC && r->edge[k].kind != IC_EDGE_CC &&
            r->edge[k].kind != IC_EDGE_CBW)
          r->edge[m++] = r->edge[k];
      r->nedges = (uint8_t)m;
      E1(r, IC_EDGE_CBW, 4, 1, NONE);
    }
    /* a ring growth mid-run, with rows of the lanes evaluated so far: a PR
     * edge from before the first record (time 0) at record 800 */
    cr_assert(edge_room(&g.r[800]));
    E0(&g.r[800], IC_EDGE_PR, 900);
    tg_stamp(&g);
    static const int lanes[] = {-1, 128, 0};
    ic_solver_stats st;
    after_rebase += check_acts(&g, all8, 8, at, seed, 2, lanes[rep % 3], rep % 2, 24, &st);
    cr_assert_eq(st.window, 1024);
    after_rebase += check_acts(&g, all8, 8, at, seed + 50, 1, -1, (rep + 1) % 2, 24, &st);
    tg_free(&g);
  }
  cr_assert_gt(after_rebase, 10);
}

/* A loop of repeated records (memo hits) in which categories begin to act
 * late (made inert the same way in every instance of a pc, so the memo
 * still hits): the memo's plans of the old layout must not be taken. */
Test(solver_inert, memo_across_activations) {
  tg g = {0};
  tg_loop(&g, 1500, 1400, 40, 3, 0);
  g.r[0].nedges = 6;
  E1(&g.r[0], IC_EDGE_IW, 300, 1, IC_CAT_BW);
  tg_far_first(&g);
  for (size_t i = 0; i < g.n; i++) /* the same IW edges per pc, distances apart */
    if (g.r[i].nedges < IC_MAX_EDGES)
      E1(&g.r[i], IC_EDGE_IW, 1 + (uint32_t)(i % 7) % 3 + (uint32_t)(i / 7 % 2), 1, IC_CAT_BW);
  static const size_t at[] = {0, 401, 0, 703, 1102, 0, 1496, 1500};
  /* a category acts late only in the records of one pc (k % 7), so the
   * other pcs' records repeat their instances from before it acted */
  for (size_t i = 0; i < g.n; i++)
    for (int k = 0; k < 8; k++) {
      uint64_t x = 1400 + i % 7;
      if (at[k] >= i || (at[k] && i % 7 != (size_t)k % 7)) make_inert(&g.r[i], all8[k], &x);
      if (at[k] == i) make_act(&g.r[i], all8[k], (int)(i % 3), &x, 20);
    }
  tg_stamp(&g);
  for (int threads = 1; threads <= 2; threads++) {
    ic_solver_stats st;
    check_acts(&g, all8, 8, at, 1400, threads, -1, 0, 64, &st);
    cr_assert_gt(st.memo_hits, g.n / 3, "%llu memo hits", (unsigned long long)st.memo_hits);
    cr_assert_eq(st.relabels, 5);
  }
  tg_free(&g);
}

/* The memo takes a record for an earlier one of its pc when the distances
 * of its PR, PP, FU, IBW, MSHR and IW edges differ (the producer, the
 * earlier miss, the issue order change between instances), looking each
 * source up by the record's own distance; a distance past a ring's window
 * (the ring must grow first) or 0 (malformed) is not taken. A loop whose
 * instances draw those distances anew, in both thread modes and kernels,
 * from a 512-instruction window (tg_far_first); at record j ~ 900 an
 * instance repeats its pc's previous one but for a PR distance of 1000
 * (before the first record: time 0): the P ring must grow there, as from
 * record 1000 on distances reach 600 back (sources from record 400 on,
 * which a growth at j keeps; if the memo took j, the ring would grow only
 * at the first such edge and lose its source: out of window). */
Test(solver, memo_ignores_data_dependent_distances) {
  tg g = {0};
  tg_loop(&g, 2000, 1500, 40, 5, 0);
  g.r[0].nedges = 6;
  tg_far_first(&g);
  uint64_t x = 1500;
  for (size_t i = 1; i < g.n; i++) {
    ic_graph_rec *r = &g.r[i];
    if (i % 7 == 3 && r->nedges + 2 <= IC_MAX_EDGES) { /* one pc: FU and MSHR as well */
      E0(r, IC_EDGE_FU, 1);
      E1(r, IC_EDGE_MSHR, 2, 1, NONE);
    }
    if (i % 7 == 5 && r->nedges < IC_MAX_EDGES) E0(r, IC_EDGE_IBW, 3);
    for (int k = 0; k < r->nedges; k++) {
      ic_edge *e = &r->edge[k];
      const int var = e->kind == IC_EDGE_PR || e->kind == IC_EDGE_PP || e->kind == IC_EDGE_FU ||
                      e->kind == IC_EDGE_IBW || e->kind == IC_EDGE_MSHR;
      if (var) e->dist = 1 + tg_rand(&x) % (i >= 1000 && tg_rand(&x) % 50 == 0 ? 600 : 60);
    }
  }
  size_t j = 900;
  int pr = -1;
  for (; j < 950 && pr < 0; j++)
    for (int k = 0; k < g.r[j].nedges; k++)
      if (g.r[j].edge[k].kind == IC_EDGE_PR) pr = k;
  j--;
  cr_assert_geq(pr, 0, "a record with a PR edge near 900");
  memcpy(g.r[j].edge, g.r[j - 7].edge, sizeof g.r[j].edge);
  g.r[j].edge[pr].dist = 1000;
  tg_stamp(&g);
  for (int threads = 1; threads <= 2; threads++) {
    ic_solver_stats st = check_mode(&g, 1500, all8, 8, threads, -1, threads & 1, 64);
    cr_assert_gt(st.memo_hits, g.n / 2, "%llu memo hits", (unsigned long long)st.memo_hits);
    cr_assert_eq(st.window, 1024, "window %llu", (unsigned long long)st.window);
    cr_assert_eq(st.out_of_window, 0, "%llu out of window, %d threads",
                 (unsigned long long)st.out_of_window, threads);
    st = check_mode(&g, 1501, three, 3, threads, -1, ~threads & 1, 64);
    cr_assert_gt(st.memo_hits, g.n / 2, "%llu memo hits", (unsigned long long)st.memo_hits);
    cr_assert_eq(st.out_of_window, 0);
  }
  /* an instance with a PR distance of 0 is malformed, memo or not */
  ic_solver *s = NULL;
  ic_err err = {{0}};
  cr_assert_eq(ic_solver_create(&s, all8, 8, &err), IC_OK);
  cr_assert_eq(ic_solver_feed(s, g.r, j, &err), IC_OK, "%s", err.msg);
  ic_graph_rec bad = g.r[j];
  memcpy(bad.edge, g.r[j - 7].edge, sizeof bad.edge);
  bad.edge[pr].dist = 0;
  cr_assert_eq(ic_solver_feed(s, &bad, 1, &err), IC_EINPUT);
  ic_solver_destroy(s);
  tg_free(&g);
}

/* A pc whose records come in a few variants (the model's DD edge with or
 * without a stall residual, an IW edge or not) finds each in its memo set
 * (4 ways): a loop of 7 pcs, each instance one of 3 random variants of its
 * pc, hits the memo but for the first sight of each variant (and after
 * the lanes are laid out again). */
Test(solver, memo_keeps_variants_of_a_pc) {
  tg tmpl = {0};
  tg_random(&tmpl, 21, 1600, 30, 8);
  tg g = {0};
  uint64_t x = 1600;
  for (size_t i = 0; i < 3000; i++) {
    ic_graph_rec *r = tg_inst(&g);
    const ic_graph_rec *t = &tmpl.r[(i % 7) * 3 + tg_rand(&x) % 3];
    r->pc = 0x20000 + 4 * (i % 7);
    r->nedges = t->nedges;
    memcpy(r->edge, t->edge, sizeof r->edge);
  }
  tg_free(&tmpl);
  g.r[0].nedges = 6;
  tg_far_first(&g);
  tg_stamp(&g);
  for (int threads = 1; threads <= 2; threads++) {
    ic_solver_stats st = check_mode(&g, 1600, all8, 8, threads, -1, threads & 1, 64);
    cr_assert_gt(st.memo_hits, g.n - g.n / 20, "%llu memo hits", (unsigned long long)st.memo_hits);
  }
  tg_free(&g);
}

/* ---- sparse lanes (ic_solver_set_subsets) ----------------------------- */

/* Only some subsets solved: the ones a breakdown shows (the singletons,
 * the pairs with the first category, all; with the first category low or
 * high in the lane layout) and random sets, on graphs whose categories
 * begin to act one by one (the lanes laid out again with plans in flight)
 * with huge latencies (rebases), in both thread modes with the worker on
 * all, half, every other block or none of the lanes, and every kernel:
 * each needed subset equals the reference, each other one reads 0. */
Test(solver_sparse, needed_subsets_equal_the_reference) {
  static const uint8_t win_first[] = {IC_CAT_WIN,   IC_CAT_DL1,   IC_CAT_BW,    IC_CAT_BMISP,
                                      IC_CAT_DMISS, IC_CAT_SHALU, IC_CAT_LGALU, IC_CAT_IMISS};
  static const int lanes[] = {-1, 128, IC_SOLVER_SPLIT_BLOCKS, 0};
  uint64_t seed = 1700;
  for (int rep = 0; rep < 6; rep++, seed++) {
    const uint8_t *cats = rep % 2 ? win_first : all8;
    size_t at[8];
    int rules[8];
    uint64_t x = seed;
    const size_t n = 900;
    for (int k = 0; k < 8; k++) {
      uint32_t v = tg_rand(&x) % 6;
      at[k] = v == 0 ? 0 : v == 1 ? n : 1 + tg_rand(&x) % (n - 1);
      rules[k] = (int)(tg_rand(&x) % 3);
    }
    tg g = {0};
    tg_acts(&g, n, seed, rep < 3 ? 30 : IC_GRAPH_MAX_EDGE_LAT / 4, cats, 8, at, rules);
    uint8_t need[256];
    if (rep < 3) {
      cr_assert_eq(ic_breakdown_needed(8, 0, need), 17);
    } else {
      for (int k = 0; k < 256; k++) need[k] = tg_rand(&x) % 8 == 0;
    }
    ic_solver_stats st;
    check_acts_need(&g, cats, 8, at, seed, 2, lanes[rep % 4], rep % 2, 24, need, &st);
    cr_assert_eq(st.violations, 0);
    check_acts_need(&g, cats, 8, at, seed + 50, 1, -1, (rep + 1) % 2, 24, need, &st);
    tg_free(&g);
  }
}

/* The subsets are set before the first record (after a reset again), and
 * kept across resets. */
Test(solver_sparse, set_before_the_first_record) {
  tg g = {0};
  tg_random(&g, 300, 1800, 30, 8);
  tg_stamp(&g);
  ic_solver *s = NULL;
  ic_err err = {{0}};
  cr_assert_eq(ic_solver_create(&s, all8, 8, &err), IC_OK, "%s", err.msg);
  uint8_t need[256];
  ic_breakdown_needed(8, 0, need);
  cr_assert_eq(ic_solver_set_subsets(s, need, &err), IC_OK, "%s", err.msg);
  cr_assert_eq(ic_solver_feed(s, g.r, g.n, &err), IC_OK, "%s", err.msg);
  cr_assert_eq(ic_solver_set_subsets(s, NULL, &err), IC_EINPUT);
  cr_assert(strstr(err.msg, "before the first record"), "%s", err.msg);
  ic_solver_reset(s);
  cr_assert_eq(ic_solver_feed(s, g.r, g.n, &err), IC_OK, "%s", err.msg);
  const uint64_t *t = ic_solver_times(s);
  for (uint32_t sub = 0; sub < 256; sub++) {
    const uint64_t ref = need[sub] ? ref_prefix(&g, g.n, ic_solver_subset_catmask(s, sub)) : 0;
    cr_assert_eq(t[sub], ref, "subset %u: solver %llu, expected %llu", sub,
                 (unsigned long long)t[sub], (unsigned long long)ref);
  }
  ic_solver_reset(s);
  cr_assert_eq(ic_solver_set_subsets(s, NULL, &err), IC_OK, "%s", err.msg);
  cr_assert_eq(ic_solver_feed(s, g.r, g.n, &err), IC_OK, "%s", err.msg);
  assert_all_subsets(s, &g, g.n, 8, "all subsets again");
  ic_solver_destroy(s);
  tg_free(&g);
}

/* The MSHR rule and the slot rule on one E hold together (model/rules.h):
 * Z issues at 9, the miss X holds the one MSHR over [10, 20), and the miss
 * Y, ready at 9 with one issue slot a cycle, finds the MSHR free at 9 but
 * no slot before 11; at 11 X holds the MSHR, so Y waits for it (20), where
 * a slot is free. Applied once each (MSHR, then slots), Y issued at 11
 * while X held the MSHR. The reference pass, the solver (AVX2 and
 * portable) and the stitcher's rules agree. */
/* The IQ rule counts the records before i that have it (graph_rec.h, IQ
 * RULE): records without it, mixed in, neither take part nor clear what
 * the rule has counted, in the reference pass as in the solver. */
Test(solver_rules, iq_rule_passes_over_records_without_it) {
  static const uint8_t cats[] = {IC_CAT_DL1, IC_CAT_WIN, IC_CAT_BW, IC_CAT_SHALU};
  for (uint64_t seed = 41; seed < 44; seed++) {
    tg g = {0};
    tg_random(&g, 300, seed, 30, 8);
    for (size_t i = 0; i < g.n; i++) g.r[i].iq = i % 3 == 1 ? 0 : 2;
    tg_stamp(&g);
    assert_subsets_exact(&g, cats, 4);
    tg_free(&g);
  }
}

Test(solver_rules, mshr_and_slot_rules_hold_together) {
  tg g = {0};
  ic_graph_rec *z = tg_inst(&g);
  E1(z, IC_EDGE_RE, 0, 9, NONE);
  E1(z, IC_EDGE_EP, 0, 1, NONE);
  E1(z, IC_EDGE_PC, 0, 1, NONE);
  for (int k = 0; k < 2; k++) {
    ic_graph_rec *r = tg_inst(&g);
    r->opclass = IC_OP_LOAD;
    E0(r, IC_EDGE_DD, 1);
    E1(r, IC_EDGE_RE, 0, k ? 9 : 10, NONE);
    r->mshr_k = 1;
    if (k) r->slot_w = 1;
    E1(r, IC_EDGE_EP, 0, 10, IC_CAT_DMISS);
    E1(r, IC_EDGE_PC, 0, 1, NONE);
    E0(r, IC_EDGE_CC, 1);
  }
  tg_stamp(&g);
  cr_assert_eq(g.r[1].t[IC_NODE_E], 10);
  cr_assert_eq(g.r[1].t[IC_NODE_P], 20);
  cr_assert_eq(g.r[2].t[IC_NODE_E], 20, "Y issued at %llu",
               (unsigned long long)g.r[2].t[IC_NODE_E]);
  const uint8_t cats[2] = {IC_CAT_DL1, IC_CAT_WIN};
  for (int generic = 0; generic < T_KERNELS; generic++) {
    uint64_t t[4];
    ic_solver_stats st;
    tg_solve_k(&g, cats, 2, t, &st, generic);
    cr_assert_eq(st.violations, 0);
    for (int s = 0; s < 4; s++) {
      ic_catmask m = 0;
      for (int k = 0; k < 2; k++)
        if (s & (1 << k)) m |= IC_CATBIT(cats[k]);
      cr_assert_eq(t[s], tg_ref(&g, m), "subset %d, generic %d", s, generic);
    }
    cr_assert_eq(t[0], 31);
  }
  tg_free(&g);
}

/* Both rules on one E (model/rules.h) in every thread mode and lane split:
 * one issue a cycle and one MSHR, a third of the records holding it. */
Test(solver_threads, mshr_and_slot_rules_in_every_mode) {
  uint64_t seed = 500;
  const int np = 256;
  const int modes[][2] = {{1, -1}, {2, np / 2}, {2, np - 32}, {2, IC_SOLVER_SPLIT_BLOCKS}, {2, -1}};
  for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++, seed++) {
    tg g = {0};
    tg_random(&g, 600, seed, 40, 8);
    for (size_t i = 1; i < g.n; i++) {
      ic_graph_rec *r = &g.r[i];
      r->slot_w = 1;
      if (i % 3 == 0) r->mshr_k = 1;
    }
    tg_stamp(&g);
    check_mode(&g, seed, all8, 8, modes[m][0], modes[m][1], (int)(seed & 1), 40);
    tg_free(&g);
  }
}
