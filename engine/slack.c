/* slack.c: windowed slack and per-pc criticality over a stream of graph
 * records. The meaning of every number is in slack.h.
 *
 * Layout: rec[] and req[] are rings indexed by seq & (cap - 1) holding the
 * current window [win_start, next_seq); rec[] keeps only what the passes and
 * the statistics need (crec: each edge as distance, nodes and baseline
 * latency, sorted by destination node so that the forward pass walks them
 * in order and the backward pass in reverse order, with no per-node scan).
 * arr[] is a larger ring of forward-pass arrival times indexed by
 * seq & (acap - 1), so edges reaching back past the window still find their
 * source. Static pcs live in an open-addressing hash table that doubles at
 * half load. */
#include "slack.h"

#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "ooo.h"
#include "iq_tab.h"
#include "mshr_tab.h"
#include "rules.h"
#include "slot_tab.h"

typedef struct cedge {
  uint64_t lat;  /* baseline latency: sum of all parts */
  uint32_t dist; /* source = seq - dist */
  uint8_t sn, dn; /* source and destination node */
  uint8_t iw;     /* an IW edge: only where its condition holds (graph_rec.h);
                     the rules' edges, whose dist the forward pass sets where
                     the rule delayed the node: 2 the slot rule's (from the E
                     of an instruction of the full cycle before, latency 1),
                     3 the MSHR rule's (from the P of the holder whose
                     completion gave E, latency 0), 4 the IQ rule's (from the
                     E of the instruction whose issue gave D, latency 0) */
} cedge;

/* A record reduced to what slack needs. */
typedef struct crec {
  uint64_t pc;
  uint8_t opclass, nedges;
  uint8_t has_ep;
  uint8_t npd;         /* PD edges from the previous instruction */
  uint32_t iw_off;     /* bit j: e[j] is an IW edge whose condition failed, or a
                          rule's edge where the rule did not delay its node
                          (forward) */
  uint8_t slot_w, slot_p; /* the slot rule's counts (graph_rec.h, IW; 0: none) */
  uint8_t mk;          /* the MSHR rule's MSHRs (graph_rec.h, MSHR; 0: none) */
  uint32_t iq;         /* the IQ rule's size (graph_rec.h, IQ RULE; 0: none) */
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
  ic_slot_tab slots;  /* the slot rule's counts (slot_tab.h), forward pass */
  ic_mshr_tab holds;  /* the MSHR rule's holders (mshr_tab.h), forward pass */
  ic_iq_tab iqt;      /* the IQ rule's E's (iq_tab.h), forward pass */
  int oom;            /* the slot counts or the holders ran out of memory */
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
  ic_slot_tab_free(&s->slots);
  ic_mshr_tab_free(&s->holds);
  ic_iq_tab_free(&s->iqt);
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
 * destination node. A malformed record fails with IC_EINPUT and leaves the
 * stream where it was. */
static ic_status compact(const ic_slack *s, const ic_graph_rec *r, crec *c, ic_err *err) {
  unsigned long long seq = (unsigned long long)r->seq;
  if (s->started && r->seq != s->next_seq)
    return ic_fail(err, IC_EINPUT, "graph record seq %llu: expected seq %llu", seq,
                   (unsigned long long)s->next_seq);
  ic_status st = ic_graph_rec_check(r, err);
  if (st != IC_OK) return st;
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
    keep[j] = !dg_edge_dropped(e, ic_rec_rules_mask(r, s->ideal));
    if (!keep[j]) continue;
    cnt[ic_edge_dst_node[e->kind] + 1]++;
    if (e->kind == IC_EDGE_EP && e->dist == 0 && !c->has_ep) {
      c->has_ep = 1;
      c->ep_lat = l;
      c->ep_miss = miss;
    }
    if (e->kind == IC_EDGE_PD && e->dist == 1 && c->npd < 2) c->pd_lat[c->npd++] = l;
  }
  /* the rules' edges (iw 2, 3, 4), each after its node's other edges; the
     forward pass sets their dist where the rule delayed the node */
  const uint32_t qk = dg_iq_rule(r, s->ideal);
  int nw, np;
  const int slot = dg_slot_counts(r, s->ideal, &nw, &np);
  const int mk = dg_mshr_rule(r, ic_rec_rules_mask(r, s->ideal));
  if (qk) cnt[IC_NODE_D + 1]++;
  cnt[IC_NODE_E + 1] += (slot != 0) + (mk != 0);
  for (int k = 0; k < IC_NODE_COUNT; k++) cnt[k + 1] += cnt[k];
  c->nedges = (uint8_t)cnt[IC_NODE_COUNT];
  /* by destination node, and IW edges after the other edges into E: their
   * condition reads the time those give */
  for (int q = 0; q < 2 * r->nedges; q++) {
    const int j = q % r->nedges;
    const ic_edge *e = &r->edge[j];
    if (!keep[j] || (e->kind == IC_EDGE_IW) != (q >= r->nedges)) continue;
    uint8_t dn = ic_edge_dst_node[e->kind];
    uint64_t dist = dg_edge_dist(e, s->ideal);
    if (dist > UINT32_MAX) dist = UINT32_MAX; /* beyond any reach: time 0 */
    c->e[cnt[dn]++] = (cedge){.lat = lat[j], .dist = (uint32_t)dist, .sn = ic_edge_src_node[e->kind], .dn = dn,
                              .iw = (uint8_t)(e->kind == IC_EDGE_IW)};
  }
  if (qk) c->e[cnt[IC_NODE_D]++] = (cedge){.lat = 0, .dist = 0, .sn = IC_NODE_E, .dn = IC_NODE_D, .iw = 4};
  if (slot) c->e[cnt[IC_NODE_E]++] = (cedge){.lat = 1, .dist = 0, .sn = IC_NODE_E, .dn = IC_NODE_E, .iw = 2};
  if (mk) c->e[cnt[IC_NODE_E]++] = (cedge){.lat = 0, .dist = 0, .sn = IC_NODE_P, .dn = IC_NODE_E, .iw = 3};
  c->iq = qk;
  c->slot_w = (uint8_t)nw;
  c->slot_p = (uint8_t)np;
  c->mk = (uint8_t)mk;
  return IC_OK;
}

/* Forward pass of one record: its arrival times into the arrival ring.
 * Edges are sorted by destination node and an edge of distance 0 goes to a
 * later node, so its source is final when it is read. */
/* The MSHR rule and the slot rule (graph_rec.h, MSHR and IW) on E time
 * a[IC_NODE_E] of record r, whose D is final in a, together (rules.h):
 * each in turn until neither moves it. The MSHR rule delays it until fewer
 * than its count of the earlier holders hold an MSHR (mshr_tab.h); the
 * slot rule past the cycles the earlier records fill (slot_tab.h). Each
 * rule that moved E turns its edge on, from where its last move came: the
 * MSHR edge from the P of the holder whose completion gave that time
 * (latency 0), the slot rule's edge from a record of the full cycle
 * just before it (latency 1); the rules that did not move it leave their
 * edges off. E is the larger of the two, which is the last move. */
static void slot_rule(ic_slack *s, crec *c, const ic_graph_rec *r, uint64_t oldest, uint64_t *a) {
  const int slot = (c->slot_w | c->slot_p) != 0;
  if (c->mk) ic_mshr_tab_floor(&s->holds, a[IC_NODE_D]);
  if (slot) ic_slot_tab_floor(&s->slots, a[IC_NODE_D]);
  uint64_t msrc, st;
  const uint64_t t = ic_rules_time(&s->holds, c->mk, &s->slots, slot, c->slot_w, c->slot_p,
                                   ooo_pool_of(r->opclass), a[IC_NODE_E], &msrc, &st);
  if (msrc >= oldest && msrc < r->seq)
    for (int j = 0; j < c->nedges; j++)
      if (c->e[j].iw == 3) {
        c->e[j].dist = (uint32_t)(r->seq - msrc);
        c->iw_off &= ~(1u << j);
        break;
      }
  if (st)
    for (int j = 0; j < c->nedges; j++)
      if (c->e[j].iw == 2) {
        for (uint64_t q = r->seq; q-- > oldest;)
          if (s->arr[q & (s->acap - 1)][IC_NODE_E] == st - 1) {
            c->e[j].dist = (uint32_t)(r->seq - q);
            c->iw_off &= ~(1u << j);
            break;
          }
        break;
      }
  a[IC_NODE_E] = t;
}

static void forward(ic_slack *s, crec *c, const ic_graph_rec *r) {
  uint64_t a[IC_NODE_COUNT] = {0}, eprime = UINT64_MAX;
  c->iw_off = 0;
  uint64_t oldest = s->next_seq >= s->acap ? s->next_seq - s->acap + 1 : 0;
  if (oldest < s->first_seq) oldest = s->first_seq;
  int slot_done = !(c->slot_w | c->slot_p | c->mk);
  for (int j = 0; j < c->nedges; j++) {
    const cedge *e = &c->e[j];
    uint64_t src;
    if (!slot_done && e->dn > IC_NODE_E) {
      slot_rule(s, c, r, oldest, a);
      slot_done = 1;
    }
    if (e->iw == 4) { /* the IQ rule, after D's other edges: an edge from the E that gave D */
      c->iw_off |= (1u << j);
      if (s->iqt.k != c->iq && ic_iq_tab_reset(&s->iqt, c->iq) != 0) {
        s->oom = 1;
        continue;
      }
      const uint64_t b = ic_iq_tab_bound(&s->iqt);
      if (b > a[IC_NODE_D]) {
        a[IC_NODE_D] = b;
        for (uint64_t q = r->seq; q-- > oldest;) /* an instruction whose issue is the bound */
          if (s->arr[q & (s->acap - 1)][IC_NODE_E] == b) {
            c->e[j].dist = (uint32_t)(r->seq - q);
            c->iw_off &= ~(1u << j);
            break;
          }
      }
      continue;
    }
    if (e->iw >= 2) { /* the slot rule and the MSHR rule: where E's edges end */
      c->iw_off |= (1u << j);
      continue;
    }
    if (e->iw && eprime == UINT64_MAX) eprime = a[IC_NODE_E]; /* E from the other edges */
    if (e->dist == 0) {
      src = a[e->sn];
    } else if (e->dist > r->seq || r->seq - e->dist < s->first_seq) {
      src = 0; /* before the first record */
    } else if (r->seq - e->dist < oldest) {
      src = 0;
      s->tot.unreached_edges++;
    } else {
      const uint64_t *as = s->arr[(r->seq - e->dist) & (s->acap - 1)];
      if (e->iw && as[IC_NODE_R] > eprime) { /* not ready when i could issue */
        c->iw_off |= (1u << j);
        continue;
      }
      src = as[e->sn];
    }
    if (src + e->lat > a[e->dn]) a[e->dn] = src + e->lat;
  }
  if (!slot_done) slot_rule(s, c, r, oldest, a);
  if (dg_slot_rule_applies(s->ideal)) {
    ic_slot_tab_floor(&s->slots, a[IC_NODE_D]);
    if (ic_slot_tab_add(&s->slots, a[IC_NODE_E], ooo_pool_of(r->opclass)) != 0) s->oom = 1;
  }
  if (c->mk && ic_mshr_tab_add(&s->holds, a[IC_NODE_E], a[IC_NODE_P], r->seq) != 0) s->oom = 1;
  if (c->iq && ic_iq_tab_add(&s->iqt, a[IC_NODE_E]) != 0) s->oom = 1;
  if (!s->ideal) /* the stamps are the baseline's */
    for (int k = 0; k < IC_NODE_COUNT; k++)
      if (a[k] != r->t[k]) s->tot.stamp_mismatches++;
  memcpy(s->arr[r->seq & (s->acap - 1)], a, sizeof a);
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
