/* graph.c: edge idealization rules, record checks and the one-subset
 * reference forward pass (graph.h). */
#include "graph.h"

#include <stdlib.h>

ic_status dg_check_rec(const ic_graph_rec *r, ic_err *err) {
  if (r->nedges > IC_MAX_EDGES)
    return ic_fail(err, IC_EINPUT, "graph record %llu: %u edges (at most %d)",
                   (unsigned long long)r->seq, r->nedges, IC_MAX_EDGES);
  for (int k = 0; k < r->nedges; k++) {
    const ic_edge *e = &r->edge[k];
    if (e->kind >= IC_EDGE_KIND_COUNT)
      return ic_fail(err, IC_EINPUT, "graph record %llu: edge %d has unknown kind %u",
                     (unsigned long long)r->seq, k, e->kind);
    const char *name = ic_edge_names[e->kind];
    if (e->nparts > IC_MAX_PARTS)
      return ic_fail(err, IC_EINPUT, "graph record %llu: %s edge has %u parts (at most %d)",
                     (unsigned long long)r->seq, name, e->nparts, IC_MAX_PARTS);
    if (e->dist == 0 && ic_edge_src_node[e->kind] >= ic_edge_dst_node[e->kind])
      return ic_fail(err, IC_EINPUT,
                     "graph record %llu: %s edge with distance 0 would join a node to itself "
                     "or to an earlier node",
                     (unsigned long long)r->seq, name);
    if (e->dist != 0 && (ic_edge_src_node[e->kind] == IC_NODE_R ||
                         (ic_edge_src_node[e->kind] == IC_NODE_E && e->kind != IC_EDGE_IW)))
      return ic_fail(err, IC_EINPUT,
                     "graph record %llu: %s edge must join nodes of the same instruction "
                     "(distance %u)",
                     (unsigned long long)r->seq, name, e->dist);
    if (e->keep & ~dg_edge_drop_mask(e->kind))
      return ic_fail(err, IC_EINPUT,
                     "graph record %llu: %s edge keeps categories 0x%x that do not drop it",
                     (unsigned long long)r->seq, name, e->keep);
    uint64_t lat = 0;
    for (int p = 0; p < e->nparts; p++) {
      uint8_t c = e->part[p].cat;
      if (c != IC_CAT_NONE && c >= IC_CAT_COUNT)
        return ic_fail(err, IC_EINPUT, "graph record %llu: %s edge part has unknown category %u",
                       (unsigned long long)r->seq, name, c);
      lat += e->part[p].cycles;
    }
    if (lat > IC_GRAPH_MAX_EDGE_LAT)
      return ic_fail(err, IC_EINPUT,
                     "graph record %llu: %s edge latency %llu cycles exceeds the limit %u",
                     (unsigned long long)r->seq, name, (unsigned long long)lat,
                     IC_GRAPH_MAX_EDGE_LAT);
  }
  return IC_OK;
}

ic_status ic_graph_eval(const ic_graph_rec *recs, size_t n, ic_catmask ideal, uint64_t *node_t,
                        uint64_t *t_out, ic_err *err) {
  *t_out = 0;
  if (n == 0) return IC_OK;
  uint64_t *nt = node_t;
  if (!nt) {
    nt = malloc(n * IC_NODE_COUNT * sizeof *nt);
    if (!nt) return ic_fail(err, IC_ERUN, "graph evaluation: out of memory (%zu records)", n);
  }
  ic_status st = IC_OK;
  uint64_t seq0 = recs[0].seq;
  for (size_t i = 0; i < n; i++) {
    const ic_graph_rec *r = &recs[i];
    if (r->seq != seq0 + i) {
      st = ic_fail(err, IC_EINPUT, "graph record %llu follows record %llu (sequence gap)",
                   (unsigned long long)r->seq, (unsigned long long)(seq0 + i - 1));
      break;
    }
    if ((st = dg_check_rec(r, err)) != IC_OK) break;
    uint64_t *t = &nt[i * IC_NODE_COUNT];
    for (int node = 0; node < IC_NODE_COUNT; node++) {
      /* IW edges after the others, each held against their time (v0) */
      uint64_t v = 0, v0 = 0;
      for (int pass = 0; pass < (node == IC_NODE_E ? 2 : 1); pass++) { /* IW: E only */
        for (int k = 0; k < r->nedges; k++) {
          const ic_edge *e = &r->edge[k];
          if ((e->kind == IC_EDGE_IW) != pass) continue;
          if (ic_edge_dst_node[e->kind] != node || dg_edge_dropped(e, ideal)) continue;
          uint64_t d = dg_edge_dist(e, ideal), src = 0;
          if (pass && d <= i && nt[(i - d) * IC_NODE_COUNT + IC_NODE_R] > v0)
            continue; /* its source was not ready when i could issue */
          if (d <= i) src = nt[(i - d) * IC_NODE_COUNT + ic_edge_src_node[e->kind]];
          uint64_t a = src + ic_edge_latency(e, ideal);
          if (a > v) v = a;
        }
        v0 = v;
      }
      t[node] = v;
    }
  }
  if (st == IC_OK) *t_out = nt[(n - 1) * IC_NODE_COUNT + IC_NODE_C];
  if (!node_t) free(nt);
  return st;
}

int dg_iw_holds(const ic_graph_rec *recs, size_t i, const ic_edge *iw, ic_catmask ideal,
                const uint64_t *nt) {
  const ic_graph_rec *r = &recs[i];
  if (iw->dist > i) return 1; /* a source before the first record: time 0 */
  uint64_t v0 = 0;
  for (int k = 0; k < r->nedges; k++) {
    const ic_edge *e = &r->edge[k];
    if (e->kind == IC_EDGE_IW || ic_edge_dst_node[e->kind] != IC_NODE_E ||
        dg_edge_dropped(e, ideal))
      continue;
    uint64_t d = dg_edge_dist(e, ideal);
    uint64_t a = (d <= i ? nt[(i - d) * IC_NODE_COUNT + ic_edge_src_node[e->kind]] : 0) +
                 ic_edge_latency(e, ideal);
    if (a > v0) v0 = a;
  }
  return nt[(i - iw->dist) * IC_NODE_COUNT + IC_NODE_R] <= v0;
}
