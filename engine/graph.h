/* graph.h: the dependence graph of model/graph_rec.h as the engine reads it.
 *
 * The idealization rules of the edges (graph_rec.h, DESIGN.md), under the
 * engine's dg_ names (the inline rules are graph_rec.h's, which model/
 * shares): for a set S of categories (a mask over ic_category ids),
 *   - every latency part tagged with a category of S is zeroed;
 *   - bw in S drops FBW, CBW, FU and IBW edges, bmisp drops PD, dmiss drops PP
 *     and MSHR, win drops IQ and LSQ; any of bw, win, bmisp, dmiss and imiss drops an IW edge,
 *     except those named in its `keep`;
 *   - win in S moves a CD edge's source from i-w to i-IC_WIN_FACTOR*w;
 *   - a record's `mshr_k` is the MSHR rule (model/mshr_tab.h) and its
 *     `slot_w`, `slot_p` the slot rule (model/slot_tab.h), applied together
 *     to E after its in-edges (model/rules.h); dmiss drops the MSHR rule,
 *     bw the slot rule (dg_slot_rule_applies);
 *   - a record's `iq` is the IQ rule (model/iq_tab.h), applied to D after
 *     its in-edges; win drops it;
 *   - an IW edge counts only where R of its source is at most E' of its
 *     destination, both under S, where E' is the time the destination's
 *     other E in-edges give (when it could issue but for the slots);
 *   - a source before the first record has time 0.
 * The streaming solver (solver.h) applies the same rules to all subsets at
 * once; ic_graph_eval below is the plain one-subset forward pass, each
 * record through the one scalar evaluation (model/rec_eval.h), kept simple
 * on purpose: it is the reference the solver is tested against and the
 * baseline the solver is benchmarked against. */
#ifndef IC_GRAPH_H
#define IC_GRAPH_H

#include <stddef.h>
#include <stdint.h>

#include "categories.h"
#include "graph_rec.h"
#include "ic_err.h"

/* The categories whose idealization removes an edge of this kind
 * (graph_rec.h, ic_edge_drop_mask). */
static inline ic_catmask dg_edge_drop_mask(uint8_t kind) { return ic_edge_drop_mask(kind); }

/* Does idealizing `ideal` remove edge e? (graph_rec.h, ic_edge_dropped) */
static inline int dg_edge_dropped(const ic_edge *e, ic_catmask ideal) { return ic_edge_dropped(e, ideal); }

/* Source distance of edge e under idealization `ideal` (the win rule;
 * graph_rec.h, ic_edge_dist). */
static inline uint64_t dg_edge_dist(const ic_edge *e, ic_catmask ideal) { return ic_edge_dist(e, ideal); }

/* The record checker every evaluator calls (graph_rec.h,
 * ic_graph_rec_check). Time complexity: O(edges). */
static inline ic_status dg_check_rec(const ic_graph_rec *r, ic_err *err) { return ic_graph_rec_check(r, err); }

/* Forward pass over n consecutive records (recs[k].seq = recs[0].seq + k)
 * with the categories in `ideal` idealized. Writes the critical-path length
 * (the last record's C time; 0 if n == 0) to *t_out and, if node_t is not
 * NULL, every node time to node_t[5*k + node]. Every source inside the array
 * is visible (no window). Time complexity: O(n * edges); memory O(n). */
ic_status ic_graph_eval(const ic_graph_rec *recs, size_t n, ic_catmask ideal, uint64_t *node_t,
                        uint64_t *t_out, ic_err *err);

struct ic_rec_why;

/* ic_graph_eval that also writes, for every record recs[k], what bound its
 * nodes beyond their in-edges and where each rule's edge comes from
 * (model/rec_eval.h, ic_rec_why) to why[k] (n entries; node_t may be
 * NULL): the graph's form of the rules, as slack's and the export's.
 * Time complexity: O(n * edges) and the walks back to the rules'
 * sources. */
ic_status ic_graph_eval_why(const ic_graph_rec *recs, size_t n, ic_catmask ideal, uint64_t *node_t,
                            struct ic_rec_why *why, uint64_t *t_out, ic_err *err);

/* The rules under `ideal` (graph_rec.h): does the slot rule hold (not
 * under bw), the MSHR rule's count (give the record's rules mask,
 * ic_rec_rules_mask), the IQ rule's size, the slot rule's counts. */
static inline int dg_slot_rule_applies(ic_catmask ideal) { return ic_slot_rule_applies(ideal); }
static inline int dg_mshr_rule(const ic_graph_rec *r, ic_catmask ideal) { return ic_rec_mshr_rule(r, ideal); }
static inline uint32_t dg_iq_rule(const ic_graph_rec *r, ic_catmask ideal) { return ic_rec_iq_rule(r, ideal); }
static inline int dg_slot_counts(const ic_graph_rec *r, ic_catmask ideal, int *nw, int *np) {
  return ic_rec_slot_counts(r, ideal, nw, np);
}

#endif
