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

/* The register an instruction's source or destination slot names, or -1
 * where it names none a dependence can go through (none, x0). */
static inline int ic_chain_reg(uint8_t reg) {
  return reg == IC_REG_NONE || reg == IC_REG_X0 || reg >= IC_REG_COUNT ? -1 : reg;
}

/* The producers of instruction i with sources src[], from last_writer[]
 * (IC_SEQ_NONE: no writer yet), into prod[IC_MAX_SRC] (IC_SEQ_NONE where a
 * slot has none). Returns the mask of the slots with one. */
static inline unsigned ic_chain_producers(const uint64_t *last_writer, const uint8_t *src, uint64_t i,
                                          uint64_t first, uint64_t maxdist, uint64_t *prod) {
  unsigned pm = 0;
  for (int k = 0; k < IC_MAX_SRC; k++) {
    prod[k] = IC_SEQ_NONE;
    const int reg = ic_chain_reg(src[k]);
    if (reg < 0) continue;
    const uint64_t w = last_writer[reg];
    if (w == IC_SEQ_NONE || w < first || i - w > maxdist) continue;
    int dup = 0;
    for (int q = 0; q < k; q++) dup |= prod[q] == w;
    if (dup) continue;
    prod[k] = w;
    pm |= 1u << k;
  }
  return pm;
}

/* Instruction i writes its destination dst. */
static inline void ic_chain_write(uint64_t *last_writer, uint8_t dst, uint64_t i) {
  const int reg = ic_chain_reg(dst);
  if (reg >= 0) last_writer[reg] = i;
}

/* Ancestor levels tracked for issue width iw (iw + 1), 0: none. */
static inline uint32_t ic_chain_levels(uint32_t iw) {
  return iw >= 1 && iw <= IC_CHAIN_WIDTH_MAX ? iw + 1 : 0;
}

/* The row stride for `levels`: IC_CHAIN_ROW where they fit (ic_chain_fill
 * then copies a fixed size), else levels. */
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
 * rows of one stride, and every row of the storage was filled by this
 * function before it is read as `up`. */
static inline void ic_chain_fill(uint64_t *row, const uint64_t *up, uint64_t p, uint32_t levels,
                                 uint32_t stride) {
  if (up) {
    row[0] = p;
    if (stride == IC_CHAIN_ROW)
      memcpy(row + 1, up, (IC_CHAIN_ROW - 1) * sizeof *row); /* fixed size: inlined */
    else
      for (uint32_t d = 1; d < levels; d++) row[d] = up[d - 1];
  } else {
    for (uint32_t d = 0; d < stride; d++) row[d] = IC_SEQ_NONE; /* the whole row: a fixed-size copy
                                                                   of it copies only values set */
  }
}

/* The source of instruction i's IBW edge from its row: its ancestor
 * `levels` steps up, if of the run and at most maxdist back; else
 * IC_SEQ_NONE. */
static inline uint64_t ic_chain_ibw_source(const uint64_t *row, uint32_t levels, uint64_t i, uint64_t first,
                                           uint64_t maxdist) {
  const uint64_t j = row[levels - 1];
  return j != IC_SEQ_NONE && j >= first && i - j <= maxdist ? j : IC_SEQ_NONE;
}

#endif
