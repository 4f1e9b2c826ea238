/* solver.c: the streaming powerset solver (solver.h).
 *
 * Representation. Node times are int32 offsets from a per-subset int64 base:
 * time(node, S) = base[S] + off(node, S). A vector holds NP >= 2^ncat int32,
 * one lane per subset; lane bit k stands for a category, in an order where
 * win, bw, dmiss, bmisp and imiss take the highest bits of those that have
 * acted (below), so the subsets without one half of a CD
 * edge or without a dropped edge form whole blocks of lanes the kernels skip
 * (padded to a multiple of 8 so the kernels' inner loops have a fixed trip
 * count and vectorize at -O2; padding lanes compute harmless garbage that is
 * never reported). The D, P and C vectors of recent instructions live in
 * ring buffers indexed by seq & (W-1), each with its own window W (D only
 * feeds short in-order edges, so its ring stays small; P and C grow with the
 * distances seen); E and R of earlier instructions are read only by IW
 * edges (below).
 *
 * Inert categories. A category that has not acted yet (no latency part of
 * it with cycles in any record so far, no edge its idealization drops and
 * the edge does not keep, for win no CD edge, for one that drops IW no IW
 * edge in the slot form, kept or not) leaves every node time of a
 * subset with it equal to the subset without it. Only the categories that
 * have acted take lane bits [0, nact) and only lanes [0, 2^nact) are
 * evaluated (padded to 8); the inert ones sit above, and lane_of maps a
 * caller's subset to the lane without its inert categories. Planning sees
 * a category act before the record is evaluated (the first pass over a
 * record's edges; a memo hit repeats a record planned in the same layout,
 * so it cannot); relabel then drains the pipeline, lays the lanes out again
 * (set_layout) and copies every live ring row, base and time 0 into the
 * new layout, each new lane from its subset without the categories that
 * were inert; the latency store and the memos are of the old layout and
 * are cleared. Ring rows hold only the lanes evaluated (anp int32s, so
 * the rows of a few lanes lie close together: fewer pages and cache sets
 * touched); a relabel that adds lanes copies the live rows into new
 * rings. That costs a pass over the live rows (a few million
 * instructions at a 4096 window) at most once per category and run. It
 * pays only where a category never acts (bench_solver --inert): on the
 * full suite with --skip 20M --warm 2M --max 300k imiss never acted, on
 * 6 of 9 workloads two more did not (dl1, dmiss, bmisp or lgalu: 32
 * lanes), on gzip and bzip2 one more (lgalu: 64), on stencil none (128);
 * with bench_validate's --skip 2M
 * --warm 1M --max 1M, 6 of 9 have 2 or 3 inert (chase, stream, branchy,
 * depchain, mix, gzip), bzip2 1 (imiss), stencil and lua none (imiss,
 * bmisp and dl1 first act 100k to 400k in). Where every category acts
 * early (mix from its first instruction, stencil, lua) nothing is saved
 * but the memo's gains below. Kept across
 * ic_solver_reset (a category that acted in an earlier graph stays
 * active: exact either way).
 *
 * E and IW. E(k) of an earlier instruction is the source of IW edges only
 * (issue slots), and IW is dropped by every one of the high-bit categories
 * above unless the edge keeps some (ic_edge.keep; dg_edge_dropped says): an
 * edge lives only in the lanes with none of its dropping bits set, all
 * below hi = 2^(the highest lane bit that does not drop it, + 1): [0, 8) of
 * 256 with the 8 standard categories and nothing kept. E vectors live in a
 * fourth ring (whole: which lanes a later edge keeps is not known ahead),
 * but IW edges are "block" entries evaluated after E's other edges over
 * lanes [0, hi) alone (k_block), with one latency where every lane there
 * keeps them, else a latency vector that is NEG in the lanes dropping them.
 * An IW edge holds only in the lanes where R(k) <= E'(i), E's time from its
 * other edges (graph_rec.h): R vectors live in a fifth ring with E's
 * window, and each block entry is followed by one whose source is R(k),
 * which k_block compares with E before the block entries.
 *
 * The slot form of IW (graph_rec.h: the model emits it; the condition
 * entry's l holds the edge's flags) is the slot rule instead, in the lanes
 * of subsets without bw (rule_off: bw's lane bit; dg_slot_rule_applies;
 * bw drops the edge, so only bw acts on it): after E's other edges,
 * k_slots looks i's candidate cycle up, lane by lane, in the lane's slot
 * counts (stab: a model/slot_tab.h table a lane, the issues of every
 * earlier record in flight in that lane's times) and moves i on while it
 * is full, then counts i's issue; k_block passes the pair over in those
 * lanes. The counts are scalar work a lane (a table each: their cycles
 * differ), which made the solver slower: callgrind, mix, 100k records
 * from the first, one thread, 8 categories: 17.1k instructions a record
 * against 9116 when k_slots counted the 64 records before i in the E ring
 * with vector compares (3 categories: 2538 against 2298). Counting only
 * 64 missed the slots that instructions further back take wherever more
 * are in flight (a ROB over 64, and win): the graph's error against
 * multisim on the twelve extra programs fell from 12.9% to 4.4% on
 * configs/narrow.yaml (ROB 128, 3-wide issue) and from 4.2% to 0.6% on
 * modern.yaml (ROB 256). The lanes' tables are where the time goes: in the
 * win lanes the cycles in flight span thousands (4096-entry tables on mix),
 * and one instruction after another looks up cycles all over that span, so
 * each lookup mostly missed the cache. A table of 8 bytes a cycle (no key:
 * slot_tab.h) and lanes_take, a loop of its own with a common path of one
 * load, one compare and one store, took the 8-category solver on mix from
 * 20.7k to 17.5k instructions a record and from 0.75 to about 0.5 s CPU on
 * 200k records (bench_solver --load, best of 5 against the old build).
 *
 * The MSHR rule (graph_rec.h, the rule form of MSHR edges: plan.mk) is
 * scalar work a lane too, but only for the records that carry it (the
 * loads that took an MSHR, a few percent): after E's other edges and
 * before the slot rule, k_mshr moves E in each lane without dmiss
 * (mshr_off: dmiss's lane bit) past the cycles at which the lane's earlier
 * holders (mtab: a model/mshr_tab.h list a lane, kept like stab) fill the
 * MSHRs, and mshr_note adds the record's own hold [E, P) once P is known.
 *
 * Range argument (why int32 is safe). Every stored offset is at most
 * `ubound`: time 0 has offset <= 0, and an instruction raises the largest
 * offset by at most the sum of its edge latencies (each <= 2^20 by
 * dg_check_rec, at most 16 edges), which is added to ubound. When ubound
 * passes 2^28 we rebase: per subset the largest live offset is brought down to
 * at most 2^27 and the base raised by the same amount; offsets pushed below
 * FLOOR = -2^29 are clamped there (counted; they are > 2^29 cycles older than
 * the newest node, so no path through them can matter in a real run). So
 * offsets stay in [-2^29, 2^28 + 2^24], src + lat never overflows, and a
 * dropped edge, given latency NEG = -2^30, yields less than FLOOR, below the
 * initial value of every node (time 0, clamped at FLOOR): max() ignores it
 * without a branch.
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
 * Per instruction, two steps. Planning (plan_one): one pass over its edges
 * checks them and resolves their sources and latencies into a plan (per
 * node: entries of source vector and latency vector or scalar; per-kind and
 * per-category tables built at create keep it short; if the instruction
 * makes a ring grow, the pass runs again on the grown ring). Most records
 * repeat an earlier record of the same pc, but for the distances of their
 * PR, PP, FU, IBW, MSHR and IW edges (the producer, the earlier miss and
 * the issue order change from instance to instance) and for bytes past
 * nparts, which the model does not clear: a memo by pc keeps that record's
 * entries and a mask of the bytes a record must repeat (memo_mask), so only
 * the source vectors are looked up again, those edges' by the new record's
 * distances (each within its ring's window, else the full pass grows it).
 * A pc's records come in a few variants (a stall residual on DD or not,
 * other RE waits, an IW edge or not): the memos form sets of MEMO_WAYS by
 * pc. Memo hits on 100k records from record 150k: mix 100%; with --skip
 * 20M mix 12% -> 74% -> 99.7%, lua 39% -> 81% -> 99.6%, stencil 78% ->
 * 83% -> 99.2% when PR, PP, FU, IBW and MSHR distances were added to IW's
 * (IBW and PR distances were most misses), then with 4 ways.
 * Evaluating (exec_plan): each node's vector
 * is computed in one fused pass over the subsets (k_node: AVX2 with 64 or
 * 32 subsets in registers where the CPU has it, portable vector code
 * otherwise), starting from a scalar edge rather than time 0 where the node
 * has one, and lane 0 (subset {}) is compared with the record's stamps.
 *
 * Where the time goes (callgrind, 100k records, 8 categories, one thread,
 * instructions a record). Mix from its first record (every category acts,
 * 256 lanes): 3285, planning (memo check included) about 1130, evaluation
 * about 2120 (kernels 1900, exec_plan 210): the lanes dominate. Mix from
 * record 150k (bmisp, lgalu, imiss inert: 32 lanes): 1635, planning about
 * 900 (a memo hit: about 20 per entry to copy it and look up its source,
 * the masked compare about 120), evaluation about 730. With --skip 20M and
 * 32 or 128 lanes: mix 1770, lua 1789, stencil 2387 (128 lanes). With 3
 * categories (8 lanes) 1500 to 1700, nearly all planning. Before the
 * inert lanes and the memo's ignored distances and ways (the figures
 * below are of then): mix from record 150k 2780 (planning 670, the memo
 * check 120, evaluation 1730 (the node kernels) + 180 (exec_plan: baseline
 * check, prefetches)), mix --skip 20M 6375 (12% memo hits). Of the 1730 about 700 are the
 * vector adds, maxima, loads and stores (20 node blocks of 64 lanes: a
 * start and a store each; about 19 entry blocks), the rest per node setup,
 * per entry pointers and skip tests, and the IW blocks. Tried and not kept:
 * one kernel over the whole record 64 lanes at a time with each node's
 * block kept in registers for the next node's start (no reload of DR, RE,
 * EP, PC sources): 3030 instead of 2925 instructions a record then, as
 * reloading five nodes' entry ranges per block costs more than the loads it
 * saves, and no faster in wall time; a memo hit resolving sources without
 * window tests where the memo's longest distance per ring allows: no
 * fewer instructions (the test per ring costs what it saves). Wall time
 * follows the instruction count only loosely at 8 categories: cachegrind
 * counts about 175 L1D misses a record, 80 of them the writes of the five
 * new 1 KB vectors into ring rows last touched a window ago (the P and C
 * rings are 4 MB each at a 4096 window), so part of the time is memory;
 * prefetching the E and R rows as well as P and C was slower. A prototype
 * with 16-bit lanes (a 32-bit reference per vector, lanes <= 0, saturating
 * adds, -32768 read as "unknown, lower", which makes a lane above it
 * provably exact, a per-subset recentring as subsets drift apart) brought
 * evaluation only to about 2070, as it halves the vector work and not the
 * control, and needed a recentring of every live vector about every 8000
 * records; it was not kept.
 *
 * The compact layout (ic_solver_set_subsets). A breakdown of many
 * categories shows few subsets (8 categories: 17 of 256), and lanes are
 * independent: only the lanes of the needed subsets need evaluating. They
 * are packed (set_compact): lane p holds the powerset layout's lane
 * lsub[p], so rows are anp = 24 lanes instead of 256 and the rings a tenth
 * of the size. Nothing may then read a lane's bits from its index: the
 * kernels skip no block (skipm 0: an edge a category drops is a vector
 * entry, NEG in its lanes), an IW block entry spans every lane, the latency
 * vectors take each lane's bits from bitm (filled from lsub), and the
 * rules' scalar loops and masks read per-lane flags (lfl, slotm) instead of
 * lane_from's bits. Relabel stays exact: the new lane of a needed subset
 * continues the old lane of that subset without the categories that were
 * inert, itself the lane of a needed subset (opidx). mix, 8 categories,
 * 100k records, one thread (callgrind): 3023 instructions a record
 * against 15.9k with every lane (kernels about 1000, planning 725, the
 * slot rule's loops about 700 for its 14 lanes), and in wall time 3.5
 * against 0.62 M records/s (bench_solver --load, best of 5): the small
 * rings stay in cache. Packing only the 8-lane blocks that hold a needed
 * lane, in the powerset layout (7 blocks), ran 1.6 M/s with about the same
 * instruction count.
 *
 * Threads. Lanes are independent, and a plan holds everything its
 * evaluation needs. The pipeline below runs at the pace of its slower side:
 * with 256 lanes evaluated the worker has about 65% of the instructions
 * (2120 of 3285 a record: at most 1.55x of one thread; measured 2.28 /
 * 1.62 M/s = 1.41x before the changes above), with 32 lanes the two sides
 * are about even (900 planning, 730 evaluating: up to about 1.8x). In two-thread mode the caller's thread plans into a
 * queue and evaluates the upper lanes [split, np) of each plan at once; a
 * worker evaluates the lower lanes [0, split) of the queued plans in order,
 * up to QCAP plans behind (by default split = np: the planner only plans,
 * and adapt_split falls back to one thread while that is faster; see
 * there). Each thread touches only its own lanes of every vector;
 * everything else the worker reads (plans, latency vectors, ring places,
 * base, zero) changes only while the queue is drained (ring growth, store
 * clearing, rebase, reset, a split change, results). */
#include "solver.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cpus.h"
#include "graph.h"
#include "ooo.h"
#include "iq_tab.h"
#include "mshr_tab.h"
#include "rules.h"
#include "slot_tab.h"

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
 * (header and 16 entries). */
#define PLAN_AHEAD 3u
#define PLAN_FETCH_BYTES (offsetof(struct plan, e) + 16 * sizeof(struct pe))
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

static const int8_t node_ring[IC_NODE_COUNT] = {RING_D, -1, RING_E, RING_P, RING_C};

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

/* One in-edge of a node as the kernels read it: the source vector and
 * either a latency vector (lat) or one latency in every lane it is
 * computed in (l). The edge is skipped in the lanes x with (x & skipm) ==
 * skipv; skipm is 0 or a bit >= 4 * LANES, so a block of 8, 32 or 64 lanes
 * (as the kernel needs) starting at s has it all set or all clear and is
 * skipped as a whole (skipm = 0, skipv = 1: never skipped). */
struct pe {
  const int32_t *src;
  const int32_t *lat;
  int32_t l;
  uint32_t skipm, skipv;
};

/* The plan of one instruction: everything the kernels need to compute its
 * five vectors, with no reference to the record (the caller may reuse it)
 * and no decision left (the planning thread resolved every source and
 * latency). Per node, its entries start at e[off[node]]: nv vector-latency
 * edges (lat valid), then ns scalar edges (the same latency everywhere),
 * then nc conditional scalar edges (the same latency wherever not skipped),
 * then ni block edges (E sources, IW: only the node E has them), evaluated
 * after the others over the lanes [0, hi) where they can be alive (hi in
 * skipm, a multiple of 8; bhi the largest), with a latency vector (NEG in
 * the lanes that drop them) or one latency; cskipmin is the smallest skipm
 * of the conditional ones. A node with a scalar edge starts from it instead
 * of from time 0; the AVX2 kernel starts a node without one from its first
 * vector edge where that one has no NEG lane (vf: those come first). */
struct plan {
  uint64_t seq;
  uint64_t t[IC_NODE_COUNT]; /* the record's stamps, for the baseline check */
  int32_t *out[IC_NODE_COUNT];
  uint32_t bhi;
  uint32_t anp;              /* lanes evaluated: [0, anp) (the solver's anp) */
  uint8_t compact;           /* the compact layout: no entry skips a lane */
  const char *pf[3];         /* ring slots to fetch ahead (P, C, far C) or NULL */
  uint32_t pf_from;          /* bytes of pf[2] not needed (lanes without win) */
  uint32_t cskipmin[IC_NODE_COUNT];
  uint8_t off[IC_NODE_COUNT], nv[IC_NODE_COUNT], ns[IC_NODE_COUNT], nc[IC_NODE_COUNT];
  uint8_t ni[IC_NODE_COUNT];
  uint8_t vf[IC_NODE_COUNT]; /* the first vector entry has no NEG lane */
  uint8_t pool;              /* its FU pool (ooo_pool_of): the slot rule's pool count */
  uint8_t mk;                /* the MSHR rule's MSHRs (0: the record has no rule) */
  uint32_t iq;               /* the IQ rule's size (the record's iq; 0: none) */
  struct pe e[2 * IC_MAX_EDGES];
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
 * planned record's distances all fit its windows or their cap). */
#define MEMO_SETS 1024u
#define MEMO_WAYS 4u
struct memo {
  uint64_t pc, gen;
  uint64_t use;   /* when it was last planned or taken (s->mclock) */
  uint64_t far_c; /* the far CD distance it sets, or 0 */
  int64_t grow;   /* sum of its edges' latencies */
  uint8_t nedges, nent;
  uint8_t mk; /* plan.mk */
  uint8_t off[IC_NODE_COUNT], nv[IC_NODE_COUNT], ns[IC_NODE_COUNT], nc[IC_NODE_COUNT];
  uint8_t ni[IC_NODE_COUNT], vf[IC_NODE_COUNT];
  uint32_t bhi;
  uint32_t cskipmin[IC_NODE_COUNT];
  /* the edges whose distance a record may change (kind_info.vdist), and
   * the ring each reads */
  uint8_t nvd, vd[IC_MAX_EDGES];
  int8_t vring[IC_MAX_EDGES];
  ic_edge edge[IC_MAX_EDGES];
  /* the bytes of edge[] that a record must repeat (same_edges) */
  uint8_t emask[IC_MAX_EDGES * sizeof(ic_edge)];
  struct pe e[2 * IC_MAX_EDGES];
  struct msrc src[2 * IC_MAX_EDGES];
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

/* A compact lane's flags (ic_solver.lfl): a padding lane, and the
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
  uint32_t np;      /* n padded to LANES */
  ic_catmask chosen; /* IC_CATBITs of the chosen categories */
  ic_catmask acted;  /* the chosen categories that have acted (not inert) */
  uint32_t alanes;  /* 2^(categories that acted): lanes [0, alanes) are evaluated */
  uint32_t anp;     /* alanes padded to LANES (<= np) */
  uint32_t *lmap;   /* [np]: relabel's lane map */
  int64_t *btmp;    /* [np]: relabel's copy of base */
  int8_t pos[256];  /* category id -> its lane bit (see set_layout), or -1 */
  uint8_t catpos[256];
  struct kind_info kinfo[IC_EDGE_KIND_COUNT];
  int win_pos;      /* lane bit of win, or -1 */
  uint32_t rule_off; /* 1 << lane bit of bw (0: not chosen): the lanes where
                        slot-form IW edges are not the slot rule (k_slots) */
  uint32_t *lane_of; /* [n]: the lane of the caller's subset mask (without its
                        inert categories) */
  /* The compact layout (ic_solver_set_subsets): need[S] for each caller's
   * subset (NULL: every subset, the powerset layout). Then the lanes
   * evaluated are only those of the needed subsets, packed: lane p holds
   * the powerset layout's lane lsub[p] ("logical" lane; pidx is the
   * inverse, UINT32_MAX for a logical lane no needed subset reads), and
   * lfl[p] says which rules it has not (LF_*); set_compact. */
  uint8_t *need;    /* [n] or NULL */
  uint32_t *pidx;   /* [np] (with need) */
  uint32_t *opidx;  /* [np]: relabel's copy of pidx */
  uint32_t *lsub;   /* [np] (with need) */
  uint8_t *lfl;     /* lfl_buf in the compact layout, else NULL */
  uint16_t *nxt[LR_COUNT]; /* compact: [anp + 1] each, the first lane from p on
                              that keeps the rule (anp: none); else NULL */
  uint16_t *nxt_buf;       /* [LR_COUNT][np + 1] (with need) */
  uint8_t *lfl_buf; /* [np] (with need) */
  uint8_t *slotb;   /* [np / LANES]: bit q of block b: lane 8b + q has no slot
                       rule (slotm 0) */
  int32_t *slotm;   /* [np]: -1 in the lanes where the slot rule lives (no bw;
                       both layouts), else 0 */
  int32_t *bitm;    /* [ncat][np]: -1 where subset has bit k, else 0 */
  uint64_t w[RING_COUNT];    /* window of each ring (power of two) */
  uint64_t wmax;             /* cap of every ring's window */
  int32_t *ring[RING_COUNT]; /* [w][rs] each */
  uint32_t rs;               /* a ring row's int32s: anp (the lanes evaluated), so
                                the rows of a few lanes lie close together */
  int32_t *scratch[3];       /* [0]: relabel's row, [1], [2]: rebase's */
  /* The slot rule's counts (slot_tab.h), one table a lane [np], kept by
   * exec_plan for each thread's lanes (not in bw's lanes, where the rule
   * does not hold); absolute cycles (base + offset), so a rebase leaves them. */
  ic_slot_tab *stab;
  /* The MSHR rule's holders (mshr_tab.h), one list a lane [np], kept by
   * exec_plan like stab (not in dmiss's lanes); absolute cycles. */
  ic_mshr_tab *mtab;
  uint32_t mshr_off; /* 1 << lane bit of dmiss (0: not chosen): the lanes
                        without the MSHR rule */
  /* The IQ rule's E's (iq_tab.h), one table a lane [np], kept by exec_plan
   * like stab (not in win's lanes); absolute cycles. */
  ic_iq_tab *qtab;
  uint32_t iq_off;   /* 1 << lane bit of win (0: not chosen): the lanes
                        without the IQ rule */
  /* Latency vectors by edge shape (lat_key): a vector, once built, stays
   * unchanged until the store is cleared (plans in flight point to it). */
  struct lslot *lslot;       /* [2 * lcap] */
  int32_t *lvec;             /* [lcap][np] */
  uint32_t lcap, lused;
  ic_solver_kernel kern;     /* the node kernel (ic_solver_set_kernel) */
  int64_t *base;             /* [np] */
  int32_t *zero;             /* [np]: offset of time 0, clamped at FLOOR */
  uint64_t *times;           /* [n] */
  int64_t ubound;            /* upper bound of every stored offset */
  int started;
  uint64_t seq0, next;
  uint64_t valid_lo[RING_COUNT]; /* oldest seq whose vectors each ring still holds */
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

/* ---- kernels ---------------------------------------------------------- */

/* Eight subsets at a time with GCC/Clang vector extensions, so the kernels
 * are SIMD at -O2 whatever the auto-vectorizer decides. Macros, not
 * functions, so no 32-byte vector crosses a call boundary. */
typedef int32_t v8si __attribute__((vector_size(4 * LANES), may_alias));
#define LD(p) (*(const v8si *)(const void *)(p))
#define ST(p, v) (*(v8si *)(void *)(p) = (v))
#define VMAX(a, b) __extension__({ v8si a_ = (a), b_ = (b), m_ = a_ > b_; (a_ & m_) | (b_ & ~m_); })
#define SPLAT(x) ((v8si){(x), (x), (x), (x), (x), (x), (x), (x)})
#define VMIN(a, b) __extension__({ v8si a_ = (a), b_ = (b), m_ = a_ < b_; (a_ & m_) | (b_ & ~m_); })

/* One node's arrival vector from all its in-edges in a single pass, over
 * lanes [lo, hi) (multiples of 32, or of 8 below 32 lanes):
 *   acc[s] = max(zero[s], max over vector edges e of src[e][s] + lat[e][s],
 *                         max over scalar edges e of src[e][s] + l[e])
 * over the edges not skipped at s (struct pe). All vectors are 32-byte
 * aligned and np is a multiple of 8.
 *
 * Every source vector is >= zero lane by lane (a node starts at zero or
 * above; rebase lowers and clamps both alike), and a scalar edge's latency
 * is >= 0: a node with a scalar edge starts from it instead of from zero. */
static void k_node_generic(int32_t *acc, const int32_t *zero, const struct plan *pl, int node,
                           uint32_t lo, uint32_t hi) {
  const struct pe *v = pl->e + pl->off[node], *c = v + pl->nv[node];
  const int nv = pl->nv[node], nsc = pl->ns[node] + pl->nc[node], s0 = pl->ns[node] > 0;
  for (uint32_t s = lo; s < hi; s += LANES) {
    v8si x;
    if (s0)
      x = LD(c[0].src + s) + SPLAT(c[0].l);
    else
      x = LD(zero + s);
    for (int e = 0; e < nv; e++)
      if ((s & v[e].skipm) != v[e].skipv) x = VMAX(x, LD(v[e].src + s) + LD(v[e].lat + s));
    for (int e = s0; e < nsc; e++)
      if ((s & c[e].skipm) != c[e].skipv) x = VMAX(x, LD(c[e].src + s) + SPLAT(c[e].l));
    ST(acc + s, x);
  }
}

/* The lanes of the block at s where the width's rule (lw) and the pool's
 * (lp) live: those of its edge's block (not dropped there) and of the
 * rule (not bw's). */
static inline __attribute__((always_inline)) void slot_live(const struct pe *ew, const struct pe *ep,
                                                           uint32_t s, const int32_t *slotm, v8si *lw,
                                                           v8si *lp) {
  const v8si half = SPLAT(NEG / 2), zero = SPLAT(0);
  const v8si rule = LD(slotm + s);
  v8si w = zero, p = zero;
  if (ew && s < ew->skipm) w = ew->lat ? (v8si)(LD(ew->lat + s) > half) : SPLAT(-1);
  if (ep && s < ep->skipm) p = ep->lat ? (v8si)(LD(ep->lat + s) > half) : SPLAT(-1);
  *lw = w & rule;
  *lp = p & rule;
}

/* One lane's slot counts for the planned record: the floor takes its D
 * (b0 + d: absolute), then the rule from cycle b0 + e (thresholds tw, tp:
 * ic_slot_tab_take_th) and the issue counted there. With m (the lane's
 * MSHR holders, for a record with the MSHR rule in a lane that keeps it;
 * else NULL), the slot rule and the MSHR rule in turn until neither moves
 * E (rules.h; k_mshr has applied the MSHR rule once already), then the
 * issue counted in the cycle they give. Returns the cycles E moves on; 0
 * where E lies below the floor (before time 0 too), or where the counts
 * could not grow (then counted as a violation, and in oom). */
static inline __attribute__((always_inline)) uint32_t lane_take(struct xenv *x, const struct plan *pl,
                                                                 uint32_t lane, int32_t d, int32_t e,
                                                                 unsigned tw, unsigned tp,
                                                                 const ic_mshr_tab *m) {
  ic_slot_tab *t = &x->sv->stab[lane];
  const int64_t b0 = x->base[lane], dt = b0 + d, c0 = b0 + e;
  if (dt > (int64_t)t->floor) ic_slot_tab_floor(t, (uint64_t)dt);
  if (c0 < (int64_t)t->floor) return 0; /* below the floor (and time 0): free */
  const uint64_t from = m ? ic_rules_time(m, pl->mk, t, 1, tw < 256u ? (int)tw : 0,
                                          tp < 256u ? (int)tp : 0, pl->pool, (uint64_t)c0, NULL, NULL)
                          : (uint64_t)c0;
  uint64_t c;
  if (ic_slot_tab_take_th(t, from, tw, tp, pl->pool, &c) != 0) {
    if (!x->viol) x->first = pl->seq;
    x->viol++;
    x->oom++;
    return 0;
  }
  return (uint32_t)(c - (uint64_t)c0);
}

/* The first lane from `lane` on without the category whose lane bit is
 * off (0: none): its lanes come in runs of off, skipped a run at a time. */
static inline uint32_t lane_from(uint32_t lane, uint32_t off) {
  return lane & off ? (lane | (off - 1)) + 1 : lane;
}



/* The first lane from `lane` (<= anp) on that keeps a rule: in the
 * powerset layout (nx NULL) without the category whose lane bit is off
 * (lane_from), in the compact one the rule's next lane (ic_solver.nxt;
 * anp when none is left). */
static inline uint32_t lane_next(uint32_t lane, uint32_t off, const uint16_t *nx) {
  return nx ? nx[lane] : lane_from(lane, off);
}

/* Bits (from s) of the lanes among [s, s + LANES) without the slot rule
 * (bw's, and the compact layout's padding). */
static inline uint32_t rule_bits(uint32_t s, const uint8_t *slotb) {
  return slotb[s / LANES];
}

/* lane_take over the lanes [lo, hi) without bw, with the same thresholds
 * in each: a loop of its own (few live values, nothing spilled) whose
 * common path is one entry that is not full; a full cycle (the walk), a
 * cycle beyond the table and a count at 255 go through
 * ic_slot_tab_take_th. acc gets the moves. */
static __attribute__((noinline)) void lanes_take(struct xenv *x, const struct plan *pl, uint32_t lo,
                                                 uint32_t hi, const int32_t *d, int32_t *acc,
                                                 unsigned tw, unsigned tp) {
  const uint32_t off = x->sv->rule_off;
  const int pool = pl->pool, sh = 8 * (1 + pool); /* the pool's count: byte 1 + pool */
  /* the common path's thresholds: below 255 too, so its counts need no
     saturation (a count at 255 takes ic_slot_tab_take_th, which saturates) */
  const unsigned tw1 = tw < 255u ? tw : 255u, tp1 = tp < 255u ? tp : 255u;
  const uint64_t inc = 1u | (uint64_t)1 << sh;
  ic_slot_tab *const stab = x->sv->stab;
  const int64_t *const base = x->base;
  const uint16_t *const nx = x->sv->nxt[LR_SLOT];
  for (uint32_t lane = lane_next(lo, off, nx); lane < hi; lane = lane_next(lane + 1, off, nx)) {
    ic_slot_tab *t = &stab[lane];
    const int64_t b0 = base[lane], dt = b0 + d[lane], c0 = b0 + acc[lane];
    if (dt > (int64_t)t->floor) ic_slot_tab_floor(t, (uint64_t)dt);
    const int64_t fl = (int64_t)t->floor;
    if (c0 < fl) continue; /* below the floor (and time 0): free, nothing counted */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ /* counts as one word */
    if ((uint64_t)(c0 - fl) < t->cap) { /* the common path: c0 is not full */
      uint8_t *n = t->e[(uint64_t)c0 & (t->cap - 1)];
      uint64_t w;
      memcpy(&w, n, sizeof w);
      if ((w & 0xff) < tw1 && (w >> sh & 0xff) < tp1) { /* one more in the cycle and in its pool */
        w += inc;
        memcpy(n, &w, sizeof w);
        if ((uint64_t)c0 >= t->top) t->top = (uint64_t)c0 + 1;
        continue;
      }
    }
#endif
    uint64_t c;
    if (ic_slot_tab_take_th(t, (uint64_t)c0, tw, tp, pool, &c) != 0) {
      if (!x->viol) x->first = pl->seq;
      x->viol++;
      x->oom++;
      continue;
    }
    acc[lane] += (int32_t)(c - (uint64_t)c0);
  }
}

/* The slot rule (graph_rec.h, IW slot form) on node E over lanes [lo, hi),
 * after its other edges, and the slot counts' upkeep: in the lanes where
 * the record's slot-form edge of the issue width (of the pool) lives, E
 * moves to the first cycle with a free slot in the lane's counts (stab,
 * slot_tab.h), whose floor first takes this record's D; in every lane
 * without bw the counts take the E (ic_slot_tab_take: one walk for both).
 * Block pairs in the slot form carry the edge's flags in the condition
 * entry's l (0: the old form, k_block's). Returns 0 where the record has
 * no slot-form edge (slots_note keeps the counts then). */
static inline __attribute__((always_inline)) int k_slots(int32_t *acc, const struct pe *b, int ni,
                                                         uint32_t lo, uint32_t hi,
                                                         const struct plan *pl, struct xenv *x) {
  int nw = 0, np = 0;
  const struct pe *ew = NULL, *ep = NULL;
  for (int e = 0; e + 1 < ni; e += 2) {
    const int32_t cf = b[e + 1].l;
    if (!cf) continue;
    if (cf & IC_IW_POOL)
      np = cf & IC_IW_SLOTS, ep = &b[e];
    else
      nw = cf & IC_IW_SLOTS, ew = &b[e];
  }
  if (!ew && !ep) return 0;
  const uint32_t off = x->sv->rule_off;
  const int32_t *const slotm = x->sv->slotm;
  const uint8_t *const slotb = x->sv->slotb;
  const int32_t *d = pl->out[IC_NODE_D];
  const unsigned tw = nw ? (unsigned)nw : 256u, tp = np ? (unsigned)np : 256u;
  uint32_t run = lo; /* blocks [run, s) have the rules in every lane: one lanes_take */
  for (uint32_t s = lo; s < hi; s += LANES) {
    const uint32_t end = s + LANES < hi ? s + LANES : hi;
    if (off >= LANES && (s & off)) continue; /* a block of bw's lanes (lanes_take skips them) */
    v8si lw, lp;
    slot_live(ew, ep, s, slotm, &lw, &lp);
    uint32_t mw = 0, mp = 0; /* the rules' lanes as bits */
    for (uint32_t q = 0; q < LANES; q++) {
      mw |= (uint32_t)(lw[q] & 1) << q;
      mp |= (uint32_t)(lp[q] & 1) << q;
    }
    const uint32_t all = ((1u << (end - s)) - 1) & ~rule_bits(s, slotb);
    if (!pl->mk && (mw | (ew ? 0 : all)) == all && (mp | (ep ? 0 : all)) == all)
      continue; /* the rules live in every lane */
    if (run < s) lanes_take(x, pl, run, s, d, acc, tw, tp);
    run = end;
    for (uint32_t lane = s; lane < end; lane++) {
      if (!slotm[lane]) continue;
      const uint32_t q = lane - s;
      const unsigned lw1 = mw >> q & 1 ? tw : 256u, lp1 = mp >> q & 1 ? tp : 256u;
      /* with the MSHR rule where the lane keeps it (no dmiss): both rules
         together (rules.h) */
      const ic_mshr_tab *m =
          pl->mk && lane_next(lane, x->sv->mshr_off, x->sv->nxt[LR_MSHR]) == lane ? &x->sv->mtab[lane]
                                                                                  : NULL;
      acc[lane] += (int32_t)lane_take(x, pl, lane, d[lane], acc[lane], lw1, lp1, m);
    }
  }
  if (run < hi) lanes_take(x, pl, run, hi, d, acc, tw, tp);
  return 1;
}

/* The IQ rule (graph_rec.h, IQ RULE) on node D over lanes [lo, hi)
 * without win, after its edges: D is at least the K-th largest E of the
 * earlier records in the lane (qtab, iq_tab.h). Scalar work a lane, on
 * every record of a machine whose IQ is smaller than its ROB; a lane
 * whose table cannot be made counts as a violation (and in oom). */
static void k_iq(int32_t *acc, uint32_t lo, uint32_t hi, const struct plan *pl, struct xenv *x) {
  const uint32_t off = x->sv->iq_off, k = pl->iq;
  ic_iq_tab *const qt = x->sv->qtab;
  const int64_t *const base = x->base;
  const uint16_t *const nx = x->sv->nxt[LR_IQ];
  for (uint32_t lane = lane_next(lo, off, nx); lane < hi; lane = lane_next(lane + 1, off, nx)) {
    ic_iq_tab *t = &qt[lane];
    if (t->k != k && ic_iq_tab_reset(t, k) != 0) {
      if (!x->viol) x->first = pl->seq;
      x->viol++;
      x->oom++;
      continue;
    }
    if (t->n < k) continue; /* fewer than K so far: no bound */
    const int64_t b = (int64_t)t->lo - base[lane];
    if (b > acc[lane]) acc[lane] = (int32_t)b;
  }
}

/* The IQ rule's upkeep for a record with it, over lanes [lo, hi) without
 * win: its E. An E at most the bound once K are kept (not among the K
 * largest) changes nothing: tested here, before the call. */
static void iq_note(struct xenv *x, const struct plan *pl, uint32_t lo, uint32_t hi) {
  const uint32_t off = x->sv->iq_off;
  const int32_t *e = pl->out[IC_NODE_E];
  ic_iq_tab *const qt = x->sv->qtab;
  const int64_t *const base = x->base;
  const uint16_t *const nx = x->sv->nxt[LR_IQ];
  for (uint32_t lane = lane_next(lo, off, nx); lane < hi; lane = lane_next(lane + 1, off, nx)) {
    ic_iq_tab *t = &qt[lane];
    const int64_t te = base[lane] + e[lane];
    const uint64_t ue = te > 0 ? (uint64_t)te : 0;
    if (t->n == t->k && ue <= t->lo) continue;
    if (ic_iq_tab_add(t, ue) != 0) {
      if (!x->viol) x->first = pl->seq;
      x->viol++;
      x->oom++;
    }
  }
}

/* The MSHR rule (graph_rec.h, MSHR rule form) on node E over lanes
 * [lo, hi) without dmiss, after its other edges and before the slot rule:
 * E moves to the first cycle at which fewer than pl->mk of the lane's
 * holders (mtab, mshr_tab.h) hold an MSHR, whose floor first takes this
 * record's D. Scalar work a lane, for the records with the rule only (the
 * loads that took an MSHR). */
static void k_mshr(int32_t *acc, uint32_t lo, uint32_t hi, const struct plan *pl, struct xenv *x) {
  const uint32_t off = x->sv->mshr_off;
  const int32_t *d = pl->out[IC_NODE_D];
  const uint16_t *const nx = x->sv->nxt[LR_MSHR];
  for (uint32_t lane = lane_next(lo, off, nx); lane < hi; lane = lane_next(lane + 1, off, nx)) {
    ic_mshr_tab *t = &x->sv->mtab[lane];
    const int64_t b0 = x->base[lane], dt = b0 + d[lane], c0 = b0 + acc[lane];
    ic_mshr_tab_floor(t, dt > 0 ? (uint64_t)dt : 0);
    if (c0 < 0) continue; /* before time 0: no holder holds there */
    acc[lane] += (int32_t)(ic_mshr_tab_time(t, (uint64_t)c0, pl->mk, NULL) - (uint64_t)c0);
  }
}

/* The MSHR holders' upkeep for a record with the rule, over lanes [lo, hi)
 * without dmiss: its hold [E, P). */
static void mshr_note(struct xenv *x, const struct plan *pl, uint32_t lo, uint32_t hi) {
  const uint32_t off = x->sv->mshr_off;
  const int32_t *e = pl->out[IC_NODE_E], *p = pl->out[IC_NODE_P];
  const uint16_t *const nx = x->sv->nxt[LR_MSHR];
  for (uint32_t lane = lane_next(lo, off, nx); lane < hi; lane = lane_next(lane + 1, off, nx)) {
    const int64_t b0 = x->base[lane], te = b0 + e[lane], tp = b0 + p[lane];
    if (tp <= 0) continue;
    if (ic_mshr_tab_add(&x->sv->mtab[lane], te > 0 ? (uint64_t)te : 0, (uint64_t)tp, pl->seq) != 0) {
      if (!x->viol) x->first = pl->seq;
      x->viol++;
      x->oom++;
    }
  }
}

/* The slot counts' upkeep for a record without a slot-form edge, over lanes
 * [lo, hi) without bw: the floor takes its D, the counts its E. */
static void slots_note(struct xenv *x, const struct plan *pl, uint32_t lo, uint32_t hi) {
  lanes_take(x, pl, lo, hi, pl->out[IC_NODE_D], pl->out[IC_NODE_E], 256u, 256u);
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define HAVE_AVX2_KERNEL 1
/* The same with AVX2 intrinsics, 64 or 32 subsets per block held in
 * registers, so each edge costs one or two loads, one add and one max per 8
 * subsets. A block of 64 (32) lanes starts at a multiple of 64 (32), so a
 * skip bit >= its size is the same in all its lanes. */
#define AVX_LD(p) _mm256_load_si256((const __m256i *)(const void *)(p))
#define AVX_STEP(v, a, l) v = _mm256_max_epi32(v, _mm256_add_epi32(AVX_LD(a), l))
#define AVX_ST(p, v) _mm256_store_si256((__m256i *)(void *)(p), v)
/* One block of 8 * K lanes at s (K = 8 or 4; x0..x7 the accumulators,
 * those past K unused): start, the vector entries (a vector entry whose
 * skip bit is below the block size is computed in every block: NEG where
 * gone), the scalar entries (never skipped: no test), the conditional ones
 * (skip bits of at least the block size), store. */
#define AVX_REGS(K, OP) \
  do { \
    OP(0); \
    if ((K) >= 2) OP(1); \
    if ((K) >= 3) OP(2); \
    if ((K) >= 4) OP(3); \
    if ((K) == 8) { OP(4); OP(5); OP(6); OP(7); } \
  } while (0)
#define AVX_BLOCK(K, s) \
  do { \
    __m256i x0, x1 = l0, x2 = l0, x3 = l0, x4 = l0, x5 = l0, x6 = l0, x7 = l0; \
    if (i1) \
      AVX_REGS(K, AVX_INITV_R); \
    else \
      AVX_REGS(K, AVX_INITS_R); \
    for (const struct pe *e = vb; e != ve; e++) { \
      if (e->skipm >= 8u * (K) && ((s) & e->skipm) == e->skipv) continue; \
      const int32_t *a = e->src + (s), *b = e->lat + (s); \
      AVX_REGS(K, AVX_VSTEP_R); \
    } \
    for (const struct pe *e = sb; e != se; e++) { \
      const int32_t *a = e->src + (s); \
      const __m256i l = _mm256_set1_epi32(e->l); \
      AVX_REGS(K, AVX_SSTEP_R); \
    } \
    for (const struct pe *e = se; e != ce; e++) { \
      if (((s) & e->skipm) == e->skipv) continue; \
      const int32_t *a = e->src + (s); \
      const __m256i l = _mm256_set1_epi32(e->l); \
      AVX_REGS(K, AVX_SSTEP_R); \
    } \
    AVX_REGS(K, AVX_ST_R); \
  } while (0)
#define AVX_INITS_R(j) x##j = _mm256_add_epi32(AVX_LD(i0 + (s) + 8 * (j)), l0)
#define AVX_INITV_R(j) x##j = _mm256_add_epi32(AVX_LD(iv + (s) + 8 * (j)), AVX_LD(i1 + (s) + 8 * (j)))
#define AVX_VSTEP_R(j) AVX_STEP(x##j, a + 8 * (j), AVX_LD(b + 8 * (j)))
#define AVX_SSTEP_R(j) AVX_STEP(x##j, a + 8 * (j), l)
#define AVX_ST_R(j) AVX_ST(acc + s + 8 * (j), x##j)
__attribute__((target("avx2"), always_inline)) static inline void k_node_avx2(int32_t *acc, const int32_t *zero,
                                                        const struct plan *pl, int node,
                                                        uint32_t lo, uint32_t hi) {
  const struct pe *v = pl->e + pl->off[node], *c = v + pl->nv[node];
  const int nv = pl->nv[node], ns = pl->ns[node], nsc = ns + pl->nc[node], s0 = ns > 0;
  /* with no scalar entry, a vector entry with no NEG lane starts the node
   * (its source is >= time 0 and its latencies >= 0) */
  const int v0 = !s0 && pl->vf[node];
  const __m256i l0 = _mm256_set1_epi32(s0 ? c[0].l : 0);
  /* the start: src + l0 (time 0: zero + 0), or src + lat */
  const int32_t *i0 = s0 ? c[0].src : zero, *i1 = v0 ? v[0].lat : NULL;
  /* the start with a vector entry (iv: i0 where there is none), kept apart
   * from i0 so the compiler folds each start's load into its add */
  const int32_t *iv = v0 ? v[0].src : i0;
  const struct pe *vb = v + v0, *ve = v + nv, *sb = c + s0, *se = c + ns, *ce = c + nsc;
  /* Blocks of 64 where every conditional edge skips whole blocks of 64,
   * else of 32 (every skip bit is >= 32), else of 8; [lo, hi) is cut into
   * whole blocks when both ends are multiples of the block size (always,
   * but for a two-thread split), so each loop has no other test. */
  if (pl->cskipmin[node] >= 8 * LANES && !((lo | hi) & (8 * LANES - 1))) {
    for (size_t s = lo; s < hi; s += 8 * LANES) AVX_BLOCK(8, s);
    return;
  }
  if (!((lo | hi) & (4 * LANES - 1))) {
    for (size_t s = lo; s < hi; s += 4 * LANES) AVX_BLOCK(4, s);
    return;
  }
  /* the compact layout (no entry skips a lane) in 16 or 24 lanes: one
     block of two or three registers */
  if (pl->compact && hi - lo == 2 * LANES) {
    const size_t s = lo; /* the name the step macros read */
    AVX_BLOCK(2, s);
    return;
  }
  if (pl->compact && hi - lo == 3 * LANES) {
    const size_t s = lo;
    AVX_BLOCK(3, s);
    return;
  }
  for (size_t s = lo; s < hi; s += LANES) {
    __m256i x = _mm256_add_epi32(AVX_LD(iv + s), i1 ? AVX_LD(i1 + s) : l0);
    for (const struct pe *e = vb; e != ve; e++)
      if ((s & e->skipm) != e->skipv) AVX_STEP(x, e->src + s, AVX_LD(e->lat + s));
    for (const struct pe *e = sb; e != se; e++) AVX_STEP(x, e->src + s, _mm256_set1_epi32(e->l));
    for (const struct pe *e = se; e != ce; e++)
      if ((s & e->skipm) != e->skipv) AVX_STEP(x, e->src + s, _mm256_set1_epi32(e->l));
    AVX_ST(acc + s, x);
  }
}

/* k_block (below) with AVX2. */
__attribute__((target("avx2"), always_inline)) static inline void k_block_avx2(int32_t *acc, const struct pe *b,
                                                         int ni, uint32_t lo, uint32_t hi) {
  for (uint32_t s = lo; s < hi; s += LANES) {
    __m256i x = AVX_LD(acc + s), r = x;
    for (int e = 0; e + 1 < ni; e += 2)
      if (s < b[e].skipm && !b[e + 1].l) { /* the slot form: k_slots */
        __m256i c = _mm256_add_epi32(AVX_LD(b[e].src + s), b[e].lat ? AVX_LD(b[e].lat + s)
                                                                      : _mm256_set1_epi32(b[e].l));
        __m256i later = _mm256_cmpgt_epi32(AVX_LD(b[e + 1].src + s), r);
        x = _mm256_max_epi32(x, _mm256_blendv_epi8(c, x, later));
      }
    AVX_ST(acc + s, x);
  }
}

/* The five nodes of a plan over lanes [lo, hi) (one call: the kernels are
 * inlined into it, so their setup is not paid five times). */
__attribute__((target("avx2"))) static int k_nodes_avx2(const struct plan *pl, const int32_t *zero,
                                                        uint32_t lo, uint32_t hi, struct xenv *x) {
  int slots = 0;
  const uint32_t bhi = hi < pl->bhi ? hi : pl->bhi;
  for (int node = 0; node < IC_NODE_COUNT; node++) {
    k_node_avx2(pl->out[node], zero, pl, node, lo, hi);
    if (node == IC_NODE_D && pl->iq) k_iq(pl->out[node], lo, hi, pl, x);
    if (node == IC_NODE_E && pl->ni[node]) {
      const struct pe *b = pl->e + pl->off[node] + pl->nv[node] + pl->ns[node] + pl->nc[node];
      if (lo < bhi) k_block_avx2(pl->out[node], b, pl->ni[node], lo, bhi);
      if (pl->mk) k_mshr(pl->out[node], lo, hi, pl, x);
      slots = k_slots(pl->out[node], b, pl->ni[node], lo, hi, pl, x);
    } else if (node == IC_NODE_E && pl->mk) {
      k_mshr(pl->out[node], lo, hi, pl, x);
    }
  }
  return slots;
}

/* The same with AVX-512 (16 lanes a register): blocks of 64 lanes in four
 * registers where every conditional edge skips whole blocks of 64, else of
 * 32 in two (the AVX2 kernel's blocks, so the same entries are skipped in
 * the same lanes), and the compact layout's 16 lanes in one; fewer or
 * other lanes go to the AVX2 kernel. The adds and maxima are the same
 * 32-bit operations lane by lane, so every answer is the AVX2 kernel's. */
#define Z_LD(p) _mm512_loadu_si512((const void *)(p))
#define Z_STEP(v, a, l) v = _mm512_max_epi32(v, _mm512_add_epi32(Z_LD(a), l))
#define Z_ST(p, v) _mm512_storeu_si512((void *)(p), v)
#define Z_REGS(K, OP) \
  do { \
    OP(0); \
    if ((K) >= 2) OP(1); \
    if ((K) == 4) { OP(2); OP(3); } \
  } while (0)
#define Z_BLOCK(K, s) \
  do { \
    __m512i x0, x1 = z0, x2 = z0, x3 = z0; \
    if (i1) \
      Z_REGS(K, Z_INITV_R); \
    else \
      Z_REGS(K, Z_INITS_R); \
    for (const struct pe *e = vb; e != ve; e++) { \
      if (e->skipm >= 16u * (K) && ((s) & e->skipm) == e->skipv) continue; \
      const int32_t *a = e->src + (s), *b = e->lat + (s); \
      Z_REGS(K, Z_VSTEP_R); \
    } \
    for (const struct pe *e = sb; e != se; e++) { \
      const int32_t *a = e->src + (s); \
      const __m512i l = _mm512_set1_epi32(e->l); \
      Z_REGS(K, Z_SSTEP_R); \
    } \
    for (const struct pe *e = se; e != ce; e++) { \
      if (((s) & e->skipm) == e->skipv) continue; \
      const int32_t *a = e->src + (s); \
      const __m512i l = _mm512_set1_epi32(e->l); \
      Z_REGS(K, Z_SSTEP_R); \
    } \
    Z_REGS(K, Z_ST_R); \
  } while (0)
#define Z_INITS_R(j) x##j = _mm512_add_epi32(Z_LD(i0 + (s) + 16 * (j)), z0)
#define Z_INITV_R(j) x##j = _mm512_add_epi32(Z_LD(iv + (s) + 16 * (j)), Z_LD(i1 + (s) + 16 * (j)))
#define Z_VSTEP_R(j) Z_STEP(x##j, a + 16 * (j), Z_LD(b + 16 * (j)))
#define Z_SSTEP_R(j) Z_STEP(x##j, a + 16 * (j), l)
#define Z_ST_R(j) Z_ST(acc + s + 16 * (j), x##j)
__attribute__((target("avx512f"), always_inline)) static inline int k_node_avx512(int32_t *acc,
                                                                                  const int32_t *zero,
                                                                                  const struct plan *pl,
                                                                                  int node, uint32_t lo,
                                                                                  uint32_t hi) {
  const struct pe *v = pl->e + pl->off[node], *c = v + pl->nv[node];
  const int nv = pl->nv[node], ns = pl->ns[node], nsc = ns + pl->nc[node], s0 = ns > 0;
  const int v0 = !s0 && pl->vf[node]; /* as k_node_avx2 */
  const __m512i z0 = _mm512_set1_epi32(s0 ? c[0].l : 0);
  const int32_t *i0 = s0 ? c[0].src : zero, *i1 = v0 ? v[0].lat : NULL;
  const int32_t *iv = v0 ? v[0].src : i0;
  const struct pe *vb = v + v0, *ve = v + nv, *sb = c + s0, *se = c + ns, *ce = c + nsc;
  if (pl->cskipmin[node] >= 8 * LANES && !((lo | hi) & (8 * LANES - 1))) {
    for (size_t s = lo; s < hi; s += 8 * LANES) Z_BLOCK(4, s);
    return 1;
  }
  if (!((lo | hi) & (4 * LANES - 1))) {
    for (size_t s = lo; s < hi; s += 4 * LANES) Z_BLOCK(2, s);
    return 1;
  }
  if (pl->compact && hi - lo == 2 * LANES) {
    const size_t s = lo;
    Z_BLOCK(1, s);
    return 1;
  }
  return 0;
}

/* k_nodes_avx2 with the AVX-512 node kernel where it takes the lanes. */
__attribute__((target("avx512f,avx2"))) static int k_nodes_avx512(const struct plan *pl, const int32_t *zero,
                                                                  uint32_t lo, uint32_t hi, struct xenv *x) {
  int slots = 0;
  const uint32_t bhi = hi < pl->bhi ? hi : pl->bhi;
  for (int node = 0; node < IC_NODE_COUNT; node++) {
    if (!k_node_avx512(pl->out[node], zero, pl, node, lo, hi)) k_node_avx2(pl->out[node], zero, pl, node, lo, hi);
    if (node == IC_NODE_D && pl->iq) k_iq(pl->out[node], lo, hi, pl, x);
    if (node == IC_NODE_E && pl->ni[node]) {
      const struct pe *b = pl->e + pl->off[node] + pl->nv[node] + pl->ns[node] + pl->nc[node];
      if (lo < bhi) k_block_avx2(pl->out[node], b, pl->ni[node], lo, bhi);
      if (pl->mk) k_mshr(pl->out[node], lo, hi, pl, x);
      slots = k_slots(pl->out[node], b, pl->ni[node], lo, hi, pl, x);
    } else if (node == IC_NODE_E && pl->mk) {
      k_mshr(pl->out[node], lo, hi, pl, x);
    }
  }
  return slots;
}
#endif

/* ---- evaluating plans ------------------------------------------------- */

/* The block edges of node E (E sources, IW) over lanes [lo, hi) (hi <=
 * bhi), in pairs: an edge, then the R vector of its source instruction.
 * acc[s] = max(acc[s], src[e][s] + lat[e][s] or l[e]) for the edges with
 * s < their skipm (their block) and where their source was ready by
 * acc[s] as the node's other edges left it: the IW condition (graph_rec.h). */
static void k_block(int32_t *acc, const struct pe *b, int ni, uint32_t lo, uint32_t hi) {
  for (uint32_t s = lo; s < hi; s += LANES) {
    v8si x = LD(acc + s), r = x;
    for (int e = 0; e + 1 < ni; e += 2)
      if (s < b[e].skipm && !b[e + 1].l) { /* the slot form: k_slots */
        v8si c = LD(b[e].src + s) + (b[e].lat ? LD(b[e].lat + s) : SPLAT(b[e].l));
        v8si later = LD(b[e + 1].src + s) > r; /* -1 where the source was ready later */
        x = VMAX(x, (later & x) | (~later & c));
      }
    ST(acc + s, x);
  }
}

/* Computes lanes [lo, hi) of the five vectors of a planned instruction
 * and, with lane 0, compares subset {} with the record's stamps (through
 * exec_plan, below). In
 * two-thread mode the worker runs it for lanes [0, split) and the planning
 * thread for [split, np): each touches only its lanes of every vector
 * (rings and scratch) and counts in its own xenv, and what the
 * planner changes only while the pipeline is drained (base, zero, the
 * rings' places) is only read. */
static void k_fill(int32_t *v, int32_t x, uint32_t np);

static void exec_range(struct xenv *x, const struct plan *pl, uint32_t lo, uint32_t hi) {
  int slots = 0; /* k_slots kept the slot counts */
#ifdef HAVE_AVX2_KERNEL
  if (x->kern == IC_KERNEL_AVX512)
    slots = k_nodes_avx512(pl, x->zero, lo, hi, x);
  else if (x->kern == IC_KERNEL_AVX2)
    slots = k_nodes_avx2(pl, x->zero, lo, hi, x);
  else
#endif
  {
    const uint32_t bhi = hi < pl->bhi ? hi : pl->bhi;
    for (int node = 0; node < IC_NODE_COUNT; node++) {
      k_node_generic(pl->out[node], x->zero, pl, node, lo, hi);
      if (node == IC_NODE_D && pl->iq) k_iq(pl->out[node], lo, hi, pl, x);
      if (node == IC_NODE_E && pl->ni[node]) {
        const struct pe *b = pl->e + pl->off[node] + pl->nv[node] + pl->ns[node] + pl->nc[node];
        if (lo < bhi) k_block(pl->out[node], b, pl->ni[node], lo, bhi);
        if (pl->mk) k_mshr(pl->out[node], lo, hi, pl, x);
        slots = k_slots(pl->out[node], b, pl->ni[node], lo, hi, pl, x);
      } else if (node == IC_NODE_E && pl->mk) {
        k_mshr(pl->out[node], lo, hi, pl, x);
      }
    }
  }

  if (!slots) slots_note(x, pl, lo, hi);
  if (pl->mk) mshr_note(x, pl, lo, hi);
  if (pl->iq) iq_note(x, pl, lo, hi);

  /* Baseline invariant: subset 0 idealizes nothing. */
  if (lo == 0 && hi > 0)
    for (int node = 0; node < IC_NODE_COUNT; node++)
      if ((uint64_t)(x->base[0] + pl->out[node][0]) != pl->t[node]) {
        if (!x->viol) x->first = pl->seq;
        x->viol++;
        break;
      }

  /* The next instructions' ring slots are cold (last written a window
   * ago): fetch them ahead so their stores do not wait for memory; and the
   * far source of a win-idealized CD edge, a window back (only the win
   * lanes when they form the upper half). */
  const size_t from = lo * sizeof(int32_t), to = hi * sizeof(int32_t);
  for (size_t off = from; off < to; off += 64) {
    __builtin_prefetch(pl->pf[0] + off, 1, 3);
    __builtin_prefetch(pl->pf[1] + off, 1, 3);
  }
  if (pl->pf[2])
    for (size_t off = from > pl->pf_from ? from : pl->pf_from; off < to; off += 64)
      __builtin_prefetch(pl->pf[2] + off, 0, 3);
}

/* exec_range over lanes [lo, hi) but those of inert categories. */
static void exec_plan(struct xenv *x, const struct plan *pl, uint32_t lo, uint32_t hi) {
  if (hi > pl->anp) hi = pl->anp; /* the lanes of inert categories are not evaluated */
  if (lo > hi) lo = hi;
  exec_range(x, pl, lo, hi);
}

/* exec_plan over the 32-lane blocks of lanes [0, anp) of even index
 * (half 0) or odd (half 1): the interleaved split (ic_solver_set_split).
 * Lanes of a category's subsets lie in runs of a power of two, so each
 * thread gets about half of every kind of lane: a split at one lane count
 * gave one thread most of the lanes whose rule tables are large (win
 * without bw). */
static void exec_blocks(struct xenv *x, const struct plan *pl, int half) {
  for (uint32_t b = 32u * (uint32_t)half; b < pl->anp; b += 64) exec_plan(x, pl, b, b + 32);
}

/* ---- the two-thread pipeline ------------------------------------------ */

static void *vec_alloc_raw(size_t count, size_t size);

/* One step of waiting for the other thread: a pause at first, then
 * giving the CPU away (on a loaded machine both threads may share one
 * CPU, and the other one is what we wait for). */
static inline void wait_step(int spin) {
  if (spin < SPIN_PAUSE) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
  } else {
    sched_yield();
  }
}

static void *pipe_worker(void *arg) {
  ic_solver *s = arg;
  struct pipe *p = s->pipe;
  struct plan *const q = p->q;
  uint64_t t = atomic_load(&p->tail);
  for (;;) {
    uint64_t h = atomic_load_explicit(&p->head, memory_order_acquire);
    for (int spin = 0; h == t && spin < SPIN; spin++) {
      wait_step(spin);
      h = atomic_load_explicit(&p->head, memory_order_acquire);
    }
    if (h == t) {
      pthread_mutex_lock(&p->m);
      atomic_store(&p->wsleep, 1);
      while ((h = atomic_load(&p->head)) == t && !atomic_load(&p->stop))
        pthread_cond_wait(&p->cv_work, &p->m);
      atomic_store(&p->wsleep, 0);
      pthread_mutex_unlock(&p->m);
      if (h == t) return NULL; /* stopped, nothing left */
    }
    /* the solver's fields change only while the queue is empty */
    const uint32_t split = s->split;
    const int il = s->il;
    p->wx.kern = s->kern;
    while (t != h) {
      /* plans were just written on the other CPU: fetch the next ones'
       * header and usual entries ahead, so their transfer overlaps work */
      if (t + PLAN_AHEAD < h) {
        const char *nx = (const char *)&q[(t + PLAN_AHEAD) & (QCAP - 1)];
        for (size_t off = 0; off < PLAN_FETCH_BYTES; off += 64) __builtin_prefetch(nx + off, 0, 3);
      }
      if (il) exec_blocks(&p->wx, &q[t & (QCAP - 1)], 0);
      else if (split) exec_plan(&p->wx, &q[t & (QCAP - 1)], 0, split);
      t++;
      if ((t & (PUBLISH_EVERY - 1)) == 0 || t == h) {
        atomic_store(&p->tail, t);
        if (atomic_load(&p->psleep) && t >= atomic_load_explicit(&p->pwant, memory_order_relaxed)) {
          pthread_mutex_lock(&p->m);
          pthread_cond_signal(&p->cv_done);
          pthread_mutex_unlock(&p->m);
        }
      }
    }
  }
}

/* Hands the plans written so far to the worker. A sleeping worker is woken
 * only for WAKE_AT plans or more, or when `force`d (the planner is about to
 * wait for it), so that each wake-up buys a good stretch of work. */
static void pipe_publish(struct pipe *p, int force) {
  const uint64_t h = p->planned;
  if (h != atomic_load_explicit(&p->head, memory_order_relaxed)) atomic_store(&p->head, h);
  if (atomic_load(&p->wsleep) &&
      (force || h - atomic_load_explicit(&p->tail, memory_order_relaxed) >= WAKE_AT)) {
    pthread_mutex_lock(&p->m);
    pthread_cond_signal(&p->cv_work);
    pthread_mutex_unlock(&p->m);
  }
}

/* Waits until the worker has evaluated `soon` plans (<= head), spinning a
 * while; if it must sleep, it sleeps until `later` (soon <= later <= head)
 * are, for the same reason as above. */
static void pipe_wait_tail(struct pipe *p, uint64_t soon, uint64_t later) {
  for (int spin = 0; spin < SPIN; spin++) {
    if (atomic_load_explicit(&p->tail, memory_order_acquire) >= soon) return;
    wait_step(spin);
  }
  pthread_mutex_lock(&p->m);
  atomic_store(&p->pwant, later);
  atomic_store(&p->psleep, 1);
  while (atomic_load(&p->tail) < later) pthread_cond_wait(&p->cv_done, &p->m);
  atomic_store(&p->psleep, 0);
  pthread_mutex_unlock(&p->m);
}

/* Every plan written is evaluated: the planner may touch any vector. Only
 * the planner's thread (the solver's caller) drains; const callers drain
 * through the pipe pointer. */
static void pipe_drain(const ic_solver *s) {
  struct pipe *p = s->pipe;
  if (!p) return;
  pipe_publish(p, 1);
  if (atomic_load_explicit(&p->tail, memory_order_acquire) != p->planned)
    pipe_wait_tail(p, p->planned, p->planned);
  p->tail_seen = p->planned;
}

/* The plan slot for the next instruction. */
static struct plan *plan_slot(ic_solver *s) {
  struct pipe *p = s->pipe;
  if (!p || s->solo) return s->one;
  if (p->planned - p->tail_seen >= QCAP) {
    pipe_publish(p, 1);
    p->tail_seen = atomic_load_explicit(&p->tail, memory_order_acquire);
    if (p->planned - p->tail_seen >= QCAP) {
      pipe_wait_tail(p, p->planned - QCAP + 1, p->planned - QCAP / 2);
      p->tail_seen = atomic_load_explicit(&p->tail, memory_order_acquire);
    }
  }
  return &p->q[p->planned & (QCAP - 1)];
}

/* The plan in slot pl is complete: evaluate it now, or queue it and
 * evaluate the planner's lanes. */
static void plan_done(ic_solver *s, struct plan *pl) {
  struct pipe *p = s->pipe;
  if (!p || s->solo) {
    exec_plan(&s->xs, pl, 0, s->np);
    return;
  }
  p->planned++;
  if (p->planned - atomic_load_explicit(&p->head, memory_order_relaxed) >= PUBLISH_EVERY)
    pipe_publish(p, 0);
  if (s->il) exec_blocks(&s->xs, pl, 1);
  else if (s->split < s->np) exec_plan(&s->xs, pl, s->split, s->np);
}

static void pipe_stop(ic_solver *s) {
  struct pipe *p = s->pipe;
  if (!p) return;
  pipe_drain(s);
  pthread_mutex_lock(&p->m);
  atomic_store(&p->stop, 1);
  pthread_cond_signal(&p->cv_work);
  pthread_mutex_unlock(&p->m);
  pthread_join(p->th, NULL);
  if (p->wx.viol) {
    if (!s->xs.viol || p->wx.first < s->xs.first) s->xs.first = p->wx.first;
    s->xs.viol += p->wx.viol;
  }
  pthread_cond_destroy(&p->cv_work);
  pthread_cond_destroy(&p->cv_done);
  pthread_mutex_destroy(&p->m);
  free(p->q);
  free(p);
  s->pipe = NULL;
}

/* Starts the worker; 0 if the system would not (the solver then stays in
 * single-thread mode). */
static int pipe_start(ic_solver *s) {
  struct pipe *p = vec_alloc_raw(1, sizeof *p);
  if (!p) return 0;
  memset(p, 0, sizeof *p);
  atomic_init(&p->head, 0);
  atomic_init(&p->tail, 0);
  atomic_init(&p->wsleep, 0);
  atomic_init(&p->psleep, 0);
  atomic_init(&p->pwant, 0);
  atomic_init(&p->stop, 0);
  p->q = vec_alloc_raw(QCAP, sizeof *p->q);
  p->wx = (struct xenv){s->zero, s->base, s->kern, 0, 0, 0, s};
  int ok = p->q != NULL;
  int mi = ok && pthread_mutex_init(&p->m, NULL) == 0;
  int c1 = mi && pthread_cond_init(&p->cv_work, NULL) == 0;
  int c2 = c1 && pthread_cond_init(&p->cv_done, NULL) == 0;
  s->pipe = p;
  if (c2 && pthread_create(&p->th, NULL, pipe_worker, s) == 0) return 1;
  s->pipe = NULL;
  if (c2) pthread_cond_destroy(&p->cv_done);
  if (c1) pthread_cond_destroy(&p->cv_work);
  if (mi) pthread_mutex_destroy(&p->m);
  free(p->q);
  free(p);
  return 0;
}

/* The worker pays where the kernels have enough lanes to be worth a
 * thread and there is a CPU for it. */
int ic_solver_threads_for(int cpus, int ncat) { return cpus >= 2 && ncat >= 3 ? 2 : 1; }

void ic_solver_set_threads(ic_solver *s, int threads) {
  if (threads <= 0) threads = ic_solver_threads_for(ic_cpus_allowed(), s->ncat);
  if (threads >= 2 && !s->pipe) {
    pipe_start(s);
  } else if (threads < 2 && s->pipe) {
    pipe_stop(s);
  }
}

int ic_solver_threads(const ic_solver *s) { return s->pipe ? 2 : 1; }

/* Lane split in two-thread mode. Planning a record costs about what
 * evaluating 128 lanes does (mix workload, 8 categories, callgrind: 740
 * instructions a record planning, 2230 evaluating 256 lanes), so from 128
 * lanes up the planner could take a share. Measured on this project's
 * 2-CPU virtual machine it did not pay: the worker evaluating lanes
 * [0, 192) or [0, 128) ran from 1.0x down to 0.3x the speed of it
 * evaluating all (also with the two threads' lanes in separate copies of
 * every vector, tried and dropped), so by default the worker evaluates
 * all lanes; ic_solver_set_split sets a split for experiments. What does
 * pay to adapt: when other jobs keep the CPUs busy, handing plans over
 * costs more than it saves (two threads 0.5x to 0.8x of one with 5 jobs
 * waiting for the 2 CPUs). So by default every EPOCH records the planner
 * measures the wall time of the epoch; it tries each candidate for two
 * epochs (adapt_split) (no worker: plan and evaluate every record on the
 * caller's thread as in single-thread mode; the worker evaluating all
 * lanes; since the slot rule runs in every lane without bw, the worker on
 * 3/4 and on 1/2 of the lanes with the planner on the rest: k_slots'
 * counts made the lanes the larger part, and with 8 categories on mix the
 * split ran 0.60 M/s against 0.41 with the first two only; the worker on
 * every other 32-lane block, exec_blocks), keeps the fastest for EXPLOIT
 * epochs, and tries again. A change drains the queue first. */
#define EPOCH 8192u
#define EXPLOIT 24u

static uint32_t split_lanes(const ic_solver *s, int lanes) {
  if (lanes < 0 || (uint32_t)lanes >= s->np) return s->np;
  uint32_t g = s->np >= 4 * LANES ? 4 * LANES : LANES;
  return (uint32_t)lanes / g * g;
}

void ic_solver_set_split(ic_solver *s, int lanes) {
  pipe_drain(s);
  s->solo = 0;
  s->split_fixed = lanes >= 0 || lanes == IC_SOLVER_SPLIT_BLOCKS;
  s->il = lanes == IC_SOLVER_SPLIT_BLOCKS;
  s->split = s->il ? s->np : split_lanes(s, lanes);
  s->epoch_n = 0;
  s->adapt_step = 0;
}

static double mono_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Called once a record in two-thread mode with an adaptive split. Each
 * candidate runs for two epochs, in the order 0 1 2 3 4 4 3 2 1 0, and is
 * judged by the sum of its two: the cost of a record drifts over a run
 * (categories act for the first time and add lanes, the program changes
 * phase), and a steady drift then weighs on every candidate alike. In one
 * epoch each, in order, the lanes added early in mix's run made the later
 * candidates look slower and the solver kept the worker on every lane:
 * 0.40 M records/s over 200k records where the split at half the lanes
 * ran 0.44 to 0.65; in two epochs each, 0.48 to 0.52 (8 categories, the
 * exploring a third of that short run). */
static void adapt_split(ic_solver *s) {
  if (++s->epoch_n < EPOCH) return;
  const double now = mono_now(), dt = now - s->epoch_t0;
  const uint32_t ncand = s->np >= 64 ? 5 : 4, nexp = 2 * ncand;
  s->epoch_n = 0;
  s->epoch_t0 = now;
  /* steps 1..nexp: the epoch just ended ran the candidate of step - 1 */
  if (s->adapt_step >= 1 && s->adapt_step <= nexp) {
    const uint32_t k = s->adapt_step - 1;
    s->cand_time[k < ncand ? k : nexp - 1 - k] += dt;
  }
  uint32_t next;
  if (s->adapt_step < nexp) {
    if (s->adapt_step == 0) memset(s->cand_time, 0, sizeof s->cand_time);
    next = s->adapt_step < ncand ? s->adapt_step : nexp - 1 - s->adapt_step;
    s->adapt_step++;
  } else if (s->adapt_step == nexp) {
    next = 0;
    for (uint32_t c = 1; c < ncand; c++)
      if (s->cand_time[c] < s->cand_time[next]) next = c;
    s->adapt_step++;
  } else if (s->adapt_step < nexp + EXPLOIT) {
    s->adapt_step++;
    return;
  } else {
    s->adapt_step = 1;
    memset(s->cand_time, 0, sizeof s->cand_time);
    next = 0;
  }
  const int solo = next == 0, il = next == 4;
  /* candidates: 0 the planner alone, 1 the worker on every lane, 2 and 3
     the worker on 3/4 and 1/2 of them (whole blocks), the planner on the
     rest: where k_slots' counts make the lanes the larger part; 4 the
     32-lane blocks shared out in turn (exec_blocks) */
  const uint32_t split = solo || il ? s->split : split_lanes(s, (int)(s->np - (next - 1) * (s->np / 4)));
  if (solo != s->solo || split != s->split || il != s->il) {
    pipe_drain(s);
    s->solo = solo;
    s->il = il;
    s->split = split;
    s->st.split_changes++;
    s->epoch_t0 = mono_now();
  }
}

static void k_fill(int32_t *v, int32_t x, uint32_t np) {
  for (uint32_t s = 0; s < np; s += LANES) ST(v + s, SPLAT(x));
}

/* lat[s] -= c where bit k of s is set (m = bit mask vector of k). */
static void k_sub_masked(int32_t *lat, const int32_t *m, int32_t c, uint32_t np) {
  for (uint32_t s = 0; s < np; s += LANES) ST(lat + s, LD(lat + s) - (SPLAT(c) & LD(m + s)));
}

/* lat[s] = NEG where (m[s] ^ inv) is set. */
static void k_neg_masked(int32_t *lat, const int32_t *m, int32_t inv, uint32_t np) {
  for (uint32_t s = 0; s < np; s += LANES) {
    v8si mm = LD(m + s) ^ SPLAT(inv);
    ST(lat + s, (LD(lat + s) & ~mm) | (SPLAT(NEG) & mm));
  }
}

/* ---- allocation ------------------------------------------------------- */

static void *vec_alloc_raw(size_t count, size_t size) {
  size_t bytes = count * size;
  bytes = (bytes + 63) & ~(size_t)63;
  if (bytes == 0) bytes = 64;
  return aligned_alloc(64, bytes);
}

static void *vec_alloc(size_t count, size_t size) {
  void *p = vec_alloc_raw(count, size);
  if (p) memset(p, 0, count * size);
  return p;
}

/* Ring memory is not cleared: a slot is read only after it was written
 * (valid_lo and the window bound every source), so untouched pages of a
 * large window cost no resident memory. */
static int rings_alloc(int32_t *r[RING_COUNT], const uint64_t *w, uint32_t np) {
  int ok = 1;
  for (int k = 0; k < RING_COUNT; k++) ok = (r[k] = vec_alloc_raw(w[k] * np, sizeof(int32_t))) && ok;
  if (ok) return 1;
  for (int k = 0; k < RING_COUNT; k++) free(r[k]);
  return 0;
}

/* Bytes of one instruction's slots in all rings. */
static size_t ring_bytes(const ic_solver *s) {
  size_t b = 0;
  for (int k = 0; k < RING_COUNT; k++) b += (size_t)s->np * sizeof(int32_t);
  return b;
}

static uint64_t max_window(const ic_solver *s) {
  uint64_t m = 0;
  for (int k = 0; k < RING_COUNT; k++) m = s->w[k] > m ? s->w[k] : m;
  return m;
}

/* Lays the lanes out from the powerset layout set_layout just made
 * (logical lanes: lane_of, alanes): in the compact one (with need) lane p
 * is logical lane lsub[p], the needed ones in order ({} first), padded to
 * LANES (LF_PAD, logical lane 0); lane_of and anp become the compact
 * ones, and nothing may skip lanes by their bits (kinfo skipm, rule_off,
 * iq_off, mshr_off: 0; lfl says which rules a lane keeps). Both: bitm
 * (the bits of each lane's logical lane) and slotm. */
static void set_compact(ic_solver *s) {
  s->lfl = NULL;
  for (int r = 0; r < LR_COUNT; r++) s->nxt[r] = NULL;
  if (s->need) {
    uint32_t *const pidx = s->pidx;
    for (uint32_t l = 0; l < s->alanes; l++) pidx[l] = UINT32_MAX;
    pidx[0] = 0;
    for (uint32_t x = 0; x < s->n; x++)
      if (s->need[x]) pidx[s->lane_of[x]] = 0;
    uint32_t k = 0;
    for (uint32_t l = 0; l < s->alanes; l++)
      if (pidx[l] != UINT32_MAX) s->lsub[k] = l, pidx[l] = k++;
    const uint32_t anp = (k + LANES - 1) / LANES * LANES;
    const int bw = s->pos[IC_CAT_BW], win = s->win_pos, dm = s->pos[IC_CAT_DMISS];
    for (uint32_t p = 0; p < anp; p++) {
      const uint32_t l = p < k ? s->lsub[p] : 0;
      s->lsub[p] = l;
      s->lfl_buf[p] = (uint8_t)((p >= k ? LF_PAD : 0) | (bw >= 0 && (l >> bw & 1) ? LF_BW : 0) |
                            (win >= 0 && (l >> win & 1) ? LF_WIN : 0) |
                            (dm >= 0 && (l >> dm & 1) ? LF_DMISS : 0));
    }
    for (uint32_t x = 0; x < s->n; x++) {
      const uint32_t p = pidx[s->lane_of[x]];
      s->lane_of[x] = p == UINT32_MAX ? 0 : p; /* not needed: read as 0 */
    }
    s->anp = anp;
    s->lfl = s->lfl_buf;
    static const uint8_t rf[LR_COUNT] = {LF_BW, LF_WIN, LF_DMISS};
    for (int r = 0; r < LR_COUNT; r++) {
      uint16_t *nx = s->nxt_buf + (size_t)r * (s->np + 1);
      nx[anp] = (uint16_t)anp;
      for (uint32_t p = anp; p-- > 0;)
        nx[p] = s->lfl_buf[p] & (LF_PAD | rf[r]) ? nx[p + 1] : (uint16_t)p;
      s->nxt[r] = nx;
    }
    s->rule_off = s->iq_off = s->mshr_off = 0;
    for (int k2 = 0; k2 < IC_EDGE_KIND_COUNT; k2++) s->kinfo[k2].skipm = 0;
  }
  for (int b = 0; b < s->ncat; b++)
    for (uint32_t p = 0; p < s->np; p++) {
      const uint32_t l = s->lfl ? (p < s->anp ? s->lsub[p] : 0) : p;
      s->bitm[(size_t)b * s->np + p] = (l >> b) & 1 ? -1 : 0;
    }
  for (uint32_t p = 0; p < s->np; p++)
    s->slotm[p] = s->lfl ? (p < s->anp && !(s->lfl[p] & (LF_PAD | LF_BW)) ? -1 : 0)
                         : (p & s->rule_off ? 0 : -1);
  for (uint32_t b = 0; b < s->np / LANES; b++) {
    uint8_t m = 0;
    for (uint32_t q = 0; q < LANES; q++) m |= (uint8_t)((s->slotm[b * LANES + q] == 0) << q);
    s->slotb[b] = m;
  }
}

/* Lanes: bit k of a lane stands for a category, not necessarily cats[k].
 * Only the categories that have acted (s->acted) take the low bits [0,
 * nact); lanes [0, 2^nact) are the subsets of those, and the only ones
 * evaluated: a category that has not acted yet (inert: no latency part of
 * it with cycles in any record so far, no edge its idealization drops and
 * the edge does not keep, for win no CD edge) leaves every node time of a
 * subset with it equal to the one without it, so the subsets with inert
 * categories read the lane without them (lane_of) and the inert
 * categories take the bits above, [nact, ncat). When one acts (planning
 * sees it before the record is evaluated: plan_one), relabel copies every
 * live vector into the new layout, its lanes without the category doubled
 * onto those with it. Among the active categories, those whose
 * idealization removes an edge in some subsets (win for either half of
 * CD, bw, dmiss, bmisp, then any other category of an edge kind's drop
 * mask: imiss, which drops IW) take the highest bits, in that order, so
 * the subsets where such an edge is gone form whole blocks of lanes that
 * the kernels skip; the others keep the caller's order in the low bits.
 * IW is dropped by all of those: it lives only in the lowest block of
 * lanes, [0, 2^(categories chosen outside its mask)), or where an edge
 * keeps some (the model's mostly keep bmisp and imiss) in the lowest block
 * below the lowest bit still dropping it: the order puts the ones kept
 * most often lowest. Sets pos, win_pos, catpos, kinfo, lane_of, alanes
 * and anp from s->acted. */
static void set_layout(ic_solver *s) {
  const int ncat = s->ncat;
  uint8_t top[IC_CAT_COUNT];
  size_t ntop = 0;
  static const uint8_t first[] = {IC_CAT_WIN, IC_CAT_BW, IC_CAT_DMISS, IC_CAT_BMISP};
  ic_catmask seen = 0, drops = 0;
  for (size_t t = 0; t < sizeof first; t++) {
    top[ntop++] = first[t];
    seen |= IC_CATBIT(first[t]);
  }
  for (int k = 0; k < IC_EDGE_KIND_COUNT; k++) drops |= dg_edge_drop_mask((uint8_t)k);
  for (int c = 0; c < IC_CAT_COUNT; c++)
    if ((drops & ~seen) & IC_CATBIT(c)) top[ntop++] = (uint8_t)c;
  int8_t bit[IC_SOLVER_MAX_CATS];
  int nact = 0;
  for (int k = 0; k < ncat; k++) {
    bit[k] = -1;
    nact += (s->acted & IC_CATBIT(s->cats[k])) != 0;
  }
  int hi = nact, lo = 0, up = nact;
  for (size_t t = 0; t < ntop; t++)
    for (int k = 0; k < ncat; k++)
      if (s->cats[k] == top[t] && (s->acted & IC_CATBIT(top[t]))) bit[k] = (int8_t)--hi;
  for (int k = 0; k < ncat; k++)
    if (bit[k] < 0 && (s->acted & IC_CATBIT(s->cats[k]))) bit[k] = (int8_t)lo++;
  for (int k = 0; k < ncat; k++)
    if (bit[k] < 0) bit[k] = (int8_t)up++;
  memset(s->pos, -1, sizeof s->pos);
  for (int k = 0; k < ncat; k++) s->pos[s->cats[k]] = bit[k];
  s->win_pos = s->pos[IC_CAT_WIN];
  s->rule_off = s->pos[IC_CAT_BW] >= 0 && s->pos[IC_CAT_BW] < 31 ? 1u << s->pos[IC_CAT_BW] : 0;
  s->mshr_off = s->pos[IC_CAT_DMISS] >= 0 && s->pos[IC_CAT_DMISS] < 31 ? 1u << s->pos[IC_CAT_DMISS] : 0;
  s->iq_off = s->win_pos >= 0 && s->win_pos < 31 ? 1u << s->win_pos : 0;
  s->alanes = 1u << nact;
  s->anp = (s->alanes + LANES - 1) / LANES * LANES;
  for (uint32_t x = 0; x < s->n; x++) {
    uint32_t lane = 0;
    for (int k = 0; k < ncat; k++)
      if ((x & (1u << k)) && (s->acted & IC_CATBIT(s->cats[k]))) lane |= 1u << bit[k];
    s->lane_of[x] = lane;
  }
  for (int c = 0; c < 256; c++)
    s->catpos[c] = c == IC_CAT_NONE ? 0 : c >= IC_CAT_COUNT ? CP_BAD : (uint8_t)(s->pos[c] + 1);
  for (int k = 0; k < IC_EDGE_KIND_COUNT; k++) {
    struct kind_info *ki = &s->kinfo[k];
    /* the lane bits of the chosen categories that drop this kind */
    ic_catmask dm = dg_edge_drop_mask((uint8_t)k);
    ki->dmask = 0;
    ki->ndc = 0;
    for (int c = 0; c < IC_CAT_COUNT; c++)
      if ((dm & IC_CATBIT(c)) && s->pos[c] >= 0) {
        ki->dmask |= 1u << s->pos[c];
        ki->dcat[ki->ndc] = (uint8_t)c;
        ki->dbit[ki->ndc++] = (uint8_t)s->pos[c];
      }
    ki->node = ic_edge_dst_node[k];
    ki->srcnode = ic_edge_src_node[k];
    ki->ring = node_ring[ki->srcnode];
    ki->bad0 = ki->srcnode >= ki->node;
    ki->badfar = ki->ring < 0 || (ki->srcnode == IC_NODE_E && k != IC_EDGE_IW && k != IC_EDGE_IQ);
    ki->eblock = k == IC_EDGE_IW; /* the E source of an earlier instruction */
    ki->two = k == IC_EDGE_CD && s->win_pos >= 0;
    /* one dropping lane bit: the kernels skip its blocks; several (IW, or a
     * kind not seen before): NEG in the latency vector where any is set */
    ki->drop = ki->dmask && !(ki->dmask & (ki->dmask - 1)) ? (int8_t)__builtin_ctz(ki->dmask) : -1;
    int kb = ki->two ? s->win_pos : ki->drop;
    ki->skipm = kb >= 0 && (1u << kb) >= 4 * LANES ? 1u << kb : 0;
    ki->acts = (dm | (k == IC_EDGE_CD ? IC_CATBIT(IC_CAT_WIN) : 0)) & s->chosen;
    ki->vdist = k == IC_EDGE_PR || k == IC_EDGE_PP || k == IC_EDGE_FU || k == IC_EDGE_IBW ||
                k == IC_EDGE_MSHR || k == IC_EDGE_IW || k == IC_EDGE_IQ || k == IC_EDGE_LSQ;
  }
  set_compact(s);
}


/* Whether this CPU runs kernel k (the portable one: everywhere). */
static int kernel_runs(ic_solver_kernel k) {
#ifdef HAVE_AVX2_KERNEL
  __builtin_cpu_init();
  if (k == IC_KERNEL_AVX2) return __builtin_cpu_supports("avx2");
  if (k == IC_KERNEL_AVX512) return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("avx512f");
#endif
  return k == IC_KERNEL_PORTABLE;
}

static ic_solver_kernel best_kernel(void) {
  return kernel_runs(IC_KERNEL_AVX512) ? IC_KERNEL_AVX512
         : kernel_runs(IC_KERNEL_AVX2) ? IC_KERNEL_AVX2
                                       : IC_KERNEL_PORTABLE;
}

ic_status ic_solver_create(ic_solver **out, const uint8_t *cats, int ncat, ic_err *err) {
  *out = NULL;
  if (ncat < 0 || ncat > IC_SOLVER_MAX_CATS)
    return ic_fail(err, IC_EINPUT, "solver: %d categories (at most %d)", ncat,
                   IC_SOLVER_MAX_CATS);
  ic_solver *s = calloc(1, sizeof *s);
  if (!s) return ic_fail(err, IC_ERUN, "solver: out of memory");
  memset(s->pos, -1, sizeof s->pos);
  s->ncat = ncat;
  s->win_pos = -1;
  for (int k = 0; k < ncat; k++) {
    if (cats[k] >= IC_CAT_COUNT) {
      free(s);
      return ic_fail(err, IC_EINPUT, "solver: unknown category id %u", cats[k]);
    }
    if (s->pos[cats[k]] >= 0) {
      free(s);
      return ic_fail(err, IC_EINPUT, "solver: category '%s' given twice",
                     ic_category_names[cats[k]]);
    }
    s->cats[k] = cats[k];
    s->pos[cats[k]] = (int8_t)k;
  }
  for (int k = 0; k < ncat; k++) s->chosen |= IC_CATBIT(cats[k]);
  s->n = 1u << ncat;
  s->np = (s->n + LANES - 1) / LANES * LANES;
  s->kern = best_kernel();
  size_t per_inst = ring_bytes(s);
  s->wmax = 1024;
  while ((s->wmax * 2) * per_inst <= IC_SOLVER_MAX_WINDOW_BYTES) s->wmax *= 2;
  /* D is a source only for short in-order edges (DD, FBW): a small ring.
   * E only for IW, up to a ROB back: E_WINDOW (an edge reaching farther
   * grows it, but finds its own source lost). */
  uint64_t w = 1024;
  /* the first window as before E and R had rings: from what D, P and C
   * take (E and R start at E_WINDOW) */
  const size_t dpc_inst = (size_t)3 * s->np * sizeof(int32_t);
  while (w * 2 * dpc_inst <= INIT_WINDOW_BYTES) w *= 2;
  if (w > s->wmax) w = s->wmax;
  s->w[RING_D] = MIN_WINDOW;
  s->w[RING_P] = s->w[RING_C] = w;
  s->w[RING_E] = s->w[RING_R] = E_WINDOW < w ? E_WINDOW : w;
  s->lane_of = malloc(s->n * sizeof *s->lane_of);
  s->lmap = vec_alloc(s->np, sizeof *s->lmap);
  s->btmp = vec_alloc(s->np, sizeof *s->btmp);
  s->bitm = vec_alloc((size_t)(ncat ? ncat : 1) * s->np, sizeof(int32_t));
  s->base = vec_alloc(s->np, sizeof(int64_t));
  s->zero = vec_alloc(s->np, sizeof(int32_t));
  s->times = vec_alloc(s->n, sizeof(uint64_t));
  int ok = s->lane_of && s->lmap && s->btmp && s->bitm && s->base && s->zero && s->times;
  for (int k = 0; k < 3; k++) ok = (s->scratch[k] = vec_alloc(s->np, sizeof(int32_t))) && ok;
  ok = (s->slotm = vec_alloc(s->np, sizeof *s->slotm)) && ok;
  ok = (s->slotb = calloc(s->np / LANES, 1)) && ok;
  ok = (s->stab = calloc(s->np, sizeof *s->stab)) && ok;
  ok = (s->mtab = calloc(s->np, sizeof *s->mtab)) && ok;
  ok = (s->qtab = calloc(s->np, sizeof *s->qtab)) && ok;
  s->lcap = MAX_LSTORE;
  while (s->lcap > MIN_LSTORE && (size_t)s->lcap * s->np * sizeof(int32_t) > LSTORE_BYTES)
    s->lcap /= 2;
  ok = (s->lslot = calloc((size_t)2 * s->lcap, sizeof *s->lslot)) && ok;
  ok = (s->lvec = vec_alloc_raw((size_t)s->lcap * s->np, sizeof(int32_t))) && ok;
  ok = (s->one = vec_alloc_raw(1, sizeof *s->one)) && ok;
  ok = (s->memo = calloc((size_t)MEMO_SETS * MEMO_WAYS, sizeof *s->memo)) && ok;
  ok = (s->mru = calloc(MEMO_SETS, 1)) && ok;
  s->mgen = 1;
  s->rs = LANES; /* set_layout below: nothing has acted, anp = LANES */
  if (!ok || !rings_alloc(s->ring, s->w, s->rs)) {
    for (int k = 0; k < RING_COUNT; k++) s->ring[k] = NULL;
    ic_solver_destroy(s);
    return ic_fail(err, IC_ERUN, "solver: out of memory (%d categories)", ncat);
  }
  set_layout(s); /* nothing has acted yet */
  s->xs = (struct xenv){s->zero, s->base, s->kern, 0, 0, 0, s};
  s->split = s->np;
  ic_solver_reset(s);
  ic_solver_set_threads(s, 0);
  *out = s;
  return IC_OK;
}

void ic_solver_destroy(ic_solver *s) {
  if (!s) return;
  pipe_stop(s);
  for (int k = 0; k < RING_COUNT; k++) free(s->ring[k]);
  for (int k = 0; k < 3; k++) free(s->scratch[k]);
  if (s->stab)
    for (uint32_t x = 0; x < s->np; x++) ic_slot_tab_free(&s->stab[x]);
  free(s->stab);
  if (s->mtab)
    for (uint32_t x = 0; x < s->np; x++) ic_mshr_tab_free(&s->mtab[x]);
  free(s->mtab);
  if (s->qtab)
    for (uint32_t x = 0; x < s->np; x++) ic_iq_tab_free(&s->qtab[x]);
  free(s->qtab);
  free(s->lslot);
  free(s->lvec);
  free(s->one);
  free(s->memo);
  free(s->mru);
  free(s->bitm);
  free(s->need);
  free(s->pidx);
  free(s->opidx);
  free(s->lsub);
  free(s->lfl_buf);
  free(s->nxt_buf);
  free(s->slotm);
  free(s->slotb);
  free(s->lane_of);
  free(s->lmap);
  free(s->btmp);
  free(s->base);
  free(s->zero);
  free(s->times);
  free(s);
}

void ic_solver_reset(ic_solver *s) {
  pipe_drain(s);
  s->started = 0;
  s->seq0 = s->next = 0;
  for (int k = 0; k < RING_COUNT; k++) s->valid_lo[k] = 0;
  s->ubound = 0;
  s->last_c = NULL;
  s->far_c = 0;
  memset(s->base, 0, s->np * sizeof *s->base);
  memset(s->zero, 0, s->np * sizeof *s->zero);
  for (uint32_t x = 0; x < s->np; x++) ic_slot_tab_clear(&s->stab[x]);
  for (uint32_t x = 0; x < s->np; x++) ic_mshr_tab_clear(&s->mtab[x]);
  for (uint32_t x = 0; x < s->np; x++) ic_iq_tab_reset(&s->qtab[x], s->qtab[x].k);
  memset(s->times, 0, s->n * sizeof *s->times);
  memset(&s->st, 0, sizeof s->st);
  s->xs.viol = s->xs.first = s->xs.oom = 0;
  if (s->pipe) s->pipe->wx.viol = s->pipe->wx.first = s->pipe->wx.oom = 0;
  s->st.window = max_window(s);
}

/* Grows ring k's window to the smallest power of two above `need` (capped
 * at wmax), keeping the live entries of instructions [next-w, next-1]. */
static ic_status grow_window(ic_solver *s, int k, uint64_t need, ic_err *err) {
  uint64_t w = s->w[k], old = s->w[k];
  while (w <= need && w < s->wmax) w *= 2;
  if (w == old) return IC_OK;
  const uint32_t rw = s->rs;
  int32_t *r = vec_alloc_raw(w * rw, sizeof(int32_t));
  if (!r)
    return ic_fail(err, IC_ERUN, "solver: out of memory growing the window to %llu instructions",
                   (unsigned long long)w);
  uint64_t lo = s->next - s->valid_lo[k] < old ? s->valid_lo[k] : s->next - old;
  for (uint64_t q = lo; q < s->next; q++) /* the evaluated lanes */
    memcpy(r + (q & (w - 1)) * rw, s->ring[k] + (q & (old - 1)) * rw, s->anp * sizeof(int32_t));
  free(s->ring[k]);
  s->ring[k] = r;
  s->w[k] = w;
  s->valid_lo[k] = lo;
  s->st.window = max_window(s);
  if (k == RING_C && s->last_c) s->last_c = r + ((s->next - 1) & (w - 1)) * rw;
  return IC_OK;
}

/* Brings every live offset down so that the largest one per subset is at
 * most REBASE_TO, raising the base by the same amount. */
static uint64_t live_lo(const ic_solver *s, int k) {
  return s->next - s->valid_lo[k] < s->w[k] ? s->valid_lo[k] : s->next - s->w[k];
}

static void rebase(ic_solver *s) {
  /* only the evaluated lanes: a lane x < alanes stands for the n / alanes
   * subsets that are x with inert categories added (clamps count for each) */
  const uint32_t anp = s->anp;
  const uint64_t copies = s->n / s->alanes;
  int32_t *mx = s->scratch[1];
  k_fill(mx, FLOOR, anp);
  for (int k = 0; k < RING_COUNT; k++)
    for (uint64_t q = live_lo(s, k); q < s->next; q++) {
      const int32_t *v = s->ring[k] + (q & (s->w[k] - 1)) * s->rs;
      for (uint32_t x = 0; x < anp; x++) mx[x] = v[x] > mx[x] ? v[x] : mx[x];
    }
  int32_t *delta = s->scratch[2];
  int64_t newmax = 0;
  for (uint32_t x = 0; x < anp; x++) {
    delta[x] = mx[x] > REBASE_TO ? mx[x] - REBASE_TO : 0;
    s->base[x] += delta[x];
    int32_t z = s->zero[x] - delta[x];
    s->zero[x] = z < FLOOR ? FLOOR : z;
    int64_t m = mx[x] - delta[x];
    if (m > newmax) newmax = m;
  }
  for (int k = 0; k < RING_COUNT; k++)
    for (uint64_t q = live_lo(s, k); q < s->next; q++) {
      int32_t *v = s->ring[k] + (q & (s->w[k] - 1)) * s->rs;
      for (uint32_t x = 0; x < anp; x++) {
        if (!delta[x]) continue;
        int64_t y = (int64_t)v[x] - delta[x];
        if (y < FLOOR) {
          if (v[x] > FLOOR && (s->lfl ? !(s->lfl[x] & LF_PAD) : x < s->alanes)) s->st.clamped += copies;
          y = FLOOR;
        }
        v[x] = (int32_t)y;
      }
    }
  s->ubound = newmax;
  s->st.rebases++;
}

/* ---- planning --------------------------------------------------------- */

/* Empties the latency-vector store (no plan in flight may point into it). */
static void lstore_clear(ic_solver *s) {
  memset(s->lslot, 0, (size_t)2 * s->lcap * sizeof *s->lslot);
  s->lused = 0;
  s->st.lat_flushes++;
  s->mgen++;
}

/* The lanes evaluated (anp) once the categories `acted` have acted: in
 * the compact layout one per distinct needed subset without the others
 * (its logical lane), padded. */
static uint32_t anp_for(const ic_solver *s, ic_catmask acted) {
  uint32_t k = 1u << __builtin_popcount(acted);
  if (s->need) {
    uint32_t pm = 0, seen[(1u << IC_SOLVER_MAX_CATS) / 32] = {0};
    for (int c = 0; c < s->ncat; c++)
      if (acted & IC_CATBIT(s->cats[c])) pm |= 1u << c;
    k = 0;
    for (uint32_t x = 0; x < s->n; x++) {
      const uint32_t y = x & pm;
      if ((x && !s->need[x]) || (seen[y / 32] >> (y % 32) & 1)) continue;
      seen[y / 32] |= 1u << (y % 32);
      k++;
    }
  }
  return (k + LANES - 1) / LANES * LANES;
}

/* Category set `acted` (a superset of s->acted) has acted: the new lane
 * layout (set_layout), with every live vector, base and zero copied into
 * it. A lane of the new layout takes the old lane of its subset without
 * the categories that were inert (equal to it so far, and every old lane
 * without them was evaluated). Plans and memos hold lane bits and latency
 * vectors of the old layout: the pipeline drains first, and the store and
 * the memos are cleared. Rare: once per category that acts, at most. */
static ic_status relabel(ic_solver *s, ic_catmask acted, ic_err *err) {
  pipe_drain(s);
  /* rings of rows of anp lanes (new ones when anp grows), allocated
   * before anything changes */
  int32_t *nr[RING_COUNT];
  const uint32_t ors = s->rs, nanp = anp_for(s, acted);
  if (nanp != ors && !rings_alloc(nr, s->w, nanp))
    return ic_fail(err, IC_ERUN, "solver: out of memory laying out %u lanes", nanp);
  int8_t old[IC_SOLVER_MAX_CATS];
  const ic_catmask was = s->acted;
  for (int k = 0; k < s->ncat; k++) old[k] = s->pos[s->cats[k]];
  if (s->need) memcpy(s->opidx, s->pidx, s->alanes * sizeof *s->opidx);
  s->acted = acted;
  set_layout(s);
  const uint32_t anp = s->anp;
  for (uint32_t x = 0; x < anp; x++) {
    /* lane x continues the lane of its logical lane without the categories
       that were inert (in the compact layout a needed one: the needed
       subsets without some categories are the lanes of the old layout);
       a padding lane takes lane 0's */
    const uint32_t lx = s->lfl ? s->lsub[x] : x;
    uint32_t o = 0;
    for (int k = 0; k < s->ncat; k++)
      if ((lx >> s->pos[s->cats[k]] & 1) && (was & IC_CATBIT(s->cats[k]))) o |= 1u << old[k];
    s->lmap[x] = !s->lfl ? o : s->lfl[x] & LF_PAD ? 0 : s->opidx[o];
  }
  int32_t *tmp = s->scratch[0];
  for (int k = 0; k < RING_COUNT; k++) {
    for (uint64_t q = live_lo(s, k); q < s->next; q++) {
      const int32_t *v = s->ring[k] + (q & (s->w[k] - 1)) * ors;
      for (uint32_t x = 0; x < anp; x++) tmp[x] = v[s->lmap[x]];
      memcpy((anp != ors ? nr[k] : s->ring[k]) + (q & (s->w[k] - 1)) * anp, tmp,
             anp * sizeof *tmp);
    }
    if (anp != ors) {
      free(s->ring[k]);
      s->ring[k] = nr[k];
    }
  }
  s->rs = anp;
  if (s->last_c) s->last_c = s->ring[RING_C] + ((s->next - 1) & (s->w[RING_C] - 1)) * anp;
  for (uint32_t x = 0; x < anp; x++) {
    tmp[x] = s->zero[s->lmap[x]];
    s->btmp[x] = s->base[s->lmap[x]];
  }
  memcpy(s->zero, tmp, anp * sizeof *tmp);
  memcpy(s->base, s->btmp, anp * sizeof *s->btmp);
  /* lstore_clear without counting a flush: the vectors are of the old layout */
  memset(s->lslot, 0, (size_t)2 * s->lcap * sizeof *s->lslot);
  s->lused = 0;
  s->mgen++;
  /* each lane's tables of the rules (slot counts, MSHR holders, IQ E's):
     lane x continues lane lmap[x]'s (a copy where several lanes continue
     one); one that cannot be copied is a violation */
#define RELABEL_TABLES(field, type, copy, release)                                       \
  do {                                                                                  \
    type *nt_ = calloc(s->np, sizeof *nt_);                                             \
    if (!nt_) return ic_fail(err, IC_ERUN, "solver: out of memory laying out %u lanes", anp); \
    for (uint32_t x = 0; x < anp; x++)                                                  \
      if (copy(&nt_[x], &s->field[s->lmap[x]]) != 0) {                                  \
        if (!s->xs.viol) s->xs.first = s->next;                                         \
        s->xs.viol++;                                                                   \
        s->xs.oom++;                                                                    \
      }                                                                                 \
    for (uint32_t x = 0; x < s->np; x++) release(&s->field[x]);                         \
    free(s->field);                                                                     \
    s->field = nt_;                                                                     \
  } while (0)
  RELABEL_TABLES(stab, ic_slot_tab, ic_slot_tab_copy, ic_slot_tab_free);
  RELABEL_TABLES(mtab, ic_mshr_tab, ic_mshr_tab_copy, ic_mshr_tab_free);
  RELABEL_TABLES(qtab, ic_iq_tab, ic_iq_tab_copy, ic_iq_tab_free);
#undef RELABEL_TABLES
  s->st.relabels++;
  return IC_OK;
}

/* The latency vector of an edge shape, from the store or built into it;
 * NULL when the store is full (the caller drains, clears and plans again). */
static const int32_t *lat_vector(ic_solver *s, const struct lat_key *k) {
  uint64_t x = (k->a * 0x9E3779B97F4A7C15ull) ^ (k->b * 0xC2B2AE3D27D4EB4Full) ^
               (k->c * 0x165667B19E3779F9ull);
  const uint32_t mask = 2 * s->lcap - 1;
  uint32_t h = (uint32_t)(x >> 40) & mask;
  struct lslot *slot;
  for (;; h = (h + 1) & mask) {
    slot = &s->lslot[h];
    if (!slot->idx) break;
    if (slot->k.a == k->a && slot->k.b == k->b && slot->k.c == k->c)
      return s->lvec + (size_t)(slot->idx - 1) * s->np;
  }
  if (s->lused == s->lcap) return NULL;
  int32_t *v = s->lvec + (size_t)s->lused * s->np;
  slot->k = *k;
  slot->idx = ++s->lused;
  int total = (int)(k->a & 0xffffff), drop = (int)((k->a >> 24) & 31) - 1,
      half = (int)((k->a >> 29) & 3);
  k_fill(v, total, s->np);
  for (int p = 0; p < lk_nvp(k); p++) {
    uint32_t w = lk_part(k, p);
    k_sub_masked(v, s->bitm + (size_t)(w >> 24) * s->np, (int32_t)(w & 0xffffff), s->np);
  }
  if (drop >= 0) k_neg_masked(v, s->bitm + (size_t)drop * s->np, 0, s->np);
  for (uint32_t dm = (uint32_t)(k->a >> 44) & 0xfff; dm; dm &= dm - 1)
    k_neg_masked(v, s->bitm + (size_t)__builtin_ctz(dm) * s->np, 0, s->np);
  if (half) k_neg_masked(v, s->bitm + (size_t)s->win_pos * s->np, half == 1 ? 0 : -1, s->np);
  return v;
}

static ic_status malformed(const ic_graph_rec *r, ic_err *err) {
  ic_status st = dg_check_rec(r, err);
  return st != IC_OK ? st
                     : ic_fail(err, IC_EINPUT, "graph record %llu: malformed",
                               (unsigned long long)r->seq);
}

/* Entry classes of a node in a plan (struct plan). */
/* Entry classes in plan order; PE_FULL: vector entries with no NEG lane
 * (nothing drops them, not a CD half), counted in nv and placed first. */
enum { PE_FULL, PE_VEC, PE_SCALAR, PE_COND, PE_BLOCK, PE_CLASSES };

/* The source vector of an entry: this instruction's node, the ring slot, or
 * the time-0 vector for a source before the first record or one that left
 * the window (counted in *oow). */
static inline const int32_t *resolve_source(const ic_solver *s, const struct plan *pl,
                                            const struct msrc *m, uint64_t seq, uint64_t idx,
                                            uint64_t *oow) {
  const uint64_t d = m->dist;
  if (!d) return pl->out[m->srcnode];
  if (d > idx) return s->zero;
  const int ring = m->ring;
  if (d >= s->w[ring] || seq - d < s->valid_lo[ring]) {
    (*oow)++;
    return s->zero;
  }
  return s->ring[ring] + ((seq - d) & (s->w[ring] - 1)) * s->rs;
}

static inline uint32_t memo_set(uint64_t pc) {
  return (uint32_t)((pc >> 1) * 0x9E3779B97F4A7C15ull >> 54) & (MEMO_SETS - 1);
}

/* Do edges a and b (n each; a planned) mean the same but for the
 * distances of PR, PP, FU, IBW, MSHR and IW edges, each of b's within its
 * ring's window (or its cap) and not 0? Compared field by field: the bytes
 * of parts past nparts (and padding) are not part of a record's meaning,
 * and the model need not clear them. Those distances change from one
 * dynamic instance to the next (the producer, the earlier miss, the issue
 * order do); the plan's entries do not. */
_Static_assert(offsetof(ic_edge, dist) == 4 && offsetof(ic_edge, part) == 8 &&
                   sizeof(ic_lat_part) == 8 && offsetof(ic_lat_part, cat) == 4 &&
                   offsetof(ic_lat_part, cycles) == 0,
               "memo_mask: an edge is kind, nparts, flags, keep, dist, then parts of "
               "cycles, cat and padding");
/* Which bytes of m's edges a record must repeat to reuse its plan: kind,
 * nparts, flags, keep, dist (not of the kinds with kind_info.vdist) and
 * the cycles and category of the parts below nparts. */
static void memo_mask(const ic_solver *s, struct memo *m) {
  memset(m->emask, 0, sizeof m->emask);
  m->nvd = 0;
  for (int k = 0; k < m->nedges; k++) {
    uint8_t *b = m->emask + (size_t)k * sizeof(ic_edge);
    const ic_edge *e = &m->edge[k];
    memset(b, 0xff, offsetof(ic_edge, dist));
    if (s->kinfo[e->kind].vdist) {
      m->vring[m->nvd] = s->kinfo[e->kind].ring;
      m->vd[m->nvd++] = (uint8_t)k;
    } else
      memset(b + offsetof(ic_edge, dist), 0xff, sizeof e->dist);
    for (int p = 0; p < e->nparts && p < IC_MAX_PARTS; p++)
      memset(b + offsetof(ic_edge, part) + (size_t)p * sizeof(ic_lat_part), 0xff,
             offsetof(ic_lat_part, cat) + 1);
  }
}

#ifdef HAVE_AVX2_KERNEL
__attribute__((target("avx2"))) static int masked_equal_avx2(const void *a, const void *b,
                                                             const uint8_t *mask, size_t bytes) {
  __m256i acc = _mm256_setzero_si256();
  for (size_t o = 0; o < bytes; o += 32)
    acc = _mm256_or_si256(
        acc, _mm256_and_si256(_mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(const void *)((const char *)a + o)),
                                                _mm256_loadu_si256((const __m256i *)(const void *)((const char *)b + o))),
                              _mm256_loadu_si256((const __m256i *)(const void *)(mask + o))));
  return _mm256_testz_si256(acc, acc);
}
#endif

/* Does record r repeat memo m's edges (memo_mask), with each distance the
 * memo ignores within its ring's window (or its cap: else the ring grows
 * first) and not 0 (malformed: the full pass says so)? */
static int same_edges(const ic_solver *s, const struct memo *m, const ic_graph_rec *r) {
  const size_t bytes = ((size_t)m->nedges * sizeof(ic_edge) + 31) / 32 * 32;
#ifdef HAVE_AVX2_KERNEL
  if (s->kern != IC_KERNEL_PORTABLE) {
    if (!masked_equal_avx2(m->edge, r->edge, m->emask, bytes)) return 0;
  } else
#endif
  {
    for (size_t o = 0; o < bytes; o += 8) {
      uint64_t x, y, k;
      memcpy(&x, (const char *)m->edge + o, 8);
      memcpy(&y, (const char *)r->edge + o, 8);
      memcpy(&k, m->emask + o, 8);
      if ((x ^ y) & k) return 0;
    }
  }
  for (int k = 0; k < m->nvd; k++) {
    const uint32_t d = r->edge[m->vd[k]].dist;
    const int ring = m->vring[k];
    if (d == 0 || (d >= s->w[ring] && s->w[ring] < s->wmax)) return 0;
  }
  return 1;
}

/* The destination vectors of instruction seq. */
static inline void plan_outputs(const ic_solver *s, struct plan *pl, uint64_t seq) {
  const size_t rs = s->rs;
  pl->out[IC_NODE_D] = s->ring[RING_D] + (seq & (s->w[RING_D] - 1)) * rs;
  pl->out[IC_NODE_R] = s->ring[RING_R] + (seq & (s->w[RING_R] - 1)) * rs;
  pl->out[IC_NODE_E] = s->ring[RING_E] + (seq & (s->w[RING_E] - 1)) * rs;
  pl->out[IC_NODE_P] = s->ring[RING_P] + (seq & (s->w[RING_P] - 1)) * rs;
  pl->out[IC_NODE_C] = s->ring[RING_C] + (seq & (s->w[RING_C] - 1)) * rs;
}

/* Plans record r into *pl: checks it, resolves every edge's source vector
 * and latency, and advances the planner's state (seq, stats, rebase bound).
 * Vectors are not touched, except that a ring growth or a full
 * latency-vector store drains the pipeline first. */
static ic_status plan_one(ic_solver *s, const ic_graph_rec *r, struct plan *pl, ic_err *err) {
  ic_status st;
  if (!s->started) {
    s->started = 1;
    s->seq0 = s->next = r->seq;
    for (int k = 0; k < RING_COUNT; k++) s->valid_lo[k] = r->seq;
  } else if (r->seq != s->next) {
    return ic_fail(err, IC_EINPUT, "graph record %llu follows record %llu (sequence gap)",
                   (unsigned long long)r->seq, (unsigned long long)(s->next - 1));
  }
  const uint64_t seq = r->seq;
  const uint64_t idx = seq - s->seq0; /* sources with dist > idx precede the first record */
  pl->pool = (uint8_t)ooo_pool_of(r->opclass); /* the slot rule's pool count */
  pl->iq = r->iq;
  const int nedges = r->nedges;
  if (nedges > IC_MAX_EDGES || r->iq > IC_IQ_RULE_MAX) return malformed(r, err);
  uint64_t oow = 0;
  int64_t grow;
  const uint32_t set = memo_set(r->pc);
  struct memo *const ways = s->memo + (size_t)set * MEMO_WAYS, *m = NULL;
  plan_outputs(s, pl, seq);
  for (uint32_t w = 0; w < MEMO_WAYS; w++) {
    struct memo *c = &ways[(s->mru[set] + w) & (MEMO_WAYS - 1)];
    if (c->pc == r->pc && c->gen == s->mgen && c->nedges == nedges && same_edges(s, c, r)) {
      m = c;
      break;
    }
  }

  if (m) {
    /* The same edges as a record already planned (and checked), but for
     * the distances the memo ignores (the entries are the same; their
     * sources are looked up by the record's distances). */
    m->use = ++s->mclock;
    s->mru[set] = (uint8_t)(m - ways);
    memcpy(pl->off, m->off, sizeof pl->off);
    memcpy(pl->nv, m->nv, sizeof pl->nv);
    memcpy(pl->ns, m->ns, sizeof pl->ns);
    memcpy(pl->nc, m->nc, sizeof pl->nc);
    memcpy(pl->ni, m->ni, sizeof pl->ni);
    memcpy(pl->vf, m->vf, sizeof pl->vf);
    pl->bhi = m->bhi;
    pl->mk = m->mk;
    memcpy(pl->cskipmin, m->cskipmin, sizeof pl->cskipmin);
    /* resolve_source with each ring's bounds taken once: a source d back
     * is in the ring if 0 < d <= ok[ring] */
    uint64_t ok[RING_COUNT];
    for (int k = 0; k < RING_COUNT; k++) {
      uint64_t o = idx < s->w[k] - 1 ? idx : s->w[k] - 1;
      ok[k] = seq - s->valid_lo[k] < o ? seq - s->valid_lo[k] : o;
    }
    const size_t rs = s->rs;
    for (int k = 0; k < m->nent; k++) {
      pl->e[k] = m->e[k];
      const struct msrc *ms = &m->src[k];
      const uint64_t d = ms->var ? r->edge[ms->edge].dist : ms->dist;
      const int ring = ms->ring;
      const int32_t *src;
      if (!d) {
        src = pl->out[ms->srcnode];
      } else if (d <= ok[ring]) {
        src = s->ring[ring] + ((seq - d) & (s->w[ring] - 1)) * rs;
      } else {
        src = s->zero;
        oow += d <= idx;
      }
      pl->e[k].src = src;
    }
    grow = m->grow;
    if (m->far_c) s->far_c = m->far_c;
    s->st.memo_hits++;
    goto planned;
  }

  /* One pass over the edges: the checks of dg_check_rec (which, on failure,
   * says what is wrong), where each edge's source is and its latency (a
   * scalar, or a vector by shape from the store), grouped by destination
   * node and class. Windows grow on the first sight of a longer distance,
   * even one reaching before the first record, so that later edges of that
   * length find their sources (a win-idealized CD edge is seen at the first
   * instruction): when this instruction asks for a growth, or fills the
   * store, the pipeline drains, the ring grows (the store is cleared) and
   * the pass runs again (a ring grows past the distance or to its cap, and
   * an empty store holds every vector of one instruction, so this ends). */
  struct pe tmp[IC_NODE_COUNT][PE_CLASSES][2 * IC_MAX_EDGES];
  struct msrc tsrc[IC_NODE_COUNT][PE_CLASSES][2 * IC_MAX_EDGES];
  uint8_t cnt[IC_NODE_COUNT][PE_CLASSES];
  uint64_t far_c;
  uint32_t bhi;
  int mk;
#define ADD_ENTRY(node, cls, pe_, d_, ki_)                                         \
  do {                                                                             \
    int n_ = cnt[node][cls]++;                                                     \
    tmp[node][cls][n_] = (pe_);                                                    \
    tsrc[node][cls][n_] = (struct msrc){(d_), (ki_)->srcnode, (ki_)->ring, (uint8_t)k,   \
                                        (ki_)->vdist && (d_) == dist};                  \
  } while (0)
  for (;;) {
    uint64_t need[RING_COUNT] = {0};
    int full = 0;
    mk = 0;
    ic_catmask acts = 0; /* categories this record makes act (set_layout) */
    grow = 0;
    far_c = 0;
    bhi = 0;
    memset(cnt, 0, sizeof cnt);
    for (int k = 0; k < IC_NODE_COUNT; k++) pl->cskipmin[k] = UINT32_MAX;
    for (int k = 0; k < nedges; k++) {
      const ic_edge *e = &r->edge[k];
      if (e->kind >= IC_EDGE_KIND_COUNT || e->nparts > IC_MAX_PARTS) return malformed(r, err);
      const struct kind_info *ki = &s->kinfo[e->kind];
      const uint64_t dist = e->dist;
      if (dist == 0 ? ki->bad0 : ki->badfar) return malformed(r, err);
      if (e->keep & ~dg_edge_drop_mask(e->kind)) return malformed(r, err);
      if (e->kind == IC_EDGE_MSHR && e->flags) { /* the MSHR rule (k_mshr), which dmiss drops */
        if (!(e->flags & IC_MSHR_RULE) || !(e->flags & IC_MSHR_SLOTS)) return malformed(r, err);
        mk = e->flags & IC_MSHR_SLOTS;
        acts |= ki->acts;
        continue;
      }
      /* an IW edge in the slot form is the slot rule in every subset but
         those with bw (dg_slot_rule_applies): no other category acts on it */
      acts |= ki->acts & (e->kind == IC_EDGE_IW && e->flags ? IC_CATBIT(IC_CAT_BW) : ~(ic_catmask)e->keep);
      uint64_t total = 0, parts[IC_MAX_PARTS] = {0};
      unsigned nvp = 0, flags = 0, pbits = 0;
      for (int p = 0; p < e->nparts; p++) {
        uint32_t c = e->part[p].cycles;
        uint8_t cp = s->catpos[e->part[p].cat];
        total += c;
        flags |= cp;
        if (c && (cp & CP_POS)) {
          acts |= IC_CATBIT(e->part[p].cat);
          unsigned bit = (cp & CP_POS) - 1u;
          parts[nvp++] = c | (uint64_t)bit << 24;
          pbits |= 1u << bit;
        }
      }
      if ((flags & CP_BAD) || total > IC_GRAPH_MAX_EDGE_LAT) return malformed(r, err);
      grow += (int64_t)total;
      const int node = ki->node;
      if (dist && dist > need[ki->ring]) need[ki->ring] = dist; /* dist > 0: ring >= 0 */
      const uint64_t far = ki->two ? dist * IC_WIN_FACTOR : 0;
      if (far) {
        far_c = far;
        if (far > need[ki->ring]) need[ki->ring] = far;
      }
      /* The lane bits whose subsets drop this edge: its kind's, less those
       * of categories the edge keeps (ic_edge.keep, IW only). */
      uint32_t dmask = ki->dmask, skipm = ki->skipm;
      int drop = ki->drop;
      for (int c = 0; c < ki->ndc; c++)
        if (!dg_edge_dropped(e, IC_CATBIT(ki->dcat[c]))) dmask &= ~(1u << ki->dbit[c]);
      if (dmask != ki->dmask) { /* kept somewhere: NEG where the rest is set */
        drop = -1;
        skipm = 0;
      }
      if (ki->eblock) {
        /* An E source (IW): computed only in the lanes [0, hi) above which
         * every lane bit drops it (a multiple of LANES). One latency there
         * when its parts in chosen categories are all of dropping ones
         * (counted wherever it lives) and no lane below hi drops it; else a
         * vector, NEG in the lanes that drop it. */
        uint32_t hi = s->alanes;
        while (hi > 1 && (dmask & (hi >> 1))) hi >>= 1;
        if (hi < LANES) hi = LANES;
        if (s->lfl) hi = s->anp; /* compact: lanes of any subset, everywhere */
        if (hi > bhi && !e->flags) bhi = hi; /* k_block: the old form only */
        if (s->lfl ? !pbits && !dmask : !(pbits & ~dmask) && !(dmask & (hi - 1))) {
          ADD_ENTRY(node, PE_BLOCK, ((struct pe){NULL, NULL, (int32_t)total, hi, 0}), dist, ki);
        } else {
          struct lat_key kb = {total | (uint64_t)nvp << 32 | 1ull << 40 | (uint64_t)dmask << 44,
                               parts[0] | parts[1] << 32, parts[2] | parts[3] << 32};
          const int32_t *lb = lat_vector(s, &kb);
          full |= !lb;
          ADD_ENTRY(node, PE_BLOCK, ((struct pe){NULL, lb, 0, hi, 0}), dist, ki);
        }
        /* its condition: R of the same source instruction, in the entry
         * right after it (k_block reads them in pairs) */
        {
          int n_ = cnt[node][PE_BLOCK]++;
          const int32_t cf = e->flags; /* 0: the old form */
          tmp[node][PE_BLOCK][n_] = (struct pe){NULL, NULL, cf, hi, 0};
          tsrc[node][PE_BLOCK][n_] = (struct msrc){dist, IC_NODE_R, RING_R, (uint8_t)k, 1};
          if (dist > need[RING_R]) need[RING_R] = dist;
        }
        continue;
      }
      if (!nvp && !dmask && !ki->two) { /* the same in every subset */
        ADD_ENTRY(node, PE_SCALAR, ((struct pe){NULL, NULL, (int32_t)total, 0, 1}), dist, ki);
        continue;
      }
      /* A dropped edge whose parts in chosen categories are all of the
       * dropping one has its total in every subset that keeps it; so has
       * either half of an untagged CD edge: where the kernels skip the
       * subsets without it (skipm), it is a scalar edge. */
      if (skipm && (ki->two ? !pbits : !(pbits & ~(1u << drop)))) {
        if (far)
          ADD_ENTRY(node, PE_COND, ((struct pe){NULL, NULL, (int32_t)total, skipm, 0}), far, ki);
        ADD_ENTRY(node, PE_COND, ((struct pe){NULL, NULL, (int32_t)total, skipm, skipm}), dist,
                  ki);
        if (skipm < pl->cskipmin[node]) pl->cskipmin[node] = skipm;
        continue;
      }
      /* dropped by several chosen categories: NEG where any is set */
      const uint64_t multi = drop < 0 ? (uint64_t)dmask << 44 : 0;
      struct lat_key key = {total | (uint64_t)(drop + 1) << 24 | (uint64_t)nvp << 32 |
                                1ull << 40 | multi,
                            parts[0] | parts[1] << 32, parts[2] | parts[3] << 32};
      if (far) { /* the win rule: C(i-w) without win, C(i-20w) with it */
        struct lat_key kw = key;
        kw.a |= (uint64_t)2 << 29;
        key.a |= (uint64_t)1 << 29;
        const int32_t *lw = lat_vector(s, &kw);
        full |= !lw;
        ADD_ENTRY(node, PE_VEC, ((struct pe){NULL, lw, 0, skipm, skipm ? 0 : 1}), far, ki);
      }
      const int32_t *lv = lat_vector(s, &key);
      full |= !lv;
      ADD_ENTRY(node, !dmask && !far ? PE_FULL : PE_VEC,
                ((struct pe){NULL, lv, 0, skipm, skipm ? skipm : 1}), dist, ki);
    }
    int again = 0;
    if (r->iq) acts |= IC_CATBIT(IC_CAT_WIN); /* the IQ rule: dropped by win */
    acts &= s->chosen & ~s->acted;
    if (acts) { /* new lanes to evaluate (clears the store) */
      if ((st = relabel(s, s->acted | acts, err)) != IC_OK) return st;
      again = 1;
    } else if (full) {
      pipe_drain(s);
      lstore_clear(s);
      again = 1;
    }
    for (int k = 0; k < RING_COUNT; k++)
      if (need[k] >= s->w[k] && s->w[k] < s->wmax) {
        pipe_drain(s);
        if ((st = grow_window(s, k, need[k], err)) != IC_OK) return st;
        again = 1;
      }
    if (!again) break;
    plan_outputs(s, pl, seq);
  }
#undef ADD_ENTRY
  if (far_c) s->far_c = far_c;

  /* the memo to replace: an invalid one, else the least recently used */
  m = ways;
  for (uint32_t w = 0; w < MEMO_WAYS; w++) {
    if (ways[w].gen != s->mgen) {
      m = &ways[w];
      break;
    }
    if (ways[w].use < m->use) m = &ways[w];
  }
  m->use = ++s->mclock;
  s->mru[set] = (uint8_t)(m - ways);

  /* The plan (per node its vector, scalar and conditional entries), and
   * the memo of it for this pc. */
  m->pc = r->pc;
  m->gen = s->mgen;
  m->far_c = far_c;
  m->grow = grow;
  m->nedges = (uint8_t)nedges;
  pl->bhi = m->bhi = bhi;
  pl->mk = m->mk = (uint8_t)mk;
  memcpy(m->edge, r->edge, (size_t)nedges * sizeof(ic_edge));
  memo_mask(s, m);
  uint8_t off = 0;
  for (int node = 0; node < IC_NODE_COUNT; node++) {
    pl->off[node] = m->off[node] = off;
    pl->nv[node] = m->nv[node] = (uint8_t)(cnt[node][PE_FULL] + cnt[node][PE_VEC]);
    pl->vf[node] = m->vf[node] = cnt[node][PE_FULL] > 0;
    pl->ns[node] = m->ns[node] = cnt[node][PE_SCALAR];
    pl->nc[node] = m->nc[node] = cnt[node][PE_COND];
    pl->ni[node] = m->ni[node] = cnt[node][PE_BLOCK];
    m->cskipmin[node] = pl->cskipmin[node];
    for (int c = 0; c < PE_CLASSES; c++)
      for (int k = 0; k < cnt[node][c]; k++, off++) {
        m->e[off] = tmp[node][c][k];
        m->src[off] = tsrc[node][c][k];
        pl->e[off] = tmp[node][c][k];
        pl->e[off].src = resolve_source(s, pl, &m->src[off], seq, idx, &oow);
      }
  }
  m->nent = off;

planned:
  pl->seq = seq;
  pl->anp = s->anp;
  pl->compact = s->lfl != NULL;
  memcpy(pl->t, r->t, sizeof pl->t);
  const uint32_t np = s->rs;
  const uint64_t ahead = seq + 4;
  pl->pf[0] = (const char *)(s->ring[RING_P] + (ahead & (s->w[RING_P] - 1)) * np);
  pl->pf[1] = (const char *)(s->ring[RING_C] + (ahead & (s->w[RING_C] - 1)) * np);
  pl->pf[2] = s->far_c && s->far_c < s->w[RING_C]
                  ? (const char *)(s->ring[RING_C] +
                                   ((ahead - s->far_c) & (s->w[RING_C] - 1)) * np)
                  : NULL;
  pl->pf_from = s->kinfo[IC_EDGE_CD].skipm ? s->alanes / 2 * (uint32_t)sizeof(int32_t) : 0;

  s->st.out_of_window += oow;
  s->st.edges += (uint64_t)nedges;
  s->last_c = pl->out[IC_NODE_C];
  s->next = seq + 1;
  s->st.instructions++;
  s->ubound += grow;
  return IC_OK;
}

ic_status ic_solver_feed(ic_solver *s, const ic_graph_rec *recs, size_t n, ic_err *err) {
  ic_status st = IC_OK;
  for (size_t i = 0; i < n; i++) {
    if (i + 2 < n) /* records streamed from a large array: fetch ahead */
      for (size_t off = 0; off < sizeof *recs; off += 64)
        __builtin_prefetch((const char *)&recs[i + 2] + off, 0, 3);
    struct plan *pl = plan_slot(s);
    if ((st = plan_one(s, &recs[i], pl, err)) != IC_OK) break;
    plan_done(s, pl);
    if (s->pipe && !s->split_fixed) adapt_split(s);
    if (s->ubound > REBASE_AT) {
      pipe_drain(s);
      rebase(s);
    }
  }
  if (s->pipe) pipe_publish(s->pipe, 0);
  /* this thread's lanes (the worker's count as violations, read at the end) */
  if (st == IC_OK && s->xs.oom) st = ic_fail(err, IC_ERUN, "solver: out of memory (slot counts, MSHR holders, IQ rule)");
  return st;
}

static ic_status sink_consume(void *ctx, const ic_graph_rec *recs, size_t n, ic_err *err) {
  return ic_solver_feed(ctx, recs, n, err);
}

ic_graph_sink ic_solver_sink(ic_solver *s) { return (ic_graph_sink){.ctx = s, .consume = sink_consume}; }

/* Results wait for the plans in flight; s->times is the solver's buffer
 * (not part of the const object), filled here. */
const uint64_t *ic_solver_times(const ic_solver *s) {
  pipe_drain(s);
  if (s->last_c)
    for (uint32_t x = 0; x < s->n; x++) {
      uint32_t lane = s->lane_of[x];
      s->times[x] = s->need && !s->need[x] ? 0 : (uint64_t)(s->base[lane] + s->last_c[lane]);
    }
  return s->times;
}

ic_status ic_solver_set_subsets(ic_solver *s, const uint8_t *need, ic_err *err) {
  if (s->started)
    return ic_fail(err, IC_EINPUT, "solver: the subsets are set before the first record");
  pipe_drain(s);
  uint32_t count = 0;
  for (uint32_t x = 0; need && x < s->n; x++) count += x == 0 || need[x];
  if (!need || count == s->n) { /* every subset: the powerset layout */
    free(s->need);
    s->need = NULL;
  } else {
    if (!s->need) {
      s->need = malloc(s->n);
      s->pidx = malloc(s->np * sizeof *s->pidx);
      s->opidx = malloc(s->np * sizeof *s->opidx);
      s->lsub = malloc(s->np * sizeof *s->lsub);
      s->lfl_buf = malloc(s->np);
      s->nxt_buf = malloc((size_t)LR_COUNT * (s->np + 1) * sizeof *s->nxt_buf);
      if (!s->need || !s->pidx || !s->opidx || !s->lsub || !s->lfl_buf || !s->nxt_buf) {
        free(s->need), free(s->pidx), free(s->opidx), free(s->lsub), free(s->lfl_buf);
        free(s->nxt_buf);
        s->nxt_buf = NULL;
        s->need = s->lfl_buf = NULL;
        s->pidx = s->opidx = s->lsub = NULL;
        return ic_fail(err, IC_ERUN, "solver: out of memory");
      }
    }
    memcpy(s->need, need, s->n);
    s->need[0] = 1;
  }
  /* the lanes anew: rows of the new width (nothing is live before the
     first record), and no plan or latency vector of the old layout */
  set_layout(s);
  if (s->rs != s->anp) {
    int32_t *nr[RING_COUNT];
    if (!rings_alloc(nr, s->w, s->anp)) return ic_fail(err, IC_ERUN, "solver: out of memory");
    for (int k = 0; k < RING_COUNT; k++) {
      free(s->ring[k]);
      s->ring[k] = nr[k];
    }
    s->rs = s->anp;
  }
  memset(s->lslot, 0, (size_t)2 * s->lcap * sizeof *s->lslot);
  s->lused = 0;
  s->mgen++;
  return IC_OK;
}

int ic_solver_ncat(const ic_solver *s) { return s->ncat; }
uint64_t ic_solver_instructions(const ic_solver *s) { return s->st.instructions; }

/* Baseline mismatches found by both evaluators (in seq order each). */
static void violations(const ic_solver *s, uint64_t *count, uint64_t *first) {
  pipe_drain(s);
  *count = s->xs.viol;
  *first = s->xs.first;
  const struct pipe *p = s->pipe;
  if (p && p->wx.viol) {
    if (!*count || p->wx.first < *first) *first = p->wx.first;
    *count += p->wx.viol;
  }
}

uint64_t ic_solver_invariant_violations(const ic_solver *s) {
  uint64_t n, first;
  violations(s, &n, &first);
  return n;
}

void ic_solver_get_stats(const ic_solver *s, ic_solver_stats *out) {
  pipe_drain(s);
  *out = s->st;
  violations(s, &out->violations, &out->first_violation_seq);
  out->inert = 0;
  for (int k = 0; k < s->ncat; k++)
    if (!(s->acted & IC_CATBIT(s->cats[k]))) out->inert |= 1u << k;
  out->threads = (uint32_t)ic_solver_threads(s);
}

void ic_solver_set_window_cap(ic_solver *s, uint64_t max_instructions) {
  pipe_drain(s);
  uint64_t w = MIN_WINDOW, per_inst = ring_bytes(s);
  while (w * 2 <= max_instructions && w * 2 * per_inst <= IC_SOLVER_MAX_WINDOW_BYTES) w *= 2;
  s->wmax = w;
  s->mgen++;
  for (int k = 0; k < RING_COUNT; k++) {
    if (s->w[k] <= w) continue;
    int32_t *r = vec_alloc_raw(w * s->rs, sizeof(int32_t));
    if (!r) continue; /* keep the larger window */
    free(s->ring[k]);
    s->ring[k] = r;
    s->w[k] = w;
    s->valid_lo[k] = s->next; /* nothing older survives the shrink */
    if (k == RING_C) s->last_c = NULL;
  }
  s->st.window = max_window(s);
}

int ic_solver_set_kernel(ic_solver *s, ic_solver_kernel k) {
  if (k == IC_KERNEL_AUTO) k = best_kernel();
  if (!kernel_runs(k)) return 0;
  pipe_drain(s);
  s->kern = s->xs.kern = k;
  return 1;
}

ic_solver_kernel ic_solver_kernel_in_use(const ic_solver *s) { return s->kern; }

const char *ic_solver_kernel_name(ic_solver_kernel k) {
  static const char *const names[] = {"auto", "portable", "avx2", "avx512"};
  return (unsigned)k < sizeof names / sizeof names[0] ? names[k] : "?";
}

ic_catmask ic_solver_subset_catmask(const ic_solver *s, uint32_t subset) {
  ic_catmask m = 0;
  for (int k = 0; k < s->ncat; k++)
    if (subset & (1u << k)) m |= IC_CATBIT(s->cats[k]);
  return m;
}

ic_status ic_parse_categories(const char *list, uint8_t *cats, int *ncat, ic_err *err) {
  *ncat = 0;
  if (!list || !*list) return ic_fail(err, IC_EINPUT, "categories: empty list");
  int n = 0;
  const char *p = list;
  for (;;) {
    const char *end = strchr(p, ',');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    if (len == 0)
      return ic_fail(err, IC_EINPUT, "categories '%s': empty item", list);
    char name[32];
    if (len >= sizeof name)
      return ic_fail(err, IC_EINPUT, "categories '%s': unknown category '%.*s'", list,
                     (int)len, p);
    memcpy(name, p, len);
    name[len] = 0;
    int c = ic_category_lookup(name);
    if (c < 0) {
      char known[160] = "";
      for (int k = 0; k < IC_CAT_COUNT; k++) {
        if (k) strcat(known, ",");
        strcat(known, ic_category_names[k]);
      }
      return ic_fail(err, IC_EINPUT, "categories '%s': unknown category '%s' (known: %s)", list,
                     name, known);
    }
    for (int k = 0; k < n; k++)
      if (cats[k] == c)
        return ic_fail(err, IC_EINPUT, "categories '%s': '%s' given twice", list, name);
    if (n == IC_SOLVER_MAX_CATS)
      return ic_fail(err, IC_EINPUT, "categories '%s': more than %d categories", list,
                     IC_SOLVER_MAX_CATS);
    cats[n++] = (uint8_t)c;
    if (!end) break;
    p = end + 1;
  }
  *ncat = n;
  return IC_OK;
}
