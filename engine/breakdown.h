/* breakdown.h: cost and interaction-cost breakdowns from t(S).
 *
 * Given the critical-path length t(S) of every subset S of a category list C
 * (solver.h computes them; multisim measures them), with t = t({}):
 *   cost(S)  = t - t(S)                        cycles saved by idealizing S
 *   icost(U) = sum over V subset of U of (-1)^(|U|-|V|) cost(V)   (Moebius)
 *   base     = t(C)                            cycles no category removes
 * so that  base + sum over non-empty U of icost(U) = t  exactly (the sum of
 * icost over the subsets of C telescopes to cost(C)). Subset masks are over
 * positions in the list: bit k stands for cats[k].
 *
 * Entries in the paper's order (Table III): the singletons in list order;
 * then the interactions: with show_all or at most 4 categories every subset
 * of two or more (by size, then mask); otherwise the pairs with the first
 * category and one "other" entry holding the sum of all remaining
 * interactions; then "base". Percent = 100 * cycles / total; the base's
 * percent is 100 minus the others, so the entries sum to 100 by
 * construction. */
#ifndef IC_BREAKDOWN_H
#define IC_BREAKDOWN_H

#include <stdint.h>
#include <stdio.h>

#include "categories.h"
#include "emit.h"
#include "ic_err.h"

#define IC_BREAKDOWN_MAX_CATS 12

typedef struct ic_breakdown {
  int ncat;
  uint8_t cats[IC_BREAKDOWN_MAX_CATS]; /* category ids, in the user's order */
  double total;                        /* t, cycles (or per-instruction-normalized) */
  double *cost, *icost;                /* [1 << ncat], indexed by subset mask */
  double *lo, *hi;                     /* optional 95% CI of icost in percent, NULL if none */
  uint64_t ci_fragments;               /* fragments the CI was resampled from */
} ic_breakdown;

/* Fewer fragments than this make a bootstrap interval say little (it can
 * only resample what few there are): a report with such a CI warns. */
#define IC_CI_MIN_FRAGMENTS 10

/* The warning for b's interval, or NULL when it has none or enough
 * fragments. */
const char *ic_breakdown_ci_warning(const ic_breakdown *b, char *buf, size_t cap);

/* The report formats (emit.h). */
typedef ic_emit_format ic_format;
#define IC_FMT_TEXT IC_EMIT_TEXT
#define IC_FMT_CSV IC_EMIT_CSV
#define IC_FMT_YAML IC_EMIT_YAML
#define IC_FMT_JSON IC_EMIT_JSON

/* Parses "text", "csv", "yaml" or "json"; IC_EINPUT otherwise. */
ic_status ic_format_parse(const char *name, ic_format *out, ic_err *err);

/* Fills b (its arrays allocated here; free with ic_breakdown_free) from
 * t_subset[0 .. 2^ncat). lo/hi stay NULL (the caller may allocate and fill
 * them with 1 << ncat doubles each, freed by ic_breakdown_free).
 * IC_EINPUT for a bad category list or t_subset[0] <= 0 is allowed (total 0
 * gives percents of 0). Time complexity: O(ncat * 2^ncat). */
ic_status ic_breakdown_from_times(ic_breakdown *b, const uint8_t *cats, int ncat,
                                  const double *t_subset, ic_err *err);
void ic_breakdown_free(ic_breakdown *b);

typedef enum ic_bd_kind { IC_BD_SINGLE, IC_BD_INTERACTION, IC_BD_OTHER, IC_BD_BASE } ic_bd_kind;

typedef struct ic_bd_entry {
  ic_bd_kind kind;
  uint32_t mask;  /* subset mask (0 for other and base) */
  char name[96];  /* "dl1", "dl1+win", "other", "base" */
  double cycles;  /* icost (or base) in the unit of total */
  double percent; /* 100 * cycles / total; base = 100 - the others */
  double lo, hi;  /* CI in percent if b->lo, else NAN */
} ic_bd_entry;

/* need[S] = 1 for the subsets S (0 .. 2^ncat) whose t(S) the entries
 * below read, else 0; returns their count. Every subset with show_all or
 * at most 4 categories; otherwise {}, the singletons, the pairs with the
 * first category and the whole list (2n + 1 of 2^n), as `other` is
 * cost(C) less the listed entries. ic_breakdown_from_times takes NAN for
 * the others (their cost and icost are then NAN and never shown). */
int ic_breakdown_needed(int ncat, int show_all, uint8_t *need);

/* t_subset[S] = NAN for every subset S > 0 with need[S] == 0 (need NULL:
 * nothing changes): the times of subsets not solved or run. */
void ic_breakdown_unneeded_nan(double *t_subset, int ncat, const uint8_t *need);

/* Number of entries ic_breakdown_entries produces for this layout. */
int ic_breakdown_entry_count(const ic_breakdown *b, int show_all);
/* Writes the entries in order into out[0 .. ic_breakdown_entry_count). */
void ic_breakdown_entries(const ic_breakdown *b, int show_all, ic_bd_entry *out);

/* The breakdown's part of a report (the entries of ic_breakdown_entries):
 * `categories` (the list) and `total` (t), then the
 * table `breakdown`, a row per entry: name ("dl1+win", "other", "base"),
 * kind (single, interaction, other, base), set (the categories; yaml and
 * json), percent, cycles[, lo, hi: the 95% CI in percent, absent where
 * none]. Text shows name and percent (one decimal; the base row is 100.0
 * minus the other printed rows, so the column sums to exactly 100.0), cycles
 * if in_cycles, lo and hi, then a "total" row; csv, yaml and json leave the
 * total row out and have every column. With a CI: `ci_fragments`, and the
 * warning of ic_breakdown_ci_warning (text: a line; others: `ci_warning`). IC_ERUN when out of memory (write
 * errors come from ic_emit_close). */
ic_status ic_breakdown_emit(const ic_breakdown *b, ic_emit *em, int show_all, int in_cycles,
                            ic_err *err);

/* The breakdown alone as a report of its own on f (ic_breakdown_emit
 * without provenance). IC_ERUN on a write error. */
ic_status ic_breakdown_write(const ic_breakdown *b, FILE *f, ic_format format, int show_all,
                             int in_cycles, ic_err *err);

#endif
