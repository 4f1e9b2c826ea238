/* mshr_tab.h: the holders of the MSHR rule (graph_rec.h, MSHR RULE).
 *
 * The loads so far that took an MSHR, each holding it over [E, P) in one
 * evaluation's times. The rule asks, for load i, for the first cycle from
 * E'(i) at which fewer than K of them hold one; every evaluator (the
 * model's check, the reference pass, slack, the stitcher and each lane of
 * the solver) keeps one table and adds each holder once its P is known,
 * through this one implementation, so all of them count alike.
 *
 * Cycles below the floor, the latest D of a record with the rule so far
 * (ic_mshr_tab_floor, before the rule of each), count as free, as for the
 * slot rule: i's E is at least its D (and D never falls in the model's
 * graphs), so a holder whose P is at most the floor is gone.
 *
 * How many hold at cycle t >= floor: those with E <= t less those with
 * P <= t (E < P for each). So the table keeps the E's and the P's of the
 * holders in flight in two sorted arrays, and the count of those it has
 * let go (an E at most the floor counts at every t from the floor on, and
 * so does a P: `out` is their difference). The rule then walks the P's
 * after E'(i) in order, a step each time the count is full, instead of
 * scanning every holder: in a 20x window (win) hundreds of misses are in
 * flight. A new holder's E and P are mostly the latest so far, so the
 * sorted insertion moves few entries. */
#ifndef IC_MSHR_TAB_H
#define IC_MSHR_TAB_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct ic_mshr_end {
  uint64_t p;   /* a holder's completion */
  uint64_t seq; /* and its sequence number */
} ic_mshr_end;

typedef struct ic_mshr_tab {
  uint64_t *e;    /* sorted E's in flight: [eh, en) */
  ic_mshr_end *p; /* sorted P's in flight: [ph, pn) */
  uint32_t eh, en, ecap, ph, pn, pcap;
  int64_t out;    /* E's let go less P's let go (both at most the floor) */
  uint64_t floor;
} ic_mshr_tab;

static inline void ic_mshr_tab_free(ic_mshr_tab *t) {
  free(t->e);
  free(t->p);
  memset(t, 0, sizeof *t);
}

/* Forgets every holder (keeps the allocation). */
static inline void ic_mshr_tab_clear(ic_mshr_tab *t) {
  t->eh = t->en = t->ph = t->pn = 0;
  t->out = 0;
  t->floor = 0;
}

/* The floor rises to d (never falls): E's and P's at most d are let go. */
static inline void ic_mshr_tab_floor(ic_mshr_tab *t, uint64_t d) {
  if (d <= t->floor) return;
  t->floor = d;
  while (t->eh < t->en && t->e[t->eh] <= d) t->eh++, t->out++;
  while (t->ph < t->pn && t->p[t->ph].p <= d) t->ph++, t->out--;
}

/* The rule from cycle e0 with k MSHRs: the first cycle t >= e0 below the
 * floor or at which fewer than k holders hold one. Where it is later than
 * e0, *src (if not NULL) gets the seq of a holder whose completion gave t
 * (an edge from its P, latency 0, gives t); else UINT64_MAX. k 0: no rule. */
static inline uint64_t ic_mshr_tab_time(const ic_mshr_tab *t, uint64_t e0, int k, uint64_t *src) {
  uint64_t c = e0, from = UINT64_MAX;
  /* at most out + (en - eh) hold at any cycle: mostly fewer than k */
  if (k > 0 && e0 >= t->floor && t->out + (int64_t)(t->en - t->eh) >= k) {
    /* ce, cp: one past the last E, P at most c (c is mostly late: from
       the end) */
    uint32_t ce = t->en, cp = t->pn;
    while (ce > t->eh && t->e[ce - 1] > c) ce--;
    while (cp > t->ph && t->p[cp - 1].p > c) cp--;
    /* full: some holder holds at c, so a P after c exists (cp < pn) */
    while (t->out + (int64_t)(ce - t->eh) - (int64_t)(cp - t->ph) >= k && cp < t->pn) {
      c = t->p[cp].p;
      from = t->p[cp].seq;
      while (cp < t->pn && t->p[cp].p <= c) cp++;
      while (ce < t->en && t->e[ce] <= c) ce++;
    }
  }
  if (src) *src = from;
  return c;
}

/* Room for one more entry in a sorted array of `size`-byte entries whose
 * live part is [*h, *n) of *cap: moved to the front, or grown. 0 or -1. */
static inline int ic_mshr_tab_room(void **a, uint32_t *h, uint32_t *n, uint32_t *cap, size_t size) {
  if (*n < *cap) return 0;
  if (*h > *cap / 2) {
    memmove(*a, (char *)*a + (size_t)*h * size, (size_t)(*n - *h) * size);
    *n -= *h;
    *h = 0;
    return 0;
  }
  const uint32_t nc = *cap ? 2 * *cap : 16;
  void *b = realloc(*a, (size_t)nc * size);
  if (!b) return -1;
  *a = b;
  *cap = nc;
  return 0;
}

/* Adds a holder of [e, p) with sequence number seq (none where p <= e or
 * p is at most the floor). 0, or -1 when out of memory (the table
 * unchanged). */
static inline int ic_mshr_tab_add(ic_mshr_tab *t, uint64_t e, uint64_t p, uint64_t seq) {
  if (p <= e || p <= t->floor) return 0;
  void *ea = t->e, *pa = t->p;
  if ((e > t->floor && ic_mshr_tab_room(&ea, &t->eh, &t->en, &t->ecap, sizeof *t->e) != 0) ||
      ic_mshr_tab_room(&pa, &t->ph, &t->pn, &t->pcap, sizeof *t->p) != 0) {
    t->e = ea;
    t->p = pa;
    return -1;
  }
  t->e = ea;
  t->p = pa;
  if (e <= t->floor) {
    t->out++; /* holds at every cycle from the floor until p */
  } else { /* a sorted insertion from the end */
    uint32_t k = t->en++;
    for (; k > t->eh && t->e[k - 1] > e; k--) t->e[k] = t->e[k - 1];
    t->e[k] = e;
  }
  uint32_t k = t->pn;
  for (; k > t->ph && t->p[k - 1].p > p; k--) t->p[k] = t->p[k - 1];
  t->p[k] = (ic_mshr_end){p, seq};
  t->pn++;
  return 0;
}

/* A copy of src into dst (dst's own allocation is replaced). 0 or -1. */
static inline int ic_mshr_tab_copy(ic_mshr_tab *dst, const ic_mshr_tab *src) {
  ic_mshr_tab nt = *src;
  nt.e = NULL;
  nt.p = NULL;
  nt.eh = nt.ph = 0;
  nt.en = nt.ecap = src->en - src->eh;
  nt.pn = nt.pcap = src->pn - src->ph;
  if (nt.en && !(nt.e = malloc((size_t)nt.en * sizeof *nt.e))) return -1;
  if (nt.pn && !(nt.p = malloc((size_t)nt.pn * sizeof *nt.p))) {
    free(nt.e);
    return -1;
  }
  if (nt.en) memcpy(nt.e, src->e + src->eh, (size_t)nt.en * sizeof *nt.e);
  if (nt.pn) memcpy(nt.p, src->p + src->ph, (size_t)nt.pn * sizeof *nt.p);
  ic_mshr_tab_free(dst);
  *dst = nt;
  return 0;
}

#endif
