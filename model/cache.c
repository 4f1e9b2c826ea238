/* cache.c: allocation of the tag arrays (lookups are inline in cache.h). */
#include "cache.h"

#include <stdlib.h>
#include <string.h>

int cache_init(cache *c, uint64_t size, uint32_t ways, uint32_t line) {
  memset(c, 0, sizeof *c);
  uint32_t shift = 0;
  while ((1u << shift) < line) shift++;
  uint64_t n = size / line;
  c->sets = (uint32_t)(n / ways);
  c->ways = ways;
  c->shift = shift;
  c->tag = calloc(n, sizeof *c->tag);
  c->lru = calloc(n, sizeof *c->lru);
  c->ready = calloc(n, sizeof *c->ready);
  c->fill_seq = calloc(n, sizeof *c->fill_seq);
  if (!c->tag || !c->lru || !c->ready || !c->fill_seq) {
    cache_free(c);
    return -1;
  }
  return 0;
}

void cache_clear(cache *c) {
  uint64_t n = (uint64_t)c->sets * c->ways;
  memset(c->tag, 0, n * sizeof *c->tag);
  memset(c->lru, 0, n * sizeof *c->lru);
  c->tick = 0;
}

void cache_free(cache *c) {
  free(c->tag);
  free(c->lru);
  free(c->ready);
  free(c->fill_seq);
  memset(c, 0, sizeof *c);
}
