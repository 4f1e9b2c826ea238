/* stitch.h: the shotgun profiler's stitcher (paper Fig. 7): a signature
 * sample is the skeleton of a fragment; walking it through the program
 * image and picking, for each instruction, the detailed sample that best
 * matches the skeleton's bits around it gives the fragment's dependence
 * graph as graph records (graph_rec.h) the solver evaluates.
 *
 * Walk. Position k has the pc reached so far (k = 0: the start pc) and the
 * skeleton's 2 bits. The static instruction at pc (program image) decides:
 *   not a control transfer  -> pc + size
 *   conditional branch      -> bit1 ? direct target : pc + size
 *   jump                    -> direct target
 *   call                    -> push pc + size; direct target, or for an
 *                              indirect call the matched sample's next pc
 *   return                  -> pop; on an empty stack the matched sample's
 *                              next pc (treated as an indirect jump)
 *   indirect jump           -> the matched sample's next pc
 * An indirect target is checked first: if the skeleton's bits up to its
 * end or to the next unknown target do not fit the code from there (an
 * impossible bit/opcode combination or a pc outside the code), the
 * best-ranked other target the
 * pc's samples went to that fits is taken instead (counted as redirected;
 * sig_db_targets); with none, the fragment aborts (no_target: the walk
 * would abort on the bits a little later).
 * The fragment is aborted (counted, no records) when the pc is outside the
 * code, when the bits are impossible for the opcode (bit1 on an instruction
 * that is not a branch, jump, load or store; bit1 = 0 on a jump, call,
 * return, indirect jump or store; a load with neither bit: an L2 miss that
 * is not a miss), or when an indirect target is needed and no sample of the
 * pc exists or none of the targets its samples went to fits the bits.
 *
 * Records. Position k's edges come from its best sample (sig_db.h: window of
 * the skeleton's bits at k-10..k+10 that lie inside the skeleton, the
 * centre (k's own 2 bits) ranked first; wanted retire count = the
 * skeleton's + k; of the best signature's samples, k's own instance's, else
 * one of the SIG_DB_SPREAD nearest that retire count, varying with it
 * (sig_db_pick): what the bits do not show, such as a load's memory
 * producer, then varies from instance to instance as in the run; for a
 * load or store that missed, the first of those whose wait for a line
 * another access brought (PP) finds a load that missed or a store at its
 * distance in the fragment, and where none does, the instance is the
 * line's first miss: no PP, a load's latency from the bits, counted as
 * first_misses; for a load, also one whose memory producer writes memory
 * at its distance in the fragment or lies before it, and where none does,
 * no memory producer, counted as mem_dropped): DD, RE (but for its bw
 * part, and for a wait for an MSHR an earlier miss freed, which the MSHR
 * rule gives from the fragment's own misses), EP, CC, PP, memory PR,
 * the FBW/CD/PC/CBW overrides and any other measured kind (FU, MSHR) as
 * sampled; the PD item
 * of the sample at k-1 becomes k's PD edge (at k = 0, which has no previous
 * sample: the PD item the sample of k charged to itself, SIG_ITEM_SELF).
 * Own bits first: where the best sample's own bits differ from the
 * skeleton's (no sample of the pc agreed), what the bits decide is taken
 * from them as for an inferred instruction: a load's EP (hit / L2 hit / L2
 * miss; no PP and no dmiss wait on a hit), a store's dmiss parts, a control
 * transfer's misprediction penalty for the next instruction, the I-cache
 * miss (counted as patched).
 * I-cache misses: with the machine's l1i.line, a miss can only be at the
 * first fetch from a line the fragment's path has not fetched before (its
 * code fits the I-cache; the model has no wrong-path fetch). Bit 2 there of
 * a load, store or control transfer is the miss when some detailed sample
 * of the program had an I-cache miss and no sample of the pc shows bit 2 as
 * its own event (centre bit 2 without an I-cache miss: a hot instruction's
 * line was fetched before the fragment; code with no such sample is rarely
 * run, cold). Its own bit 2 is then unknown (matching ignores it, the
 * sample's own is kept), except a load's with bit 1 clear (an L2 data miss,
 * which keeps it). Elsewhere bit 2 of those is their own event; of any
 * other instruction it is the miss. A
 * miss gets a sample's own miss cycles where it has them, else the mean
 * sampled miss (sig_db_imiss_cycles; l2.latency when no sample had one);
 * DD (and the PD edge into the instruction after a misprediction) carry no
 * miss where the bits say there is none. Without l1i.line (0) no position
 * is taken as a first fetch.
 * Fetch breaks: DD's bw part (the one-cycle break before the first
 * instruction of a fetch group) is placed by the path, not copied: groups
 * end after fetch_width instructions or at the fetch_taken-th taken control
 * transfer (bit 1), and restart after a misprediction; the first of a group
 * after one a taken transfer ended gets 1 cycle (bw) (after one the width
 * ended, none: FBW holds it, as in the model), unless the window holds it or held
 * its predecessor (the CD edge reaches at least the DD bound in the
 * stitched graph's own times: the fetch queue is backed up and the break
 * hides behind it, as the model charges no bw where fetch waits on a full
 * queue). Only a sample of this very instance (retire count = the
 * skeleton's + k) keeps its own DD as measured.
 * Issue slots: RE's bw part (the wait for an issue slot) and the IW edges
 * are the fragment's own, not a sample's: where the slots were taken and by
 * whom depends on the phase of the code around an instance, and waits
 * pasted from instances of other phases land where this fragment had free
 * slots (on a store-bound loop the stitched time was 18% too long). In
 * position order (oldest first, as the model issues) each takes the first
 * cycle from the time its other E edges give with fewer than issue_width
 * older issues and fewer than its pool's units (fu.*, ooo_pool_of) of its
 * pool; a delay is RE's bw part; its IW edges are from the issue_width-th
 * most recent older issue and, where its pool has fewer units, from the
 * units-th most recent of the pool (graph_rec.h), with the keep mask the
 * model would set from the fragment's own mispredictions, I-cache misses
 * and window stalls of the last rob positions (dmiss: the sample's IW
 * edge's, or else whether the fragment had a miss within IC_WIN_FACTOR *
 * rob or no window stall). A sample of this very instance keeps its own
 * RE and IW.
 * Rebuilt from the machine: DR (dispatch_ready),
 * FBW (fetch_width, bw 1), CD (rob, 0), PC (1), CBW (commit_width, bw 1)
 * as the sample's present mask says, register PR edges to the last writer of
 * each source register within the fragment and within IC_WIN_FACTOR * rob
 * (latency wakeup - 1), IBW edges (latency 1, bw) to the register ancestor
 * issue_width + 1 steps up the chain through each instruction's youngest
 * register producer (issue_width 1..16; none outside), as the model builds
 * them.
 * Inferred, where the pc has no detailed sample (or the sample's opclass
 * disagrees with the image): no DD/RE/CC waits; EP = the opclass latency
 * (shalu for one-cycle integer and control ops, lgalu for the others, a load
 * dl1 = l1d.latency plus, with bit2, dmiss = l2.latency (bit1 set) or
 * l2.latency + mem.latency (bit1 clear: an L2 miss)); bit2 on a control
 * transfer is a misprediction (PD into the next: recovery + frontend_depth);
 * bit2 elsewhere as above; all of FBW, CD, CBW present.
 * A position is an exact match when all the window's known bits match, an
 * approximate match otherwise. */
#ifndef IC_STITCH_H
#define IC_STITCH_H

#include <stddef.h>
#include <stdint.h>

#include "graph_rec.h"
#include "ic_err.h"
#include "inst.h"
#include "sig.h"
#include "sig_db.h"

/* X(enum suffix, name, meaning) */
#define IC_STITCH_ABORT_LIST(X) \
  X(PC, "bad_pc", "pc outside the program's code") \
  X(BITS, "bad_bits", "signature bits impossible for the opcode") \
  X(TARGET, "no_target", "indirect target unknown (no detailed sample, or none fits the bits)")

typedef enum ic_stitch_abort {
#define IC_X(e, n, d) IC_STITCH_ABORT_##e,
  IC_STITCH_ABORT_LIST(IC_X)
#undef IC_X
  IC_STITCH_ABORT_COUNT
} ic_stitch_abort;

extern const char *const ic_stitch_abort_names[IC_STITCH_ABORT_COUNT];
extern const char *const ic_stitch_abort_help[IC_STITCH_ABORT_COUNT];

typedef struct ic_stitch_stats {
  uint64_t fragments;    /* skeletons walked */
  uint64_t stitched;     /* fragments completed */
  uint64_t aborted;      /* fragments aborted */
  uint64_t abort_why[IC_STITCH_ABORT_COUNT];
  uint64_t instructions; /* records of completed fragments */
  uint64_t exact;        /* ... whose sample matched every known window bit */
  uint64_t approx;       /* ... whose best sample differed in some bit */
  uint64_t inferred;     /* ... built from bits and defaults (no sample) */
  uint64_t patched;      /* ... whose sample's own bits differed from the
                            skeleton's (counted in exact/approx as well) and
                            were corrected from the bits */
  uint64_t redirected;   /* indirect targets (returns without their call,
                            indirect jumps and calls) taken from another
                            sample than the best because the bits after the
                            best one's did not fit the code */
  uint64_t truncated;    /* fragments kept as the prefix before an unknown
                            indirect target (ic_stitch_fragment_prefix;
                            counted in stitched too) */
  uint64_t site_returns; /* returns without their call or a fitting sampled
                            target sent to a return site (ic_stitch_sites) */
  uint64_t unwound;      /* returns whose call's return site the bits after
                            them did not fit (a longjmp, a context switch):
                            the walk's call stack was dropped there */
  uint64_t near_jumps;   /* indirect jumps without a sample that fits sent to
                            the code near them the bits fit furthest (a jump
                            table: within 2 KB where one fits furthest, else
                            the nearest that does within 16 KB, stitch.c) */
  uint64_t pointer_calls; /* indirect calls without a sample that fits sent to
                             the code address held in the program's data
                             that the bits fit furthest (a function pointer,
                             ic_program_image.code_pointers) */
  uint64_t first_misses; /* positions none of whose nearest samples waits
                            for a line an access of this fragment brought
                            (sig_db_pick, pp_fits): taken as the line's
                            first miss, the wait dropped and a missing
                            load's latency from its bits */
  uint64_t mem_dropped;  /* loads none of whose nearest samples has a
                            memory producer that writes memory at its
                            distance in this fragment (mem_fits): no memory
                            producer */
} ic_stitch_stats;

/* The program's return sites: the instruction after each call the code
 * holds, found by decoding the image around the sampled pcs (from 256 KiB
 * below the lowest to 256 KiB above the highest; the image gives no code
 * range). A return whose call precedes the fragment and whose target no
 * sample gives (code run once: start-up, the first call of a routine,
 * where the cold-start I-cache misses are) returns to one of them: the
 * stitcher takes the site the skeleton's bits fit furthest from, when no
 * other fits as far (else the target stays unknown). The fit is checked up
 * to the next unknown target; where the path turns out impossible later
 * (a pc outside the code, bits impossible for the opcode), the fragment is
 * kept up to the latest such return (counted as truncated) rather than
 * aborted. */
typedef struct ic_stitch_sites ic_stitch_sites;
ic_status ic_stitch_sites_create(ic_stitch_sites **out, const sig_db *db,
                                 const ic_program_image *img, ic_err *err);
void ic_stitch_sites_destroy(ic_stitch_sites *s);
size_t ic_stitch_sites_count(const ic_stitch_sites *s);

/* Adds b's counts to a. */
void ic_stitch_stats_add(ic_stitch_stats *a, const ic_stitch_stats *b);

/* Stitches skeleton sk into recs[0 .. sk->n) (seq 0..n-1; stamps t: the
 * stitched graph's node times with nothing idealized, sources before the
 * fragment at time 0, as the solver has them). On
 * success *built = sk->n; on an abort *built = 0 and the reason is counted
 * in st (st's counts are added to, not reset). Returns IC_OK either way;
 * IC_ERUN only when out of memory (the IBW ancestor rows).
 * Time complexity: O(n * (distinct signatures per pc + log samples)). */
ic_status ic_stitch_fragment(const sig_db *db, const sig_machine *m, const ic_program_image *img,
                             const sig_skeleton *sk, ic_graph_rec *recs, size_t *built,
                             ic_stitch_stats *st, ic_err *err);

/* As ic_stitch_fragment, but where the walk needs an indirect target it
 * cannot know (no_target) at position k, the fragment is kept as its first
 * k + 1 instructions (the path up to there is known; *built = k + 1,
 * counted in truncated and stitched) if that is at least min_keep, and
 * aborted otherwise. Cutting instead of discarding keeps the code before a
 * hard indirect jump in the sample (discarding leaves out every fragment
 * that meets one). ic_stitch_fragment is min_keep = sk->n. */
ic_status ic_stitch_fragment_prefix(const sig_db *db, const sig_machine *m,
                                    const ic_program_image *img, const sig_skeleton *sk,
                                    uint32_t min_keep, ic_graph_rec *recs, size_t *built,
                                    ic_stitch_stats *st, ic_err *err);

/* As ic_stitch_fragment_prefix, with the return sites (NULL: none) for
 * returns whose target is otherwise unknown. */
ic_status ic_stitch_fragment_sites(const sig_db *db, const sig_machine *m,
                                   const ic_program_image *img, const ic_stitch_sites *sites,
                                   const sig_skeleton *sk, uint32_t min_keep, ic_graph_rec *recs,
                                   size_t *built, ic_stitch_stats *st, ic_err *err);

/* A decode cache in front of a program image: the stitcher looks the same
 * pcs up many times over (every candidate target's path is walked, and
 * the far search of an indirect jump walks from every instruction within
 * 16 KB), and decoding from the guest's memory was most of a profiler
 * analysis (lua.short: 38% of the time). Direct-mapped, 2^16 entries
 * (about 3 MB); the results are the inner image's. Not thread-safe. */
typedef struct ic_image_cache ic_image_cache;
ic_status ic_image_cache_create(ic_image_cache **out, const ic_program_image *inner, ic_err *err);
void ic_image_cache_destroy(ic_image_cache *c);
/* The cached image (ctx = c); valid while c lives. */
ic_program_image ic_image_cache_image(ic_image_cache *c);

#endif
