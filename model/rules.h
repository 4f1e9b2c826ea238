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
 * `pool`; slot 0: no rule). *moved (if not NULL) gets which rule moved E
 * last: 1 the MSHR rule, 2 the slot rule, 0 neither; *src (if not NULL) the
 * seq of the holder whose completion gave the MSHR rule's last move (as
 * ic_mshr_tab_time; UINT64_MAX where it never moved E). */
static inline uint64_t ic_rules_time(const ic_mshr_tab *h, int k, const ic_slot_tab *s, int slot,
                                     int nw, int np, int pool, uint64_t e0, int *moved,
                                     uint64_t *src) {
  uint64_t c = e0, from = UINT64_MAX;
  int last = 0;
  for (;;) {
    if (k) {
      uint64_t f;
      const uint64_t m = ic_mshr_tab_time(h, c, k, &f);
      if (m != c) last = 1, from = f, c = m;
    }
    if (!slot) break;
    const uint64_t t = ic_slot_tab_time(s, c, nw, np, pool);
    if (t == c) break;
    last = 2;
    c = t;
    if (!k) break;
  }
  if (moved) *moved = last;
  if (src) *src = from;
  return c;
}

#endif
