/* profiler.h: the shotgun profiler breakdown (paper Section 5.4, design #4):
 * the model acts as hardware with the sampling hook of signatures/sig.h;
 * detailed and signature samples go to a database (sig_db.h), signature
 * samples are stitched into fragments (stitch.h) and each fragment's graph is
 * solved alone by the powerset solver, as graphfrag solves its windows
 * (multisim.h), so the two methods' numbers are directly comparable:
 *   T(S) = sum over stitched fragments f of t_f(S), t_f(S) = the commit
 *          time of f's last instruction minus that of its W-th (the warm-up,
 *          W = warmup; 0: the last one's) with S idealized; a fragment that
 *          starts at the run's first instruction (SIG_SK_RUN_START) has
 *          nothing before it and no warm-up (W = 0), and one of W
 *          instructions or fewer (the run's end) is solved whole (W = 0),
 *          as graphfrag's last block. (It used to keep n/2 as warm-up once
 *          cut, and then stood for its block of n - W < 0, an unsigned
 *          wrap: 8 times its time. stream.short on configs/modern.yaml
 *          ends in 553 instructions; they counted 28800 cycles, not about
 *          8100.)
 *   percent of entry U = 100 * icost_T(U) / T({})
 *   cycles: T(S) * N / (sum of the fragments' counted lengths, L - W
 *           each, a prefix's as below), N = the run's timed instructions
 *           (when known; else the fragments' own cycles)
 *   lo/hi: bootstrap 95% interval of each entry's percent: B resamples of
 *          the fragments with replacement (GSL MT19937 seeded from the
 *          seed), 2.5th and 97.5th percentiles.
 * Fragments are stitched with ic_stitch_fragment_prefix: one whose path
 * becomes unknown at an indirect target counts with its known prefix of
 * n' >= IC_PROFILER_MIN_PREFIX instructions, standing for its block of n
 * (the skeleton's length): t_f(S) is the prefix's time from its warm-up (W,
 * or n'/2 where n' <= W) times s = min((n - W) / (n' - W'),
 * IC_PROFILER_PREFIX_SCALE), and it counts (n' - W') s instructions. Where
 * the walk stops is cold code run once (an indirect jump no detailed sample
 * saw), and slow; counting only the prefix (s = 1) left most of a cold
 * start out. The profiler's mean error on bench_machines.sh (16 random
 * machines x mix.short, bzip2.short, x_list; signature samples back to
 * back, 200 kept) with the scale capped at 1, 2, 4, 8 and not capped:
 * 9.30, 8.30, 7.68, 7.34, 7.39% (7.51% at 8 with the kept samples of
 * sig_db's draw, not the trial's); uncapped, a prefix of 172 counted
 * instructions at a cold start (1 MSHR, 200-cycle memory) stood for 14336
 * and put 17.6 points on win. Aborted fragments are left out (both counted
 * in the stitch statistics). */
#ifndef IC_PROFILER_H
#define IC_PROFILER_H

#include <stdint.h>

#include "breakdown.h"
#include "ic_err.h"
#include "inst.h"
#include "multisim.h"
#include "sig.h"
#include "sig_db.h"
#include "stitch.h"

#define IC_PROFILER_DEFAULT_DETAIL_INTERVAL 64
#define IC_PROFILER_DEFAULT_SIGNATURE_INTERVAL 10000
#define IC_PROFILER_BOOTSTRAP 1000
#define IC_PROFILER_MIN_PREFIX 64  /* instructions of a cut fragment to keep it */
#define IC_PROFILER_PREFIX_SCALE 8 /* at most this many times its counted part */
/* Detailed samples ic_profiler_run keeps at most (sig_db_keep_details, a
 * uniform reservoir): about 15 MB. At the default interval a run of 8.4M
 * instructions fills it; a longer one keeps that many chosen uniformly at
 * random, so its memory is the same however long it runs. */
#define IC_PROFILER_MAX_DETAILS (UINT64_C(1) << 17)

typedef struct ic_profiler_opts {
  const uint8_t *cats;         /* category ids, in the user's order */
  int ncat;                    /* 1 .. IC_BREAKDOWN_MAX_CATS */
  sig_machine machine;         /* sig_machine_from_config of the run's config */
  uint64_t detail_interval;    /* mean; 0: IC_PROFILER_DEFAULT_DETAIL_INTERVAL */
  uint64_t signature_interval; /* mean; 0: IC_PROFILER_DEFAULT_SIGNATURE_INTERVAL */
  uint32_t length;             /* L; 0: SIG_DEFAULT_LENGTH */
  uint64_t fragments;          /* signature samples stitched, chosen at random
                                  without replacement; 0: all of them. In
                                  ic_profiler_run the choice is made while
                                  the run goes (reservoir sampling), so
                                  memory holds at most this many skeletons
                                  however long the run */
  uint32_t warmup;             /* W: the first W instructions of each fragment are
                                  solved but not counted (as graphfrag's warmup;
                                  0: none; must be below L) */
  uint64_t seed;               /* sampling, fragment choice, bootstrap */
  int bootstrap;               /* resamples; 0: IC_PROFILER_BOOTSTRAP; < 0: none */
  const uint8_t *need;         /* 2^ncat flags: solve only the subsets S with
                                  need[S] (as ic_graphfrag_opts.need; NULL: all) */
} ic_profiler_opts;

typedef struct ic_profiler_stats {
  sig_sampler_stats sampler; /* collection (ic_profiler_run only) */
  ic_stitch_stats stitch;
  uint64_t instructions;     /* the run's timed instructions (0: unknown) */
  uint64_t fragment_instructions; /* counted instructions of the stitched fragments
                                     (their length minus the warm-up) */
} ic_profiler_stats;

/* Collect and stitch in one go (for `icost --method profiler` and `icost
 * validate`): one model run with ideal = {} and the sampling hook as its
 * graph sink, samples kept in memory, then ic_profiler_analyze. img is the
 * program image of the run's program (rv_proc_image of the checkpoint).
 * IC_ERUN when no fragment could be stitched (the message says why: run
 * shorter than L, or every fragment aborted). st may be NULL. */
ic_status ic_profiler_run(const ic_profiler_opts *o, ic_model_run_fn run, void *run_ctx,
                          const ic_program_image *img, ic_breakdown *out, ic_profiler_stats *st,
                          ic_err *err);

/* The signature-sample interval that gives about `fragments` fragments of
 * `length` instructions (0: SIG_DEFAULT_LENGTH) in a run of `max` timed
 * instructions; 1 (back to back: as many as fit) when the run is too short
 * for that many, or when its length is unknown (max 0: the collection then
 * keeps `fragments` of them, ic_profiler_opts.fragments); 0 (the
 * profiler's default interval) when fragments is 0. With the default
 * interval a run of unknown length got about one fragment per 14k
 * instructions: 31 on bzip2.short (0.43M instructions), which missed its
 * first 20k instructions, a cold start taking 27% of its cycles, and
 * estimated 28% too few cycles. */
uint64_t ic_profiler_signature_interval_for(uint64_t max, uint64_t fragments, uint32_t length);

/* Sets o's signature interval and fragments for about `fragments` (0:
 * IC_GRAPHFRAG_DEFAULT_FRAGMENTS) fragments of o->length in a run of `max`
 * timed instructions: the interval above, and where max is 0 (unknown)
 * the samples back to back with that many kept as the run goes. */
void ic_profiler_set_sampling(ic_profiler_opts *o, uint64_t max, uint64_t fragments);

/* The offline half: stitch the signature samples of a built database and
 * compute the breakdown. run_instructions scales cycles (0: unscaled).
 * st (may be NULL) gets the stitch counts. Time complexity: O(K L 2^ncat)
 * for K fragments of L instructions, plus B K 2^ncat for the bootstrap. */
ic_status ic_profiler_analyze(const ic_profiler_opts *o, const sig_db *db,
                              const ic_program_image *img, uint64_t run_instructions,
                              ic_breakdown *out, ic_profiler_stats *st, ic_err *err);

/* The t_f(S) vectors of the stitched fragments, for tests and tools:
 * *times gets a malloc'ed array of (*nfrag) * 2^ncat values (fragment f's
 * vector at f * 2^ncat), *lens their lengths (malloc'ed). */
ic_status ic_profiler_fragment_times(const ic_profiler_opts *o, const sig_db *db,
                                     const ic_program_image *img, double **times,
                                     uint64_t **lens, uint64_t *nfrag, ic_stitch_stats *st,
                                     ic_err *err);

#endif
