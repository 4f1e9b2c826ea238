/* graph_pack.h: the compact form of graph records (graph_rec.h) in a stream.
 *
 * A record in memory is IC_MAX_EDGES edge slots of four parts each (448
 * bytes); a real one uses about 12 edges of at most one part, its sequence
 * number, pc and stamps are close to the previous record's, and its edges,
 * opclass and rules are those of the last record of the same pc but for
 * the edges' distances (the producer, the earlier miss, the issue order
 * change from one dynamic instance to the next). The packed form keeps only what changed: the
 * differences from the previous record in small fixed-width fields, and
 * either the distances alone (a repeat of the pc's last edges, which both
 * ends of the stream keep in a table by pc) or every edge in full. The
 * record pipe carries records between the model's CPU and the solver's in
 * this form: moving 448 bytes a record from one CPU's cache to another cost
 * more than solving it.
 *
 * Lossless for every field a consumer reads: seq, pc, opclass, nedges, the
 * rules (iq, slot_w, slot_p, mshr_k), sdrop,
 * the stamps, and per edge below nedges its kind, flags, keep, dist, nparts
 * and the parts below nparts, malformed values included (the consumer's
 * checker reports them as it would have). Only the slots a record has are
 * stored (IC_MAX_EDGES edges, IC_MAX_PARTS parts); bytes past nedges and
 * nparts are not kept (no consumer reads them). */
#ifndef IC_GRAPH_PACK_H
#define IC_GRAPH_PACK_H

#include <stddef.h>
#include <stdint.h>

#include "graph_rec.h"

/* Most bytes ic_rec_pack writes for one record (a packed record is shorter:
 * it may write a few bytes of slack past its end). */
#define IC_REC_PACK_MAX 640u /* 1 + 1 + 8 + 10 + 48, and 16 edges of 9 + 16 */

/* Bytes of a record's opclass, rules and scoped drops in the stream. */
#define IC_REC_PACK_GROUP 10

/* Slots of the table of last edges by pc (a power of two). */
#define IC_REC_PACK_REFS 512u

/* One end of a stream: the previous record, and the last edges of each
 * pc's slot, which the next record is coded against. Both ends start from
 * ic_rec_pack_init and see the same records, so their tables agree. */
typedef struct ic_rec_pack_ref {
  uint64_t pc;
  uint64_t shape; /* the id of these edges (graph_pack.c) */
  uint16_t vary;  /* bit k: edge k's kind has a varying dist, kept as bits
                     for unpacking's count and walk */
  uint8_t nedges; /* UINT8_MAX: empty */
  /* the last record's opclass, rules and scoped drops of this slot, as the
     stream's group holds them (a pc's are mostly the same every time) */
  uint8_t group[IC_REC_PACK_GROUP];
  ic_edge edge[IC_MAX_EDGES];
  uint64_t tag; /* the last batch a lazy unpack referred to these edges in (0: none) */
  /* the bytes of edge[] a repeat must match (graph_pack.c: repeats);
     written by the producer's end only */
  uint8_t emask[IC_MAX_EDGES * sizeof(ic_edge)];
} ic_rec_pack_ref;

typedef struct ic_rec_pack_state {
  uint64_t seq, pc, t0;
  /* the last record's shape: records with one id (never 0) have the same
     edges but for the dists of the kinds whose dist varies
     (ic_edge_dist_varies); 0: the record has no id (malformed) */
  uint64_t shape;
  uint64_t next_shape;
  ic_rec_pack_ref *ref; /* [IC_REC_PACK_REFS] */
  int avx2; /* the producer compares with AVX2 (set by init where the CPU has it;
               every path packs the same bytes) */
} ic_rec_pack_state;

/* The table slot of a pc. */
static inline uint32_t ic_rec_pack_slot(uint64_t pc) {
  return (uint32_t)((pc >> 1) * 0x9E3779B97F4A7C15ull >> 40) & (IC_REC_PACK_REFS - 1);
}

/* Fetches the table slot's header and edges a record of pc with nedges
 * edges is compared with, for a record a few ahead (the table is larger
 * than a CPU's first-level cache; fetching the mask too cost more than it
 * saved). */
static inline void ic_rec_pack_prefetch(const ic_rec_pack_state *s, uint64_t pc, unsigned nedges) {
  const ic_rec_pack_ref *f = &s->ref[ic_rec_pack_slot(pc)];
  const size_t eb = (nedges < IC_MAX_EDGES ? nedges : IC_MAX_EDGES) * sizeof(ic_edge);
  for (size_t off = 0; off < offsetof(ic_rec_pack_ref, edge) + eb; off += 64)
    __builtin_prefetch((const char *)f + off, 1, 3);
}

/* A stream's start. 0, or -1 when out of memory (s is then empty: free it
 * all the same). */
int ic_rec_pack_init(ic_rec_pack_state *s);
void ic_rec_pack_free(ic_rec_pack_state *s);

/* Packs r into out (room for IC_REC_PACK_MAX bytes) and advances s.
 * Returns the packed record's bytes. */
size_t ic_rec_pack(ic_rec_pack_state *s, const ic_graph_rec *r, uint8_t *out);

/* Unpacks one record from in[0, avail) into *r and advances s. Returns the
 * bytes read, or 0 when in does not hold a whole packed record (s is then
 * unusable). Edge and part slots past nedges and nparts hold anything. */
size_t ic_rec_unpack(ic_rec_pack_state *s, const uint8_t *in, size_t avail, ic_graph_rec *r);

/* ic_rec_unpack, but a repeat's edges are not copied: *edges points to
 * its slot's (the varying dists there 0), and r holds the varying dists
 * alone in their places (r->edge[k].dist where edge k's kind varies);
 * *edges is NULL where r holds every edge. The slot's edges stay as they
 * are while the records unpacked with one tag (a batch's, never 0) are in
 * use: a record that would replace them returns IC_REC_UNPACK_AGAIN with
 * nothing advanced, to be unpacked again under a new tag once the batch is
 * done with. ic_rec_whole makes such a record whole. */
#define IC_REC_UNPACK_AGAIN SIZE_MAX
size_t ic_rec_unpack_lazy(ic_rec_pack_state *s, const uint8_t *in, size_t avail, ic_graph_rec *r,
                          const ic_edge **edges, uint64_t tag);
/* *out: record r, unpacked lazily with its edges at edges, whole. */
void ic_rec_whole(ic_graph_rec *out, const ic_graph_rec *r, const ic_edge *edges);

#endif
