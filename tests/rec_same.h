/* rec_same.h: graph records of every shape for tests of what carries them
 * (graph_pack.h, record_pipe.h), and their comparison field by field. */
#ifndef IC_TEST_REC_SAME_H
#define IC_TEST_REC_SAME_H

#include <stdint.h>
#include <string.h>

#include "graph_rec.h"

static inline uint64_t t_mix(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/* Record seq of a made-up stream: mostly like the model's (nearby pcs,
 * rising stamps, a few edges of a part or none), now and then extreme
 * (pcs and stamps far away or falling, every edge slot, malformed kinds
 * and part counts, the largest distances and cycles). Only the fields a
 * consumer reads are set; the rest is zero. */
static inline void t_rec_for(uint64_t seq, ic_graph_rec *r) {
  uint64_t x = t_mix(seq);
  const int wild = (x & 0x1f) == 0;
  memset(r, 0, sizeof *r);
  r->seq = seq;
  r->pc = wild ? t_mix(x) : 0x10000 + (x >> 8) % 512 * 2;
  r->opclass = (uint8_t)(wild ? x >> 16 : (x >> 16) % 24);
  r->iq = (x >> 24) % 4 == 0 ? (uint32_t)((x >> 26) % 80) : 0;
  if ((x >> 28) % 5 == 0) { /* scoped drops (model/scope.h): one or two ids */
    r->sdrop[0] = (uint8_t)(8 + (x >> 30) % 24);
    r->sdrop[1] = (x >> 35) % 3 == 0 ? (uint8_t)(8 + (x >> 37) % 24) : 0;
  }
  { /* the rules: mostly the slot rule of a width, a load's MSHR rule now and then */
    const uint64_t u = t_mix(x + 99);
    r->slot_w = (uint8_t)(wild ? u : u % 8 ? 4 : 0);
    r->slot_p = (uint8_t)(wild ? u >> 8 : (u >> 8) % 4 == 0 ? 1 + (u >> 10) % 3 : 0);
    r->mshr_k = (uint8_t)(wild ? u >> 16 : (u >> 16) % 6 == 0 ? 8 : 0);
  }
  r->nedges = (uint8_t)(wild ? (x >> 32) % 40 : 6 + (x >> 32) % 9);
  uint64_t t = wild ? t_mix(x + 1) : seq * 3 + (x >> 40) % 50;
  for (int k = 0; k < IC_NODE_COUNT; k++) {
    r->t[k] = t;
    t += wild && (x >> (44 + k)) & 1 ? (uint64_t)-(int64_t)((x >> 50) % 1000) : (x >> (48 + k)) % 30;
  }
  const int ne = r->nedges < IC_MAX_EDGES ? r->nedges : IC_MAX_EDGES;
  for (int k = 0; k < ne; k++) {
    uint64_t y = t_mix(x + 17 + (uint64_t)k);
    ic_edge *e = &r->edge[k];
    const int ewild = wild && (y & 3) == 0;
    e->kind = (uint8_t)(ewild ? y >> 8 : (y >> 8) % IC_EDGE_KIND_COUNT);
    e->nparts = (uint8_t)(ewild ? (y >> 16) % 9 : (y >> 16) % 3 == 0);
    if ((y >> 20) % 8 == 0) {
      e->flags = (uint8_t)(y >> 24);
      e->keep = (uint8_t)(y >> 32);
    }
    e->dist = ewild ? (uint32_t)(y >> 32) : (uint32_t)((y >> 40) % 200);
    const int np = e->nparts < IC_MAX_PARTS ? e->nparts : IC_MAX_PARTS;
    for (int q = 0; q < np; q++) {
      uint64_t z = t_mix(y + (uint64_t)q);
      e->part[q].cycles = (uint32_t)(ewild ? z & IC_PART_MAX_CYCLES : z % 300);
      e->part[q].cat = (uint8_t)((z >> 32) % 9 == 8 ? 0xff : (z >> 32) % 9);
    }
  }
}

/* Record seq of a stream that repeats: two in three are one of 16
 * instructions again and again with their varying dists changing (the
 * record pipe codes those as repeats of their pc's slot), the rest
 * t_rec_for's, some of which replace those instructions' slots. */
static inline void t_rec_rep(uint64_t seq, ic_graph_rec *r) {
  if (seq % 3) {
    t_rec_for(1000000 + seq % 16, r);
    r->seq = seq;
    for (int k = 0; k < r->nedges && k < IC_MAX_EDGES; k++)
      if (ic_edge_dist_varies(r->edge[k].kind)) r->edge[k].dist = (uint32_t)(t_mix(seq * 31 + (uint64_t)k) % 66000);
  } else {
    t_rec_for(seq, r);
  }
}

/* Do a and b agree on every field a consumer reads? */
static inline int t_rec_same(const ic_graph_rec *a, const ic_graph_rec *b) {
  if (a->seq != b->seq || a->pc != b->pc || a->opclass != b->opclass || a->nedges != b->nedges ||
      a->iq != b->iq || a->sdrop[0] != b->sdrop[0] || a->sdrop[1] != b->sdrop[1] ||
      a->slot_w != b->slot_w || a->slot_p != b->slot_p || a->mshr_k != b->mshr_k ||
      memcmp(a->t, b->t, sizeof a->t) != 0)
    return 0;
  const int ne = a->nedges < IC_MAX_EDGES ? a->nedges : IC_MAX_EDGES;
  for (int k = 0; k < ne; k++) {
    const ic_edge *x = &a->edge[k], *y = &b->edge[k];
    if (x->kind != y->kind || x->nparts != y->nparts || x->flags != y->flags || x->keep != y->keep ||
        x->dist != y->dist)
      return 0;
    const int np = x->nparts < IC_MAX_PARTS ? x->nparts : IC_MAX_PARTS;
    for (int q = 0; q < np; q++)
      if (x->part[q].cycles != y->part[q].cycles || x->part[q].cat != y->part[q].cat) return 0;
  }
  return 1;
}

#endif
