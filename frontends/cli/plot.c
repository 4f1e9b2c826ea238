/* plot.c: the charts of `icost ... --plot FILE` (one run's breakdown, as
 * the paper's Fig. 1b) and `icost sweep --out DIR --plot PLOTDIR`
 * (sensitivity curves as Fig. 3, and the breakdowns of all points side by
 * side), drawn by engine/chart.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "breakdown.h"
#include "categories.h"
#include "chart.h"
#include "cli.h"
#include "sweep.h"
#include "sweep_cli.h"

#define COLOR_INTERACTION_POS 0x4d4d4d
#define COLOR_INTERACTION_NEG 0xa6a6a6
#define COLOR_OTHER 0xd0d0d0
#define COLOR_BASE 0xc2a878

/* An entry's colour: a category's own, else by kind (name with '+': an
 * interaction, coloured by its sign). */
static uint32_t entry_color(const char *name, double v) {
  if (!strcmp(name, "base")) return COLOR_BASE;
  if (!strcmp(name, "other")) return COLOR_OTHER;
  for (int c = 0; c < IC_CAT_COUNT; c++)
    if (!strcmp(name, ic_category_names[c])) return ic_chart_color(c);
  return v < 0 ? COLOR_INTERACTION_NEG : COLOR_INTERACTION_POS;
}

/* an entry's colour when every entry has its own: a category's own colour
 * (as in a run's chart), the interactions from the palette's lighter round */
static uint32_t series_color(const char *name, int k) {
  if (!strcmp(name, "base")) return COLOR_BASE;
  if (!strcmp(name, "other")) return COLOR_OTHER;
  for (int c = 0; c < IC_CAT_COUNT; c++)
    if (!strcmp(name, ic_category_names[c])) return ic_chart_color(c);
  return ic_chart_color(10 + k);
}

/* the legend of a breakdown chart: the categories shown, then the kinds */
static int kinds_legend(const char *const *names, int n, const char **labels, uint32_t *colors) {
  int m = 0;
  for (int c = 0; c < IC_CAT_COUNT; c++)
    for (int j = 0; j < n; j++)
      if (!strcmp(names[j], ic_category_names[c])) {
        labels[m] = ic_category_names[c];
        colors[m++] = ic_chart_color(c);
        break;
      }
  labels[m] = "interaction > 0 (parallel)";
  colors[m++] = COLOR_INTERACTION_POS;
  labels[m] = "interaction < 0 (serial)";
  colors[m++] = COLOR_INTERACTION_NEG;
  for (int j = 0; j < n; j++)
    if (!strcmp(names[j], "other")) {
      labels[m] = "other interactions";
      colors[m++] = COLOR_OTHER;
      break;
    }
  labels[m] = "base (none of them)";
  colors[m++] = COLOR_BASE;
  return m;
}

int cli_plot_breakdown(const ic_breakdown *b, int show_all, const char *title,
                       const char *subtitle, const char *path) {
  int n = ic_breakdown_entry_count(b, show_all);
  ic_bd_entry *e = malloc((size_t)n * sizeof *e);
  const char **names = malloc((size_t)n * sizeof *names);
  double *v = malloc((size_t)n * sizeof *v);
  uint32_t *col = malloc((size_t)n * sizeof *col);
  const char *ll[IC_CAT_COUNT + 4];
  uint32_t lc[IC_CAT_COUNT + 4];
  int rc = 0;
  if (!e || !names || !v || !col) {
    rc = cli_fail(1, "out of memory");
    goto out;
  }
  ic_breakdown_entries(b, show_all, e);
  for (int j = 0; j < n; j++) {
    names[j] = e[j].name;
    v[j] = e[j].percent;
    col[j] = entry_color(e[j].name, e[j].percent);
  }
  ic_chart_bars c = {.title = title, .subtitle = subtitle,
                     .ylabel = "percent of execution time (% of t cycles)", .ngroups = n,
                     .nseries = 1, .group_labels = names, .values = v, .colors = col,
                     .value_labels = 1};
  c.nlegend = kinds_legend(names, n, ll, lc);
  c.legend_labels = ll;
  c.legend_colors = lc;
  ic_err err;
  ic_status st = ic_chart_bars_write(&c, path, &err);
  if (st != IC_OK) rc = cli_fail(st == IC_EINPUT ? 2 : 1, "--plot: %s", err.msg);
out:
  free(e);
  free(names);
  free(v);
  free(col);
  return rc;
}

/* ---- sweeps ---------------------------------------------------------------- */

/* distinct strings, in first-seen order */
typedef struct strset {
  const char **s;
  int n;
} strset;

static int strset_add(strset *ss, const char *v) {
  for (int k = 0; k < ss->n; k++)
    if (!strcmp(ss->s[k], v)) return k;
  ss->s = realloc(ss->s, (size_t)(ss->n + 1) * sizeof *ss->s);
  ss->s[ss->n] = v;
  return ss->n++;
}

static int cmp_num_str(const void *a, const void *b) {
  const char *x = *(const char *const *)a, *y = *(const char *const *)b;
  double dx = strtod(x, NULL), dy = strtod(y, NULL);
  return dx < dy ? -1 : dx > dy ? 1 : strcmp(x, y);
}

/* a workload name as part of a file name */
static void file_part(char *out, size_t cap, const char *s) {
  size_t k = 0;
  for (; *s && k + 1 < cap; s++)
    out[k++] = (strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-", *s) && *s)
                   ? *s
                   : '_';
  out[k] = 0;
}

static int is_pow2_series(const strset *xs) {
  if (xs->n < 3) return 0;
  for (int k = 0; k < xs->n; k++) {
    double v = strtod(xs->s[k], NULL);
    if (!(v > 0) || fabs(log2(v) - round(log2(v))) > 1e-9) return 0;
  }
  return 1;
}

/* both formats of one chart; counts what was written */
static int write_both_bars(const ic_chart_bars *c, const char *stem, int *written) {
  const char *ext[] = {".svg", ".png"};
  for (int k = 0; k < 2; k++) {
    char path[4200];
    snprintf(path, sizeof path, "%s%s", stem, ext[k]);
    ic_err err;
    ic_status st = ic_chart_bars_write(c, path, &err);
    if (st != IC_OK) return cli_fail(1, "sweep: --plot: %s", err.msg);
    (*written)++;
  }
  return 0;
}

static int write_both_lines(const ic_chart_lines *c, const char *stem, int *written) {
  const char *ext[] = {".svg", ".png"};
  for (int k = 0; k < 2; k++) {
    char path[4200];
    snprintf(path, sizeof path, "%s%s", stem, ext[k]);
    ic_err err;
    ic_status st = ic_chart_lines_write(c, path, &err);
    if (st != IC_OK) return cli_fail(1, "sweep: --plot: %s", err.msg);
    (*written)++;
  }
  return 0;
}

/* the record's entry percent by name, NAN if absent */
static double entry_pct(const ic_sweep_entry *e, int n, const char *name) {
  for (int k = 0; k < n; k++)
    if (!strcmp(e[k].name, name)) return e[k].percent;
  return NAN;
}

/* does r have the first value of every key beyond the first two? */
static int on_slice(const ic_sweep_table *t, const ic_sweep_rec *r, const strset *firsts) {
  for (int k = 2; k < t->nkeys; k++) {
    const char *v = ic_sweep_rec_value(r, t->keys[k]);
    if (!v || strcmp(v, firsts->s[k - 2])) return 0;
  }
  return 1;
}

static int plot_workload(const ic_sweep_table *t, const char *wl, const char *plotdir,
                         int *written) {
  char wf[200], stem[4200];
  file_part(wf, sizeof wf, wl);
  int rc = 0;
  /* the records of this workload, in table order (by point) */
  const ic_sweep_rec **recs = malloc(t->n * sizeof *recs);
  int nr = 0;
  for (size_t i = 0; i < t->n; i++)
    if (!strcmp(t->rec[i].workload, wl)) recs[nr++] = &t->rec[i];
  /* keys beyond the second: held at their smallest value in the curves */
  strset firsts = {0};
  char sub_fixed[512] = "";
  for (int k = 2; k < t->nkeys; k++) {
    strset vals = {0};
    for (int i = 0; i < nr; i++) {
      const char *v = ic_sweep_rec_value(recs[i], t->keys[k]);
      if (v) strset_add(&vals, v);
    }
    qsort(vals.s, (size_t)vals.n, sizeof *vals.s, cmp_num_str);
    strset_add(&firsts, vals.n ? vals.s[0] : "");
    size_t l = strlen(sub_fixed);
    snprintf(sub_fixed + l, sizeof sub_fixed - l, "; %s = %s", t->keys[k], vals.n ? vals.s[0] : "");
    free(vals.s);
  }
  /* 1. sensitivity curves, one chart per category */
  strset xs = {0}, ss = {0}, cats = {0};
  int shapley = 1;
  for (int i = 0; i < nr; i++) {
    if (!recs[i]->nshapley) shapley = 0;
    const char *x = ic_sweep_rec_value(recs[i], t->keys[0]);
    if (x) strset_add(&xs, x);
    const char *s = t->nkeys > 1 ? ic_sweep_rec_value(recs[i], t->keys[1]) : NULL;
    if (s) strset_add(&ss, s);
  }
  for (int i = 0; i < nr; i++) {
    if (shapley)
      for (int k = 0; k < recs[i]->nshapley; k++) strset_add(&cats, recs[i]->shapley[k].name);
    else
      for (int k = 0; k < recs[i]->nbreakdown; k++)
        if (!strchr(recs[i]->breakdown[k].name, '+') && strcmp(recs[i]->breakdown[k].name, "base") &&
            strcmp(recs[i]->breakdown[k].name, "other"))
          strset_add(&cats, recs[i]->breakdown[k].name);
  }
  qsort(xs.s, (size_t)xs.n, sizeof *xs.s, cmp_num_str);
  qsort(ss.s, (size_t)ss.n, sizeof *ss.s, cmp_num_str);
  const int nseries = ss.n ? ss.n : 1;
  double *x = calloc((size_t)xs.n + 1, sizeof *x), *y = malloc(((size_t)nseries * xs.n + 1) * sizeof *y);
  char **labels = calloc((size_t)nseries, sizeof *labels);
  for (int p = 0; p < xs.n; p++) x[p] = strtod(xs.s[p], NULL);
  for (int s = 0; s < nseries; s++)
    if (asprintf(&labels[s], "%s = %s", ss.n ? t->keys[1] : t->keys[0], ss.n ? ss.s[s] : "all") < 0)
      labels[s] = NULL;
  for (int c = 0; c < cats.n && rc == 0; c++) {
    for (int k = 0; k < nseries * xs.n; k++) y[k] = NAN;
    for (int i = 0; i < nr; i++) {
      if (!on_slice(t, recs[i], &firsts)) continue;
      const char *xv = ic_sweep_rec_value(recs[i], t->keys[0]);
      const char *sv = ss.n ? ic_sweep_rec_value(recs[i], t->keys[1]) : NULL;
      int p = -1, s = 0;
      for (int k = 0; k < xs.n; k++)
        if (xv && !strcmp(xs.s[k], xv)) p = k;
      for (int k = 0; k < ss.n; k++)
        if (sv && !strcmp(ss.s[k], sv)) s = k;
      if (p < 0) continue;
      y[s * xs.n + p] = shapley ? entry_pct(recs[i]->shapley, recs[i]->nshapley, cats.s[c])
                                : entry_pct(recs[i]->breakdown, recs[i]->nbreakdown, cats.s[c]);
    }
    char title[256], subtitle[700], ylabel[128], cf[64];
    snprintf(title, sizeof title, "%s: %s of %s against %s", wl,
             shapley ? "Shapley share" : "cost", cats.s[c], t->keys[0]);
    snprintf(subtitle, sizeof subtitle, "%s%s",
             ss.n ? "a line per value of the second swept key" : "one swept key", sub_fixed);
    snprintf(ylabel, sizeof ylabel, "%s of %s (%% of cycles)", shapley ? "Shapley share" : "cost",
             cats.s[c]);
    file_part(cf, sizeof cf, cats.s[c]);
    snprintf(stem, sizeof stem, "%s/%s-sensitivity-%s", plotdir, wf, cf);
    ic_chart_lines lc = {.title = title, .subtitle = subtitle, .xlabel = t->keys[0],
                         .ylabel = ylabel, .npoints = xs.n, .nseries = nseries, .x = x, .y = y,
                         .series_labels = (const char *const *)labels,
                         .log2x = is_pow2_series(&xs)};
    rc = write_both_lines(&lc, stem, written);
  }
  for (int s = 0; s < nseries; s++) free(labels[s]);
  free(labels);
  free(x);
  free(y);
  /* 2. the breakdowns of all points side by side: a group per point, a bar
        per entry */
  strset names = {0};
  for (int i = 0; i < nr; i++)
    for (int k = 0; k < recs[i]->nbreakdown; k++) strset_add(&names, recs[i]->breakdown[k].name);
  if (rc == 0 && nr && names.n) {
    char **groups = calloc((size_t)nr, sizeof *groups);
    double *v = malloc((size_t)nr * names.n * sizeof *v);
    uint32_t *col = malloc((size_t)nr * names.n * sizeof *col);
    uint32_t *lcol = malloc((size_t)names.n * sizeof *lcol);
    for (int i = 0; i < nr; i++) {
      size_t l = 0;
      char buf[512] = "";
      for (int k = 0; k < recs[i]->npoint; k++)
        l += (size_t)snprintf(buf + l, l < sizeof buf ? sizeof buf - l : 0, "%s%s=%s", k ? " " : "",
                              strrchr(recs[i]->point_keys[k], '.') ? strrchr(recs[i]->point_keys[k], '.') + 1
                                                                   : recs[i]->point_keys[k],
                              recs[i]->point_values[k]);
      groups[i] = strdup(buf);
      for (int k = 0; k < names.n; k++) {
        v[i * names.n + k] = entry_pct(recs[i]->breakdown, recs[i]->nbreakdown, names.s[k]);
        col[i * names.n + k] = series_color(names.s[k], k);
      }
    }
    for (int k = 0; k < names.n; k++) lcol[k] = series_color(names.s[k], k);
    char title[256];
    snprintf(title, sizeof title, "%s: breakdown at every point", wl);
    ic_chart_bars bc = {.title = title,
                        .subtitle = "a bar per category, interaction and base, in percent of t",
                        .ylabel = "percent of execution time (% of t cycles)", .ngroups = nr,
                        .nseries = names.n, .group_labels = (const char *const *)groups,
                        .values = v, .colors = col, .nlegend = names.n,
                        .legend_labels = names.s, .legend_colors = lcol};
    snprintf(stem, sizeof stem, "%s/%s-breakdowns", plotdir, wf);
    rc = write_both_bars(&bc, stem, written);
    for (int i = 0; i < nr; i++) free(groups[i]);
    free(groups);
    free(v);
    free(col);
    free(lcol);
  }
  free(names.s);
  free(xs.s);
  free(ss.s);
  free(cats.s);
  free(firsts.s);
  free(recs);
  return rc;
}

int sweep_plot(const ic_sweep_table *t, const char *plotdir) {
  if (t->n == 0) return cli_fail(2, "sweep: --plot: the store holds no record");
  if (t->nkeys == 0) return cli_fail(2, "sweep: --plot: the records have no swept key");
  if (mkdir(plotdir, 0755) != 0 && errno != EEXIST)
    return cli_fail(2, "sweep: --plot %s: %s", plotdir, strerror(errno));
  strset wls = {0};
  for (size_t i = 0; i < t->n; i++) strset_add(&wls, t->rec[i].workload);
  int rc = 0, written = 0;
  for (int w = 0; w < wls.n && rc == 0; w++) rc = plot_workload(t, wls.s[w], plotdir, &written);
  free(wls.s);
  ic_chart_release();
  if (rc == 0) printf("sweep: wrote %d charts into %s\n", written, plotdir);
  return rc;
}
