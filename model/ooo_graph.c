/* ooo_graph.c: the core's graph hook. At commit, the record of an
 * instruction (graph_rec.h) is built from the per-instruction arrays the
 * stages kept (stamps, producers, latency parts, cause counters) into a
 * small batch that stays in cache, and handed to the sink every
 * FLUSH_EVERY commits. Where a node waited beyond all of its modelled
 * in-edges, the residual is attributed from per-instruction cause counters
 * (front-end gap cycles by cause, dispatch cycles blocked by a full window,
 * issue cycles blocked by FUs or MSHRs, commit cycles blocked by store
 * bandwidth), see attribute(). */
#include <assert.h>
#include <string.h>

#include "ooo_internal.h"

static inline void edge_add(ic_edge *e, uint8_t cat, uint64_t cyc) {
  if (!cyc) return;
  for (int k = 0; k < e->nparts; k++)
    if (e->part[k].cat == cat) {
      ic_part_add(&e->part[k], cyc);
      return;
    }
  if (e->nparts < IC_MAX_PARTS)
    ic_part_set(&e->part[e->nparts++], cyc, cat);
  else
    ic_part_add(&e->part[IC_MAX_PARTS - 1], cyc);
}

/* A cause budget for residual attribution. */
typedef struct budget {
  uint8_t cat;
  uint64_t cyc;
} budget;

/* A new edge at *cur with at most one part (none when cyc is 0). The
 * caller counts edges itself: a count kept in the record would be reloaded
 * after every byte store (uint8_t aliases everything). */
static inline ic_edge *edge1(ic_edge **cur, uint8_t kind, uint32_t dist, uint8_t cat, uint64_t cyc) {
  ic_edge *e = (*cur)++;
  /* the header and the first part as two wide stores; parts past nparts
   * are never read, so they are not cleared */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  _Static_assert(offsetof(ic_edge, nparts) == 1 && offsetof(ic_edge, flags) == 2 &&
                     offsetof(ic_edge, dist) == 4 && offsetof(ic_edge, part) == 8 &&
                     sizeof(ic_lat_part) == 4,
                 "edge header layout");
  /* the part's word: cycles in the low 24 bits (saturated), cat above */
  const uint64_t cy = cyc < IC_PART_MAX_CYCLES ? cyc : IC_PART_MAX_CYCLES;
  uint64_t w[2] = {kind | (uint64_t)(cyc != 0) << 8 | (uint64_t)dist << 32, cy | (uint64_t)cat << 24};
  memcpy(e, w, sizeof w);
#else
  e->kind = kind;
  e->nparts = cyc != 0;
  e->flags = 0;
  e->dist = dist;
  ic_part_set(&e->part[0], cyc, cat);
#endif
  return e;
}

/* Node `stamp` has in-edges e[0..n) whose source time + latency is v[];
 * e[io] is its in-order edge, from source time src_io. If the stamp exceeds
 * every edge, the residual is attributed: when the causes recorded for this
 * node cover the whole gap from the in-order edge, that edge is stretched to
 * the stamp with parts from the causes in priority order; otherwise the
 * residual is added to the binding edge, from the causes first and
 * IC_CAT_NONE for any rest. Returns the cycles no recorded cause covered. */
static uint64_t attribute(ic_edge *const *e, const uint64_t *v, int n, int io, uint64_t stamp,
                          const budget *b, int nb) {
  uint64_t m = v[io];
  int bind = io;
  for (int k = 0; k < n; k++)
    if (v[k] > m) m = v[k], bind = k;
  if (stamp <= m) return 0;
  uint64_t need = stamp - v[io];
  uint64_t have = 0;
  for (int k = 0; k < nb; k++) have += b[k].cyc;
  ic_edge *tgt = e[io];
  if (have < need) {
    need = stamp - m;
    tgt = e[bind];
  }
  for (int k = 0; k < nb && need; k++) {
    uint64_t take = b[k].cyc < need ? b[k].cyc : need;
    edge_add(tgt, b[k].cat, take);
    need -= take;
  }
  edge_add(tgt, IC_CAT_NONE, need);
  return need;
}

/* Largest of v[0..n). */
static inline uint64_t vmax(const uint64_t *v, int n) {
  uint64_t m = v[0];
  for (int k = 1; k < n; k++)
    if (v[k] > m) m = v[k];
  return m;
}

void ooo_graph_flush(ooo_core *c) {
  if (c->nbatch && c->sink_status == IC_OK) {
    if (c->scopes)
      for (size_t k = 0; k < c->nbatch; k++) {
        ic_scopes_tag(c->scopes, &c->batch[k], c->tag_prev_pc);
        c->tag_prev_pc = c->batch[k].pc;
      }
    c->sink_status = c->sink.consume(c->sink.ctx, c->batch, c->nbatch, &c->sink_err);
    if (c->sink.buffer && c->sink_status == IC_OK) c->batch = c->sink.buffer(c->sink.ctx, &c->batch_cap);
  }
  c->nbatch = 0;
}

/* Whether the slot rule (graph_rec.h, SLOT RULE) from cycle r gives
 * e > r for instruction i, from the issue log: every cycle of [r, e) has nw
 * issues of the instructions of the run before i (or np of those of i's
 * pool) and e has fewer. r is at least D(i), so the rule's floor (the
 * latest D) frees none of these cycles. Costs the issues of the wait's
 * cycles; where the log no longer holds one of them, the wait is not the
 * rule's (it stays a fixed RE part). */
static int slot_rule_gives(const ooo_core *c, uint64_t i, uint64_t r, uint64_t e, int nw, int np, int pool) {
  if (e - r >= ILOG_CYCLES) return 0;
  for (uint64_t u = r; u <= e; u++) {
    uint64_t row = u & (ILOG_CYCLES - 1), tag = c->ilog_cyc[row];
    int cw = 0, cp = 0;
    if (tag > u) return 0; /* overwritten */
    if (tag == u) {
      const uint64_t *s = &c->ilog_seq[row * c->iw];
      for (int k = 0; k < c->ilog_n[row]; k++)
        if (s[k] >= c->run_first && s[k] < i) {
          cw++;
          cp += ooo_pool_of(c->in[s[k] & c->mask].opclass) == pool;
        }
    }
    int blocked = (nw && cw >= nw) || (np && cp >= np);
    if (blocked != (u < e)) return 0;
  }
  return 1;
}

/* The record of instruction i, committed at cycle t: every edge into its
 * five nodes, from the per-instruction arrays. */
void ooo_graph_record(ooo_core *c, uint64_t i, uint64_t t) {
  uint64_t x = i & c->mask;
  ic_graph_rec *r = &c->batch[c->nbatch++];
  r->seq = i;
  r->pc = c->in[x].pc;
  r->opclass = c->in[x].opclass;
  r->sdrop[0] = r->sdrop[1] = 0;
  r->slot_w = r->slot_p = r->mshr_k = 0;
  memset(r->rule_pad_, 0, sizeof r->rule_pad_);
  /* the IQ rule (graph_rec.h) where the IQ is smaller than the ROB: it
     replaces the IQ edges */
  r->iq = c->iq_rule.k;
  ic_edge *cur = r->edge;
  r->t[IC_NODE_D] = c->D[x];
  r->t[IC_NODE_R] = c->R[x];
  r->t[IC_NODE_E] = c->E[x];
  r->t[IC_NODE_P] = c->P[x];
  r->t[IC_NODE_C] = t;
  if (c->flog && i >= c->flog_from && i - c->flog_from < c->flog_n) c->flog[i - c->flog_from] = c->F[x];
  ic_edge *e[6];
  uint64_t v[6];
  int n = 0;
  uint64_t first = c->run_first;
  /* D: DD, FBW, CD, PD */
  e[n] = edge1(&cur, IC_EDGE_DD, 1, IC_CAT_NONE, 0);
  v[n++] = i > 0 ? c->D[(i - 1) & c->mask] : 0;
  if (i >= first + c->fw) {
    e[n] = edge1(&cur, IC_EDGE_FBW, c->fw, IC_CAT_BW, 1);
    v[n++] = c->D[(i - c->fw) & c->mask] + 1;
  }
  if (i >= first + c->rob) {
    e[n] = edge1(&cur, IC_EDGE_CD, c->rob, IC_CAT_NONE, 0);
    v[n++] = c->C[(i - c->rob) & c->mask];
  }
  /* IQ: the issue that freed i's IQ entry, in the cycle i dispatched, where
     the record surely has room for it: at most PD, DR, a PR per source, RE,
     FU, IBW, MSHR, EP, PP, CC, PC and CBW follow;
     else the wait stays a DD part (win), as before */
  const int after_misp = i > first && (c->fl[(i - 1) & c->mask] & FL_MISP);
  if (c->split_window && (c->iq_src[x] != NONE_SEQ || c->lsq_src[x] != NONE_SEQ)) {
    const uint64_t qs = c->iq_src[x], ls = c->lsq_src[x];
    const int later = after_misp + 1 + __builtin_popcount(c->pmask[x]) + 1 + 2 /* FU, IBW */ +
                      (c->mshr_src[x] != NONE_SEQ) + 1 + (c->pp_src[x] != NONE_SEQ) + 2 +
                      (i >= first + c->cw);
    if (!r->iq && qs != NONE_SEQ && qs >= first && qs < i && i - qs <= c->maxdist &&
        (cur - r->edge) + 1 + later <= IC_MAX_EDGES) {
      e[n] = edge1(&cur, IC_EDGE_IQ, (uint32_t)(i - qs), IC_CAT_NONE, 0);
      v[n++] = c->D[x]; /* E(qs): it issued in the cycle i dispatched */
    }
    /* LSQ: the commit of the memory instruction lsq before i, on the same
       terms (a committed one's C is in the ring: it is less than a ROB back) */
    if (ls != NONE_SEQ && ls >= first && ls < i && i - ls <= c->maxdist && i - ls < c->rob &&
        (cur - r->edge) + 1 + later <= IC_MAX_EDGES) {
      e[n] = edge1(&cur, IC_EDGE_LSQ, (uint32_t)(i - ls), IC_CAT_NONE, 0);
      v[n++] = c->C[ls & c->mask];
    }
  }
  uint64_t gi = c->g_imiss[x];
  if (after_misp) {
    uint64_t base = (uint64_t)c->recov + c->depth;
    e[n] = edge1(&cur, IC_EDGE_PD, 1, IC_CAT_NONE, base);
    edge_add(e[n], IC_CAT_IMISS, gi);
    v[n++] = c->P[(i - 1) & c->mask] + base + gi;
    /* the refetch's I-cache stall stays on DD too: without the
     * misprediction (bmisp) the same line would still miss */
  }
  /* The front-end gap (I-cache stalls, fetch-group breaks) is a fact about
   * instruction i and goes on DD whether or not DD binds, up to the actual
   * distance D(i) - D(i-1): an idealized graph then keeps the gap that an
   * idealized machine would still have (e.g. the break after a branch that
   * is no longer mispredicted). A group the fetch width ended is not such a
   * fact (g_width, FR_WIDTH): where the groups fall depends on when fetch
   * resumed, and FBW already holds i a cycle behind i - fw; on DD it kept
   * the baseline's group boundaries under idealizations that move them
   * (x_hist, lgalu: 8.4% against 14.3% in multisim). It stays in the
   * budget of an unexplained gap below. Breaks at taken branches stay. */
  uint64_t gb = c->g_bw[x];
  if (gi | gb) {
    uint64_t room = c->D[x] - v[0];
    uint64_t a = gi < room ? gi : room;
    edge_add(e[0], IC_CAT_IMISS, a);
    room -= a;
    gi -= a;
    uint64_t bb = gb < room ? gb : room;
    edge_add(e[0], IC_CAT_BW, bb);
    gb -= bb;
    v[0] += a + bb;
  }
  /* the IQ rule's bound explains a dispatch the IQ held */
  const uint64_t iqb = ic_iq_tab_bound(&c->iq_rule);
  if (c->D[x] > vmax(v, n) && !(r->iq && iqb >= c->D[x])) {
    budget b[4] = {{IC_CAT_IMISS, gi}, {IC_CAT_BW, gb + c->g_width[x]}, {IC_CAT_WIN, c->dwin[x]},
                   {IC_CAT_NONE, c->g_none[x]}};
    c->st.graph_unattributed += attribute(e, v, n, 0, c->D[x], b, 4);
  }
  /* R: DR, PR */
  edge1(&cur, IC_EDGE_DR, 0, IC_CAT_NONE, c->dr);
  const uint64_t *prod = &c->prod[x * 4];
  for (unsigned m = c->pmask[x]; m; m &= m - 1) {
    int k = __builtin_ctz(m);
    /* a memory producer that had committed (cs_find) does not bind: its
     * data was there before the load could wait for it, unless wakeup
     * exceeds dispatch_ready by more than 1 (an in-flight one never fails
     * this: the load waited for it) */
    if (k == 3 && c->Phist[prod[k] & c->hmask] + c->wk - 1 > c->R[x]) continue;
    ic_edge *pr = edge1(&cur, IC_EDGE_PR, (uint32_t)(i - prod[k]), IC_CAT_NONE, c->wk - 1);
    if (k == 3) pr->flags = IC_EDGE_MEM;
  }
  /* E: RE, the wait split by cause: MSHRs (dmiss), units held by divides
   * (lgalu), issue slots (bw) */
  uint64_t wait = c->E[x] - c->R[x];
  ic_edge *re = edge1(&cur, IC_EDGE_RE, 0, IC_CAT_BW, wait);
  if (wait && (c->re_mshr[x] | c->re_lg[x])) {
    uint64_t ms = c->re_mshr[x], lg = c->re_lg[x];
    if (ms > wait) ms = wait;
    if (lg > wait - ms) lg = wait - ms;
    re->nparts = 0;
    edge_add(re, IC_CAT_BW, wait - ms - lg); /* issue width and pipelined FU/port contention */
    edge_add(re, IC_CAT_DMISS, ms);
    edge_add(re, IC_CAT_LGALU, lg);
  }
  /* FU: the unit i got was held by an unpipelined op j until P(j) (its
   * occupancy is its latency). When that binds, the unit is why i waited:
   * the wait lives on the FU edge, which bw drops (bw scales the units) and
   * whose source lgalu moves, instead of fixed RE parts. */
  uint64_t fs = c->fu_src[x];
  if (fs != NONE_SEQ && fs < i && fs >= first && i - fs <= c->maxdist) {
    ic_edge *fe = edge1(&cur, IC_EDGE_FU, (uint32_t)(i - fs), IC_CAT_NONE, 0);
    const uint64_t pf = c->Phist[fs & c->hmask];
    uint64_t lg = 0, sl = 0, other = 0; /* RE's parts: unit (lgalu), slots (bw), other */
    for (int k = 0; k < re->nparts; k++) {
      if (re->part[k].cat == IC_CAT_LGALU) lg += re->part[k].cycles;
      else if (re->part[k].cat == IC_CAT_BW) sl += re->part[k].cycles;
      else other += re->part[k].cycles;
    }
    if (pf == c->E[x]) {
      re->nparts = 0;
    } else if (pf < c->E[x] && lg && !other && c->E[x] - pf <= sl) {
      /* the unit freed and i then waited for issue slots alone: the unit's
         wait lives on this edge too (bw scales the units and lifts both;
         as a fixed lgalu part of RE it stayed under bw), the slots' as its
         bw part */
      edge_add(fe, IC_CAT_BW, c->E[x] - pf);
      re->nparts = 0;
    }
  }
  /* IBW: the iw + 1 instructions after ancestor j on i's chain issue no
   * earlier than P(j) and not all in one cycle */
  if (c->alev) {
    const uint64_t j = ic_chain_ibw_source(&c->anc[x * c->astride], c->alev, i, first, c->maxdist);
    if (j != NONE_SEQ) edge1(&cur, IC_EDGE_IBW, (uint32_t)(i - j), IC_CAT_BW, 1);
  }
  /* MSHR: a missing load needs a free MSHR, freed by the completion of an
   * earlier miss; where that binds, the wait lives on this edge (which
   * dmiss drops) instead of fixed RE parts */
  uint64_t ms = c->mshr_src[x];
  if (ms != NONE_SEQ) {
    edge1(&cur, IC_EDGE_MSHR, (uint32_t)(i - ms), IC_CAT_NONE, 0);
    if (c->Phist[ms & c->hmask] == c->E[x]) re->nparts = 0;
  }
  /* The slot rule (graph_rec.h, SLOT RULE): at most n issues per cycle,
   * oldest first, of the issue width and, where the pool has fewer units,
   * of the pool */
  const int pool = ooo_pool_of(c->in[x].opclass);
  ic_rec_set_slot_rule(r, c->iw, c->fu_n[pool], i <= first); /* the issue log: ilog_seq */
  /* The MSHR rule: a load that took an MSHR holds it over [E, P), and an
   * idealization that puts more misses in flight waits for one
   * (graph_rec.h, MSHR RULE) */
  if (c->have_sink && c->mtag[x] == i && c->nmshr <= IC_MSHR_RULE_MAX && i > first)
    r->mshr_k = (uint8_t)c->nmshr;
  /* An issue wait of slots alone (RE's one part, bw) that the slot rule
   * gives back from R in the baseline lives on the rule, which moves with
   * an idealization, instead of a fixed RE latency (graph_rec.h, RE). */
  if (wait && re->nparts == 1 && re->part[0].cat == IC_CAT_BW && (r->slot_w || r->slot_p) &&
      slot_rule_gives(c, i, c->R[x], c->E[x], r->slot_w, r->slot_p, pool)) /* ilog_seq */
    re->nparts = 0;
  /* P: EP, PP */
  ic_edge *ep = edge1(&cur, IC_EDGE_EP, 0, c->ep_cat[x], c->ep_a[x]);
  edge_add(ep, IC_CAT_DMISS, c->ep_b[x]);
  if (c->pp_src[x] != NONE_SEQ) {
    uint64_t w = c->P[x] - c->Phist[c->pp_src[x] & c->hmask]; /* > 0: filled by a store */
    edge1(&cur, IC_EDGE_PP, (uint32_t)(i - c->pp_src[x]), w ? IC_CAT_DMISS : IC_CAT_NONE, w);
  }
  /* C: CC, PC, CBW */
  n = 0;
  e[n] = edge1(&cur, IC_EDGE_CC, 1, IC_CAT_NONE, 0);
  v[n++] = i > 0 ? c->C[(i - 1) & c->mask] : 0;
  e[n] = edge1(&cur, IC_EDGE_PC, 0, IC_CAT_NONE, 1);
  v[n++] = c->P[x] + 1;
  /* CBW: at most cw instructions commit a cycle, and at most sbw stores:
   * a store commits after the sbw-th store before it. C never falls along
   * program order (CC), so of the two bounds the nearer source is the one
   * that binds, in every evaluation: one edge holds both */
  uint32_t cbw = i >= first + c->cw ? c->cw : 0;
  if (c->sring && (c->fl[x] & FL_STORE)) {
    const uint64_t j = c->sring[c->spos];
    c->sring[c->spos] = i;
    c->spos = c->spos + 1 == c->sbw ? 0 : c->spos + 1;
    if (j != NONE_SEQ && j >= first && i - j < c->cw) cbw = (uint32_t)(i - j);
  }
  if (cbw) {
    e[n] = edge1(&cur, IC_EDGE_CBW, cbw, IC_CAT_BW, 1);
    v[n++] = c->C[(i - cbw) & c->mask] + 1;
  }
  if (t > vmax(v, n)) {
    budget sb[1] = {{IC_CAT_BW, c->sb_blk[x]}};
    c->st.graph_unattributed += attribute(e, v, n, 0, t, sb, 1);
  }
  /* every edge above was added only where the record had room for it and
     for the fixed ones after it (the sanitizer build checks) */
  assert(cur - r->edge <= IC_MAX_EDGES);
  r->nedges = (uint8_t)(cur - r->edge);
  if (ic_iq_tab_add(&c->iq_rule, c->E[x]) != 0 && c->sink_status == IC_OK)
    c->sink_status = ic_fail(&c->sink_err, IC_ERUN, "out of memory for graph records (IQ rule)");
  if (c->nbatch == c->batch_cap) ooo_graph_flush(c);
}
