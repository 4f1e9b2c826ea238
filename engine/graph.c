/* graph.c: the one-subset reference forward pass and the rules' helpers
 * (graph.h). */
#include "graph.h"

#include <stdlib.h>

#include "ooo.h"
#include "iq_tab.h"
#include "mshr_tab.h"
#include "rec_eval.h"

/* The earlier records' times for recs[i], in the node times nt
 * (ic_graph_eval's layout): every record of the array is visible. */
static ic_rec_past past_of(const uint64_t *nt, size_t i) {
  return (ic_rec_past){(const char *)nt, IC_NODE_COUNT * sizeof *nt, i, UINT64_MAX, i};
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
  ic_rec_tabs tabs = {0};
  for (size_t i = 0; i < n; i++) {
    const ic_graph_rec *r = &recs[i];
    if (r->seq != seq0 + i) {
      st = ic_fail(err, IC_EINPUT, "graph record %llu follows record %llu (sequence gap)",
                   (unsigned long long)r->seq, (unsigned long long)(seq0 + i - 1));
      break;
    }
    if ((st = dg_check_rec(r, err)) != IC_OK) break;
    uint64_t *t = &nt[i * IC_NODE_COUNT];
    const ic_rec_past past = past_of(nt, i);
    ic_rec_status rs = ic_rec_eval(r, ideal, &past, &tabs, t, NULL);
    if (rs == IC_REC_OK) rs = ic_rec_take(r, ideal, &tabs, t);
    if (rs != IC_REC_OK) {
      st = ic_fail(err, IC_ERUN, "graph evaluation: out of memory (%s)",
                   rs == IC_REC_EIQ ? "IQ rule" : "slot counts, MSHR holders");
      break;
    }
  }
  ic_rec_tabs_free(&tabs);
  if (st == IC_OK) *t_out = nt[(n - 1) * IC_NODE_COUNT + IC_NODE_C];
  if (!node_t) free(nt);
  return st;
}

/* E of recs[i] from its in-edges under `ideal`, in the node times nt:
 * without iw, E' from those other than IW; with iw, with the IW edges
 * that hold against E' too (the time the rules start from). */
static uint64_t e_from_other_edges(const ic_graph_rec *recs, size_t i, ic_catmask ideal,
                                   const uint64_t *nt, int iw) {
  const ic_graph_rec *r = &recs[i];
  const ic_rec_past past = past_of(nt, i);
  const ic_catmask rules = ic_rec_rules_mask(r, ideal);
  const uint64_t *self = &nt[i * IC_NODE_COUNT];
  return iw ? ic_rec_e_edges(r, ideal, rules, &past, self, NULL)
            : ic_rec_node_edges(r, IC_NODE_E, ideal, rules, &past, self);
}

/* D of recs[i] from its in-edges under `ideal`, in the node times nt. */
static uint64_t d_from_edges(const ic_graph_rec *recs, size_t i, ic_catmask ideal, const uint64_t *nt) {
  const ic_rec_past past = past_of(nt, i);
  return ic_rec_node_edges(&recs[i], IC_NODE_D, ideal, ic_rec_rules_mask(&recs[i], ideal), &past,
                           &nt[i * IC_NODE_COUNT]);
}

ic_status dg_rule_sources(const ic_graph_rec *recs, size_t n, ic_catmask ideal, const uint64_t *nt,
                          uint32_t *iq, uint32_t *ms, uint64_t *em, ic_err *err) {
  ic_iq_tab q = {0};
  ic_mshr_tab h = {0};
  ic_status st = IC_OK;
  for (size_t i = 0; i < n && st == IC_OK; i++) {
    const uint64_t *t = &nt[i * IC_NODE_COUNT];
    const uint32_t qk = dg_iq_rule(&recs[i], ideal);
    const int mk = dg_mshr_rule(&recs[i], ic_rec_rules_mask(&recs[i], ideal));
    iq[i] = ms[i] = 0;
    if (qk && qk != q.k && ic_iq_tab_reset(&q, qk) != 0) { /* as ic_rec_eval */
      st = ic_fail(err, IC_ERUN, "graph export: out of memory (IQ rule)");
      break;
    }
    /* the IQ rule gave D where its bound exceeds D's edges: an
       instruction whose issue is the bound */
    const uint64_t b = qk ? ic_iq_tab_bound(&q) : 0;
    if (b && b > d_from_edges(recs, i, ideal, nt))
      for (size_t j = i; j-- > 0;)
        if (nt[j * IC_NODE_COUNT + IC_NODE_E] == b) {
          iq[i] = (uint32_t)(i - j);
          break;
        }
    /* E from the in-edges, then the MSHR rule: the holder whose completion
       gave it where it delayed */
    em[i] = e_from_other_edges(recs, i, ideal, nt, 1);
    if (mk) {
      uint64_t src;
      ic_mshr_tab_floor(&h, t[IC_NODE_D]);
      const uint64_t v = ic_mshr_tab_time(&h, em[i], mk, &src);
      if (v > em[i] && src != UINT64_MAX) ms[i] = (uint32_t)(recs[i].seq - src);
      em[i] = v;
      /* with the slot rule in turn (rules.h), the MSHR rule may have moved
         E last, past where the slot rule took it: then from E - 1 it gives
         E, and its holder is the source */
      if (t[IC_NODE_E] > v && ic_mshr_tab_time(&h, t[IC_NODE_E] - 1, mk, &src) == t[IC_NODE_E] &&
          src != UINT64_MAX) {
        ms[i] = (uint32_t)(recs[i].seq - src);
        em[i] = t[IC_NODE_E];
      }
    }
    if ((qk && ic_iq_tab_add(&q, t[IC_NODE_E]) != 0) ||
        (mk && ic_mshr_tab_add(&h, t[IC_NODE_E], t[IC_NODE_P], recs[i].seq) != 0))
      st = ic_fail(err, IC_ERUN, "graph export: out of memory (IQ rule, MSHR holders)");
  }
  ic_iq_tab_free(&q);
  ic_mshr_tab_free(&h);
  return st;
}

int dg_iw_holds(const ic_graph_rec *recs, size_t i, const ic_edge *iw, ic_catmask ideal,
                const uint64_t *nt) {
  const ic_rec_past past = past_of(nt, i);
  return ic_rec_iw_holds(iw, ideal, &past, &nt[i * IC_NODE_COUNT], e_from_other_edges(recs, i, ideal, nt, 0));
}

uint64_t dg_slot_source(const ic_graph_rec *recs, size_t i, ic_catmask ideal, const uint64_t *nt,
                        uint64_t em) {
  const ic_graph_rec *r = &recs[i];
  int nw, np;
  if (!dg_slot_counts(r, ideal, &nw, &np)) return 0;
  const uint64_t t = nt[i * IC_NODE_COUNT + IC_NODE_E];
  if (t <= em) return 0;
  const int pool = ooo_pool_of(r->opclass);
  for (size_t j = i; j-- > 0;)
    if (nt[j * IC_NODE_COUNT + IC_NODE_E] == t - 1 &&
        (nw ? 1 : ooo_pool_of(recs[j].opclass) == pool))
      return i - j;
  return 0;
}
