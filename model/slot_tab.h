/* slot_tab.h: the counts of the slot rule (graph_rec.h, SLOT RULE).
 *
 * Per cycle, how many of the instructions evaluated so far issue in it: all
 * of them, and those of each FU pool (ooo_pool_of). The rule asks, for
 * instruction i, for the first cycle from E'(i) at which fewer than n of the
 * instructions before i issue; every evaluator (the model's check, the
 * reference pass, slack, the stitcher and each lane of the solver) keeps one
 * table and counts each instruction's E once its rule is applied
 * (ic_slot_tab_take does both), through this one implementation, so all of
 * them count alike.
 *
 * Cycles below the floor, the latest D so far (ic_slot_tab_floor), count
 * as free: an instruction that issued before i dispatched takes no slot i
 * can want. The table is a ring over the cycles [floor, floor + cap): cycle
 * c's counts are entry c mod cap, and the floor's rise zeroes the entries
 * of the cycles it passes (so no entry needs a key: 8 bytes a cycle, which
 * matters because the solver keeps a table in each of up to 128 lanes and
 * the rule looks one up for every instruction in each). The size follows
 * the span of the cycles in flight, not the run: a cycle at floor + cap or
 * later doubles the table, up to IC_SLOT_TAB_MAX entries; beyond that (the
 * cycles in flight spanning more than that many cycles, e.g. a chain of
 * memory misses in a 20x window) a cycle that far from the floor counts as
 * free and its issue is not counted.
 *
 * On a narrow machine many instructions wait for the same few slots, and a
 * walk would pass every full cycle from its E' to the first free one. So a
 * walk leaves a hint in the first cycle of each run of cycles it found full
 * for the width (bytes 6 and 7 of the entry: the run's length), and later
 * walks jump over the run. Counts above the floor only rise, so a run stays
 * full; an entry is zeroed, hint and all, when the floor passes its cycle.
 * Hints are of one width, the table's first (hw); a walk with another
 * width neither uses nor leaves them. */
#ifndef IC_SLOT_TAB_H
#define IC_SLOT_TAB_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ooo.h"

#define IC_SLOT_TAB_MIN 64u     /* entries of a table's first allocation */
#define IC_SLOT_TAB_MAX 16384u  /* entries at most (128 KB) */

/* issues in a cycle: [0] all, [1 + pool] of the pool (saturating at 255);
 * [6], [7]: the hint, little-endian (0: none) */
typedef uint8_t ic_slot_ent[8];
_Static_assert(1 + OOO_POOL_COUNT <= 6, "an entry holds every pool's count and a hint");
#define IC_SLOT_HINT_MAX 0xffffu

static inline uint32_t ic_slot_hint(const uint8_t *n) { return (uint32_t)n[6] | (uint32_t)n[7] << 8; }

typedef struct ic_slot_tab {
  ic_slot_ent *e; /* [cap]: cycle c at e[c & (cap - 1)] for c in [floor, floor + cap); else 0 */
  uint32_t cap;   /* entries: 0 (nothing allocated) or a power of two */
  uint64_t floor; /* cycles below it count as free */
  uint64_t top;   /* 1 + the latest cycle counted (0: none): the entries of
                     later cycles are 0, so a rising floor zeroes only up to
                     it (a miss-bound run's floor passes many idle cycles) */
  unsigned hw;    /* the width the hints are of (0: none yet) */
} ic_slot_tab;

static inline void ic_slot_tab_free(ic_slot_tab *t) {
  free(t->e);
  memset(t, 0, sizeof *t);
}

/* Forgets every count (keeps the allocation). */
static inline void ic_slot_tab_clear(ic_slot_tab *t) {
  if (t->cap) memset(t->e, 0, (size_t)t->cap * sizeof *t->e);
  t->floor = t->top = 0;
  t->hw = 0;
}

/* The floor rises to d (never falls): the entries of the cycles it passes
 * are zeroed for the cycles a table further on (only those up to top: the
 * later ones are 0 already), as one or two ranges. */
static inline void ic_slot_tab_floor(ic_slot_tab *t, uint64_t d) {
  if (d <= t->floor) return;
  const uint64_t end = d < t->top ? d : t->top;
  if (end > t->floor) {
    if (end - t->floor >= t->cap) {
      memset(t->e, 0, (size_t)t->cap * sizeof *t->e);
    } else if (end - t->floor <= 8) { /* the common case: a store or two */
      for (uint64_t c = t->floor; c < end; c++) memset(t->e[c & (t->cap - 1)], 0, sizeof *t->e);
    } else {
      const uint64_t a = t->floor & (t->cap - 1), n = end - t->floor;
      const uint64_t first = n < t->cap - a ? n : t->cap - a;
      memset(t->e[a], 0, (size_t)first * sizeof *t->e);
      if (first < n) memset(t->e[0], 0, (size_t)(n - first) * sizeof *t->e);
    }
  }
  t->floor = d;
}

/* The counts of cycle c, or NULL where none are kept (no issue, below the
 * floor, or a table or more beyond it). */
static inline const uint8_t *ic_slot_tab_find(const ic_slot_tab *t, uint64_t c) {
  if (c < t->floor || c - t->floor >= t->cap) return NULL;
  const uint8_t *n = t->e[c & (t->cap - 1)];
  return n[0] ? n : NULL;
}

static inline int ic_slot_tab_full(const uint8_t *n, int nw, int np, int pool) {
  return (nw && n[0] >= nw) || (np && n[1 + pool] >= np);
}

/* The slot rule from cycle e0: the first cycle t >= e0 below the floor or
 * with fewer than nw issues (nw 0: no width rule) and fewer than np of
 * `pool`'s (np 0: no pool rule). Each full cycle holds an issue, so this
 * ends within the table's entries. */
static inline uint64_t ic_slot_tab_time(const ic_slot_tab *t, uint64_t e0, int nw, int np, int pool) {
  const int hints = nw && (unsigned)nw == t->hw;
  for (uint64_t c = e0;;) {
    const uint8_t *n = ic_slot_tab_find(t, c);
    if (!n || !ic_slot_tab_full(n, nw, np, pool)) return c;
    const uint32_t h = hints ? ic_slot_hint(n) : 0;
    c += h ? h : 1;
  }
}

/* Grows the table (the first allocation: IC_SLOT_TAB_MIN entries) until
 * cycle c (>= the floor) fits, up to IC_SLOT_TAB_MAX, keeping the counts.
 * 0, or -1 (the table unchanged) when out of memory. */
static inline int ic_slot_tab_grow(ic_slot_tab *t, uint64_t c) {
  uint32_t cap = t->cap ? 2 * t->cap : IC_SLOT_TAB_MIN;
  while (cap < IC_SLOT_TAB_MAX && c - t->floor >= cap) cap *= 2;
  ic_slot_ent *e = calloc(cap, sizeof *e);
  if (!e) return -1;
  for (uint64_t x = t->floor; x < t->floor + t->cap; x++)
    memcpy(e[x & (cap - 1)], t->e[x & (t->cap - 1)], sizeof *e);
  free(t->e);
  t->e = e;
  t->cap = cap;
  return 0;
}

/* ic_slot_tab_take (below) with the rules as thresholds: a cycle is full
 * where its count reaches tw, or its pool's reaches tp; 256 (no count
 * reaches it: counts saturate at 255) where a rule does not live. The
 * floor is checked once (the walk only rises from e0). */
static inline __attribute__((always_inline)) int ic_slot_tab_take_th(ic_slot_tab *t, uint64_t e0, unsigned tw,
                                                                     unsigned tp, int pool, uint64_t *at) {
  *at = e0;
  if (e0 < t->floor) return 0;
  if (tw < 256u && !t->hw) t->hw = tw;
  const int hints = tw == t->hw;
  uint64_t run = UINT64_MAX; /* the first cycle of the run of width-full cycles the walk is in */
  for (uint64_t c = e0;;) {
    if (c - t->floor >= t->cap) {
      if (t->cap < IC_SLOT_TAB_MAX && ic_slot_tab_grow(t, c) != 0) return -1;
      if (c - t->floor >= t->cap) { /* beyond the largest table: free, not counted */
        *at = c;
        return 0;
      }
    }
    uint8_t *n = t->e[c & (t->cap - 1)];
    if (n[0] >= tw) { /* full for the width: jump over its run where a hint says how long */
      if (run == UINT64_MAX) run = c;
      const uint32_t h = hints ? ic_slot_hint(n) : 0;
      c += h ? h : 1;
      continue;
    }
    if (hints && run != UINT64_MAX && c - run > 1) { /* the run [run, c) for later walks */
      uint8_t *r = t->e[run & (t->cap - 1)];
      const uint64_t len = c - run < IC_SLOT_HINT_MAX ? c - run : IC_SLOT_HINT_MAX;
      r[6] = (uint8_t)len;
      r[7] = (uint8_t)(len >> 8);
    }
    run = UINT64_MAX;
    if (n[1 + pool] >= tp) {
      c++;
      continue;
    }
    n[0] += n[0] < UINT8_MAX;
    n[1 + pool] += n[1 + pool] < UINT8_MAX;
    if (c >= t->top) t->top = c + 1;
    *at = c;
    return 0;
  }
}

/* The slot rule from e0 (as ic_slot_tab_time), and the issue counted in
 * the cycle it gives (none below the floor, or a table beyond it: free
 * whatever issues there): one walk for both. nw = np = 0 counts an issue
 * in e0. Writes the cycle to *at; 0, or -1 when out of memory. */
static inline __attribute__((always_inline)) int ic_slot_tab_take(ic_slot_tab *t, uint64_t e0, int nw,
                                                                  int np, int pool, uint64_t *at) {
  return ic_slot_tab_take_th(t, e0, nw ? (unsigned)nw : 256u, np ? (unsigned)np : 256u, pool, at);
}

/* Counts an issue of `pool` in cycle c. 0, or -1 when out of memory. */
static inline int ic_slot_tab_add(ic_slot_tab *t, uint64_t c, int pool) {
  uint64_t at;
  return ic_slot_tab_take(t, c, 0, 0, pool, &at);
}

/* A copy of src into dst (dst's own allocation is replaced). 0 or -1. */
static inline int ic_slot_tab_copy(ic_slot_tab *dst, const ic_slot_tab *src) {
  ic_slot_tab nt = *src;
  if (src->cap) {
    nt.e = malloc((size_t)src->cap * sizeof *nt.e);
    if (!nt.e) return -1;
    memcpy(nt.e, src->e, (size_t)src->cap * sizeof *nt.e);
  }
  ic_slot_tab_free(dst);
  *dst = nt;
  return 0;
}

#endif
