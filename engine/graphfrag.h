/* graphfrag.h: the graphfrag breakdown, from random windows of the full
 * run's dependence graph (the method itself is described in multisim.h,
 * which also declares ic_graphfrag_run, the one-call version driven by a
 * model run). This is the streaming window sampler: a graph sink that
 * chooses K windows of L instructions by reservoir sampling and keeps only
 * their t(S) vectors, then the breakdown with its bootstrap interval. */
#ifndef IC_GRAPHFRAG_H
#define IC_GRAPHFRAG_H

#include <stdint.h>

#include "breakdown.h"
#include "graph_rec.h"
#include "ic_err.h"

#define IC_GRAPHFRAG_DEFAULT_LEN 2000       /* the profiler's fragment length */
#define IC_GRAPHFRAG_DEFAULT_FRAGMENTS 200
#define IC_GRAPHFRAG_BOOTSTRAP 1000

typedef struct ic_graphfrag_opts {
  const uint8_t *cats;
  int ncat;
  uint64_t length;    /* L, instructions per window (0: IC_GRAPHFRAG_DEFAULT_LEN) */
  uint64_t fragments; /* K, windows (0: IC_GRAPHFRAG_DEFAULT_FRAGMENTS) */
  uint64_t warmup;    /* W: the first W instructions of each window are solved but
                         not counted (0: none; must be < L): t_w(S) = C(last) -
                         C(W-th) under S, so the counted part starts with a
                         pipeline already filled by the window's own instructions */
  uint64_t seed;      /* window offset, reservoir and bootstrap */
  int bootstrap;      /* resamples (0: IC_GRAPHFRAG_BOOTSTRAP; < 0: no interval) */
  const uint8_t *need; /* 2^ncat flags: solve only the subsets S with need[S]
                          (ic_solver_set_subsets; NULL: all); the result's
                          t of the others are NAN (ic_breakdown_needed) */
} ic_graphfrag_opts;

/* The streaming window sampler: a graph sink that keeps K windows' t(S). */
typedef struct ic_graphfrag ic_graphfrag;

ic_status ic_graphfrag_create(ic_graphfrag **out, const ic_graphfrag_opts *o, ic_err *err);
void ic_graphfrag_destroy(ic_graphfrag *g);
/* The sink to hand the model (ctx = g); records must start at seq 0. */
ic_graph_sink ic_graphfrag_sink(ic_graphfrag *g);
/* Windows chosen so far (the complete ones, and the block the run is in
 * where it was chosen: the result counts it as the run's last) and
 * instructions seen. */
uint64_t ic_graphfrag_windows(const ic_graphfrag *g);
uint64_t ic_graphfrag_instructions(const ic_graphfrag *g);
/* The offset of the first block (drawn from the seed at create time). */
uint64_t ic_graphfrag_offset(const ic_graphfrag *g);
/* The breakdown over the chosen windows (layout in multisim.h) with lo/hi filled
 * unless bootstrap < 0. The block the run ended in counts where it was
 * chosen, with the instructions it has (after its warm-up where it has more
 * than W, else all of them). IC_ERUN when no record came. */
ic_status ic_graphfrag_result(const ic_graphfrag *g, ic_breakdown *out, ic_err *err);

/* The fragment length the fragment methods use by default on a machine
 * with this ROB: IC_FRAG_LENGTH_WINDOWS times win's idealized window
 * (IC_WIN_FACTOR x the ROB), at least IC_GRAPHFRAG_DEFAULT_LEN, at most
 * 1000000. A fragment sees only the overlap within it: what a 20x window
 * removes reaches over about 20 ROBs, and fragments of 2000 instructions
 * on the baseline machine (ROB 64: a 1280-instruction window) showed 72%
 * of win's cost on x_strings (19.0% against 26.4% in multisim; 23.3% at
 * 4000, 25.2% at 8000). 3 windows: 3840 instructions on the baseline
 * machine, 15360 on the modern one. */
#define IC_FRAG_LENGTH_WINDOWS 3
uint64_t ic_fragment_length_for(uint32_t rob);

/* The warm-up the fragment methods use by default: IC_FRAG_WARMUP_ROBS
 * times the ROB (enough for the window to fill with the fragment's own
 * instructions and their backlog of long operations to build up), at most
 * half the fragment length (length 0: IC_GRAPHFRAG_DEFAULT_LEN). */
#define IC_FRAG_WARMUP_ROBS 4
uint64_t ic_fragment_warmup_for(uint32_t rob, uint64_t length);

/* Shared by the fragment methods (graphfrag windows, profiler fragments).
 * t holds m fragments' t(S) vectors, fragment f's at t[f * 2^ncat].
 * ic_fragments_sum: sum[S] = sum over f of t_f(S) (idx: the fragments to sum,
 * with repeats, or NULL for 0..m-1).
 * ic_fragments_bootstrap: out->lo/hi (allocated here) = the 2.5th and 97.5th
 * percentiles of each entry's percent over nb resamples of the m fragments
 * with replacement (GSL MT19937 seeded from seed). Time: O(nb m 2^ncat). */
void ic_fragments_sum(const double *t, size_t nsub, const uint64_t *idx, uint64_t m, double *sum);
ic_status ic_fragments_bootstrap(const double *t, uint64_t m, int ncat, int nb, uint64_t seed,
                                 ic_breakdown *out, ic_err *err);

#endif
