/* graph.h: the dependence graph of model/graph_rec.h as the engine reads it.
 *
 * One place for the idealization rules of the edges (graph_rec.h, DESIGN.md):
 * for a set S of categories (a mask over ic_category ids),
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
 * once; ic_graph_eval below is the plain one-subset forward pass, kept simple
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

/* Does idealizing `ideal` remove edge e? */
static inline int dg_edge_dropped(const ic_edge *e, ic_catmask ideal) {
  return (dg_edge_drop_mask(e->kind) & ~(ic_catmask)e->keep & ideal) != 0;
}

/* Source distance of edge e under idealization `ideal` (the win rule). */
static inline uint64_t dg_edge_dist(const ic_edge *e, ic_catmask ideal) {
  if (e->kind == IC_EDGE_CD && (ideal & IC_CATBIT(IC_CAT_WIN)))
    return (uint64_t)e->dist * IC_WIN_FACTOR;
  return e->dist;
}

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

/* Does the slot rule (graph_rec.h, SLOT RULE) hold under `ideal`? In
 * every subset without bw (which widens issue and the pools): the rule
 * counts, in the subset's own times, the issues of the records before i
 * from the latest D on (model/slot_tab.h), whatever moved them. */
static inline int dg_slot_rule_applies(ic_catmask ideal) { return !(ideal & IC_CATBIT(IC_CAT_BW)); }

/* The MSHR count of record r's rule under `ideal` (the record's rules
 * mask, ic_rec_rules_mask: with its scoped drops): 0 where it has none or
 * dmiss drops it. */
static inline int dg_mshr_rule(const ic_graph_rec *r, ic_catmask ideal) {
  return (ideal & IC_CATBIT(IC_CAT_DMISS)) ? 0 : r->mshr_k;
}

/* The IQ rule's size for record r under `ideal` (graph_rec.h, IQ RULE):
 * r->iq, 0 under win (a 20x IQ). */
static inline uint32_t dg_iq_rule(const ic_graph_rec *r, ic_catmask ideal) {
  return (ideal & IC_CATBIT(IC_CAT_WIN)) ? 0 : r->iq;
}

/* The slot rule's counts of record r under `ideal` (0 where it has none or
 * bw drops it), and whether it has any. */
static inline int dg_slot_counts(const ic_graph_rec *r, ic_catmask ideal, int *nw, int *np) {
  const int on = dg_slot_rule_applies(ideal);
  *nw = on ? r->slot_w : 0;
  *np = on ? r->slot_p : 0;
  return *nw || *np;
}

/* Does IW edge `iw` of record recs[i] hold under `ideal`, given the node
 * times nt of recs[0..i] under it (ic_graph_eval's layout)? Its source's R
 * at most the E time of the record's other E in-edges. O(edges). */
int dg_iw_holds(const ic_graph_rec *recs, size_t i, const ic_edge *iw, ic_catmask ideal,
                const uint64_t *nt);

/* The sources of the rules' exported forms (graph_rec.h), for every record
 * of recs under `ideal`, given their node times nt (ic_graph_eval's
 * layout), in one pass that keeps the rules' tables as ic_graph_eval does:
 *   iq[i]: where the IQ rule gave D(i), past its in-edges, the distance
 *          back to an instruction whose E is the rule's bound (an IQ edge
 *          from it, latency 0, gives D(i)); else 0;
 *   ms[i]: where the MSHR rule delayed E(i) past its other E in-edges, the
 *          distance back to the holder whose completion gave it (an edge
 *          from its P, latency 0); else 0;
 *   em[i]: E(i) from its E in-edges and the MSHR rule: where the slot rule
 *          starts (dg_slot_source).
 * O(n) but for the IQ source's scan back. IC_ERUN when out of memory. */
ic_status dg_rule_sources(const ic_graph_rec *recs, size_t n, ic_catmask ideal, const uint64_t *nt,
                          uint32_t *iq, uint32_t *ms, uint64_t *em, ic_err *err);

/* Where the slot rule of recs[i] delayed E(i) past em, the time it starts
 * from (dg_rule_sources), the distance back to an instruction of the
 * rule's count that issued in the full cycle just before E(i), so that an
 * IW edge from its E, latency 1, gives E(i) (the exporter's and slack's
 * form of the rule); else 0. O(i) at worst. */
uint64_t dg_slot_source(const ic_graph_rec *recs, size_t i, ic_catmask ideal, const uint64_t *nt,
                        uint64_t em);

#endif
