/* validate.c: the arithmetic and the report of `icost validate`
 * (validate.h): per-entry errors against multisim, the paper's Table IX
 * mean-error metric, interaction sign agreement, and the text/CSV/YAML
 * writers, and the driver that computes one workload's breakdowns by
 * every method. */
#include "validate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpus.h"
#include "record_pipe.h"
#include "solver.h"

void ic_validate_score_entries(const double *ref, const double *val, const uint32_t *sets,
                               size_t n, double threshold, ic_validate_score *out) {
  double sum = 0, abs_sum = 0, abs_max = 0;
  uint32_t abs_set = 0;
  int counted = 0, inter = 0, mism = 0;
  for (size_t i = 0; i < n; i++) {
    if (sets[i] == 0) continue; /* base */
    const double d = fabs(val[i] - ref[i]);
    if (d > abs_max) abs_max = d, abs_set = sets[i];
    if (fabs(ref[i]) > threshold) {
      sum += d / fabs(ref[i]);
      abs_sum += d;
      counted++;
    }
    if (__builtin_popcount(sets[i]) >= 2) {
      inter++;
      if ((ref[i] >= IC_VALIDATE_SIGN_EPS && val[i] <= -IC_VALIDATE_SIGN_EPS) ||
          (ref[i] <= -IC_VALIDATE_SIGN_EPS && val[i] >= IC_VALIDATE_SIGN_EPS))
        mism++;
    }
  }
  out->mean_error_percent = out->mean_error_percent_all = counted ? 100.0 * sum / counted : NAN;
  out->mean_abs_pp = out->mean_abs_pp_all = counted ? abs_sum / counted : NAN;
  out->max_abs_pp = out->max_abs_pp_all = abs_max;
  out->max_abs_set = out->max_abs_set_all = abs_set;
  out->counted = out->counted_all = counted;
  out->interactions = out->interactions_all = inter;
  out->sign_mismatches = out->sign_mismatches_all = mism;
}

/* Is subset m a row of the paper's layout (Table VIII)? */
static int paper_row(int ncat, uint32_t m) {
  return ncat <= 4 || __builtin_popcount(m) == 1 || (__builtin_popcount(m) == 2 && (m & 1u));
}

void ic_validate_score_pct(const double *ref_pct, const double *val_pct, int ncat,
                           double threshold, ic_validate_score *out) {
  size_t n = (size_t)1 << ncat, k = 0;
  static const size_t cap = (size_t)1 << IC_VALIDATE_MAX_CATS;
  uint32_t *sets = calloc(cap, sizeof *sets);
  double *ref = calloc(cap, sizeof *ref), *val = calloc(cap, sizeof *val);
  if (!sets || !ref || !val) { /* a few KB: only a broken allocator lands here */
    out->mean_error_percent = out->mean_error_percent_all = NAN;
    out->mean_abs_pp = out->mean_abs_pp_all = out->max_abs_pp = out->max_abs_pp_all = NAN;
    out->max_abs_set = out->max_abs_set_all = 0;
    out->counted = out->counted_all = out->interactions = out->interactions_all = 0;
    out->sign_mismatches = out->sign_mismatches_all = 0;
    free(sets);
    free(ref);
    free(val);
    return;
  }
  for (size_t m = 1; m < n; m++) sets[m - 1] = (uint32_t)m;
  ic_validate_score all = {0};
  ic_validate_score_entries(ref_pct + 1, val_pct + 1, sets, n - 1, threshold, &all);
  for (size_t m = 1; m < n; m++)
    if (paper_row(ncat, (uint32_t)m)) {
      sets[k] = (uint32_t)m;
      ref[k] = ref_pct[m];
      val[k] = val_pct[m];
      k++;
    }
  ic_validate_score_entries(ref, val, sets, k, threshold, out);
  out->mean_error_percent_all = all.mean_error_percent;
  out->mean_abs_pp_all = all.mean_abs_pp;
  out->max_abs_pp_all = all.max_abs_pp;
  out->max_abs_set_all = all.max_abs_set;
  out->counted_all = all.counted;
  out->interactions_all = all.interactions;
  out->sign_mismatches_all = all.sign_mismatches;
  free(sets);
  free(ref);
  free(val);
}

ic_status ic_validate_pct_from_times(const double *t_subset, int ncat, double *pct,
                                     ic_err *err) {
  if (ncat < 1 || ncat > IC_VALIDATE_MAX_CATS)
    return ic_fail(err, IC_EINPUT, "validate: %d categories (1 to %d allowed)", ncat,
                   IC_VALIDATE_MAX_CATS);
  double t = t_subset[0];
  if (!(t > 0)) return ic_fail(err, IC_EINPUT, "validate: execution time %g is not positive", t);
  size_t n = (size_t)1 << ncat;
  for (size_t m = 0; m < n; m++) pct[m] = t - t_subset[m]; /* cost(m) */
  /* Moebius inversion over the subset lattice, one category at a time:
     afterwards pct[U] = sum over V subset of U of (-1)^{|U|-|V|} cost(V). */
  for (int b = 0; b < ncat; b++)
    for (size_t m = 0; m < n; m++)
      if (m & ((size_t)1 << b)) pct[m] -= pct[m ^ ((size_t)1 << b)];
  for (size_t m = 1; m < n; m++) pct[m] = 100.0 * pct[m] / t;
  pct[0] = 100.0 * t_subset[n - 1] / t;
  return IC_OK;
}

/* ---- the report ---- */

typedef struct vworkload {
  char *name;
  double *pct;     /* [nmethods][nsub] */
  double *lo, *hi; /* [nmethods][nsub], NAN where a method has no interval */
  double cycles[IC_VALIDATE_MAX_METHODS];
  double seconds[IC_VALIDATE_MAX_METHODS];
  uint64_t ci_fragments[IC_VALIDATE_MAX_METHODS]; /* what each interval was resampled from */
  ic_validate_score score[IC_VALIDATE_MAX_METHODS];
  /* the reference idealizing more and running slower (find_slowdowns) */
  int slow_steps;       /* steps (S, c) slower by more than IC_VALIDATE_SLOW_EPS */
  double slow_worst;    /* the largest cost(S) - cost(S + c), percent; 0 if none */
  uint32_t slow_on;     /* its S */
  int slow_add;         /* its c (bit index) */
} vworkload;

struct ic_validate_report {
  int ncat;
  uint8_t cats[IC_VALIDATE_MAX_CATS];
  int nmethods;
  char *methods[IC_VALIDATE_MAX_METHODS];
  size_t nsub; /* 2^ncat */
  vworkload *w;
  int nw, capw;
};

static char *dupstr(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d) memcpy(d, s, n);
  return d;
}

ic_status ic_validate_report_create(ic_validate_report **out, const uint8_t *cats, int ncat,
                                    const char *const *methods, int nmethods, ic_err *err) {
  *out = NULL;
  if (ncat < 1 || ncat > IC_VALIDATE_MAX_CATS)
    return ic_fail(err, IC_EINPUT, "validate: %d categories (1 to %d allowed)", ncat,
                   IC_VALIDATE_MAX_CATS);
  if (nmethods < 1 || nmethods > IC_VALIDATE_MAX_METHODS)
    return ic_fail(err, IC_EINPUT, "validate: %d methods (1 to %d allowed)", nmethods,
                   IC_VALIDATE_MAX_METHODS);
  for (int k = 0; k < ncat; k++)
    if (!ic_cat_valid(cats[k]))
      return ic_fail(err, IC_EINPUT, "validate: category id %d out of range", cats[k]);
  ic_validate_report *r = calloc(1, sizeof *r);
  if (!r) return ic_fail(err, IC_ERUN, "validate: out of memory");
  r->ncat = ncat;
  memcpy(r->cats, cats, (size_t)ncat);
  r->nsub = (size_t)1 << ncat;
  r->nmethods = nmethods;
  for (int m = 0; m < nmethods; m++) {
    r->methods[m] = dupstr(methods[m]);
    if (!r->methods[m]) {
      ic_validate_report_destroy(r);
      return ic_fail(err, IC_ERUN, "validate: out of memory");
    }
  }
  *out = r;
  return IC_OK;
}

void ic_validate_report_destroy(ic_validate_report *r) {
  if (!r) return;
  for (int i = 0; i < r->nw; i++) {
    free(r->w[i].name);
    free(r->w[i].pct);
    free(r->w[i].lo);
    free(r->w[i].hi);
  }
  free(r->w);
  for (int m = 0; m < r->nmethods; m++) free(r->methods[m]);
  free(r);
}

/* Where the reference is not monotone: over every subset S and category c
 * not in S, how much slower the run idealizing S + c is than the one
 * idealizing S alone, cost(S) - cost(S + c) in percent of time, where
 * cost(S) = t - t(S) is the sum of the icosts of the non-empty subsets of S
 * (a subset-sum transform of the percent vector). A dependence graph can
 * only shorten paths when latencies shrink, so it cannot follow such steps:
 * the report says where they are. cost must hold 2^ncat values. */
static void find_slowdowns(const ic_validate_report *r, vworkload *w, double *cost) {
  const double *ref = w->pct; /* method 0 */
  for (size_t m = 0; m < r->nsub; m++) cost[m] = m ? ref[m] : 0;
  for (int k = 0; k < r->ncat; k++)
    for (size_t m = 0; m < r->nsub; m++)
      if (m & ((size_t)1 << k)) cost[m] += cost[m ^ ((size_t)1 << k)];
  for (size_t m = 0; m < r->nsub; m++)
    for (int c = 0; c < r->ncat; c++) {
      if (m & ((size_t)1 << c)) continue;
      double d = cost[m] - cost[m | ((size_t)1 << c)];
      if (d <= IC_VALIDATE_SLOW_EPS) continue;
      w->slow_steps++;
      if (d > w->slow_worst) {
        w->slow_worst = d;
        w->slow_on = (uint32_t)m;
        w->slow_add = c;
      }
    }
}

ic_status ic_validate_report_add(ic_validate_report *r, const char *workload,
                                 const double *const *pct, const double *const *lo,
                                 const double *const *hi, const double *cycles, ic_err *err) {
  if (r->nw == r->capw) {
    int cap = r->capw ? 2 * r->capw : 8;
    vworkload *w = realloc(r->w, (size_t)cap * sizeof *w);
    if (!w) return ic_fail(err, IC_ERUN, "validate: out of memory");
    r->w = w;
    r->capw = cap;
  }
  vworkload *w = &r->w[r->nw];
  memset(w, 0, sizeof *w);
  size_t nv = (size_t)r->nmethods * r->nsub;
  w->name = dupstr(workload);
  w->pct = malloc(nv * sizeof(double));
  w->lo = malloc(nv * sizeof(double));
  w->hi = malloc(nv * sizeof(double));
  double *cost = malloc(r->nsub * sizeof(double));
  if (!w->name || !w->pct || !w->lo || !w->hi || !cost) {
    free(w->name);
    free(w->pct);
    free(w->lo);
    free(w->hi);
    free(cost);
    return ic_fail(err, IC_ERUN, "validate: out of memory");
  }
  for (int m = 0; m < r->nmethods; m++) {
    double *p = w->pct + (size_t)m * r->nsub;
    memcpy(p, pct[m], r->nsub * sizeof(double));
    for (size_t s = 0; s < r->nsub; s++) {
      w->lo[(size_t)m * r->nsub + s] = lo && lo[m] ? lo[m][s] : NAN;
      w->hi[(size_t)m * r->nsub + s] = hi && hi[m] ? hi[m][s] : NAN;
    }
    w->cycles[m] = cycles ? cycles[m] : NAN;
    w->seconds[m] = NAN;
    if (m > 0)
      ic_validate_score_pct(w->pct, p, r->ncat, IC_VALIDATE_THRESHOLD, &w->score[m]);
  }
  find_slowdowns(r, w, cost);
  free(cost);
  r->nw++;
  return IC_OK;
}

void ic_validate_report_time(ic_validate_report *r, int method, double seconds) {
  if (r->nw > 0 && method >= 0 && method < r->nmethods) r->w[r->nw - 1].seconds[method] = seconds;
}

void ic_validate_report_set_ci_fragments(ic_validate_report *r, int method, uint64_t fragments) {
  if (r->nw > 0 && method >= 0 && method < r->nmethods) r->w[r->nw - 1].ci_fragments[method] = fragments;
}

static int method_has_ci(const ic_validate_report *r, const vworkload *w, int m);

const char *ic_validate_report_ci_warning(const ic_validate_report *r, int w, int m, char *buf, size_t cap) {
  if (w < 0 || w >= r->nw || m < 0 || m >= r->nmethods || !method_has_ci(r, &r->w[w], m)) return NULL;
  const uint64_t n = r->w[w].ci_fragments[m];
  if (n >= IC_CI_MIN_FRAGMENTS) return NULL;
  snprintf(buf, cap, "%s: the 95%% CI is a bootstrap over only %llu fragment%s (fewer than %d): it says "
           "little about the error", r->methods[m], (unsigned long long)n, n == 1 ? "" : "s",
           IC_CI_MIN_FRAGMENTS);
  return buf;
}

const ic_validate_score *ic_validate_report_score(const ic_validate_report *r, int w, int m) {
  return &r->w[w].score[m];
}

const double *ic_validate_report_pct(const ic_validate_report *r, int w, int m) {
  return r->w[w].pct + (size_t)m * r->nsub;
}

int ic_validate_report_workloads(const ic_validate_report *r) { return r->nw; }

double ic_validate_report_mean_error(const ic_validate_report *r, int m, int all) {
  double sum = 0;
  int k = 0;
  for (int i = 0; i < r->nw; i++) {
    double e = all ? r->w[i].score[m].mean_error_percent_all : r->w[i].score[m].mean_error_percent;
    if (!isnan(e)) {
      sum += e;
      k++;
    }
  }
  return k ? sum / k : NAN;
}

/* ---- rows shown ---- */

/* A row of the per-workload table: one subset, or (mask 0, other = 1) the
 * sum of the interactions not shown, or (mask 0, other = 0) base. */
typedef struct vrow {
  uint32_t mask;
  int other;
} vrow;

static int row_shown(const ic_validate_report *r, uint32_t m, int show_all) {
  if (show_all || r->ncat <= 4) return 1;
  return __builtin_popcount(m) == 1 || (__builtin_popcount(m) == 2 && (m & 1u));
}

/* Rows in the paper's order: singletons, then interactions by size and
 * mask, then "other" (if anything is folded), then base. */
static size_t build_rows(const ic_validate_report *r, int show_all, vrow *rows) {
  size_t n = 0;
  int folded = 0;
  for (int size = 1; size <= r->ncat; size++)
    for (uint32_t m = 1; m < r->nsub; m++) {
      if (__builtin_popcount(m) != size) continue;
      if (row_shown(r, m, show_all))
        rows[n++] = (vrow){m, 0};
      else
        folded = 1;
    }
  if (folded) rows[n++] = (vrow){0, 1};
  rows[n++] = (vrow){0, 0};
  return n;
}

static double row_value(const ic_validate_report *r, const vworkload *w, int m, vrow row,
                        int show_all) {
  const double *p = w->pct + (size_t)m * r->nsub;
  if (!row.other) return p[row.mask];
  double s = 0;
  for (uint32_t k = 1; k < r->nsub; k++)
    if (!row_shown(r, k, show_all)) s += p[k];
  return s;
}

static void row_ci(const ic_validate_report *r, const vworkload *w, int m, vrow row, double *lo,
                   double *hi) {
  if (row.other) {
    *lo = *hi = NAN;
    return;
  }
  *lo = w->lo[(size_t)m * r->nsub + row.mask];
  *hi = w->hi[(size_t)m * r->nsub + row.mask];
}

static void row_label(const ic_validate_report *r, vrow row, const char *sep, char *buf,
                      size_t cap) {
  if (row.mask == 0) {
    snprintf(buf, cap, "%s", row.other ? "other" : "base");
    return;
  }
  size_t len = 0;
  buf[0] = 0;
  for (int k = 0; k < r->ncat; k++)
    if (row.mask & (1u << k)) {
      int wr = snprintf(buf + len, cap - len, "%s%s", len ? sep : "",
                        ic_category_name(r->cats[k]));
      if (wr < 0 || (size_t)wr >= cap - len) return;
      len += (size_t)wr;
    }
}

/* v with one decimal, never "-0.0" (emit.h); signed: "+0.3", "-1.2". */
static const char *one_decimal(char *buf, size_t cap, double v, int sign) {
  buf[0] = '+';
  ic_emit_fmt_fixed(buf + (sign != 0), cap - 1, v, 1);
  if (sign && buf[1] == '-') memmove(buf, buf + 1, strlen(buf));
  return buf;
}

/* "<what>: 2.3 points (dl1+bmisp)", or that every entry is exact. */
static void write_largest(const ic_validate_report *r, FILE *f, const char *what, double pp,
                          uint32_t set) {
  char label[160];
  if (isnan(pp)) return;
  if (!set) {
    fprintf(f, "%s: none (every entry exact)\n", what);
    return;
  }
  row_label(r, (vrow){set, 0}, "+", label, sizeof label);
  char b[64];
  fprintf(f, "%s: %s points (%s)\n", what, one_decimal(b, sizeof b, pp, 0), label);
}

static int method_has_ci(const ic_validate_report *r, const vworkload *w, int m) {
  for (size_t s = 0; s < r->nsub; s++)
    if (!isnan(w->lo[(size_t)m * r->nsub + s])) return 1;
  return 0;
}

/* ---- text ---- */

static void write_text_workload(const ic_validate_report *r, const vworkload *w, FILE *f,
                                int show_all, vrow *rows) {
  size_t nrows = build_rows(r, show_all, rows);
  char label[160];
  int hasci[IC_VALIDATE_MAX_METHODS];
  fprintf(f, "workload %s: breakdown in percent of execution time; error = method - %s in "
             "percentage points\n",
          w->name, r->methods[0]);
  fprintf(f, "%-22s", "");
  for (int m = 0; m < r->nmethods; m++) {
    hasci[m] = method_has_ci(r, w, m);
    fprintf(f, " %10s", r->methods[m]);
    /* an interval from too few fragments is marked, and said why below */
    if (hasci[m]) fprintf(f, " %15s", w->ci_fragments[m] < IC_CI_MIN_FRAGMENTS ? "95% CI (!)" : "95% CI");
    if (m > 0) fprintf(f, " %7s", "error");
  }
  fputc('\n', f);
  for (size_t i = 0; i < nrows; i++) {
    row_label(r, rows[i], "+", label, sizeof label);
    fprintf(f, "%-22s", label);
    double ref = row_value(r, w, 0, rows[i], show_all);
    for (int m = 0; m < r->nmethods; m++) {
      double v = row_value(r, w, m, rows[i], show_all);
      char b[64], c[64];
      fprintf(f, " %10s", one_decimal(b, sizeof b, v, 0));
      if (hasci[m]) {
        double lo, hi;
        row_ci(r, w, m, rows[i], &lo, &hi);
        if (isnan(lo))
          fprintf(f, " %15s", "");
        else
          fprintf(f, "  [%5s, %5s]", one_decimal(b, sizeof b, lo, 0), one_decimal(c, sizeof c, hi, 0));
      }
      if (m > 0) fprintf(f, " %7s", one_decimal(b, sizeof b, v - ref, 1));
    }
    fputc('\n', f);
  }
  fprintf(f, "%-22s", "cycles");
  for (int m = 0; m < r->nmethods; m++) {
    if (isnan(w->cycles[m]))
      fprintf(f, " %10s", "-");
    else
      fprintf(f, " %10.0f", w->cycles[m]);
    if (hasci[m]) fprintf(f, " %15s", "");
    if (m > 0) fprintf(f, " %7s", "");
  }
  fputc('\n', f);
  const int wi = (int)(w - r->w);
  for (int m = 0; m < r->nmethods; m++) {
    char warn[256];
    if (ic_validate_report_ci_warning(r, wi, m, warn, sizeof warn)) fprintf(f, "(!) %s\n", warn);
  }
  for (int m = 1; m < r->nmethods; m++) {
    const ic_validate_score *s = &w->score[m];
    fprintf(f, "%s->%s: mean error ", r->methods[0], r->methods[m]);
    if (isnan(s->mean_error_percent))
      fprintf(f, "n/a (no entry above %.0f%%)", IC_VALIDATE_THRESHOLD);
    else
      fprintf(f, "%.1f%% over %d entries above %.0f%% (%.1f points on average)",
              s->mean_error_percent, s->counted, IC_VALIDATE_THRESHOLD, s->mean_abs_pp);
    fprintf(f, "; interaction signs %s (%d of %d differ)\n",
            s->sign_mismatches ? "DIFFER" : "agree", s->sign_mismatches, s->interactions);
    write_largest(r, f, "  largest error", s->max_abs_pp, s->max_abs_set);
    if (s->interactions_all != s->interactions) {
      fprintf(f, "  over every subset: mean error ");
      if (isnan(s->mean_error_percent_all))
        fprintf(f, "n/a");
      else
        fprintf(f, "%.1f%% over %d entries", s->mean_error_percent_all, s->counted_all);
      fprintf(f, "; signs: %d of %d interactions differ\n", s->sign_mismatches_all,
              s->interactions_all);
      write_largest(r, f, "  largest error over every subset", s->max_abs_pp_all,
                    s->max_abs_set_all);
    }
  }
  if (w->slow_steps) {
    char on[160];
    row_label(r, (vrow){w->slow_on, 0}, "+", on, sizeof on);
    fprintf(f, "note: %s is not monotone here: idealizing %s %s%s made the run slower by %.1f%% "
               "of its time (%d of %d such steps slower by more than %.1f%%); a dependence graph "
               "only shortens paths when latencies shrink, so no graph method can follow these "
               "entries\n",
            r->methods[0], ic_category_name(r->cats[w->slow_add]),
            w->slow_on ? "on top of " : "alone", w->slow_on ? on : "", w->slow_worst,
            w->slow_steps, r->ncat << (r->ncat - 1), IC_VALIDATE_SLOW_EPS);
  }
  int any_time = 0;
  for (int m = 0; m < r->nmethods; m++) any_time |= !isnan(w->seconds[m]);
  if (any_time) {
    fprintf(f, "wall time:");
    for (int m = 0; m < r->nmethods; m++)
      if (!isnan(w->seconds[m])) fprintf(f, " %s %.2f s", r->methods[m], w->seconds[m]);
    fputc('\n', f);
  }
}

static int paper_rows_are_all(const ic_validate_report *r) { return r->ncat <= 4; }

/* What a suite summary row shows per workload. */
enum { ROW_REL, ROW_REL_ALL, ROW_MAX_PP };

static double score_row_value(const ic_validate_score *s, int what) {
  return what == ROW_REL ? s->mean_error_percent
         : what == ROW_REL_ALL ? s->mean_error_percent_all
                               : s->max_abs_pp;
}

/* One row per method of the suite summary: its Table IX mean error per
 * workload and over the suite; over the paper's rows, or every subset
 * (ROW_REL_ALL); or the largest error in points over the paper's rows and
 * its mean over the suite (ROW_MAX_PP). */
static void write_error_rows(const ic_validate_report *r, FILE *f, int width, int what) {
  char label[64];
  for (int m = 1; m < r->nmethods; m++) {
    snprintf(label, sizeof label, "%s->%s", r->methods[0], r->methods[m]);
    fprintf(f, "%-22s", label);
    double sum = 0;
    int k = 0;
    for (int i = 0; i < r->nw; i++) {
      double e = score_row_value(&r->w[i].score[m], what);
      if (isnan(e)) {
        fprintf(f, " %*s", width, "n/a");
      } else {
        char b[64];
        fprintf(f, " %*s", width, one_decimal(b, sizeof b, e, 0));
        sum += e;
        k++;
      }
    }
    double mean = what == ROW_MAX_PP ? (k ? sum / k : NAN)
                                     : ic_validate_report_mean_error(r, m, what == ROW_REL_ALL);
    if (isnan(mean))
      fprintf(f, " %*s\n", width, "n/a");
    else
      fprintf(f, " %*s\n", width, one_decimal(label, sizeof label, mean, 0));
  }
}

static void write_text_summary(const ic_validate_report *r, FILE *f) {
  int width = 8;
  for (int i = 0; i < r->nw; i++) {
    int l = (int)strlen(r->w[i].name) + 1;
    if (l > width) width = l;
  }
  fprintf(f, "mean error against %s in percent (entries above %.0f%% of execution time)\n",
          r->methods[0], IC_VALIDATE_THRESHOLD);
  fprintf(f, "%-22s", "");
  for (int i = 0; i < r->nw; i++) fprintf(f, " %*s", width, r->w[i].name);
  fprintf(f, " %*s\n", width, "mean");
  write_error_rows(r, f, width, ROW_REL);
  if (!paper_rows_are_all(r)) {
    fprintf(f, "the same over every subset (not only the paper's rows)\n");
    write_error_rows(r, f, width, ROW_REL_ALL);
  }
  fprintf(f, "largest error in percentage points of execution time (the paper's rows but base)\n");
  write_error_rows(r, f, width, ROW_MAX_PP);
  fprintf(f, "interaction signs agree with %s\n", r->methods[0]);
  char label[64];
  for (int m = 1; m < r->nmethods; m++) {
    snprintf(label, sizeof label, "%s->%s", r->methods[0], r->methods[m]);
    fprintf(f, "%-22s", label);
    int agree = 0;
    for (int i = 0; i < r->nw; i++) {
      int ok = r->w[i].score[m].sign_mismatches == 0;
      agree += ok;
      fprintf(f, " %*s", width, ok ? "yes" : "no");
    }
    char all[32];
    snprintf(all, sizeof all, "%d/%d", agree, r->nw);
    fprintf(f, " %*s\n", width, all);
  }
}

/* ---- csv, yaml and json (emit.h) ---- */

/* A subset as a list of category names (base and other: their name). */
static void emit_set(const ic_validate_report *r, ic_emit *em, const char *key, vrow row) {
  ic_emit_list_begin(em, key);
  if (row.mask == 0) ic_emit_str(em, NULL, row.other ? "other" : "base");
  for (int c = 0; c < r->ncat; c++)
    if (row.mask & (1u << c)) ic_emit_str(em, NULL, ic_category_name(r->cats[c]));
  ic_emit_list_end(em);
}

/* csv: one table, a row per (workload, entry, method) and per (workload,
   summary item, method). */
static void emit_csv_table(const ic_validate_report *r, ic_emit *em, int show_all, vrow *rows) {
  char label[160];
  const ic_emit_col cols[] = {{"workload", -1, 0}, {"item", -1, 0},     {"method", -1, 0},
                              {"percent", -1, 0},  {"error_pp", -1, 0}, {"ci_lo", -1, 0},
                              {"ci_hi", -1, 0}};
  ic_emit_table_begin(em, "rows", cols, 7, 0);
  for (int i = 0; i < r->nw; i++) {
    const vworkload *w = &r->w[i];
    size_t nrows = build_rows(r, show_all, rows);
    for (size_t k = 0; k < nrows; k++) {
      row_label(r, rows[k], "+", label, sizeof label);
      double ref = row_value(r, w, 0, rows[k], show_all);
      for (int m = 0; m < r->nmethods; m++) {
        double v = row_value(r, w, m, rows[k], show_all), lo, hi;
        row_ci(r, w, m, rows[k], &lo, &hi);
        ic_emit_row_begin(em);
        ic_emit_str(em, NULL, w->name);
        ic_emit_str(em, NULL, label);
        ic_emit_str(em, NULL, r->methods[m]);
        ic_emit_double(em, NULL, v);
        ic_emit_double(em, NULL, m > 0 ? v - ref : NAN);
        ic_emit_double(em, NULL, lo);
        ic_emit_double(em, NULL, hi);
        ic_emit_row_end(em);
      }
    }
    for (int m = 1; m < r->nmethods; m++) {
      const ic_validate_score *sc = &w->score[m];
      const struct {
        const char *item;
        double v;
      } items[] = {{"mean_error_percent", sc->mean_error_percent},
                   {"sign_mismatches", sc->sign_mismatches},
                   {"mean_abs_error_pp", sc->mean_abs_pp},
                   {"max_abs_error_pp", sc->max_abs_pp},
                   {"mean_error_percent_all", sc->mean_error_percent_all},
                   {"sign_mismatches_all", sc->sign_mismatches_all},
                   {"max_abs_error_pp_all", sc->max_abs_pp_all}};
      for (size_t k = 0; k < sizeof items / sizeof items[0]; k++) {
        ic_emit_row_begin(em);
        ic_emit_str(em, NULL, w->name);
        ic_emit_str(em, NULL, items[k].item);
        ic_emit_str(em, NULL, r->methods[m]);
        ic_emit_double(em, NULL, items[k].v);
        ic_emit_row_end(em);
      }
    }
    for (int m = 0; m < r->nmethods; m++)
      if (method_has_ci(r, w, m)) {
        ic_emit_row_begin(em);
        ic_emit_str(em, NULL, w->name);
        ic_emit_str(em, NULL, "ci_fragments");
        ic_emit_str(em, NULL, r->methods[m]);
        ic_emit_double(em, NULL, (double)w->ci_fragments[m]);
        ic_emit_row_end(em);
      }
    for (int k = 0; k < 2; k++) {
      ic_emit_row_begin(em);
      ic_emit_str(em, NULL, w->name);
      ic_emit_str(em, NULL, k ? "slowdown_worst_percent" : "slowdown_steps");
      ic_emit_str(em, NULL, r->methods[0]);
      ic_emit_double(em, NULL, k ? w->slow_worst : w->slow_steps);
      ic_emit_row_end(em);
    }
  }
  ic_emit_table_end(em);
}

/* yaml and json: the tree validate.h describes. */
static void emit_tree(const ic_validate_report *r, ic_emit *em, int show_all, vrow *rows) {
  ic_emit_list_begin(em, "categories");
  for (int k = 0; k < r->ncat; k++) ic_emit_str(em, NULL, ic_category_name(r->cats[k]));
  ic_emit_list_end(em);
  ic_emit_str(em, "reference", r->methods[0]);
  ic_emit_double(em, "threshold_percent", IC_VALIDATE_THRESHOLD);
  ic_emit_double(em, "sign_epsilon_pp", IC_VALIDATE_SIGN_EPS);
  ic_emit_map_begin(em, "methods");
  for (int m = 1; m < r->nmethods; m++) {
    int agree = 0, agree_all = 0, kabs = 0;
    double mabs = 0, xabs = NAN;
    for (int i = 0; i < r->nw; i++) {
      const ic_validate_score *sc = &r->w[i].score[m];
      agree += sc->sign_mismatches == 0;
      agree_all += sc->sign_mismatches_all == 0;
      if (!isnan(sc->mean_abs_pp)) mabs += sc->mean_abs_pp, kabs++;
      if (!isnan(sc->max_abs_pp) && !(sc->max_abs_pp <= xabs)) xabs = sc->max_abs_pp;
    }
    ic_emit_map_begin(em, r->methods[m]);
    ic_emit_double(em, "mean_error_percent", ic_validate_report_mean_error(r, m, 0));
    ic_emit_bool(em, "sign_agree", agree == r->nw);
    ic_emit_i64(em, "workloads_sign_agree", agree);
    ic_emit_double(em, "mean_error_percent_all", ic_validate_report_mean_error(r, m, 1));
    ic_emit_i64(em, "workloads_sign_agree_all", agree_all);
    ic_emit_double(em, "mean_abs_error_pp", kabs ? mabs / kabs : NAN);
    ic_emit_double(em, "max_abs_error_pp", xabs);
    ic_emit_map_end(em);
  }
  ic_emit_map_end(em);
  ic_emit_list_begin(em, "workloads");
  for (int i = 0; i < r->nw; i++) {
    const vworkload *w = &r->w[i];
    ic_emit_map_begin(em, NULL);
    ic_emit_str(em, "name", w->name);
    for (int k = 0; k < 2; k++) {
      ic_emit_map_begin(em, k ? "seconds" : "cycles");
      for (int m = 0; m < r->nmethods; m++) ic_emit_double(em, r->methods[m], k ? w->seconds[m] : w->cycles[m]);
      ic_emit_map_end(em);
    }
    ic_emit_map_begin(em, "scores");
    for (int m = 1; m < r->nmethods; m++) {
      const ic_validate_score *sc = &w->score[m];
      ic_emit_map_begin(em, r->methods[m]);
      ic_emit_double(em, "mean_error_percent", sc->mean_error_percent);
      ic_emit_i64(em, "counted", sc->counted);
      ic_emit_i64(em, "interactions", sc->interactions);
      ic_emit_i64(em, "sign_mismatches", sc->sign_mismatches);
      ic_emit_double(em, "mean_abs_error_pp", sc->mean_abs_pp);
      ic_emit_double(em, "max_abs_error_pp", sc->max_abs_pp);
      emit_set(r, em, "max_abs_error_set", (vrow){sc->max_abs_set, 0});
      ic_emit_double(em, "mean_error_percent_all", sc->mean_error_percent_all);
      ic_emit_i64(em, "counted_all", sc->counted_all);
      ic_emit_i64(em, "interactions_all", sc->interactions_all);
      ic_emit_i64(em, "sign_mismatches_all", sc->sign_mismatches_all);
      ic_emit_double(em, "max_abs_error_pp_all", sc->max_abs_pp_all);
      emit_set(r, em, "max_abs_error_set_all", (vrow){sc->max_abs_set_all, 0});
      ic_emit_map_end(em);
    }
    ic_emit_map_end(em);
    for (int m = 0; m < r->nmethods; m++) {
      char warn[256], key[96];
      snprintf(key, sizeof key, "%s_ci_fragments", r->methods[m]);
      if (method_has_ci(r, w, m)) ic_emit_u64(em, key, w->ci_fragments[m]);
      snprintf(key, sizeof key, "%s_ci_warning", r->methods[m]);
      if (ic_validate_report_ci_warning(r, i, m, warn, sizeof warn)) ic_emit_str(em, key, warn);
    }
    ic_emit_map_begin(em, "reference_slowdown");
    ic_emit_i64(em, "steps", w->slow_steps);
    ic_emit_double(em, "worst_percent", w->slow_worst);
    if (w->slow_steps) {
      ic_emit_str(em, "worst_added", ic_category_name(r->cats[w->slow_add]));
      emit_set(r, em, "worst_on", (vrow){w->slow_on, 0});
    }
    ic_emit_map_end(em);
    ic_emit_list_begin(em, "entries");
    size_t nrows = build_rows(r, show_all, rows);
    for (size_t k = 0; k < nrows; k++) {
      vrow row = rows[k];
      ic_emit_map_begin(em, NULL);
      emit_set(r, em, "set", row);
      double ref = row_value(r, w, 0, row, show_all);
      for (int m = 0; m < r->nmethods; m++) {
        double v = row_value(r, w, m, row, show_all), lo, hi;
        char key[96];
        ic_emit_double(em, r->methods[m], v);
        if (m > 0) {
          snprintf(key, sizeof key, "%s_error_pp", r->methods[m]);
          ic_emit_double(em, key, v - ref);
        }
        row_ci(r, w, m, row, &lo, &hi);
        if (!isnan(lo)) {
          snprintf(key, sizeof key, "%s_ci", r->methods[m]);
          ic_emit_list_begin(em, key);
          ic_emit_double(em, NULL, lo);
          ic_emit_double(em, NULL, hi);
          ic_emit_list_end(em);
        }
      }
      ic_emit_map_end(em);
    }
    ic_emit_list_end(em);
    ic_emit_map_end(em);
  }
  ic_emit_list_end(em);
}

static void write_text(const ic_validate_report *r, FILE *f, int show_all, vrow *rows) {
  for (int i = 0; i < r->nw; i++) {
    if (i) fputc('\n', f);
    write_text_workload(r, &r->w[i], f, show_all, rows);
  }
  if (r->nw > 1 && r->nmethods > 1) {
    fputc('\n', f);
    write_text_summary(r, f);
  }
}

ic_status ic_validate_report_emit(const ic_validate_report *r, ic_emit *em, int show_all,
                                  ic_err *err) {
  vrow *rows = malloc((r->nsub + 2) * sizeof *rows);
  if (!rows) return ic_fail(err, IC_ERUN, "validate: out of memory");
  ic_status st = IC_OK;
  switch (ic_emit_get_format(em)) {
  case IC_EMIT_TEXT: {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) {
      st = ic_fail(err, IC_ERUN, "validate: out of memory");
      break;
    }
    write_text(r, f, show_all, rows);
    if (fclose(f) != 0) {
      free(buf);
      st = ic_fail(err, IC_ERUN, "validate: out of memory");
      break;
    }
    for (char *line = buf, *nl; line && *line; line = nl ? nl + 1 : NULL) {
      nl = strchr(line, '\n');
      if (nl) *nl = 0;
      ic_emit_text_line(em, line);
    }
    free(buf);
    break;
  }
  case IC_EMIT_CSV: emit_csv_table(r, em, show_all, rows); break;
  default: emit_tree(r, em, show_all, rows); break;
  }
  free(rows);
  return st;
}

ic_status ic_validate_report_write(const ic_validate_report *r, FILE *f,
                                   ic_validate_format fmt, int show_all, ic_err *err) {
  ic_emit *em;
  ic_status st = ic_emit_open(&em, f, (ic_emit_format)fmt, err);
  if (st != IC_OK) return st;
  if ((st = ic_validate_report_emit(r, em, show_all, err)) != IC_OK) {
    ic_emit_abandon(em);
    return st;
  }
  return ic_emit_close(em, err);
}
/* ---- computing a workload's breakdowns ---- */

const char *const ic_validate_method_names[IC_VM_COUNT] = {
#define IC_X(e, n, d) n,
    IC_VALIDATE_METHOD_LIST(IC_X)
#undef IC_X
};

const char *const ic_validate_method_help[IC_VM_COUNT] = {
#define IC_X(e, n, d) d,
    IC_VALIDATE_METHOD_LIST(IC_X)
#undef IC_X
};

int ic_validate_method_lookup(const char *name) {
  for (int m = 0; m < IC_VM_COUNT; m++)
    if (strcmp(name, ic_validate_method_names[m]) == 0) return m;
  return -1;
}

ic_status ic_validate_parse_methods(const char *list, int *methods, int *n, ic_err *err) {
  int k = 1;
  methods[0] = IC_VM_MULTISIM;
  const char *p = list;
  for (;;) {
    const char *e = strchr(p, ',');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    ic_list_item_trim(&p, &len);
    char name[64];
    if (len == 0) return ic_fail(err, IC_EINPUT, "--methods '%s': empty item", list);
    if (len >= sizeof name) return ic_fail(err, IC_EINPUT, "--methods '%s': item too long", list);
    memcpy(name, p, len);
    name[len] = 0;
    int m = ic_validate_method_lookup(name);
    if (m < 0) {
      char known[128] = "";
      for (int q = 0; q < IC_VM_COUNT; q++)
        snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", q ? ", " : "",
                 ic_validate_method_names[q]);
      return ic_fail(err, IC_EINPUT, "--methods: unknown method '%s' (known: %s)", name, known);
    }
    if (m != IC_VM_MULTISIM) {
      for (int i = 1; i < k; i++)
        if (methods[i] == m)
          return ic_fail(err, IC_EINPUT, "--methods: '%s' given twice", name);
      if (k == IC_VALIDATE_MAX_METHODS)
        return ic_fail(err, IC_EINPUT, "--methods: too many methods");
      methods[k++] = m;
    }
    if (!e) break;
    p = e + 1;
  }
  *n = k;
  return IC_OK;
}

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

typedef struct graph_run {
  const ic_validate_run_opts *o;
  uint64_t cycles, insns;
} graph_run;

static ic_status graph_run_once(void *ctx, const ic_graph_sink *sink, ic_err *err) {
  graph_run *g = ctx;
  return g->o->run(g->o->run_ctx, 0, sink, &g->cycles, &g->insns, err);
}

/* The graph method: one run with the solver as the graph sink, through a
 * record pipe where there is a CPU for it. */
static ic_status vm_graph(const ic_validate_run_opts *o, double *pct, double *cycles,
                          uint64_t *model_cycles, ic_err *err) {
  ic_solver *s;
  ic_status st = ic_solver_create(&s, o->cats, o->ncat, err);
  if (st != IC_OK) return st;
  const int cpus = o->jobs > 0 ? o->jobs : ic_cpus_allowed();
  ic_solver_set_threads(s, ic_solver_threads_for(ic_record_pipe_worth(cpus) ? cpus - 1 : cpus, o->ncat));
  graph_run g = {o, 0, 0};
  st = ic_record_pipe_run(ic_solver_sink(s), cpus, graph_run_once, &g, err);
  const uint64_t cyc = g.cycles;
  if (st == IC_OK) {
    *model_cycles = cyc;
    size_t nsub = (size_t)1 << o->ncat;
    double *t = malloc(nsub * sizeof *t);
    if (!t) {
      st = ic_fail(err, IC_ERUN, "validate: out of memory");
    } else {
      const uint64_t *ts = ic_solver_times(s);
      for (size_t m = 0; m < nsub; m++) t[m] = (double)ts[m];
      *cycles = t[0];
      st = ic_validate_pct_from_times(t, o->ncat, pct, err);
      if (st != IC_OK) st = ic_fail(err, IC_ERUN, "graph: the run recorded no instruction");
      free(t);
    }
  }
  ic_solver_destroy(s);
  return st;
}

/* A fragment method's breakdown as percents with their intervals; frees b. */
static void fragment_pct(ic_breakdown *b, int ncat, double *pct, double *lo, double *hi,
                         double *cycles, uint64_t *ci_fragments) {
  size_t nsub = (size_t)1 << ncat;
  double sum = 0;
  for (size_t m = 1; m < nsub; m++) {
    pct[m] = 100.0 * b->icost[m] / b->total;
    sum += pct[m];
  }
  pct[0] = 100.0 - sum;
  for (size_t m = 0; m < nsub; m++) {
    lo[m] = b->lo ? b->lo[m] : NAN;
    hi[m] = b->hi ? b->hi[m] : NAN;
  }
  *cycles = b->total;
  *ci_fragments = b->ci_fragments;
  ic_breakdown_free(b);
}

static ic_status vm_graphfrag(const ic_validate_run_opts *o, double *pct, double *lo,
                              double *hi, double *cycles, uint64_t *nfrag, ic_err *err) {
  ic_graphfrag_opts fo = o->frag;
  fo.cats = o->cats;
  fo.ncat = o->ncat;
  ic_breakdown b;
  ic_status st = ic_graphfrag_run(&fo, o->run, o->run_ctx, &b, err);
  if (st != IC_OK) return st;
  fragment_pct(&b, o->ncat, pct, lo, hi, cycles, nfrag);
  return IC_OK;
}

static ic_status vm_profiler(const ic_validate_run_opts *o, double *pct, double *lo,
                             double *hi, double *cycles, uint64_t *nfrag, ic_err *err) {
  if (!o->img) return ic_fail(err, IC_EINPUT, "validate: the profiler needs the program image");
  ic_profiler_opts po = o->prof;
  po.cats = o->cats;
  po.ncat = o->ncat;
  ic_breakdown b;
  ic_status st = ic_profiler_run(&po, o->run, o->run_ctx, o->img, &b, NULL, err);
  if (st != IC_OK) return st;
  fragment_pct(&b, o->ncat, pct, lo, hi, cycles, nfrag);
  return IC_OK;
}

ic_status ic_validate_workload(ic_validate_report *r, const char *workload,
                               const ic_validate_run_opts *o, ic_err *err) {
  if (o->ncat != r->ncat || memcmp(o->cats, r->cats, (size_t)r->ncat) != 0)
    return ic_fail(err, IC_EINPUT, "validate: categories differ from the report's");
  size_t nsub = r->nsub;
  int nm = r->nmethods;
  double *buf = malloc((size_t)nm * 3 * nsub * sizeof *buf);
  if (!buf) return ic_fail(err, IC_ERUN, "validate: out of memory");
  const double *pct[IC_VALIDATE_MAX_METHODS] = {0}, *lo[IC_VALIDATE_MAX_METHODS] = {0},
               *hi[IC_VALIDATE_MAX_METHODS] = {0};
  double cycles[IC_VALIDATE_MAX_METHODS] = {0}, secs[IC_VALIDATE_MAX_METHODS] = {0};
  uint64_t nfrag[IC_VALIDATE_MAX_METHODS] = {0};
  uint64_t graph_model_cycles = 0;
  ic_status st = IC_OK;
  for (int m = 0; m < nm && st == IC_OK; m++) {
    double *p = buf + (size_t)m * 3 * nsub, *l = p + nsub, *h = l + nsub;
    pct[m] = p;
    lo[m] = l;
    hi[m] = h;
    for (size_t s = 0; s < nsub; s++) l[s] = h[s] = NAN;
    double t0 = now_seconds();
    switch (ic_validate_method_lookup(r->methods[m])) {
    case IC_VM_MULTISIM: {
      ic_multisim_opts mo = {.cats = o->cats, .ncat = o->ncat, .run = o->run,
                             .run_ctx = o->run_ctx, .jobs = o->jobs, .progress = o->progress,
                             .progress_ctx = o->progress_ctx};
      st = ic_multisim_times(&mo, p, err); /* t(S) into p, then in place to percent */
      if (st == IC_OK) {
        cycles[m] = p[0];
        double *t = malloc(nsub * sizeof *t);
        if (!t) {
          st = ic_fail(err, IC_ERUN, "validate: out of memory");
          break;
        }
        memcpy(t, p, nsub * sizeof *t);
        st = ic_validate_pct_from_times(t, o->ncat, p, err);
        free(t);
      }
      break;
    }
    case IC_VM_GRAPH:
      st = vm_graph(o, p, &cycles[m], &graph_model_cycles, err);
      break;
    case IC_VM_GRAPHFRAG:
      st = vm_graphfrag(o, p, l, h, &cycles[m], &nfrag[m], err);
      break;
    case IC_VM_PROFILER:
      st = vm_profiler(o, p, l, h, &cycles[m], &nfrag[m], err);
      break;
    default:
      st = ic_fail(err, IC_EINPUT, "validate: unknown method '%s'", r->methods[m]);
    }
    secs[m] = now_seconds() - t0;
  }
  /* Multisim's unidealized run and the graph run are the same run from
     the same checkpoint: a difference means the runs do not see the same
     program (state shared between emulator copies, such as a file offset),
     and every number above would compare different executions. */
  for (int m = 0; st == IC_OK && m < nm; m++)
    if (ic_validate_method_lookup(r->methods[m]) == IC_VM_MULTISIM && graph_model_cycles &&
        cycles[m] != (double)graph_model_cycles)
      st = ic_fail(err, IC_ERUN,
                   "%s: the unidealized run took %.0f cycles in multisim and %llu in the graph "
                   "run: runs from the checkpoint do not repeat the same execution",
                   workload, cycles[m], (unsigned long long)graph_model_cycles);
  if (st == IC_OK) st = ic_validate_report_add(r, workload, pct, lo, hi, cycles, err);
  if (st == IC_OK)
    for (int m = 0; m < nm; m++) {
      ic_validate_report_time(r, m, secs[m]);
      ic_validate_report_set_ci_fragments(r, m, nfrag[m]);
    }
  free(buf);
  return st;
}
