/* test_reg_chain.c: register producers and IBW ancestors (model/reg_chain.h),
 * which the model's dispatch and the stitcher share: producers by hand
 * (x0, unused slots, a shared writer, the run's start, the distance limit),
 * the levels and strides, and the ancestor rows of a random register
 * stream kept in a ring as the stitcher keeps them, against a walk up the
 * chain of youngest producers (the definition), for a fixed-size and a
 * wider row. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "reg_chain.h"

static void writers_none(uint64_t *lw) {
  for (int r = 0; r < IC_REG_COUNT; r++) lw[r] = IC_SEQ_NONE;
}

/* The callers' loop over the source slots; the mask of those with one. */
static unsigned producers(const uint64_t *lw, const uint8_t *src, uint64_t i, uint64_t first,
                          uint64_t maxdist, uint64_t *prod) {
  unsigned pm = 0;
  for (int k = 0; k < IC_MAX_SRC; k++)
    if ((prod[k] = ic_chain_producer(lw, src, k, prod, i, first, maxdist)) != IC_SEQ_NONE) pm |= 1u << k;
  return pm;
}

Test(reg_chain, producers_by_hand) {
  uint64_t lw[IC_REG_COUNT], prod[IC_MAX_SRC];
  writers_none(lw);
  ic_chain_write(lw, 5, 10);
  ic_chain_write(lw, IC_REG_X0, 11); /* x0 is never a dependence */
  ic_chain_write(lw, IC_REG_NONE, 12);
  ic_chain_write(lw, IC_REG_F0 + 1, 13);
  cr_assert_eq(lw[IC_REG_X0], IC_SEQ_NONE);
  for (int r = 0; r < 256; r++) /* the one compare against the three tests it stands for */
    cr_assert_eq(ic_chain_dep((uint8_t)r), r != IC_REG_X0 && r != IC_REG_NONE && r < IC_REG_COUNT, "%d", r);
  const uint8_t src[IC_MAX_SRC] = {5, IC_REG_X0, IC_REG_F0 + 1};
  cr_assert_eq(producers(lw, src, 20, 0, 100, prod), 5u);
  cr_assert_eq(prod[0], 10);
  cr_assert_eq(prod[1], IC_SEQ_NONE);
  cr_assert_eq(prod[2], 13);
  /* a writer two sources share is listed at the first */
  const uint8_t twice[IC_MAX_SRC] = {IC_REG_NONE, 5, 5};
  cr_assert_eq(producers(lw, twice, 20, 0, 100, prod), 2u);
  cr_assert_eq(prod[1], 10);
  cr_assert_eq(prod[2], IC_SEQ_NONE);
  /* before the run's first instruction, or further back than maxdist: none */
  cr_assert_eq(producers(lw, src, 20, 11, 100, prod), 4u);
  cr_assert_eq(producers(lw, src, 20, 0, 8, prod), 4u, "10 back is past maxdist 8");
  cr_assert_eq(producers(lw, src, 20, 0, 7, prod), 4u, "7 back is at maxdist 7");
  cr_assert_eq(producers(lw, src, 20, 0, 6, prod), 0u);
  /* a register no one wrote, one past the numbering */
  const uint8_t none[IC_MAX_SRC] = {7, IC_REG_COUNT, IC_REG_NONE};
  cr_assert_eq(producers(lw, none, 20, 0, 100, prod), 0u);
  cr_assert_eq(prod[0], IC_SEQ_NONE);
  /* the youngest of them */
  const uint64_t p3[IC_MAX_SRC] = {4, IC_SEQ_NONE, 9};
  cr_assert_eq(ic_chain_youngest(p3), 9);
  const uint64_t p0[IC_MAX_SRC] = {IC_SEQ_NONE, IC_SEQ_NONE, IC_SEQ_NONE};
  cr_assert_eq(ic_chain_youngest(p0), IC_SEQ_NONE);
  const uint64_t pz[IC_MAX_SRC] = {IC_SEQ_NONE, 0, IC_SEQ_NONE};
  cr_assert_eq(ic_chain_youngest(pz), 0, "position 0 is a producer");
}

Test(reg_chain, levels_and_strides) {
  cr_assert_eq(ic_chain_levels(0), 0);
  cr_assert_eq(ic_chain_levels(1), 2);
  cr_assert_eq(ic_chain_levels(IC_CHAIN_WIDTH_MAX), IC_CHAIN_WIDTH_MAX + 1);
  cr_assert_eq(ic_chain_levels(IC_CHAIN_WIDTH_MAX + 1), 0);
  cr_assert_eq(ic_chain_stride(ic_chain_levels(4)), IC_CHAIN_ROW);
  cr_assert_eq(ic_chain_stride(ic_chain_levels(IC_CHAIN_ROW - 1)), IC_CHAIN_ROW);
  cr_assert_eq(ic_chain_stride(ic_chain_levels(IC_CHAIN_ROW)), IC_CHAIN_ROW + 1);
}

Test(reg_chain, ibw_source_limits) {
  const uint64_t row[3] = {9, 7, 3};
  cr_assert_eq(ic_chain_ibw_source(row, 3, 10, 0, 100), 3);
  cr_assert_eq(ic_chain_ibw_source(row, 3, 10, 4, 100), IC_SEQ_NONE, "before the run");
  cr_assert_eq(ic_chain_ibw_source(row, 3, 10, 0, 6), IC_SEQ_NONE, "7 back, past maxdist 6");
  cr_assert_eq(ic_chain_ibw_source(row, 2, 10, 0, 100), 7);
  const uint64_t none[2] = {IC_SEQ_NONE, IC_SEQ_NONE};
  cr_assert_eq(ic_chain_ibw_source(none, 2, 10, 0, 100), IC_SEQ_NONE);
}

/* A random stream of n instructions over few registers, its rows kept in a
 * ring of maxdist + 1 rows (the stitcher's), against the walk up each
 * instruction's youngest producers. */
static void ring_against_walk(uint32_t iw, uint64_t maxdist, unsigned seed) {
  const uint32_t levels = ic_chain_levels(iw), stride = ic_chain_stride(levels);
  const uint64_t n = 4000, rows = maxdist + 1;
  uint64_t lw[IC_REG_COUNT], prod[IC_MAX_SRC];
  writers_none(lw);
  uint64_t *ring = malloc(rows * stride * sizeof *ring);
  uint64_t *young = malloc(n * sizeof *young);
  cr_assert(ring && young);
  memset(ring, 0xff, rows * stride * sizeof *ring); /* a fixed-size copy reads past the levels */
  srand(seed);
  for (uint64_t i = 0; i < n; i++) {
    uint8_t src[IC_MAX_SRC], dst = (uint8_t)(1 + rand() % 6);
    for (int k = 0; k < IC_MAX_SRC; k++) src[k] = rand() % 4 ? (uint8_t)(rand() % 8) : IC_REG_NONE;
    producers(lw, src, i, 0, maxdist, prod);
    const uint64_t p = ic_chain_youngest(prod);
    young[i] = p;
    uint64_t *row = &ring[(i % rows) * stride];
    ic_chain_fill(row, p != IC_SEQ_NONE ? &ring[(p % rows) * stride] : NULL, p, levels, stride);
    uint64_t a = p;
    for (uint32_t d = 0; d < levels; d++) {
      cr_assert_eq(row[d], a, "instruction %lu, level %u", (unsigned long)i, d + 1);
      a = a == IC_SEQ_NONE ? a : young[a];
    }
    const uint64_t j = row[levels - 1];
    cr_assert_eq(ic_chain_ibw_source(row, levels, i, 0, maxdist),
                 j != IC_SEQ_NONE && i - j <= maxdist ? j : IC_SEQ_NONE);
    ic_chain_write(lw, dst, i);
  }
  free(ring);
  free(young);
}

Test(reg_chain, ring_rows_follow_the_chain) {
  ring_against_walk(4, 40, 1);   /* a fixed-size row */
  ring_against_walk(8, 40, 2);   /* a row of the levels */
  ring_against_walk(16, 200, 3); /* the widest tracked */
  ring_against_walk(1, 5, 4);
}
