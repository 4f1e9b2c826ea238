/* graph_rec.c: name and node tables of the graph edge kinds. */
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
