/* test_igraph_util.h: an independent longest-path evaluation of an exported
 * graph window (igraph's topological order), shared by the tests that check
 * the solver, slack and export against igraph. */
#ifndef IC_TEST_IGRAPH_UTIL_H
#define IC_TEST_IGRAPH_UTIL_H

#include <criterion/criterion.h>
#include <igraph.h>
#include <stdlib.h>

/* Longest-path arrival of every vertex of g along the edge attribute
 * "latency"; malloc'ed, one value per vertex. Fails the test if g has a
 * cycle. */
static inline double *t_igraph_longest(const igraph_t *g) {
  igraph_integer_t nv = igraph_vcount(g);
  igraph_vector_int_t order, inc;
  igraph_vector_t lat;
  igraph_vector_int_init(&order, 0);
  igraph_vector_int_init(&inc, 0);
  igraph_vector_init(&lat, 0);
  cr_assert_eq(igraph_topological_sorting(g, &order, IGRAPH_OUT), IGRAPH_SUCCESS);
  cr_assert_eq(igraph_vector_int_size(&order), nv, "the exported graph has a cycle");
  cr_assert_eq(igraph_cattribute_EANV(g, "latency", igraph_ess_all(IGRAPH_EDGEORDER_ID), &lat),
               IGRAPH_SUCCESS);
  double *a = calloc((size_t)nv, sizeof *a);
  for (igraph_integer_t k = 0; k < nv; k++) {
    igraph_integer_t v = VECTOR(order)[k];
    igraph_incident(g, &inc, v, IGRAPH_IN);
    for (igraph_integer_t q = 0; q < igraph_vector_int_size(&inc); q++) {
      igraph_integer_t e = VECTOR(inc)[q];
      double c = a[IGRAPH_FROM(g, e)] + VECTOR(lat)[e];
      if (c > a[v]) a[v] = c;
    }
  }
  igraph_vector_int_destroy(&order);
  igraph_vector_int_destroy(&inc);
  igraph_vector_destroy(&lat);
  return a;
}

#endif
