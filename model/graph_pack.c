/* graph_pack.c: packing and unpacking graph records (graph_pack.h).
 *
 * A packed record, little-endian:
 *   head   u8: nedges (4 bits; 15: a u8 with the count follows) | 0x10 a
 *          repeat | 0x20 seq is not the previous + 1 (u64 seq follows) |
 *          0x80 opclass, iq or sdrop changed (u8 opclass, u32 iq, u8
 *          sdrop[2] follow) | 0x40 wide stamps
 *   narrow: i16 pc - previous pc, u16 t[D] - previous t[D], u8 t[k] - t[k-1]
 *          for R, E, P, C (each within its range, else the record is wide)
 *   wide:   u64 pc, u64 t[5]
 *   a repeat: the edges of the pc's slot in the table (the last record of
 *     that pc, which had as many), each with a new dist: u16 each
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
 * slot's edges when each edge has the same kind, nparts, flags, keep and
 * parts below nparts, and every dist fits 16 bits. */
#include "graph_pack.h"

#include <stdlib.h>
#include <string.h>

_Static_assert(offsetof(ic_edge, dist) == 4 && offsetof(ic_edge, part) == 8 &&
                   sizeof(ic_lat_part) == 4,
               "a long edge is the edge's first 8 bytes, a part one word");

static inline uint8_t *put16(uint8_t *p, uint16_t v) {
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
  return p + 2;
}
static inline uint16_t get16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }

int ic_rec_pack_init(ic_rec_pack_state *s) {
  *s = (ic_rec_pack_state){.seq = UINT64_MAX};
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
  return &s->ref[(uint32_t)((pc >> 1) * 0x9E3779B97F4A7C15ull >> 40) & (IC_REC_PACK_REFS - 1)];
}

/* Does r repeat its slot's edges (same shape and parts, dists in 16 bits)?
 * Per edge: kind, nparts, flags, keep and the parts it has against the
 * slot's, and the record's dist's high half against the slot's, which is
 * 0 (slots keep no dists). Writes each dist's low half to dists[k] on the
 * way (the repeat form's body, dropped when the answer is no). */
#if defined(__SSE2__) && !defined(IC_PACK_PORTABLE)
#include <emmintrin.h>
/* bytes compared per part count (0..4, clamped): kind..keep, dist's high
 * half, the first two parts' words */
static const uint8_t part_mask[5][16] = {
    {0xff, 0xff, 0xff, 0xff, 0, 0, 0xff, 0xff},
    {0xff, 0xff, 0xff, 0xff, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff},
    {0xff, 0xff, 0xff, 0xff, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff},
    {0xff, 0xff, 0xff, 0xff, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff},
    {0xff, 0xff, 0xff, 0xff, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}};
static int repeats(const ic_rec_pack_ref *f, const ic_graph_rec *r, uint8_t *dists) {
  if (r->nedges > IC_MAX_EDGES || f->pc != r->pc || f->nedges != r->nedges) return 0;
  __m128i diff = _mm_setzero_si128();
  uint64_t more = 0;
  for (int k = 0; k < r->nedges; k++) {
    const ic_edge *a = &r->edge[k], *b = &f->edge[k];
    const int np = a->nparts < IC_MAX_PARTS ? a->nparts : IC_MAX_PARTS;
    const __m128i x = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)a),
                                     _mm_loadu_si128((const __m128i *)(const void *)b));
    diff = _mm_or_si128(diff, _mm_and_si128(x, _mm_loadu_si128((const __m128i *)(const void *)part_mask[np])));
    if (np > 2) {
      uint64_t pa, pb;
      memcpy(&pa, &a->part[2], 8);
      memcpy(&pb, &b->part[2], 8);
      more |= (pa ^ pb) & (np == 4 ? ~0ull : 0xffffffffull);
    }
    dists[2 * k] = (uint8_t)a->dist;
    dists[2 * k + 1] = (uint8_t)(a->dist >> 8);
  }
  return _mm_movemask_epi8(_mm_cmpeq_epi8(diff, _mm_setzero_si128())) == 0xffff && !more;
}
#else
static int repeats(const ic_rec_pack_ref *f, const ic_graph_rec *r, uint8_t *dists) {
  if (r->nedges > IC_MAX_EDGES || f->pc != r->pc || f->nedges != r->nedges) return 0;
  uint64_t diff = 0;
  for (int k = 0; k < r->nedges; k++) {
    const ic_edge *a = &r->edge[k], *b = &f->edge[k];
    uint64_t ha, hb;
    memcpy(&ha, a, 8);
    memcpy(&hb, b, 8);
    diff |= (ha ^ hb) & 0xffff0000ffffffffull;
    const int np = a->nparts < IC_MAX_PARTS ? a->nparts : IC_MAX_PARTS;
    for (int q = 0; q < np; q++)
      diff |= (uint64_t)(a->part[q].cycles != b->part[q].cycles || a->part[q].cat != b->part[q].cat);
    dists[2 * k] = (uint8_t)a->dist;
    dists[2 * k + 1] = (uint8_t)(a->dist >> 8);
  }
  return diff == 0;
}
#endif

/* The record's edges become its slot's, without their dists. */
static void keep_edges(ic_rec_pack_ref *f, const ic_graph_rec *r, int ne) {
  f->pc = r->pc;
  f->nedges = r->nedges;
  for (int k = 0; k < ne; k++) {
    f->edge[k] = r->edge[k];
    f->edge[k].dist = 0;
  }
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
  if (r->opclass != s->opclass || r->iq != s->iq || r->sdrop[0] != s->sdrop[0] ||
      r->sdrop[1] != s->sdrop[1]) {
    head |= 0x80;
    *p++ = r->opclass;
    memcpy(p, &r->iq, 4);
    p[4] = r->sdrop[0];
    p[5] = r->sdrop[1];
    p += 6;
  }
  const int64_t dpc = (int64_t)(r->pc - s->pc);
  const uint64_t dt0 = r->t[0] - s->t0;
  int narrow = dpc >= INT16_MIN && dpc <= INT16_MAX && dt0 <= UINT16_MAX;
  for (int k = 1; k < IC_NODE_COUNT; k++) narrow &= r->t[k] - r->t[k - 1] <= UINT8_MAX;
  if (narrow) {
    p = put16(p, (uint16_t)dpc);
    p = put16(p, (uint16_t)dt0);
    for (int k = 1; k < IC_NODE_COUNT; k++) *p++ = (uint8_t)(r->t[k] - r->t[k - 1]);
  } else {
    head |= 0x40;
    memcpy(p, &r->pc, 8);
    memcpy(p + 8, r->t, sizeof r->t);
    p += 8 + sizeof r->t;
  }
  ic_rec_pack_ref *f = ref_of(s, r->pc);
  if (repeats(f, r, p)) {
    out[0] = head | 0x10;
    p += 2 * r->nedges;
    goto done;
  }
  out[0] = head;
  const int ne = r->nedges < IC_MAX_EDGES ? r->nedges : IC_MAX_EDGES;
  if (r->nedges <= IC_MAX_EDGES) keep_edges(f, r, ne);
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
  s->iq = r->iq;
  s->opclass = r->opclass;
  s->sdrop[0] = r->sdrop[0];
  s->sdrop[1] = r->sdrop[1];
  return (size_t)(p - out);
}

size_t ic_rec_unpack(ic_rec_pack_state *s, const uint8_t *in, size_t avail, ic_graph_rec *r) {
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
  uint8_t opclass = s->opclass, sd0 = s->sdrop[0], sd1 = s->sdrop[1];
  uint32_t iq = s->iq;
  if (head & 0x80) {
    if (end - p < 7) return 0;
    opclass = p[0];
    memcpy(&iq, p + 1, 4);
    sd0 = p[5];
    sd1 = p[6];
    p += 7;
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
  r->opclass = opclass;
  r->iq = iq;
  r->sdrop[0] = sd0;
  r->sdrop[1] = sd1;
  r->nedges = (uint8_t)nedges;
  ic_rec_pack_ref *f = ref_of(s, r->pc);
  const unsigned ne = nedges < IC_MAX_EDGES ? nedges : IC_MAX_EDGES;
  if (head & 0x10) { /* a repeat of the slot's edges, new dists */
    if (nedges > IC_MAX_EDGES || f->pc != r->pc || f->nedges != nedges ||
        (size_t)(end - p) < 2 * (size_t)nedges)
      return 0;
    /* edge by edge (a variable-length memcpy was a slow rep movs), the
       dist stored over the copy (built in a register, the edge went
       through the stack and its reload waited on the narrower store) */
    for (unsigned k = 0; k < nedges; k++) {
      r->edge[k] = f->edge[k];
      r->edge[k].dist = get16(p + 2 * k);
    }
    p += 2 * nedges;
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
  if (nedges <= IC_MAX_EDGES) keep_edges(f, r, (int)ne);
done:
  s->seq = seq;
  s->pc = r->pc;
  s->t0 = r->t[0];
  s->iq = iq;
  s->opclass = opclass;
  s->sdrop[0] = sd0;
  s->sdrop[1] = sd1;
  return (size_t)(p - in);
}
