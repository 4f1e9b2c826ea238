/* iq_tab.h: the IQ rule's bound (graph_rec.h, IQ RULE).
 *
 * Every instruction waits in the IQ from its dispatch until its issue and
 * dispatch is in order, so when i dispatches the instructions in the IQ are
 * all before i, and i can dispatch once fewer than K of them are still to
 * issue: D(i) is at least the K-th largest E of the instructions before i.
 * Every evaluator (the model, its check, the reference pass, slack, the
 * stitcher and each lane of the solver) keeps one table through this one
 * implementation, so all of them count alike.
 *
 * The table keeps the K largest E's so far as counts per cycle, in a ring
 * over the cycles they span, [lo, hi]: lo, the smallest of them, is the
 * bound once there are K. An E above lo takes a count and one at lo leaves;
 * lo never falls once K are kept, so finding the next cycle with a count
 * costs in all no more than the cycles the run spans. A sorted ring cost
 * 176 instructions an E in the solver's idealized lanes, where E's come far
 * out of order, and a heap 133.
 *
 * The kept E's span at most IC_IQ_TAB_SPAN cycles: an E further above lo
 * counts as lo + IC_IQ_TAB_SPAN - 1 (an issue that far after the K-th
 * largest, a chain of memory misses, leaves the bound as it is until the
 * cycles between are passed). */
#ifndef IC_IQ_TAB_H
#define IC_IQ_TAB_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define IC_IQ_TAB_SPAN 65536u /* cycles the kept E's span at most (ring entries) */

typedef struct ic_iq_tab {
  uint16_t *c;  /* [cap] counts of kept E's by cycle mod cap; 0 outside [lo, hi] */
  uint32_t k;   /* how many are kept: the IQ's size (0: no rule) */
  uint32_t n;   /* kept so far (<= k) */
  uint32_t cap; /* ring entries: 0 or a power of two */
  uint64_t lo, hi;
} ic_iq_tab;

static inline void ic_iq_tab_free(ic_iq_tab *t) {
  free(t->c);
  memset(t, 0, sizeof *t);
}

/* Forgets every E and sets the size to k (1..IC_IQ_RULE_MAX in the
 * records; any k up to 65535 here; 0: no rule). 0, or -1 for a larger k
 * (then no rule: k 0). */
static inline int ic_iq_tab_reset(ic_iq_tab *t, uint32_t k) {
  if (t->cap && t->n) {
    if (t->hi - t->lo + 1 >= t->cap) memset(t->c, 0, (size_t)t->cap * sizeof *t->c);
    else
      for (uint64_t x = t->lo; x <= t->hi; x++) t->c[x & (t->cap - 1)] = 0;
  }
  t->n = 0;
  t->lo = t->hi = 0;
  t->k = k <= UINT16_MAX ? k : 0;
  return k <= UINT16_MAX ? 0 : -1;
}

/* The rule's bound on D: the K-th largest E so far (0 while fewer than K). */
static inline uint64_t ic_iq_tab_bound(const ic_iq_tab *t) { return t->k && t->n == t->k ? t->lo : 0; }

/* Makes the ring hold cycles [a, b] (b - a < IC_IQ_TAB_SPAN), keeping the
 * counts of [lo, hi]. 0, or -1 when out of memory (the table unchanged). */
static inline int ic_iq_tab_span(ic_iq_tab *t, uint64_t a, uint64_t b) {
  if (b - a < t->cap) return 0;
  uint32_t cap = t->cap ? t->cap : 64;
  while (cap <= b - a) cap *= 2;
  uint16_t *c = calloc(cap, sizeof *c);
  if (!c) return -1;
  if (t->n)
    for (uint64_t x = t->lo; x <= t->hi; x++) c[x & (cap - 1)] = t->c[x & (t->cap - 1)];
  free(t->c);
  t->c = c;
  t->cap = cap;
  return 0;
}

/* Counts E e: kept if among the K largest so far. 0, or -1 when out of
 * memory (the table unchanged). */
static inline int ic_iq_tab_add(ic_iq_tab *t, uint64_t e) {
  if (!t->k) return 0;
  if (!t->n) {
    if (ic_iq_tab_span(t, e, e) != 0) return -1;
    t->lo = t->hi = e;
    t->c[e & (t->cap - 1)] = 1;
    t->n = 1;
    return 0;
  }
  if (t->n == t->k && e <= t->lo) return 0; /* not among the K largest */
  if (e > t->lo && e - t->lo >= IC_IQ_TAB_SPAN) e = t->lo + IC_IQ_TAB_SPAN - 1;
  const uint64_t a = e < t->lo ? e : t->lo, b = e > t->hi ? e : t->hi;
  if (b - a >= IC_IQ_TAB_SPAN) return 0; /* only while fewer than K: far below them */
  if (ic_iq_tab_span(t, a, b) != 0) return -1;
  const uint32_t m = t->cap - 1;
  t->lo = a;
  t->hi = b;
  t->c[e & m]++;
  if (t->n < t->k) {
    t->n++;
    return 0;
  }
  if (--t->c[t->lo & m] == 0) /* the smallest leaves; lo moves to the next kept */
    do t->lo++;
    while (!t->c[t->lo & m]);
  return 0;
}

/* A copy of src into dst (dst's own allocation is replaced). 0 or -1. */
static inline int ic_iq_tab_copy(ic_iq_tab *dst, const ic_iq_tab *src) {
  ic_iq_tab nt = *src;
  if (src->cap) {
    nt.c = malloc((size_t)src->cap * sizeof *nt.c);
    if (!nt.c) return -1;
    memcpy(nt.c, src->c, (size_t)src->cap * sizeof *nt.c);
  }
  ic_iq_tab_free(dst);
  *dst = nt;
  return 0;
}

#endif
