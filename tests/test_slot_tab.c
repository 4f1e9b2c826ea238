/* test_slot_tab.c: the slot rule's counts (model/slot_tab.h), which every
 * evaluator shares: counting, the walk past full cycles (and its maps of
 * full cycles: pool-full runs, bits the floor has passed, rules other than
 * a map's, the ring's wrap), the floor, growth where cycles in flight span
 * more than the table, a cycle beyond the largest table, and saturation.
 * Checked against a plain list of every issue (the rule's definition). */
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
 * the floor, so walks pass long runs of full cycles (the maps' bit scan
 * passes them), mixed with walks of another width (which neither use nor
 * set the width's map), pool-only walks and issues counted without a rule;
 * against the list throughout. */
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

/* The lists' side of a crowd: drops the issues below a new floor. */
static int drop_below(uint64_t *cyc, int *pool, int m, uint64_t floor) {
  int k = 0;
  for (int j = 0; j < m; j++)
    if (cyc[j] >= floor) cyc[k] = cyc[j], pool[k++] = pool[j];
  return k;
}

/* The first cycle from e0 the list leaves free under nw, np of pool p. */
static uint64_t list_time(const uint64_t *cyc, const int *pool, int m, uint64_t e0, int nw, int np, int p) {
  uint64_t want = e0;
  if (nw || np)
    while ((nw && count_in(cyc, pool, m, want, -1) >= nw) || (np && count_in(cyc, pool, m, want, p) >= np)) want++;
  return want;
}

/* narrow.yaml's rules: 3 wide, 2 load/store units. Runs of cycles full for
 * the load/store pool alone (two loads and an ALU op free) break the runs
 * full for the width, so the walks of loads pass both kinds; the maps (the
 * width's and the pool's) must give the list's cycles throughout, and both
 * must have been used. */
Test(slot_tab, pool_full_runs_walk_as_the_list_says) {
  enum { N = 6000 };
  static uint64_t cyc[N];
  static int pool[N];
  ic_slot_tab t = {0};
  uint64_t s = 4242, floor = 50;
  int m = 0, long_walks = 0, pool_only = 0;
  ic_slot_tab_floor(&t, floor);
  for (int i = 0; i < N; i++) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    const uint64_t r = s >> 33;
    if (i % 150 == 149) {
      floor += r % 20;
      ic_slot_tab_floor(&t, floor);
      m = drop_below(cyc, pool, m, floor);
    }
    const int ld = r % 10 < 7, p = ld ? OOO_POOL_LDST : OOO_POOL_ALU, np = ld ? 2 : 0;
    const uint64_t e0 = floor + (r >> 8) % 32;
    const uint64_t want = list_time(cyc, pool, m, e0, 3, np, p);
    for (uint64_t c = e0; c < want; c++)
      pool_only += ld && count_in(cyc, pool, m, c, -1) < 3;
    long_walks += want - e0 > 20;
    uint64_t at;
    cr_assert_eq(ic_slot_tab_time(&t, e0, 3, np, p), want, "issue %d", i);
    cr_assert_eq(ic_slot_tab_take(&t, e0, 3, np, p, &at), 0);
    cr_assert_eq(at, want, "issue %d", i);
    cyc[m] = at, pool[m++] = p;
  }
  cr_assert_gt(long_walks, 500, "long walks: %d", long_walks);
  cr_assert_gt(pool_only, 500, "cycles passed full for the pool alone: %d", pool_only);
  cr_assert_eq(t.th[0], 3);
  cr_assert_eq(t.th[1 + OOO_POOL_LDST], 2);
  cr_assert_eq(t.th[1 + OOO_POOL_ALU], 0, "no pool rule, no map");
  ic_slot_tab_free(&t);
}

/* A bit outlives its cycle when the floor passes it (the floor leaves the
 * maps alone): the cycles a table further on share its bit, and must still
 * count as free until they are full. Width 1, so each issue fills its
 * cycle and every walk sets bits. */
Test(slot_tab, bits_of_cycles_below_the_floor_tell_nothing) {
  ic_slot_tab t = {0};
  uint64_t at;
  for (int k = 0; k < 60; k++) cr_assert_eq(ic_slot_tab_take(&t, 0, 1, 0, OOO_POOL_ALU, &at), 0);
  cr_assert_eq(at, 59);
  cr_assert_eq(t.cap, IC_SLOT_TAB_MIN);
  cr_assert_eq(ic_slot_tab_time(&t, 0, 1, 0, OOO_POOL_ALU), 60);
  /* cycles 0..49 go below the floor; 64 + 10 shares cycle 10's bit */
  ic_slot_tab_floor(&t, 50);
  cr_assert_eq(ic_slot_tab_time(&t, 74, 1, 0, OOO_POOL_ALU), 74);
  cr_assert_eq(ic_slot_tab_take(&t, 74, 1, 0, OOO_POOL_ALU, &at), 0);
  cr_assert_eq(at, 74);
  /* a walk through the full 50..59 to the first free cycle, then on up to
     the end of the table, whose last cycles share bits with 0..49 */
  cr_assert_eq(ic_slot_tab_take(&t, 50, 1, 0, OOO_POOL_ALU, &at), 0);
  cr_assert_eq(at, 60);
  for (uint64_t c = 61; c < 50 + IC_SLOT_TAB_MIN; c++) {
    cr_assert_eq(ic_slot_tab_take(&t, 55, 1, 0, OOO_POOL_ALU, &at), 0);
    cr_assert_eq(at, c == 74 ? 75 : c, "cycle %llu", (unsigned long long)c);
    if (c == 74) c++;
  }
  cr_assert_eq(t.cap, IC_SLOT_TAB_MIN, "no growth: the walks stayed within the table");
  /* the floor jumps past the whole table: every count and bit is stale */
  ic_slot_tab_floor(&t, 1000);
  for (uint64_t c = 1000; c < 1000 + IC_SLOT_TAB_MIN; c++)
    cr_assert_eq(ic_slot_tab_time(&t, c, 1, 0, OOO_POOL_ALU), c);
  cr_assert_eq(ic_slot_tab_take(&t, 1010, 1, 0, OOO_POOL_ALU, &at), 0);
  cr_assert_eq(at, 1010);
  cr_assert_eq(ic_slot_tab_take(&t, 1010, 1, 0, OOO_POOL_ALU, &at), 0);
  cr_assert_eq(at, 1011);
  ic_slot_tab_free(&t);
}

/* Walks of two widths and of each pool rule in one table: a map is of the
 * first threshold a walk had, and a walk with another passes cycles one by
 * one; the floor rises often and far (stale bits, the ring's wrap), the
 * table grows (its maps start over), and a copy made half way counts alike
 * afterwards. Against the list throughout. */
Test(slot_tab, mixed_rules_wrap_grow_and_copy) {
  enum { N = 8000 };
  static uint64_t cyc[N];
  static int pool[N];
  ic_slot_tab t = {0}, c = {0};
  uint64_t s = 99, floor = 0;
  int m = 0, first_w = 0;
  for (int i = 0; i < N; i++) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    const uint64_t r = s >> 33;
    if (i % 40 == 39) { /* now and then a rise past much of the table */
      floor += r % 7 == 0 ? 40 + r % 200 : r % 12;
      ic_slot_tab_floor(&t, floor);
      if (i > N / 2) ic_slot_tab_floor(&c, floor);
      m = drop_below(cyc, pool, m, floor);
    }
    if (i == N / 2) cr_assert_eq(ic_slot_tab_copy(&c, &t), 0);
    const int p = (int)(r >> 4) % OOO_POOL_COUNT, kind = (int)(r >> 8) % 8;
    const int nw = kind < 5 ? 2 : kind < 7 ? 3 : 0, np = (r >> 12) % 3 == 0 ? 1 : 0;
    if (!first_w) first_w = nw;
    const uint64_t span = i < N / 4 ? 40 : 400; /* then wider: the table grows */
    const uint64_t e0 = floor + (r >> 16) % span;
    const uint64_t want = list_time(cyc, pool, m, e0, nw, np, p);
    uint64_t at;
    cr_assert_eq(ic_slot_tab_time(&t, e0, nw, np, p), want, "issue %d", i);
    cr_assert_eq(ic_slot_tab_take(&t, e0, nw, np, p, &at), 0);
    cr_assert_eq(at, want, "issue %d", i);
    if (i > N / 2) {
      cr_assert_eq(ic_slot_tab_take(&c, e0, nw, np, p, &at), 0);
      cr_assert_eq(at, want, "copy, issue %d", i);
    }
    cyc[m] = at, pool[m++] = p;
  }
  cr_assert_gt(t.cap, IC_SLOT_TAB_MIN, "grew: %u entries", t.cap);
  cr_assert_eq(t.th[0], first_w, "the width map is of the first width");
  ic_slot_tab_free(&c);
  ic_slot_tab_free(&t);
}

/* Counts saturate at 255: a cycle with 300 issues counts 255, full for a
 * width of 255 and free for a walk without a width rule. */
Test(slot_tab, counts_saturate) {
  ic_slot_tab t = {0};
  uint64_t at;
  for (int k = 0; k < 300; k++) cr_assert_eq(ic_slot_tab_add(&t, 7, OOO_POOL_LDST), 0);
  const uint8_t *n = ic_slot_tab_find(&t, 7);
  cr_assert_not_null(n);
  cr_assert_eq(n[0], 255);
  cr_assert_eq(n[1 + OOO_POOL_LDST], 255);
  cr_assert_eq(ic_slot_tab_time(&t, 7, 255, 0, OOO_POOL_ALU), 8);
  cr_assert_eq(ic_slot_tab_take(&t, 7, 255, 0, OOO_POOL_ALU, &at), 0);
  cr_assert_eq(at, 8);
  cr_assert_eq(ic_slot_tab_take(&t, 7, 0, 1, OOO_POOL_ALU, &at), 0);
  cr_assert_eq(at, 7, "no width rule: 255 issues leave room");
  cr_assert_eq(ic_slot_tab_find(&t, 7)[0], 255);
  cr_assert_eq(ic_slot_tab_find(&t, 7)[1 + OOO_POOL_ALU], 1);
  cr_assert_eq(ic_slot_tab_take(&t, 7, 255, 0, OOO_POOL_ALU, &at), 0);
  cr_assert_eq(at, 8, "7 is full (its bit), 8 has room");
  ic_slot_tab_free(&t);
}
