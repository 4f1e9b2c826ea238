/* solver_internal.h: what the files of the streaming powerset solver
 * (solver.h) share: the solver's state, the plan the kernels evaluate, the
 * constants and vector macros, and the functions one file calls in another
 * (prefix slv_). Not a public header: only engine/solver*.c include it.
 *
 * The files, one job each:
 *   solver.c          the public API: create, destroy, reset, results,
 *                     subsets, window cap, kernel choice, categories
 *   solver_plan.c     planning a record (plan_one), its memo by pc and the
 *                     latency-vector store; ic_solver_feed and the sink
 *   solver_kernels.c  evaluating a plan: the node kernels (portable, AVX2,
 *                     AVX-512) and exec_plan
 *   solver_rules.h/.c the per-lane structural rules (slots, IQ, MSHRs)
 *   solver_layout.c   lane layout and memory: allocation, rings, the
 *                     powerset and compact layouts, relabel, growth, rebase
 *   solver_threads.c  the two-thread pipeline and its lane split
 *
 * Representation. Node times are int32 offsets from a per-subset int64 base:
 * time(node, S) = base[S] + off(node, S). A vector holds NP >= 2^ncat int32,
 * one lane per subset; lane bit k stands for a category, in an order where
 * win, bw, dmiss, bmisp and imiss take the highest bits of those that have
 * acted (set_layout), so the subsets without one half of a CD edge or
 * without a dropped edge form whole blocks of lanes the kernels skip
 * (padded to a multiple of 8 so the kernels' inner loops have a fixed trip
 * count and vectorize at -O2; padding lanes compute harmless garbage that is
 * never reported). The D, P and C vectors of recent instructions live in
 * ring buffers indexed by seq & (W-1), each with its own window W (D only
 * feeds short in-order edges, so its ring stays small; P and C grow with the
 * distances seen); E and R of earlier instructions are read only by IW
 * edges (solver_rules.h).
 *
 * Inert categories. A category that has not acted yet (no latency part of
 * it with cycles in any record so far, no edge its idealization drops and
 * the edge does not keep, for win no CD edge, no rule it drops) leaves every node time of a subset
 * with it equal to the subset without it. Only the categories that have
 * acted take lane bits [0, nact) and only lanes [0, 2^nact) are evaluated
 * (padded to 8); the inert ones sit above, and lane_of maps a caller's
 * subset to the lane without its inert categories. Planning sees a
 * category act before the record is evaluated (a memo hit repeats a record
 * planned in the same layout, so it cannot); relabel then drains the
 * pipeline, lays the lanes out again and copies every live ring row, base
 * and time 0 into the new layout; the latency store and the memos are of
 * the old layout and are cleared. Ring rows hold only the lanes evaluated
 * (lanes_live int32s, so the rows of a few lanes lie close together). That costs
 * a pass over the live rows at most once per category and run. Kept
 * across ic_solver_reset (a category that acted in an earlier graph stays
 * active: exact either way).
 *
 * Range argument (why int32 is safe). Every stored offset is at most
 * `ubound`: time 0 has offset <= 0, and an instruction raises the largest
 * offset by at most the sum of its edge latencies (each <= 2^20 by
 * dg_check_rec, at most 16 edges), which is added to ubound. When ubound
 * passes 2^28 we rebase: per subset the largest live offset is brought down
 * to at most 2^27 and the base raised by the same amount; offsets pushed
 * below FLOOR = -2^29 are clamped there (counted; they are > 2^29 cycles
 * older than the newest node, so no path through them can matter in a real
 * run). So offsets stay in [-2^29, 2^28 + 2^24], src + lat never overflows,
 * and a dropped edge, given latency NEG = -2^30, yields less than FLOOR,
 * below the initial value of every node (time 0, clamped at FLOOR): max()
 * ignores it without a branch.
 *
 * Per edge the latency over subsets is lat[S] = L - sum of its parts whose
 * category is in S (a part of category c counts in the subsets NOT
 * containing c), built from per-position bit masks; an edge with no part in
 * a chosen category and no dropping category chosen uses a scalar latency.
 * The win rule makes CD two half-edges: C(i-w) for subsets without win and
 * C(i-20w) for subsets with it, each masked with NEG on the other half.
 * Latency vectors are kept in a store by edge shape (a run has few shapes;
 * a vector never changes until the store fills and is cleared). Where the
 * lane bit of win (for CD) or of the dropping category is at least 32, the
 * kernels skip the blocks of lanes where the edge is gone; a dropped edge
 * whose other parts are in no chosen category, and a CD half without parts
 * in chosen categories, then have one latency in the lanes they are
 * computed in: they are "conditional scalar" edges, which are exact only
 * because of the skipping (their lanes are not NEG-masked).
 *
 * Per instruction, two steps. Planning (plan_one, solver_plan.c) resolves
 * a record's edges into a plan: per node, entries of source vector and
 * latency vector or scalar, with no reference to the record (the entries
 * but for their sources are the memo's, which the plan points to: a
 * record that repeats one costs only its sources). Evaluating
 * (exec_plan, solver_kernels.c) computes each node's vector in one fused
 * pass over the lanes and compares lane 0 (subset {}) with the record's
 * stamps. A plan holds everything its evaluation needs, and lanes are
 * independent: that is what lets a second thread evaluate while the
 * caller's thread plans (solver_threads.c).
 *
 * The compact layout (ic_solver_set_subsets). A breakdown of many
 * categories shows few subsets (8 categories: 17 of 256), and lanes are
 * independent: only the lanes of the needed subsets need evaluating. They
 * are packed (set_compact): lane p holds the powerset layout's lane
 * lsub[p], so rows are lanes_live = 24 lanes instead of 256. Nothing may then read
 * a lane's bits from its index: the kernels skip no block (skipm 0: an edge
 * a category drops is a vector entry, NEG in its lanes), an IW block entry
 * spans every lane, the latency vectors take each lane's bits from bitm
 * (filled from lsub), and the rules' scalar loops and masks read per-lane
 * flags (lane_flags, slotm) instead of lane_from's bits. Relabel stays exact: the
 * new lane of a needed subset continues the old lane of that subset without
 * the categories that were inert, itself the lane of a needed subset
 * (opidx).
 *
 * Measurements and what was tried and not kept: bench/README.md, "Solver:
 * measurements and history". */
#ifndef ICOST_SOLVER_INTERNAL_H
#define ICOST_SOLVER_INTERNAL_H

#include "solver.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "iq_tab.h"
#include "mshr_tab.h"
#include "slot_tab.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define HAVE_AVX2_KERNEL 1
#endif

#define FLOOR (-(INT32_C(1) << 29))
#define NEG (-(INT32_C(1) << 30))
#define REBASE_AT (INT64_C(1) << 28)
#define REBASE_TO (INT32_C(1) << 27)
#define MIN_WINDOW 64u
#define E_WINDOW 512u
#define INIT_WINDOW_BYTES ((size_t)16 << 20)
#define LANES 8
/* Latency-vector store: at most this many bytes of vectors, and between
 * MIN_LSTORE (one instruction needs at most 2 * IC_MAX_EDGES) and
 * MAX_LSTORE vectors. */
#define LSTORE_BYTES ((size_t)4 << 20)
#define MIN_LSTORE 64u
#define MAX_LSTORE 4096u
/* Pipeline: plans in flight between the planning and the evaluating thread,
 * how often each side tells the other, and how long a side spins (in pause
 * instructions) before it sleeps. */
#define QCAP 256u
#define PUBLISH_EVERY 16u
#define WAKE_AT (QCAP / 4)
/* The worker fetches the plan PLAN_AHEAD ahead: its first PLAN_FETCH_BYTES
 * (header and 16 sources). */
#define PLAN_AHEAD 3u
#define PLAN_FETCH_BYTES (offsetof(struct plan, src) + 16 * sizeof(const int32_t *))
/* Plans fetch the P and C ring rows of the instruction this many ahead. */
#define PF_AHEAD 4u
#define SPIN_PAUSE 500
#define SPIN (SPIN_PAUSE + 200)

enum { RING_D, RING_P, RING_C, RING_E, RING_R, RING_COUNT };

/* What an edge's latency vector depends on: its total, the cycles of its
 * parts in chosen categories (by position), the position whose subsets drop
 * it, and for a win-split CD edge which half it is (1: subsets without win,
 * 2: with win). Most edges of a run share a few shapes, so the vectors are
 * kept in a store by shape instead of rebuilt per edge. The key is three
 * words built in registers (byte-wise building then word-wise comparing
 * stalls on store forwarding):
 *   a = total | (drop + 1) << 24 | half << 29 | nvp << 32 | used << 40 | dmask << 44
 *   (dmask: lane bits dropping a kind several chosen categories drop, IW)
 *   b, c = two parts each: cycles | position << 24, part 2k in the low half */
struct lat_key {
  uint64_t a, b, c;
};
static inline int lk_nvp(const struct lat_key *k) { return (int)((k->a >> 32) & 7); }
static inline uint32_t lk_part(const struct lat_key *k, int p) {
  uint64_t w = p < 2 ? k->b : k->c;
  return (uint32_t)(p & 1 ? w >> 32 : w);
}
/* A slot of the store's hash table (open addressing, at most half full). */
struct lslot {
  struct lat_key k;
  uint32_t idx; /* vector index + 1; 0: empty */
  uint32_t pad;
};

/* Per edge kind, what plan_one needs (graph_rec.h, graph.h), with the
 * positions of this solver's categories. */
struct kind_info {
  uint8_t node, srcnode;
  int8_t ring;    /* ring of the source node (-1: R, E) */
  uint8_t bad0;   /* dist 0 is malformed: the source node is not before the destination */
  uint8_t badfar; /* dist > 0 is malformed: R is never read across instructions, E
                     only by IW */
  uint8_t two;    /* CD with win chosen: two half-edges */
  uint8_t eblock; /* an E source (IW): a block entry (struct plan) */
  int8_t drop;    /* the one lane bit whose subsets drop the edge, or -1 */
  uint32_t dmask; /* lane bits whose subsets drop the edge (several for IW) */
  uint8_t ndc;    /* chosen categories dropping the kind: ids and lane bits */
  uint8_t dcat[IC_CAT_COUNT], dbit[IC_CAT_COUNT];
  uint32_t skipm; /* 1 << the bit of drop (or of win for two) if >= 4 * LANES, else 0 */
  ic_catmask acts; /* chosen categories an edge of this kind makes act unless it keeps
                      them (its drop mask; win for CD) */
  uint8_t vdist;   /* its distance differs between instances of an instruction (a
                      producer, an earlier miss or issue): the memo looks the source
                      up by the record's distance (PR, PP, FU, IBW, MSHR, IW) */
};

/* catpos[category id]: position + 1 of a chosen category (CP_POS bits), 0
 * for IC_CAT_NONE or a category not chosen, CP_BAD for an unknown id. */
#define CP_POS 0x7f
#define CP_BAD 0x80

/* One in-edge of a node as planning builds it (the form keeps its fields
 * in arrays): the latency vector (lat) or one latency in every lane it is
 * computed in (l); its source vector is the plan's src[] of the same
 * index. The edge is skipped in the lanes x
 * with (x & skipm) == skipv; skipm is 0 or a bit >= 4 * LANES, so a block
 * of 8, 32 or 64 lanes (as the kernel needs) starting at s has it all set
 * or all clear and is skipped as a whole (skipm = 0, skipv = 1: never
 * skipped). */
struct pe {
  const int32_t *lat;
  int32_t l;
  uint32_t skipm, skipv;
};

/* The entries of a plan but for their sources, the same for every record
 * a memo repeats (kept in the memo, and read there by the kernels). Per
 * node (bound): its vector-latency edges (lat valid), then its scalar
 * edges (the same latency everywhere), then its conditional scalar edges
 * (the same latency wherever not skipped), then ni block edges (E sources, IW: only the node E has them), evaluated
 * after the others over the lanes [0, hi) where they can be alive (hi in
 * skipm, a multiple of 8; bhi the largest), with a latency vector (NEG in
 * the lanes that drop them) or one latency; cond_skip_min is the smallest
 * skipm of the conditional ones. A node with a scalar edge starts from it
 * instead of from time 0; the AVX2 kernel starts a node without one from
 * its first vector edge where that one has no NEG lane (vf: those come
 * first). */
struct plan_form {
  uint32_t bhi;
  uint32_t cond_skip_min[IC_NODE_COUNT];
  uint8_t ni[IC_NODE_COUNT];
  uint8_t vf[IC_NODE_COUNT]; /* the first vector entry has no NEG lane */
  /* a node's entries by index: vector [bound[0], bound[1]), scalar
   * [bound[1], bound[2]), conditional [bound[2], bound[3]), then its ni
   * block entries */
  uint8_t bound[IC_NODE_COUNT][4];
  /* the entries (struct pe) field by field, so that a kernel's loop
   * indexes each with one register */
  const int32_t *lat[2 * IC_MAX_EDGES];
  int32_t l[2 * IC_MAX_EDGES];
  uint32_t skipm[2 * IC_MAX_EDGES], skipv[2 * IC_MAX_EDGES];
};

/* A record's rules as the plan carries them (solver_rules.h reads them). */
struct plan_rules {
  uint8_t mk;    /* the MSHR rule's MSHRs (0: the record has no rule) */
  uint8_t sw, sp; /* the slot rule's counts (the record's slot_w, slot_p; 0: none) */
  uint8_t mskip; /* lane bit + 1 of a scoped dmiss that drops the record's
                    MSHR rule (its sdrop), besides dmiss's lanes; 0: none */
};

/* The plan of one instruction: everything the kernels need to compute its
 * five vectors, with no reference to the record (the caller may reuse it)
 * and no decision left (the planning thread resolved every source). Its
 * entries are its memo's (form); the memo is not rewritten while a plan
 * that points to it waits in the pipeline (memo.busy). */
struct plan {
  uint64_t seq;
  uint64_t t[IC_NODE_COUNT]; /* the record's stamps, for the baseline check */
  int32_t *out[IC_NODE_COUNT];
  const struct plan_form *form;
  uint32_t lanes_live;       /* lanes evaluated: [0, lanes_live) (the solver's lanes_live) */
  uint8_t compact;           /* the compact layout: no entry skips a lane */
  struct plan_rules f;
  uint8_t pool;              /* its FU pool (ooo_pool_of): the slot rule's pool count */
  uint32_t iq;               /* the IQ rule's size (the record's iq; 0: none) */
  uint32_t pf_from;          /* bytes of pf_far not needed (lanes without win) */
  const char *pf_far;        /* the far C ring slot to fetch ahead, or NULL (the P and C
                                slots to fetch are out's, PF_AHEAD rows on) */
  const int32_t *src[2 * IC_MAX_EDGES]; /* each entry's source vector */
};

/* Where an entry's source vector is: node srcnode of this instruction (dist
 * 0) or of the instruction dist back, in ring `ring`. */
struct msrc {
  uint64_t dist;
  uint8_t srcnode;
  int8_t ring;
  uint8_t edge; /* the record's edge it comes from */
  uint8_t var;  /* at dist of the record's edge (kind_info.vdist) */
};

/* Plans of recent instructions by pc, to reuse when an instruction's edges
 * come again byte for byte (most dynamic instances of a loop body's
 * instruction do): the entries with their latency vectors and where their
 * sources are, so only the source vectors are looked up again. Valid while
 * gen equals the solver's mgen, which changes when the latency-vector store
 * is cleared or the window cap changes (growth alone keeps them valid: a
 * planned record's distances all fit its windows or their cap).
 *
 * The sources again, once every ring holds its whole window (ok_from):
 * the entries whose source is a node of the instruction itself (self: the
 * plan's out), those at another fixed distance (not kind_info.vdist) by ring
 * (fix, nfix[ring] of each), the others with the record's edge that gives
 * their distance (var). fast: every fixed distance is inside its ring's
 * window (windows only grow while a memo is valid). */
struct mself {
  uint8_t entry, node;
};
struct mfix {
  uint32_t dist, entry;
};
struct mvar {
  uint8_t entry, edge, ring;
  uint8_t fring; /* the ring dists_fit checks the edge's distance against (memo.vring) */
};
#define MEMO_SETS 1024u
#define MEMO_WAYS 4u
struct memo {
  uint64_t pc, gen;
  uint64_t shape; /* the shape id of the records it repeats (ic_graph_sink.consume_shaped), 0: none */
  uint64_t use;   /* when it was last planned or taken (s->mclock) */
  uint64_t busy;  /* the pipeline's plans (struct pipe's tail) that must be evaluated before
                     form may be rewritten: those made from it */
  uint64_t far_c; /* the far CD distance it sets, or 0 */
  int64_t grow;   /* sum of its edges' latencies */
  uint8_t nedges, nent;
  uint64_t rkey;    /* the record's sdrop and rules' counts the plan was made for (rec_key) */
  struct plan_rules f; /* the plan's */
  uint8_t fast, nvar, nself;
  uint8_t nfix[RING_COUNT];
  /* the edges whose distance a record may change (kind_info.vdist), and
   * the ring each reads */
  uint8_t nvd, vd[IC_MAX_EDGES];
  int8_t vring[IC_MAX_EDGES];
  ic_edge edge[IC_MAX_EDGES];
  /* the bytes of edge[] that a record must repeat (same_edges) */
  uint8_t emask[IC_MAX_EDGES * sizeof(ic_edge)];
  struct mfix fix[2 * IC_MAX_EDGES];
  struct mvar var[2 * IC_MAX_EDGES];
  struct mself self[2 * IC_MAX_EDGES];
  struct msrc src[2 * IC_MAX_EDGES];
  struct plan_form form;
};
_Static_assert(IC_MAX_EDGES * sizeof(ic_edge) % 32 == 0, "same_edges compares 32 bytes at a time");

/* What evaluating a plan needs besides the plan (exec_plan), held where
 * the evaluating thread owns the cache line (the solver's own fields are
 * written by the planner all the time): the time-0 vector, the bases, the
 * kernel, and the baseline mismatches this evaluator found. */
struct xenv {
  const int32_t *zero;
  const int64_t *base;
  ic_solver_kernel kern;
  uint64_t viol, first;
  uint64_t oom;               /* slot counts that could not grow (counted as violations too) */
  const struct ic_solver *sv; /* the slot counts of its lanes (stab) */
};

/* The two-thread pipeline: the caller's thread plans (plan_one) into q, a
 * worker evaluates the plans in order (exec_plan). head = plans published
 * to the worker, tail = plans it has evaluated; each is written by one side
 * only. A side that finds nothing to do spins a while, then sleeps on its
 * condition variable after setting its *sleep flag; the other side wakes it
 * when it sees the flag (both use sequentially consistent accesses, so a
 * sleeper either sees the new value or its flag is seen). */
struct pipe {
  _Alignas(64) _Atomic uint64_t head;
  _Alignas(64) _Atomic uint64_t tail;
  _Alignas(64) _Atomic int wsleep; /* the worker sleeps (waits for head) */
  _Atomic int psleep;              /* the planner sleeps (waits for tail >= pwant) */
  _Atomic uint64_t pwant;
  _Atomic int stop;
  _Alignas(64) struct xenv wx;     /* the worker's */
  _Alignas(64) uint64_t planned;   /* plans written (planner only; >= head) */
  uint64_t tail_seen;              /* planner's last look at tail */
  struct plan *q;                  /* [QCAP] */
  pthread_t th;
  pthread_mutex_t m;
  pthread_cond_t cv_work, cv_done;
};

/* A compact lane's flags (ic_solver.lane_flags): a padding lane, and the
 * categories whose rules it does not keep (bw: the slot rule, win: the IQ
 * rule, dmiss: the MSHR rule). */
enum { LF_PAD = 1, LF_BW = 2, LF_WIN = 4, LF_DMISS = 8 };
/* The rules whose lanes the compact layout lists (ic_solver.nxt). */
enum { LR_SLOT, LR_IQ, LR_MSHR, LR_COUNT };
_Static_assert((1u << IC_SOLVER_MAX_CATS) < 65536, "compact lanes are listed in uint16_t");

struct ic_solver {
  int ncat;
  uint8_t cats[IC_SOLVER_MAX_CATS];
  uint32_t n;       /* 2^ncat subsets */
  uint32_t lanes_padded; /* n padded to LANES */
  ic_catmask chosen; /* IC_CATBITs of the chosen categories */
  ic_catmask acted;  /* the chosen categories that have acted (not inert) */
  uint32_t lanes_acted;  /* 2^(categories that acted): lanes [0, lanes_acted) are evaluated */
  uint32_t lanes_live;     /* lanes_acted padded to LANES (<= lanes_padded) */
  uint32_t *lmap;   /* [lanes_padded]: relabel's lane map */
  int64_t *btmp;    /* [lanes_padded]: relabel's copy of base */
  int8_t pos[256];  /* category id -> its lane bit (see set_layout), or -1 */
  uint8_t catpos[256];
  /* catalias[id]: for a scoped id whose base is chosen too, the base's
   * position + 1 (its parts are idealized in the lanes of either); else 0 */
  uint8_t catalias[256];
  int32_t *orm;     /* [lanes_padded]: lat_vector's mask of a part with an alias */
  struct kind_info kinfo[IC_EDGE_KIND_COUNT];
  int win_pos;      /* lane bit of win, or -1 */
  uint32_t rule_off; /* 1 << lane bit of bw (0: not chosen): the lanes without
                        the slot rule (k_slots) */
  uint32_t *lane_of; /* [n]: the lane of the caller's subset mask (without its
                        inert categories) */
  /* The compact layout (ic_solver_set_subsets): need[S] for each caller's
   * subset (NULL: every subset, the powerset layout). Then the lanes
   * evaluated are only those of the needed subsets, packed: lane p holds
   * the powerset layout's lane lsub[p] ("logical" lane; pidx is the
   * inverse, UINT32_MAX for a logical lane no needed subset reads), and
   * lane_flags[p] says which rules it has not (LF_*); set_compact. */
  uint8_t *need;    /* [n] or NULL */
  uint32_t *pidx;   /* [lanes_padded] (with need) */
  uint32_t *opidx;  /* [lanes_padded]: relabel's copy of pidx */
  uint32_t *lsub;   /* [lanes_padded] (with need) */
  uint8_t *lane_flags;     /* lane_flags_buf in the compact layout, else NULL */
  uint16_t *nxt[LR_COUNT]; /* compact: [lanes_live + 1] each, the first lane from p on
                              that keeps the rule (lanes_live: none); else NULL */
  uint16_t *nxt_buf;       /* [LR_COUNT][lanes_padded + 1] (with need) */
  uint8_t *lane_flags_buf; /* [lanes_padded] (with need) */
  int32_t *slotm;   /* [lanes_padded]: -1 in the lanes where the slot rule lives (no bw;
                       both layouts), else 0 */
  int32_t *bitm;    /* [ncat][lanes_padded]: -1 where subset has bit k, else 0 */
  uint64_t w[RING_COUNT];    /* window of each ring (power of two) */
  uint64_t wmax;             /* cap of every ring's window */
  int32_t *ring[RING_COUNT]; /* [w][rs] each */
  uint32_t rs;               /* a ring row's int32s: lanes_live (the lanes evaluated), so
                                the rows of a few lanes lie close together */
  int32_t *scratch[3];       /* [0]: relabel's row, [1], [2]: rebase's */
  /* The slot rule's counts (slot_tab.h), one table a lane [lanes_padded], kept by
   * exec_plan for each thread's lanes (not in bw's lanes, where the rule
   * does not hold); absolute cycles (base + offset), so a rebase leaves them. */
  ic_slot_tab *stab;
  /* The MSHR rule's holders (mshr_tab.h), one list a lane [lanes_padded], kept by
   * exec_plan like stab (not in dmiss's lanes); absolute cycles. */
  ic_mshr_tab *mtab;
  uint32_t mshr_off; /* 1 << lane bit of dmiss (0: not chosen): the lanes
                        without the MSHR rule */
  /* The IQ rule's E's (iq_tab.h), one table a lane [lanes_padded], kept by exec_plan
   * like stab (not in win's lanes); absolute cycles. */
  ic_iq_tab *qtab;
  uint32_t iq_off;   /* 1 << lane bit of win (0: not chosen): the lanes
                        without the IQ rule */
  /* Latency vectors by edge shape (lat_key): a vector, once built, stays
   * unchanged until the store is cleared (plans in flight point to it). */
  struct lslot *lslot;       /* [2 * lcap] */
  int32_t *lvec;             /* [lcap][lanes_padded] */
  uint32_t lcap, lused;
  ic_solver_kernel kern;     /* the node kernel (ic_solver_set_kernel) */
  int64_t *base;             /* [lanes_padded] */
  int32_t *zero;             /* [lanes_padded]: offset of time 0, clamped at FLOOR */
  uint64_t *times;           /* [n] */
  int64_t ubound;            /* upper bound of every stored offset */
  int started;
  uint64_t seq0, next;
  uint64_t valid_lo[RING_COUNT]; /* oldest seq whose vectors each ring still holds */
  uint64_t ok_from; /* from this seq every ring holds its whole window (plan_one); UINT64_MAX:
                       not known (set so wherever valid_lo, w or seq0 change) */
  uint64_t okw[RING_COUNT]; /* from ok_from: each ring's w - 1 */
  int32_t *last_c;           /* C vector of the last record, or NULL */
  uint64_t far_c;            /* distance of the last win-half CD source (0: none) */
  ic_solver_stats st;        /* the planner's counts (violations: see below) */
  /* Written by whichever thread evaluates plans: */
  struct xenv xs;            /* the planning thread's */
  /* memos of recent records by pc: sets of MEMO_WAYS memos, so that a pc
   * whose records come in a few variants (a stall residual on DD or not, an
   * IW edge or not) finds each; the set's most recently taken first */
  struct memo *memo;         /* [MEMO_SETS * MEMO_WAYS] */
  uint8_t *mru;              /* [MEMO_SETS] */
  uint64_t mclock;
  uint64_t mgen;             /* generation of valid memos (>= 1) */
  uint32_t split;            /* two-thread mode: the worker's lanes are [0, split) */
  int split_fixed;           /* set by ic_solver_set_split, else adaptive */
  uint32_t epoch_n, adapt_step; /* adapt_split's state */
  int solo;                  /* adaptive: the worker idles, as with 1 thread */
  int il;                    /* two-thread mode: the worker's lanes are the 32-lane
                                blocks of even index, not [0, split) (exec_blocks) */
  double epoch_t0, cand_time[5];
  struct plan *one;          /* single-thread mode: the one plan */
  struct pipe *pipe;         /* two-thread mode, or NULL */
};

/* Eight subsets at a time with GCC/Clang vector extensions, so the kernels
 * are SIMD at -O2 whatever the auto-vectorizer decides. Macros, not
 * functions, so no 32-byte vector crosses a call boundary. */
typedef int32_t v8si __attribute__((vector_size(4 * LANES), may_alias));
#define LD(p) (*(const v8si *)(const void *)(p))
#define ST(p, v) (*(v8si *)(void *)(p) = (v))
#define VMAX(a, b) __extension__({ v8si a_ = (a), b_ = (b), m_ = a_ > b_; (a_ & m_) | (b_ & ~m_); })
#define SPLAT(x) ((v8si){(x), (x), (x), (x), (x), (x), (x), (x)})
#define VMIN(a, b) __extension__({ v8si a_ = (a), b_ = (b), m_ = a_ < b_; (a_ & m_) | (b_ & ~m_); })

/* ---- shared between the solver's files -------------------------------- */

/* solver_kernels.c: evaluating plans, and the vector helpers of the
 * latency store */
void slv_exec_plan(struct xenv *x, const struct plan *pl, uint32_t lo, uint32_t hi);
void slv_exec_blocks(struct xenv *x, const struct plan *pl, int half);
void slv_k_fill(int32_t *v, int32_t x, uint32_t lanes);
void slv_k_sub_masked(int32_t *lat, const int32_t *m, int32_t c, uint32_t lanes);
void slv_k_neg_masked(int32_t *lat, const int32_t *m, int32_t inv, uint32_t lanes);

/* solver_rules.c: the rules' per-lane loops (solver_rules.h) */
void slv_lanes_take(struct xenv *x, const struct plan *pl, uint32_t lo, uint32_t hi,
                    const int32_t *d, int32_t *acc, unsigned tw, unsigned tp);
void slv_k_iq(int32_t *acc, uint32_t lo, uint32_t hi, const struct plan *pl, struct xenv *x);
void slv_iq_note(struct xenv *x, const struct plan *pl, uint32_t lo, uint32_t hi);
void slv_k_mshr(int32_t *acc, uint32_t lo, uint32_t hi, const struct plan *pl, struct xenv *x);
void slv_mshr_note(struct xenv *x, const struct plan *pl, uint32_t lo, uint32_t hi);
void slv_slots_note(struct xenv *x, const struct plan *pl, uint32_t lo, uint32_t hi);

/* solver_threads.c: the two-thread pipeline */
void slv_pipe_publish(struct pipe *p, int force);
void slv_pipe_drain(const ic_solver *s);
void slv_pipe_stop(ic_solver *s);
struct plan *slv_plan_slot(ic_solver *s);
void slv_plan_done(ic_solver *s, struct plan *pl);
void slv_pipe_wait(ic_solver *s, uint64_t tail);
void slv_adapt_split(ic_solver *s);

/* solver_layout.c: allocation, rings and lane layouts */
void *slv_vec_alloc_raw(size_t count, size_t size);
void *slv_vec_alloc(size_t count, size_t size);
int slv_rings_alloc(int32_t *r[RING_COUNT], const uint64_t *w, uint32_t lanes);
size_t slv_ring_bytes(const ic_solver *s);
uint64_t slv_max_window(const ic_solver *s);
void slv_set_layout(ic_solver *s);
ic_status slv_grow_window(ic_solver *s, int k, uint64_t need, ic_err *err);
void slv_rebase(ic_solver *s);
ic_status slv_relabel(ic_solver *s, ic_catmask acted, ic_err *err);

#endif
