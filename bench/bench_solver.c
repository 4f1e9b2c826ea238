/* bench_solver.c: throughput of the streaming powerset solver on recorded
 * graphs of a real run, against the one-subset reference pass, and the cost
 * of recording the graph. Built and run by bench/bench_solver.sh.
 *
 *   bench_solver [--records N] [--passes-records M] [run options] [-- PROGRAM ARGS]
 *
 * 1. model alone: one timed run without a graph sink (CPU seconds);
 * 2. model + graph hook: the same run with a sink that only counts records
 *    (the recording overhead, nothing stored); then the model feeding the
 *    8-category solver directly, with 1 and 2 solver threads (wall and CPU
 *    time; its CPU time minus 2. is the solver's CPU share), solving every
 *    subset, then only the 17 that icost's default breakdown shows
 *    (ic_solver_set_subsets, ic_breakdown_needed: what `icost` runs);
 * 3. the run again, keeping the first N records in memory; the record
 *    pipe's stream of them (bytes a record packed, ns to pack and unpack;
 *    with --load too);
 * 4. the solver over those N records with 3 and 8 categories (every
 *    subset), and 8 solving the breakdown's 17 subsets, with 1 and
 *    2 threads (ic_solver_set_threads): wall seconds and instructions per
 *    wall second, and CPU seconds of all threads; best of 3 each; with the
 *    share of records planned from the memo and how many of the categories
 *    never acted (inert: their subsets were not evaluated);
 * 5. 2^8 - 1 = 255 separate one-subset passes (ic_graph_eval, node array
 *    reused) over the first M records, and the speedup of the 8-category
 *    solver (one thread, best of 3) over them on the same M records (the
 *    cost of a record depends on the program's phase: against the solver
 *    over all N records the ratio swung from 15x to 24x with N = 2M).
 * 6. With --save FILE the kept records are also written to FILE; with
 *    --load FILE no model runs: the records come from FILE (written by
 *    --save with the same build) and only step 4 runs (for A/B comparisons
 *    of the solver, e.g. under valgrind --tool=callgrind); there --from K
 *    starts at the file's record K (records from K on, up to --records),
 *    --cats 3|8 and --threads 1|2 run only that configuration (--kernel NAME:
 *    the solver kernel, auto, portable, avx2 or avx512; --sparse:
 *    of the 8-category ones only the 17 subsets'), and --reps R
 *    makes each configuration best of R runs instead of 3 (--reps 1 under
 *    callgrind: instructions / records is then per record); --split L
 *    gives the two-thread runs' worker lanes [0, L) (ic_solver_set_split;
 *    default adaptive; --blocks: every other 32-lane block,
 *    IC_SOLVER_SPLIT_BLOCKS). On mix's records, 8 categories, the fixed splits
 *    32 to 224 ran 0.31 to 0.43 M records/s against 0.33 with one thread:
 *    the two threads together used 1.5x the one thread's CPU. From K > 0
 *    every record counts as a baseline mismatch (the stamps are cycles of
 *    the whole run, the solver starts at time 0).
 * 7. With --spread E (records from --load FILE, or kept from one run of the
 *    model) only this runs: would 16-bit lanes hold the solver's offsets?
 *    With the 8 categories, a per-subset base moved to the newest C time
 *    every E records (a rebase per epoch) and a per-vector scalar
 *    reference, a vector fits 16 bits when the spread over subsets of
 *    time(node, S) - base(S) does. Measured on the C nodes (the others'
 *    times are close to their instruction's C): the spread of each new
 *    node against its epoch's base, and per epoch the largest spread of
 *    all nodes live in it (the window back and the epoch's new ones), a
 *    bound on what a 16-bit representation would have to hold.
 * 8. With --inert (records from --load FILE, or from one run of the
 *    model) only this runs: per category, the first record where it acts
 *    (a latency part of it with cycles, an edge its idealization drops and
 *    the edge does not keep, or for win a CD edge) and how many records it
 *    acts in. A category that never acts is "inert" for the whole run: the
 *    solver evaluates only the subsets without it (solver.c). Also the
 *    records in its quiet stretches (see QUIET).
 * CPU times are of the whole process (CLOCK_PROCESS_CPUTIME_ID: every
 * thread), so other load on the machine inflates them less than wall time
 * would; with 2 threads only wall time shows the gain. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "breakdown.h"
#include "graph_pack.h"
#include "graph.h"
#include "run.h"
#include "solver.h"

static double cpu_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double wall_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

typedef struct keeper {
  ic_graph_rec *r;
  size_t n, cap;
  uint64_t seen;
} keeper;

static ic_status keep(void *ctx, const ic_graph_rec *recs, size_t n, ic_err *err) {
  keeper *k = ctx;
  k->seen += n;
  size_t room = k->cap - k->n, m = n < room ? n : room;
  (void)err;
  if (k->r && m) {
    memcpy(k->r + k->n, recs, m * sizeof *recs);
    k->n += m;
  }
  return IC_OK;
}

static uint64_t records_opt = 300000, passes_opt = 100000, spread_opt;
/* with --load: the first record taken from the file, only this category
 * count (3 or 8) or thread mode (1 or 2) if set, runs per configuration */
static uint64_t from_opt, cats_opt, threads_opt, reps_opt = 3;
/* two-thread runs: the worker's lanes (ic_solver_set_split), 0 adaptive */
static uint64_t split_opt;
static int blocks_opt; /* --blocks: IC_SOLVER_SPLIT_BLOCKS */
static int inert_opt;
/* --sparse: of the 8-category configurations, only the breakdown's 17
 * subsets (ic_solver_set_subsets) */
static int sparse_opt;
static const char *save_opt, *load_opt;
/* --kernel NAME: the solver's node kernel (ic_solver_set_kernel; default auto) */
static ic_solver_kernel kernel_opt = IC_KERNEL_AUTO;

enum {
  B_INERT = CLI_OPT_OWN, B_SPARSE, B_BLOCKS, B_KERNEL, B_SAVE, B_LOAD, B_FROM, B_RECORDS, B_PASSES, B_SPREAD,
  B_CATS, B_THREADS, B_REPS, B_SPLIT
};

static const struct option bench_options[] = {
    {"inert", no_argument, NULL, B_INERT},
    {"sparse", no_argument, NULL, B_SPARSE},
    {"blocks", no_argument, NULL, B_BLOCKS},
    {"kernel", required_argument, NULL, B_KERNEL},
    {"save", required_argument, NULL, B_SAVE},
    {"load", required_argument, NULL, B_LOAD},
    {"from", required_argument, NULL, B_FROM},
    {"records", required_argument, NULL, B_RECORDS},
    {"passes-records", required_argument, NULL, B_PASSES},
    {"spread", required_argument, NULL, B_SPREAD},
    {"cats", required_argument, NULL, B_CATS},
    {"threads", required_argument, NULL, B_THREADS},
    {"reps", required_argument, NULL, B_REPS},
    {"split", required_argument, NULL, B_SPLIT},
    {NULL, 0, NULL, 0},
};

static int extra(void *ctx, int id, const char *name, const char *v, ic_err *err) {
  (void)ctx;
  switch (id) {
  case B_INERT: inert_opt = 1; return 0;
  case B_SPARSE: sparse_opt = 1; return 0;
  case B_BLOCKS: blocks_opt = 1; return 0;
  case B_SAVE: save_opt = v; return 0;
  case B_LOAD: load_opt = v; return 0;
  case B_KERNEL: {
    static const ic_solver_kernel ks[] = {IC_KERNEL_AUTO, IC_KERNEL_PORTABLE, IC_KERNEL_AVX2, IC_KERNEL_AVX512};
    for (size_t k = 0; k < sizeof ks / sizeof ks[0]; k++)
      if (!strcmp(v, ic_solver_kernel_name(ks[k]))) {
        kernel_opt = ks[k];
        return 0;
      }
    ic_fail(err, IC_EINPUT, "--kernel needs one of auto, portable, avx2, avx512");
    return -1;
  }
  case B_FROM: /* may be 0 */
    if (cli_parse_count(v, &from_opt) == 0) return 0;
    ic_fail(err, IC_EINPUT, "--from needs a record count");
    return -1;
  }
  uint64_t *dst = id == B_RECORDS   ? &records_opt
                  : id == B_PASSES  ? &passes_opt
                  : id == B_SPREAD  ? &spread_opt
                  : id == B_CATS    ? &cats_opt
                  : id == B_THREADS ? &threads_opt
                  : id == B_REPS    ? &reps_opt
                                    : &split_opt;
  if (cli_parse_count(v, dst) != 0 || *dst == 0) {
    ic_fail(err, IC_EINPUT, "%s needs a positive count", name);
    return -1;
  }
  if ((dst == &cats_opt && *dst != 3 && *dst != 8) || (dst == &threads_opt && *dst > 2)) {
    ic_fail(err, IC_EINPUT, "%s %s: only %s", name, v, dst == &cats_opt ? "3 or 8" : "1 or 2");
    return -1;
  }
  return 0;
}

/* Best of 3 (--reps) runs of the solver over r[0..n) with `threads` threads
 * (ic_solver_set_threads); returns CPU seconds (all threads of the process)
 * and the wall seconds of the same run in *wall. */
static double solve(const ic_graph_rec *r, size_t n, const uint8_t *cats, int ncat, int threads,
                    const uint8_t *need, uint64_t *t_full, ic_solver_stats *stats, double *wall) {
  double best = 1e30;
  *wall = 1e30;
  for (uint64_t rep = 0; rep < reps_opt; rep++) {
    ic_solver *s;
    ic_err err;
    if (ic_solver_create(&s, cats, ncat, &err) != IC_OK) {
      fprintf(stderr, "bench_solver: %s\n", err.msg);
      exit(1);
    }
    ic_solver_set_threads(s, threads);
    if (!ic_solver_set_kernel(s, kernel_opt)) {
      fprintf(stderr, "bench_solver: this CPU does not run the %s kernel\n", ic_solver_kernel_name(kernel_opt));
      exit(2);
    }
    if (ic_solver_set_subsets(s, need, &err) != IC_OK) {
      fprintf(stderr, "bench_solver: %s\n", err.msg);
      exit(1);
    }
    if (split_opt || blocks_opt) ic_solver_set_split(s, blocks_opt ? IC_SOLVER_SPLIT_BLOCKS : (int)split_opt);
    double t0 = cpu_now(), w0 = wall_now();
    if (ic_solver_feed(s, r, n, &err) != IC_OK) {
      fprintf(stderr, "bench_solver: %s\n", err.msg);
      exit(1);
    }
    *t_full = ic_solver_times(s)[(1u << ncat) - 1]; /* waits for the worker */
    double dt = cpu_now() - t0, dw = wall_now() - w0;
    if (dt < best) best = dt;
    if (dw < *wall) *wall = dw;
    ic_solver_get_stats(s, stats);
    ic_solver_destroy(s);
  }
  return best;
}

static const uint8_t c3[] = {IC_CAT_DMISS, IC_CAT_BMISP, IC_CAT_WIN};
static const uint8_t c8[] = {IC_CAT_DL1,   IC_CAT_WIN,   IC_CAT_BW,    IC_CAT_BMISP,
                             IC_CAT_DMISS, IC_CAT_SHALU, IC_CAT_LGALU, IC_CAT_IMISS};

static void report(const char *what, double secs, double wall, size_t n,
                   const ic_solver_stats *ss) {
  printf("solver, %s, %u thread%s  wall %.3f s  %.2f M instructions/s  (CPU %.3f s, %.2f M/s; "
         "window %llu, %llu edges out of window, %llu baseline mismatches; memo hits %.1f%%, "
         "inert categories %u)\n",
         what, ss->threads, ss->threads > 1 ? "s" : "", wall, n / wall / 1e6, secs, n / secs / 1e6,
         (unsigned long long)ss->window, (unsigned long long)ss->out_of_window,
         (unsigned long long)ss->violations, 100.0 * (double)ss->memo_hits / (double)n,
         (unsigned)__builtin_popcount(ss->inert));
}

/* The subsets icost's default breakdown of 8 categories shows (the
 * solver's sparse lanes, ic_solver_set_subsets): {}, the singletons, the
 * pairs with the first category and all 8, 17 of 256. */
static uint8_t need8[256];
static const uint8_t *breakdown_need8(void) {
  ic_breakdown_needed(8, 0, need8);
  return need8;
}

/* The solver over r[0..n) with 3 and 8 categories (all subsets), and 8
 * categories solving only the default breakdown's 17, single-thread and
 * two-thread (those --cats and --threads leave). */
static void solve_all(const ic_graph_rec *r, size_t n, uint64_t *tf) {
  ic_solver_stats ss;
  double wall;
  for (int th = 1; th <= 2; th++) {
    if (threads_opt && (uint64_t)th != threads_opt) continue;
    if (cats_opt != 8) {
      double c = solve(r, n, c3, 3, th, NULL, tf, &ss, &wall);
      report("3 categories", c, wall, n, &ss);
    }
    if (cats_opt != 3) {
      double c;
      if (!sparse_opt) {
        c = solve(r, n, c8, 8, th, NULL, tf, &ss, &wall);
        report("8 categories", c, wall, n, &ss);
      }
      c = solve(r, n, c8, 8, th, breakdown_need8(), tf, &ss, &wall);
      report("8 categories, the breakdown's 17 subsets", c, wall, n, &ss);
    }
  }
}

static int64_t spread_of(const int64_t *t, const int64_t *base) {
  int64_t mn = INT64_MAX, mx = INT64_MIN;
  for (int x = 0; x < 256; x++) {
    int64_t d = t[x] - base[x];
    mn = d < mn ? d : mn;
    mx = d > mx ? d : mx;
  }
  return mx - mn;
}

/* Step 7 (--spread E) over r[0..n). */
static int spread_report(const ic_graph_rec *r, size_t n, uint64_t epoch) {
  ic_solver *s;
  ic_err err;
  ic_solver_stats st;
  /* a first pass for the window the solver settles on */
  if (ic_solver_create(&s, c8, 8, &err) != IC_OK || ic_solver_feed(s, r, n, &err) != IC_OK) {
    fprintf(stderr, "bench_solver: %s\n", err.msg);
    return 1;
  }
  ic_solver_get_stats(s, &st);
  const uint64_t w = st.window;
  ic_solver_reset(s);
  ic_solver_set_threads(s, 1);
  int64_t(*ring)[256] = malloc(w * sizeof *ring);
  if (!ring) return 1;
  int64_t base[256] = {0}, raw_lo = 0, raw_hi = 0, ep_max = 0;
  uint64_t hist[64] = {0}, epochs = 0, over[4] = {0}, rec_over[4] = {0};
  static const int64_t thr[4] = {1 << 13, 1 << 14, 32767, 65535};
  for (size_t i = 0; i <= n; i++) {
    if (i % epoch == 0 || i == n) { /* an epoch ends; rebase to the newest C */
      if (i) {
        epochs++;
        for (int k = 0; k < 4; k++)
          if (ep_max > thr[k]) {
            over[k]++;
            rec_over[k] += i % epoch ? i % epoch : epoch;
          }
      }
      if (i == n) break;
      ep_max = 0;
      if (i) {
        memcpy(base, ring[(i - 1) % w], sizeof base);
        for (size_t j = i > w ? i - w : 0; j < i; j++) {
          int64_t sp = spread_of(ring[j % w], base);
          ep_max = sp > ep_max ? sp : ep_max;
        }
      }
    }
    if (ic_solver_feed(s, &r[i], 1, &err) != IC_OK) {
      fprintf(stderr, "bench_solver: %s\n", err.msg);
      return 1;
    }
    const uint64_t *t = ic_solver_times(s);
    int64_t *v = ring[i % w];
    for (uint32_t x = 0; x < 256; x++) v[x] = (int64_t)t[x];
    raw_lo = v[255];
    raw_hi = v[0];
    int64_t sp = spread_of(v, base);
    ep_max = sp > ep_max ? sp : ep_max;
    int b = 0;
    while (b < 63 && (INT64_C(1) << b) <= sp) b++;
    hist[b]++;
  }
  printf("spread over 256 subsets (8 categories), %zu records, window %llu, epoch %llu:\n", n,
         (unsigned long long)w, (unsigned long long)epoch);
  printf("  t({}) - t(all) of the last C (the whole run's drift): %lld\n",
         (long long)(raw_hi - raw_lo));
  printf("  new C nodes by spread against the epoch's base (count below 2^b):\n   ");
  for (int b = 0; b < 64; b++)
    if (hist[b]) printf(" 2^%d:%llu", b, (unsigned long long)hist[b]);
  printf("\n  epochs %llu; with a live node's spread > 8191 / 16383 / 32767 / 65535: "
         "%llu / %llu / %llu / %llu epochs (%llu / %llu / %llu / %llu records)\n",
         (unsigned long long)epochs, (unsigned long long)over[0], (unsigned long long)over[1],
         (unsigned long long)over[2], (unsigned long long)over[3], (unsigned long long)rec_over[0],
         (unsigned long long)rec_over[1], (unsigned long long)rec_over[2],
         (unsigned long long)rec_over[3]);
  free(ring);
  ic_solver_destroy(s);
  return 0;
}

/* Step 8 (--inert): where each category first acts (the solver's rule,
 * solver.c: what makes subsets with and without it differ). */
/* Quiet stretches: records in which a category that has acted before
 * does not act for more than QUIET records (twice the 8-category solver's
 * largest ring window). Merging its lanes again there would need the
 * subsets with and without it to differ by one constant per subset over
 * every live vector; tried, that does not hold on the model's records
 * (lanes an earlier penalty set apart keep a different phase against the
 * fetch, issue and commit groups, and differ by a cycle or more even over
 * the last fetch width of dispatch times), so the solver does not merge. */
#define QUIET 8192u
typedef struct inert_scan {
  uint64_t first[IC_CAT_COUNT], count[IC_CAT_COUNT], last[IC_CAT_COUNT], n;
  uint64_t quiet[IC_CAT_COUNT], stretches[IC_CAT_COUNT], longest[IC_CAT_COUNT];
} inert_scan;

static void quiet_gap(inert_scan *sc, int c, uint64_t gap) {
  if (gap > sc->longest[c]) sc->longest[c] = gap;
  if (gap > QUIET) sc->quiet[c] += gap, sc->stretches[c]++;
}

static ic_status inert_consume(void *ctx, const ic_graph_rec *recs, size_t n, ic_err *err) {
  inert_scan *sc = ctx;
  (void)err;
  for (size_t i = 0; i < n; i++, sc->n++) {
    ic_catmask acts = 0;
    const ic_graph_rec *r = &recs[i];
    for (int k = 0; k < r->nedges && k < IC_MAX_EDGES; k++) {
      const ic_edge *e = &r->edge[k];
      for (int p = 0; p < e->nparts && p < IC_MAX_PARTS; p++)
        if (e->part[p].cycles && e->part[p].cat < IC_CAT_COUNT) acts |= IC_CATBIT(e->part[p].cat);
      acts |= dg_edge_drop_mask(e->kind) & ~(ic_catmask)e->keep;
      if (e->kind == IC_EDGE_CD) acts |= IC_CATBIT(IC_CAT_WIN);
    }
    for (int c = 0; c < IC_CAT_COUNT; c++)
      if (acts & IC_CATBIT(c)) {
        if (!sc->count[c]) sc->first[c] = sc->n;
        else quiet_gap(sc, c, sc->n - sc->last[c] - 1);
        sc->last[c] = sc->n;
        sc->count[c]++;
      }
  }
  return IC_OK;
}

static void inert_report(inert_scan *sc) {
  printf("records %llu; per category: first record where it acts, records it acts in; records in\n"
         "quiet stretches (more than %u records without an act, after the first), their number,\n"
         "the longest gap\n",
         (unsigned long long)sc->n, QUIET);
  for (int c = 0; c < IC_CAT_COUNT; c++) {
    if (!sc->count[c]) {
      printf("  %-6s inert (never acts)\n", ic_category_names[c]);
      continue;
    }
    quiet_gap(sc, c, sc->n - sc->last[c] - 1); /* the run's tail */
    printf("  %-6s first %llu, %llu records (%.2f%%); quiet %.1f%% in %llu, longest %llu\n",
           ic_category_names[c], (unsigned long long)sc->first[c], (unsigned long long)sc->count[c],
           100.0 * (double)sc->count[c] / (double)sc->n, 100.0 * (double)sc->quiet[c] / (double)sc->n,
           (unsigned long long)sc->stretches[c], (unsigned long long)sc->longest[c]);
  }
}

/* The record stream of the record pipe: r[0..n) packed (graph_pack.h) and
 * unpacked again on this thread, 64 records at a time from a batch in
 * cache (as the model hands them over); bytes a record, and CPU ns a
 * record each way (the pipe's own cost besides moving the bytes between
 * CPUs). */
static int pack_report(const ic_graph_rec *r, size_t n) {
  enum { B = 64 };
  ic_rec_pack_state pk, uk;
  uint8_t *buf = malloc((size_t)B * IC_REC_PACK_MAX);
  ic_graph_rec *in = malloc(B * sizeof *in), *back = malloc(B * sizeof *back);
  if (!buf || !in || !back || ic_rec_pack_init(&pk) != 0 || ic_rec_pack_init(&uk) != 0) {
    fprintf(stderr, "bench_solver: out of memory for the record stream\n");
    return 1;
  }
  memset(buf, 0, (size_t)B * IC_REC_PACK_MAX);
  double tp = 0, tu = 0;
  size_t bytes = 0;
  for (size_t done = 0; done < n; done += B) {
    const size_t k = n - done < B ? n - done : B;
    memcpy(in, r + done, k * sizeof *in);
    size_t at = 0;
    double t0 = cpu_now();
    for (size_t i = 0; i < k; i++) at += ic_rec_pack(&pk, &in[i], buf + at);
    double t1 = cpu_now();
    for (size_t i = 0, u = 0; i < k; i++) {
      size_t got = ic_rec_unpack(&uk, buf + u, at - u, &back[i]);
      if (!got) {
        fprintf(stderr, "bench_solver: record %zu did not unpack\n", done + i);
        return 1;
      }
      u += got;
    }
    tu += cpu_now() - t1;
    tp += t1 - t0;
    bytes += at;
  }
  printf("record stream (packed)  %.1f bytes a record (in memory %zu); pack %.1f ns, unpack %.1f ns a record\n",
         (double)bytes / (double)n, sizeof(ic_graph_rec), tp / (double)n * 1e9, tu / (double)n * 1e9);
  ic_rec_pack_free(&pk);
  ic_rec_pack_free(&uk);
  free(buf);
  free(in);
  free(back);
  return 0;
}

/* Solver only, on records saved by --save. */
static int solve_loaded(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "bench_solver: %s: cannot open\n", path);
    return 2;
  }
  fseek(f, 0, SEEK_END);
  long bytes = ftell(f);
  fseek(f, 0, SEEK_SET);
  size_t n = bytes > 0 ? (size_t)bytes / sizeof(ic_graph_rec) : 0;
  if (from_opt >= n) {
    fprintf(stderr, "bench_solver: %s: --from %llu: the file holds %zu records\n", path,
            (unsigned long long)from_opt, n);
    fclose(f);
    return 2;
  }
  n -= (size_t)from_opt;
  if (fseek(f, (long)(from_opt * sizeof(ic_graph_rec)), SEEK_SET) != 0) {
    fprintf(stderr, "bench_solver: %s: cannot seek to record %llu\n", path,
            (unsigned long long)from_opt);
    fclose(f);
    return 2;
  }
  if (n > records_opt) n = records_opt;
  ic_graph_rec *r = malloc((n ? n : 1) * sizeof *r);
  if (!r || fread(r, sizeof *r, n, f) != n || n == 0) {
    fprintf(stderr, "bench_solver: %s: cannot read records\n", path);
    return 2;
  }
  fclose(f);
  if (inert_opt) {
    inert_scan sc = {0};
    ic_err e;
    inert_consume(&sc, r, n, &e);
    inert_report(&sc);
    free(r);
    return 0;
  }
  if (spread_opt) {
    int rc = spread_report(r, n, spread_opt);
    free(r);
    return rc;
  }
  if (pack_report(r, n) != 0) return 1;
  uint64_t tf;
  solve_all(r, n, &tf);
  printf("t(all %d) %llu over %zu records\n", cats_opt == 3 ? 3 : 8, (unsigned long long)tf, n);
  free(r);
  return 0;
}

int main(int argc, char **argv) {
  cli_run_opts o;
  ic_err err;
  if (cli_run_parse(argc, argv, &o, bench_options, extra, NULL, &err) != IC_OK) {
    fprintf(stderr, "bench_solver: %s\n", err.msg);
    return 2;
  }
  if (load_opt) return solve_loaded(load_opt);
  cli_run run;
  if (cli_run_setup(&o, &run, &err) != IC_OK) {
    fprintf(stderr, "bench_solver: %s\n", err.msg);
    return 2;
  }
  ooo_stats st;
  if (inert_opt) { /* step 8 only */
    inert_scan sc = {0};
    ic_graph_sink sink = {.ctx = &sc, .consume = inert_consume};
    if (cli_run_execute(&run, 0, &sink, NULL, NULL, &st, &err) != IC_OK) {
      fprintf(stderr, "bench_solver: %s\n", err.msg);
      return 1;
    }
    printf("workload %s, %llu instructions\n", run.workload.name,
           (unsigned long long)st.instructions);
    inert_report(&sc);
    cli_run_free(&run);
    return 0;
  }
  if (spread_opt) { /* step 7 only: keep the records of one run */
    keeper k = {0};
    k.cap = records_opt;
    k.r = malloc(k.cap * sizeof *k.r);
    ic_graph_sink keep_sink = {.ctx = &k, .consume = keep};
    if (!k.r || cli_run_execute(&run, 0, &keep_sink, NULL, NULL, &st, &err) != IC_OK) {
      fprintf(stderr, "bench_solver: %s\n", k.r ? err.msg : "out of memory");
      return 1;
    }
    printf("workload %s, %llu instructions\n", run.workload.name,
           (unsigned long long)st.instructions);
    int rc = spread_report(k.r, k.n, spread_opt);
    free(k.r);
    cli_run_free(&run);
    return rc;
  }
  double t0 = cpu_now(), w0 = wall_now();
  if (cli_run_execute(&run, 0, NULL, NULL, NULL, &st, &err) != IC_OK) {
    fprintf(stderr, "bench_solver: %s\n", err.msg);
    return 1;
  }
  double t_model = cpu_now() - t0;
  keeper counter = {0};
  ic_graph_sink count_sink = {.ctx = &counter, .consume = keep};
  t0 = cpu_now();
  w0 = wall_now();
  if (cli_run_execute(&run, 0, &count_sink, NULL, NULL, &st, &err) != IC_OK) {
    fprintf(stderr, "bench_solver: %s\n", err.msg);
    return 1;
  }
  double t_rec = cpu_now() - t0, w_rec = wall_now() - w0;
  printf("workload              %s\n", run.workload.name);
  printf("instructions          %llu\n", (unsigned long long)st.instructions);
  printf("cycles                %llu\n", (unsigned long long)st.cycles);
  printf("model alone           %.3f s  (%.2f M instructions/s)\n", t_model,
         st.instructions / t_model / 1e6);
  printf("model + graph hook    %.3f s  (%.2fx the model alone)\n", t_rec, t_rec / t_model);

  /* The graph method as used: the model feeding the 8-category solver
   * directly (records arrive in small batches, hot in cache). */
  static const uint8_t c8run[] = {IC_CAT_DL1,   IC_CAT_WIN,   IC_CAT_BW,    IC_CAT_BMISP,
                                  IC_CAT_DMISS, IC_CAT_SHALU, IC_CAT_LGALU, IC_CAT_IMISS};
  for (int th = 1; th <= 4; th++) {
    const int sparse = th > 2;
    ic_solver *live;
    if (ic_solver_create(&live, c8run, 8, &err) != IC_OK) return 1;
    ic_solver_set_threads(live, sparse ? th - 2 : th);
    if (ic_solver_set_subsets(live, sparse ? breakdown_need8() : NULL, &err) != IC_OK) return 1;
    ic_graph_sink live_sink = ic_solver_sink(live);
    t0 = cpu_now();
    w0 = wall_now();
    if (cli_run_execute(&run, 0, &live_sink, NULL, NULL, &st, &err) != IC_OK) {
      fprintf(stderr, "bench_solver: %s\n", err.msg);
      return 1;
    }
    (void)ic_solver_times(live); /* waits for the worker */
    double t_live = cpu_now() - t0, w_live = wall_now() - w0;
    int used = ic_solver_threads(live);
    ic_solver_destroy(live);
    printf("model + 8-cat solver%s, %d thread%s  wall %.3f s: %.2f M instructions/s  (CPU %.3f s; "
           "CPU beyond the recording run %.3f s: %.2f M instructions/s)\n",
           sparse ? " (17 subsets)" : "", used, used > 1 ? "s" : "", w_live, st.instructions / w_live / 1e6, t_live,
           t_live - t_rec, st.instructions / (t_live - t_rec) / 1e6);
  }
  printf("(recording run alone: wall %.3f s)\n", w_rec);

  keeper k = {0};
  k.cap = records_opt < st.instructions ? records_opt : st.instructions;
  k.r = malloc(k.cap * sizeof *k.r);
  if (!k.r) {
    fprintf(stderr, "bench_solver: out of memory for %zu records\n", k.cap);
    return 1;
  }
  ic_graph_sink keep_sink = {.ctx = &k, .consume = keep};
  if (cli_run_execute(&run, 0, &keep_sink, NULL, NULL, &st, &err) != IC_OK) {
    fprintf(stderr, "bench_solver: %s\n", err.msg);
    return 1;
  }
  printf("records kept          %zu\n", k.n);
  if (pack_report(k.r, k.n) != 0) return 1;
  if (save_opt) {
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", save_opt);
    FILE *f = fopen(tmp, "wb");
    int ok = f && fwrite(k.r, sizeof *k.r, k.n, f) == k.n;
    if (f && fclose(f) != 0) ok = 0;
    if (!ok || rename(tmp, save_opt) != 0) {
      remove(tmp);
      fprintf(stderr, "bench_solver: %s: cannot write records\n", save_opt);
      return 1;
    }
  }

  uint64_t tf;
  solve_all(k.r, k.n, &tf);

  size_t m = passes_opt < k.n ? passes_opt : k.n;
  uint64_t *nt = malloc(m * IC_NODE_COUNT * sizeof *nt);
  if (!nt) return 1;
  uint64_t t_check = 0;
  t0 = cpu_now();
  for (uint32_t sub = 1; sub < 256; sub++) {
    ic_catmask ideal = 0;
    for (int b = 0; b < 8; b++)
      if (sub & (1u << b)) ideal |= IC_CATBIT(c8[b]);
    uint64_t t;
    if (ic_graph_eval(k.r, m, ideal, nt, &t, &err) != IC_OK) {
      fprintf(stderr, "bench_solver: %s\n", err.msg);
      return 1;
    }
    if (sub == 255) t_check = t;
  }
  double p255 = cpu_now() - t0;
  ic_solver_stats ss;
  double wall;
  const double s8 = solve(k.r, m, c8, 8, 1, NULL, &tf, &ss, &wall);
  double per_inst_passes = p255 / (double)m, per_inst_solver = s8 / (double)m;
  printf("255 one-subset passes %.3f s over %zu records  (%.2f M instructions/s per pass)\n", p255,
         m, 255.0 * m / p255 / 1e6);
  printf("speedup of the 8-category solver over 255 passes: %.1fx (1 thread, CPU time, the same "
         "%zu records: solver %.3f s)\n",
         per_inst_passes / per_inst_solver, m, s8);
  /* cross-check: the solver on the same prefix gives the same t(all) */
  ic_solver *s;
  ic_solver_create(&s, c8, 8, &err);
  ic_solver_feed(s, k.r, m, &err);
  printf("cross-check t(all 8) on the prefix: solver %llu, reference %llu\n",
         (unsigned long long)ic_solver_times(s)[255], (unsigned long long)t_check);
  ic_solver_destroy(s);
  free(nt);
  free(k.r);
  cli_run_free(&run);
  return 0;
}
