/* graph_rec.h: the graph hook, the contract between model/ and engine/.
 *
 * For each committed instruction the model emits one ic_graph_rec: the cycle
 * stamp of its five nodes (paper Table II: D dispatch, R operands ready,
 * E execute start, P complete, C commit) and every edge INTO those nodes,
 * each with its source instruction (by distance back in sequence numbers),
 * and its latency as a sum of parts, each part tagged with the category that
 * owns it (or IC_CAT_NONE). With scoped categories (scope.h) a part of an
 * instruction in a scope carries the scope's id instead of its base, and
 * `sdrop` names the scopes that drop the record's edges as their base would
 * (idealizing a base idealizes its scopes' parts too: ic_cat_idealized).
 *
 * Edge kinds and the nodes they join (src -> dst), Table II:
 *   DD  D(i-1) -> D(i)   in-order dispatch; parts: front-end gaps (imiss for
 *                        I-cache/ITLB miss cycles, bw for taken-branch fetch
 *                        breaks), and the residual of any stall no other
 *                        edge explains, tagged with its cause
 *   FBW D(i-fbw) -> D(i) fetch bandwidth, latency 1            (bw: dropped)
 *   CD  C(i-w) -> D(i)   finite ROB, dist = w      (win: dist becomes 20*w)
 *   PD  P(i-1) -> D(i)   after a mispredicted branch: recovery latency plus
 *                        front-end refill                   (bmisp: dropped)
 *   DR  D(i) -> R(i)     dispatch to ready
 *   PR  P(j) -> R(i)     data dependence; IC_EDGE_MEM marks a memory one
 *   RE  R(i) -> E(i)     waiting for issue; parts: issue-width (bw), FU
 *                        contention (none), issue-queue/other residual;
 *                        no parts where the wait was for slots alone and
 *                        the SLOT RULE (below) gives it back from
 *                        R in the baseline: it then moves with an
 *                        idealization instead of staying a fixed latency
 *   EP  E(i) -> P(i)     execution; parts: dl1 (L1 hit latency of loads),
 *                        dmiss (miss and DTLB parts), shalu, lgalu
 *   PP  P(j) -> P(i)     cache-line sharing with an earlier miss (dmiss: dropped)
 *   PC  P(i) -> C(i)     completion to commit
 *   CC  C(i-1) -> C(i)   in-order commit; parts: store bandwidth, residual
 *   CBW C(i-cbw) -> C(i) commit bandwidth, latency 1            (bw: dropped)
 *                        cbw = core.commit_width; for a store, where the
 *                        machine commits fewer stores than instructions a
 *                        cycle (core.store_bw), the nearer of that and the
 *                        core.store_bw-th store before it: C never falls
 *                        along program order, so the nearer source is the
 *                        bound that binds in every evaluation, and one edge
 *                        holds both
 *   FU  P(j) -> E(i)     functional unit: for an unpipelined operation i
 *                        (a divide), j is the n-th most recent one issued
 *                        on its pool of n units (those n hold every unit
 *                        until the first of them completes); for a
 *                        pipelined one, the unpipelined op whose unit frees
 *                        first, where every unit is held by one; no parts
 *                                                             (bw: dropped)
 *                        (added after Table II: without it a divider's
 *                        throughput limit could only be a fixed RE wait,
 *                        which neither a larger window nor bw can shrink)
 *   IBW P(j) -> E(i)     issue bandwidth along a dependence chain: j is the
 *                        register ancestor iw+1 steps up a chain of i; the
 *                        iw+1 instructions after j on it issue no earlier
 *                        than P(j) and not all in one cycle; latency 1
 *                        (bw: dropped). Never binds at latency >= 1; binds
 *                        where idealized latencies collapse the chain
 *   MSHR P(j) -> E(i)    miss status holding registers: load i missed the L1D
 *                        and needed a free MSHR; j is the earlier miss whose
 *                        completion freed one (the one i got where i waited
 *                        for it, else the oldest of the last mem.mshrs
 *                        misses that had completed); no parts (dmiss:
 *                        dropped, nothing misses). Like CD for the ROB, it
 *                        keeps a larger window from overlapping more misses
 *                        than there are MSHRs
 *                        (the MSHR RULE below makes an idealization that
 *                        puts more misses in flight wait for the MSHRs)
 *   IW  E(k) -> E(i)     issue slots: at most n instructions issue per cycle,
 *                        oldest first; k is the n-th most recent instruction
 *                        older than i to issue before i (n: the issue width,
 *                        or for a second edge the units of i's pool where
 *                        they are fewer); latency 1. CONDITIONAL: it holds
 *                        only where R(k) <= E'(i) in the same evaluation,
 *                        E'(i) being the time i's other E in-edges give (k,
 *                        older, ready by the time i could issue, keeps its
 *                        slot ahead of i; ready later, it takes none; both
 *                        ready, oldest first). So the baseline's
 *                        issue order is kept n slots deep wherever an
 *                        idealization leaves k ready first: more
 *                        instructions ready at once when dl1, shalu or
 *                        lgalu latencies collapse, and the slots bind, which
 *                        RE's measured waits cannot express (bw: dropped;
 *                        win, bmisp, dmiss, imiss: dropped unless named in
 *                        `keep`: a producer of such edges said there
 *                        where nothing of the kind moved i's dispatch or
 *                        readiness apart from k's. The model emits none:
 *                        the SLOT RULE below replaces it; hand-built graphs
 *                        still hold it)
 *   IQ  E(j) -> D(i)     issue queue smaller than the ROB (core.iq <
 *                        core.rob): i dispatched only when j's issue freed
 *                        the IQ entry it took (j issued in the cycle i
 *                        dispatched, the slot's turn among that cycle's
 *                        issues); latency 0, no parts (win: dropped, a 20x
 *                        IQ). Like MSHR for the MSHRs: without it the IQ's
 *                        hold on dispatch was a fixed DD part (win) that bw
 *                        could not shrink, though wider issue drains the
 *                        IQ. Only where the
 *                        baseline's IQ held i: where an idealization makes
 *                        the IQ bind elsewhere (bmisp refilling it faster),
 *                        the graph has no edge there. The model no longer
 *                        emits it: the IQ rule below replaces it (sample
 *                        files of version 5 and hand-built graphs hold it)
 *   LSQ C(j) -> D(i)     load/store queue smaller than the ROB (core.lsq <
 *                        core.rob): memory instruction i needs the entry of
 *                        j, the core.lsq-th memory instruction before it,
 *                        freed at j's commit; latency 0 (win: dropped, a 20x
 *                        LSQ). As CD for the ROB, exact wherever the LSQ
 *                        size holds
 *
 * The structural rules are fields of the record, not edges. Each bounds one
 * node from below after its edges, in a fixed place: the IQ rule on D, then
 * on E the MSHR rule and the slot rule together (model/rules.h: each in turn
 * until neither moves E). Each counts the instructions before i that have
 * the rule, in the same evaluation's times:
 *   IQ RULE (`iq`): every instruction waits in the IQ
 *                        from its dispatch until its issue, and dispatch is
 *                        in order, so the instructions in the IQ when i
 *                        dispatches are all before i: D(i) is at least the
 *                        K-th largest E of the instructions before i
 *                        with the rule (K = iq: fewer than K of them have
 *                        not issued by then; an issue frees its entry for a
 *                        dispatch in the same cycle), after D's edges
 *                        (model/iq_tab.h, which every evaluator uses). Win
 *                        drops it (a 20x IQ, as it dropped the IQ edge).
 *                        Exact wherever the IQ size holds, as CD is for the
 *                        ROB. The model and the stitcher set it
 *                        where core.iq < core.rob and core.iq <=
 *                        IC_IQ_RULE_MAX (ic_iq_rule_size); the model emits
 *                        IQ edges elsewhere
 *   MSHR RULE (`mshr_k`: the machine's MSHRs K, 0: none): load i took an
 *                        MSHR at its issue and held it until its completion,
 *                        [E(i), P(i)); E(i) is the first cycle t >= E'(i)
 *                        at which fewer than K of the instructions before i
 *                        with the rule hold one (E(j) <= t < P(j)), holders
 *                        whose P is at most the latest D of i and the
 *                        holders before it counting as gone (D never falls
 *                        in the model's graphs; model/mshr_tab.h). E'(i) is
 *                        the time of i's E in-edges. dmiss drops it (nothing
 *                        misses), and so does a scoped dmiss in `sdrop`. The
 *                        MSHR edge (above) ties i to the miss that freed its
 *                        MSHR in the baseline; the rule makes an
 *                        idealization that puts more misses in flight at
 *                        once (win, bmisp) wait for the MSHRs, as the
 *                        machine does, where the baseline had no such wait.
 *                        Only earlier holders count: a later load that
 *                        issued first took its MSHR first in the machine,
 *                        which one pass in program order cannot know; the
 *                        rule is exact for the earlier ones. The model sets
 *                        it for every load that took an MSHR where the
 *                        machine has at most IC_MSHR_RULE_MAX MSHRs
 *   SLOT RULE (`slot_w`: the issue width n, `slot_p`: the units n of i's FU
 *                        pool where they are fewer than the width; 0: none):
 *                        at most n instructions (of i's pool, ooo_pool_of)
 *                        issue per cycle, oldest first. E(i) is the first
 *                        cycle t >= E'(i) at which fewer than n of the
 *                        instructions before i issue in the same
 *                        evaluation, counting only cycles from F(i), the
 *                        latest D of i and those before it (earlier cycles
 *                        are free: an instruction that issued before i
 *                        dispatched took no slot i can want; t >= E'(i) >=
 *                        D(i) = F(i) in the model's graphs, so this only
 *                        bounds what an evaluator keeps: model/slot_tab.h).
 *                        Every instruction's issue counts, with the rule or
 *                        not. Oldest-first select makes it exact: an older
 *                        ready instruction always takes its slot first, a
 *                        younger never takes i's. It holds in every
 *                        evaluation without bw (which widens issue and the
 *                        pools), whatever else moved the older issues. So
 *                        the baseline's issue order is kept wherever an
 *                        idealization leaves older instructions ready
 *                        first: more instructions ready at once when dl1,
 *                        shalu or lgalu latencies collapse, and the slots
 *                        bind, which RE's measured waits cannot express.
 *                        The model sets it where the issue width is at most
 *                        IC_SLOT_RULE_MAX
 *
 * Graph semantics: a node's time is the maximum over its incoming edges of
 * source time plus the sum of the edge's parts; an edge whose source lies
 * before the first recorded instruction has source time 0. Idealizing a set
 * S zeroes every part tagged with a category of S and applies the edge rules
 * in parentheses above; an edge whose `keep` names a category stays under
 * it although its kind's rule would drop it, and an IW edge counts only
 * where its condition holds (after the node's other in-edges). The rules
 * apply after the edges of their node, as above.
 *
 * Invariant the model guarantees: evaluating the records with S = {} gives
 * back exactly the stamps t[], and the last record's t[C] is the simulated
 * cycle count. No edge demands a later time than the stamp of its
 * destination; where the model delayed a node beyond every modelled edge,
 * the residual is a part of that node's in-order edge (DD, RE, CC) tagged
 * with its cause. Attribution, not fitting. */
#ifndef IC_GRAPH_REC_H
#define IC_GRAPH_REC_H

#include <stddef.h>
#include <stdint.h>

#include "categories.h"
#include "ic_err.h"

enum { IC_NODE_D, IC_NODE_R, IC_NODE_E, IC_NODE_P, IC_NODE_C, IC_NODE_COUNT };

/* X(name, source node, destination node) */
#define IC_EDGE_LIST(X) \
  X(DD, IC_NODE_D, IC_NODE_D) \
  X(FBW, IC_NODE_D, IC_NODE_D) \
  X(CD, IC_NODE_C, IC_NODE_D) \
  X(PD, IC_NODE_P, IC_NODE_D) \
  X(DR, IC_NODE_D, IC_NODE_R) \
  X(PR, IC_NODE_P, IC_NODE_R) \
  X(RE, IC_NODE_R, IC_NODE_E) \
  X(EP, IC_NODE_E, IC_NODE_P) \
  X(PP, IC_NODE_P, IC_NODE_P) \
  X(PC, IC_NODE_P, IC_NODE_C) \
  X(CC, IC_NODE_C, IC_NODE_C) \
  X(CBW, IC_NODE_C, IC_NODE_C) \
  X(FU, IC_NODE_P, IC_NODE_E) \
  X(IBW, IC_NODE_P, IC_NODE_E) \
  X(MSHR, IC_NODE_P, IC_NODE_E) \
  X(IW, IC_NODE_E, IC_NODE_E) \
  X(IQ, IC_NODE_E, IC_NODE_D) \
  X(LSQ, IC_NODE_C, IC_NODE_D)

typedef enum ic_edge_kind {
#define IC_X(e, s, d) IC_EDGE_##e,
  IC_EDGE_LIST(IC_X)
#undef IC_X
  IC_EDGE_KIND_COUNT
} ic_edge_kind;

/* Does an edge of this kind have a distance that differs from one dynamic
 * instance of an instruction to the next (the producer, the earlier miss or
 * store, the issue order, the queue entry's freer)? The other kinds' are
 * fixed by the machine (DD, FBW, CD, PD, CC) or 0, or seldom differ (CBW:
 * the commit width, or a store's nearer store-bandwidth bound).
 * Consumers that reuse work across instances of a pc (the solver's memo,
 * the record pipe's repeat form) compare every field of an edge but these
 * distances; a kind past the list (malformed) counts as fixed. */
#define IC_EDGE_VARYING_KINDS                                                               \
  ((1u << IC_EDGE_PR) | (1u << IC_EDGE_PP) | (1u << IC_EDGE_FU) | (1u << IC_EDGE_IBW) |      \
   (1u << IC_EDGE_MSHR) | (1u << IC_EDGE_IW) | (1u << IC_EDGE_IQ) | (1u << IC_EDGE_LSQ))
static inline int ic_edge_dist_varies(unsigned kind) {
  return kind < IC_EDGE_KIND_COUNT && (IC_EDGE_VARYING_KINDS >> kind & 1u);
}

extern const char *const ic_edge_names[IC_EDGE_KIND_COUNT];
extern const uint8_t ic_edge_src_node[IC_EDGE_KIND_COUNT];
extern const uint8_t ic_edge_dst_node[IC_EDGE_KIND_COUNT];
extern const char ic_node_names[IC_NODE_COUNT]; /* "DREPC" */

#define IC_MAX_PARTS 4
#define IC_MAX_EDGES 16
#define IC_EDGE_MEM 0x1 /* PR edge through memory (store -> load) */
/* The largest counts the slot rule (slot_w, slot_p) and the MSHR rule
 * (mshr_k) are set for: an evaluator keeps per-cycle counts of a byte and
 * the stitcher at most that many misses a fragment. */
#define IC_SLOT_RULE_MAX 127u
#define IC_MSHR_RULE_MAX 127u
/* The widest issue the model keeps an issue log for (the check of RE's
 * waits against the slot rule), and so sets the slot rule for. */
#define IC_SLOT_RULE_WIDTH 32u
/* The largest IQ the IQ rule is set for (graph_rec.h, IQ RULE): each
 * evaluation keeps that many E's (the solver one table a lane). */
#define IC_IQ_RULE_MAX 1024u
/* A latency part in one word: 24 bits of cycles, 8 of category. Cycles
 * saturate at IC_PART_MAX_CYCLES (ic_part_set, ic_part_add), above what the
 * checker accepts for a whole edge (IC_GRAPH_MAX_EDGE_LAT), so a part too
 * long to hold is rejected, never wrapped. */
typedef struct ic_lat_part {
  uint32_t cycles : 24;
  uint32_t cat : 8; /* ic_category or IC_CAT_NONE */
} ic_lat_part;
#define IC_PART_MAX_CYCLES 0xffffffu
_Static_assert(sizeof(ic_lat_part) == 4, "a part is one word");

typedef struct ic_edge {
  uint8_t kind;   /* ic_edge_kind: fixes the source and destination node */
  uint8_t nparts;
  uint8_t flags;  /* IC_EDGE_MEM (PR); 0 on IW and MSHR edges */
  uint8_t keep;   /* IC_CATBITs of categories that drop this kind of edge
                     but keep this one (IW: its issue order does not move
                     under them; 0 for every other kind) */
  uint32_t dist;  /* source instruction = seq - dist (0: this instruction) */
  ic_lat_part part[IC_MAX_PARTS];
} ic_edge;

typedef struct ic_graph_rec {
  uint64_t seq; /* 0 for the first timed instruction */
  uint64_t pc;
  uint8_t opclass;
  uint8_t nedges;
  uint8_t sdrop[2]; /* scoped category ids (0: none) whose idealization applies
                       their base's edge rules to this record too (model/scope.h:
                       bmisp drops its PD edge, dmiss its PP and MSHR edges and
                       MSHR rule); two of different bases at most */
  uint32_t iq;  /* the IQ rule's size (core.iq where it is below core.rob), 0: none */
  uint8_t slot_w, slot_p; /* the slot rule: issue width, units of the pool (0: none) */
  uint8_t mshr_k;         /* the MSHR rule: the machine's MSHRs (0: none) */
  uint8_t rule_pad_[5];   /* 0 */
  uint64_t t[IC_NODE_COUNT]; /* the model's cycle stamp of each node */
  ic_edge edge[IC_MAX_EDGES];
} ic_graph_rec;

/* Where the model sends records: consume() gets them in batches, in commit
 * order; a non-OK return stops the run with that error. buffer (optional,
 * NULL: the producer keeps a batch of its own) gives the memory the
 * producer builds its next batch in, room for *cap records (set by the
 * call), and consume() is then called on that memory: a sink on another
 * thread takes the records where they were built (record_pipe.h). */
typedef struct ic_graph_sink {
  void *ctx;
  ic_status (*consume)(void *ctx, const ic_graph_rec *recs, size_t n, ic_err *err);
  ic_graph_rec *(*buffer)(void *ctx, size_t *cap);
  /* optional: consume() with each record's shape id where the producer
     knows it (the record pipe, graph_pack.h): records with one nonzero id
     have the same edges but for the dists of the kinds whose dist varies
     (ic_edge_dist_varies); 0: not known. For a sink that reuses work
     across instances of an instruction (the solver's memo). edges (may be
     NULL: every record whole): where edges[i] is not NULL, record i holds
     only its varying dists and its edges are edges[i] with those dists in
     their places (graph_pack.h: ic_rec_whole), valid during the call. */
  ic_status (*consume_shaped)(void *ctx, const ic_graph_rec *recs, const uint64_t *shapes,
                              const ic_edge *const *edges, size_t n, ic_err *err);
} ic_graph_sink;

/* Largest latency of one edge (sum of its parts) a record may carry, in
 * cycles; larger edges are malformed. It keeps every sum the solver forms
 * inside its 32-bit relative times (solver_internal.h: the range argument). */
#define IC_GRAPH_MAX_EDGE_LAT (1u << 20)

/* The categories whose idealization removes an edge of this kind (0: none
 * does). Every kind has at most one, except IW: its baseline issue order
 * holds under idealizations that shorten few-cycle execution latencies
 * (graph_rec.h), so every other category that can move it drops it, unless
 * the edge's `keep` says the model saw nothing it would move. */
static inline ic_catmask ic_edge_drop_mask(uint8_t kind) {
  switch (kind) {
  case IC_EDGE_FBW:
  case IC_EDGE_CBW:
  case IC_EDGE_FU:
  case IC_EDGE_IBW: return IC_CATBIT(IC_CAT_BW);
  case IC_EDGE_PD: return IC_CATBIT(IC_CAT_BMISP);
  case IC_EDGE_PP:
  case IC_EDGE_MSHR: return IC_CATBIT(IC_CAT_DMISS);
  case IC_EDGE_IQ:
  case IC_EDGE_LSQ: return IC_CATBIT(IC_CAT_WIN);
  case IC_EDGE_IW:
    return IC_CATBIT(IC_CAT_BW) | IC_CATBIT(IC_CAT_WIN) | IC_CATBIT(IC_CAT_BMISP) |
           IC_CATBIT(IC_CAT_DMISS) | IC_CATBIT(IC_CAT_IMISS);
  default: return 0;
  }
}

/* The one checker of the contract, which every producer's tests and every
 * evaluator (the reference pass, the solver, slack, the export, the
 * model's own check) call: known edge kinds and categories, at most
 * IC_MAX_EDGES edges and IC_MAX_PARTS parts, an edge with dist 0 joins an
 * earlier node of the same instruction to a later one, latencies at most
 * IC_GRAPH_MAX_EDGE_LAT, an R node is never the source of an edge from
 * another instruction and an E node only of IW and IQ, no flags on an IW
 * or MSHR edge (their rules are the record's fields), `keep` names only categories that drop the
 * edge's kind, and the rules' counts at most IC_IQ_RULE_MAX,
 * IC_SLOT_RULE_MAX and IC_MSHR_RULE_MAX. Returns IC_EINPUT with
 * a message naming the record's seq and the edge on failure. Time
 * complexity: O(edges). */
ic_status ic_graph_rec_check(const ic_graph_rec *r, ic_err *err);

/* Sets part p to `cycles` of `cat`, saturating (ic_lat_part). */
static inline void ic_part_set(ic_lat_part *p, uint64_t cycles, uint8_t cat) {
  p->cycles = cycles < IC_PART_MAX_CYCLES ? (uint32_t)cycles : IC_PART_MAX_CYCLES;
  p->cat = cat;
}

/* Adds `cycles` to part p, saturating. */
static inline void ic_part_add(ic_lat_part *p, uint64_t cycles) {
  const uint64_t s = (uint64_t)p->cycles + cycles;
  p->cycles = s < IC_PART_MAX_CYCLES ? (uint32_t)s : IC_PART_MAX_CYCLES;
}

/* Sum of an edge's parts, with the parts of categories in `ideal` zeroed
 * (a part of a scoped id also under its base, ic_cat_idealized). */
static inline uint64_t ic_edge_latency(const ic_edge *e, uint32_t ideal) {
  uint64_t s = 0;
  for (int k = 0; k < e->nparts; k++)
    if (!ic_cat_idealized(ideal, e->part[k].cat)) s += e->part[k].cycles;
  return s;
}

/* Sets record r's slot rule as the model and the stitcher both do
 * (graph_rec.h, SLOT RULE): of the issue width, and of the units of r's
 * pool where they are fewer; none at the run's (the fragment's) first
 * instruction or where more than IC_SLOT_RULE_WIDTH issue a cycle. */
static inline void ic_rec_set_slot_rule(ic_graph_rec *r, uint32_t width, uint32_t units, int first) {
  const int on = !first && width && width <= IC_SLOT_RULE_WIDTH;
  r->slot_w = (uint8_t)(on ? width : 0);
  r->slot_p = (uint8_t)(on && units < width ? units : 0);
}

/* The IQ rule's K (graph_rec.h, IQ RULE) of a machine with an IQ of iq and
 * a ROB of rob entries, as the model and the stitcher both set it: the IQ
 * where it is smaller than the ROB and at most IC_IQ_RULE_MAX, else 0 (no
 * rule). */
static inline uint32_t ic_iq_rule_size(uint32_t iq, uint32_t rob) {
  return iq < rob && iq <= IC_IQ_RULE_MAX ? iq : 0;
}

/* The mask record r's edge drops and MSHR rule see under `ideal`:
 * ideal, plus the base of each of its sdrop ids that ideal holds. */
static inline ic_catmask ic_rec_rules_mask(const ic_graph_rec *r, ic_catmask ideal) {
  ic_catmask m = ideal;
  for (int k = 0; k < 2; k++)
    if (r->sdrop[k] && ic_cat_is_scoped(r->sdrop[k]) && (ideal >> r->sdrop[k]) & 1u)
      m |= IC_CATBIT(ic_cat_base(r->sdrop[k]));
  return m;
}

/* The idealization rules of edges and rules every evaluator applies
 * (engine/graph.h names them dg_ for the engine). */

/* Does idealizing `ideal` (a record's rules mask, ic_rec_rules_mask)
 * remove edge e? */
static inline int ic_edge_dropped(const ic_edge *e, ic_catmask ideal) {
  return (ic_edge_drop_mask(e->kind) & ~(ic_catmask)e->keep & ideal) != 0;
}

/* Source distance of edge e under idealization `ideal` (the win rule: a CD
 * edge reaches IC_WIN_FACTOR times as far back). */
static inline uint64_t ic_edge_dist(const ic_edge *e, ic_catmask ideal) {
  if (e->kind == IC_EDGE_CD && (ideal & IC_CATBIT(IC_CAT_WIN)))
    return (uint64_t)e->dist * IC_WIN_FACTOR;
  return e->dist;
}

/* Does the slot rule (SLOT RULE above) hold under `ideal`? In every subset
 * without bw (which widens issue and the pools): the rule counts, in the
 * subset's own times, the issues of the records before i from the latest
 * D on (model/slot_tab.h), whatever moved them. */
static inline int ic_slot_rule_applies(ic_catmask ideal) { return !(ideal & IC_CATBIT(IC_CAT_BW)); }

/* The MSHR count of record r's rule under `ideal` (the record's rules
 * mask, ic_rec_rules_mask: with its scoped drops): 0 where it has none or
 * dmiss drops it. */
static inline int ic_rec_mshr_rule(const ic_graph_rec *r, ic_catmask ideal) {
  return (ideal & IC_CATBIT(IC_CAT_DMISS)) ? 0 : r->mshr_k;
}

/* The IQ rule's size for record r under `ideal` (IQ RULE above): r->iq, 0
 * under win (a 20x IQ). */
static inline uint32_t ic_rec_iq_rule(const ic_graph_rec *r, ic_catmask ideal) {
  return (ideal & IC_CATBIT(IC_CAT_WIN)) ? 0 : r->iq;
}

/* The slot rule's counts of record r under `ideal` (0 where it has none or
 * bw drops it), and whether it has any. */
static inline int ic_rec_slot_counts(const ic_graph_rec *r, ic_catmask ideal, int *nw, int *np) {
  const int on = ic_slot_rule_applies(ideal);
  *nw = on ? r->slot_w : 0;
  *np = on ? r->slot_p : 0;
  return *nw || *np;
}

#endif
