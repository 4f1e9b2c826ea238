/* graph_check.c: replays graph records and checks them against the model's
 * stamps (the invariant of graph_rec.h).
 *
 * Each record is evaluated with nothing idealized in the one evaluation
 * order (rec_eval.h); node times of recent instructions are kept in a ring
 * indexed by seq. An edge reaching further back than the ring is an error
 * (the engine needs a bounded window too), an edge from before the first
 * record has source time 0. Where a record does not give back its stamps,
 * check_why names the first edge or rule, in that order, that demanded a
 * later time than a stamp, or the node that replays to another time. */
#include <stdlib.h>
#include <string.h>

#include "ooo.h"
#include "rec_eval.h"

#define CHECK_RING (1u << 17)

struct ooo_graph_check {
  uint64_t first, next; /* seq of the first record, and the next expected */
  uint64_t count, last_commit;
  int started;
  uint64_t (*t)[IC_NODE_COUNT];
  ic_rec_tabs tabs; /* the rules' slot counts, MSHR holders and IQ E's */
};

ooo_graph_check *ooo_graph_check_create(void) {
  ooo_graph_check *g = calloc(1, sizeof *g);
  if (!g) return NULL;
  g->t = calloc(CHECK_RING, sizeof *g->t);
  if (!g->t) {
    free(g);
    return NULL;
  }
  return g;
}

void ooo_graph_check_destroy(ooo_graph_check *g) {
  if (!g) return;
  free(g->t);
  ic_rec_tabs_free(&g->tabs);
  free(g);
}

uint64_t ooo_graph_check_count(const ooo_graph_check *g) { return g->count; }
uint64_t ooo_graph_check_last_commit(const ooo_graph_check *g) { return g->last_commit; }

/* Why record r's replay val (ic_rec_eval, the tables not yet taking r) is
 * not its stamps, or an edge of it reaches past the ring: node by node in
 * D R E P C order, where every node before matched its stamp, the first
 * in-edge that goes backwards, reaches too far or demands more than the
 * stamp; then the first of the node's rules, in ic_rec_eval's order, to
 * move it past the stamp; then the node's replay if it is not the stamp
 * or it has no in-edge (fed: bit n, node n has one). */
static ic_status check_why(ooo_graph_check *g, const ic_graph_rec *r, const ic_rec_past *past,
                           const uint64_t *val, unsigned fed, ic_err *err) {
  const unsigned long long seq = (unsigned long long)r->seq, pc = (unsigned long long)r->pc;
  for (int n = 0; n < IC_NODE_COUNT; n++) {
    uint64_t e_other = 0, e0 = 0; /* E' and E from the edges: where the rules start */
    if (n == IC_NODE_E) e0 = ic_rec_e_edges(r, 0, 0, past, val, &e_other);
    for (int k = 0; k < r->nedges; k++) {
      const ic_edge *e = &r->edge[k];
      if (ic_edge_dst_node[e->kind] != n) continue;
      if (e->dist == 0 && ic_edge_src_node[e->kind] >= n)
        return ic_fail(err, IC_ERUN, "graph check: seq %llu: %s edge within one instruction goes backwards",
                       seq, ic_edge_names[e->kind]);
      if (e->dist >= CHECK_RING && e->dist <= past->known)
        return ic_fail(err, IC_ERUN, "graph check: seq %llu: %s edge distance %u too far back", seq,
                       ic_edge_names[e->kind], e->dist);
      if (e->kind == IC_EDGE_IW && !ic_rec_iw_holds(e, 0, past, val, e_other)) continue;
      const uint64_t v = ic_rec_edge_time(e, 0, past, val);
      if (v > r->t[n])
        return ic_fail(err, IC_ERUN,
                       "graph check: seq %llu pc 0x%llx: %s edge (dist %u) demands %c = %llu > stamp %llu",
                       seq, pc, ic_edge_names[e->kind], e->dist, ic_node_names[n], (unsigned long long)v,
                       (unsigned long long)r->t[n]);
    }
    /* the rules (graph_rec.h): the IQ rule on D (D's edges demanded no
       more than the stamp, so only its bound can have); on E the MSHR rule
       and the slot rule in turn until neither moves it, as ic_rules_time
       takes them, stopping at the first move past the stamp (the tables
       stand as ic_rec_eval left them, before r) */
    uint64_t rv = 0;
    const char *rule = NULL;
    if (n == IC_NODE_D && r->iq && val[n] > r->t[n]) rv = val[n], rule = "IQ";
    const int mk = r->mshr_k, slot = r->slot_w || r->slot_p;
    if (n == IC_NODE_E && (mk || slot))
      for (uint64_t c = e0;;) {
        if (mk && (c = ic_mshr_tab_time(&g->tabs.holds, c, mk, NULL)) > r->t[n]) {
          rv = c, rule = "MSHR";
          break;
        }
        const uint64_t s =
            slot ? ic_slot_tab_time(&g->tabs.slots, c, r->slot_w, r->slot_p, ooo_pool_of(r->opclass)) : c;
        if (s > r->t[n]) rv = s, rule = "slot";
        if (rule || s == c || !mk) break;
        c = s;
      }
    if (rule)
      return ic_fail(err, IC_ERUN, "graph check: seq %llu pc 0x%llx: the %s rule demands %c = %llu > stamp %llu",
                     seq, pc, rule, ic_node_names[n], (unsigned long long)rv, (unsigned long long)r->t[n]);
    if (!(fed >> n & 1u) || val[n] != r->t[n])
      return ic_fail(err, IC_ERUN, "graph check: seq %llu pc 0x%llx: node %c replays to %llu, stamp %llu%s",
                     seq, pc, ic_node_names[n], (unsigned long long)val[n], (unsigned long long)r->t[n],
                     (fed >> n & 1u) ? "" : " (no in-edge)");
  }
  /* not reached: check_one calls it only where one of the above holds */
  return ic_fail(err, IC_ERUN, "graph check: seq %llu pc 0x%llx: replay differs from the stamps", seq, pc);
}

static ic_status check_one(ooo_graph_check *g, const ic_graph_rec *r, ic_err *err) {
  if (!g->started) {
    g->started = 1;
    g->first = g->next = r->seq;
  }
  if (r->seq != g->next)
    return ic_fail(err, IC_ERUN, "graph check: record seq %llu, expected %llu",
                   (unsigned long long)r->seq, (unsigned long long)g->next);
  ic_err why; /* the model broke the contract: a failed run */
  if (ic_graph_rec_check(r, &why) != IC_OK) return ic_fail(err, IC_ERUN, "graph check: %s", why.msg);
  const ic_rec_past past = {(const char *)g->t, sizeof *g->t, r->seq, CHECK_RING - 1, r->seq - g->first};
  uint32_t dists = 0; /* the edges' distances OR'ed: CHECK_RING or more only where one is */
  for (int k = 0; k < r->nedges; k++) dists |= r->edge[k].dist;
  int far = 0; /* an edge reaches past the ring (not before the first record) */
  for (int k = 0; dists >= CHECK_RING && k < r->nedges; k++)
    far |= r->edge[k].dist >= CHECK_RING && r->edge[k].dist <= past.known;
  uint64_t val[IC_NODE_COUNT];
  unsigned fed; /* bit n: node n has an in-edge */
  ic_rec_status rs = ic_rec_eval(r, 0, &past, &g->tabs, val, &fed);
  if (rs == IC_REC_OK) {
    if (r->iq && val[IC_NODE_D] > 0) fed |= 1u << IC_NODE_D; /* the IQ rule's bound alone */
    if (far || fed != (1u << IC_NODE_COUNT) - 1 || memcmp(val, r->t, sizeof val) != 0)
      return check_why(g, r, &past, val, fed, err);
    rs = ic_rec_take(r, 0, &g->tabs, val);
  }
  if (rs != IC_REC_OK)
    return ic_fail(err, IC_ERUN, "graph check: out of memory (%s)",
                   rs == IC_REC_EIQ ? "IQ rule" : "slot counts, MSHR holders");
  memcpy(g->t[r->seq & (CHECK_RING - 1)], val, sizeof val);
  g->next++;
  g->count++;
  g->last_commit = val[IC_NODE_C];
  return IC_OK;
}

static ic_status check_consume(void *ctx, const ic_graph_rec *recs, size_t n, ic_err *err) {
  for (size_t i = 0; i < n; i++) {
    ic_status st = check_one(ctx, &recs[i], err);
    if (st) return st;
  }
  return IC_OK;
}

ic_graph_sink ooo_graph_check_sink(ooo_graph_check *g) {
  ic_graph_sink s = {.ctx = g, .consume = check_consume};
  return s;
}
