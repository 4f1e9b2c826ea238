/* test_iq_tab.c: the IQ rule's bound (model/iq_tab.h), which every
 * evaluator shares: the K-th largest E so far, against a plain sort of
 * every E (the rule's definition), growth of the ring, a new size, the
 * span limit and copies. */
#include <criterion/criterion.h>

#include "iq_tab.h"

static int desc(const void *a, const void *b) {
  const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? 1 : x > y ? -1 : 0;
}

Test(iq_tab, three_entries_by_hand) {
  ic_iq_tab t = {0};
  cr_assert_eq(ic_iq_tab_reset(&t, 3), 0);
  cr_assert_eq(ic_iq_tab_add(&t, 10), 0);
  cr_assert_eq(ic_iq_tab_add(&t, 30), 0);
  cr_assert_eq(ic_iq_tab_bound(&t), 0, "fewer than 3: no bound");
  cr_assert_eq(ic_iq_tab_add(&t, 20), 0);
  cr_assert_eq(ic_iq_tab_bound(&t), 10, "the 3rd largest of 10, 30, 20");
  cr_assert_eq(ic_iq_tab_add(&t, 5), 0); /* not among the 3 largest */
  cr_assert_eq(ic_iq_tab_bound(&t), 10);
  cr_assert_eq(ic_iq_tab_add(&t, 25), 0);
  cr_assert_eq(ic_iq_tab_bound(&t), 20);
  cr_assert_eq(ic_iq_tab_add(&t, 30), 0); /* 30 30 25 */
  cr_assert_eq(ic_iq_tab_bound(&t), 25);
  /* far above: counts as IC_IQ_TAB_SPAN - 1 above the bound */
  cr_assert_eq(ic_iq_tab_add(&t, 25 + 10 * (uint64_t)IC_IQ_TAB_SPAN), 0); /* 30 30 far */
  cr_assert_eq(ic_iq_tab_bound(&t), 30);
  /* a new size starts over; size 0: no rule */
  cr_assert_eq(ic_iq_tab_reset(&t, 2), 0);
  cr_assert_eq(ic_iq_tab_bound(&t), 0);
  cr_assert_eq(ic_iq_tab_reset(&t, 0), 0);
  cr_assert_eq(ic_iq_tab_add(&t, 99), 0);
  cr_assert_eq(ic_iq_tab_bound(&t), 0);
  /* a size beyond the counts fails cleanly (no rule) */
  cr_assert_eq(ic_iq_tab_reset(&t, UINT32_MAX), -1);
  cr_assert_eq(t.k, 0);
  ic_iq_tab_free(&t);
}

/* E's in roughly increasing order with random late ones, as issue times
 * in program order are, and sizes 1 to 64: every bound against the sorted
 * list of all E's so far, and a copy bounds alike. */
Test(iq_tab, equals_the_sorted_list) {
  enum { N = 1500 };
  static uint64_t all[N], srt[N];
  uint64_t s = 4242;
  for (uint32_t k = 1; k <= 64; k = k * 2 + 1) {
    ic_iq_tab t = {0};
    cr_assert_eq(ic_iq_tab_reset(&t, k), 0);
    uint64_t now = 0;
    for (int i = 0; i < N; i++) {
      const uint64_t b = ic_iq_tab_bound(&t);
      if ((uint32_t)i < k) {
        cr_assert_eq(b, 0);
      } else {
        memcpy(srt, all, (size_t)i * sizeof *all);
        qsort(srt, (size_t)i, sizeof *srt, desc);
        cr_assert_eq(b, srt[k - 1], "k %u, E %d: bound %llu, the sorted list says %llu", k, i,
                     (unsigned long long)b, (unsigned long long)srt[k - 1]);
      }
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      const uint64_t r = s >> 33;
      now += r % 3;
      all[i] = now + ((r >> 8) % 10 == 0 ? (r >> 12) % 200 : (r >> 12) % 4);
      cr_assert_eq(ic_iq_tab_add(&t, all[i]), 0);
    }
    ic_iq_tab c = {0};
    cr_assert_eq(ic_iq_tab_copy(&c, &t), 0);
    cr_assert_eq(ic_iq_tab_bound(&c), ic_iq_tab_bound(&t));
    cr_assert_eq(ic_iq_tab_add(&c, now + 5000), 0);
    cr_assert_eq(ic_iq_tab_add(&t, now + 5000), 0);
    cr_assert_eq(ic_iq_tab_bound(&c), ic_iq_tab_bound(&t));
    cr_assert_gt(t.cap, 64, "the ring grew");
    ic_iq_tab_free(&c);
    ic_iq_tab_free(&t);
  }
}
