/* rec_eval.h: one record's node times under an idealization, in the one
 * evaluation order of the graph contract (graph_rec.h).
 *
 * ic_rec_eval gives the five node times of one record from the times of
 * the records before it and the rules' tables, in this order:
 *   D  its in-edges, then the IQ rule (iq_tab.h) on them; the slot
 *      counts' floor rises to D (where the slot rule applies);
 *   R  its in-edges;
 *   E  its in-edges other than IW, giving E'; then each IW edge whose
 *      source's R is at most E'; then the MSHR rule and the slot rule
 *      together (rules.h; the MSHR holders' floor at D first);
 *   P, C  their in-edges.
 * An in-edge counts unless the record's rules mask (ic_rec_rules_mask: the
 * idealization with its scoped drops) drops it; its time is its source's,
 * at its distance under the idealization (win's CD), plus its latency
 * with the idealized parts zeroed; a source before the first record has
 * time 0. The sources in earlier records are final before the record, so
 * one pass over its edges takes their max for each node (ic_rec_in); the
 * edges within the record wait for their node's turn, in the order above.
 * Then ic_rec_take counts the record in the rules' tables: its
 * issue in the slot counts where the slot rule applies, it as an MSHR
 * holder where it has the MSHR rule, its E in the IQ rule's where it has
 * that. The two are apart so that a caller can look at the times (the
 * model's check) or add to the record (the stitcher's capacity edge)
 * before the tables take it.
 *
 * The scalar evaluators call it: the reference pass (engine/graph.c,
 * ic_graph_eval), the model's check of its stamps (graph_check.c, with
 * nothing idealized, through the parts below), the stitcher solving a
 * fragment's positions in the baseline (engine/stitch.c), and slack's
 * forward pass (engine/slack.c) and the export (engine/export.c, through
 * ic_graph_eval_why), which ask ic_rec_eval_why what bound each node (the
 * IW edges that held, the rule that moved D or E and the earlier record
 * its time came from) to turn each rule into the edge that gave its node,
 * so that the two build one graph. The solver's lanes
 * (engine/solver_kernels.c, solver_rules.c) follow the same order in their
 * own code: they evaluate every subset at once in vectors.
 *
 * Everything is inline so that each caller's way to its earlier times
 * (ic_rec_past) folds into the edge loop. */
#ifndef IC_REC_EVAL_H
#define IC_REC_EVAL_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "graph_rec.h"
#include "iq_tab.h"
#include "mshr_tab.h"
#include "ooo.h"
#include "rules.h"
#include "slot_tab.h"

/* Where a caller keeps the node times of the records before the one
 * evaluated: the record at index x (this one: `at`) has its five times at
 * base + (x & mask) * stride bytes; `known` records before this one have
 * times, and a source further back lies before the first record (time 0).
 * A plain array (the reference pass's times, the stitcher's records) has
 * mask UINT64_MAX, a ring (the model's check) its size less one, and
 * must then hold every distance asked of it. This record's own times are
 * the evaluation's, not read from here. */
typedef struct ic_rec_past {
  const char *base;
  size_t stride;
  uint64_t at, mask, known;
} ic_rec_past;

/* Time of node `node` of the record `dist` (>= 1) before this one. */
static inline uint64_t ic_rec_past_time(const ic_rec_past *p, uint64_t dist, int node) {
  if (dist > p->known) return 0;
  const uint64_t *t = (const uint64_t *)(const void *)(p->base + ((p->at - dist) & p->mask) * p->stride);
  return t[node];
}

/* What the rules count, over the records evaluated so far (one evaluation's
 * times): the slot rule's issues (slot_tab.h), the MSHR rule's holders
 * (mshr_tab.h), the IQ rule's E's (iq_tab.h). Zeroed to start; freed with
 * ic_rec_tabs_free. */
typedef struct ic_rec_tabs {
  ic_slot_tab slots;
  ic_mshr_tab holds;
  ic_iq_tab iq;
} ic_rec_tabs;

static inline void ic_rec_tabs_free(ic_rec_tabs *t) {
  ic_slot_tab_free(&t->slots);
  ic_mshr_tab_free(&t->holds);
  ic_iq_tab_free(&t->iq);
}

/* What ic_rec_eval and ic_rec_take return: done, or the IQ rule's table
 * could not take the size or the E, or the slot counts or the MSHR holders
 * ran out of memory. */
typedef enum ic_rec_status { IC_REC_OK, IC_REC_EIQ, IC_REC_ERULES } ic_rec_status;

/* The time edge e (into a node of this record) asks of its node under
 * `ideal`: its source's time (self: this record's own times so far, for an
 * edge of distance 0) plus its latency with the idealized parts zeroed. */
static inline uint64_t ic_rec_edge_time(const ic_edge *e, ic_catmask ideal, const ic_rec_past *past,
                                        const uint64_t *self) {
  const uint64_t d = ic_edge_dist(e, ideal);
  const int sn = ic_edge_src_node[e->kind];
  return (d ? ic_rec_past_time(past, d, sn) : self[sn]) + ic_edge_latency(e, ideal);
}

/* Does IW edge e hold under `ideal`: its source's R at most e_other, the
 * time its node's other in-edges give (graph_rec.h, IW)? */
static inline int ic_rec_iw_holds(const ic_edge *e, ic_catmask ideal, const ic_rec_past *past,
                                  const uint64_t *self, uint64_t e_other) {
  const uint64_t d = ic_edge_dist(e, ideal);
  return (d ? ic_rec_past_time(past, d, IC_NODE_R) : self[IC_NODE_R]) <= e_other;
}

/* The in-edges of one record that an idealization keeps (not of an unknown
 * kind, not dropped by the record's rules mask), gathered in one pass over
 * its edges: those from earlier records, whose sources are final, already
 * as each node's max; those within the record (distance 0) and the IW
 * edges as sets of edge indices, for their node's turn. */
typedef struct ic_rec_in {
  uint64_t from_past[IC_NODE_COUNT]; /* per node: the max over its edges from earlier
                                        records, IW aside (0: none) */
  uint32_t within[IC_NODE_COUNT];    /* per node: bit k, edge k comes from this record */
  uint32_t iw;                       /* bit k: edge k is an IW edge */
  unsigned fed;                      /* bit n: node n has an in-edge */
} ic_rec_in;
_Static_assert(IC_MAX_EDGES <= 32, "a record's edges are a 32-bit set");

/* Gathers record r's kept in-edges under `ideal` (rules: r's rules mask,
 * ic_rec_rules_mask) into in. O(edges). */
static inline void ic_rec_in_gather(const ic_graph_rec *r, ic_catmask ideal, ic_catmask rules,
                                    const ic_rec_past *past, ic_rec_in *in) {
  memset(in, 0, sizeof *in);
  for (int k = 0; k < r->nedges; k++) {
    const ic_edge *e = &r->edge[k];
    if (e->kind >= IC_EDGE_KIND_COUNT || ic_edge_dropped(e, rules)) continue;
    const int dn = ic_edge_dst_node[e->kind];
    in->fed |= 1u << dn;
    if (e->kind == IC_EDGE_IW) {
      in->iw |= 1u << k;
      continue;
    }
    const uint64_t d = ic_edge_dist(e, ideal);
    if (!d) {
      in->within[dn] |= 1u << k;
      continue;
    }
    const uint64_t a = ic_rec_past_time(past, d, ic_edge_src_node[e->kind]) + ic_edge_latency(e, ideal);
    if (a > in->from_past[dn]) in->from_past[dn] = a;
  }
}

/* Node `node` of record r from its gathered in-edges other than IW, given
 * r's times so far (self). O(edges into the node from r). */
static inline uint64_t ic_rec_in_node(const ic_graph_rec *r, const ic_rec_in *in, int node, ic_catmask ideal,
                                      const uint64_t *self) {
  uint64_t v = in->from_past[node];
  for (uint32_t m = in->within[node]; m; m &= m - 1) {
    const ic_edge *e = &r->edge[__builtin_ctz(m)];
    const uint64_t a = self[ic_edge_src_node[e->kind]] + ic_edge_latency(e, ideal);
    if (a > v) v = a;
  }
  return v;
}

/* E of record r from E' (e_other: its other in-edges) and its gathered IW
 * edges that hold against E'; if held is not NULL, bit k of it set for
 * each IW edge k that holds. O(IW edges). */
static inline uint64_t ic_rec_in_iw(const ic_graph_rec *r, const ic_rec_in *in, ic_catmask ideal,
                                    const ic_rec_past *past, const uint64_t *self, uint64_t e_other,
                                    uint32_t *held) {
  uint64_t v = e_other;
  for (uint32_t m = in->iw; m; m &= m - 1) {
    const ic_edge *e = &r->edge[__builtin_ctz(m)];
    if (!ic_rec_iw_holds(e, ideal, past, self, e_other)) continue;
    if (held) *held |= m & -m;
    const uint64_t a = ic_rec_edge_time(e, ideal, past, self);
    if (a > v) v = a;
  }
  return v;
}

/* E of record r from its in-edges under `ideal`: E' from the others (to
 * *e_other if not NULL), then the IW edges that hold against E'. The time
 * the MSHR and slot rules start from. O(edges). */
static inline uint64_t ic_rec_e_edges(const ic_graph_rec *r, ic_catmask ideal, ic_catmask rules,
                                      const ic_rec_past *past, const uint64_t *self, uint64_t *e_other) {
  ic_rec_in in;
  ic_rec_in_gather(r, ideal, rules, past, &in);
  const uint64_t v0 = ic_rec_in_node(r, &in, IC_NODE_E, ideal, self);
  if (e_other) *e_other = v0;
  return ic_rec_in_iw(r, &in, ideal, past, self, v0, NULL);
}

/* What bound a record's nodes beyond their in-edges, as ic_rec_eval_why
 * found it: for a caller that turns each rule into the edge that gave its
 * node (slack, the export). mshr_src and slot_at are ic_rules_time's src
 * and slot_at. Each rule's edge comes from an earlier record, given as
 * its distance back (*_from, 1..past->known; 0 where the rule did not move
 * its node or no record the past knows gives the time):
 *   IQ:   E(j) -> D, latency 0, j the latest record whose E is iq_bound
 *         (ic_rec_issued);
 *   MSHR: P(j) -> E, latency 0, j the holder mshr_src;
 *   slot: E(j) -> E, latency 1, j the latest record whose E is the cycle
 *         before slot_at (one of the full cycle's issues).
 * Where both rules moved E, the edge of the one that moved it last gives
 * E, the other's an earlier time. Tied sources (several records of that E
 * or P) give one edge, the latest's. */
typedef struct ic_rec_why {
  uint32_t iw_held;  /* bit k: edge k is an IW edge that held (against E') */
  uint64_t iq_bound; /* the IQ rule's bound where it moved D past D's in-edges (0: it did not) */
  uint64_t mshr_src; /* seq of the holder whose completion gave the MSHR rule's last move of E
                        (UINT64_MAX: it never moved E) */
  uint64_t slot_at;  /* cycle of the slot rule's last move of E (0: it never moved E) */
  uint64_t iq_from, mshr_from, slot_from; /* where the rules' edges come from (above) */
} ic_rec_why;

/* The distance back (1..p->known) to the latest record before this one
 * whose E is at cycle c; 0 where none the past knows is. O(distance). */
static inline uint64_t ic_rec_issued(const ic_rec_past *p, uint64_t c) {
  for (uint64_t d = 1; d <= p->known; d++)
    if (ic_rec_past_time(p, d, IC_NODE_E) == c) return d;
  return 0;
}

/* The five node times of record r under `ideal` into t, in the order above,
 * from the earlier records' times (past) and the rules' tables, whose
 * floors it raises (tabs; an IQ rule of another size than the table's
 * resets it). The tables do not count r until ic_rec_take. If fed is not
 * NULL, its bit n says node n has an in-edge the idealization keeps; if
 * why is not NULL, it says what bound the nodes beyond their in-edges and
 * from where (ic_rec_why). IC_REC_EIQ where the IQ rule's table cannot
 * take r's size (t, why unset). t may be r's own stamps (written only at
 * the end). Always inlined, so that a caller passing NULL (ic_rec_eval)
 * keeps none of why's work. Time complexity: O(edges) and the rules'
 * walks; with why, and the walks back to the IQ and slot rules' sources
 * where they moved their node. */
static inline __attribute__((always_inline)) ic_rec_status
ic_rec_eval_why(const ic_graph_rec *r, ic_catmask ideal, const ic_rec_past *past, ic_rec_tabs *tabs,
                uint64_t t_out[IC_NODE_COUNT], unsigned *fed, ic_rec_why *why) {
  const ic_catmask rules = ic_rec_rules_mask(r, ideal); /* with its scoped drops */
  const uint32_t qk = ic_rec_iq_rule(r, ideal);
  /* a record without the rule neither reads nor clears the table: the rule
     counts the instructions before i that have it (graph_rec.h) */
  if (qk && qk != tabs->iq.k && ic_iq_tab_reset(&tabs->iq, qk) != 0) return IC_REC_EIQ;
  ic_rec_in in;
  ic_rec_in_gather(r, ideal, rules, past, &in);
  uint64_t t[IC_NODE_COUNT] = {0};
  t[IC_NODE_D] = ic_rec_in_node(r, &in, IC_NODE_D, ideal, t);
  if (why) *why = (ic_rec_why){.mshr_src = UINT64_MAX};
  if (qk) {
    const uint64_t b = ic_iq_tab_bound(&tabs->iq);
    if (b > t[IC_NODE_D]) {
      t[IC_NODE_D] = b;
      if (why) why->iq_bound = b;
    }
  }
  if (ic_slot_rule_applies(ideal)) ic_slot_tab_floor(&tabs->slots, t[IC_NODE_D]);
  t[IC_NODE_R] = ic_rec_in_node(r, &in, IC_NODE_R, ideal, t);
  t[IC_NODE_E] = ic_rec_in_iw(r, &in, ideal, past, t, ic_rec_in_node(r, &in, IC_NODE_E, ideal, t),
                              why ? &why->iw_held : NULL);
  int nw, np;
  const int slot = ic_rec_slot_counts(r, ideal, &nw, &np);
  const int mk = ic_rec_mshr_rule(r, rules);
  if (mk) ic_mshr_tab_floor(&tabs->holds, t[IC_NODE_D]);
  if (mk || slot)
    t[IC_NODE_E] = ic_rules_time(&tabs->holds, mk, &tabs->slots, slot, nw, np, ooo_pool_of(r->opclass),
                                 t[IC_NODE_E], why ? &why->mshr_src : NULL, why ? &why->slot_at : NULL);
  t[IC_NODE_P] = ic_rec_in_node(r, &in, IC_NODE_P, ideal, t);
  t[IC_NODE_C] = ic_rec_in_node(r, &in, IC_NODE_C, ideal, t);
  if (why) {
    why->iq_from = why->iq_bound ? ic_rec_issued(past, why->iq_bound) : 0;
    why->mshr_from = why->mshr_src < r->seq && r->seq - why->mshr_src <= past->known ? r->seq - why->mshr_src : 0;
    why->slot_from = why->slot_at ? ic_rec_issued(past, why->slot_at - 1) : 0;
  }
  memcpy(t_out, t, sizeof t);
  if (fed) *fed = in.fed;
  return IC_REC_OK;
}

/* ic_rec_eval_why without why: the times alone. */
static inline ic_rec_status ic_rec_eval(const ic_graph_rec *r, ic_catmask ideal, const ic_rec_past *past,
                                        ic_rec_tabs *tabs, uint64_t t_out[IC_NODE_COUNT], unsigned *fed) {
  return ic_rec_eval_why(r, ideal, past, tabs, t_out, fed, NULL);
}

/* The rules' tables count record r with its times t under `ideal`: its
 * issue in the slot counts where the slot rule applies, it as a holder
 * where it has the MSHR rule, its E where it has the IQ rule. IC_REC_ERULES
 * or IC_REC_EIQ when out of memory. */
static inline ic_rec_status ic_rec_take(const ic_graph_rec *r, ic_catmask ideal, ic_rec_tabs *tabs,
                                        const uint64_t t[IC_NODE_COUNT]) {
  if ((ic_slot_rule_applies(ideal) &&
       ic_slot_tab_add(&tabs->slots, t[IC_NODE_E], ooo_pool_of(r->opclass)) != 0) ||
      (ic_rec_mshr_rule(r, ic_rec_rules_mask(r, ideal)) &&
       ic_mshr_tab_add(&tabs->holds, t[IC_NODE_E], t[IC_NODE_P], r->seq) != 0))
    return IC_REC_ERULES;
  if (ic_rec_iq_rule(r, ideal) && ic_iq_tab_add(&tabs->iq, t[IC_NODE_E]) != 0) return IC_REC_EIQ;
  return IC_REC_OK;
}

#endif
