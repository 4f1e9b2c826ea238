/* test_rec_eval.c: the one scalar evaluation of a record (model/rec_eval.h)
 * and the model's check that goes through it (graph_check.c). The
 * evaluation over a ring of earlier times gives the reference pass's times
 * under every idealization; the MSHR and slot rules take turns until
 * neither moves E (a small graph whose times are known by hand), and why
 * says where each rule's edge comes from; the check
 * accepts the reference pass's stamps and names the edge, rule or node
 * that does not give back a stamp. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "ooo.h"
#include "rec_eval.h"
#include "test_engine_graph_util.h"

/* tg_random's graph with the rules and IW edges on top: every record an
 * opclass, the slot rule (width 2, one unit of its pool for some) past the
 * first, the MSHR rule (2) on loads, the IQ rule (iq, 0: none) on all, and
 * now and then an IW edge that some categories keep. */
static void random_with_rules(tg *g, size_t n, uint64_t seed, uint32_t iq) {
  tg_random(g, n, seed, 6, 8);
  static const uint8_t ops[] = {IC_OP_INT_ALU, IC_OP_LOAD, IC_OP_STORE, IC_OP_INT_MUL, IC_OP_FP_ADD};
  uint64_t x = seed + 7;
  for (size_t i = 0; i < g->n; i++) {
    ic_graph_rec *r = &g->r[i];
    r->opclass = ops[tg_rand(&x) % sizeof ops];
    if (i > 0) {
      r->slot_w = 2;
      r->slot_p = tg_rand(&x) % 3 == 0 ? 1 : 0;
    }
    r->mshr_k = r->opclass == IC_OP_LOAD ? 2 : 0;
    r->iq = iq;
    if (tg_rand(&x) % 4 == 0 && r->nedges < IC_MAX_EDGES) {
      ic_edge *e = E1(r, IC_EDGE_IW, 1 + tg_rand(&x) % 4, 1, IC_CAT_BW);
      e->keep = (uint8_t)(tg_rand(&x) & (IC_CATBIT(IC_CAT_WIN) | IC_CATBIT(IC_CAT_DMISS)));
    }
  }
}

#define RING 256 /* beyond every reach of the graphs above (CD under win: 160) */

Test(rec_eval, ring_gives_the_reference_times) {
  for (uint64_t seed = 1; seed <= 4; seed++) {
    tg g = {0};
    random_with_rules(&g, 400, seed, seed % 2 ? 6 : 0);
    uint64_t *nt = malloc(g.n * IC_NODE_COUNT * sizeof *nt), t_ref;
    uint64_t(*ring)[IC_NODE_COUNT] = calloc(RING, sizeof *ring);
    cr_assert(nt && ring);
    for (ic_catmask ideal = 0; ideal < IC_CATBIT(IC_CAT_COUNT); ideal++) {
      ic_err err = {{0}};
      cr_assert_eq(ic_graph_eval(g.r, g.n, ideal, nt, &t_ref, &err), IC_OK, "%s", err.msg);
      ic_rec_tabs tabs = {0};
      for (size_t i = 0; i < g.n; i++) {
        const ic_rec_past past = {(const char *)ring, sizeof *ring, i, RING - 1, i};
        uint64_t t[IC_NODE_COUNT];
        cr_assert_eq(ic_rec_eval(&g.r[i], ideal, &past, &tabs, t, NULL), IC_REC_OK);
        for (int k = 0; k < IC_NODE_COUNT; k++)
          cr_assert_eq(t[k], nt[i * IC_NODE_COUNT + k],
                       "seed %llu ideal %#x record %zu node %c: %llu, reference %llu", (unsigned long long)seed,
                       ideal, i, ic_node_names[k], (unsigned long long)t[k],
                       (unsigned long long)nt[i * IC_NODE_COUNT + k]);
        cr_assert_eq(ic_rec_take(&g.r[i], ideal, &tabs, t), IC_REC_OK);
        memcpy(ring[i % RING], t, sizeof t);
      }
      ic_rec_tabs_free(&tabs);
    }
    free(ring);
    free(nt);
    tg_free(&g);
  }
}

/* A record of opclass op with the six in-order and same-instruction edges:
 * DD (latency dd), DR, RE (re), EP (ep cycles of ep_cat), PC, CC. */
static ic_graph_rec *inst(tg *g, uint8_t op, uint32_t dd, uint32_t re, uint32_t ep, uint8_t ep_cat) {
  ic_graph_rec *r = tg_inst(g);
  r->opclass = op;
  E1(r, IC_EDGE_DD, 1, dd, NONE);
  E0(r, IC_EDGE_DR, 0);
  E1(r, IC_EDGE_RE, 0, re, NONE);
  E1(r, IC_EDGE_EP, 0, ep, ep_cat);
  E0(r, IC_EDGE_PC, 0);
  E0(r, IC_EDGE_CC, 1);
  return r;
}

/* Four records whose E's are known by hand: r0 a load holding the one
 * MSHR over [1, 5), r1 issuing at 5, r2 a load holding it over [6, 9); r3,
 * a load with one MSHR and an issue width of 1, ready at 1: the MSHR rule
 * takes it to 5, the slot rule past r1's and r2's issues to 7, the MSHR
 * rule again past r2's hold to 9, where both hold. */
static void rules_in_turn(tg *g) {
  inst(g, IC_OP_LOAD, 1, 0, 4, IC_CAT_DMISS)->mshr_k = 1;
  inst(g, IC_OP_INT_ALU, 0, 4, 1, NONE);
  inst(g, IC_OP_LOAD, 0, 5, 3, IC_CAT_DMISS)->mshr_k = 1;
  ic_graph_rec *r = inst(g, IC_OP_LOAD, 0, 0, 1, IC_CAT_DL1);
  r->mshr_k = 1;
  r->slot_w = 1;
}

/* The check's answer on g's records: "OK" or its message. */
static const char *check(const tg *g, ic_err *err) {
  ooo_graph_check *c = ooo_graph_check_create();
  cr_assert(c);
  ic_graph_sink s = ooo_graph_check_sink(c);
  const ic_status st = s.consume(s.ctx, g->r, g->n, err);
  ooo_graph_check_destroy(c);
  return st == IC_OK ? "OK" : err->msg;
}

Test(rec_eval, rules_take_turns_and_the_check_agrees) {
  tg g = {0};
  rules_in_turn(&g);
  tg_stamp(&g);
  static const uint64_t e[4] = {1, 5, 6, 9};
  for (int i = 0; i < 4; i++)
    cr_assert_eq(g.r[i].t[IC_NODE_E], e[i], "E of r%d: %llu", i, (unsigned long long)g.r[i].t[IC_NODE_E]);
  ic_err err = {{0}};
  cr_assert_str_eq(check(&g, &err), "OK");
  /* the MSHR rule's second turn past a stamp that one turn of each reaches */
  g.r[3].t[IC_NODE_E] = 7;
  cr_assert_str_eq(check(&g, &err), "graph check: seq 3 pc 0x0: the MSHR rule demands E = 9 > stamp 7");
  g.r[3].t[IC_NODE_E] = 5;
  cr_assert_str_eq(check(&g, &err), "graph check: seq 3 pc 0x0: the slot rule demands E = 7 > stamp 5");
  g.r[3].t[IC_NODE_E] = 4;
  cr_assert_str_eq(check(&g, &err), "graph check: seq 3 pc 0x0: the MSHR rule demands E = 5 > stamp 4");
  tg_free(&g);
}

/* What bound r3 of rules_in_turn and where each rule's edge comes from
 * (ic_rec_why): the MSHR rule moved E last, to r2's completion at 9 (its
 * edge from P of r2, one back), the slot rule before it to 7, past the
 * issues at 5 and 6 (its edge from E of r2, the latest issue of 6); the IQ
 * rule had nothing to do. Without why, the same times. */
Test(rec_eval, why_says_where_each_rule_came_from) {
  tg g = {0};
  rules_in_turn(&g);
  uint64_t t[4][IC_NODE_COUNT], u[IC_NODE_COUNT];
  ic_rec_tabs tabs = {0}, plain = {0};
  ic_rec_why why;
  for (size_t i = 0; i < 4; i++) {
    const ic_rec_past past = {(const char *)t, sizeof *t, i, UINT64_MAX, i};
    cr_assert_eq(ic_rec_eval_why(&g.r[i], 0, &past, &tabs, t[i], NULL, &why), IC_REC_OK);
    cr_assert_eq(ic_rec_eval(&g.r[i], 0, &past, &plain, u, NULL), IC_REC_OK);
    cr_assert_eq(memcmp(u, t[i], sizeof u), 0, "record %zu: the times differ with why", i);
    cr_assert_eq(ic_rec_take(&g.r[i], 0, &tabs, t[i]), IC_REC_OK);
    cr_assert_eq(ic_rec_take(&g.r[i], 0, &plain, u), IC_REC_OK);
  }
  cr_assert_eq(t[3][IC_NODE_E], 9);
  cr_assert_eq(why.mshr_src, 2);
  cr_assert_eq(why.slot_at, 7);
  cr_assert_eq(why.mshr_from, 1);
  cr_assert_eq(why.slot_from, 1);
  cr_assert_eq(why.iq_bound, 0);
  cr_assert_eq(why.iq_from, 0);
  /* the latest record of an issue cycle, 0 where none the past knows */
  const ic_rec_past past = {(const char *)t, sizeof *t, 4, UINT64_MAX, 4};
  cr_assert_eq(ic_rec_issued(&past, 5), 3);
  cr_assert_eq(ic_rec_issued(&past, 9), 1);
  cr_assert_eq(ic_rec_issued(&past, 8), 0);
  const ic_rec_past near = {(const char *)t, sizeof *t, 4, UINT64_MAX, 2};
  cr_assert_eq(ic_rec_issued(&near, 5), 0);
  ic_rec_tabs_free(&tabs);
  ic_rec_tabs_free(&plain);
  tg_free(&g);
}

Test(rec_eval, check_names_what_misses_a_stamp) {
  tg g = {0};
  rules_in_turn(&g);
  tg_stamp(&g);
  ic_err err = {{0}};
  g.r[1].t[IC_NODE_E] = 4;
  cr_assert_str_eq(check(&g, &err), "graph check: seq 1 pc 0x0: RE edge (dist 0) demands E = 5 > stamp 4");
  g.r[1].t[IC_NODE_E] = 5;
  g.r[1].t[IC_NODE_C] = 7;
  cr_assert_str_eq(check(&g, &err), "graph check: seq 1 pc 0x0: node C replays to 6, stamp 7");
  g.r[1].t[IC_NODE_C] = 6;
  g.r[2].nedges = 4; /* no PC, CC: C has no in-edge */
  cr_assert_str_eq(check(&g, &err), "graph check: seq 2 pc 0x0: node C replays to 0, stamp 9 (no in-edge)");
  tg_free(&g);
  /* the IQ rule (one entry): r1 dispatches once r0 issues, at 6 */
  for (int i = 0; i < 2; i++) inst(&g, IC_OP_INT_ALU, 1 - i, 5, 1, NONE)->iq = 1;
  tg_stamp(&g);
  cr_assert_eq(g.r[1].t[IC_NODE_D], 6);
  cr_assert_str_eq(check(&g, &err), "OK");
  g.r[1].t[IC_NODE_D] = 1;
  cr_assert_str_eq(check(&g, &err), "graph check: seq 1 pc 0x0: the IQ rule demands D = 6 > stamp 1");
  tg_free(&g);
}
