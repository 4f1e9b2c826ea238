/* cache.h: set-associative tag arrays with LRU replacement, used for the
 * L1I, L1D, L2 caches and the TLBs (a TLB is a cache of pages).
 *
 * Each line keeps its tag, an LRU stamp and two words the core uses for data
 * caches: the cycle its fill completes (a hit before then waits for the fill)
 * and the sequence number of the load that missed (for PP edges). The hot
 * lookup is inline; the set count is a power of two (checked by the config
 * loader), so the index is a mask. */
#ifndef IC_CACHE_H
#define IC_CACHE_H

#include <stdint.h>

typedef struct cache {
  uint32_t sets, ways, shift; /* shift = log2(line bytes) */
  uint64_t tick;
  uint64_t *tag;      /* line address + 1; 0 = invalid */
  uint64_t *lru;      /* last-use tick */
  uint64_t *ready;    /* fill completion cycle */
  uint64_t *fill_seq; /* seq of the instruction whose miss filled it */
} cache;

/* size bytes, ways, line bytes (power of two); 0 on success, -1 on OOM. */
int cache_init(cache *c, uint64_t size, uint32_t ways, uint32_t line);
void cache_free(cache *c);
/* Invalidates every line. */
void cache_clear(cache *c);

/* Line index of addr if present (and marks it used), else -1. */
static inline int64_t cache_lookup(cache *c, uint64_t addr) {
  uint64_t la = (addr >> c->shift) + 1;
  uint64_t base = (uint64_t)((la - 1) & (c->sets - 1)) * c->ways;
  for (uint32_t w = 0; w < c->ways; w++)
    if (c->tag[base + w] == la) {
      c->lru[base + w] = ++c->tick;
      return (int64_t)(base + w);
    }
  return -1;
}

/* Installs addr's line, replacing the LRU way; returns its index. The
 * caller sets ready/fill_seq. */
static inline uint64_t cache_fill(cache *c, uint64_t addr) {
  uint64_t la = (addr >> c->shift) + 1;
  uint64_t base = (uint64_t)((la - 1) & (c->sets - 1)) * c->ways;
  uint64_t victim = base, best = UINT64_MAX;
  for (uint32_t w = 0; w < c->ways; w++) {
    if (c->tag[base + w] == 0) {
      victim = base + w;
      break;
    }
    if (c->lru[base + w] < best) best = c->lru[base + w], victim = base + w;
  }
  c->tag[victim] = la;
  c->lru[victim] = ++c->tick;
  c->ready[victim] = 0;
  c->fill_seq[victim] = UINT64_MAX;
  return victim;
}

/* Lookup, filling on a miss; *hit says which. */
static inline uint64_t cache_access(cache *c, uint64_t addr, int *hit) {
  int64_t l = cache_lookup(c, addr);
  *hit = l >= 0;
  return l >= 0 ? (uint64_t)l : cache_fill(c, addr);
}

#endif
