/* solver_rules.h: the structural rules of the graph record (graph_rec.h)
 * that no fixed edge captures, evaluated lane by lane in the solver: the
 * slot rule on E, the IQ rule on D, the MSHR rule on E. This header holds
 * what the node kernels inline (k_slots and its helpers: inlined into each
 * kernel so its setup is not a call a record); the per-lane loops are
 * solver_rules.c. Included by solver_kernels.c and solver_rules.c only.
 *
 * The slot rule (graph_rec.h: the record's slot_w, slot_p; plan.sw, sp)
 * holds in the lanes of subsets without bw (rule_off: bw's lane bit;
 * dg_slot_rule_applies): after E's edges and the MSHR rule, k_slots
 * looks i's candidate cycle up, lane by lane, in the lane's slot counts
 * (stab: a model/slot_tab.h table a lane, the issues of every earlier
 * record in flight in that lane's times) and moves i on while it is full,
 * then counts i's issue. The
 * counts are scalar work a lane (a table each: their cycles differ); in the
 * win lanes the cycles in flight span thousands, so the tables are kept at
 * 8 bytes a cycle (no key: slot_tab.h), and lanes_take is a loop of its own
 * whose common path is one load, one compare and one store.
 *
 * The MSHR rule (graph_rec.h, the record's mshr_k: plan.mk) is
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
  return pl->f.mskip && sv->bitm[(size_t)(pl->f.mskip - 1) * sv->lanes_padded + lane];
}

/* The slot rule with the MSHR rule (rules.h) over lanes [lo, hi) without
 * bw, for a record with both (solver_rules.c). */
void slv_lanes_take_mshr(struct xenv *x, const struct plan *pl, uint32_t lo, uint32_t hi, int32_t *acc,
                         unsigned tw, unsigned tp);

/* The slot rule (graph_rec.h, SLOT RULE: plan.sw, sp) on node E over lanes
 * [lo, hi), after its edges and the MSHR rule, and the slot counts' upkeep:
 * in the lanes without bw E moves to the first cycle with a free slot in
 * the lane's counts (stab, slot_tab.h), whose floor first takes this
 * record's D, and the counts take the E (ic_slot_tab_take: one walk for
 * both). Where the record has the MSHR rule, in each lane that keeps it
 * both rules together (rules.h). Returns 0 where the record has no slot
 * rule (slots_note keeps the counts then). The lanes' loops are calls (in
 * solver_rules.c): inlined, their walks would crowd the kernels'
 * registers. */
static inline __attribute__((always_inline)) int k_slots(int32_t *acc, uint32_t lo, uint32_t hi,
                                                         const struct plan *pl, struct xenv *x) {
  if (!(pl->f.sw | pl->f.sp)) return 0;
  const unsigned tw = pl->f.sw ? pl->f.sw : 256u, tp = pl->f.sp ? pl->f.sp : 256u;
  if (!pl->f.mk)
    slv_lanes_take(x, pl, lo, hi, pl->out[IC_NODE_D], acc, tw, tp);
  else
    slv_lanes_take_mshr(x, pl, lo, hi, acc, tw, tp);
  return 1;
}

#endif
