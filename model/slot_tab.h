/* slot_tab.h: the counts of the slot rule (graph_rec.h, IW slot form).
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
 * can want. The table is direct-mapped on the cycle: entry c mod size. An
 * entry below the floor is free for reuse, so the size follows the span of
 * the cycles in flight, not the run: where two cycles from the floor on meet
 * in one entry, the table doubles, up to IC_SLOT_TAB_MAX entries; beyond
 * that (cycles in flight spanning more than that many cycles, e.g. a chain
 * of memory misses in a 20x window) the later cycle keeps the entry and the
 * earlier one's issues are forgotten (it counts as free). */
#ifndef IC_SLOT_TAB_H
#define IC_SLOT_TAB_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ooo.h"

#define IC_SLOT_TAB_MIN 64u     /* entries of a table's first allocation */
#define IC_SLOT_TAB_MAX 16384u  /* entries at most (256 KB) */

typedef struct ic_slot_ent {
  uint64_t key; /* cycle + 1; 0: empty */
  uint8_t n[8]; /* issues in the cycle: [0] all, [1 + pool] of the pool (saturating) */
} ic_slot_ent;

typedef struct ic_slot_tab {
  ic_slot_ent *e;
  uint32_t cap;   /* entries: 0 (nothing allocated) or a power of two */
  uint64_t floor; /* cycles below it count as free */
} ic_slot_tab;

static inline void ic_slot_tab_free(ic_slot_tab *t) {
  free(t->e);
  memset(t, 0, sizeof *t);
}

/* Forgets every count (keeps the allocation). */
static inline void ic_slot_tab_clear(ic_slot_tab *t) {
  if (t->cap) memset(t->e, 0, (size_t)t->cap * sizeof *t->e);
  t->floor = 0;
}

static inline void ic_slot_tab_floor(ic_slot_tab *t, uint64_t d) {
  if (d > t->floor) t->floor = d;
}

/* The counts of cycle c, or NULL where none are kept (no issue, or below
 * the floor). */
static inline const uint8_t *ic_slot_tab_find(const ic_slot_tab *t, uint64_t c) {
  if (!t->cap || c < t->floor) return NULL;
  const ic_slot_ent *e = &t->e[c & (t->cap - 1)];
  return e->key == c + 1 ? e->n : NULL;
}

static inline int ic_slot_tab_full(const uint8_t *n, int nw, int np, int pool) {
  return (nw && n[0] >= nw) || (np && n[1 + pool] >= np);
}

/* The slot rule from cycle e0: the first cycle t >= e0 below the floor or
 * with fewer than nw issues (nw 0: no width rule) and fewer than np of
 * `pool`'s (np 0: no pool rule). Each full cycle holds an issue, so this
 * ends within the table's entries. */
static inline uint64_t ic_slot_tab_time(const ic_slot_tab *t, uint64_t e0, int nw, int np, int pool) {
  for (uint64_t c = e0;; c++) {
    const uint8_t *n = ic_slot_tab_find(t, c);
    if (!n || !ic_slot_tab_full(n, nw, np, pool)) return c;
  }
}

/* Doubles the table (the first allocation: IC_SLOT_TAB_MIN entries),
 * keeping the cycles from the floor on; of two that meet in one entry, the
 * later. 0, or -1 (the table unchanged) when out of memory. */
static inline int ic_slot_tab_grow(ic_slot_tab *t) {
  const uint32_t cap = t->cap ? 2 * t->cap : IC_SLOT_TAB_MIN;
  ic_slot_ent *e = calloc(cap, sizeof *e);
  if (!e) return -1;
  for (uint32_t h = 0; h < t->cap; h++) {
    const uint64_t k = t->e[h].key;
    if (!k || k - 1 < t->floor) continue;
    ic_slot_ent *d = &e[(k - 1) & (cap - 1)];
    if (d->key < k) *d = t->e[h];
  }
  free(t->e);
  t->e = e;
  t->cap = cap;
  return 0;
}

/* The slot rule from e0 (as ic_slot_tab_time), and the issue counted in
 * the cycle it gives (none below the floor: free whatever issues there):
 * one walk for both. nw = np = 0 counts an issue in e0. Writes the cycle
 * to *at; 0, or -1 when out of memory. */
static inline __attribute__((always_inline)) int ic_slot_tab_take(ic_slot_tab *t, uint64_t e0, int nw,
                                                                  int np, int pool, uint64_t *at) {
  for (uint64_t c = e0;;) {
    *at = c;
    if (c < t->floor) return 0;
    if (!t->cap && ic_slot_tab_grow(t) != 0) return -1;
    ic_slot_ent *e = &t->e[c & (t->cap - 1)];
    if (e->key == c + 1) {
      if (ic_slot_tab_full(e->n, nw, np, pool)) {
        c++;
        continue;
      }
      e->n[0] += e->n[0] < UINT8_MAX;
      e->n[1 + pool] += e->n[1 + pool] < UINT8_MAX;
      return 0;
    }
    if (e->key && e->key - 1 >= t->floor) { /* another cycle in flight */
      if (t->cap < IC_SLOT_TAB_MAX) {
        if (ic_slot_tab_grow(t) != 0) return -1;
        continue; /* c again */
      }
      if (e->key - 1 > c) return 0; /* the later keeps the entry: c is free */
    }
    e->key = c + 1;
    memset(e->n, 0, sizeof e->n);
    e->n[0] = 1;
    e->n[1 + pool] = 1;
    return 0;
  }
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
