/* solver_rules.c: the per-lane loops of the solver's structural rules
 * (solver_rules.h says what each rule is): the slot counts' walk
 * (lanes_take, and lanes_take_mshr with the MSHR rule) and upkeep
 * (slots_note), the IQ rule (k_iq, iq_note) and the MSHR rule (k_mshr,
 * mshr_note). Scalar work a lane, called from the node kernels
 * (solver_kernels.c) and exec_plan in the rules' fixed places. */
#include "solver_rules.h"

/* lane_take over the lanes [lo, hi) without bw, with the same thresholds
 * in each: a loop of its own (few live values, nothing spilled) whose
 * common path is one entry that is not full; a full cycle (the walk), a
 * cycle beyond the table and a count at 255 go through
 * ic_slot_tab_take_th. acc gets the moves. */
__attribute__((noinline)) void slv_lanes_take(struct xenv *x, const struct plan *pl, uint32_t lo,
                                                 uint32_t hi, const int32_t *d, int32_t *acc,
                                                 unsigned tw, unsigned tp) {
  const uint32_t off = x->sv->rule_off;
  const int pool = pl->pool, sh = 8 * (1 + pool); /* the pool's count: byte 1 + pool */
  /* the common path's thresholds: below 255 too, so its counts need no
     saturation (a count at 255 takes ic_slot_tab_take_th, which saturates) */
  const unsigned tw1 = tw < 255u ? tw : 255u, tp1 = tp < 255u ? tp : 255u;
  const uint64_t inc = 1u | (uint64_t)1 << sh;
  ic_slot_tab *const stab = x->sv->stab;
  const int64_t *const base = x->base;
  const uint16_t *const nx = x->sv->nxt[LR_SLOT];
  for (uint32_t lane = lane_next(lo, off, nx), end = rule_hi(x->sv, hi); lane < end;
       lane = lane_next(lane + 1, off, nx)) {
    ic_slot_tab *t = &stab[lane];
    const int64_t b0 = base[lane], dt = b0 + d[lane], c0 = b0 + acc[lane];
    if (dt > (int64_t)t->floor) ic_slot_tab_floor(t, (uint64_t)dt);
    const int64_t fl = (int64_t)t->floor;
    if (c0 < fl) continue; /* below the floor (and time 0): free, nothing counted */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ /* counts as one word */
    if ((uint64_t)(c0 - fl) < t->cap) { /* the common path: c0 is not full */
      uint8_t *n = t->e[(uint64_t)c0 & (t->cap - 1)];
      uint64_t w;
      memcpy(&w, n, sizeof w);
      if ((w & 0xff) < tw1 && (w >> sh & 0xff) < tp1) { /* one more in the cycle and in its pool */
        w += inc;
        memcpy(n, &w, sizeof w);
        if ((uint64_t)c0 >= t->top) t->top = (uint64_t)c0 + 1;
        continue;
      }
    }
#endif
    uint64_t c;
    if (ic_slot_tab_take_th(t, (uint64_t)c0, tw, tp, pool, &c) != 0) {
      if (!x->viol) x->first = pl->seq;
      x->viol++;
      x->oom++;
      continue;
    }
    acc[lane] += (int32_t)(c - (uint64_t)c0);
  }
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
static inline uint32_t lane_take(struct xenv *x, const struct plan *pl, uint32_t lane, int32_t d, int32_t e,
                                 unsigned tw, unsigned tp, const ic_mshr_tab *m) {
  ic_slot_tab *t = &x->sv->stab[lane];
  const int64_t b0 = x->base[lane], dt = b0 + d, c0 = b0 + e;
  if (dt > (int64_t)t->floor) ic_slot_tab_floor(t, (uint64_t)dt);
  if (c0 < (int64_t)t->floor) return 0; /* below the floor (and time 0): free */
  const uint64_t from = m ? ic_rules_time(m, pl->f.mk, t, 1, tw < 256u ? (int)tw : 0,
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

/* k_slots for a record with the MSHR rule: lane_take in each lane that
 * keeps the slot rule, with the lane's MSHR holders where it keeps that
 * rule too. */
void slv_lanes_take_mshr(struct xenv *x, const struct plan *pl, uint32_t lo, uint32_t hi, int32_t *acc,
                         unsigned tw, unsigned tp) {
  const int32_t *const slotm = x->sv->slotm, *const d = pl->out[IC_NODE_D];
  for (uint32_t lane = lo, end = rule_hi(x->sv, hi); lane < end; lane++) {
    if (!slotm[lane]) continue;
    const ic_mshr_tab *m = lane_next(lane, x->sv->mshr_off, x->sv->nxt[LR_MSHR]) == lane &&
                                   !mshr_scoped_off(x->sv, pl, lane)
                               ? &x->sv->mtab[lane]
                               : NULL;
    acc[lane] += (int32_t)lane_take(x, pl, lane, d[lane], acc[lane], tw, tp, m);
  }
}

/* The IQ rule (graph_rec.h, IQ RULE) on node D over lanes [lo, hi)
 * without win, after its edges: D is at least the K-th largest E of the
 * earlier records in the lane (qtab, iq_tab.h). Scalar work a lane, on
 * every record of a machine whose IQ is smaller than its ROB; a lane
 * whose table cannot be made counts as a violation (and in oom). */
void slv_k_iq(int32_t *acc, uint32_t lo, uint32_t hi, const struct plan *pl, struct xenv *x) {
  const uint32_t off = x->sv->iq_off, k = pl->iq;
  ic_iq_tab *const qt = x->sv->qtab;
  const int64_t *const base = x->base;
  const uint16_t *const nx = x->sv->nxt[LR_IQ];
  for (uint32_t lane = lane_next(lo, off, nx), end = rule_hi(x->sv, hi); lane < end;
       lane = lane_next(lane + 1, off, nx)) {
    ic_iq_tab *t = &qt[lane];
    if (t->k != k && ic_iq_tab_reset(t, k) != 0) {
      if (!x->viol) x->first = pl->seq;
      x->viol++;
      x->oom++;
      continue;
    }
    if (t->n < k) continue; /* fewer than K so far: no bound */
    const int64_t b = (int64_t)t->lo - base[lane];
    if (b > acc[lane]) acc[lane] = (int32_t)b;
  }
}

/* The IQ rule's upkeep for a record with it, over lanes [lo, hi) without
 * win: its E. An E at most the bound once K are kept (not among the K
 * largest) changes nothing: tested here, before the call. */
void slv_iq_note(struct xenv *x, const struct plan *pl, uint32_t lo, uint32_t hi) {
  const uint32_t off = x->sv->iq_off;
  const int32_t *e = pl->out[IC_NODE_E];
  ic_iq_tab *const qt = x->sv->qtab;
  const int64_t *const base = x->base;
  const uint16_t *const nx = x->sv->nxt[LR_IQ];
  for (uint32_t lane = lane_next(lo, off, nx), end = rule_hi(x->sv, hi); lane < end;
       lane = lane_next(lane + 1, off, nx)) {
    ic_iq_tab *t = &qt[lane];
    const int64_t te = base[lane] + e[lane];
    const uint64_t ue = te > 0 ? (uint64_t)te : 0;
    if (t->n == t->k && ue <= t->lo) continue;
    if (ic_iq_tab_add(t, ue) != 0) {
      if (!x->viol) x->first = pl->seq;
      x->viol++;
      x->oom++;
    }
  }
}

/* The MSHR rule (graph_rec.h, MSHR RULE) on node E over lanes
 * [lo, hi) without dmiss, after its other edges and before the slot rule:
 * E moves to the first cycle at which fewer than pl->f.mk of the lane's
 * holders (mtab, mshr_tab.h) hold an MSHR, whose floor first takes this
 * record's D. Scalar work a lane, for the records with the rule only (the
 * loads that took an MSHR). */
void slv_k_mshr(int32_t *acc, uint32_t lo, uint32_t hi, const struct plan *pl, struct xenv *x) {
  const uint32_t off = x->sv->mshr_off;
  const int32_t *d = pl->out[IC_NODE_D];
  const uint16_t *const nx = x->sv->nxt[LR_MSHR];
  for (uint32_t lane = lane_next(lo, off, nx), end = rule_hi(x->sv, hi); lane < end;
       lane = lane_next(lane + 1, off, nx)) {
    if (mshr_scoped_off(x->sv, pl, lane)) continue;
    ic_mshr_tab *t = &x->sv->mtab[lane];
    const int64_t b0 = x->base[lane], dt = b0 + d[lane], c0 = b0 + acc[lane];
    ic_mshr_tab_floor(t, dt > 0 ? (uint64_t)dt : 0);
    if (c0 < 0) continue; /* before time 0: no holder holds there */
    acc[lane] += (int32_t)(ic_mshr_tab_time(t, (uint64_t)c0, pl->f.mk, NULL) - (uint64_t)c0);
  }
}

/* The MSHR holders' upkeep for a record with the rule, over lanes [lo, hi)
 * without dmiss: its hold [E, P). */
void slv_mshr_note(struct xenv *x, const struct plan *pl, uint32_t lo, uint32_t hi) {
  const uint32_t off = x->sv->mshr_off;
  const int32_t *e = pl->out[IC_NODE_E], *p = pl->out[IC_NODE_P];
  const uint16_t *const nx = x->sv->nxt[LR_MSHR];
  for (uint32_t lane = lane_next(lo, off, nx), end = rule_hi(x->sv, hi); lane < end;
       lane = lane_next(lane + 1, off, nx)) {
    if (mshr_scoped_off(x->sv, pl, lane)) continue;
    const int64_t b0 = x->base[lane], te = b0 + e[lane], tp = b0 + p[lane];
    if (tp <= 0) continue;
    if (ic_mshr_tab_add(&x->sv->mtab[lane], te > 0 ? (uint64_t)te : 0, (uint64_t)tp, pl->seq) != 0) {
      if (!x->viol) x->first = pl->seq;
      x->viol++;
      x->oom++;
    }
  }
}

/* The slot counts' upkeep for a record without the slot rule, over lanes
 * [lo, hi) without bw: the floor takes its D, the counts its E. */
void slv_slots_note(struct xenv *x, const struct plan *pl, uint32_t lo, uint32_t hi) {
  slv_lanes_take(x, pl, lo, hi, pl->out[IC_NODE_D], pl->out[IC_NODE_E], 256u, 256u);
}
