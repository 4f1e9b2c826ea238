/* graph_rec.c: name and node tables of the graph edge kinds, and the
 * record checker (graph_rec.h). */
#include "graph_rec.h"

const char *const ic_edge_names[IC_EDGE_KIND_COUNT] = {
#define IC_X(e, s, d) #e,
  IC_EDGE_LIST(IC_X)
#undef IC_X
};
const uint8_t ic_edge_src_node[IC_EDGE_KIND_COUNT] = {
#define IC_X(e, s, d) s,
  IC_EDGE_LIST(IC_X)
#undef IC_X
};
const uint8_t ic_edge_dst_node[IC_EDGE_KIND_COUNT] = {
#define IC_X(e, s, d) d,
  IC_EDGE_LIST(IC_X)
#undef IC_X
};
const char ic_node_names[IC_NODE_COUNT] = {'D', 'R', 'E', 'P', 'C'};

ic_status ic_graph_rec_check(const ic_graph_rec *r, ic_err *err) {
  if (r->nedges > IC_MAX_EDGES)
    return ic_fail(err, IC_EINPUT, "graph record %llu: %u edges (at most %d)",
                   (unsigned long long)r->seq, r->nedges, IC_MAX_EDGES);
  if (r->iq > IC_IQ_RULE_MAX)
    return ic_fail(err, IC_EINPUT, "graph record %llu: IQ rule of %u entries (at most %u)",
                   (unsigned long long)r->seq, r->iq, IC_IQ_RULE_MAX);
  if (r->slot_w > IC_SLOT_RULE_MAX || r->slot_p > IC_SLOT_RULE_MAX || r->mshr_k > IC_MSHR_RULE_MAX)
    return ic_fail(err, IC_EINPUT, "graph record %llu: rule counts %u, %u, %u (slots, pool slots, MSHRs; at most %u, %u, %u)",
                   (unsigned long long)r->seq, r->slot_w, r->slot_p, r->mshr_k, IC_SLOT_RULE_MAX,
                   IC_SLOT_RULE_MAX, IC_MSHR_RULE_MAX);
  for (int k = 0; k < 2; k++)
    if (r->sdrop[k] && (!ic_cat_is_scoped(r->sdrop[k]) || !ic_cat_valid(r->sdrop[k])))
      return ic_fail(err, IC_EINPUT, "graph record %llu: sdrop names %u, not a scoped category",
                     (unsigned long long)r->seq, r->sdrop[k]);
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
                         (ic_edge_src_node[e->kind] == IC_NODE_E && e->kind != IC_EDGE_IW &&
                          e->kind != IC_EDGE_IQ)))
      return ic_fail(err, IC_EINPUT,
                     "graph record %llu: %s edge must join nodes of the same instruction "
                     "(distance %u)",
                     (unsigned long long)r->seq, name, e->dist);
    if ((e->kind == IC_EDGE_IW || e->kind == IC_EDGE_MSHR) && e->flags)
      return ic_fail(err, IC_EINPUT,
                     "graph record %llu: %s edge with flags 0x%x (its rule is a field of the record)",
                     (unsigned long long)r->seq, name, e->flags);
    if (e->keep & ~ic_edge_drop_mask(e->kind))
      return ic_fail(err, IC_EINPUT,
                     "graph record %llu: %s edge keeps categories 0x%x that do not drop it",
                     (unsigned long long)r->seq, name, e->keep);
    uint64_t lat = 0;
    for (int p = 0; p < e->nparts; p++) {
      uint8_t c = e->part[p].cat;
      if (c != IC_CAT_NONE && !ic_cat_valid(c))
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
