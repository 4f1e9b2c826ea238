/* slack.h: slack and criticality of the dependence graph, streaming, over
 * overlapping windows of graph records (paper Table II; DESIGN.md "slack").
 *
 * Arrival times: a forward pass over the stream evaluates every node as the
 * maximum over its incoming edges of source arrival plus latency (baseline
 * graph, nothing idealized); sources before the first record, or further
 * back than the arrival ring reaches (the larger of IC_SLACK_REACH_FACTOR
 * windows and IC_SLACK_MIN_REACH records, so arrivals stay exact even for
 * small windows),
 * count as time 0. The pass is checked against the model's stamps: every
 * disagreement is counted (the model promises none).
 *
 * Required times and slack: records are kept in a ring of the last W
 * (`window`) records. Whenever W records [s, s+W) are held, a backward pass
 * from the window's last commit node C(s+W-1), pinned at its arrival time T
 * (the window's latest node, since commit is in order; T is taken as the
 * latest arrival of the window so that records lacking the CC chain cannot
 * produce negative slack), gives every node n of the window its required
 * time
 *     req(n) = min(T, min over edges n->m inside the window of req(m) - lat),
 * and its slack = req(n) - arr(n) >= 0: the cycles n can be delayed without
 * delaying C(s+W-1). Slack 0 means n is on a critical path to that node.
 * Only the first H = W/2 records of the window are reported; then the window
 * advances by H, so windows overlap by half and every reported record is
 * followed by at least W/2 records of look-ahead. At the end of the stream
 * (ic_slack_finish) the last window, which ends at the program's (or run's)
 * last commit, is reported whole: its slacks are exact global slacks.
 *
 * What the number means: windowed slack is the exact slack relative to the
 * window's end node, i.e. the true global slack under the assumption that
 * C(s+W-1) is critical. It is an approximation of the global slack (either
 * side: a path leaving the window may be the real critical one, and the end
 * node itself may have slack). Because every path of the graph reaches the
 * in-order commit chain within about one ROB of instructions, longest paths
 * from a node to commit nodes far ahead share their early part, so the
 * reported slacks converge to the global ones once the look-ahead W/2 is
 * many times the ROB size; the default W = 8192 gives 4096 records of
 * look-ahead (64 ROBs of the 64-entry baseline, 16 of a 256-entry one).
 * Measured against the exact whole-run slack (one window over the run):
 * tests/test_slack.c (random graphs, ROB 32) and tests/test_slack_model.c
 * (baseline model records) assert the agreement as W grows; on a 1.28 M
 * instruction pointer-chase run, W = 8192 gave exactly the global
 * criticality of every node, W = 1024 differed in 12% of the node flags
 * with a mean slack difference of 0.03 cycles (near-ties broken the other
 * way), W = 64 by 14 cycles of mean slack.
 *
 * Per static instruction (pc) it accumulates: dynamic count; for each node
 * kind D R E P C how many instances had slack 0; the sum of the slack of the
 * E node (E's only outgoing edge is EP, so this is also the slack of the
 * execution: the cycles the instruction's execution could start later or
 * last longer without delaying the window end); the dmiss cycles of its EP
 * edge (all, and those on a critical edge); and for a branch whose successor
 * has a PD edge (a misprediction), the PD latency (all, and critical).
 * An edge src->dst is critical when both ends have slack 0 and it is tight:
 * arr(src) + lat == arr(dst).
 *
 * Memory: a ring of W compact records (each edge reduced to distance,
 * nodes and baseline latency, sorted by destination node), the arrival ring
 * and a hash table of static pcs; independent of run length. Time: O(edges)
 * per record in the forward pass and twice in backward passes (windows
 * overlap by half). */
#ifndef IC_SLACK_H
#define IC_SLACK_H

#include <stddef.h>
#include <stdint.h>

#include "categories.h"
#include "graph_rec.h"
#include "ic_err.h"

#define IC_SLACK_DEFAULT_WINDOW 8192u
#define IC_SLACK_MIN_WINDOW 2u
#define IC_SLACK_MAX_WINDOW (1u << 22)
/* The arrival ring holds this many windows of arrival times, and at least
 * IC_SLACK_MIN_REACH records (40 bytes each). */
#define IC_SLACK_REACH_FACTOR 4u
#define IC_SLACK_MIN_REACH 65536u

typedef struct ic_slack ic_slack;

/* Per static instruction statistics. Cycles are model cycles. */
typedef struct ic_slack_pc {
  uint64_t pc;
  uint8_t opclass;                /* ic_opclass of the last instance seen */
  uint64_t count;                 /* dynamic instances reported */
  uint64_t crit[IC_NODE_COUNT];   /* instances whose node D/R/E/P/C had slack 0 */
  uint64_t slack_sum;             /* sum over instances of the E node's slack */
  uint64_t miss_cycles;           /* dmiss parts of its EP edges */
  uint64_t crit_miss_cycles;      /* ... of those EP edges that were critical */
  uint64_t crit_miss_count;       /* instances with a critical EP edge carrying dmiss cycles */
  uint64_t misp_count;            /* instances followed by a PD edge (mispredictions) */
  uint64_t misp_cycles;           /* latency of those PD edges */
  uint64_t crit_misp_cycles;      /* ... of those PD edges that were critical */
  uint64_t crit_misp_count;       /* number of critical PD edges */
} ic_slack_pc;

/* Totals over every reported record. */
typedef struct ic_slack_totals {
  uint64_t instructions;          /* records reported */
  uint64_t cycles;                /* arrival time of the last commit node */
  uint64_t crit[IC_NODE_COUNT];   /* nodes of each kind with slack 0 */
  uint64_t slack_sum;             /* sum of E-node slacks */
  uint64_t miss_cycles, crit_miss_cycles;
  uint64_t misp_count, misp_cycles, crit_misp_cycles, crit_misp_count;
  uint64_t windows;               /* backward passes run */
  uint64_t stamp_mismatches;      /* nodes whose forward-pass time != model stamp */
  uint64_t unreached_edges;       /* edges whose source was beyond the arrival ring */
  uint64_t static_pcs;            /* distinct pcs */
} ic_slack_totals;

/* Called once per reported record, in sequence order, with its seq, pc,
 * arrival times and slacks (both indexed by IC_NODE_*). For tests and dumps. */
typedef void (*ic_slack_observer)(void *ctx, uint64_t seq, uint64_t pc, const uint64_t arr[IC_NODE_COUNT],
                                  const uint64_t slack[IC_NODE_COUNT]);

/* window: W records per backward pass, IC_SLACK_MIN_WINDOW..IC_SLACK_MAX_WINDOW
 * (0: IC_SLACK_DEFAULT_WINDOW). Fails with IC_EINPUT naming the bad value. */
ic_status ic_slack_create(ic_slack **out, uint32_t window, ic_err *err);
void ic_slack_destroy(ic_slack *s);
void ic_slack_set_observer(ic_slack *s, ic_slack_observer fn, void *ctx);
/* Computes slack on the graph idealized by `ideal` (graph_rec.h rules:
 * parts of those categories zeroed, FBW/CBW dropped for bw, PD for bmisp,
 * PP for dmiss, CD reaching IC_WIN_FACTOR x further for win): "what is
 * critical once these events are gone". cycles is then t(ideal), miss and
 * misprediction cycles count only what is left, and the stamp check is off
 * (the stamps are the baseline's). Call before the first record. */
ic_status ic_slack_set_ideal(ic_slack *s, ic_catmask ideal, ic_err *err);
uint32_t ic_slack_window(const ic_slack *s);

/* Feeds records in sequence order (seq must continue from the previous
 * record, starting at any value). A malformed record (edge kind, part
 * count, dist 0 between nodes out of order, seq gap) fails with IC_EINPUT.
 * Time: O(n * edges) amortized. */
ic_status ic_slack_consume(ic_slack *s, const ic_graph_rec *recs, size_t n, ic_err *err);
/* The sink form of ic_slack_consume, for the model's graph hook. */
ic_graph_sink ic_slack_sink(ic_slack *s);
/* Runs the final backward pass over the records still held and reports
 * them. Call once after the last record; consuming afterwards is an error. */
ic_status ic_slack_finish(ic_slack *s, ic_err *err);

const ic_slack_totals *ic_slack_get_totals(const ic_slack *s);

/* Orders of the per-pc table. */
typedef enum ic_slack_order {
  IC_SLACK_BY_COST, /* crit_miss_cycles + crit_misp_cycles, then crit[E], then pc */
  IC_SLACK_BY_PC,
} ic_slack_order;

/* Copies the per-pc statistics into a new array (free() it) in the given
 * order; *n receives the number of pcs. Time: O(p log p). */
ic_status ic_slack_table(const ic_slack *s, ic_slack_order order, ic_slack_pc **out, size_t *n, ic_err *err);

#endif
