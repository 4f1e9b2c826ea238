/* multisim.h: breakdowns by re-running the timing model (multisim, the
 * ground truth) and from random windows of the full graph (graphfrag).
 *
 * Both are driven through one callback, ic_model_run_fn: "run the timed
 * interval once from the shared checkpoint with these categories idealized
 * (and this graph sink, if any), and give me the cycle count". The engine
 * knows nothing of emulators or workloads; frontends/cli/run.h's
 * cli_run_execute is the callback the CLI passes (it clones the fast-forward
 * checkpoint, re-warms a fresh core on the clone and runs it, so every run
 * sees the same instructions and the same warmed caches, TLBs and
 * predictors). The callback must be safe to call from several threads at
 * once, each call with its own core and stream (cli_run_execute is: the
 * checkpoint is only read).
 *
 * multisim: for n categories, 2^n runs, run S with ideal = the categories of
 * S; t(S) = its cycles; the breakdown follows by Moebius inversion
 * (breakdown.h). Runs are spread over `jobs` worker threads. If any run
 * fails, the result is that failure, naming the subset ("multisim run
 * {dl1,win}: <reason>"; the lowest failing subset when several fail), and no
 * breakdown is produced.
 *
 * graphfrag: the breakdown from K windows of L consecutive instructions of
 * the full run's graph, each solved as an independent graph (its sources
 * before the window at time 0), as the paper's graphfrag (Table IX): the
 * profiler's fragments as they would be if stitching were perfect. Windows
 * are the blocks [off + bL, off + (b+1)L) of the run, off drawn uniformly in
 * [0, L) from the seed, and the lead [0, off) (where off > 0: the run's
 * first instructions, solved exactly, with no warm-up); K of the blocks
 * are chosen uniformly at random by reservoir sampling as the records
 * stream by, so memory is one solver plus K vectors of 2^n times, whatever
 * the run length (every block when there are at most K). The block the run
 * ends in counts with the instructions it has (as the profiler's last
 * signature sample). Results:
 *   T(S) = sum over chosen windows of t_w(S)   (t_w: the window's critical
 *          path with S idealized)
 *   percent of entry U = 100 * icost_T(U) / T({}): the icost of the summed
 *          window times in percent of the windows' time, i.e. sum over
 *          windows of icost / sum of window times (equal-length windows);
 *   cycles: T(S) * N / (the windows' counted instructions: L - W each, off
 *          for the lead, the last block's less W where it has more),
 *          the windows' cycles per instruction scaled to the run's N
 *          timed instructions (an estimate of the full run's t(S);
 *          percents do not depend on the scaling);
 *   lo/hi: bootstrap 95% interval of each entry's percent: B resamples of
 *          the K windows with replacement (GSL RNG, seeded), 2.5th and 97.5th
 *          percentiles. */
#ifndef IC_MULTISIM_H
#define IC_MULTISIM_H

#include <stdint.h>

#include "breakdown.h"
#include "graphfrag.h"
#include "categories.h"
#include "graph_rec.h"
#include "ic_err.h"

/* One timed run from the shared checkpoint with the categories of `ideal`
 * idealized and, if sink != NULL, the graph records sent to it. Fills
 * *cycles (the model's cycle count) and *instructions (timed instructions).
 * Must be callable concurrently from several threads. */
typedef ic_status (*ic_model_run_fn)(void *ctx, ic_catmask ideal, const ic_graph_sink *sink,
                                     uint64_t *cycles, uint64_t *instructions, ic_err *err);

/* Called once per finished multisim run (from worker threads, serialized by
 * the driver): done of total runs. */
typedef void (*ic_multisim_progress_fn)(void *ctx, int done, int total);

typedef struct ic_multisim_opts {
  const uint8_t *cats; /* category ids, in the user's order */
  int ncat;            /* 1 .. IC_BREAKDOWN_MAX_CATS */
  ic_model_run_fn run;
  void *run_ctx;
  int jobs;            /* worker threads; <= 0: the online cores */
  ic_multisim_progress_fn progress; /* may be NULL */
  void *progress_ctx;
  const uint8_t *need; /* 2^ncat flags: run only the subsets S with need[S]
                          ({} always; NULL: all), e.g. those a breakdown
                          shows (ic_breakdown_needed) */
} ic_multisim_opts;

/* t(S) of every subset by 2^ncat model runs: t_subset[mask] (mask over
 * positions in cats), 2^ncat values; with o->need only the needed subsets
 * run, and the others' t are NAN. Time: 2^ncat (or the needed) model runs
 * over `jobs` threads. */
ic_status ic_multisim_times(const ic_multisim_opts *o, double *t_subset, ic_err *err);

/* The multisim breakdown (out is filled as by ic_breakdown_from_times; free
 * it with ic_breakdown_free). */
ic_status ic_multisim_run(const ic_multisim_opts *o, ic_breakdown *out, ic_err *err);

/* Number of worker threads `jobs` resolves to (<= 0: online cores). */
int ic_multisim_jobs(int jobs);

/* One model run (ideal = {}) feeding a fresh sampler; the breakdown as
 * ic_graphfrag_result. */
ic_status ic_graphfrag_run(const ic_graphfrag_opts *o, ic_model_run_fn run, void *run_ctx,
                           ic_breakdown *out, ic_err *err);

#endif
