/* test_categories.c: the category and edge tables agree with their enums. */
#include <criterion/criterion.h>
#include <string.h>

#include "categories.h"
#include "graph_rec.h"
#include "inst.h"

Test(categories, lookup_round_trips) {
  for (int c = 0; c < IC_CAT_COUNT; c++) cr_assert_eq(ic_category_lookup(ic_category_names[c]), c);
  cr_assert_eq(ic_category_lookup("nosuch"), -1);
  cr_assert_eq(ic_category_lookup("dl1"), IC_CAT_DL1);
  cr_assert_eq(ic_category_lookup("imiss"), IC_CAT_IMISS);
}

Test(categories, edge_tables) {
  cr_assert_str_eq(ic_edge_names[IC_EDGE_CD], "CD");
  cr_assert_eq(ic_edge_src_node[IC_EDGE_CD], IC_NODE_C);
  cr_assert_eq(ic_edge_dst_node[IC_EDGE_CD], IC_NODE_D);
  cr_assert_eq(ic_edge_src_node[IC_EDGE_PP], IC_NODE_P);
  cr_assert_str_eq(ic_opclass_names[IC_OP_FP_DIV], "fp_div");
}

Test(categories, edge_latency_zeroes_idealized_parts) {
  ic_edge e = {.kind = IC_EDGE_EP, .nparts = 3};
  e.part[0] = (ic_lat_part){2, IC_CAT_DL1};
  e.part[1] = (ic_lat_part){100, IC_CAT_DMISS};
  e.part[2] = (ic_lat_part){1, IC_CAT_NONE};
  cr_assert_eq(ic_edge_latency(&e, 0), 103);
  cr_assert_eq(ic_edge_latency(&e, IC_CATBIT(IC_CAT_DMISS)), 3);
  cr_assert_eq(ic_edge_latency(&e, IC_CATBIT(IC_CAT_DMISS) | IC_CATBIT(IC_CAT_DL1)), 1);
}
