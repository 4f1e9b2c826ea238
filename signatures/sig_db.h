/* sig_db.h: the sample database: detailed samples grouped by pc, signature
 * samples in arrival order, and best-match lookup.
 *
 * Match quality of a detailed sample against a wanted signature w under a
 * mask (the window positions the caller knows) is the number of identical
 * bits: popcount(~(sig ^ w) & mask), at most 42. The best match maximizes
 * it; ties go to the sample whose retire count is nearest the wanted one
 * (the profiler's timestamp: in the same program phase), then to the lower
 * retire count, then to the earlier sample. Fully deterministic.
 *
 * Index: a hash table on pc; each pc holds its distinct signatures (sorted)
 * and, per signature, its samples sorted by retire count. A lookup costs a
 * hash probe, a scan over the pc's distinct signatures (a popcount each) and
 * a binary search per best signature: fast for millions of samples, since
 * the distinct signatures of a pc are few compared with its samples. */
#ifndef IC_SIG_DB_H
#define IC_SIG_DB_H

#include <stddef.h>
#include <stdint.h>

#include "ic_err.h"
#include "sig.h"

typedef struct sig_db sig_db;

ic_status sig_db_create(sig_db **out, ic_err *err);
void sig_db_destroy(sig_db *db);
/* sig_out callbacks that add copies of samples (ctx = db). Adding after
 * sig_db_build is an error. */
sig_out sig_db_out(sig_db *db);
/* Builds the index. Time complexity: O(n log n). */
ic_status sig_db_build(sig_db *db, ic_err *err);

/* Keep at most k signature samples (0, the default: all of them). Each
 * one added replaces, with probability k / (the number added so far), a
 * kept one chosen at random (reservoir sampling, Vitter's algorithm R):
 * the kept ones are k of those added, chosen uniformly at random without
 * replacement, in k * L bytes however long the run; sig_db_build puts them
 * in the order of their retire counts. The choice is seeded (deterministic
 * for a seed). Call before adding any. */
ic_status sig_db_keep_skeletons(sig_db *db, uint64_t k, uint64_t seed, ic_err *err);

/* Keep at most k detailed samples (0, the default: all of them), by the
 * same kind of uniform reservoir as sig_db_keep_skeletons (Vitter's
 * algorithm R, seeded): the kept ones are k of those added, chosen
 * uniformly at random, in about k * 110 bytes however long the run (the
 * packed bytes of replaced samples are reused once they are an eighth of
 * the pool). k must be below 2^24. Call before adding any. */
ic_status sig_db_keep_details(sig_db *db, uint64_t k, uint64_t seed, ic_err *err);
/* Bytes the detailed samples take (arrays and pool, as allocated). */
size_t sig_db_detail_bytes(const sig_db *db);
/* Detailed samples kept. */
size_t sig_db_details(const sig_db *db);
/* Signature samples kept (all of those added, or the reservoir's). */
size_t sig_db_skeletons(const sig_db *db);
/* Signature samples added (kept or not). */
uint64_t sig_db_skeletons_seen(const sig_db *db);
/* Distinct pcs with detailed samples (after build). */
size_t sig_db_pcs(const sig_db *db);
/* The i-th of them, in ascending order (i < sig_db_pcs). */
uint64_t sig_db_pc(const sig_db *db, size_t i);
const sig_skeleton *sig_db_skeleton(const sig_db *db, size_t i);
/* Copies detailed sample i (in arrival order) into *out. */
void sig_db_detail(const sig_db *db, size_t i, sig_detail *out);

/* Best detailed sample for pc against signature want under mask (both over
 * the 42-bit layout of sig.h), near retire count seq: returns 1 and copies
 * it into *out (may be NULL), or 0 when the pc has no sample. *same (may be
 * NULL) gets the number of identical bits.
 * Time complexity: O(distinct signatures of pc * log samples). */
int sig_db_best(const sig_db *db, uint64_t pc, uint64_t want, uint64_t mask, uint64_t seq,
                sig_detail *out, int *same);

/* As sig_db_best, but agreement on the bits of `first` (a subset of mask)
 * ranks before agreement on the others: a sample agreeing on more bits of
 * `first` wins whatever the rest; among those, the most identical bits over
 * mask, then the tie-breaks above. *same counts identical bits over mask.
 * Time complexity: as sig_db_best. */
int sig_db_best_first(const sig_db *db, uint64_t pc, uint64_t want, uint64_t mask,
                      uint64_t first, uint64_t seq, sig_detail *out, int *same);

/* As sig_db_best_first, but spread over instances: where no sample of the
 * best group (the signature the best match is of) is of retire count seq
 * itself, one of its SIG_DB_SPREAD samples nearest seq (all of them where
 * it has fewer): from the one a hash of seq chooses on, cyclically, the
 * first that `fits` accepts (NULL: any). The stitcher's choice: the
 * nearest sample is the same for every instance of the pc over a stretch
 * of retire counts (for a loop, dozens of iterations), so what varies by
 * instance and the bits do not show (a load's memory producer, which
 * depends on addresses) was copied into all of them, and a dependence that
 * links one iteration in 16 linked every one: a critical path through
 * memory the run never had. *fit (may be NULL) is 1 for the instance's
 * own sample or one that fits, 0 when none of them fits (then *out is the
 * hashed one). Deterministic: the same arguments pick the same sample.
 * Time complexity: as sig_db_best_first, plus up to SIG_DB_SPREAD unpacks
 * and calls of fits. */
#define SIG_DB_SPREAD 16
typedef int (*sig_db_fits)(void *ctx, const sig_detail *d);
int sig_db_pick(const sig_db *db, uint64_t pc, uint64_t want, uint64_t mask, uint64_t first,
                uint64_t seq, sig_db_fits fits, void *ctx, sig_detail *out, int *same, int *fit);

/* The sample nearest retire count seq (the nearer of the two on either
 * side first; equally near: the later) among those of the best group (as
 * sig_db_pick's) that `fits` accepts, looking at no more than `max` of
 * them: 1 and the sample in *out, or 0 (none within max, or no sample of
 * pc; *out then holds the last one looked at). For what the SIG_DB_SPREAD
 * nearest do not show: the stitcher's memory producers that vary with the
 * path. Time complexity: as sig_db_best_first, plus up to max unpacks and
 * calls of fits. */
int sig_db_pick_far(const sig_db *db, uint64_t pc, uint64_t want, uint64_t mask, uint64_t first,
                    uint64_t seq, sig_db_fits fits, void *ctx, size_t max, sig_detail *out);

/* The distinct next pcs (indirect targets) the samples of pc went to, best
 * first: each ranked by the best score (as sig_db_best_first: agreement on
 * `first`, then on mask) of a sample that went there; equal scores: the
 * lower pc first. At most max (<= SIG_DB_MAX_TARGETS) into out; returns how
 * many. A signature's first SIG_DB_TARGET_SCAN samples are looked at.
 * Time complexity: O(distinct signatures of pc * SIG_DB_TARGET_SCAN * max). */
#define SIG_DB_MAX_TARGETS 16
#define SIG_DB_TARGET_SCAN 64
size_t sig_db_targets(const sig_db *db, uint64_t pc, uint64_t want, uint64_t mask,
                      uint64_t first, uint64_t *out, size_t max);

/* The mean cycles of an I-cache miss over the detailed samples that had one
 * (their DD imiss part, or the whole miss on the PD edge into them after a
 * misprediction), rounded; 0 when no sample had one. What a miss costs in
 * this program (mostly L2 hits, or mostly memory at a cold start), for the
 * misses the stitcher infers from the bits. Time complexity: O(1). */
uint32_t sig_db_imiss_cycles(const sig_db *db);

#endif
