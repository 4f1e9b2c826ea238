/* iq_tab.h: the IQ rule's bound (graph_rec.h, IQ RULE).
 *
 * Every instruction waits in the IQ from its dispatch until its issue and
 * dispatch is in order, so when i dispatches the instructions in the IQ are
 * all before i, and i can dispatch once fewer than K of them are still to
 * issue: D(i) is at least the K-th largest E of the instructions before i.
 * The table keeps the K largest E's so far (with their sequence numbers),
 * sorted, in a ring: the smallest of them is the bound once there are K. A
 * new E is mostly the largest so far, so keeping them sorted costs a
 * compare or two. Every evaluator (the model, its check, the reference
 * pass, slack, the stitcher and each lane of the solver) keeps one table
 * through this one implementation, so all of them count alike. */
#ifndef IC_IQ_TAB_H
#define IC_IQ_TAB_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct ic_iq_ent {
  uint64_t e, seq;
} ic_iq_ent;

typedef struct ic_iq_tab {
  ic_iq_ent *v; /* [cap], the kept E's in increasing order from h */
  uint32_t k;   /* how many are kept: the IQ's size (0: no rule) */
  uint32_t n, h, cap; /* cap: a power of two >= k */
} ic_iq_tab;

static inline void ic_iq_tab_free(ic_iq_tab *t) {
  free(t->v);
  memset(t, 0, sizeof *t);
}

/* Forgets every E and sets the size to k (keeps the allocation where it
 * holds k). 0, or -1 when out of memory (then no rule: k 0). */
static inline int ic_iq_tab_reset(ic_iq_tab *t, uint32_t k) {
  t->n = t->h = 0;
  t->k = k;
  if (k <= t->cap) return 0;
  uint32_t cap = 16;
  while (cap < k && cap < (1u << 31)) cap *= 2;
  ic_iq_ent *v = cap >= k ? realloc(t->v, (size_t)cap * sizeof *v) : NULL;
  if (!v) {
    t->k = 0;
    return -1;
  }
  t->v = v;
  t->cap = cap;
  return 0;
}

/* The rule's bound on D: the K-th largest E so far (0 while fewer than K;
 * *src, if not NULL, gets its seq, else UINT64_MAX). */
static inline uint64_t ic_iq_tab_bound(const ic_iq_tab *t, uint64_t *src) {
  if (!t->k || t->n < t->k) {
    if (src) *src = UINT64_MAX;
    return 0;
  }
  const ic_iq_ent *m = &t->v[t->h];
  if (src) *src = m->seq;
  return m->e;
}

/* Counts the E of instruction seq: kept if among the K largest so far. */
static inline void ic_iq_tab_add(ic_iq_tab *t, uint64_t e, uint64_t seq) {
  if (!t->k) return;
  const uint32_t m = t->cap - 1;
  if (t->n == t->k) {
    if (e <= t->v[t->h].e) return; /* not among the K largest */
    t->h = (t->h + 1) & m;          /* the smallest leaves */
    t->n--;
  }
  uint32_t j = t->n;
  for (; j > 0 && t->v[(t->h + j - 1) & m].e > e; j--) t->v[(t->h + j) & m] = t->v[(t->h + j - 1) & m];
  t->v[(t->h + j) & m] = (ic_iq_ent){e, seq};
  t->n++;
}

/* A copy of src into dst (dst's own allocation is replaced). 0 or -1. */
static inline int ic_iq_tab_copy(ic_iq_tab *dst, const ic_iq_tab *src) {
  ic_iq_tab nt = *src;
  if (src->cap) {
    nt.v = malloc((size_t)src->cap * sizeof *nt.v);
    if (!nt.v) return -1;
    memcpy(nt.v, src->v, (size_t)src->cap * sizeof *nt.v);
  }
  ic_iq_tab_free(dst);
  *dst = nt;
  return 0;
}

#endif
