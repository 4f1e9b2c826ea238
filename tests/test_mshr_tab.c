/* test_mshr_tab.c: the MSHR rule's holders (model/mshr_tab.h), which every
 * evaluator shares: the rule's walk past full cycles, the floor, growth
 * and copies. Checked against a plain list of every holder (the rule's
 * definition: the first cycle t >= e0 at which fewer than k holders have
 * E <= t < P; cycles below the floor are free). */
#include <criterion/criterion.h>

#include "mshr_tab.h"

typedef struct hold {
  uint64_t e, p, seq;
} hold;

/* The definition over the list, and the holder whose P gave the time. */
static uint64_t rule_of(const hold *h, int n, uint64_t floor, uint64_t e0, int k, uint64_t *src) {
  /* (h holds those whose P is above the floor: the others hold no cycle
     from it on) */
  uint64_t t = e0;
  *src = UINT64_MAX;
  if (e0 < floor) return t;
  for (;;) {
    int held = 0;
    uint64_t next = UINT64_MAX;
    for (int j = 0; j < n; j++)
      if (h[j].e <= t && t < h[j].p) {
        held++;
        if (h[j].p < next) next = h[j].p;
      }
    if (held < k) return t;
    t = next;
    *src = 0; /* some holder: checked by its P below */
  }
}

Test(mshr_tab, two_mshrs_by_hand) {
  ic_mshr_tab t = {0};
  uint64_t src;
  cr_assert_eq(ic_mshr_tab_add(&t, 10, 50, 1), 0);
  cr_assert_eq(ic_mshr_tab_time(&t, 20, 2, &src), 20, "one holder: a second MSHR is free");
  cr_assert_eq(src, UINT64_MAX);
  cr_assert_eq(ic_mshr_tab_add(&t, 15, 40, 2), 0);
  cr_assert_eq(ic_mshr_tab_time(&t, 20, 2, &src), 40, "both held until the first completes");
  cr_assert_eq(src, 2);
  cr_assert_eq(ic_mshr_tab_time(&t, 12, 2, &src), 12, "before 15 one is held");
  cr_assert_eq(ic_mshr_tab_time(&t, 16, 2, NULL), 40);
  cr_assert_eq(ic_mshr_tab_time(&t, 5, 1, NULL), 5, "before the first E: free");
  cr_assert_eq(ic_mshr_tab_time(&t, 20, 3, NULL), 20);
  cr_assert_eq(ic_mshr_tab_time(&t, 20, 0, NULL), 20, "k 0: no rule");
  /* the floor: cycles below it are free, holders ending by it are gone */
  ic_mshr_tab_floor(&t, 45);
  ic_mshr_tab_floor(&t, 30); /* never falls */
  cr_assert_eq(ic_mshr_tab_time(&t, 20, 1, NULL), 20);
  cr_assert_eq(ic_mshr_tab_time(&t, 45, 1, NULL), 50);
  cr_assert_eq(ic_mshr_tab_time(&t, 45, 2, NULL), 45);
  /* nothing is added where P <= E or P is at most the floor */
  cr_assert_eq(ic_mshr_tab_add(&t, 60, 60, 3), 0);
  cr_assert_eq(ic_mshr_tab_add(&t, 10, 44, 4), 0);
  cr_assert_eq(ic_mshr_tab_time(&t, 46, 2, NULL), 46);
  ic_mshr_tab_clear(&t);
  cr_assert_eq(ic_mshr_tab_time(&t, 46, 1, NULL), 46);
  ic_mshr_tab_free(&t);
}

/* Random holders in nearly increasing order, as a window of misses adds
 * them, with a rising floor; every query against the list, and a copy
 * counts alike. */
Test(mshr_tab, equals_the_list) {
  enum { N = 1000 };
  static hold h[N], all[N];
  ic_mshr_tab t = {0};
  uint64_t s = 777, floor = 0, now = 0;
  int n = 0;
  for (int i = 0; i < N; i++) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    const uint64_t r = s >> 33;
    if (i % 7 == 0) {
      floor = now > 120 ? now - 120 + r % 50 : floor;
      ic_mshr_tab_floor(&t, floor);
      int w = 0; /* the list keeps those in flight */
      for (int j = 0; j < n; j++)
        if (h[j].p > t.floor) h[w++] = h[j];
      n = w;
    }
    now += r % 4;
    const uint64_t e0 = now + (r >> 8) % 60;
    const int k = 1 + (int)((r >> 16) % 8);
    uint64_t want_src, src;
    const uint64_t want = rule_of(h, n, t.floor, e0, k, &want_src);
    const uint64_t got = ic_mshr_tab_time(&t, e0, k, &src);
    cr_assert_eq(got, want, "query %d: %llu, the list says %llu", i, (unsigned long long)got,
                 (unsigned long long)want);
    if (want_src != UINT64_MAX) {
      cr_assert_neq(src, UINT64_MAX);
      cr_assert_eq(all[src].p, got, "query %d: the holder named does not complete at %llu", i,
                   (unsigned long long)got);
    } else {
      cr_assert_eq(src, UINT64_MAX);
    }
    const uint64_t e = got, p = e + 1 + (r >> 24) % 100;
    cr_assert_eq(ic_mshr_tab_add(&t, e, p, (uint64_t)i), 0);
    all[i] = (hold){e, p, (uint64_t)i};
    if (p > t.floor) h[n++] = all[i];
  }
  cr_assert_gt(t.ecap, 16, "grew");
  ic_mshr_tab c = {0};
  cr_assert_eq(ic_mshr_tab_copy(&c, &t), 0);
  for (uint64_t x = t.floor; x < t.floor + 500; x++)
    for (int k = 1; k < 4; k++) cr_assert_eq(ic_mshr_tab_time(&c, x, k, NULL), ic_mshr_tab_time(&t, x, k, NULL));
  ic_mshr_tab_free(&c);
  ic_mshr_tab_free(&t);
}
