/* reg_chain.h: an instruction's register producers and its IBW ancestors,
 * from the register stream alone.
 *
 * The model's dispatch (ooo_core.c) and the stitcher (engine/stitch.c)
 * both derive them for every instruction, the model over sequence numbers
 * of the run and the stitcher over positions of a fragment, and their PR
 * and IBW edges must mean the same: so both call this one code.
 *
 * Producers: for each source register, the latest earlier writer, if it
 * is of the run (at least `first`) and at most maxdist back (IC_WIN_FACTOR
 * ROBs: no edge reaches further); a writer two sources share is listed at
 * the first. Ancestors: row d (0-based) of an instruction is its ancestor
 * d + 1 steps up the chain through each one's youngest register producer;
 * the IBW edge goes to the one `levels` steps up (graph_rec.h, IBW: the
 * iw + 1 instructions after it on the chain issue no earlier than its P and
 * not all in one cycle). Each caller keeps the rows in storage of its own
 * (a ring) and says whether the producer's row is still held. */
#ifndef IC_REG_CHAIN_H
#define IC_REG_CHAIN_H

#include <stdint.h>
#include <string.h>

#include "inst.h"

#define IC_SEQ_NONE UINT64_MAX /* no producer, no ancestor */
#define IC_CHAIN_ROW 8u        /* row stride where the levels fit: one fixed-size copy */
#define IC_CHAIN_WIDTH_MAX 16u /* issue widths past it track no ancestors (their IBW
                                  edges are not built: bw, which drops them, widens it) */

/* Does register id reg carry a dependence (not x0, not IC_REG_NONE, in
 * the numbering)? One compare: x0 wraps to 255. */
static inline int ic_chain_dep(uint8_t reg) {
  _Static_assert(IC_REG_X0 == 0 && IC_REG_NONE >= IC_REG_COUNT, "x0 first, none past the numbering");
  return (uint8_t)(reg - 1) < IC_REG_COUNT - 1;
}

/* Can an edge into instruction i come from j (IC_SEQ_NONE: none): is it
 * of the run (at least first) and at most maxdist back? */
static inline int ic_chain_reaches(uint64_t j, uint64_t i, uint64_t first, uint64_t maxdist) {
  return j != IC_SEQ_NONE && j >= first && i - j <= maxdist;
}

/* The producer of source slot k of instruction i (sources src[]), from
 * last_writer[] (IC_SEQ_NONE: no writer yet) and the producers prod[0..k)
 * of the slots before it; IC_SEQ_NONE where it has none. Callers loop over
 * the slots in order and store each answer as prod[k] (the model wires its
 * consumer links in the same loop). */
static inline uint64_t ic_chain_producer(const uint64_t *last_writer, const uint8_t *src, int k,
                                         const uint64_t *prod, uint64_t i, uint64_t first,
                                         uint64_t maxdist) {
  const uint8_t reg = src[k];
  if (!ic_chain_dep(reg)) return IC_SEQ_NONE;
  const uint64_t w = last_writer[reg];
  if (!ic_chain_reaches(w, i, first, maxdist)) return IC_SEQ_NONE;
  int dup = 0;
  for (int q = 0; q < k; q++) dup |= prod[q] == w;
  return dup ? IC_SEQ_NONE : w;
}

/* Instruction i writes its destination dst. */
static inline void ic_chain_write(uint64_t *last_writer, uint8_t dst, uint64_t i) {
  if (ic_chain_dep(dst)) last_writer[dst] = i;
}

/* Ancestor levels tracked for issue width iw (iw + 1), 0: none. */
static inline uint32_t ic_chain_levels(uint32_t iw) {
  return iw >= 1 && iw <= IC_CHAIN_WIDTH_MAX ? iw + 1 : 0;
}

/* The model's row stride for `levels`: IC_CHAIN_ROW where they fit
 * (ic_chain_fill then copies a fixed size), else levels. */
static inline uint32_t ic_chain_stride(uint32_t levels) {
  return levels <= IC_CHAIN_ROW ? IC_CHAIN_ROW : levels;
}

/* The youngest of prod[0..IC_MAX_SRC), IC_SEQ_NONE where all are. */
static inline uint64_t ic_chain_youngest(const uint64_t *prod) {
  /* IC_SEQ_NONE + 1 wraps to 0, below every producer + 1 */
  const uint64_t p0 = prod[0] + 1, p1 = prod[1] + 1, p2 = prod[2] + 1;
  _Static_assert(IC_MAX_SRC == 3, "one term per source slot");
  const uint64_t m = p0 > p1 ? p0 : p1;
  return (m > p2 ? m : p2) - 1;
}

/* The row of an instruction whose youngest producer is p (IC_SEQ_NONE:
 * none), from p's row `up` (NULL where p is none or its row is no longer
 * held: then the instruction has no ancestors). The two rows are distinct
 * rows of one stride; at IC_CHAIN_ROW the copy takes the entries past
 * `levels` too, unread, so a caller with that stride sets its storage
 * first (the model fills it at its start). */
static inline void ic_chain_fill(uint64_t *row, const uint64_t *up, uint64_t p, uint32_t levels,
                                 uint32_t stride) {
  if (up) {
    row[0] = p;
    if (stride == IC_CHAIN_ROW)
      memcpy(row + 1, up, (IC_CHAIN_ROW - 1) * sizeof *row); /* fixed size: inlined */
    else
      for (uint32_t d = 1; d < levels; d++) row[d] = up[d - 1];
  } else {
    for (uint32_t d = 0; d < levels; d++) row[d] = IC_SEQ_NONE;
  }
}

/* The source of instruction i's IBW edge from its row: its ancestor
 * `levels` steps up, if an edge can come from it (ic_chain_reaches); else
 * IC_SEQ_NONE. */
static inline uint64_t ic_chain_ibw_source(const uint64_t *row, uint32_t levels, uint64_t i, uint64_t first,
                                           uint64_t maxdist) {
  const uint64_t j = row[levels - 1];
  return ic_chain_reaches(j, i, first, maxdist) ? j : IC_SEQ_NONE;
}

#endif
