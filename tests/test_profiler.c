/* test_profiler.c: the shotgun profiler on a real program run through the
 * timing model (a tiny C loop cross-compiled at test time with
 * riscv64-linux-gnu-gcc -static; skipped with a message without it).
 *
 * The loop has a random branch, random loads and stores over 8 MB (L1 and
 * L2 misses), a multiply and a direct call/return, and no indirect jump.
 *
 *   - every instruction sampled (interval 1): each stitched fragment's
 *     t(S), for all 256 subsets of the 8 categories, equals the solver's
 *     t(S) on the true records of the same window (the model's own records,
 *     kept by a second sink);
 *   - sparse sampling degrades gracefully: the relative error of the
 *     fragments' t(S) against their true windows is 0 at interval 1,
 *     nonzero at 8 and 256 (the stitcher must then pick other instances
 *     and infer), and below 6% at 256;
 *   - ic_profiler_run gives a breakdown whose entries sum to 100 with CIs
 *     around each entry, and is deterministic for a seed. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ooo.h"
#include "profiler.h"
#include "rv.h"
#include "sig.h"
#include "sig_db.h"
#include "solver.h"
#include "stitch.h"

static const char prog_src[] =
    "#include <stdint.h>\n"
    "#include <stdlib.h>\n"
    "#define N (1u << 20)\n"
    "static uint64_t a[N];\n"
    "static uint64_t __attribute__((noinline)) mix(uint64_t x) {\n"
    "  return x * 2654435761u ^ (x >> 7);\n"
    "}\n"
    "int main(int argc, char **argv) {\n"
    "  long iters = argc > 1 ? atol(argv[1]) : 1000000;\n"
    "  uint64_t x = 88172645463325252ull, s = 0;\n"
    "  for (long i = 0; i < iters; i++) {\n"
    "    x ^= x << 13; x ^= x >> 7; x ^= x << 17;\n"
    "    uint64_t j = x & (N - 1);\n"
    "    if (x & 0x100) s += a[j]; else a[j] = s + (uint64_t)i;\n"
    "    if ((i & 7) == 0) s = mix(s);\n"
    "    s += (uint64_t)i * 3;\n"
    "  }\n"
    "  return (int)(s & 1);\n"
    "}\n";

#define SKIP 200000
#define WARM 100000
#define TIMED 30000

/* Tests run in parallel processes: each compiles under its own names and
   renames the result into place (atomic; a running copy keeps its file). */
static int build_prog(char *exe, size_t cap) {
  if (system("riscv64-linux-gnu-gcc --version >/dev/null 2>&1") != 0) return 0;
  char csrc[512], tmp[600], cmd[1600];
  int pid = (int)getpid();
  snprintf(csrc, sizeof csrc, "%s/h7_prof_loop_%d.c", ICOST_BUILD_DIR, pid);
  /* one absolute path for every build: its length moves the guest's stack
     and what its start-up code does (argv[0], AT_EXECFN, /proc/self/exe),
     so the timing of a run from the release build directory would differ
     from one from the sanitizer build's */
  snprintf(exe, cap, "/tmp/icost_h7_prof_loop");
  snprintf(tmp, sizeof tmp, "%s.%d", exe, pid);
  FILE *f = fopen(csrc, "w");
  if (!f) return 0;
  fputs(prog_src, f);
  fclose(f);
  snprintf(cmd, sizeof cmd, "riscv64-linux-gnu-gcc -O2 -static -o %s %s", tmp, csrc);
  int ok = system(cmd) == 0 && rename(tmp, exe) == 0;
  remove(csrc);
  return ok;
}

/* Keeps every record. */
typedef struct keep {
  ic_graph_rec *r;
  size_t n, cap;
} keep;

static ic_status keep_consume(void *ctx, const ic_graph_rec *recs, size_t n, ic_err *err) {
  keep *k = ctx;
  (void)err;
  if (k->n + n > k->cap) {
    k->cap = (k->n + n) * 2;
    k->r = realloc(k->r, k->cap * sizeof *k->r);
    cr_assert_not_null(k->r);
  }
  memcpy(k->r + k->n, recs, n * sizeof *recs);
  k->n += n;
  return IC_OK;
}

typedef struct fixture {
  rv_proc *ckpt;
  ooo_config *cfg;
  sig_machine m;
} fixture;

static void setup_fixture(fixture *fx) {
  char exe[512];
  if (!build_prog(exe, sizeof exe)) cr_skip_test("riscv64-linux-gnu-gcc cannot build the test program");
  ic_err err;
  char *argv[] = {exe, "100000000", NULL};
  rv_options opt;
  rv_options_default(&opt);
  cr_assert_eq(rv_proc_load(&fx->ckpt, exe, 2, argv, &opt, &err), IC_OK, "%s", err.msg);
  cr_assert_eq(rv_proc_skip(fx->ckpt, SKIP), SKIP);
  cr_assert_eq(ooo_config_load(&fx->cfg, NULL, &err), IC_OK, "%s", err.msg);
  cr_assert_eq(sig_machine_from_config(fx->cfg, &fx->m, &err), IC_OK, "%s", err.msg);
}

static void free_fixture(fixture *fx) {
  rv_proc_destroy(fx->ckpt);
  ooo_config_destroy(fx->cfg);
}

/* One run with the sampler (records also kept); the db is built. */
static void collect(const fixture *fx, uint64_t interval, uint64_t sig_interval, uint32_t len,
                    uint64_t seed, sig_db **db, keep *kp, rv_proc **proc) {
  ic_err err;
  rv_proc *p = rv_proc_clone(fx->ckpt);
  cr_assert_not_null(p);
  ooo_core *c;
  cr_assert_eq(ooo_create(&c, fx->cfg, 0, &err), IC_OK, "%s", err.msg);
  cr_assert_eq(sig_db_create(db, &err), IC_OK);
  sig_sampler_opts so = {interval, sig_interval, len, seed};
  ic_program_image img = rv_proc_image(p);
  sig_sampler *s;
  cr_assert_eq(sig_sampler_create(&s, &so, &fx->m, &img, sig_db_out(*db), &err), IC_OK, "%s",
               err.msg);
  memset(kp, 0, sizeof *kp);
  ic_graph_sink inner = {.ctx = kp, .consume = keep_consume};
  ooo_set_graph_sink(c, sig_sampler_sink(s, &inner));
  uint64_t done;
  cr_assert_eq(ooo_warm(c, rv_proc_source(p), WARM, &done, &err), IC_OK, "%s", err.msg);
  cr_assert_eq(ooo_run(c, rv_proc_source(p), TIMED, &err), IC_OK, "%s", err.msg);
  cr_assert_eq(sig_sampler_finish(s, &err), IC_OK, "%s", err.msg);
  cr_assert_eq(kp->n, TIMED);
  sig_sampler_stats sst;
  sig_sampler_get_stats(s, &sst);
  cr_assert_eq(sst.instructions, TIMED);
  sig_sampler_destroy(s);
  ooo_destroy(c);
  cr_assert_eq(sig_db_build(*db, &err), IC_OK);
  *proc = p;
}

static const uint8_t all8[8] = {0, 1, 2, 3, 4, 5, 6, 7};

/* Relative error sum |t_stitched - t_true| / sum t_true over all subsets and
 * stitched fragments; *nfrag gets how many were compared. */
static double fragment_error(const fixture *fx, const sig_db *db, const keep *kp,
                             const ic_program_image *img, uint64_t *nfrag, uint64_t *exact_out) {
  ic_err err;
  ic_solver *sv;
  cr_assert_eq(ic_solver_create(&sv, all8, 8, &err), IC_OK);
  double num = 0, den = 0;
  *nfrag = 0;
  ic_stitch_stats st = {0};
  for (size_t i = 0; i < sig_db_skeletons(db); i++) {
    const sig_skeleton *sk = sig_db_skeleton(db, i);
    ic_graph_rec *recs = malloc(sk->n * sizeof *recs);
    size_t built;
    cr_assert_eq(ic_stitch_fragment(db, &fx->m, img, sk, recs, &built, &st, &err), IC_OK);
    if (built) {
      cr_assert_eq(built, sk->n);
      uint64_t off = sk->seq - kp->r[0].seq;
      cr_assert_leq(off + sk->n, kp->n);
      /* the skeleton's path is the true one */
      for (size_t k = 0; k < built; k++) cr_assert_eq(recs[k].pc, kp->r[off + k].pc);
      double tt[256], ts[256];
      ic_solver_reset(sv);
      cr_assert_eq(ic_solver_feed(sv, kp->r + off, sk->n, &err), IC_OK, "%s", err.msg);
      for (int s = 0; s < 256; s++) tt[s] = (double)ic_solver_times(sv)[s];
      ic_solver_reset(sv);
      cr_assert_eq(ic_solver_feed(sv, recs, built, &err), IC_OK, "%s", err.msg);
      for (int s = 0; s < 256; s++) ts[s] = (double)ic_solver_times(sv)[s];
      for (int s = 0; s < 256; s++) {
        num += fabs(ts[s] - tt[s]);
        den += tt[s];
      }
      (*nfrag)++;
    }
    free(recs);
  }
  if (exact_out) *exact_out = st.exact;
  ic_solver_destroy(sv);
  return den > 0 ? num / den : 0;
}

Test(profiler, full_sampling_reproduces_true_windows, .timeout = 600) {
  fixture fx;
  setup_fixture(&fx);
  sig_db *db;
  keep kp;
  rv_proc *p;
  collect(&fx, 1, 2000, 400, 7, &db, &kp, &p);
  cr_assert_gt(sig_db_skeletons(db), 5, "only %zu signature samples", sig_db_skeletons(db));
  /* every instruction but the last 11 has a sample */
  cr_assert_eq(sig_db_details(db), TIMED - SIG_HALF - 1);
  ic_program_image img = rv_proc_image(p);
  uint64_t nfrag, exact;
  double e = fragment_error(&fx, db, &kp, &img, &nfrag, &exact);
  cr_assert_eq(nfrag, sig_db_skeletons(db), "fragments aborted with every instruction sampled");
  uint64_t total = 0;
  for (size_t i = 0; i < sig_db_skeletons(db); i++) total += sig_db_skeleton(db, i)->n;
  cr_assert_eq(exact, total);
  cr_assert_eq(e, 0.0, "stitched fragments differ from the true windows: relative error %g", e);
  /* the run has MSHR edges (random misses over 8 MB), so the equality
     above covers them: sampled, stored and placed back as measured */
  size_t mshr = 0;
  for (size_t i = 0; i < kp.n; i++)
    for (int k = 0; k < kp.r[i].nedges; k++) mshr += kp.r[i].edge[k].kind == IC_EDGE_MSHR;
  cr_assert_gt(mshr, 0, "no MSHR edge in the run: the test no longer covers them");
  /* with a warm-up of W, each fragment's t(S) is the true window's C time of
     its last instruction minus that of its W-th */
  ic_profiler_opts po = {0};
  po.cats = all8;
  po.ncat = 8;
  po.machine = fx.m;
  po.length = 400;
  po.warmup = 150;
  double *times;
  uint64_t *lens, m;
  ic_err err;
  cr_assert_eq(ic_profiler_fragment_times(&po, db, &img, &times, &lens, &m, NULL, &err), IC_OK,
               "%s", err.msg);
  /* a skeleton cut short by the end of the run and not longer than the
     warm-up counts nothing and is left out (it can only be the last) */
  const sig_skeleton *last = sig_db_skeleton(db, sig_db_skeletons(db) - 1);
  cr_assert_eq(m, nfrag - (last->n <= 150 && !(last->flags & SIG_SK_RUN_START)));
  ic_solver *sv;
  cr_assert_eq(ic_solver_create(&sv, all8, 8, &err), IC_OK);
  for (uint64_t f = 0; f < m; f++) {
    const sig_skeleton *sk = sig_db_skeleton(db, f);
    const ic_graph_rec *tr = kp.r + (sk->seq - kp.r[0].seq);
    /* from the run's first instruction: no warm-up (nothing precedes it) */
    uint32_t w = (sk->flags & SIG_SK_RUN_START) ? 0 : 150;
    cr_assert_eq(sk->flags & SIG_SK_RUN_START, sk->seq == kp.r[0].seq ? SIG_SK_RUN_START : 0);
    cr_assert_eq(lens[f], sk->n - w);
    uint64_t tw[256] = {0};
    ic_solver_reset(sv);
    if (w) cr_assert_eq(ic_solver_feed(sv, tr, w, &err), IC_OK, "%s", err.msg);
    if (w) memcpy(tw, ic_solver_times(sv), sizeof tw);
    cr_assert_eq(ic_solver_feed(sv, tr + w, sk->n - w, &err), IC_OK, "%s", err.msg);
    for (int s = 0; s < 256; s++)
      cr_assert_eq(times[f * 256 + (uint64_t)s], (double)(ic_solver_times(sv)[s] - tw[s]),
                   "fragment %llu subset %d", (unsigned long long)f, s);
  }
  ic_solver_destroy(sv);
  free(times);
  free(lens);
  po.warmup = 400;
  cr_assert_eq(ic_profiler_fragment_times(&po, db, &img, &times, &lens, &m, NULL, &err), IC_EINPUT);
  cr_assert(strstr(err.msg, "warm-up") != NULL, "%s", err.msg);
  sig_db_destroy(db);
  free(kp.r);
  rv_proc_destroy(p);
  free_fixture(&fx);
}

Test(profiler, sparse_sampling_degrades_gracefully, .timeout = 600) {
  fixture fx;
  setup_fixture(&fx);
  /* the trend of a mean over seeds: one seed's sample can invert it (the
     error at one interval is itself a random variable) */
  const uint64_t iv[3] = {1, 8, 256};
  const uint64_t seeds[] = {11, 12, 13, 14, 15, 16, 17, 18};
  const int nseed = (int)(sizeof seeds / sizeof *seeds);
  double e[3];
  for (int k = 0; k < 3; k++) {
    e[k] = 0;
    for (int q = 0; q < nseed; q++) {
      sig_db *db;
      keep kp;
      rv_proc *p;
      collect(&fx, iv[k], 2000, 400, seeds[q], &db, &kp, &p);
      ic_program_image img = rv_proc_image(p);
      uint64_t nfrag;
      double ek = fragment_error(&fx, db, &kp, &img, &nfrag, NULL);
      cr_log_info("interval %llu seed %llu: error %g over %llu fragments",
                  (unsigned long long)iv[k], (unsigned long long)seeds[q], ek,
                  (unsigned long long)nfrag);
      e[k] += ek / nseed;
      if (k == 0 && q == 0) /* every instruction sampled: exact (as at the start of this file) */
        cr_assert_eq(ek, 0.0, "interval 1 seed %llu: error %g", (unsigned long long)seeds[q], ek);
      cr_assert_gt(nfrag, 3, "interval %llu seed %llu: %llu fragments stitched",
                   (unsigned long long)iv[k], (unsigned long long)seeds[q],
                   (unsigned long long)nfrag);
      sig_db_destroy(db);
      free(kp.r);
      rv_proc_destroy(p);
    }
  }
  cr_log_info("mean relative t(S) error of stitched fragments: interval 1: %g, 8: %g, 256: %g", e[0],
              e[1], e[2]);
  cr_assert_leq(e[0], e[1]);
  cr_assert_gt(e[1], 0.0);
  cr_assert_gt(e[2], 0.0);
  /* from every 8th instruction on most instructions take another
     instance's sample; the error grows no further (8 seeds: 1.8% at both
     intervals), and stays small */
  cr_assert_lt(e[2], 0.06, "error at interval 256: %g", e[2]);
  free_fixture(&fx);
}

/* The model-run callback for ic_profiler_run. */
typedef struct runctx {
  const fixture *fx;
} runctx;

static ic_status run_cb(void *ctx, ic_catmask ideal, const ic_graph_sink *sink, uint64_t *cycles,
                        uint64_t *insns, ic_err *err) {
  const runctx *rc = ctx;
  rv_proc *p = rv_proc_clone(rc->fx->ckpt);
  if (!p) return ic_fail(err, IC_ERUN, "out of memory");
  ooo_core *c;
  ic_status st = ooo_create(&c, rc->fx->cfg, ideal, err);
  if (st != IC_OK) {
    rv_proc_destroy(p);
    return st;
  }
  if (sink) ooo_set_graph_sink(c, *sink);
  uint64_t done;
  st = ooo_warm(c, rv_proc_source(p), WARM, &done, err);
  if (st == IC_OK) st = ooo_run(c, rv_proc_source(p), TIMED, err);
  if (st == IC_OK) {
    *cycles = ooo_get_stats(c)->cycles;
    *insns = ooo_get_stats(c)->instructions;
  }
  ooo_destroy(c);
  rv_proc_destroy(p);
  return st;
}

Test(profiler, run_breakdown_sums_and_is_deterministic, .timeout = 600) {
  fixture fx;
  setup_fixture(&fx);
  runctx rc = {&fx};
  ic_program_image img = rv_proc_image(fx.ckpt);
  const uint8_t cats[3] = {IC_CAT_DMISS, IC_CAT_BMISP, IC_CAT_WIN};
  ic_profiler_opts o = {0};
  o.cats = cats;
  o.ncat = 3;
  o.machine = fx.m;
  o.detail_interval = 4;
  o.signature_interval = 1000;
  o.length = 500;
  o.seed = 5;
  o.bootstrap = 200;
  ic_breakdown b1, b2;
  ic_profiler_stats s1, s2;
  ic_err err;
  cr_assert_eq(ic_profiler_run(&o, run_cb, &rc, &img, &b1, &s1, &err), IC_OK, "%s", err.msg);
  cr_assert_eq(ic_profiler_run(&o, run_cb, &rc, &img, &b2, &s2, &err), IC_OK, "%s", err.msg);
  cr_assert_eq(s1.instructions, TIMED);
  cr_assert_gt(s1.stitch.stitched, 3);
  cr_assert_eq(s1.stitch.exact + s1.stitch.approx + s1.stitch.inferred, s1.stitch.instructions);
  cr_assert_eq(s1.fragment_instructions, s1.stitch.instructions);
  double sum = 0;
  int ne = ic_breakdown_entry_count(&b1, 1);
  ic_bd_entry *ent = calloc((size_t)ne, sizeof *ent);
  ic_breakdown_entries(&b1, 1, ent);
  for (int k = 0; k < ne; k++) {
    sum += ent[k].percent;
    if (ent[k].kind != IC_BD_BASE)
      cr_assert(ent[k].lo <= ent[k].percent + 1e-9 && ent[k].percent <= ent[k].hi + 1e-9,
                "%s: %g outside [%g, %g]", ent[k].name, ent[k].percent, ent[k].lo, ent[k].hi);
  }
  cr_assert_float_eq(sum, 100.0, 1e-9);
  for (int s = 0; s < 8; s++) {
    cr_assert_eq(b1.icost[s], b2.icost[s]);
    cr_assert_eq(b1.lo[s], b2.lo[s]);
  }
  /* dmiss matters in this loop (random accesses over 8 MB) */
  cr_assert_gt(b1.icost[1], 0.0);
  free(ent);
  ic_breakdown_free(&b1);
  ic_breakdown_free(&b2);
  free_fixture(&fx);
}

/* A signature sample cut short by the end of the run is kept (sig.h); with
 * a mean interval of 2^40 instructions none starts in the run (the chance
 * the stationary counter starts one is L / (M' + L), about 1e-8; the draw is
 * seeded) and the profiler says so. */
Test(profiler, no_signature_sample_fails_clearly, .timeout = 600) {
  fixture fx;
  setup_fixture(&fx);
  runctx rc = {&fx};
  ic_program_image img = rv_proc_image(fx.ckpt);
  const uint8_t cats[1] = {IC_CAT_DMISS};
  ic_profiler_opts o = {0};
  o.cats = cats;
  o.ncat = 1;
  o.machine = fx.m;
  o.length = 2 * TIMED;
  o.signature_interval = UINT64_C(1) << 40;
  ic_breakdown b;
  ic_err err;
  cr_assert_eq(ic_profiler_run(&o, run_cb, &rc, &img, &b, NULL, &err), IC_ERUN);
  cr_assert(strstr(err.msg, "no signature sample") != NULL, "%s", err.msg);
  o.ncat = 0;
  cr_assert_eq(ic_profiler_run(&o, run_cb, &rc, &img, &b, NULL, &err), IC_EINPUT);
  free_fixture(&fx);
}
