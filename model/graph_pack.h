/* graph_pack.h: the compact form of graph records (graph_rec.h) in a stream.
 *
 * A record in memory is IC_MAX_EDGES edge slots of four parts each (448
 * bytes); a real one uses about 12 edges of at most one part, and its
 * sequence number, pc and stamps are close to the previous record's. The
 * packed form keeps only that: varints of the differences from the previous
 * record of the same stream, and per edge its kind, part count, distance and
 * parts (about 60 bytes a record on the suite). The record pipe carries
 * records between the model's CPU and the solver's in this form: moving 448
 * bytes a record from one CPU's cache to another cost more than the solver.
 *
 * The form is lossless for every field a consumer reads: seq, pc, opclass,
 * nedges, iq, the stamps, and per edge below nedges its kind, flags, keep,
 * dist, nparts and the parts below nparts. Malformed values stay malformed
 * (the consumer's checker reports them): a kind above 31 packs as 31, a
 * part count above 255 cannot occur (uint8_t), an nedges above 31 packs as
 * 31, and only the slots a record has (IC_MAX_EDGES edges, IC_MAX_PARTS
 * parts) are stored. Bytes past nedges and nparts are not kept (no consumer
 * reads them). */
#ifndef IC_GRAPH_PACK_H
#define IC_GRAPH_PACK_H

#include <stddef.h>
#include <stdint.h>

#include "graph_rec.h"

/* Most bytes ic_rec_pack writes for one record (a packed record is shorter:
 * it may write a few bytes of slack past its end). */
#define IC_REC_PACK_MAX 640u /* 1 + 1 + 8 + 5 + 48, and 16 edges of 9 + 16 */

/* The previous record of a stream, which the next one is coded against. A
 * stream starts from a zeroed state (ic_rec_pack_reset). */
typedef struct ic_rec_pack_state {
  uint64_t seq, pc, t0;
  uint32_t iq;
  uint8_t opclass;
} ic_rec_pack_state;

static inline void ic_rec_pack_reset(ic_rec_pack_state *s) {
  *s = (ic_rec_pack_state){.seq = UINT64_MAX};
}

/* Packs r into out (room for IC_REC_PACK_MAX bytes) and advances s.
 * Returns the packed record's bytes. */
size_t ic_rec_pack(ic_rec_pack_state *s, const ic_graph_rec *r, uint8_t *out);

/* Unpacks one record from in[0, avail) into *r and advances s. Returns the
 * bytes read, or 0 when in does not hold a whole packed record. Edge and
 * part slots past nedges and nparts are left as they were. */
size_t ic_rec_unpack(ic_rec_pack_state *s, const uint8_t *in, size_t avail, ic_graph_rec *r);

#endif
