/* test_validate.c: the arithmetic of `icost validate` (engine/validate.h).
 *
 * The fixed inputs are the paper's own numbers (seeds/004, Fields et al.,
 * TACO 2004): Table VIII gives, per SPEC2000int benchmark, the multisim and
 * profiler breakdowns (8 singletons and the 7 pairs with dl1, percent of
 * execution time, one decimal) and their difference; Table IX gives the
 * multisim->profiler mean error per benchmark, defined in its caption as the
 * average of abs(multisim - profiler) / multisim over the categories over 5%.
 *
 * What the paper's rule gives on its own Table VIII (worked out by hand for
 * bzip below, checked for all twelve here):
 *  - "over 5%" must mean magnitude: with |multisim| > 5 four benchmarks
 *    (gzip 9.3, parser 9.0, perl 12.6, twolf 3.7) reproduce Table IX exactly
 *    at one decimal and six more are off by 0.1; with "multisim > 5" (negative
 *    interactions left out) perl gives 14.6 and vortex 14.0, far from 12.6
 *    and 12.4.
 *  - bzip does not reproduce: the rule gives 11.59, Table IX says 11.1; vpr
 *    gives 9.4 for 9.2. The cause is rounding: Table VIII prints every value
 *    to 0.1, and with entries as small as bw = 6.5 a +-0.05 change in one
 *    input moves the mean by up to 0.2 points. Interval arithmetic over the
 *    rounding of the inputs (and of the printed error column, which for bzip
 *    bw says -2.5 where 3.9 - 6.5 = -2.6, and for dl1+bw says -1.2 where
 *    5.9 - 6.9 = -1.0: the paper computed from unrounded values) gives
 *    [10.9, 11.9] for bzip, which contains 11.1; every benchmark's Table IX
 *    value lies inside its interval. So the rule is the paper's rule, and
 *    the residual is the rounding of the published table. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "validate.h"

#define NROW 15

typedef struct paper_bench {
  const char *name;
  double table9; /* multisim->profiler, Table IX */
  double multisim[NROW], profiler[NROW], error[NROW];
} paper_bench;

/* Rows of Table VIII: dl1 win bw bmisp dmiss shalu lgalu imiss, then
   dl1+win dl1+bw dl1+bmisp dl1+dmiss dl1+shalu dl1+lgalu dl1+imiss. As
   category masks (bit k = k-th category): */
static const uint32_t paper_sets[NROW] = {0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80,
                                          0x03, 0x05, 0x09, 0x11, 0x21, 0x41, 0x81};

static const paper_bench paper[] = {
    {"bzip", 11.1,
     {20.3, 15.9, 6.5, 37.3, 23.3, 8.9, 0.3, 0.0, -4.8, 6.9, -9.1, -0.8, -3.5, -0.2, 0.0},
     {23.2, 15.5, 3.9, 38.3, 23.5, 10.0, 0.3, 0.2, -5.2, 5.9, -9.6, -0.7, -4.3, -0.3, 0.0},
     {2.9, -0.4, -2.5, 1.1, 0.2, 1.1, 0.0, 0.2, -0.5, -1.2, -0.4, 0.1, -0.8, -0.1, 0.0}},
    {"crafty", 7.8,
     {23.4, 17.3, 8.7, 26.0, 6.9, 10.7, 0.7, 0.7, -11.5, 10.0, -4.9, -0.4, -4.0, 0.3, 0.0},
     {24.2, 15.4, 6.7, 24.1, 6.5, 11.2, 0.8, 0.2, -11.7, 10.5, -4.2, -1.3, -4.5, 0.2, 0.0},
     {0.8, -1.9, -2.0, -1.9, -0.4, 0.5, 0.1, -0.5, -0.2, 0.5, 0.7, -0.9, -0.5, -0.1, -0.0}},
    {"eon", 9.5,
     {17.0, 18.2, 10.5, 14.2, 0.8, 4.5, 12.6, 9.2, -7.7, 6.9, -3.8, -0.2, -0.6, -0.5, 1.3},
     {17.7, 15.2, 6.6, 14.4, 0.6, 5.2, 12.1, 8.7, -7.2, 6.8, -3.9, -0.3, -1.0, -0.8, 1.0},
     {0.7, -3.0, -3.9, 0.2, -0.2, 0.7, -0.5, -0.5, 0.5, -0.1, -0.1, -0.1, -0.4, -0.3, -0.3}},
    {"gap", 8.9,
     {12.6, 41.2, 4.1, 11.3, 22.6, 13.8, 5.3, 1.3, -6.3, 3.0, -2.9, 0.4, -0.3, -0.2, 0.3},
     {12.6, 29.9, 2.4, 11.4, 21.8, 11.2, 5.7, 0.9, -6.1, 3.3, -2.7, 0.3, -2.1, -0.5, 0.4},
     {0.0, -11.3, -1.7, 0.1, -0.8, -2.6, 0.4, -0.4, 0.2, 0.3, 0.2, -0.1, -1.8, -0.3, 0.1}},
    {"gcc", 11.7,
     {17.4, 14.4, 9.0, 23.9, 25.5, 5.4, 0.6, 2.1, -4.1, 10.9, -6.3, -0.9, -2.1, -0.5, 0.3},
     {17.0, 13.0, 7.1, 21.5, 27.7, 4.7, 0.2, 1.4, -3.5, 12.4, -5.4, -1.4, -1.4, -0.2, 0.2},
     {-0.4, -1.4, -1.9, -2.4, 2.2, -0.7, -0.4, -0.7, 0.6, 1.5, 0.9, -0.5, 0.7, 0.3, -0.1}},
    {"gzip", 9.3,
     {29.9, 14.7, 6.6, 23.8, 8.1, 18.9, 0.5, 0.1, -9.3, 6.2, -3.6, -0.2, -7.6, -0.5, -0.0},
     {31.7, 13.1, 5.5, 23.4, 7.8, 20.7, 0.5, 0.0, -9.6, 5.7, -3.1, -1.3, -9.4, -0.5, -0.0},
     {1.8, -1.6, -1.1, -0.4, -0.3, 1.8, 0.0, -0.1, -0.3, -0.5, 0.5, -1.1, -1.8, -0.0, 0.0}},
    {"mcf", 2.5,
     {7.1, 4.8, 0.6, 25.3, 80.8, 1.4, 0.0, -0.0, -0.0, 0.4, -2.3, -0.4, -0.2, 0.0, 0.0},
     {7.4, 4.3, 0.4, 25.1, 79.0, 1.4, 0.0, -0.0, -0.1, 0.3, -2.3, -0.5, -0.1, 0.0, 0.0},
     {0.3, -0.5, -0.2, -0.2, -1.8, 0.0, 0.0, 0.0, -0.1, -0.1, -0.0, -0.1, 0.1, -0.0, 0.0}},
    {"parser", 9.0,
     {17.9, 17.1, 4.0, 15.8, 32.1, 17.9, 0.1, 0.1, -6.3, 4.9, -2.5, -0.9, -4.1, -0.1, -0.0},
     {19.1, 13.2, 3.0, 14.9, 28.1, 17.1, 0.1, 0.1, -6.2, 4.9, -2.4, -1.7, -4.9, -0.0, -0.0},
     {1.2, -3.9, -1.0, -0.9, -4.0, -0.8, -0.0, 0.0, 0.1, -0.0, 0.1, -0.8, -0.8, 0.1, 0.0}},
    {"perl", 12.6,
     {30.7, 6.2, 10.3, 35.4, 1.3, 7.4, 0.7, 5.3, -5.9, 9.9, -8.4, -0.1, -2.2, -0.7, 1.0},
     {31.3, 5.6, 8.1, 38.0, 0.8, 8.2, 0.6, 2.7, -5.4, 9.7, -8.2, -0.1, -2.0, -0.5, 0.6},
     {0.6, -0.6, -2.2, 2.6, -0.6, 0.8, -0.1, -2.6, 0.5, -0.2, 0.2, -0.0, 0.2, 0.2, -0.4}},
    {"twolf", 3.7,
     {17.1, 24.2, 4.5, 22.2, 34.3, 7.7, 4.2, 0.1, -3.6, 1.7, -5.8, -0.1, -0.5, -0.0, -0.0},
     {19.2, 22.3, 3.5, 22.6, 34.3, 7.7, 4.2, 0.0, -4.5, 1.5, -5.8, -1.9, -0.3, -0.1, -0.0},
     {2.1, -1.9, -1.0, 0.4, -0.0, -0.0, 0.0, -0.1, -0.9, -0.2, 0.0, -1.8, 0.2, -0.1, 0.0}},
    {"vortex", 12.4,
     {27.4, 42.8, 8.0, 1.5, 19.8, 3.9, 1.5, 3.3, -25.7, 17.7, -0.2, -1.6, -3.3, -1.2, 0.5},
     {30.4, 34.4, 5.3, 0.8, 18.7, 5.4, 1.5, 0.9, -27.0, 17.7, -0.1, -1.2, -4.7, -1.3, 0.1},
     {3.0, -8.4, -2.7, -0.7, -1.1, 1.5, -0.0, -2.4, -1.3, 0.0, 0.1, 0.4, -1.4, -0.1, -0.4}},
    {"vpr", 9.2,
     {18.5, 22.9, 5.9, 23.4, 32.5, 7.3, 4.1, 0.0, -6.2, 1.9, -4.6, -1.4, -1.5, -0.3, 0.0},
     {20.3, 21.9, 4.4, 23.1, 32.1, 8.2, 4.0, 0.0, -6.9, 2.1, -4.4, -2.2, -1.9, -0.6, 0.0},
     {1.8, -1.0, -1.5, -0.3, -0.4, 0.9, -0.1, -0.0, -0.7, 0.2, 0.2, -0.8, -0.4, -0.3, 0.0}},
};
#define NBENCH (sizeof paper / sizeof paper[0])

static const paper_bench *bench(const char *name) {
  for (size_t i = 0; i < NBENCH; i++)
    if (strcmp(paper[i].name, name) == 0) return &paper[i];
  cr_assert_fail("no benchmark %s", name);
  return NULL;
}

static double paper_metric(const paper_bench *b) {
  ic_validate_score s;
  ic_validate_score_entries(b->multisim, b->profiler, paper_sets, NROW, IC_VALIDATE_THRESHOLD, &s);
  return s.mean_error_percent;
}

Test(validate, bzip_by_hand) {
  /* bzip entries with |multisim| > 5 and |profiler - multisim| / |multisim|:
     dl1 2.9/20.3 = .142857   win 0.4/15.9 = .025157   bw 2.6/6.5 = .400000
     bmisp 1.0/37.3 = .026810  dmiss 0.2/23.3 = .008584  shalu 1.1/8.9 = .123596
     dl1+bw 1.0/6.9 = .144928  dl1+bmisp 0.5/9.1 = .054945
     sum .926877 over 8 entries = 11.586% (dl1+win = -4.8 is below 5). */
  ic_validate_score s;
  const paper_bench *b = bench("bzip");
  ic_validate_score_entries(b->multisim, b->profiler, paper_sets, NROW, IC_VALIDATE_THRESHOLD, &s);
  cr_assert_eq(s.counted, 8);
  cr_assert_float_eq(s.mean_error_percent, 11.586, 0.001, "got %f", s.mean_error_percent);
  /* Table IX says 11.1: not reproduced exactly; see the file comment. */
  cr_assert_gt(fabs(s.mean_error_percent - b->table9), 0.4);
  cr_assert_eq(s.interactions, 7);
  cr_assert_eq(s.sign_mismatches, 0);
}

Test(validate, table9_exact_where_rounding_allows) {
  const char *exact[] = {"gzip", "parser", "perl", "twolf"};
  for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++) {
    const paper_bench *b = bench(exact[i]);
    double m = paper_metric(b);
    cr_assert_float_eq(round(m * 10) / 10, b->table9, 1e-9, "%s: %.3f vs Table IX %.1f",
                       b->name, m, b->table9);
  }
  /* and within 0.2 points everywhere but bzip */
  for (size_t i = 0; i < NBENCH; i++) {
    if (strcmp(paper[i].name, "bzip") == 0) continue;
    double m = paper_metric(&paper[i]);
    cr_assert_leq(fabs(m - paper[i].table9), 0.2 + 1e-9, "%s: %.3f vs %.1f", paper[i].name, m,
                  paper[i].table9);
  }
}

/* Bounds of the metric when every printed Table VIII value may be off by
   its rounding: multisim m +- 0.05, and the true difference d both within
   (p - m) +- 0.1 and within the printed error e +- 0.05 (their hull where the
   printed row is inconsistent). */
static void rounding_bounds(const paper_bench *b, double *lo, double *hi) {
  double slo = 0, shi = 0;
  int n = 0;
  for (int i = 0; i < NROW; i++) {
    double m = b->multisim[i], p = b->profiler[i], e = b->error[i];
    if (fabs(m) <= 5) continue;
    double dlo = fmax(p - m - 0.1, e - 0.05), dhi = fmin(p - m + 0.1, e + 0.05);
    if (dlo > dhi) {
      dlo = fmin(p - m - 0.1, e - 0.05);
      dhi = fmax(p - m + 0.1, e + 0.05);
    }
    double amin = (dlo <= 0 && dhi >= 0) ? 0 : fmin(fabs(dlo), fabs(dhi));
    double amax = fmax(fabs(dlo), fabs(dhi));
    slo += amin / (fabs(m) + 0.05);
    shi += amax / (fabs(m) - 0.05);
    n++;
  }
  *lo = 100 * slo / n;
  *hi = 100 * shi / n;
}

Test(validate, table9_within_rounding_of_table8) {
  for (size_t i = 0; i < NBENCH; i++) {
    double lo, hi;
    rounding_bounds(&paper[i], &lo, &hi);
    cr_assert(lo <= paper[i].table9 + 0.05 && paper[i].table9 - 0.05 <= hi,
              "%s: Table IX %.1f outside [%.2f, %.2f]", paper[i].name, paper[i].table9, lo, hi);
    double m = paper_metric(&paper[i]);
    cr_assert(lo <= m && m <= hi);
  }
  double lo, hi;
  rounding_bounds(bench("bzip"), &lo, &hi);
  cr_assert(lo < 11.1 && hi > 11.1 && lo > 10.5 && hi < 12.5, "bzip [%.2f, %.2f]", lo, hi);
}

Test(validate, positive_only_rule_does_not_reproduce) {
  /* The alternative reading "multisim > 5" (negative interactions left out). */
  const paper_bench *b = bench("perl");
  double sum = 0;
  int n = 0;
  for (int i = 0; i < NROW; i++)
    if (b->multisim[i] > 5) {
      sum += fabs(b->profiler[i] - b->multisim[i]) / b->multisim[i];
      n++;
    }
  cr_assert_gt(fabs(100 * sum / n - b->table9), 1.5);
  cr_assert_float_eq(round(paper_metric(b) * 10) / 10, 12.6, 1e-9);
}

Test(validate, paper_interaction_signs_agree) {
  /* Section 6.2: "the type of interaction (parallel or serial) is always the
     same with the profiler as the multisim baseline". */
  for (size_t i = 0; i < NBENCH; i++) {
    ic_validate_score s;
    ic_validate_score_entries(paper[i].multisim, paper[i].profiler, paper_sets, NROW,
                              IC_VALIDATE_THRESHOLD, &s);
    cr_assert_eq(s.sign_mismatches, 0, "%s", paper[i].name);
  }
  /* and a flipped one is caught */
  double ms[NROW], pr[NROW];
  memcpy(ms, paper[0].multisim, sizeof ms);
  memcpy(pr, paper[0].profiler, sizeof pr);
  pr[10] = +0.3; /* dl1+bmisp: multisim -9.1 (serial), now parallel */
  ic_validate_score s;
  ic_validate_score_entries(ms, pr, paper_sets, NROW, IC_VALIDATE_THRESHOLD, &s);
  cr_assert_eq(s.sign_mismatches, 1);
  /* a value that prints as 0.0 has no sign */
  pr[10] = ms[10];
  ms[14] = 0.04;
  pr[14] = -0.3;
  ic_validate_score_entries(ms, pr, paper_sets, NROW, IC_VALIDATE_THRESHOLD, &s);
  cr_assert_eq(s.sign_mismatches, 0);
}

Test(validate, no_entry_above_threshold) {
  double ref[3] = {50, 1, 2}, val[3] = {40, 2, 3};
  uint32_t sets[3] = {0, 1, 2}; /* the big one is base: not counted */
  ic_validate_score s;
  ic_validate_score_entries(ref, val, sets, 3, IC_VALIDATE_THRESHOLD, &s);
  cr_assert_eq(s.counted, 0);
  cr_assert(isnan(s.mean_error_percent));
}

Test(validate, pct_from_times_by_hand) {
  /* Two categories A (bit 0), B (bit 1): t = 100, t(A) = 80, t(B) = 90,
     t(AB) = 60. cost A = 20, B = 10, AB = 40; icost(AB) = 40 - 20 - 10 = 10
     (parallel); base = t(AB) = 60. */
  double t[4] = {100, 80, 90, 60}, pct[4];
  ic_err err;
  cr_assert_eq(ic_validate_pct_from_times(t, 2, pct, &err), IC_OK);
  cr_assert_float_eq(pct[0], 60, 1e-12);
  cr_assert_float_eq(pct[1], 20, 1e-12);
  cr_assert_float_eq(pct[2], 10, 1e-12);
  cr_assert_float_eq(pct[3], 10, 1e-12);
  /* serial: fixing either is enough: t(A) = t(B) = t(AB) = 70 */
  double t2[4] = {100, 70, 70, 70};
  cr_assert_eq(ic_validate_pct_from_times(t2, 2, pct, &err), IC_OK);
  cr_assert_float_eq(pct[3], -30, 1e-12);
  double bad[2] = {0, 0};
  cr_assert_eq(ic_validate_pct_from_times(bad, 1, pct, &err), IC_EINPUT);
  cr_assert(strstr(err.msg, "not positive"));
}

Test(validate, pct_sums_to_100_on_random_times) {
  srand(7);
  for (int it = 0; it < 50; it++) {
    int n = 1 + it % 8;
    size_t ns = (size_t)1 << n;
    double *t = malloc(ns * sizeof *t), *pct = malloc(ns * sizeof *pct);
    t[0] = 1000 + rand() % 1000;
    for (size_t m = 1; m < ns; m++) t[m] = t[0] - rand() % 900;
    ic_err err;
    cr_assert_eq(ic_validate_pct_from_times(t, n, pct, &err), IC_OK);
    double sum = 0;
    for (size_t m = 0; m < ns; m++) sum += pct[m];
    cr_assert_float_eq(sum, 100, 1e-9);
    /* icost of a singleton is its cost */
    for (int k = 0; k < n; k++)
      cr_assert_float_eq(pct[1u << k], 100 * (t[0] - t[1u << k]) / t[0], 1e-9);
    free(t);
    free(pct);
  }
}

/* A report over two workloads built from bzip and perl (8 categories in
   the paper's order; the 15 Table VIII rows filled in, every other
   interaction 0, base = the remainder). */
static void fill_pct(const double *rows, double *pct) {
  memset(pct, 0, 256 * sizeof *pct);
  double sum = 0;
  for (int i = 0; i < NROW; i++) {
    pct[paper_sets[i]] = rows[i];
    sum += rows[i];
  }
  pct[0] = 100 - sum;
}

static ic_validate_report *paper_report(void) {
  const uint8_t cats[8] = {IC_CAT_DL1, IC_CAT_WIN, IC_CAT_BW, IC_CAT_BMISP,
                           IC_CAT_DMISS, IC_CAT_SHALU, IC_CAT_LGALU, IC_CAT_IMISS};
  const char *methods[2] = {"multisim", "profiler"};
  ic_validate_report *r;
  ic_err err;
  cr_assert_eq(ic_validate_report_create(&r, cats, 8, methods, 2, &err), IC_OK);
  const char *names[2] = {"bzip", "perl"};
  for (int k = 0; k < 2; k++) {
    static double a[256], b[256];
    const paper_bench *pb = bench(names[k]);
    fill_pct(pb->multisim, a);
    fill_pct(pb->profiler, b);
    const double *pct[2] = {a, b};
    double cycles[2] = {1e6, NAN};
    cr_assert_eq(ic_validate_report_add(r, names[k], pct, NULL, NULL, cycles, &err), IC_OK);
  }
  return r;
}

Test(validate, report_scores_and_mean) {
  ic_validate_report *r = paper_report();
  cr_assert_eq(ic_validate_report_workloads(r), 2);
  double e0 = ic_validate_report_score(r, 0, 1)->mean_error_percent;
  double e1 = ic_validate_report_score(r, 1, 1)->mean_error_percent;
  cr_assert_float_eq(e0, paper_metric(bench("bzip")), 1e-9);
  cr_assert_float_eq(e1, paper_metric(bench("perl")), 1e-9);
  cr_assert_float_eq(ic_validate_report_mean_error(r, 1, 0), (e0 + e1) / 2, 1e-9);
  /* the other 240 interactions are 0 in both: the all-subsets score is the
     same number, its sign check covers every interaction */
  cr_assert_float_eq(ic_validate_report_mean_error(r, 1, 1), (e0 + e1) / 2, 1e-9);
  cr_assert_eq(ic_validate_report_score(r, 0, 1)->interactions, 7);
  cr_assert_eq(ic_validate_report_score(r, 0, 1)->interactions_all, 247);
  ic_validate_report_destroy(r);
}

Test(validate, paper_rows_and_every_subset) {
  /* 5 categories: the paper's rows are the 5 singletons and the 4 pairs
     with the first; win+bw (mask 0x6) is folded into "other" there. */
  double ref[32] = {0}, val[32] = {0};
  ref[1] = val[1] = 40;  /* first category, exact */
  ref[2] = 20;
  val[2] = 22;           /* 10% off */
  ref[6] = 10;
  val[6] = -5;           /* win+bw: 150% off and of the other sign */
  ref[0] = 30;
  val[0] = 43;
  ic_validate_score s;
  ic_validate_score_pct(ref, val, 5, IC_VALIDATE_THRESHOLD, &s);
  cr_assert_eq(s.counted, 2);
  cr_assert_float_eq(s.mean_error_percent, (0 + 10) / 2.0, 1e-9);
  cr_assert_eq(s.interactions, 4);
  cr_assert_eq(s.sign_mismatches, 0);
  cr_assert_eq(s.counted_all, 3);
  cr_assert_float_eq(s.mean_error_percent_all, (0 + 10 + 150) / 3.0, 1e-9);
  cr_assert_eq(s.interactions_all, 26);
  cr_assert_eq(s.sign_mismatches_all, 1);
  /* in points: over the counted rows (0 and 2), the largest over the rows
     (dl1+win's 2 is below the threshold but still a row: ref 0, val 0),
     and over every subset win+bw's 15; base's 13 never counts */
  cr_assert_float_eq(s.mean_abs_pp, (0 + 2) / 2.0, 1e-9);
  cr_assert_float_eq(s.max_abs_pp, 2.0, 1e-9);
  cr_assert_eq(s.max_abs_set, 2u);
  cr_assert_float_eq(s.mean_abs_pp_all, (0 + 2 + 15) / 3.0, 1e-9);
  cr_assert_float_eq(s.max_abs_pp_all, 15.0, 1e-9);
  cr_assert_eq(s.max_abs_set_all, 6u);
  /* with 4 categories or fewer every subset is a row */
  ic_validate_score_pct(ref, val, 4, IC_VALIDATE_THRESHOLD, &s);
  cr_assert_eq(s.counted, 3);
  cr_assert_eq(s.sign_mismatches, 1);
}

static char *write_to_string(ic_validate_report *r, ic_validate_format fmt, int show_all) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  ic_err err;
  cr_assert_eq(ic_validate_report_write(r, f, fmt, show_all, &err), IC_OK);
  fclose(f);
  return buf;
}

Test(validate, text_layout) {
  ic_validate_report *r = paper_report();
  char *s = write_to_string(r, IC_VALIDATE_TEXT, 0);
  /* Table VIII rows: bzip dl1 20.3 vs 23.2, error +2.9 */
  cr_assert(strstr(s, "dl1                          20.3       23.2    +2.9"), "%s", s);
  cr_assert(strstr(s, "dl1+bmisp"));
  cr_assert(strstr(s, "other"));
  cr_assert(!strstr(s, "win+bw"), "pairs without dl1 are folded into other");
  cr_assert(strstr(s, "multisim->profiler: mean error 11.6% over 8 entries above 5%"), "%s", s);
  cr_assert(strstr(s, "multisim->profiler         11.6     12.6     12.1"), "%s", s);
  cr_assert(strstr(s, "  over every subset: mean error 11.6% over 8 entries; signs: 0 of 247 "
                      "interactions differ"), "%s", s);
  cr_assert(strstr(s, "the same over every subset"), "%s", s);
  free(s);
  s = write_to_string(r, IC_VALIDATE_TEXT, 1);
  cr_assert(strstr(s, "win+bw"));
  cr_assert(strstr(s, "dl1+win+bw+bmisp+dmiss+shalu+lgalu+imiss"));
  free(s);
  ic_validate_report_destroy(r);
}

Test(validate, csv_rows) {
  ic_validate_report *r = paper_report();
  char *s = write_to_string(r, IC_VALIDATE_CSV, 0);
  cr_assert(!strncmp(s, "workload,item,method,percent,error_pp,ci_lo,ci_hi\n", 48));
  const char *row = strstr(s, "\nbzip,dl1,profiler,23.2,");
  cr_assert(row, "%s", s);
  cr_assert_float_eq(strtod(row + 24, NULL), 2.9, 1e-9, "%s", row);
  cr_assert(!strncmp(strchr(row + 24, ','), ",,\n", 3), "%s", row);
  cr_assert(strstr(s, "\nperl,mean_error_percent,profiler,12.56"), "%s", s);
  free(s);
  ic_validate_report_destroy(r);
}

/* Finds scalar `key` anywhere in a YAML document and returns its value
   (first occurrence), by walking the event stream. */
static int yaml_find(const char *doc, const char *key, char *out, size_t cap) {
  yaml_parser_t p;
  yaml_event_t ev;
  int found = 0, want = 0, ok = 1;
  yaml_parser_initialize(&p);
  yaml_parser_set_input_string(&p, (const unsigned char *)doc, strlen(doc));
  while (ok) {
    if (!yaml_parser_parse(&p, &ev)) {
      ok = 0;
      break;
    }
    if (ev.type == YAML_SCALAR_EVENT) {
      const char *v = (const char *)ev.data.scalar.value;
      if (want && !found) {
        snprintf(out, cap, "%s", v);
        found = 1;
      }
      want = !found && strcmp(v, key) == 0;
    } else if (want && !found && (ev.type == YAML_SEQUENCE_START_EVENT ||
                                  ev.type == YAML_MAPPING_START_EVENT)) {
      snprintf(out, cap, "<collection>");
      found = 1;
    }
    int end = ev.type == YAML_STREAM_END_EVENT;
    yaml_event_delete(&ev);
    if (end) break;
  }
  yaml_parser_delete(&p);
  return ok ? found : -1;
}

Test(validate, yaml_parses_and_has_keys) {
  ic_validate_report *r = paper_report();
  char *s = write_to_string(r, IC_VALIDATE_YAML, 0);
  char v[64];
  cr_assert_eq(yaml_find(s, "workloads", v, sizeof v), 1, "%s", s);
  cr_assert_str_eq(v, "<collection>");
  cr_assert_eq(yaml_find(s, "mean_error_percent", v, sizeof v), 1);
  cr_assert_float_eq(atof(v), (paper_metric(bench("bzip")) + paper_metric(bench("perl"))) / 2,
                     1e-4);
  cr_assert_eq(yaml_find(s, "reference", v, sizeof v), 1);
  cr_assert_str_eq(v, "multisim");
  free(s);
  ic_validate_report_destroy(r);
}

/* A two-category report whose reference has times t (ic_validate_pct_from_times
   order: t, t(A), t(B), t(AB)); the other method is the same vector. */
static ic_validate_report *times_report(const double t[4]) {
  const uint8_t cats[2] = {IC_CAT_DL1, IC_CAT_SHALU};
  const char *methods[2] = {"multisim", "graph"};
  ic_validate_report *r;
  ic_err err;
  double pct[4];
  cr_assert_eq(ic_validate_pct_from_times(t, 2, pct, &err), IC_OK);
  cr_assert_eq(ic_validate_report_create(&r, cats, 2, methods, 2, &err), IC_OK);
  const double *v[2] = {pct, pct};
  cr_assert_eq(ic_validate_report_add(r, "w", v, NULL, NULL, NULL, &err), IC_OK);
  return r;
}

Test(validate, notes_where_reference_is_not_monotone) {
  /* t(dl1) = 80 but t(dl1, shalu) = 95: shalu on top of dl1 is 15% slower,
     dl1 on top of shalu (t(shalu) = 90) 5% slower; the single steps are
     faster */
  const double t[4] = {100, 80, 90, 95};
  ic_validate_report *r = times_report(t);
  char *s = write_to_string(r, IC_VALIDATE_TEXT, 0);
  cr_assert(strstr(s, "note: multisim is not monotone here: idealizing shalu on top of dl1 made "
                      "the run slower by 15.0% of its time (2 of 4 such steps slower by more "
                      "than 0.5%)"), "%s", s);
  free(s);
  s = write_to_string(r, IC_VALIDATE_YAML, 0);
  char v[64];
  cr_assert_eq(yaml_find(s, "steps", v, sizeof v), 1, "%s", s);
  cr_assert_str_eq(v, "2");
  cr_assert_eq(yaml_find(s, "worst_percent", v, sizeof v), 1);
  cr_assert_float_eq(atof(v), 15.0, 1e-9);
  cr_assert_eq(yaml_find(s, "worst_added", v, sizeof v), 1);
  cr_assert_str_eq(v, "shalu");
  cr_assert_eq(yaml_find(s, "worst_on", v, sizeof v), 1);
  cr_assert_str_eq(v, "<collection>");
  free(s);
  s = write_to_string(r, IC_VALIDATE_CSV, 0);
  cr_assert(strstr(s, "\nw,slowdown_steps,multisim,2,,,\n"), "%s", s);
  cr_assert(strstr(s, "\nw,slowdown_worst_percent,multisim,15,,,\n"), "%s", s);
  free(s);
  ic_validate_report_destroy(r);
  /* monotone (every step at least as fast), and a step 0.4% slower (within
     the 0.5% margin): no note */
  const double t2[4] = {100, 80, 90, 60}, t3[4] = {100, 80, 90, 80.4};
  for (int k = 0; k < 2; k++) {
    r = times_report(k ? t3 : t2);
    s = write_to_string(r, IC_VALIDATE_TEXT, 0);
    cr_assert(!strstr(s, "not monotone"), "%s", s);
    free(s);
    s = write_to_string(r, IC_VALIDATE_YAML, 0);
    cr_assert_eq(yaml_find(s, "steps", v, sizeof v), 1);
    cr_assert_str_eq(v, "0");
    cr_assert_eq(yaml_find(s, "worst_added", v, sizeof v), 0);
    free(s);
    ic_validate_report_destroy(r);
  }
}

Test(validate, report_rejects_bad_shapes) {
  ic_validate_report *r;
  ic_err err;
  const char *m[1] = {"multisim"};
  uint8_t cats[13] = {0};
  cr_assert_eq(ic_validate_report_create(&r, cats, 0, m, 1, &err), IC_EINPUT);
  cr_assert_eq(ic_validate_report_create(&r, cats, 13, m, 1, &err), IC_EINPUT);
  cr_assert_eq(ic_validate_report_create(&r, cats, 2, m, 0, &err), IC_EINPUT);
  cats[0] = IC_CAT_IDS; /* ids below it are base or scoped categories */
  cr_assert_eq(ic_validate_report_create(&r, cats, 1, m, 1, &err), IC_EINPUT);
}

/* The largest error in points and its entry, in every format: multisim
   t = {100, 80, 90, 70} gives dl1 20, shalu 10, dl1+shalu 0; the method's
   t(dl1) = 84 moves dl1 to 16 and dl1+shalu to 4 (4 points each: the first
   found, dl1, is named), base 70 to 70. */
Test(validate, names_the_largest_error_in_points) {
  const uint8_t cats[2] = {IC_CAT_DL1, IC_CAT_SHALU};
  const char *methods[2] = {"multisim", "graph"};
  const double tm[4] = {100, 80, 90, 70}, tg[4] = {100, 84, 90, 70};
  double pm[4], pg[4];
  ic_validate_report *r;
  ic_err err;
  cr_assert_eq(ic_validate_pct_from_times(tm, 2, pm, &err), IC_OK);
  cr_assert_eq(ic_validate_pct_from_times(tg, 2, pg, &err), IC_OK);
  cr_assert_eq(ic_validate_report_create(&r, cats, 2, methods, 2, &err), IC_OK);
  const double *v[2] = {pm, pg};
  cr_assert_eq(ic_validate_report_add(r, "w", v, NULL, NULL, NULL, &err), IC_OK);
  const double *v2[2] = {pm, pm}; /* a second, exact workload: the suite summary */
  cr_assert_eq(ic_validate_report_add(r, "w2", v2, NULL, NULL, NULL, &err), IC_OK);
  const ic_validate_score *sc = ic_validate_report_score(r, 0, 1);
  cr_assert_float_eq(sc->max_abs_pp, 4.0, 1e-9);
  cr_assert_eq(sc->max_abs_set, 1u);
  cr_assert_float_eq(sc->mean_abs_pp, (4 + 0) / 2.0, 1e-9); /* dl1 and shalu counted */
  char *s = write_to_string(r, IC_VALIDATE_TEXT, 0);
  cr_assert(strstr(s, "(2.0 points on average)"), "%s", s);
  cr_assert(strstr(s, "  largest error: 4.0 points (dl1)\n"), "%s", s);
  cr_assert(strstr(s, "largest error in percentage points"), "%s", s);
  cr_assert(strstr(s, "  largest error: none (every entry exact)\n"), "%s", s);
  /* the suite row: 4.0 and 0.0, mean 2.0 */
  cr_assert(strstr(s, "multisim->graph             4.0      0.0      2.0\n"), "%s", s);
  free(s);
  s = write_to_string(r, IC_VALIDATE_YAML, 0);
  char val[64];
  /* first found: the method's summary, the largest over the workloads and
     the mean of their means (2 and 0) */
  cr_assert_eq(yaml_find(s, "max_abs_error_pp", val, sizeof val), 1, "%s", s);
  cr_assert_float_eq(atof(val), 4.0, 1e-9);
  cr_assert_eq(yaml_find(s, "mean_abs_error_pp", val, sizeof val), 1, "%s", s);
  cr_assert_float_eq(atof(val), 1.0, 1e-9);
  cr_assert(strstr(s, "      mean_abs_error_pp: 2\n      max_abs_error_pp: 4\n"), "%s", s);
  cr_assert(strstr(s, "max_abs_error_set:\n      - dl1\n"), "%s", s);
  free(s);
  s = write_to_string(r, IC_VALIDATE_CSV, 0);
  cr_assert(strstr(s, "\nw,max_abs_error_pp,graph,4,,,\n"), "%s", s);
  cr_assert(strstr(s, "\nw,mean_abs_error_pp,graph,2,,,\n"), "%s", s);
  free(s);
  ic_validate_report_destroy(r);
}
