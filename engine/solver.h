/* solver.h: the streaming powerset solver.
 *
 * For a chosen list of n <= IC_SOLVER_MAX_CATS categories, one forward pass
 * over graph records (graph_rec.h, rules in graph.h) computes the
 * critical-path length t(S) of all 2^n idealized graphs at once: every live
 * node holds a vector of 2^n arrival times, one per subset. Subset masks are
 * over positions in the caller's list: bit k of a mask stands for cats[k].
 *
 * Memory is bounded by the live window, never by run length: node vectors
 * live in ring buffers indexed by sequence number (one ring per node kind
 * that later instructions read: D, P, C, and E for IW edges, kept only over
 * the subsets that keep IW). A ring grows on the first sight of
 * a longer distance to its node kind (a win-idealized CD edge reaches
 * IC_WIN_FACTOR times the ROB back; it is seen at the first instruction),
 * up to IC_SOLVER_MAX_WINDOW_BYTES of ring memory; an edge whose source is
 * older than the window (including the edge that made it grow) is evaluated
 * with source time 0 and counted (ic_solver_stats.out_of_window). In a graph
 * with CD, CC and PC edges a source more than IC_WIN_FACTOR*ROB instructions
 * back completed before the instruction dispatched (P(j) <= C(j) <= D(i)),
 * so its edge can only bind by a latency longer than the destination's own
 * path from D: the count is an upper bound on edges that could matter.
 *
 * Feeding: either hand ic_solver_sink() to the model (records arrive in
 * commit order, in batches) or call ic_solver_feed() on arrays of records
 * (windows, fragments). Sequence numbers must be consecutive from the first
 * record after create/reset; sources before that first record have time 0.
 *
 * Baseline check: for S = {} the solver's node times must equal the records'
 * stamps t[] (the model's promise, graph_rec.h); every node that does not is
 * counted in ic_solver_stats.violations. On a window that does not start at
 * the program's first instruction the count is meaningless (its sources
 * before the window are time 0). */
#ifndef IC_SOLVER_H
#define IC_SOLVER_H

#include <stddef.h>
#include <stdint.h>

#include "graph_rec.h"
#include "ic_err.h"

#define IC_SOLVER_MAX_CATS 12
/* Cap on the ring-buffer memory; the window is the largest power of two of
 * instructions that fits (at least 1024) once distances ask for more. The
 * window starts at the power of two that fits 16 MB (at least 1024
 * instructions) and doubles when an edge with a longer distance appears. */
#define IC_SOLVER_MAX_WINDOW_BYTES ((size_t)256 << 20)

typedef struct ic_solver ic_solver;

typedef struct ic_solver_stats {
  uint64_t instructions;  /* records consumed since create/reset */
  uint64_t edges;         /* edges consumed */
  uint64_t out_of_window; /* edges whose source had left the window (time 0 used) */
  uint64_t violations;    /* baseline (S = {}) node times != the records' stamps */
  uint64_t first_violation_seq; /* seq of the first such record (valid if violations) */
  uint64_t window;        /* current window, instructions (the largest of the
                             D, P and C rings; D stays small) */
  uint64_t clamped;       /* node times older than 2^29 cycles clamped at rebase */
  uint64_t rebases;       /* times the 32-bit relative times were rebased */
  uint64_t lat_flushes;   /* times the latency-vector store filled and was cleared */
  uint64_t memo_hits;     /* records planned from an earlier record of the same pc */
  uint32_t threads;       /* threads the solver runs on (ic_solver_set_threads) */
  uint64_t split_changes; /* times the adaptive lane split changed (two threads) */
  uint64_t relabels;      /* times categories acted for the first time (the lanes
                             were laid out again, solver_layout.c) */
  uint32_t inert;         /* subset mask (bit k: cats[k]) of the categories that have
                             not acted in any record since create: no latency part
                             of theirs with cycles, no edge their idealization drops
                             (and the edge does not keep), for win no CD edge. Their
                             subsets equal the ones without them, and the solver
                             evaluates only the latter (solver_layout.c) */
} ic_solver_stats;

/* Creates a solver for categories cats[0..ncat) (distinct ic_category ids,
 * 0 <= ncat <= IC_SOLVER_MAX_CATS). IC_EINPUT on a bad list. */
ic_status ic_solver_create(ic_solver **out, const uint8_t *cats, int ncat, ic_err *err);
void ic_solver_destroy(ic_solver *s);

/* A sink feeding this solver (ctx = s); valid while s lives. */
ic_graph_sink ic_solver_sink(ic_solver *s);

/* Consumes n records in order. IC_EINPUT on a malformed record or a gap in
 * sequence numbers (the solver state is then unspecified: reset it).
 * Time complexity: O(n * edges * 2^ncat). */
ic_status ic_solver_feed(ic_solver *s, const ic_graph_rec *recs, size_t n, ic_err *err);

/* t(S) for every subset mask (2^ncat values): the C time of the last record
 * consumed (0 before any). Valid until the next feed/reset/destroy. */
const uint64_t *ic_solver_times(const ic_solver *s);

/* Solves only the subsets S with need[S] != 0 (need: 2^ncat flags, copied;
 * subset {} is always solved; NULL, or every flag set: every subset, the
 * default), e.g. the ones a breakdown shows (ic_breakdown_needed):
 * ic_solver_times is then valid for those alone and reads 0 for the
 * others. Only the needed subsets' lanes are kept and evaluated, packed
 * (the compact layout, solver_layout.c): with 8 categories a breakdown of the
 * singletons, the pairs with the first category and the whole set needs
 * 17 of 256 subsets, and runs about 5x faster. Results for the needed
 * subsets are those of the full solver. Call after create or reset,
 * before the first record (IC_EINPUT after it); kept across resets.
 * Time complexity: O(2^ncat). */
ic_status ic_solver_set_subsets(ic_solver *s, const uint8_t *need, ic_err *err);

int ic_solver_ncat(const ic_solver *s);
uint64_t ic_solver_instructions(const ic_solver *s);
uint64_t ic_solver_invariant_violations(const ic_solver *s);
void ic_solver_get_stats(const ic_solver *s, ic_solver_stats *out);

/* Starts a new independent graph (next record may have any seq). Keeps the
 * categories and the allocated window. */
void ic_solver_reset(ic_solver *s);

/* Sets the window cap (instructions, rounded down to a power of two, at
 * least 64, at most what IC_SOLVER_MAX_WINDOW_BYTES allows); for tests and
 * for bounding memory. A current window above the cap shrinks: call it
 * before feeding or right after a reset. */
void ic_solver_set_window_cap(ic_solver *s, uint64_t max_instructions);

/* Threads: 1 plans and evaluates every record on the caller's thread; 2
 * plans on the caller's thread (checks, sources, latencies: every error is
 * still returned by the feed that met it) while a worker thread evaluates
 * the planned records' vectors, up to a few hundred records behind; results
 * and statistics (ic_solver_times, ic_solver_get_stats,
 * ic_solver_invariant_violations) wait for it. Results are identical in
 * both modes. threads <= 0 chooses: 2 where the process may use two or more
 * CPUs (ic_cpus_allowed) and there are at least 3 categories, else 1;
 * more than 2 means 2. The default at create is <= 0. If the worker cannot
 * be started the solver stays at 1 (ic_solver_threads says which). Not
 * thread-safe: one caller thread per solver, as for every other call. */
void ic_solver_set_threads(ic_solver *s, int threads);
/* The threads the default gives with `cpus` CPUs for the solver alone (a
 * graph run whose model runs on a CPU of its own leaves it cpus - 1). */
int ic_solver_threads_for(int cpus, int ncat);
int ic_solver_threads(const ic_solver *s);

/* Two-thread mode only: the worker evaluates lanes (subsets) [0, lanes) of
 * every record and the caller's thread the rest, besides planning. lanes is
 * rounded down to a multiple of 32 (of 8 below 32 subsets); lanes >= 2^ncat
 * gives the worker all. lanes < 0 (the default, but IC_SOLVER_SPLIT_BLOCKS
 * below): the solver measures now and then which of five is fastest (the
 * worker idle, as one thread; the worker on all lanes; on 3/4 of them; on
 * 1/2; on every other 32-lane block) and runs it while it is (solver_threads.c).
 * For benchmarks and tests; results never depend on it. */
void ic_solver_set_split(ic_solver *s, int lanes);
/* ic_solver_set_split's lanes for a split by 32-lane blocks: the worker
 * evaluates the blocks of even index ([0, 32), [64, 96), ...), the
 * planner's thread the others, so each gets about half of every kind of
 * lane (one of the adaptive candidates; needs 64 lanes or more). */
#define IC_SOLVER_SPLIT_BLOCKS (-2)

/* The node kernels: the same arithmetic lane by lane on every one, so the
 * results are identical bit for bit; the fastest the CPU runs is chosen at
 * create (AUTO). */
typedef enum ic_solver_kernel {
  IC_KERNEL_AUTO,
  IC_KERNEL_PORTABLE, /* GCC vector extensions, 8 lanes: any CPU */
  IC_KERNEL_AVX2,     /* x86-64 with AVX2 */
  IC_KERNEL_AVX512,   /* x86-64 with AVX-512F (and AVX2): 16 lanes a register */
} ic_solver_kernel;

/* Uses kernel k (AUTO: the fastest this CPU runs). Returns 0, changing
 * nothing, where the CPU cannot run k; 1 otherwise. For tests and
 * benchmarks: results never depend on it. */
int ic_solver_set_kernel(ic_solver *s, ic_solver_kernel k);
ic_solver_kernel ic_solver_kernel_in_use(const ic_solver *s);
const char *ic_solver_kernel_name(ic_solver_kernel k); /* "portable", "avx2", ... */

/* Mask over ic_category ids of subset mask `subset` (bit k -> cats[k]). */
ic_catmask ic_solver_subset_catmask(const ic_solver *s, uint32_t subset);

/* Parses a comma-separated category list ("dl1,win,bmisp") into cats[],
 * in the given order. IC_EINPUT for an empty list or item, an unknown name,
 * a duplicate, or more than IC_SOLVER_MAX_CATS names. */
ic_status ic_parse_categories(const char *list, uint8_t *cats, int *ncat, ic_err *err);

#endif
