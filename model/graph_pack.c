/* graph_pack.c: packing and unpacking graph records (graph_pack.h).
 *
 * A packed record, little-endian:
 *   head   u8: nedges (4 bits; 15: a u8 with the count follows) | 0x10 a
 *          repeat | 0x20 seq is not the previous + 1 (u64 seq follows) |
 *          0x80 opclass, iq, sdrop or a rule differ from the last record
 *          of the pc's slot (u8 opclass, u32 iq, u8 sdrop[2], u8 slot_w,
 *          slot_p, mshr_k follow) | 0x40 wide stamps
 *   narrow: i16 pc - previous pc, u16 t[D] - previous t[D], u8 t[k] - t[k-1]
 *          for R, E, P, C (each within its range, else the record is wide)
 *   wide:   u64 pc, u64 t[5]
 *   a repeat: the edges of the pc's slot in the table (the last record of
 *     that pc, which had as many), each edge of a kind whose dist varies
 *     (ic_edge_dist_varies) with a new dist: u16 each
 *   else per edge (the first min(nedges, IC_MAX_EDGES)), and the record's
 *   edges become its pc's slot:
 *     short: u8 kind (5 bits) | part count (0..2) << 5, u16 dist, where the
 *            kind is below 31, flags and keep are 0 and dist fits
 *     long:  u8 0x80, then the edge's first 8 bytes as in memory (kind,
 *            nparts, flags, keep, u32 dist)
 *     then its first min(nparts, IC_MAX_PARTS) parts, a u32 each as in
 *     memory (24 bits of cycles, 8 of category).
 * Fixed-width fields, so unpacking is a few loads and predictable branches:
 * the consumer's CPU pays for it on every record. A record repeats its
 * slot's edges when each edge has the same kind, nparts, flags, keep,
 * parts below nparts and, for a kind whose dist does not vary, dist, and
 * every varying dist fits 16 bits.
 *
 * Each slot's edges carry a shape id, new whenever a record replaces them
 * (ids never repeat within a process: each stream draws its own range), so
 * records with one id have the same edges but for the varying dists:
 * unpacking reports it (ic_rec_pack_state.shape) for a consumer that
 * reuses work across them. */
#include "graph_pack.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__) && defined(__x86_64__) && !defined(IC_PACK_PORTABLE)
#define HAVE_REPEATS_AVX2 1 /* repeats_avx2, where the CPU has AVX2 */
#endif

_Static_assert(sizeof(ic_edge) == 24 && offsetof(ic_edge, dist) == 4 && offsetof(ic_edge, part) == 8 &&
                   sizeof(ic_lat_part) == 4,
               "a long edge is the edge's first 8 bytes, a part one word");

static inline uint8_t *put16(uint8_t *p, uint16_t v) {
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
  return p + 2;
}
static inline uint16_t get16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }

/* Shape ids: a stream takes ids from a range of 2^SHAPE_BITS of its own
 * (and a new range when it has used those up). */
#define SHAPE_BITS 40
static _Atomic uint64_t shape_ranges;
static uint64_t shape_range(void) { return (atomic_fetch_add(&shape_ranges, 1) + 1) << SHAPE_BITS; }

static inline uint64_t new_shape(ic_rec_pack_state *s) {
  if (!(++s->next_shape & ((UINT64_C(1) << SHAPE_BITS) - 1))) s->next_shape = shape_range() + 1;
  return s->next_shape;
}

int ic_rec_pack_init(ic_rec_pack_state *s) {
  *s = (ic_rec_pack_state){.seq = UINT64_MAX, .next_shape = shape_range()};
#ifdef HAVE_REPEATS_AVX2
  s->avx2 = __builtin_cpu_supports("avx2") != 0;
#endif
  s->ref = malloc(IC_REC_PACK_REFS * sizeof *s->ref);
  if (!s->ref) return -1;
  for (uint32_t k = 0; k < IC_REC_PACK_REFS; k++) s->ref[k] = (ic_rec_pack_ref){.nedges = UINT8_MAX};
  return 0;
}

void ic_rec_pack_free(ic_rec_pack_state *s) {
  free(s->ref);
  s->ref = NULL;
}

static inline ic_rec_pack_ref *ref_of(const ic_rec_pack_state *s, uint64_t pc) {
  return &s->ref[ic_rec_pack_slot(pc)];
}

/* The bytes of an edge a repeat compares, by whether its dist varies (v)
 * and its part count np (clamped to IC_MAX_PARTS), index 5 v + np: kind,
 * nparts, flags, keep, the dist or where it varies its high half (the
 * slot holds 0 there: a varying dist must fit 16 bits), and the parts it
 * has. */
#define M4 0xff, 0xff, 0xff, 0xff
static const uint8_t edge_mask[10][sizeof(ic_edge)] = {
    {M4, M4}, {M4, M4, M4}, {M4, M4, M4, M4}, {M4, M4, M4, M4, M4}, {M4, M4, M4, M4, M4, M4},
    {M4, 0, 0, 0xff, 0xff}, {M4, 0, 0, 0xff, 0xff, M4}, {M4, 0, 0, 0xff, 0xff, M4, M4},
    {M4, 0, 0, 0xff, 0xff, M4, M4, M4}, {M4, 0, 0, 0xff, 0xff, M4, M4, M4, M4}};
#undef M4

/* Does r repeat its slot's edges (the same bytes where the slot's emask
 * is set: same shape and parts, the same dists where the kind's does not
 * vary, varying dists in 16 bits)? Compared over the first nedges edges in
 * 16-byte blocks (the mask is 0 past them; both edge arrays hold
 * IC_MAX_EDGES). Which kinds vary is the slot's: a record of other kinds
 * differs in a kind byte anyway. */
_Static_assert(IC_MAX_EDGES * sizeof(ic_edge) % 16 == 0, "repeats reads 16 bytes at a time");
#if defined(__SSE2__) && !defined(IC_PACK_PORTABLE)
#include <emmintrin.h>
static int repeats(const ic_rec_pack_ref *f, const ic_graph_rec *r) {
  if (r->nedges > IC_MAX_EDGES || f->pc != r->pc || f->nedges != r->nedges) return 0;
  const size_t bytes = ((size_t)r->nedges * sizeof(ic_edge) + 15) & ~(size_t)15;
  const char *a = (const char *)r->edge, *b = (const char *)f->edge;
  __m128i diff = _mm_setzero_si128();
  for (size_t o = 0; o < bytes; o += 16)
    diff = _mm_or_si128(diff, _mm_and_si128(_mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)(a + o)),
                                                          _mm_loadu_si128((const __m128i *)(const void *)(b + o))),
                                            _mm_loadu_si128((const __m128i *)(const void *)(f->emask + o))));
  return _mm_movemask_epi8(_mm_cmpeq_epi8(diff, _mm_setzero_si128())) == 0xffff;
}
#ifdef HAVE_REPEATS_AVX2
#include <immintrin.h>
/* The same in 32-byte blocks, where the CPU has AVX2 (ic_rec_pack_state.avx2). */
_Static_assert(IC_MAX_EDGES * sizeof(ic_edge) % 32 == 0, "repeats_avx2 reads 32 bytes at a time");
__attribute__((target("avx2"))) static int repeats_avx2(const ic_rec_pack_ref *f, const ic_graph_rec *r) {
  if (r->nedges > IC_MAX_EDGES || f->pc != r->pc || f->nedges != r->nedges) return 0;
  const size_t bytes = ((size_t)r->nedges * sizeof(ic_edge) + 31) & ~(size_t)31;
  const char *a = (const char *)r->edge, *b = (const char *)f->edge;
  __m256i diff = _mm256_setzero_si256();
  for (size_t o = 0; o < bytes; o += 32)
    diff = _mm256_or_si256(
        diff, _mm256_and_si256(_mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(const void *)(a + o)),
                                                _mm256_loadu_si256((const __m256i *)(const void *)(b + o))),
                               _mm256_loadu_si256((const __m256i *)(const void *)(f->emask + o))));
  return _mm256_testz_si256(diff, diff);
}
#endif
#else
static int repeats(const ic_rec_pack_ref *f, const ic_graph_rec *r) {
  if (r->nedges > IC_MAX_EDGES || f->pc != r->pc || f->nedges != r->nedges) return 0;
  const size_t bytes = ((size_t)r->nedges * sizeof(ic_edge) + 15) & ~(size_t)15;
  uint64_t diff = 0;
  for (size_t o = 0; o < bytes; o += 8) {
    uint64_t x, y, m;
    memcpy(&x, (const char *)r->edge + o, 8);
    memcpy(&y, (const char *)f->edge + o, 8);
    memcpy(&m, f->emask + o, 8);
    diff |= (x ^ y) & m;
  }
  return diff == 0;
}
#endif

/* A record's opclass, rules and scoped drops as the stream's group holds
 * them (u8 opclass, u32 iq, u8 sdrop[2], slot_w, slot_p, mshr_k); a pc's
 * slot keeps the last one, which the next record of the pc is coded
 * against. */
static inline void group_of(const ic_graph_rec *r, uint8_t g[IC_REC_PACK_GROUP]) {
  g[0] = r->opclass;
  memcpy(g + 1, &r->iq, 4);
  g[5] = r->sdrop[0];
  g[6] = r->sdrop[1];
  g[7] = r->slot_w;
  g[8] = r->slot_p;
  g[9] = r->mshr_k;
}
static inline void group_to(const uint8_t g[IC_REC_PACK_GROUP], ic_graph_rec *r) {
  r->opclass = g[0];
  memcpy(&r->iq, g + 1, 4);
  r->sdrop[0] = g[5];
  r->sdrop[1] = g[6];
  r->slot_w = g[7];
  r->slot_p = g[8];
  r->mshr_k = g[9];
  memset(r->rule_pad_, 0, sizeof r->rule_pad_);
}

/* Set bits of a 16-bit mask (a multiply and mask: __builtin_popcount is a
 * libgcc call in a build without -mpopcnt). */
static inline unsigned bits16(uint32_t v) {
  return (unsigned)(((v & 0x3fffu) * UINT64_C(0x200040008001) & UINT64_C(0x111111111111111)) % 15 +
                    (v >> 14 & 1u) + (v >> 15 & 1u));
}

/* The record's edges become its slot's, the dists that vary cleared, under
 * a new shape id (the record's). */
static void keep_edges(ic_rec_pack_state *s, ic_rec_pack_ref *f, const ic_graph_rec *r, int ne,
                       int producer) {
  f->pc = r->pc;
  f->nedges = r->nedges;
  f->vary = 0;
  for (int k = 0; k < ne; k++) {
    const ic_edge *e = &r->edge[k];
    const int v = ic_edge_dist_varies(e->kind);
    f->edge[k] = *e;
    if (v) {
      f->edge[k].dist = 0;
      f->vary |= (uint16_t)(1u << k);
    }
    if (producer)
      memcpy(f->emask + (size_t)k * sizeof(ic_edge),
             edge_mask[5 * v + (e->nparts < IC_MAX_PARTS ? e->nparts : IC_MAX_PARTS)], sizeof(ic_edge));
  }
  if (producer) memset(f->emask + (size_t)ne * sizeof(ic_edge), 0, sizeof f->emask - (size_t)ne * sizeof(ic_edge));
  s->shape = f->shape = new_shape(s);
}

size_t ic_rec_pack(ic_rec_pack_state *s, const ic_graph_rec *r, uint8_t *out) {
  uint8_t *p = out + 1;
  uint8_t head = r->nedges < 15 ? r->nedges : 15;
  if (head == 15) *p++ = r->nedges;
  if (r->seq != s->seq + 1) {
    head |= 0x20;
    memcpy(p, &r->seq, 8);
    p += 8;
  }
  ic_rec_pack_ref *f = ref_of(s, r->pc);
  uint8_t g[IC_REC_PACK_GROUP];
  group_of(r, g);
  if (memcmp(g, f->group, sizeof g) != 0) {
    head |= 0x80;
    memcpy(p, g, sizeof g);
    memcpy(f->group, g, sizeof g);
    p += sizeof g;
  }
  const int64_t dpc = (int64_t)(r->pc - s->pc);
  const uint64_t dt0 = r->t[0] - s->t0;
  _Static_assert(IC_NODE_COUNT == 5, "a narrow record's four node gaps are one word");
  const uint64_t g1 = r->t[1] - r->t[0], g2 = r->t[2] - r->t[1], g3 = r->t[3] - r->t[2], g4 = r->t[4] - r->t[3];
  if (dpc >= INT16_MIN && dpc <= INT16_MAX && dt0 <= UINT16_MAX && (g1 | g2 | g3 | g4) <= UINT8_MAX) {
    p = put16(p, (uint16_t)dpc);
    p = put16(p, (uint16_t)dt0);
    const uint8_t gaps[4] = {(uint8_t)g1, (uint8_t)g2, (uint8_t)g3, (uint8_t)g4};
    memcpy(p, gaps, 4);
    p += 4;
  } else {
    head |= 0x40;
    memcpy(p, &r->pc, 8);
    memcpy(p + 8, r->t, sizeof r->t);
    p += 8 + sizeof r->t;
  }
#ifdef HAVE_REPEATS_AVX2
  const int rep = s->avx2 ? repeats_avx2(f, r) : repeats(f, r);
#else
  const int rep = repeats(f, r);
#endif
  if (rep) { /* the varying dists alone */
    out[0] = head | 0x10;
    for (unsigned v = f->vary; v; v &= v - 1) p = put16(p, (uint16_t)r->edge[__builtin_ctz(v)].dist);
    s->shape = f->shape;
    goto done;
  }
  out[0] = head;
  const int ne = r->nedges < IC_MAX_EDGES ? r->nedges : IC_MAX_EDGES;
  s->shape = 0;
  if (r->nedges <= IC_MAX_EDGES) keep_edges(s, f, r, ne, 1);
  for (int k = 0; k < ne; k++) {
    const ic_edge *e = &r->edge[k];
    if (e->kind < 31 && e->nparts <= 2 && !(e->flags | e->keep) && e->dist <= UINT16_MAX) {
      const uint32_t w = (uint32_t)e->kind | (uint32_t)e->nparts << 5 | e->dist << 8;
      memcpy(p, &w, 4); /* 3 bytes and one of slack */
      p += 3;
      memcpy(p, e->part, 8); /* the parts it has and slack */
      p += e->nparts * sizeof(ic_lat_part);
    } else {
      *p++ = 0x80;
      memcpy(p, e, 8);
      p += 8;
      const size_t np = e->nparts < IC_MAX_PARTS ? e->nparts : IC_MAX_PARTS;
      memcpy(p, e->part, sizeof e->part);
      p += np * sizeof(ic_lat_part);
    }
  }
done:
  s->seq = r->seq;
  s->pc = r->pc;
  s->t0 = r->t[0];
  return (size_t)(p - out);
}

/* ic_rec_unpack and ic_rec_unpack_lazy: a repeat's edges are copied into
 * r unless edges is given (*edges is then the slot's, or NULL where r
 * holds them all). */
static inline size_t unpack(ic_rec_pack_state *s, const uint8_t *in, size_t avail, ic_graph_rec *r,
                            const ic_edge **edges, uint64_t tag) {
  const uint8_t *p = in, *const end = in + avail;
  if (p >= end) return 0;
  const uint8_t head = *p++;
  unsigned nedges = head & 15;
  if (nedges == 15) {
    if (p >= end) return 0;
    nedges = *p++;
  }
  uint64_t seq = s->seq + 1;
  if (head & 0x20) {
    if (end - p < 8) return 0;
    memcpy(&seq, p, 8);
    p += 8;
  }
  const uint8_t *group = NULL; /* the fields, read once the pc's slot is known */
  if (head & 0x80) {
    if (end - p < IC_REC_PACK_GROUP) return 0;
    group = p;
    p += IC_REC_PACK_GROUP;
  }
  if (head & 0x40) {
    if (end - p < 8 + (ptrdiff_t)sizeof r->t) return 0;
    memcpy(&r->pc, p, 8);
    memcpy(r->t, p + 8, sizeof r->t);
    p += 8 + sizeof r->t;
  } else {
    if (end - p < 8) return 0;
    r->pc = s->pc + (uint64_t)(int64_t)(int16_t)get16(p);
    r->t[0] = s->t0 + get16(p + 2);
    for (int k = 1; k < IC_NODE_COUNT; k++) r->t[k] = r->t[k - 1] + p[3 + k];
    p += 8;
  }
  r->seq = seq;
  r->nedges = (uint8_t)nedges;
  ic_rec_pack_ref *f = ref_of(s, r->pc);
  if (edges) {
    /* a record that replaces the slot's edges, which a record of this
       batch still refers to: the batch goes first (nothing advanced) */
    if (!(head & 0x10) && nedges <= IC_MAX_EDGES && f->tag == tag) return IC_REC_UNPACK_AGAIN;
    *edges = NULL;
  }
  if (group) memcpy(f->group, group, IC_REC_PACK_GROUP);
  group_to(f->group, r);
  const unsigned ne = nedges < IC_MAX_EDGES ? nedges : IC_MAX_EDGES;
  if (head & 0x10) { /* a repeat of the slot's edges, new varying dists */
    if (nedges > IC_MAX_EDGES || f->pc != r->pc || f->nedges != nedges) return 0;
    const size_t nd = bits16(f->vary);
    if ((size_t)(end - p) < 2 * nd) return 0;
    /* edge by edge (a variable-length memcpy was a slow rep movs), then
       the varying dists over the copies */
    if (edges) {
      *edges = f->edge;
      f->tag = tag;
    } else {
      for (unsigned k = 0; k < nedges; k++) r->edge[k] = f->edge[k];
    }
    const uint8_t *d = p;
    for (unsigned v = f->vary; v; v &= v - 1, d += 2) r->edge[__builtin_ctz(v)].dist = get16(d);
    p += 2 * nd;
    s->shape = f->shape;
    goto done;
  }
  for (unsigned k = 0; k < ne; k++) {
    ic_edge *e = &r->edge[k];
    if (end - p >= 12 && !(p[0] & 0x80)) { /* a short edge with room to read 12 bytes at once */
      uint32_t w, head4;
      memcpy(&w, p, 4);
      const uint32_t np = (w >> 5) & 3;
      head4 = (w & 31) | np << 8; /* kind, nparts, flags 0, keep 0 */
      memcpy(e, &head4, 4);
      e->dist = (w >> 8) & 0xffff;
      memcpy(e->part, p + 3, 8);
      p += 3 + np * sizeof(ic_lat_part);
      if (p > end) return 0;
      continue;
    }
    if (end - p < 3) return 0;
    const uint8_t h = p[0];
    if (!(h & 0x80)) {
      e->kind = h & 31;
      e->nparts = (uint8_t)(h >> 5);
      e->flags = e->keep = 0;
      e->dist = get16(p + 1);
      p += 3;
    } else {
      if (end - p < 9) return 0;
      memcpy(e, p + 1, 8);
      p += 9;
    }
    const size_t np = e->nparts < IC_MAX_PARTS ? e->nparts : IC_MAX_PARTS;
    if ((size_t)(end - p) < np * sizeof(ic_lat_part)) return 0;
    memcpy(e->part, p, np * sizeof(ic_lat_part));
    p += np * sizeof(ic_lat_part);
  }
  s->shape = 0;
  if (nedges <= IC_MAX_EDGES) keep_edges(s, f, r, (int)ne, 0);
done:
  s->seq = seq;
  s->pc = r->pc;
  s->t0 = r->t[0];
  return (size_t)(p - in);
}

size_t ic_rec_unpack(ic_rec_pack_state *s, const uint8_t *in, size_t avail, ic_graph_rec *r) {
  return unpack(s, in, avail, r, NULL, 0);
}

size_t ic_rec_unpack_lazy(ic_rec_pack_state *s, const uint8_t *in, size_t avail, ic_graph_rec *r,
                          const ic_edge **edges, uint64_t tag) {
  return unpack(s, in, avail, r, edges, tag);
}

void ic_rec_whole(ic_graph_rec *out, const ic_graph_rec *r, const ic_edge *edges) {
  memcpy(out, r, offsetof(ic_graph_rec, edge));
  const unsigned ne = r->nedges < IC_MAX_EDGES ? r->nedges : IC_MAX_EDGES;
  for (unsigned k = 0; k < ne; k++) {
    out->edge[k] = edges[k];
    if (ic_edge_dist_varies(edges[k].kind)) out->edge[k].dist = r->edge[k].dist;
  }
}
