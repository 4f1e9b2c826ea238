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
 * walk would pass every full cycle from its E' to the first free one. So
 * the table keeps bitmaps of full cycles beside the counts
 * (ic_slot_tab.full): map 0 of the cycles full for the width, map 1 + p of
 * those full for pool p's units. A walk passes the cycles its maps know to
 * be full with a bit scan, 64 cycles a word, and checks the counts of the
 * first one they do not know. A bit is set where a walk finds its cycle
 * full or fills it (the common path that counts an issue in a cycle with
 * room leaves the maps alone), and counts above the floor only rise, so a
 * set bit stays true until the floor passes its cycle. A map is of one
 * threshold (ic_slot_tab.th), the first a walk had for it; a walk with
 * another neither uses nor sets it. The floor's rise leaves the bits of the
 * cycles it passes: they are cleared in one go when a walk gets to the
 * cycles that share their bits (ic_slot_tab.bfloor), so the floor costs no
 * more than before. */
#ifndef IC_SLOT_TAB_H
#define IC_SLOT_TAB_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ooo.h"

#define IC_SLOT_TAB_MIN 64u     /* entries of a table's first allocation (a map's word at least) */
#define IC_SLOT_TAB_MAX 16384u  /* entries at most (128 KB, and 12 KB of maps) */

/* issues in a cycle: [0] all, [1 + pool] of the pool (saturating at 255);
 * the other bytes 0 */
typedef uint8_t ic_slot_ent[8];
#define IC_SLOT_MAPS (1 + OOO_POOL_COUNT) /* a map for each count of an entry */
_Static_assert(IC_SLOT_MAPS <= sizeof(ic_slot_ent), "an entry holds every pool's count");
_Static_assert(IC_SLOT_TAB_MIN % 64 == 0, "a map is whole words");

typedef struct ic_slot_tab {
  ic_slot_ent *e;  /* [cap]: cycle c at e[c & (cap - 1)] for c in [floor, floor + cap); else 0 */
  uint64_t *full;  /* IC_SLOT_MAPS maps of cap bits, after e in its allocation: bit c & (cap - 1)
                      of map k set where cycle c (in [bfloor, bfloor + cap)) is below the floor
                      or its count k reaches th[k] */
  uint32_t cap;    /* entries: 0 (nothing allocated) or a power of two */
  uint8_t th[IC_SLOT_MAPS]; /* the threshold each map is of (0: none yet, no bit set) */
  uint64_t floor;  /* cycles below it count as free */
  uint64_t top;    /* 1 + the latest cycle counted (0: none): the entries of
                      later cycles are 0, so a rising floor zeroes only up to
                      it (a miss-bound run's floor passes many idle cycles) */
  uint64_t bfloor; /* <= floor: the maps' bits of the cycles in [bfloor, floor)
                      are not cleared yet, so a bit tells of a cycle at or
                      above the floor only below bfloor + cap */
} ic_slot_tab;

/* Bytes of a table's allocation of cap entries: the entries and the maps. */
static inline size_t ic_slot_tab_bytes(uint32_t cap) {
  return (size_t)cap * sizeof(ic_slot_ent) + (size_t)IC_SLOT_MAPS * (cap / 64) * sizeof(uint64_t);
}

/* Map k (0: the width's, 1 + p: pool p's). */
static inline uint64_t *ic_slot_tab_map(const ic_slot_tab *t, int k) { return t->full + (size_t)k * (t->cap / 64); }

static inline void ic_slot_tab_free(ic_slot_tab *t) {
  free(t->e);
  memset(t, 0, sizeof *t);
}

/* Forgets every count and every map's threshold (keeps the allocation). */
static inline void ic_slot_tab_clear(ic_slot_tab *t) {
  if (t->cap) memset(t->e, 0, ic_slot_tab_bytes(t->cap));
  t->floor = t->top = t->bfloor = 0;
  memset(t->th, 0, sizeof t->th);
}

/* The floor rises to d (never falls): the entries of the cycles it passes
 * are zeroed for the cycles a table further on (only those up to top: the
 * later ones are 0 already), as one or two ranges. Their bits stay until a
 * walk needs them cleared (ic_slot_tab_unstale). */
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

/* Clears the n bits of map m (cap bits, a ring) from cycle c's on; n >=
 * cap: all of them. Time: O(n / 64). */
static inline void ic_slot_map_clear(uint64_t *m, uint32_t cap, uint64_t c, uint64_t n) {
  if (n >= cap) {
    memset(m, 0, (size_t)(cap / 64) * sizeof *m);
    return;
  }
  while (n) {
    const uint64_t pos = c & (cap - 1), sh = pos & 63, k = n < 64 - sh ? n : 64 - sh;
    m[pos >> 6] &= ~((k == 64 ? ~0ull : (1ull << k) - 1) << sh);
    c += k;
    n -= k;
  }
}

/* The maps' bits of the cycles below the floor are cleared (those of the
 * cycles up to top: no later cycle was counted, so none has a bit), and
 * bfloor rises to the floor: every bit then tells of a cycle in [floor,
 * floor + cap). */
static __attribute__((noinline, unused)) void ic_slot_tab_unstale(ic_slot_tab *t) {
  const uint64_t end = t->floor < t->top ? t->floor : t->top;
  if (end > t->bfloor)
    for (int k = 0; k < IC_SLOT_MAPS; k++)
      if (t->th[k]) ic_slot_map_clear(ic_slot_tab_map(t, k), t->cap, t->bfloor, end - t->bfloor);
  t->bfloor = t->floor;
}

/* The first cycle from c on whose bit is clear in map a and in map b (of
 * cap bits; a map used alone: a == b), or end where every one up to it is
 * set; c in [max(floor, bfloor), end), end <= bfloor + cap: every cycle it
 * passes is full. Time: O(1 + cycles passed / 64). */
static inline uint64_t ic_slot_tab_skip(const uint64_t *a, const uint64_t *b, uint32_t cap, uint64_t c,
                                        uint64_t end) {
  for (;;) {
    const uint64_t pos = c & (cap - 1), sh = pos & 63;
    const uint64_t clear = ~(a[pos >> 6] | b[pos >> 6]) >> sh;
    if (clear) {
      c += (uint64_t)__builtin_ctzll(clear);
      return c < end ? c : end;
    }
    c += 64 - sh;
    if (c >= end) return end;
  }
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
 * ends within the table's entries. Passes the cycles the maps know to be
 * full (where the width rule is its map's) without looking at their
 * counts, but sets no bits (t is const). */
static inline uint64_t ic_slot_tab_time(const ic_slot_tab *t, uint64_t e0, int nw, int np, int pool) {
  const int maps = t->cap && nw && nw == t->th[0];
  const uint64_t *a = maps ? ic_slot_tab_map(t, 0) : NULL;
  const uint64_t *b = maps && np && np == t->th[1 + pool] ? ic_slot_tab_map(t, 1 + pool) : a;
  for (uint64_t c = e0;;) {
    const uint8_t *n = ic_slot_tab_find(t, c);
    if (!n || !ic_slot_tab_full(n, nw, np, pool)) return c;
    c++;
    if (maps && c - t->bfloor < t->cap) c = ic_slot_tab_skip(a, b, t->cap, c, t->bfloor + t->cap);
  }
}

/* Grows the table (the first allocation: IC_SLOT_TAB_MIN entries) until
 * cycle c (>= the floor) fits, up to IC_SLOT_TAB_MAX, keeping the counts
 * (the maps start empty: a bit is a shortcut, never a count). 0, or -1
 * (the table unchanged) when out of memory. */
static inline int ic_slot_tab_grow(ic_slot_tab *t, uint64_t c) {
  uint32_t cap = t->cap ? 2 * t->cap : IC_SLOT_TAB_MIN;
  while (cap < IC_SLOT_TAB_MAX && c - t->floor >= cap) cap *= 2;
  ic_slot_ent *e = calloc(1, ic_slot_tab_bytes(cap));
  if (!e) return -1;
  for (uint64_t x = t->floor; x < t->floor + t->cap; x++)
    memcpy(e[x & (cap - 1)], t->e[x & (t->cap - 1)], sizeof *e);
  free(t->e);
  t->e = e;
  t->full = (uint64_t *)(void *)(e + cap);
  t->cap = cap;
  t->bfloor = t->floor;
  return 0;
}

/* ic_slot_tab_take_th's walk from cycle c (>= the floor; the cycles from
 * its e0 up to c are full) in every case: a table to grow, a cycle beyond
 * the largest table, bits to clear, a map without its threshold yet (the
 * rule's becomes it), a rule without its map, or a count at 255. Out of
 * line: the inline walk leaves it the rare cases. */
static __attribute__((noinline, unused)) int ic_slot_tab_walk(ic_slot_tab *t, uint64_t c, unsigned tw, unsigned tp,
                                                             int pool, uint64_t *at) {
  if (tw < 256u && !t->th[0]) t->th[0] = (uint8_t)tw;
  if (tp < 256u && !t->th[1 + pool]) t->th[1 + pool] = (uint8_t)tp;
  const int uw = tw == t->th[0], up = tp == t->th[1 + pool];
  for (;;) {
    if (c - t->floor >= t->cap) {
      if (t->cap < IC_SLOT_TAB_MAX && ic_slot_tab_grow(t, c) != 0) return -1;
      if (c - t->floor >= t->cap) { /* beyond the largest table: free, not counted */
        *at = c;
        return 0;
      }
    }
    uint64_t *const mw = ic_slot_tab_map(t, 0), *const mp = ic_slot_tab_map(t, 1 + pool);
    if (uw | up) { /* pass the cycles known to be full */
      if (c - t->bfloor >= t->cap) ic_slot_tab_unstale(t);
      c = ic_slot_tab_skip(uw ? mw : mp, up ? mp : mw, t->cap, c, t->bfloor + t->cap);
      if (c - t->bfloor >= t->cap) continue; /* the maps' end: beyond the table, or bits to clear */
    }
    const uint64_t pos = c & (t->cap - 1), bit = 1ull << (pos & 63);
    uint8_t *n = t->e[pos];
    const int room = n[0] < tw && n[1 + pool] < tp;
    if (room) {
      n[0] += n[0] < UINT8_MAX;
      n[1 + pool] += n[1 + pool] < UINT8_MAX;
    }
    if (c - t->bfloor < t->cap) { /* full: known so from now on */
      if (uw && n[0] >= tw) mw[pos >> 6] |= bit;
      if (up && n[1 + pool] >= tp) mp[pos >> 6] |= bit;
    }
    if (!room) {
      c++;
      continue;
    }
    if (c >= t->top) t->top = c + 1;
    *at = c;
    return 0;
  }
}

/* ic_slot_tab_take (below) with the rules as thresholds: a cycle is full
 * where its count reaches tw, or its pool's reaches tp; 256 (no count
 * reaches it: counts saturate at 255) where a rule does not live. The
 * floor is checked once (the walk only rises from e0). Inline, the common
 * walk: a width rule that is its map's (and a pool rule that is its map's,
 * or none that is), from a cycle the maps tell of, to a cycle with room
 * (and no count at 255) before their end; each full cycle it looks at gets
 * its bits, and so does the one it fills. */
static inline __attribute__((always_inline)) int ic_slot_tab_take_th(ic_slot_tab *t, uint64_t e0, unsigned tw,
                                                                     unsigned tp, int pool, uint64_t *at) {
  *at = e0;
  if (e0 < t->floor) return 0;
  uint64_t c = e0;
  const uint32_t cap = t->cap;
  if (tw == t->th[0] && c - t->floor < cap) {
    if (c - t->bfloor >= cap) ic_slot_tab_unstale(t);
    const uint64_t end = t->bfloor + cap;
    uint64_t *const a = ic_slot_tab_map(t, 0), *const mp = ic_slot_tab_map(t, 1 + pool);
    const int up = tp == t->th[1 + pool];
    uint64_t *const b = up ? mp : a;
    const unsigned tb = up ? tp : 256u; /* pool-full cycles get bits where the pool's map is of tp */
    ic_slot_ent *const e = t->e;
    /* room below these: a count that rises stays below 256 */
    const unsigned tw1 = tw < 255u ? tw : 255u, tp1 = tp < 255u ? tp : 255u;
    for (;;) {
      c = ic_slot_tab_skip(a, b, cap, c, end);
      if (c == end) break;
      const uint64_t pos = c & (cap - 1), bit = 1ull << (pos & 63);
      uint8_t *n = e[pos];
      const unsigned nw = n[0], np = n[1 + pool];
      if (nw < tw1 && np < tp1) {
        n[0] = (uint8_t)(nw + 1);
        n[1 + pool] = (uint8_t)(np + 1);
        if (nw + 1 >= tw) a[pos >> 6] |= bit;
        if (np + 1 >= tb) b[pos >> 6] |= bit;
        if (c >= t->top) t->top = c + 1;
        *at = c;
        return 0;
      }
      if (nw < tw && np < tp) break; /* room, but a count at 255 */
      if (nw >= tw) a[pos >> 6] |= bit;
      if (np >= tb) b[pos >> 6] |= bit;
      if (++c == end) break;
    }
  }
  return ic_slot_tab_walk(t, c, tw, tp, pool, at);
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
    nt.e = malloc(ic_slot_tab_bytes(src->cap));
    if (!nt.e) return -1;
    memcpy(nt.e, src->e, ic_slot_tab_bytes(src->cap));
    nt.full = (uint64_t *)(void *)(nt.e + src->cap);
  }
  ic_slot_tab_free(dst);
  *dst = nt;
  return 0;
}

#endif
