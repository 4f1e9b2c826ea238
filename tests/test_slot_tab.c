/* test_slot_tab.c: the slot rule's counts (model/slot_tab.h), which every
 * evaluator shares: counting, the walk past full cycles, the floor, growth
 * where cycles in flight span more than the table, and a cycle beyond the
 * largest table. Checked against a plain list of
 * every issue (the rule's definition). */
#include <criterion/criterion.h>

#include "slot_tab.h"

/* The definition: issues in cycle c of `pool` (-1: all) among the n in
 * list, from the floor on. */
static int count_in(const uint64_t *cyc, const int *pool, int n, uint64_t c, int p) {
  int k = 0;
  for (int j = 0; j < n; j++) k += cyc[j] == c && (p < 0 || pool[j] == p);
  return k;
}

Test(slot_tab, counts_walk_and_floor) {
  ic_slot_tab t = {0};
  uint64_t at;
  /* width 2: two issues fill cycle 10, the third goes to 11 */
  for (int k = 0; k < 3; k++) cr_assert_eq(ic_slot_tab_take(&t, 10, 2, 0, OOO_POOL_ALU, &at), 0);
  cr_assert_eq(at, 11);
  cr_assert_eq(ic_slot_tab_time(&t, 10, 2, 0, OOO_POOL_ALU), 11);
  /* the pool's rule: one load a cycle; the ALU ops do not count for it */
  cr_assert_eq(ic_slot_tab_time(&t, 10, 0, 1, OOO_POOL_LDST), 10);
  cr_assert_eq(ic_slot_tab_take(&t, 10, 0, 1, OOO_POOL_LDST, &at), 0);
  cr_assert_eq(at, 10);
  cr_assert_eq(ic_slot_tab_time(&t, 10, 0, 1, OOO_POOL_LDST), 11);
  const uint8_t *n = ic_slot_tab_find(&t, 10);
  cr_assert_not_null(n);
  cr_assert_eq(n[0], 3);
  cr_assert_eq(n[1 + OOO_POOL_LDST], 1);
  /* from the floor on only: below it a cycle is free and takes no count */
  ic_slot_tab_floor(&t, 11);
  ic_slot_tab_floor(&t, 5); /* the floor never falls */
  cr_assert_null(ic_slot_tab_find(&t, 10));
  cr_assert_eq(ic_slot_tab_time(&t, 10, 1, 0, OOO_POOL_ALU), 10);
  cr_assert_eq(ic_slot_tab_time(&t, 11, 1, 0, OOO_POOL_ALU), 12);
  ic_slot_tab_clear(&t);
  cr_assert_null(ic_slot_tab_find(&t, 11));
  ic_slot_tab_free(&t);
}

/* Random issues over a span of cycles much larger than the first table
 * (it grows), against the list; the floor rises as it goes. */
Test(slot_tab, equals_the_list_while_growing) {
  enum { N = 6000 };
  static uint64_t cyc[N];
  static int pool[N];
  ic_slot_tab t = {0};
  uint64_t s = 12345, floor = 0;
  int m = 0;
  for (int i = 0; i < N; i++) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    const uint64_t r = s >> 33;
    if (i % 50 == 0) { /* the floor rises; entries below it are gone */
      floor += r % 40;
      ic_slot_tab_floor(&t, floor);
      int k = 0;
      for (int j = 0; j < m; j++)
        if (cyc[j] >= floor) cyc[k] = cyc[j], pool[k++] = pool[j];
      m = k;
    }
    const uint64_t e0 = floor + r % 3000; /* spans up to 3000 cycles in flight */
    const int p = (int)(r >> 20) % OOO_POOL_COUNT, nw = 1 + (int)(r >> 24) % 4, np = (int)(r >> 28) % 3;
    uint64_t want = e0;
    while (count_in(cyc, pool, m, want, -1) >= nw || (np && count_in(cyc, pool, m, want, p) >= np)) want++;
    uint64_t at;
    cr_assert_eq(ic_slot_tab_time(&t, e0, nw, np, p), want, "issue %d", i);
    cr_assert_eq(ic_slot_tab_take(&t, e0, nw, np, p, &at), 0);
    cr_assert_eq(at, want, "issue %d", i);
    cyc[m] = at, pool[m++] = p;
  }
  cr_assert_gt(t.cap, IC_SLOT_TAB_MIN, "grew: %u entries", t.cap);
  cr_assert_leq(t.cap, IC_SLOT_TAB_MAX);
  /* a copy counts alike */
  ic_slot_tab c = {0};
  cr_assert_eq(ic_slot_tab_copy(&c, &t), 0);
  for (uint64_t x = floor; x < floor + 3000; x++)
    cr_assert_eq(ic_slot_tab_time(&c, x, 2, 0, 0), ic_slot_tab_time(&t, x, 2, 0, 0));
  ic_slot_tab_free(&c);
  ic_slot_tab_free(&t);
}

/* A narrow machine's crowd: most issues want one of a few cycles ahead of
 * the floor, so walks pass long runs of full cycles (the hints jump over
 * them), mixed with walks of another width (which neither use nor leave
 * hints), pool-only walks and issues counted without a rule; against the
 * list throughout. */
Test(slot_tab, a_crowd_walks_as_the_list_says) {
  enum { N = 5000 };
  static uint64_t cyc[N];
  static int pool[N];
  ic_slot_tab t = {0};
  uint64_t s = 777, floor = 100;
  int m = 0, long_walks = 0;
  ic_slot_tab_floor(&t, floor);
  for (int i = 0; i < N; i++) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    const uint64_t r = s >> 33;
    if (i % 200 == 199) { /* the floor rises a little */
      floor += r % 30;
      ic_slot_tab_floor(&t, floor);
      int k = 0;
      for (int j = 0; j < m; j++)
        if (cyc[j] >= floor) cyc[k] = cyc[j], pool[k++] = pool[j];
      m = k;
    }
    const uint64_t e0 = floor + r % 24;
    const int p = (int)(r >> 20) % OOO_POOL_COUNT, kind = (int)(r >> 24) % 10;
    const int nw = kind < 6 ? 2 : kind < 7 ? 3 : 0, np = kind == 8 ? 1 : (kind < 6 && p == OOO_POOL_LDST);
    uint64_t want = e0;
    if (nw || np)
      while ((nw && count_in(cyc, pool, m, want, -1) >= nw) || (np && count_in(cyc, pool, m, want, p) >= np))
        want++;
    long_walks += want - e0 > 20;
    uint64_t at;
    cr_assert_eq(ic_slot_tab_time(&t, e0, nw, np, p), want, "issue %d", i);
    cr_assert_eq(ic_slot_tab_take(&t, e0, nw, np, p, &at), 0);
    cr_assert_eq(at, want, "issue %d", i);
    cyc[m] = at, pool[m++] = p;
  }
  cr_assert_gt(long_walks, 1000, "the crowd made long walks: %d", long_walks);
  ic_slot_tab_free(&t);
}

/* At the largest size, a cycle a whole table or more beyond the floor is
 * free and its issue is not counted; the cycles within the table keep
 * theirs. */
Test(slot_tab, a_cycle_beyond_the_largest_table_is_free) {
  ic_slot_tab t = {0};
  uint64_t at;
  const uint64_t a = 1000, b = a + 4 * (uint64_t)IC_SLOT_TAB_MAX;
  ic_slot_tab_floor(&t, a);
  cr_assert_eq(ic_slot_tab_take(&t, a, 1, 0, 0, &at), 0);
  cr_assert_eq(ic_slot_tab_time(&t, a, 1, 0, 0), a + 1);
  cr_assert_eq(ic_slot_tab_take(&t, b, 1, 0, 0, &at), 0);
  cr_assert_eq(at, b);
  cr_assert_eq(t.cap, IC_SLOT_TAB_MAX);
  cr_assert_eq(ic_slot_tab_time(&t, b, 1, 0, 0), b, "b was not counted");
  cr_assert_eq(ic_slot_tab_time(&t, a, 1, 0, 0), a + 1, "a keeps its count");
  /* the last cycle the table holds still counts */
  const uint64_t last = a + IC_SLOT_TAB_MAX - 1;
  cr_assert_eq(ic_slot_tab_take(&t, last, 1, 0, 0, &at), 0);
  cr_assert_eq(ic_slot_tab_time(&t, last, 1, 0, 0), last + 1);
  /* the floor's rise brings b within the table, empty */
  ic_slot_tab_floor(&t, b - 10);
  cr_assert_eq(ic_slot_tab_time(&t, b, 1, 0, 0), b);
  cr_assert_eq(ic_slot_tab_take(&t, b, 1, 0, 0, &at), 0);
  cr_assert_eq(ic_slot_tab_time(&t, b, 1, 0, 0), b + 1);
  ic_slot_tab_free(&t);
}
