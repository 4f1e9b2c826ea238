/* graph_check.c: replays graph records and checks them against the model's
 * stamps (the invariant of graph_rec.h).
 *
 * Node times of recent instructions are kept in a ring indexed by seq; an
 * edge reaching further back than the ring is an error (the engine needs a
 * bounded window too), an edge from before the first record has source
 * time 0. Nodes are evaluated in D, R, E, P, C order, which is a topological
 * order inside an instruction (DR, RE, EP, PC have distance 0). */
#include <stdlib.h>
#include <string.h>

#include "ooo.h"
#include "iq_tab.h"
#include "mshr_tab.h"
#include "slot_tab.h"

#define CHECK_RING (1u << 17)

struct ooo_graph_check {
  uint64_t first, next; /* seq of the first record, and the next expected */
  uint64_t count, last_commit;
  int started;
  uint64_t (*t)[IC_NODE_COUNT];
  ic_slot_tab slots; /* the slot rule's counts (slot_tab.h) */
  ic_mshr_tab holds; /* the MSHR rule's holders (mshr_tab.h) */
  ic_iq_tab iqt;     /* the IQ rule's E's (iq_tab.h) */
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
  ic_slot_tab_free(&g->slots);
  ic_mshr_tab_free(&g->holds);
  ic_iq_tab_free(&g->iqt);
  free(g);
}

uint64_t ooo_graph_check_count(const ooo_graph_check *g) { return g->count; }
uint64_t ooo_graph_check_last_commit(const ooo_graph_check *g) { return g->last_commit; }

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
  uint64_t *me = g->t[r->seq & (CHECK_RING - 1)];
  uint64_t val[IC_NODE_COUNT];
  int seen[IC_NODE_COUNT] = {0};
  const int nw = r->slot_w, np = r->slot_p, mk = r->mshr_k;
  for (int n = 0; n < IC_NODE_COUNT; n++) {
    val[n] = 0;
    for (int k = 0; k < r->nedges; k++) {
      const ic_edge *e = &r->edge[k];
      if (ic_edge_dst_node[e->kind] != n) continue;
      int sn = ic_edge_src_node[e->kind];
      uint64_t src;
      if (e->dist == 0) {
        if (sn >= n)
          return ic_fail(err, IC_ERUN, "graph check: seq %llu: %s edge within one instruction goes backwards",
                         (unsigned long long)r->seq, ic_edge_names[e->kind]);
        src = val[sn];
      } else if (e->dist > r->seq - g->first) {
        src = 0;
      } else if (e->dist >= CHECK_RING) {
        return ic_fail(err, IC_ERUN, "graph check: seq %llu: %s edge distance %u too far back",
                       (unsigned long long)r->seq, ic_edge_names[e->kind], e->dist);
      } else {
        src = g->t[(r->seq - e->dist) & (CHECK_RING - 1)][sn];
      }
      uint64_t v = src + ic_edge_latency(e, 0);
      if (v > r->t[n])
        return ic_fail(err, IC_ERUN,
                       "graph check: seq %llu pc 0x%llx: %s edge (dist %u) demands %c = %llu > stamp %llu",
                       (unsigned long long)r->seq, (unsigned long long)r->pc, ic_edge_names[e->kind],
                       e->dist, ic_node_names[n], (unsigned long long)v,
                       (unsigned long long)r->t[n]);
      if (v > val[n]) val[n] = v;
      seen[n] = 1;
    }
    /* the rules (graph_rec.h): the IQ rule on D; the MSHR rule, then the
       slot rule, on E */
    uint64_t rv = 0;
    const char *rule = NULL;
    if (n == IC_NODE_D && r->iq) {
      if (r->iq != g->iqt.k && ic_iq_tab_reset(&g->iqt, r->iq) != 0)
        return ic_fail(err, IC_ERUN, "graph check: out of memory (IQ rule)");
      rv = ic_iq_tab_bound(&g->iqt), rule = "IQ";
      if (rv > val[n]) val[n] = rv;
      seen[n] |= rv > 0;
    }
    if (n == IC_NODE_E && mk) {
      ic_mshr_tab_floor(&g->holds, val[IC_NODE_D]);
      rv = val[n] = ic_mshr_tab_time(&g->holds, val[n], mk, NULL), rule = "MSHR";
    }
    if (n == IC_NODE_E && (nw || np) && rv <= r->t[n])
      rv = val[n] = ic_slot_tab_time(&g->slots, val[n], nw, np, ooo_pool_of(r->opclass)), rule = "slot";
    if (rule && rv > r->t[n])
      return ic_fail(err, IC_ERUN, "graph check: seq %llu pc 0x%llx: the %s rule demands %c = %llu > stamp %llu",
                     (unsigned long long)r->seq, (unsigned long long)r->pc, rule, ic_node_names[n],
                     (unsigned long long)rv, (unsigned long long)r->t[n]);
    if (!seen[n] || val[n] != r->t[n])
      return ic_fail(err, IC_ERUN, "graph check: seq %llu pc 0x%llx: node %c replays to %llu, stamp %llu%s",
                     (unsigned long long)r->seq, (unsigned long long)r->pc, ic_node_names[n],
                     (unsigned long long)val[n], (unsigned long long)r->t[n],
                     seen[n] ? "" : " (no in-edge)");
    if (n == IC_NODE_D) ic_slot_tab_floor(&g->slots, val[n]);
  }
  if (ic_slot_tab_add(&g->slots, val[IC_NODE_E], ooo_pool_of(r->opclass)) != 0 ||
      (mk && ic_mshr_tab_add(&g->holds, val[IC_NODE_E], val[IC_NODE_P], r->seq) != 0))
    return ic_fail(err, IC_ERUN, "graph check: out of memory (slot counts, MSHR holders)");
  if (r->iq && ic_iq_tab_add(&g->iqt, val[IC_NODE_E]) != 0)
    return ic_fail(err, IC_ERUN, "graph check: out of memory (IQ rule)");
  memcpy(me, val, sizeof val);
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
