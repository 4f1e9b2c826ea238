/* solver_rules.h: the structural rules of the graph record (graph_rec.h)
 * that no fixed edge captures, evaluated lane by lane in the solver: the
 * slot rule on E, the IQ rule on D, the MSHR rule on E. This header holds
 * what the node kernels inline (k_slots and its helpers: inlined into each
 * kernel so its setup is not a call a record); the per-lane loops are
 * solver_rules.c. Included by solver_kernels.c and solver_rules.c only.
 *
 * The slot form of IW (graph_rec.h: the model emits it; the condition
 * entry's l holds the edge's flags) is the slot rule, in the lanes of
 * subsets without bw (rule_off: bw's lane bit; dg_slot_rule_applies; bw
 * drops the edge, so only bw acts on it): after E's other edges, k_slots
 * looks i's candidate cycle up, lane by lane, in the lane's slot counts
 * (stab: a model/slot_tab.h table a lane, the issues of every earlier
 * record in flight in that lane's times) and moves i on while it is full,
 * then counts i's issue; k_block passes the pair over in those lanes. The
 * counts are scalar work a lane (a table each: their cycles differ); in the
 * win lanes the cycles in flight span thousands, so the tables are kept at
 * 8 bytes a cycle (no key: slot_tab.h), and lanes_take is a loop of its own
 * whose common path is one load, one compare and one store.
 *
 * The MSHR rule (graph_rec.h, the rule form of MSHR edges: plan.mk) is
 * scalar work a lane too, but only for the records that carry it (the
 * loads that took an MSHR): after E's other edges and before the slot rule,
 * k_mshr moves E in each lane without dmiss (mshr_off: dmiss's lane bit)
 * past the cycles at which the lane's earlier holders (mtab: a
 * model/mshr_tab.h list a lane, kept like stab) fill the MSHRs, and
 * mshr_note adds the record's own hold [E, P) once P is known.
 *
 * The IQ rule (k_iq) bounds D from below by the K-th largest E of the
 * earlier records in each lane without win (qtab, model/iq_tab.h). */
#ifndef ICOST_SOLVER_RULES_H
#define ICOST_SOLVER_RULES_H

#include "solver_internal.h"

#include "rules.h"

/* The lanes of the block at s where the width's rule (lw) and the pool's
 * (lp) live: those of its edge's block (not dropped there) and of the
 * rule (not bw's). */
static inline __attribute__((always_inline)) void slot_live(const struct pe *ew, const struct pe *ep,
                                                           uint32_t s, const int32_t *slotm, v8si *lw,
                                                           v8si *lp) {
  const v8si half = SPLAT(NEG / 2), zero = SPLAT(0);
  const v8si rule = LD(slotm + s);
  v8si w = zero, p = zero;
  if (ew && s < ew->skipm) w = ew->lat ? (v8si)(LD(ew->lat + s) > half) : SPLAT(-1);
  if (ep && s < ep->skipm) p = ep->lat ? (v8si)(LD(ep->lat + s) > half) : SPLAT(-1);
  *lw = w & rule;
  *lp = p & rule;
}

/* One lane's slot counts for the planned record: the floor takes its D
 * (b0 + d: absolute), then the rule from cycle b0 + e (thresholds tw, tp:
 * ic_slot_tab_take_th) and the issue counted there. With m (the lane's
 * MSHR holders, for a record with the MSHR rule in a lane that keeps it;
 * else NULL), the slot rule and the MSHR rule in turn until neither moves
 * E (rules.h; k_mshr has applied the MSHR rule once already), then the
 * issue counted in the cycle they give. Returns the cycles E moves on; 0
 * where E lies below the floor (before time 0 too), or where the counts
 * could not grow (then counted as a violation, and in oom). */
static inline __attribute__((always_inline)) uint32_t lane_take(struct xenv *x, const struct plan *pl,
                                                                 uint32_t lane, int32_t d, int32_t e,
                                                                 unsigned tw, unsigned tp,
                                                                 const ic_mshr_tab *m) {
  ic_slot_tab *t = &x->sv->stab[lane];
  const int64_t b0 = x->base[lane], dt = b0 + d, c0 = b0 + e;
  if (dt > (int64_t)t->floor) ic_slot_tab_floor(t, (uint64_t)dt);
  if (c0 < (int64_t)t->floor) return 0; /* below the floor (and time 0): free */
  const uint64_t from = m ? ic_rules_time(m, pl->mk, t, 1, tw < 256u ? (int)tw : 0,
                                          tp < 256u ? (int)tp : 0, pl->pool, (uint64_t)c0, NULL, NULL)
                          : (uint64_t)c0;
  uint64_t c;
  if (ic_slot_tab_take_th(t, from, tw, tp, pl->pool, &c) != 0) {
    if (!x->viol) x->first = pl->seq;
    x->viol++;
    x->oom++;
    return 0;
  }
  return (uint32_t)(c - (uint64_t)c0);
}

/* The first lane from `lane` on without the category whose lane bit is
 * off (0: none): its lanes come in runs of off, skipped a run at a time. */
static inline uint32_t lane_from(uint32_t lane, uint32_t off) {
  return lane & off ? (lane | (off - 1)) + 1 : lane;
}

/* The first lane from `lane` (<= lanes_live) on that keeps a rule: in the
 * powerset layout (nx NULL) without the category whose lane bit is off
 * (lane_from), in the compact one the rule's next lane (ic_solver.nxt;
 * lanes_live when none is left). */
static inline uint32_t lane_next(uint32_t lane, uint32_t off, const uint16_t *nx) {
  return nx ? nx[lane] : lane_from(lane, off);
}

/* The end of the lanes [lo, hi) a rule keeps tables for: in the powerset
 * layout not the padding past lanes_acted (fewer than three categories
 * have acted), whose times nothing reads and whose tables a relabel drops
 * (the new lanes continue the acted ones'); the compact layout's lists
 * (nxt) leave its padding out already. */
static inline uint32_t rule_hi(const struct ic_solver *sv, uint32_t hi) {
  return !sv->lane_flags && hi > sv->lanes_acted ? sv->lanes_acted : hi;
}

/* Does the record's scoped dmiss (plan.mskip) drop its MSHR rule in lane? */
static inline int mshr_scoped_off(const struct ic_solver *sv, const struct plan *pl, uint32_t lane) {
  return pl->mskip && sv->bitm[(size_t)(pl->mskip - 1) * sv->lanes_padded + lane];
}

/* Bits (from s) of the lanes among [s, s + LANES) without the slot rule
 * (bw's, and the compact layout's padding). */
static inline uint32_t rule_bits(uint32_t s, const uint8_t *slotb) {
  return slotb[s / LANES];
}

/* The slot rule (graph_rec.h, IW slot form) on node E over lanes [lo, hi),
 * after its other edges, and the slot counts' upkeep: in the lanes where
 * the record's slot-form edge of the issue width (of the pool) lives, E
 * moves to the first cycle with a free slot in the lane's counts (stab,
 * slot_tab.h), whose floor first takes this record's D; in every lane
 * without bw the counts take the E (ic_slot_tab_take: one walk for both).
 * Block pairs in the slot form carry the edge's flags in the condition
 * entry's l (0: the old form, k_block's). Returns 0 where the record has
 * no slot-form edge (slots_note keeps the counts then). */
static inline __attribute__((always_inline)) int k_slots(int32_t *acc, const struct pe *b, int ni,
                                                         uint32_t lo, uint32_t hi,
                                                         const struct plan *pl, struct xenv *x) {
  int width_slots = 0, pool_slots = 0;
  const struct pe *ew = NULL, *ep = NULL;
  for (int e = 0; e + 1 < ni; e += 2) {
    const int32_t cf = b[e + 1].l;
    if (!cf) continue;
    if (cf & IC_IW_POOL)
      pool_slots = cf & IC_IW_SLOTS, ep = &b[e];
    else
      width_slots = cf & IC_IW_SLOTS, ew = &b[e];
  }
  if (!ew && !ep) return 0;
  const uint32_t off = x->sv->rule_off;
  const int32_t *const slotm = x->sv->slotm;
  const uint8_t *const slotb = x->sv->slotb;
  const int32_t *d = pl->out[IC_NODE_D];
  const unsigned tw = width_slots ? (unsigned)width_slots : 256u, tp = pool_slots ? (unsigned)pool_slots : 256u;
  uint32_t run = lo; /* blocks [run, s) have the rules in every lane: one lanes_take */
  for (uint32_t s = lo; s < hi; s += LANES) {
    const uint32_t end = s + LANES < hi ? s + LANES : hi;
    if (off >= LANES && (s & off)) continue; /* a block of bw's lanes (lanes_take skips them) */
    v8si lw, lp;
    slot_live(ew, ep, s, slotm, &lw, &lp);
    uint32_t mw = 0, mp = 0; /* the rules' lanes as bits */
    for (uint32_t q = 0; q < LANES; q++) {
      mw |= (uint32_t)(lw[q] & 1) << q;
      mp |= (uint32_t)(lp[q] & 1) << q;
    }
    const uint32_t all = ((1u << (end - s)) - 1) & ~rule_bits(s, slotb);
    if (!pl->mk && (mw | (ew ? 0 : all)) == all && (mp | (ep ? 0 : all)) == all)
      continue; /* the rules live in every lane */
    if (run < s) slv_lanes_take(x, pl, run, s, d, acc, tw, tp);
    run = end;
    for (uint32_t lane = s; lane < end; lane++) {
      if (!slotm[lane]) continue;
      const uint32_t q = lane - s;
      const unsigned lw1 = mw >> q & 1 ? tw : 256u, lp1 = mp >> q & 1 ? tp : 256u;
      /* with the MSHR rule where the lane keeps it (no dmiss): both rules
         together (rules.h) */
      const ic_mshr_tab *m =
          pl->mk && lane_next(lane, x->sv->mshr_off, x->sv->nxt[LR_MSHR]) == lane &&
                  !mshr_scoped_off(x->sv, pl, lane)
              ? &x->sv->mtab[lane]
              : NULL;
      acc[lane] += (int32_t)lane_take(x, pl, lane, d[lane], acc[lane], lw1, lp1, m);
    }
  }
  if (run < hi) slv_lanes_take(x, pl, run, hi, d, acc, tw, tp);
  return 1;
}

#endif
