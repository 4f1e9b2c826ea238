/* slack.c: windowed slack and per-pc criticality over a stream of graph
 * records. The meaning of every number is in slack.h.
 *
 * The forward pass evaluates each record in the contract's one order
 * (model/rec_eval.h, ic_rec_eval_why) over the arrival ring, and turns
 * what bound each node into edges for the backward pass: an IW edge that
 * did not hold is off, and a rule that moved its node becomes an edge from
 * the instruction that gave the time.
 *
 * Layout: rec[] and req[] are rings indexed by seq & (cap - 1) holding the
 * current window [win_start, next_seq); rec[] keeps only what the backward
 * pass and the statistics need (crec: each edge as distance, nodes and
 * latency under the idealization, sorted by destination node so that the
 * backward pass walks them in reverse order, with no per-node scan).
 * arr[] is a larger ring of forward-pass arrival times indexed by
 * seq & (acap - 1), so edges reaching back past the window still find their
 * source. Static pcs live in an open-addressing hash table that doubles at
 * half load. */
#include "slack.h"

#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "rec_eval.h"

#define NO_EDGE 0xff /* a crec's rule edge index where the record has no such rule */

typedef struct cedge {
  uint64_t lat;   /* latency under the idealization: sum of the parts kept */
  uint32_t dist;  /* source = seq - dist; a rule's edge: set by the forward pass */
  uint8_t sn, dn; /* source and destination node */
  uint8_t k;      /* index of the edge in its record (IW edges: ic_rec_why's bit) */
} cedge;

/* A record reduced to what the backward pass and the statistics need. */
typedef struct crec {
  uint64_t pc;
  uint8_t opclass, nedges;
  uint8_t has_ep;
  uint8_t npd;         /* PD edges from the previous instruction */
  uint8_t iq_j, slot_j, mshr_j; /* e[] index of the IQ, slot and MSHR rules' edges (NO_EDGE: none) */
  uint32_t iw;         /* bit j: e[j] is an IW edge */
  uint32_t iw_off;     /* bit j: e[j] is an IW edge whose condition failed, or a
                          rule's edge where the rule did not delay its node
                          (set by the forward pass) */
  uint32_t max_dist;   /* the largest dist of e[] */
  uint64_t ep_lat, ep_miss; /* latency and dmiss cycles of its EP edge */
  uint64_t pd_lat[2];  /* latencies of the first two such PD edges (the model emits one) */
  cedge e[IC_MAX_EDGES + 3]; /* + the rules' */
} crec;

typedef struct pc_slot {
  ic_slack_pc st;
  uint8_t used;
} pc_slot;

struct ic_slack {
  uint32_t window, half;
  ic_catmask ideal;
  uint64_t cap, acap; /* powers of two */
  crec *rec;
  uint64_t (*req)[IC_NODE_COUNT];
  uint64_t (*arr)[IC_NODE_COUNT];
  ic_rec_tabs tabs;   /* the rules' tables (rec_eval.h), forward pass */
  int oom;            /* the rules' tables ran out of memory */
  int started, finished;
  uint64_t first_seq, next_seq, win_start;
  pc_slot *pcs;
  uint64_t pcs_cap;
  ic_slack_totals tot;
  ic_slack_observer obs;
  void *obs_ctx;
};

static uint64_t pow2_at_least(uint64_t x) {
  uint64_t p = 1;
  while (p < x) p <<= 1;
  return p;
}

ic_status ic_slack_create(ic_slack **out, uint32_t window, ic_err *err) {
  *out = NULL;
  if (window == 0) window = IC_SLACK_DEFAULT_WINDOW;
  if (window < IC_SLACK_MIN_WINDOW || window > IC_SLACK_MAX_WINDOW)
    return ic_fail(err, IC_EINPUT, "slack window %u: must be between %u and %u records", window,
                   IC_SLACK_MIN_WINDOW, IC_SLACK_MAX_WINDOW);
  ic_slack *s = calloc(1, sizeof *s);
  if (!s) return ic_fail(err, IC_ERUN, "slack: out of memory");
  s->window = window;
  s->half = window / 2;
  s->cap = pow2_at_least(window);
  uint64_t reach = (uint64_t)window * IC_SLACK_REACH_FACTOR;
  s->acap = pow2_at_least(reach > IC_SLACK_MIN_REACH ? reach : IC_SLACK_MIN_REACH);
  s->pcs_cap = 1024;
  s->rec = malloc(s->cap * sizeof *s->rec);
  s->req = malloc(s->cap * sizeof *s->req);
  s->arr = malloc(s->acap * sizeof *s->arr);
  s->pcs = calloc(s->pcs_cap, sizeof *s->pcs);
  if (!s->rec || !s->req || !s->arr || !s->pcs) {
    ic_slack_destroy(s);
    return ic_fail(err, IC_ERUN, "slack: out of memory for a window of %u records", window);
  }
  *out = s;
  return IC_OK;
}

void ic_slack_destroy(ic_slack *s) {
  if (!s) return;
  free(s->rec);
  free(s->req);
  free(s->arr);
  ic_rec_tabs_free(&s->tabs);
  free(s->pcs);
  free(s);
}

ic_status ic_slack_set_ideal(ic_slack *s, ic_catmask ideal, ic_err *err) {
  if (s->started) return ic_fail(err, IC_EINPUT, "slack: the idealization must be set before the first record");
  if (ideal >> IC_CAT_COUNT) return ic_fail(err, IC_EINPUT, "slack: idealization mask %#x names no category", ideal);
  s->ideal = ideal;
  return IC_OK;
}

void ic_slack_set_observer(ic_slack *s, ic_slack_observer fn, void *ctx) {
  s->obs = fn;
  s->obs_ctx = ctx;
}

uint32_t ic_slack_window(const ic_slack *s) { return s->window; }

const ic_slack_totals *ic_slack_get_totals(const ic_slack *s) { return &s->tot; }

static uint64_t hash_pc(uint64_t pc) {
  pc ^= pc >> 33;
  pc *= 0xff51afd7ed558ccdULL;
  pc ^= pc >> 33;
  return pc;
}

static pc_slot *pc_find(pc_slot *tab, uint64_t cap, uint64_t pc) {
  uint64_t i = hash_pc(pc) & (cap - 1);
  while (tab[i].used && tab[i].st.pc != pc) i = (i + 1) & (cap - 1);
  return &tab[i];
}

static ic_status pc_get(ic_slack *s, uint64_t pc, ic_slack_pc **out, ic_err *err) {
  pc_slot *e = pc_find(s->pcs, s->pcs_cap, pc);
  if (!e->used) {
    if (2 * (s->tot.static_pcs + 1) > s->pcs_cap) {
      uint64_t ncap = s->pcs_cap * 2;
      pc_slot *nt = calloc(ncap, sizeof *nt);
      if (!nt) return ic_fail(err, IC_ERUN, "slack: out of memory for %llu static pcs",
                              (unsigned long long)s->tot.static_pcs);
      for (uint64_t i = 0; i < s->pcs_cap; i++)
        if (s->pcs[i].used) *pc_find(nt, ncap, s->pcs[i].st.pc) = s->pcs[i];
      free(s->pcs);
      s->pcs = nt;
      s->pcs_cap = ncap;
      e = pc_find(s->pcs, s->pcs_cap, pc);
    }
    e->used = 1;
    e->st.pc = pc;
    s->tot.static_pcs++;
  }
  *out = &e->st;
  return IC_OK;
}

/* Checks a record (ic_graph_rec_check) and reduces it to c, edges sorted by
 * destination node, the rules' edges after their node's other edges. A
 * malformed record fails with IC_EINPUT and leaves the stream where it
 * was. */
static ic_status compact(const ic_slack *s, const ic_graph_rec *r, crec *c, ic_err *err) {
  unsigned long long seq = (unsigned long long)r->seq;
  if (s->started && r->seq != s->next_seq)
    return ic_fail(err, IC_EINPUT, "graph record seq %llu: expected seq %llu", seq,
                   (unsigned long long)s->next_seq);
  ic_status st = ic_graph_rec_check(r, err);
  if (st != IC_OK) return st;
  const ic_catmask rules = ic_rec_rules_mask(r, s->ideal);
  uint64_t lat[IC_MAX_EDGES];
  uint8_t keep[IC_MAX_EDGES];
  int cnt[IC_NODE_COUNT + 1] = {0};
  c->pc = r->pc;
  c->opclass = r->opclass;
  c->has_ep = c->npd = 0;
  for (int j = 0; j < r->nedges; j++) {
    const ic_edge *e = &r->edge[j];
    uint64_t l = 0, miss = 0;
    for (int p = 0; p < e->nparts; p++) {
      uint8_t cat = e->part[p].cat;
      if (ic_cat_idealized(s->ideal, cat)) continue; /* idealized away */
      l += e->part[p].cycles;
      if (cat != IC_CAT_NONE && ic_cat_base(cat) == IC_CAT_DMISS) miss += e->part[p].cycles;
    }
    lat[j] = l;
    keep[j] = !dg_edge_dropped(e, rules);
    if (!keep[j]) continue;
    cnt[ic_edge_dst_node[e->kind] + 1]++;
    if (e->kind == IC_EDGE_EP && e->dist == 0 && !c->has_ep) {
      c->has_ep = 1;
      c->ep_lat = l;
      c->ep_miss = miss;
    }
    if (e->kind == IC_EDGE_PD && e->dist == 1 && c->npd < 2) c->pd_lat[c->npd++] = l;
  }
  /* the rules' edges, each after its node's other edges; the forward pass
     sets their dist where the rule delayed the node */
  const uint32_t qk = dg_iq_rule(r, s->ideal);
  int nw, np;
  const int slot = dg_slot_counts(r, s->ideal, &nw, &np);
  const int mk = dg_mshr_rule(r, rules);
  if (qk) cnt[IC_NODE_D + 1]++;
  cnt[IC_NODE_E + 1] += (slot != 0) + (mk != 0);
  for (int k = 0; k < IC_NODE_COUNT; k++) cnt[k + 1] += cnt[k];
  c->nedges = (uint8_t)cnt[IC_NODE_COUNT];
  c->iw = 0;
  c->max_dist = 0;
  for (int j = 0; j < r->nedges; j++) {
    const ic_edge *e = &r->edge[j];
    if (!keep[j]) continue;
    const uint8_t dn = ic_edge_dst_node[e->kind];
    uint64_t dist = dg_edge_dist(e, s->ideal);
    if (dist > UINT32_MAX) dist = UINT32_MAX; /* beyond any reach: time 0 */
    if (dist > c->max_dist) c->max_dist = (uint32_t)dist;
    if (e->kind == IC_EDGE_IW) c->iw |= 1u << cnt[dn];
    c->e[cnt[dn]++] = (cedge){.lat = lat[j], .dist = (uint32_t)dist, .sn = ic_edge_src_node[e->kind], .dn = dn,
                              .k = (uint8_t)j};
  }
  c->iq_j = c->slot_j = c->mshr_j = NO_EDGE;
  if (qk) {
    c->iq_j = (uint8_t)cnt[IC_NODE_D];
    c->e[cnt[IC_NODE_D]++] = (cedge){.lat = 0, .dist = 0, .sn = IC_NODE_E, .dn = IC_NODE_D, .k = NO_EDGE};
  }
  if (slot) {
    c->slot_j = (uint8_t)cnt[IC_NODE_E];
    c->e[cnt[IC_NODE_E]++] = (cedge){.lat = 1, .dist = 0, .sn = IC_NODE_E, .dn = IC_NODE_E, .k = NO_EDGE};
  }
  if (mk) {
    c->mshr_j = (uint8_t)cnt[IC_NODE_E];
    c->e[cnt[IC_NODE_E]++] = (cedge){.lat = 0, .dist = 0, .sn = IC_NODE_P, .dn = IC_NODE_E, .k = NO_EDGE};
  }
  return IC_OK;
}

/* Rule edge j of c (NO_EDGE: none) from the record `dist` back; off where
 * dist is 0 (the rule did not move its node). */
static void rule_edge(crec *c, uint8_t j, uint64_t dist) {
  if (j == NO_EDGE) return;
  if (dist) c->e[j].dist = (uint32_t)dist;
  else c->iw_off |= 1u << j;
}

/* Forward pass of one record: its times (ic_rec_eval_why, over the
 * arrival ring) into the ring, and from what bound them the edges of c the
 * backward pass walks: the IW edges that did not hold are off; each rule's
 * edge is off where the rule did not move its node, else from where its
 * (last) move came (ic_rec_why's *_from): the IQ rule's from the E of an
 * instruction whose issue is the bound (latency 0), the MSHR rule's from
 * the P of the holder whose completion gave E (latency 0), the slot rule's
 * from the E of an instruction of the full cycle just before (latency 1).
 * A source the ring no longer holds leaves the rule's edge off. */
static void forward(ic_slack *s, crec *c, const ic_graph_rec *r) {
  uint64_t oldest = s->next_seq >= s->acap ? s->next_seq - s->acap + 1 : 0;
  if (oldest < s->first_seq) oldest = s->first_seq;
  const uint64_t known = r->seq - oldest; /* sources further back: time 0 */
  if (c->max_dist > known) /* count those beyond the ring but not before the first record */
    for (int j = 0; j < c->nedges; j++)
      if (c->e[j].dist > known && c->e[j].dist <= r->seq - s->first_seq) s->tot.unreached_edges++;
  const ic_rec_past past = {(const char *)s->arr, sizeof *s->arr, r->seq, s->acap - 1, known};
  uint64_t *a = s->arr[r->seq & (s->acap - 1)];
  ic_rec_why why;
  if (ic_rec_eval_why(r, s->ideal, &past, &s->tabs, a, NULL, &why) != IC_REC_OK ||
      ic_rec_take(r, s->ideal, &s->tabs, a) != IC_REC_OK) {
    s->oom = 1;
    return;
  }
  c->iw_off = 0;
  for (uint32_t m = c->iw; m; m &= m - 1) {
    const int j = __builtin_ctz(m);
    if (!(why.iw_held >> c->e[j].k & 1u)) c->iw_off |= 1u << j;
  }
  rule_edge(c, c->iq_j, why.iq_from);
  rule_edge(c, c->mshr_j, why.mshr_from);
  rule_edge(c, c->slot_j, why.slot_from);
  if (!s->ideal) /* the stamps are the baseline's */
    for (int k = 0; k < IC_NODE_COUNT; k++)
      if (a[k] != r->t[k]) s->tot.stamp_mismatches++;
  s->tot.cycles = a[IC_NODE_C];
}

static int edge_tight(const uint64_t *as, const uint64_t *ss, int sn, const uint64_t *ad, const uint64_t *sd,
                      int dn, uint64_t lat) {
  return ss[sn] == 0 && sd[dn] == 0 && as[sn] + lat == ad[dn];
}

/* Backward pass over [s->win_start, end); reports the first nrep records. */
static ic_status backward(ic_slack *s, uint64_t end, uint64_t nrep, ic_err *err) {
  uint64_t beg = s->win_start, cm = s->cap - 1, am = s->acap - 1;
  /* T: the window's last commit, i.e. its latest node (commit is in order
   * through the CC chain); the max keeps req >= arr even for records
   * without that chain, so nothing below can wrap */
  uint64_t T = 0;
  for (uint64_t i = beg; i < end; i++)
    for (int k = 0; k < IC_NODE_COUNT; k++)
      if (s->arr[i & am][k] > T) T = s->arr[i & am][k];
  for (uint64_t i = beg; i < end; i++)
    for (int k = 0; k < IC_NODE_COUNT; k++) s->req[i & cm][k] = T;
  /* Records in reverse, edges in reverse (destination C first): a node's
   * required time is final before its own in-edges are relaxed. */
  for (uint64_t i = end; i-- > beg;) {
    const crec *c = &s->rec[i & cm];
    const uint64_t *rq = s->req[i & cm];
    for (int j = c->nedges; j-- > 0;) {
      const cedge *e = &c->e[j];
      if (e->dist > i - beg) continue;
      if (c->iw_off >> j & 1) continue; /* an IW edge that did not hold */
      uint64_t *q = &s->req[(i - e->dist) & cm][e->sn];
      /* rq >= arr(dst) >= arr(src) + lat, so this cannot wrap. */
      if (rq[e->dn] - e->lat < *q) *q = rq[e->dn] - e->lat;
    }
  }
  s->tot.windows++;
  for (uint64_t i = beg; i < beg + nrep; i++) {
    const crec *r = &s->rec[i & cm];
    const uint64_t *a = s->arr[i & am];
    uint64_t sl[IC_NODE_COUNT];
    for (int k = 0; k < IC_NODE_COUNT; k++) sl[k] = s->req[i & cm][k] - a[k];
    ic_slack_pc *st = NULL;
    ic_status rc = pc_get(s, r->pc, &st, err);
    if (rc != IC_OK) return rc;
    st->opclass = r->opclass;
    st->count++;
    s->tot.instructions++;
    for (int k = 0; k < IC_NODE_COUNT; k++)
      if (sl[k] == 0) {
        st->crit[k]++;
        s->tot.crit[k]++;
      }
    st->slack_sum += sl[IC_NODE_E];
    s->tot.slack_sum += sl[IC_NODE_E];
    if (r->has_ep && r->ep_miss) {
      uint64_t miss = r->ep_miss;
      st->miss_cycles += miss;
      s->tot.miss_cycles += miss;
      if (edge_tight(a, sl, IC_NODE_E, a, sl, IC_NODE_P, r->ep_lat)) {
        st->crit_miss_cycles += miss;
        st->crit_miss_count++;
        s->tot.crit_miss_cycles += miss;
      }
    }
    if (i + 1 < end) { /* PD edges out of this instruction live in the next record */
      const crec *n = &s->rec[(i + 1) & cm];
      const uint64_t *an = s->arr[(i + 1) & am];
      uint64_t sn[IC_NODE_COUNT];
      for (int k = 0; k < IC_NODE_COUNT; k++) sn[k] = s->req[(i + 1) & cm][k] - an[k];
      for (int j = 0; j < n->npd; j++) {
        uint64_t lat = n->pd_lat[j];
        st->misp_count++;
        st->misp_cycles += lat;
        s->tot.misp_count++;
        s->tot.misp_cycles += lat;
        if (edge_tight(a, sl, IC_NODE_P, an, sn, IC_NODE_D, lat)) {
          st->crit_misp_cycles += lat;
          st->crit_misp_count++;
          s->tot.crit_misp_cycles += lat;
          s->tot.crit_misp_count++;
        }
      }
    }
    if (s->obs) s->obs(s->obs_ctx, i, r->pc, a, sl);
  }
  s->win_start = beg + nrep;
  return IC_OK;
}

ic_status ic_slack_consume(ic_slack *s, const ic_graph_rec *recs, size_t n, ic_err *err) {
  if (s->finished && n) return ic_fail(err, IC_EINPUT, "slack: records after the end of the stream");
  for (size_t i = 0; i < n; i++) {
    const ic_graph_rec *r = &recs[i];
    crec *c = &s->rec[r->seq & (s->cap - 1)];
    ic_status rc = compact(s, r, c, err);
    if (rc != IC_OK) return rc;
    if (!s->started) {
      s->started = 1;
      s->first_seq = s->next_seq = s->win_start = r->seq;
    }
    forward(s, c, r);
    if (s->oom) return ic_fail(err, IC_ERUN, "slack: out of memory (slot counts, MSHR holders, IQ rule)");
    s->next_seq = r->seq + 1;
    if (s->next_seq - s->win_start == s->window) {
      rc = backward(s, s->next_seq, s->half ? s->half : 1, err);
      if (rc != IC_OK) return rc;
    }
  }
  return IC_OK;
}

static ic_status sink_consume(void *ctx, const ic_graph_rec *recs, size_t n, ic_err *err) {
  return ic_slack_consume(ctx, recs, n, err);
}

ic_graph_sink ic_slack_sink(ic_slack *s) { return (ic_graph_sink){.ctx = s, .consume = sink_consume}; }

ic_status ic_slack_finish(ic_slack *s, ic_err *err) {
  if (s->finished) return IC_OK;
  s->finished = 1;
  if (!s->started || s->next_seq == s->win_start) return IC_OK;
  return backward(s, s->next_seq, s->next_seq - s->win_start, err);
}

static uint64_t pc_cost(const ic_slack_pc *p) { return p->crit_miss_cycles + p->crit_misp_cycles; }

static int cmp_cost(const void *a, const void *b) {
  const ic_slack_pc *x = a, *y = b;
  uint64_t cx = pc_cost(x), cy = pc_cost(y);
  if (cx != cy) return cx > cy ? -1 : 1;
  if (x->crit[IC_NODE_E] != y->crit[IC_NODE_E]) return x->crit[IC_NODE_E] > y->crit[IC_NODE_E] ? -1 : 1;
  return x->pc < y->pc ? -1 : x->pc > y->pc;
}

static int cmp_pc(const void *a, const void *b) {
  const ic_slack_pc *x = a, *y = b;
  return x->pc < y->pc ? -1 : x->pc > y->pc;
}

ic_status ic_slack_table(const ic_slack *s, ic_slack_order order, ic_slack_pc **out, size_t *n, ic_err *err) {
  *out = NULL;
  *n = 0;
  size_t np = (size_t)s->tot.static_pcs;
  ic_slack_pc *t = malloc((np ? np : 1) * sizeof *t);
  if (!t) return ic_fail(err, IC_ERUN, "slack: out of memory for the table of %zu pcs", np);
  size_t k = 0;
  for (uint64_t i = 0; i < s->pcs_cap; i++)
    if (s->pcs[i].used) t[k++] = s->pcs[i].st;
  qsort(t, k, sizeof *t, order == IC_SLACK_BY_PC ? cmp_pc : cmp_cost);
  *out = t;
  *n = k;
  return IC_OK;
}
