/* rules.h: the MSHR rule (mshr_tab.h) and the slot rule (slot_tab.h) on
 * one E together.
 *
 * Both only move E later. Applied once each, MSHR first, a miss the slot
 * rule then delayed could start while another miss, which had not started
 * at the MSHR rule's cycle, already held the one MSHR: on x_list with one
 * MSHR and an issue width of 1 (bench_machines seed 7, m12) two misses held
 * it at once in the stitched fragments under win, and the profiler put 54%
 * of the time on win against 1.3% in multisim. E is the first cycle from
 * e0 at which both rules hold: each is applied in turn until neither
 * moves it. Every evaluator (the reference pass, slack, the stitcher and
 * each lane of the solver) goes through this, so all of them count alike.
 * The model's own E satisfies both (the baseline stays exact). */
#ifndef IC_RULES_H
#define IC_RULES_H

#include <stdint.h>

#include "mshr_tab.h"
#include "slot_tab.h"

/* E from e0 under the MSHR rule (k MSHRs, holders h, whose floor the
 * caller has set; k 0: no rule) and the slot rule (slots s with nw, np of
 * `pool`; slot 0: no rule). Where each rule last moved E (slack gives each
 * its edge from there), if not NULL: *src the seq of the holder whose
 * completion gave the MSHR rule's last move (as ic_mshr_tab_time;
 * UINT64_MAX where it never moved E), *slot_at the cycle of the slot
 * rule's last move (0 where it never moved E). */
static inline uint64_t ic_rules_time(const ic_mshr_tab *h, int k, const ic_slot_tab *s, int slot,
                                     int nw, int np, int pool, uint64_t e0, uint64_t *src,
                                     uint64_t *slot_at) {
  uint64_t c = e0, from = UINT64_MAX, sat = 0;
  for (;;) {
    if (k) {
      uint64_t f;
      const uint64_t m = ic_mshr_tab_time(h, c, k, &f);
      if (m != c) from = f, c = m;
    }
    if (!slot) break;
    const uint64_t t = ic_slot_tab_time(s, c, nw, np, pool);
    if (t == c) break;
    sat = c = t;
    if (!k) break;
  }
  if (src) *src = from;
  if (slot_at) *slot_at = sat;
  return c;
}

#endif
