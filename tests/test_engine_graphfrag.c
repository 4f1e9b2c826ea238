/* test_engine_graphfrag.c: the fragment methods' warm-up: with W > 0 each
 * window's t(S) is the commit time of its last instruction minus that of its
 * W-th, both under S, and the cycles are scaled by the counted instructions
 * (L - W per window). The reference is the plain one-subset pass
 * (ic_graph_eval) on each window and on its first W records, independent of
 * the streaming solver the sampler uses; the lead before the first block is
 * a window of its own, counted whole. Also: the default warm-up rule and
 * the input checks. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "categories.h"
#include "graphfrag.h"
#include "test_engine_graph_util.h"

static const uint8_t cats3[3] = {IC_CAT_DMISS, IC_CAT_WIN, IC_CAT_BW};

static ic_catmask mask_of(int s) {
  ic_catmask m = 0;
  for (int k = 0; k < 3; k++)
    if (s & (1 << k)) m |= IC_CATBIT(cats3[k]);
  return m;
}

/* Adds to t[S] the window [s0, s0 + len) solved alone, from its W-th
   record on (whole where warm = 0); returns its counted instructions. */
static uint64_t add_window(const tg *g, uint64_t s0, uint64_t len, uint64_t warm, double *t) {
  for (int s = 0; s < 8; s++) {
    uint64_t tw = 0, tp = 0;
    ic_err err = {{0}};
    cr_assert_eq(ic_graph_eval(g->r + s0, len, mask_of(s), NULL, &tw, &err), IC_OK, "%s",
                 err.msg);
    if (warm)
      cr_assert_eq(ic_graph_eval(g->r + s0, warm, mask_of(s), NULL, &tp, &err), IC_OK, "%s",
                   err.msg);
    t[s] += (double)tw - (double)tp;
  }
  return len - warm;
}

/* Reference t(S) summed over the lead [0, off) (whole: the run starts
   there), the complete windows [off + bL, off + (b+1)L), each counted
   from its W-th record on, and the rest of the run after them (from its
   W-th record where it has more than W, else whole); *counted gets their
   counted instructions. */
static uint64_t reference(const tg *g, uint64_t off, uint64_t len, uint64_t warm, double *t,
                          uint64_t *counted) {
  uint64_t nwin = 0;
  memset(t, 0, 8 * sizeof *t);
  *counted = 0;
  if (off > 0) {
    *counted += add_window(g, 0, off, 0, t);
    nwin++;
  }
  for (uint64_t s0 = off; s0 + len <= g->n; s0 += len) {
    *counted += add_window(g, s0, len, warm, t);
    nwin++;
  }
  /* the block the run ends in, with the instructions it has: its warm-up
     where it is longer than that, else none */
  const uint64_t s0 = g->n < off ? g->n : off + (g->n - off) / len * len;
  if (s0 < g->n) {
    const uint64_t p = g->n - s0;
    *counted += add_window(g, s0, p, warm && p > warm ? warm : 0, t);
    nwin++;
  }
  return nwin;
}

Test(graphfrag_warmup, windows_counted_after_the_warmup) {
  tg g = {0};
  tg_random(&g, 2500, 17, 9, 16);
  tg_stamp(&g);
  const uint64_t len = 120;
  const uint64_t warms[3] = {0, 1, 45};
  /* two run lengths (set from the offset): the last block of 100
     instructions, longer than the largest warm-up, and one of 10 (solved
     whole under W = 45) */
  size_t ns[2] = {0, 0};
  for (int r = 0; r < 2; r++) {
    double with0[8] = {0};
    for (int w = 0; w < 3; w++) {
      ic_graphfrag_opts o = {.cats = cats3, .ncat = 3, .length = len, .fragments = 1000,
                             .warmup = warms[w], .seed = 3, .bootstrap = -1};
      ic_graphfrag *gf;
      ic_err err;
      cr_assert_eq(ic_graphfrag_create(&gf, &o, &err), IC_OK, "%s", err.msg);
      const uint64_t off = ic_graphfrag_offset(gf);
      cr_assert_gt(off, 0, "seed 3 draws a lead");
      if (!ns[0]) ns[0] = off + 18 * len + 100, ns[1] = off + 15 * len + 10;
      const size_t n = ns[r];
      ic_graph_sink sink = ic_graphfrag_sink(gf);
      for (size_t i = 0; i < n; i += 77) {
        size_t b = n - i < 77 ? n - i : 77;
        cr_assert_eq(sink.consume(sink.ctx, g.r + i, b, &err), IC_OK, "%s", err.msg);
      }
      ic_breakdown b;
      cr_assert_eq(ic_graphfrag_result(gf, &b, &err), IC_OK, "%s", err.msg);
      double t[8];
      uint64_t counted;
      const tg part = {.r = g.r, .n = n};
      uint64_t nwin = reference(&part, off, len, warms[w], t, &counted);
      cr_assert_eq(nwin, ic_graphfrag_windows(gf));
      cr_assert_gt(t[0], 0);
      /* total = T({}) * n / (the windows' counted instructions) */
      double scale = (double)n / (double)counted;
      cr_assert_float_eq(b.total, t[0] * scale, 1e-6, "n %zu warm-up %llu", n,
                         (unsigned long long)warms[w]);
      for (int s = 1; s < 8; s++) cr_assert_float_eq(b.cost[s], (t[0] - t[s]) * scale, 1e-6);
      if (w == 0) memcpy(with0, t, sizeof with0);
      else cr_assert(t[0] < with0[0], "the warm-up is not counted");
      ic_breakdown_free(&b);
      ic_graphfrag_destroy(gf);
    }
  }
  tg_free(&g);
}

/* With need, the windows solve only those subsets: their costs are the
 * reference's, the others' NAN. */
Test(graphfrag_need, only_the_needed_subsets) {
  tg g = {0};
  const size_t n = 2000;
  tg_random(&g, n, 23, 9, 16);
  tg_stamp(&g);
  const uint8_t need[8] = {1, 0, 1, 0, 0, 1, 0, 0};
  ic_graphfrag_opts o = {.cats = cats3, .ncat = 3, .length = 150, .fragments = 1000,
                         .warmup = 20, .seed = 5, .bootstrap = 50, .need = need};
  ic_graphfrag *gf;
  ic_err err;
  cr_assert_eq(ic_graphfrag_create(&gf, &o, &err), IC_OK, "%s", err.msg);
  ic_graph_sink sink = ic_graphfrag_sink(gf);
  cr_assert_eq(sink.consume(sink.ctx, g.r, n, &err), IC_OK, "%s", err.msg);
  ic_breakdown b;
  cr_assert_eq(ic_graphfrag_result(gf, &b, &err), IC_OK, "%s", err.msg);
  double t[8];
  uint64_t counted;
  reference(&g, ic_graphfrag_offset(gf), 150, 20, t, &counted);
  double scale = (double)n / (double)counted;
  cr_assert_float_eq(b.total, t[0] * scale, 1e-6);
  for (int s = 1; s < 8; s++) {
    if (need[s])
      cr_assert_float_eq(b.cost[s], (t[0] - t[s]) * scale, 1e-6, "subset %d", s);
    else
      cr_assert(isnan(b.cost[s]), "subset %d: %g", s, b.cost[s]);
  }
  cr_assert(!isnan(b.lo[2]) && b.lo[2] <= b.hi[2], "{win}'s interval");
  ic_breakdown_free(&b);
  ic_graphfrag_destroy(gf);
  tg_free(&g);
}

/* The default fragment length: 3 windows of win (IC_WIN_FACTOR ROBs each),
 * at least the profiler's 2000, at most a sample file's 1000000. */
Test(graphfrag_length, default_rule) {
  cr_assert_eq(ic_fragment_length_for(64), IC_FRAG_LENGTH_WINDOWS * IC_WIN_FACTOR * 64);
  cr_assert_eq(ic_fragment_length_for(64), 3840);
  cr_assert_eq(ic_fragment_length_for(256), 15360);
  cr_assert_eq(ic_fragment_length_for(16), IC_GRAPHFRAG_DEFAULT_LEN);
  cr_assert_eq(ic_fragment_length_for(0), IC_GRAPHFRAG_DEFAULT_LEN);
  cr_assert_eq(ic_fragment_length_for(100000), 1000000);
  cr_assert_eq(ic_fragment_length_for(UINT32_MAX), 1000000);
}

Test(graphfrag_warmup, default_rule_and_bad_input) {
  cr_assert_eq(ic_fragment_warmup_for(64, 2000), IC_FRAG_WARMUP_ROBS * 64);
  cr_assert_eq(ic_fragment_warmup_for(64, 0), IC_FRAG_WARMUP_ROBS * 64);
  cr_assert_eq(ic_fragment_warmup_for(1000, 2000), 1000); /* at most half */
  cr_assert_eq(ic_fragment_warmup_for(64, 100), 50);
  ic_graphfrag_opts o = {.cats = cats3, .ncat = 3, .length = 100, .warmup = 100};
  ic_graphfrag *gf;
  ic_err err;
  cr_assert_eq(ic_graphfrag_create(&gf, &o, &err), IC_EINPUT);
  cr_assert(strstr(err.msg, "warm-up") != NULL, "%s", err.msg);
}
