/* graph.c: the one-subset reference forward pass (graph.h). */
#include "graph.h"

#include <stdlib.h>

#include "rec_eval.h"

/* The earlier records' times for recs[i], in the node times nt
 * (ic_graph_eval's layout): every record of the array is visible. */
static ic_rec_past past_of(const uint64_t *nt, size_t i) {
  return (ic_rec_past){(const char *)nt, IC_NODE_COUNT * sizeof *nt, i, UINT64_MAX, i};
}

/* The reference pass, with what bound each record's nodes to why[] where
 * why is not NULL: inlined into each caller, so that ic_graph_eval keeps
 * none of why's work. */
static inline __attribute__((always_inline)) ic_status
eval_pass(const ic_graph_rec *recs, size_t n, ic_catmask ideal, uint64_t *node_t, ic_rec_why *why,
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
    ic_rec_status rs = ic_rec_eval_why(r, ideal, &past, &tabs, t, NULL, why ? &why[i] : NULL);
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

ic_status ic_graph_eval(const ic_graph_rec *recs, size_t n, ic_catmask ideal, uint64_t *node_t,
                        uint64_t *t_out, ic_err *err) {
  return eval_pass(recs, n, ideal, node_t, NULL, t_out, err);
}

ic_status ic_graph_eval_why(const ic_graph_rec *recs, size_t n, ic_catmask ideal, uint64_t *node_t,
                            ic_rec_why *why, uint64_t *t_out, ic_err *err) {
  return eval_pass(recs, n, ideal, node_t, why, t_out, err);
}
