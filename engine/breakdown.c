/* breakdown.c: cost, interaction cost (Moebius inversion over the subset
 * lattice), the paper's entry layout, and its report (breakdown.h). */
#include "breakdown.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

ic_status ic_format_parse(const char *name, ic_format *out, ic_err *err) {
  return ic_emit_format_parse(name, out, err);
}

ic_status ic_breakdown_from_times(ic_breakdown *b, const uint8_t *cats, int ncat,
                                  const double *t_subset, ic_err *err) {
  memset(b, 0, sizeof *b);
  if (ncat < 0 || ncat > IC_BREAKDOWN_MAX_CATS)
    return ic_fail(err, IC_EINPUT, "breakdown: %d categories (at most %d)", ncat,
                   IC_BREAKDOWN_MAX_CATS);
  for (int k = 0; k < ncat; k++) {
    if (!ic_cat_valid(cats[k]))
      return ic_fail(err, IC_EINPUT, "breakdown: unknown category id %u", cats[k]);
    for (int j = 0; j < k; j++)
      if (cats[j] == cats[k])
        return ic_fail(err, IC_EINPUT, "breakdown: category '%s' given twice",
                       ic_category_name(cats[k]));
  }
  size_t n = (size_t)1 << ncat;
  b->cost = malloc(n * sizeof *b->cost);
  b->icost = malloc(n * sizeof *b->icost);
  if (!b->cost || !b->icost) {
    ic_breakdown_free(b);
    return ic_fail(err, IC_ERUN, "breakdown: out of memory");
  }
  b->ncat = ncat;
  memcpy(b->cats, cats, (size_t)ncat);
  b->total = t_subset[0];
  for (size_t s = 0; s < n; s++) b->cost[s] = b->icost[s] = t_subset[0] - t_subset[s];
  /* Moebius inversion, one dimension at a time: after the pass over bit k,
   * icost[S] holds the alternating sum over subsets differing from S in the
   * bits done so far. */
  for (int k = 0; k < ncat; k++)
    for (size_t s = 0; s < n; s++)
      if (s & ((size_t)1 << k)) b->icost[s] -= b->icost[s ^ ((size_t)1 << k)];
  return IC_OK;
}

const char *ic_breakdown_ci_warning(const ic_breakdown *b, char *buf, size_t cap) {
  if (!b->lo || b->ci_fragments >= IC_CI_MIN_FRAGMENTS) return NULL;
  snprintf(buf, cap, "warning: the 95%% CI is a bootstrap over only %llu fragment%s (fewer than "
           "%d): it says little about the error", (unsigned long long)b->ci_fragments,
           b->ci_fragments == 1 ? "" : "s", IC_CI_MIN_FRAGMENTS);
  return buf;
}

void ic_breakdown_free(ic_breakdown *b) {
  free(b->cost);
  free(b->icost);
  free(b->lo);
  free(b->hi);
  b->cost = b->icost = b->lo = b->hi = NULL;
}

static int popcount(uint32_t x) { return __builtin_popcount(x); }

static int show_every_subset(const ic_breakdown *b, int show_all) {
  return show_all || b->ncat <= 4;
}

int ic_breakdown_needed(int ncat, int show_all, uint8_t *need) {
  const uint32_t n = 1u << ncat, full = n - 1;
  int count = 0;
  for (uint32_t s = 0; s < n; s++) {
    need[s] = show_all || ncat <= 4 || s == full || popcount(s) <= 1 ||
              (popcount(s) == 2 && (s & 1u));
    count += need[s];
  }
  return count;
}

void ic_breakdown_unneeded_nan(double *t_subset, int ncat, const uint8_t *need) {
  if (!need) return;
  for (uint32_t s = 1; s < (1u << ncat); s++)
    if (!need[s]) t_subset[s] = NAN;
}

int ic_breakdown_entry_count(const ic_breakdown *b, int show_all) {
  int n = b->ncat;
  if (show_every_subset(b, show_all)) return (1 << n) - 1 + 1;
  return n + (n - 1) + 1 + 1;
}

/* Subsets of two or more: by size, then lexicographically by positions. */
static int subset_before(uint32_t a, uint32_t b) {
  int pa = popcount(a), pb = popcount(b);
  if (pa != pb) return pa < pb;
  while (a && b) {
    int la = __builtin_ctz(a), lb = __builtin_ctz(b);
    if (la != lb) return la < lb;
    a &= a - 1;
    b &= b - 1;
  }
  return 0;
}

static void entry_name(const ic_breakdown *b, uint32_t mask, char *out, size_t cap) {
  out[0] = 0;
  size_t len = 0;
  for (int k = 0; k < b->ncat; k++)
    if (mask & (1u << k)) {
      int w = snprintf(out + len, cap - len, "%s%s", len ? "+" : "", ic_category_name(b->cats[k]));
      if (w < 0 || (size_t)w >= cap - len) return;
      len += (size_t)w;
    }
}

static void set_entry(const ic_breakdown *b, ic_bd_entry *e, ic_bd_kind kind, uint32_t mask) {
  e->kind = kind;
  e->mask = mask;
  entry_name(b, mask, e->name, sizeof e->name);
  e->cycles = b->icost[mask];
  e->percent = b->total != 0 ? 100.0 * e->cycles / b->total : 0.0;
  e->lo = b->lo ? b->lo[mask] : NAN;
  e->hi = b->hi ? b->hi[mask] : NAN;
}

void ic_breakdown_entries(const ic_breakdown *b, int show_all, ic_bd_entry *out) {
  int n = b->ncat, m = 0;
  uint32_t full = (1u << n) - 1;
  for (int k = 0; k < n; k++) set_entry(b, &out[m++], IC_BD_SINGLE, 1u << k);
  if (show_every_subset(b, show_all)) {
    int first = m;
    for (uint32_t s = 1; s <= full; s++) {
      if (popcount(s) < 2) continue;
      int j = m++;
      while (j > first && subset_before(s, out[j - 1].mask)) {
        out[j] = out[j - 1];
        j--;
      }
      set_entry(b, &out[j], IC_BD_INTERACTION, s);
    }
  } else {
    /* the interactions not listed: the icosts of all non-empty subsets sum
       to cost(C), so they are cost(C) less the listed ones, which needs t
       of those alone (ic_breakdown_needed) */
    double other = b->cost[full];
    for (int k = 1; k < n; k++) set_entry(b, &out[m++], IC_BD_INTERACTION, 1u | (1u << k));
    for (int j = 0; j < m; j++) other -= out[j].cycles;
    ic_bd_entry *e = &out[m++];
    memset(e, 0, sizeof *e);
    e->kind = IC_BD_OTHER;
    strcpy(e->name, "other");
    e->cycles = other;
    e->percent = b->total != 0 ? 100.0 * other / b->total : 0.0;
    e->lo = e->hi = NAN;
  }
  /* base: t(C) in cycles; its percent is what the others leave of 100. */
  ic_bd_entry *e = &out[m];
  memset(e, 0, sizeof *e);
  e->kind = IC_BD_BASE;
  strcpy(e->name, "base");
  e->cycles = b->total - b->cost[full];
  double sum = 0;
  for (int j = 0; j < m; j++) sum += out[j].percent;
  e->percent = 100.0 - sum;
  e->lo = e->hi = NAN;
}

/* A value in tenths as text: -3 -> "-0.3", never "-0.0". */
static void fmt_tenths(char *buf, size_t cap, long long v) {
  ic_emit_fmt_fixed(buf, cap, (double)v / 10.0, 1);
}

static int all_integral(const ic_bd_entry *e, int n, double total) {
  if (total != floor(total)) return 0;
  for (int j = 0; j < n; j++)
    if (e[j].cycles != floor(e[j].cycles)) return 0;
  return 1;
}

static const char *const kind_names[] = {"single", "interaction", "other", "base"};

ic_status ic_breakdown_emit(const ic_breakdown *b, ic_emit *em, int show_all, int in_cycles,
                            ic_err *err) {
  const int n = ic_breakdown_entry_count(b, show_all);
  ic_bd_entry *e = malloc((size_t)n * sizeof *e);
  if (!e) return ic_fail(err, IC_ERUN, "breakdown: out of memory");
  ic_breakdown_entries(b, show_all, e);
  ic_emit_only(em, IC_EMIT_MACHINE);
  ic_emit_list_begin(em, "categories");
  for (int k = 0; k < b->ncat; k++) ic_emit_str(em, NULL, ic_category_name(b->cats[k]));
  ic_emit_list_end(em);
  ic_emit_double(em, "total", b->total);
  ic_emit_only(em, IC_EMIT_ALL);
  const int integral = all_integral(e, n, b->total);
  const ic_emit_col cols[] = {
      {"name", -1, 0},
      {"kind", -1, IC_EMIT_COL_TEXT_HIDE},
      {"set", -1, IC_EMIT_COL_NESTED},
      {"percent", 1, 0},
      {"cycles", integral ? 0 : 2, in_cycles ? 0 : IC_EMIT_COL_TEXT_HIDE},
      {"lo", 1, 0},
      {"hi", 1, 0},
  };
  ic_emit_table_begin(em, "breakdown", cols, b->lo ? 7 : 5, 0);
  long long sum = 0;
  for (int j = 0; j < n; j++) {
    long long tenths;
    if (e[j].kind == IC_BD_BASE)
      tenths = 1000 - sum; /* the printed column sums to exactly 100.0 */
    else {
      tenths = llround(e[j].percent * 10.0);
      sum += tenths;
    }
    char pct[32];
    fmt_tenths(pct, sizeof pct, tenths);
    ic_emit_row_begin(em);
    ic_emit_str(em, NULL, e[j].name);
    ic_emit_str(em, NULL, kind_names[e[j].kind]);
    ic_emit_list_begin(em, NULL);
    for (int k = 0; k < b->ncat; k++)
      if (e[j].mask & (1u << k)) ic_emit_str(em, NULL, ic_category_name(b->cats[k]));
    ic_emit_list_end(em);
    ic_emit_shown(em, NULL, e[j].percent, pct);
    ic_emit_double(em, NULL, e[j].cycles);
    if (b->lo && !isnan(e[j].lo)) {
      ic_emit_double(em, NULL, e[j].lo);
      ic_emit_double(em, NULL, e[j].hi);
    }
    ic_emit_row_end(em);
  }
  ic_emit_only(em, IC_EMIT_ONLY(IC_EMIT_TEXT));
  ic_emit_row_begin(em);
  ic_emit_str(em, NULL, "total");
  ic_emit_skip(em, NULL);
  ic_emit_skip(em, NULL);
  ic_emit_shown(em, NULL, 100.0, "100.0");
  ic_emit_double(em, NULL, b->total);
  ic_emit_row_end(em);
  ic_emit_only(em, IC_EMIT_ALL);
  ic_emit_table_end(em);
  if (b->lo) {
    char warn[256];
    ic_emit_text_line(em, "lo, hi: the 95% CI of percent (bootstrap over the fragments)");
    ic_emit_only(em, IC_EMIT_MACHINE);
    ic_emit_u64(em, "ci_fragments", b->ci_fragments);
    if (ic_breakdown_ci_warning(b, warn, sizeof warn)) ic_emit_str(em, "ci_warning", warn);
    ic_emit_only(em, IC_EMIT_ALL);
    if (ic_breakdown_ci_warning(b, warn, sizeof warn)) ic_emit_text_line(em, warn);
  }
  free(e);
  return IC_OK;
}

ic_status ic_breakdown_write(const ic_breakdown *b, FILE *f, ic_format format, int show_all,
                             int in_cycles, ic_err *err) {
  ic_emit *em;
  ic_status st = ic_emit_open(&em, f, format, err);
  if (st != IC_OK) return st;
  if ((st = ic_breakdown_emit(b, em, show_all, in_cycles, err)) != IC_OK) {
    ic_emit_abandon(em);
    return st;
  }
  return ic_emit_close(em, err);
}
