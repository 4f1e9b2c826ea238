/* sig.h: the shotgun profiler's hardware side: signature bits, detailed and
 * signature samples, and the ProfileMe-like sampling hook (paper Section
 * 5.4, Tables V and VI).
 *
 * The hook is an ic_graph_sink wrapper: it sees every committed record in
 * commit order, as the hardware sees a tagged instruction retire (our model
 * has no wrong path, so every fetched instruction retires and the
 * fetched-instruction counter equals the retired-instruction counter). It
 * forwards the records to an optional inner sink unchanged.
 *
 * Signature bits (Table VI), 2 per instruction, derived from the records:
 *   bit1 (SIG_B1) = 1 for a taken conditional branch (next record's pc !=
 *          pc + size; size from the program image), any jump, call, return
 *          or indirect jump, and any load or store; reset to 0 for a load
 *          that missed the L2: its EP dmiss part exceeds l2.latency +
 *          tlb.miss_latency, the longest an L2 hit (with a DTLB miss) can
 *          take, so only a wait on memory exceeds it.
 *   bit2 (SIG_B2) = 1 on an L1I/L2/ITLB miss (an imiss part of the DD edge,
 *          or of the PD edge into it), an L1D/L2/DTLB miss of a load or
 *          store (an EP dmiss part, or a PP edge: the load waited on a line
 *          already in flight), or a misprediction (the next record has a PD
 *          edge).
 *
 * Detailed sample: what a ProfileMe latency register file would hold for
 * the tagged instruction, as latencies (with the cause of each part) and
 * distances, never as absolute times:
 *   DD   fetch-to-dispatch gap parts (I-cache miss cycles, fetch breaks, ...)
 *   PD   for a mispredicted control transfer: the penalty parts charged to
 *        the NEXT instruction's dispatch (recovery + refill + its fetch miss);
 *        with flag SIG_ITEM_SELF: the penalty charged to this instruction
 *        (after a mispredicted predecessor)
 *   PR   (flag IC_EDGE_MEM) memory-producer distance (store -> load)
 *   RE   issue wait parts (issue width, FU contention, MSHR stall; the
 *        stitcher uses the issue-slot part, bw, only at the sample's own
 *        instance: elsewhere the fragment's own slots decide, stitch.h)
 *   EP   execution latency parts (dl1, dmiss, shalu, lgalu)
 *   PP   cache-line-sharing producer distance
 *   CC   commit wait parts (store bandwidth, residual)
 *   FBW, CD, PC, CBW only when their latency differs from the machine's
 *        constant (a stall residual was charged to them); whether FBW, CD
 *        and CBW exist at all is the `present` mask (they do not at the
 *        start of a run).
 *   any other edge kind of graph_rec.h (FU: the divide whose completion
 *        frees a unit of the op's pool, MSHR: the earlier miss whose
 *        completion freed the MSHR a missing load got, IW: the older
 *        instruction n issue slots ahead, with its keep mask, which the
 *        stitcher uses only at the sample's own instance, and kinds added
 *        later) as measured, with its distance and parts.
 * The stitcher rebuilds the other edges offline: DR from core.dispatch_ready,
 * register PR edges from the static registers of the stitched path (the last
 * writer within IC_WIN_FACTOR * core.rob instructions, as the model does,
 * latency core.wakeup - 1), IBW edges from the register chains of that path
 * (core.issue_width), FBW/CD/CBW distances from the widths and the ROB.
 * (IBW is not sampled: its source is a register ancestor issue_width + 1
 * steps up a chain, which depends on the path; a distance copied from
 * another instance would point at whatever instruction lies there, a long
 * miss as likely as not.)
 * Besides: pc, opclass, the next pc (the indirect target), the retire count
 * at the tag (a timestamp: the database's tie-break), and the signature: the
 * bits of the 10 instructions before, itself and the 10 after.
 *
 * Signature word layout (42 bits in a uint64): bits 2j and 2j+1 hold SIG_B1
 * and SIG_B2 of the instruction at offset j - 10 from the centre, j = 0..20;
 * instructions before the start of the run contribute 0.
 *
 *    41 40  ...  21 20  ...   1  0
 *   [b2 b1] ... [b2 b1] ... [b2 b1]
 *    +10         centre       -10
 *
 * Signature sample: a start pc, its retire count and the 2 bits of each of
 * the next L instructions (the start instruction first).
 *
 * Sampling: two independent counters (one GSL MT19937 generator seeded with
 * the seed): the detailed counter is reloaded with a uniform integer in
 * [1, 2M - 1] (mean M; M = 1 tags every instruction); when it expires the
 * current instruction is tagged. Its sample completes 10 instructions later.
 * The signature counter (mean M', same law) runs only while no signature
 * sample is being collected: when it expires a signature sample starts at
 * the current instruction and completes L instructions later. The counter
 * starts in its stationary phase, so that the run's first instructions are
 * as likely to be in a signature sample as any others (a counter started
 * fresh would leave them out: cold-start events such as first I-cache
 * misses sit there): with probability L / (M' + L) a signature sample
 * starts at the first instruction (flag SIG_SK_RUN_START), else the first
 * interval is the remaining part of an interval in progress (density
 * proportional to 2M' - r on [1, 2M' - 1]). A signature sample cut short
 * by the end of the run is emitted with the instructions whose bits are
 * known (at least 1; the run's last ones are as likely sampled as any);
 * detailed samples cut short are dropped (counted). */
#ifndef IC_SIG_H
#define IC_SIG_H

#include <stddef.h>
#include <stdint.h>

#include "graph_rec.h"
#include "ic_err.h"
#include "inst.h"
#include "ooo.h"

#define SIG_B1 1u
#define SIG_B2 2u
#define SIG_HALF 10
#define SIG_WINDOW (2 * SIG_HALF + 1)
#define SIG_MASK42 ((UINT64_C(1) << (2 * SIG_WINDOW)) - 1)
#define SIG_DEFAULT_LENGTH 2000
#define SIG_MAX_LENGTH 1000000
#define SIG_MAX_ITEMS IC_MAX_EDGES

/* present mask of a detailed sample */
#define SIG_HAS_FBW 1u
#define SIG_HAS_CD 2u
#define SIG_HAS_CBW 4u

/* item flag: a PD item charged to this instruction (the stitcher uses it
 * only at a fragment's first position, which has no previous sample) */
#define SIG_ITEM_SELF 0x80u

/* Machine parameters the stitcher needs: X(field, config key). */
#define SIG_MACHINE_LIST(X) \
  X(fetch_width, "core.fetch_width") \
  X(commit_width, "core.commit_width") \
  X(rob, "core.rob") \
  X(dispatch_ready, "core.dispatch_ready") \
  X(wakeup, "core.wakeup") \
  X(recovery, "core.recovery") \
  X(frontend_depth, "core.frontend_depth") \
  X(lat_int_alu, "latency.int_alu") \
  X(lat_int_mul, "latency.int_mul") \
  X(lat_int_div, "latency.int_div") \
  X(lat_fp_add, "latency.fp_add") \
  X(lat_fp_mul, "latency.fp_mul") \
  X(lat_fp_div, "latency.fp_div") \
  X(l1d_latency, "l1d.latency") \
  X(l2_latency, "l2.latency") \
  X(mem_latency, "mem.latency") \
  X(tlb_miss, "tlb.miss_latency") \
  X(issue_width, "core.issue_width") \
  X(fetch_taken, "core.fetch_taken") \
  X(l1i_line, "l1i.line") \
  X(fu_int_alu, "fu.int_alu") \
  X(fu_int_mul, "fu.int_mul") \
  X(fu_fp_add, "fu.fp_add") \
  X(fu_fp_muldiv, "fu.fp_muldiv") \
  X(fu_ldst, "fu.ldst") \
  X(iq, "core.iq")

typedef struct sig_machine {
#define SIG_X(f, k) uint32_t f;
  SIG_MACHINE_LIST(SIG_X)
#undef SIG_X
} sig_machine;

enum {
#define SIG_X(f, k) SIG_MP_##f,
  SIG_MACHINE_LIST(SIG_X)
#undef SIG_X
  SIG_MACHINE_COUNT
};
extern const char *const sig_machine_keys[SIG_MACHINE_COUNT];

/* Reads the parameters from a config. */
ic_status sig_machine_from_config(const ooo_config *c, sig_machine *m, ic_err *err);
/* Field k of m (list order). */
uint32_t *sig_machine_field(sig_machine *m, int k);

typedef struct sig_detail {
  uint64_t seq;     /* retire count of the tagged instruction */
  uint64_t pc, next_pc;
  uint64_t sig;     /* signature word (layout above) */
  uint8_t opclass;
  uint8_t present;  /* SIG_HAS_* */
  uint8_t nitems;
  uint8_t slot_w, slot_p, mshr_k; /* the record's rules (graph_rec.h; its iq is the machine's) */
  ic_edge item[SIG_MAX_ITEMS]; /* every edge but DR, register PR and IBW, plus PD(next) */
} sig_detail;

/* flag of a signature sample: it starts at the run's first timed
 * instruction (nothing precedes it: its graph is complete without warm-up) */
#define SIG_SK_RUN_START 1u

typedef struct sig_skeleton {
  uint64_t seq;     /* retire count of the start instruction */
  uint64_t start_pc;
  uint32_t n;       /* instructions */
  uint8_t *bits;    /* n values, SIG_B1|SIG_B2 each (owned by whoever filled it) */
  uint8_t flags;    /* SIG_SK_* */
} sig_skeleton;

/* Two bits of record r given the record that committed after it. img may
 * have a NULL lookup: a branch is then taken when next->pc is neither
 * pc + 2 nor pc + 4. */
unsigned sig_bits(const ic_graph_rec *r, const ic_graph_rec *next, const sig_machine *m,
                  const ic_program_image *img);

/* Where samples go. Either callback may be NULL. The skeleton's bits are
 * valid only during the call. */
typedef struct sig_out {
  void *ctx;
  ic_status (*detail)(void *ctx, const sig_detail *d, ic_err *err);
  ic_status (*skeleton)(void *ctx, const sig_skeleton *s, ic_err *err);
} sig_out;

typedef struct sig_sampler_opts {
  uint64_t detail_interval;    /* mean instructions between tags (>= 1) */
  uint64_t signature_interval; /* mean instructions between signature samples (>= 1) */
  uint32_t length;             /* L (1 .. SIG_MAX_LENGTH) */
  uint64_t seed;
} sig_sampler_opts;

typedef struct sig_sampler_stats {
  uint64_t instructions;  /* records seen */
  uint64_t details;       /* detailed samples emitted */
  uint64_t skeletons;     /* signature samples emitted */
  uint64_t dropped;       /* detailed samples cut short by the end of the run
                             (and a signature sample with no instruction) */
  uint64_t item_overflow; /* detailed samples with more than SIG_MAX_ITEMS items (cut) */
} sig_sampler_stats;

typedef struct sig_sampler sig_sampler;

/* IC_EINPUT for a zero interval or a length outside 1..SIG_MAX_LENGTH.
 * img (copied, may be NULL or have a NULL lookup) gives instruction sizes. */
ic_status sig_sampler_create(sig_sampler **out, const sig_sampler_opts *o, const sig_machine *m,
                             const ic_program_image *img, sig_out emit, ic_err *err);
void sig_sampler_destroy(sig_sampler *s);
/* The sink to hand the model (ctx = s). inner (may be NULL) gets every
 * batch after the sampler. Records must arrive with consecutive seq.
 * Time complexity: O(1) per record, O(L) per signature sample. */
ic_graph_sink sig_sampler_sink(sig_sampler *s, const ic_graph_sink *inner);
/* Ends the run: emits the signature sample in progress with the
 * instructions it has, counts detailed samples still incomplete as dropped.
 * Returns the emit callback's status. */
ic_status sig_sampler_finish(sig_sampler *s, ic_err *err);
void sig_sampler_get_stats(const sig_sampler *s, sig_sampler_stats *out);

/* The detailed sample of record r (next: the record after it, or NULL at
 * the end of the run); sig is left 0. Time complexity: O(edges). */
void sig_detail_from_record(sig_detail *d, const ic_graph_rec *r, const ic_graph_rec *next,
                            const sig_machine *m, int *overflow);

/* Uniform interval with mean `mean`: [1, 2 mean - 1]. */
uint64_t sig_draw_interval(void *gsl_rng_ptr, uint64_t mean);

#endif
