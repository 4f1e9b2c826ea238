/* test_multisim.c: the multisim driver and the graphfrag sampler on inputs
 * whose answers are known: a synthetic "model" whose cycle count is a
 * formula of the idealized set, and random graphs whose windows are solved
 * independently by the one-subset reference pass (graph.h). */
#include <criterion/criterion.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "multisim.h"
#include "validate.h"

/* ---- multisim on a formula ---- */

typedef struct fake_model {
  pthread_mutex_t lock;
  int calls[1 << 8]; /* per ideal catmask (over ic_category ids, low 8 bits) */
  ic_catmask fail_when; /* fail a run whose ideal contains all of these (0: never) */
  int odd_insns;        /* the bmisp-idealized runs time one instruction more */
} fake_model;

/* t = 1000 - 300 dl1 - 200 win + 100 dl1*win - 50 bmisp: dl1 and win in
   series (icost -100), bmisp independent. */
static uint64_t fake_cycles(ic_catmask m) {
  int dl1 = !!(m & IC_CATBIT(IC_CAT_DL1)), win = !!(m & IC_CATBIT(IC_CAT_WIN)),
      bmisp = !!(m & IC_CATBIT(IC_CAT_BMISP));
  return (uint64_t)(1000 - 300 * dl1 - 200 * win + 100 * dl1 * win - 50 * bmisp);
}

static ic_status fake_run(void *ctx, ic_catmask ideal, const ic_graph_sink *sink, uint64_t *cycles,
                          uint64_t *insns, ic_err *err) {
  fake_model *f = ctx;
  cr_assert_null(sink);
  pthread_mutex_lock(&f->lock);
  f->calls[ideal & 0xff]++;
  pthread_mutex_unlock(&f->lock);
  if (f->fail_when && (ideal & f->fail_when) == f->fail_when)
    return ic_fail(err, IC_ERUN, "guest fault at pc 0x1234: illegal instruction");
  *cycles = fake_cycles(ideal);
  *insns = 500 + (f->odd_insns && (ideal & IC_CATBIT(IC_CAT_BMISP)));
  return IC_OK;
}

static const uint8_t cats3[3] = {IC_CAT_DL1, IC_CAT_WIN, IC_CAT_BMISP};

/* The category mask of subset s of cats3. */
static ic_catmask mask3(int s) {
  ic_catmask m = 0;
  for (int k = 0; k < 3; k++)
    if (s & (1 << k)) m |= IC_CATBIT(cats3[k]);
  return m;
}

static void progress_count(void *ctx, int done, int total) {
  int *p = ctx;
  cr_assert_eq(total, 8);
  cr_assert_eq(done, *p + 1, "progress is serialized and counts up");
  *p = done;
}

Test(multisim, times_from_every_subset) {
  for (int jobs = 1; jobs <= 5; jobs += 4) {
    fake_model f = {.lock = PTHREAD_MUTEX_INITIALIZER};
    int prog = 0;
    ic_multisim_opts o = {.cats = cats3, .ncat = 3, .run = fake_run, .run_ctx = &f, .jobs = jobs,
                          .progress = progress_count, .progress_ctx = &prog};
    double t[8];
    ic_err err;
    cr_assert_eq(ic_multisim_times(&o, t, &err), IC_OK, "%s", err.msg);
    for (int s = 0; s < 8; s++) {
      const ic_catmask m = mask3(s);
      cr_assert_eq(t[s], (double)fake_cycles(m));
      cr_assert_eq(f.calls[m], 1, "each subset runs exactly once");
    }
    cr_assert_eq(prog, 8);
  }
}

/* With need, only the needed subsets run ({} always), the others' t are
 * NAN, and the progress counts the runs made. */
static void progress_total2(void *ctx, int done, int total) {
  int *p = ctx;
  cr_assert_eq(total, 3);
  *p = done;
}

Test(multisim, only_the_needed_subsets_run) {
  fake_model f = {.lock = PTHREAD_MUTEX_INITIALIZER};
  int prog = 0;
  const uint8_t need[8] = {0, 1, 0, 0, 0, 0, 0, 1}; /* {dl1}, all; {} implied */
  ic_multisim_opts o = {.cats = cats3, .ncat = 3, .run = fake_run, .run_ctx = &f, .jobs = 2,
                        .progress = progress_total2, .progress_ctx = &prog, .need = need};
  double t[8];
  ic_err err;
  cr_assert_eq(ic_multisim_times(&o, t, &err), IC_OK, "%s", err.msg);
  for (int s = 0; s < 8; s++) {
    const ic_catmask m = mask3(s);
    if (s == 0 || need[s]) {
      cr_assert_eq(t[s], (double)fake_cycles(m));
      cr_assert_eq(f.calls[m], 1);
    } else {
      cr_assert(isnan(t[s]), "subset %d: %g", s, t[s]);
      cr_assert_eq(f.calls[m], 0, "subset %d ran", s);
    }
  }
  cr_assert_eq(prog, 3);
}

Test(multisim, breakdown_by_hand) {
  fake_model f = {.lock = PTHREAD_MUTEX_INITIALIZER};
  ic_multisim_opts o = {.cats = cats3, .ncat = 3, .run = fake_run, .run_ctx = &f, .jobs = 2};
  ic_breakdown b;
  ic_err err;
  cr_assert_eq(ic_multisim_run(&o, &b, &err), IC_OK, "%s", err.msg);
  cr_assert_float_eq(b.total, 1000, 1e-9);
  cr_assert_float_eq(b.icost[1], 300, 1e-9);  /* dl1 */
  cr_assert_float_eq(b.icost[2], 200, 1e-9);  /* win */
  cr_assert_float_eq(b.icost[3], -100, 1e-9); /* dl1+win: serial */
  cr_assert_float_eq(b.icost[4], 50, 1e-9);   /* bmisp */
  cr_assert_float_eq(b.icost[5], 0, 1e-9);
  cr_assert_float_eq(b.icost[6], 0, 1e-9);
  cr_assert_float_eq(b.icost[7], 0, 1e-9);
  ic_breakdown_free(&b);
}

Test(multisim, failed_run_names_its_subset) {
  for (int jobs = 1; jobs <= 4; jobs += 3) {
    fake_model f = {.lock = PTHREAD_MUTEX_INITIALIZER,
                    .fail_when = IC_CATBIT(IC_CAT_WIN) | IC_CATBIT(IC_CAT_BMISP)};
    ic_multisim_opts o = {.cats = cats3, .ncat = 3, .run = fake_run, .run_ctx = &f, .jobs = jobs};
    ic_breakdown b;
    ic_err err;
    cr_assert_eq(ic_multisim_run(&o, &b, &err), IC_ERUN);
    /* {win,bmisp} (mask 6) is the lowest failing subset; {dl1,win,bmisp}
       (mask 7) fails too when it ran */
    cr_assert_str_eq(err.msg,
                     "multisim run {win,bmisp}: guest fault at pc 0x1234: illegal instruction");
    cr_assert_null(b.icost, "no partial breakdown");
  }
}

Test(multisim, runs_must_time_the_same_interval) {
  fake_model f = {.lock = PTHREAD_MUTEX_INITIALIZER, .odd_insns = 1};
  ic_multisim_opts o = {.cats = cats3, .ncat = 3, .run = fake_run, .run_ctx = &f, .jobs = 1};
  double t[8];
  ic_err err;
  cr_assert_eq(ic_multisim_times(&o, t, &err), IC_ERUN);
  cr_assert(strstr(err.msg, "multisim run {bmisp}: timed 501 instructions, the baseline run 500"),
            "%s", err.msg);
}

Test(multisim, bad_options) {
  fake_model f = {.lock = PTHREAD_MUTEX_INITIALIZER};
  ic_multisim_opts o = {.cats = cats3, .ncat = 0, .run = fake_run, .run_ctx = &f};
  double t[8];
  ic_err err;
  cr_assert_eq(ic_multisim_times(&o, t, &err), IC_EINPUT);
  o.ncat = 13;
  cr_assert_eq(ic_multisim_times(&o, t, &err), IC_EINPUT);
  uint8_t bad[1] = {IC_CAT_IDS}; /* ids below it are base or scoped categories */
  o.cats = bad;
  o.ncat = 1;
  cr_assert_eq(ic_multisim_times(&o, t, &err), IC_EINPUT);
  cr_assert_gt(ic_multisim_jobs(0), 0);
  cr_assert_eq(ic_multisim_jobs(3), 3);
}

/* ---- graphfrag on random graphs ---- */

static uint64_t rng_state;
static uint32_t rnd(uint32_t n) {
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(rng_state >> 33) % n;
}

static const uint8_t gcats[3] = {IC_CAT_DL1, IC_CAT_DMISS, IC_CAT_BMISP};

static void add_edge(ic_graph_rec *r, uint8_t kind, uint32_t dist, uint32_t lat, uint8_t cat) {
  ic_edge *e = &r->edge[r->nedges++];
  memset(e, 0, sizeof *e);
  e->kind = kind;
  e->dist = dist;
  e->nparts = 1;
  e->part[0].cycles = lat;
  e->part[0].cat = cat;
}

/* A random but well-formed graph: in-order D and C chains, register
   dependences up to 8 back, execution latencies tagged dl1/dmiss, now and
   then a mispredict edge (PD, dropped by bmisp). Stamps from the reference
   pass, so the records keep the model's promise. */
static ic_graph_rec *random_graph(size_t n, uint64_t seed) {
  rng_state = seed;
  ic_graph_rec *recs = calloc(n, sizeof *recs);
  for (size_t i = 0; i < n; i++) {
    ic_graph_rec *r = &recs[i];
    r->seq = i;
    r->pc = 0x1000 + 4 * (i % 64);
    add_edge(r, IC_EDGE_DD, 1, rnd(2), IC_CAT_NONE);
    if (rnd(10) == 0) add_edge(r, IC_EDGE_PD, 1, 5 + rnd(10), IC_CAT_NONE);
    add_edge(r, IC_EDGE_DR, 0, 0, IC_CAT_NONE);
    uint32_t back = 1 + rnd(8);
    if (back <= i) add_edge(r, IC_EDGE_PR, back, 0, IC_CAT_NONE);
    add_edge(r, IC_EDGE_RE, 0, rnd(2), IC_CAT_NONE);
    ic_edge *ep = &r->edge[r->nedges];
    add_edge(r, IC_EDGE_EP, 0, 1 + rnd(2), IC_CAT_DL1);
    if (rnd(8) == 0) {
      ep->part[1].cycles = 20 + rnd(80);
      ep->part[1].cat = IC_CAT_DMISS;
      ep->nparts = 2;
    }
    add_edge(r, IC_EDGE_PC, 0, 1, IC_CAT_NONE);
    add_edge(r, IC_EDGE_CC, 1, 0, IC_CAT_NONE);
  }
  uint64_t *node_t = malloc(n * IC_NODE_COUNT * sizeof *node_t), tl;
  ic_err err;
  cr_assert_eq(ic_graph_eval(recs, n, 0, node_t, &tl, &err), IC_OK, "%s", err.msg);
  for (size_t i = 0; i < n; i++)
    for (int k = 0; k < IC_NODE_COUNT; k++) recs[i].t[k] = node_t[i * IC_NODE_COUNT + k];
  free(node_t);
  return recs;
}

/* Feeds recs in random batch sizes. */
static ic_status feed_batches(ic_graph_sink sink, const ic_graph_rec *recs, size_t n,
                              uint64_t seed, ic_err *err) {
  rng_state = seed;
  for (size_t i = 0; i < n;) {
    size_t b = 1 + rnd(300);
    if (b > n - i) b = n - i;
    ic_status st = sink.consume(sink.ctx, recs + i, b, err);
    if (st != IC_OK) return st;
    i += b;
  }
  return IC_OK;
}

/* Percent of icost(mask) over the lead [0, off) and the windows
   [off + bL, off + (b+1)L) (the last cut at n), by the reference pass on
   each window. */
static void reference_pct(const ic_graph_rec *recs, size_t n, uint64_t off, uint64_t len,
                          double *pct, uint64_t *nwin, double *t0) {
  double t[8] = {0};
  *nwin = 0;
  /* the lead [0, off), then the blocks, the last with what it has */
  for (uint64_t s0 = 0; s0 < n; s0 = s0 < off ? off : s0 + len) {
    uint64_t l = s0 < off ? off : len;
    if (s0 + l > n) l = n - s0;
    for (int s = 0; s < 8; s++) {
      ic_catmask m = 0;
      for (int k = 0; k < 3; k++)
        if (s & (1 << k)) m |= IC_CATBIT(gcats[k]);
      uint64_t tw;
      ic_err err;
      cr_assert_eq(ic_graph_eval(recs + s0, l, m, NULL, &tw, &err), IC_OK);
      t[s] += (double)tw;
    }
    (*nwin)++;
  }
  for (int s = 0; s < 8; s++) pct[s] = t[0] - t[s];
  for (int k = 0; k < 3; k++)
    for (int s = 0; s < 8; s++)
      if (s & (1 << k)) pct[s] -= pct[s ^ (1 << k)];
  for (int s = 1; s < 8; s++) pct[s] = 100 * pct[s] / t[0];
  pct[0] = 100 * t[7] / t[0];
  *t0 = t[0];
}

Test(graphfrag, every_window_equals_reference) {
  const size_t n = 3000;
  const uint64_t len = 100;
  ic_graph_rec *recs = random_graph(n, 42);
  for (uint64_t seed = 1; seed <= 3; seed++) {
    ic_graphfrag_opts o = {.cats = gcats, .ncat = 3, .length = len, .fragments = 1000,
                           .seed = seed, .bootstrap = 200};
    ic_graphfrag *g;
    ic_err err;
    cr_assert_eq(ic_graphfrag_create(&g, &o, &err), IC_OK, "%s", err.msg);
    cr_assert_eq(feed_batches(ic_graphfrag_sink(g), recs, n, seed, &err), IC_OK, "%s", err.msg);
    cr_assert_eq(ic_graphfrag_instructions(g), n);
    ic_breakdown b;
    cr_assert_eq(ic_graphfrag_result(g, &b, &err), IC_OK, "%s", err.msg);
    /* with K above the block count every window of the sampler's offset
       is used: the reference over exactly those */
    double pct[8];
    uint64_t nwin, off = ic_graphfrag_offset(g);
    double t0;
    cr_assert_lt(off, len);
    reference_pct(recs, n, off, len, pct, &nwin, &t0);
    cr_assert_eq(nwin, ic_graphfrag_windows(g));
    for (int s = 1; s < 8; s++)
      cr_assert_float_eq(100 * b.icost[s] / b.total, pct[s], 1e-9, "seed %llu entry %d",
                         (unsigned long long)seed, s);
    /* cycles are scaled to the run's length: total = t_windows * n / (the
       windows' instructions: without a warm-up, every one of the run's) */
    cr_assert_float_eq(b.total, t0, 1e-6);
    cr_assert_not_null(b.lo);
    for (int s = 1; s < 8; s++) cr_assert_leq(b.lo[s], b.hi[s]);
    ic_breakdown_free(&b);
    ic_graphfrag_destroy(g);
  }
  free(recs);
}

Test(graphfrag, batching_does_not_matter_and_k_caps_windows) {
  const size_t n = 5000;
  ic_graph_rec *recs = random_graph(n, 7);
  ic_graphfrag_opts o = {.cats = gcats, .ncat = 3, .length = 200, .fragments = 5, .seed = 9};
  double first[8] = {0}, lo1 = 0;
  for (int rep = 0; rep < 3; rep++) {
    ic_graphfrag *g;
    ic_err err;
    cr_assert_eq(ic_graphfrag_create(&g, &o, &err), IC_OK);
    cr_assert_eq(feed_batches(ic_graphfrag_sink(g), recs, n, 100 + rep, &err), IC_OK);
    cr_assert_eq(ic_graphfrag_windows(g), 5);
    ic_breakdown b;
    cr_assert_eq(ic_graphfrag_result(g, &b, &err), IC_OK);
    double sum = 0;
    for (int s = 0; s < 8; s++) {
      if (rep == 0)
        first[s] = b.icost[s];
      else
        cr_assert_eq(b.icost[s], first[s]);
      if (s) sum += b.icost[s];
    }
    if (rep == 0)
      lo1 = b.lo[1];
    else
      cr_assert_eq(b.lo[1], lo1);
    cr_assert_float_eq(sum + (b.total - b.cost[7]), b.total, 1e-6);
    ic_breakdown_free(&b);
    ic_graphfrag_destroy(g);
  }
  free(recs);
}

Test(graphfrag, reservoir_is_uniform) {
  /* Instruction i is a chain link of 1 + i/100 cycles (CC edges only), so a
     window's time says where in the run it lies. For a given offset, a
     uniform choice of K of the complete windows has expected total K times
     their mean time; the offset is uniform over seeds, so over many seeds the
     mean total must approach K times the mean over offsets of that mean. A
     reservoir that favoured early (or late) blocks would miss it by a factor
     of about 2. */
  const size_t n = 1000;
  const uint64_t len = 100, k = 3;
  ic_graph_rec *recs = calloc(n, sizeof *recs);
  for (size_t i = 0; i < n; i++) {
    recs[i].seq = i;
    add_edge(&recs[i], IC_EDGE_CC, 1, 1 + (uint32_t)(i / 100), IC_CAT_NONE);
  }
  double expect = 0;
  for (uint64_t off = 0; off < len; off++) {
    double sum = 0;
    int nw = 0;
    for (uint64_t s0 = off; s0 + len <= n; s0 += len, nw++)
      for (uint64_t i = s0; i < s0 + len; i++) sum += 1 + (double)(i / 100);
    expect += (double)k * sum / nw / (double)len; /* per instruction of a window */
  }
  expect /= (double)len; /* mean over the len offsets */
  double got = 0;
  const int seeds = 400;
  for (int seed = 0; seed < seeds; seed++) {
    ic_graphfrag_opts o = {.cats = gcats, .ncat = 1, .length = len, .fragments = k,
                           .seed = (uint64_t)seed, .bootstrap = -1};
    ic_graphfrag *g;
    ic_err err;
    cr_assert_eq(ic_graphfrag_create(&g, &o, &err), IC_OK);
    cr_assert_eq(ic_graphfrag_sink(g).consume(g, recs, n, &err), IC_OK, "%s", err.msg);
    cr_assert_eq(ic_graphfrag_windows(g), k);
    ic_breakdown b;
    cr_assert_eq(ic_graphfrag_result(g, &b, &err), IC_OK);
    cr_assert_null(b.lo, "bootstrap < 0: no interval");
    got += b.total * (double)(k * len) / (double)n; /* unscale: the windows' time */
    ic_breakdown_free(&b);
    ic_graphfrag_destroy(g);
  }
  free(recs);
  got /= seeds * (double)len;
  cr_assert(fabs(got / expect - 1) < 0.05, "mean %f, uniform sampling expects %f", got, expect);
}

/* A run shorter than a window is solved whole (the lead or the first block,
   cut by the end of the run, with no warm-up: it is shorter than W, or
   starts at the run's first instruction): its breakdown is the whole
   graph's; a run of no instruction is an error. */
Test(graphfrag, run_shorter_than_a_window) {
  ic_graph_rec *recs = random_graph(150, 3);
  for (uint64_t seed = 0; seed < 4; seed++) {
    ic_graphfrag_opts o = {.cats = gcats, .ncat = 3, .length = 2000, .warmup = 200, .seed = seed,
                           .bootstrap = -1};
    ic_graphfrag *g;
    ic_err err;
    cr_assert_eq(ic_graphfrag_create(&g, &o, &err), IC_OK);
    cr_assert_eq(feed_batches(ic_graphfrag_sink(g), recs, 150, 1, &err), IC_OK);
    cr_assert_eq(ic_graphfrag_windows(g), 1);
    ic_breakdown b;
    cr_assert_eq(ic_graphfrag_result(g, &b, &err), IC_OK, "%s", err.msg);
    double pct[8], t0;
    uint64_t nwin;
    reference_pct(recs, 150, 150, 2000, pct, &nwin, &t0);
    cr_assert_eq(nwin, 1);
    cr_assert_float_eq(b.total, t0, 1e-6);
    for (int s = 1; s < 8; s++) cr_assert_float_eq(100 * b.icost[s] / b.total, pct[s], 1e-9);
    ic_breakdown_free(&b);
    ic_graphfrag_destroy(g);
  }
  ic_graphfrag_opts o = {.cats = gcats, .ncat = 3, .length = 2000};
  ic_graphfrag *g;
  ic_err err;
  cr_assert_eq(ic_graphfrag_create(&g, &o, &err), IC_OK);
  ic_breakdown b;
  cr_assert_eq(ic_graphfrag_result(g, &b, &err), IC_ERUN);
  cr_assert_str_eq(err.msg, "graphfrag: the run holds no instruction");
  ic_graphfrag_destroy(g);
  free(recs);
}

Test(graphfrag, sequence_gap_is_an_input_error) {
  ic_graph_rec *recs = random_graph(50, 3);
  recs[20].seq = 99;
  ic_graphfrag_opts o = {.cats = gcats, .ncat = 3, .length = 10};
  ic_graphfrag *g;
  ic_err err;
  cr_assert_eq(ic_graphfrag_create(&g, &o, &err), IC_OK);
  cr_assert_eq(ic_graphfrag_sink(g).consume(g, recs, 50, &err), IC_EINPUT);
  cr_assert(strstr(err.msg, "99"), "%s", err.msg);
  ic_graphfrag_destroy(g);
  free(recs);
}

/* ---- validate's reproducibility check ---- */

/* A model whose every run times 10 one-cycle links (10 cycles), except
   that the graph run (the one with a sink) reports `graph_cycles`. */
typedef struct chain_model {
  uint64_t graph_cycles;
} chain_model;

static ic_status chain_run(void *ctx, ic_catmask ideal, const ic_graph_sink *sink,
                           uint64_t *cycles, uint64_t *insns, ic_err *err) {
  const chain_model *c = ctx;
  (void)ideal;
  *cycles = 10;
  *insns = 10;
  if (sink) {
    ic_graph_rec recs[10];
    memset(recs, 0, sizeof recs);
    for (int i = 0; i < 10; i++) {
      recs[i].seq = (uint64_t)i;
      add_edge(&recs[i], IC_EDGE_CC, 1, 1, IC_CAT_NONE);
      recs[i].t[IC_NODE_C] = (uint64_t)i + 1;
    }
    ic_status st = sink->consume(sink->ctx, recs, 10, err);
    if (st != IC_OK) return st;
    *cycles = c->graph_cycles;
  }
  return IC_OK;
}

Test(validate_workload, unreproducible_runs_are_an_error) {
  const uint8_t cats[1] = {IC_CAT_DL1};
  const char *methods[2] = {"multisim", "graph"};
  for (int bad = 0; bad <= 1; bad++) {
    chain_model c = {.graph_cycles = bad ? 11 : 10};
    ic_validate_report *rep;
    ic_err err;
    cr_assert_eq(ic_validate_report_create(&rep, cats, 1, methods, 2, &err), IC_OK);
    ic_validate_run_opts vo = {.cats = cats, .ncat = 1, .run = chain_run, .run_ctx = &c,
                               .jobs = 1};
    ic_status st = ic_validate_workload(rep, "w", &vo, &err);
    if (bad) {
      cr_assert_eq(st, IC_ERUN);
      cr_assert_str_eq(err.msg, "w: the unidealized run took 10 cycles in multisim and 11 in "
                                "the graph run: runs from the checkpoint do not repeat the "
                                "same execution");
      cr_assert_eq(ic_validate_report_workloads(rep), 0, "nothing added");
    } else {
      cr_assert_eq(st, IC_OK, "%s", err.msg);
      cr_assert_eq(ic_validate_report_workloads(rep), 1);
      /* nothing to idealize: dl1 costs 0, base is everything */
      cr_assert_float_eq(ic_validate_report_pct(rep, 0, 1)[0], 100, 1e-9);
      cr_assert_float_eq(ic_validate_report_pct(rep, 0, 1)[1], 0, 1e-9);
    }
    ic_validate_report_destroy(rep);
  }
}
