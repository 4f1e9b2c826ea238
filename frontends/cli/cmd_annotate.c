/* cmd_annotate.c: `icost annotate`, where in the code the critical cycles
 * are: the per-instruction statistics of `icost critical` (engine/slack.h)
 * summed per function or per source line (frontends/symbols), hottest
 * first, with the disassembly of the hottest, as DCPI's dcpiprof and
 * dcpicalc show them.
 *
 * Each static pc of the run is resolved once (the slack table holds one
 * entry per static pc), so the symbols cost nothing per dynamic
 * instruction. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cpus.h"
#include "emit.h"
#include "ooo_config.h"
#include "report.h"
#include "run.h"
#include "slack.h"
#include "where.h"


typedef enum { BY_FUNCTION, BY_LINE } annot_by;

typedef struct annot_opts {
  annot_by by;
  uint64_t top, disasm, window;
  ic_emit_format fmt;
  cli_where_opts where;
} annot_opts;

enum { O_BY = CLI_OPT_OWN, O_TOP, O_DISASM, O_WINDOW, O_FORMAT };

static const struct option annot_options[] = {
    {"by", required_argument, NULL, O_BY},
    {"top", required_argument, NULL, O_TOP},
    {"disasm", required_argument, NULL, O_DISASM},
    {"window", required_argument, NULL, O_WINDOW},
    {"format", required_argument, NULL, O_FORMAT},
    CLI_WHERE_OPTIONS,
    {NULL, 0, NULL, 0},
};

static int annot_option(void *ctx, int id, const char *name, const char *v, ic_err *err) {
  annot_opts *o = ctx;
  (void)name;
  switch (id) {
  case O_BY:
    if (strcmp(v, "function") == 0) o->by = BY_FUNCTION;
    else if (strcmp(v, "line") == 0) o->by = BY_LINE;
    else {
      ic_fail(err, IC_EINPUT, "--by '%s': expected function or line", v);
      return -1;
    }
    return 0;
  case O_TOP: return cli_count_option("--top", v, &o->top, err);
  case O_DISASM: return cli_count_option("--disasm", v, &o->disasm, err);
  case O_WINDOW: return cli_window_option(v, &o->window, err);
  case O_FORMAT: return cli_format_parse("annotate", v, &o->fmt, err) == IC_OK ? 0 : -1;
  default: return cli_where_option(&o->where, id, v, err);
  }
}

static void annot_help(void) {
  printf(
      "usage: icost annotate [common options] [--by function|line] [--top N] [--disasm K]\n"
      "                      [--window W] [--format text|csv|yaml|json]\n"
      "                      [--symbols FILE | --no-symbols] [-- PROGRAM ARGS]\n"
      "\n"
      "Runs the program (default: the default workload) on the timing model, records its\n"
      "dependence graph and finds, as `icost critical` does, each static instruction's\n"
      "critical events; then sums them per function or per source line, hottest first,\n"
      "and lists the instructions of the hottest with their disassembly.\n"
      "\n"
      "  --by function  one row per function (ELF symbol table; the default)\n"
      "  --by line      one row per source line (DWARF line table: build with -g)\n"
      "  --top N        rows shown (default 20; 0: all)\n"
      "  --disasm K     list the instructions of the K hottest rows (default 1 function,\n"
      "                 or 5 lines; 0: none)\n"
      "  --window W     slack window, instructions (default %u; see `icost critical --help`)\n"
      "  --format F     text (aligned tables), csv, yaml or json; same numbers\n" CLI_WHERE_HELP
      "  common options: --config F, --set KEY=VALUE, --skip N, --warm N, --max N, --seed S,\n"
      "                  --workload NAME, --trace FILE (see `icost sim --help`)\n"
      "\n"
      "A pc is placed by the best it has: a source line, then a function, then itself.\n"
      "With --by line, a pc without a line falls into its function's row, one without a\n"
      "function into a row of its own; with --by function, one without a function too.\n"
      "\n"
      "Columns (cycles are model cycles of the timed run):\n"
      "  rank      by critical, then by critical execute nodes, then by instructions\n"
      "  where     the function, or file:line and function, or the pc\n"
      "            (csv/yaml/json also: pc, the lowest pc of the row, hex; function,\n"
      "            file and line, empty/null where unknown)\n"
      "  static    static instructions (distinct pcs) of the row that ran\n"
      "  count     dynamic instructions\n"
      "  crit_E_pct %% of those whose execute node is on a critical path (slack 0)\n"
      "  dmiss     critical data-cache and DTLB miss cycles: the dmiss parts of the\n"
      "            row's execute edges that are on a critical path (`icost critical`'s\n"
      "            crit_miss): what perfect prefetching of its loads could save at most\n"
      "  bmisp     critical branch-misprediction cycles: the latency of the row's\n"
      "            misprediction-recovery (PD) edges on a critical path (crit_misp)\n"
      "  critical  dmiss + bmisp, the ranking key; over all rows it adds up to the run's\n"
      "            critical miss and misprediction cycles (critical_cycles)\n"
      "  cost_pct  critical as %% of the run's cycles\n"
      "The disassembly table has the same columns per instruction of the K hottest\n"
      "rows (rank: the row's), in pc order, with its disassembly (insn) and, in\n"
      "csv/yaml/json, its function offset.\n"
      "Totals: instructions, cycles, critical_cycles (= dmiss_cycles + bmisp_cycles),\n"
      "static_pcs, rows (before --top), symbols (the ELF file read, or none).\n",
      IC_SLACK_DEFAULT_WINDOW);
}

/* ---- grouping ------------------------------------------------------------- */

/* A row: the pcs that share a function (or a line), keyed by the resolved
 * function or file pointer (the symbols hold each name once per symbol and
 * each file name once) and line, or by the pc itself. */
typedef struct group {
  uint64_t key_a, key_b;
  int kind;              /* 0: a pc, 1: a function, 2: a line */
  uint64_t pc;           /* the lowest pc */
  ic_sym_loc loc;        /* of the lowest pc */
  int found;
  uint64_t statics, count, crit_e, dmiss, bmisp;
} group;

typedef struct group_set {
  group *g;
  size_t n;
  int32_t *slot; /* open addressing: index into g, -1 empty */
  size_t cap;
} group_set;

static uint64_t mix(uint64_t a, uint64_t b, int kind) {
  uint64_t h = a * 0x9e3779b97f4a7c15ULL ^ (b + (uint64_t)kind) * 0xff51afd7ed558ccdULL;
  return h ^ h >> 29;
}

static size_t group_of(group_set *gs, int kind, uint64_t a, uint64_t b) {
  size_t j = mix(a, b, kind) & (gs->cap - 1);
  for (; gs->slot[j] >= 0; j = (j + 1) & (gs->cap - 1)) {
    group *g = &gs->g[gs->slot[j]];
    if (g->kind == kind && g->key_a == a && g->key_b == b) return (size_t)gs->slot[j];
  }
  gs->slot[j] = (int32_t)gs->n;
  gs->g[gs->n] = (group){.key_a = a, .key_b = b, .kind = kind};
  return gs->n++;
}

static uint64_t group_critical(const group *g) { return g->dmiss + g->bmisp; }

static int cmp_group(const void *a, const void *b) {
  const group *x = a, *y = b;
  uint64_t cx = group_critical(x), cy = group_critical(y);
  if (cx != cy) return cx > cy ? -1 : 1;
  if (x->crit_e != y->crit_e) return x->crit_e > y->crit_e ? -1 : 1;
  if (x->count != y->count) return x->count > y->count ? -1 : 1;
  return x->pc < y->pc ? -1 : x->pc > y->pc;
}

/* Groups the per-pc table (ascending by pc) into gs; member[i] gets the
 * group of tab[i] before sorting; the groups come back sorted, and
 * rank_of[group before sorting] its rank. */
static ic_status group_table(const ic_slack_pc *tab, size_t n, const ic_symbols *sym, annot_by by, group_set *gs,
                             size_t *member, size_t *rank_of, ic_err *err) {
  gs->cap = 16;
  while (gs->cap < 2 * n) gs->cap *= 2;
  gs->slot = malloc(gs->cap * sizeof *gs->slot);
  gs->g = malloc((n ? n : 1) * sizeof *gs->g);
  if (!gs->slot || !gs->g) return ic_fail(err, IC_ERUN, "annotate: out of memory for %zu pcs", n);
  for (size_t j = 0; j < gs->cap; j++) gs->slot[j] = -1;
  for (size_t i = 0; i < n; i++) {
    const ic_slack_pc *p = &tab[i];
    ic_sym_loc loc;
    int found = ic_sym_lookup(sym, p->pc, &loc);
    size_t k;
    if (by == BY_LINE && (found & IC_SYM_LINE))
      k = group_of(gs, 2, (uint64_t)(uintptr_t)loc.file, loc.line);
    else if (found & IC_SYM_FUNCTION)
      k = group_of(gs, 1, (uint64_t)(uintptr_t)loc.function, 0);
    else
      k = group_of(gs, 0, p->pc, 0);
    group *g = &gs->g[k];
    if (g->statics == 0) { /* tab ascends by pc: the first is the lowest */
      g->pc = p->pc;
      g->loc = loc;
      g->found = found;
    }
    g->statics++;
    g->count += p->count;
    g->crit_e += p->crit[IC_NODE_E];
    g->dmiss += p->crit_miss_cycles;
    g->bmisp += p->crit_misp_cycles;
    member[i] = k;
  }
  group *sorted = malloc((gs->n ? gs->n : 1) * sizeof *sorted);
  if (!sorted) return ic_fail(err, IC_ERUN, "annotate: out of memory");
  for (size_t k = 0; k < gs->n; k++) {
    sorted[k] = gs->g[k];
    sorted[k].key_a = k; /* the group's index before sorting, for rank_of */
  }
  qsort(sorted, gs->n, sizeof *sorted, cmp_group);
  for (size_t r = 0; r < gs->n; r++) rank_of[sorted[r].key_a] = r;
  free(gs->g);
  gs->g = sorted;
  return IC_OK;
}

/* ---- output ----------------------------------------------------------------- */

static double pct(uint64_t a, uint64_t b) { return b ? 100.0 * (double)a / (double)b : 0.0; }

/* The row's label for text: function; file:line function; or the pc. */
static void group_label(const group *g, annot_by by, char *buf, size_t cap) {
  if (g->kind == 2) {
    const char *slash = strrchr(g->loc.file, '/');
    if (g->found & IC_SYM_FUNCTION)
      snprintf(buf, cap, "%s:%u %s", slash ? slash + 1 : g->loc.file, g->loc.line, g->loc.function);
    else
      snprintf(buf, cap, "%s:%u", slash ? slash + 1 : g->loc.file, g->loc.line);
  } else if (g->kind == 1) {
    snprintf(buf, cap, "%s%s", g->loc.function, by == BY_LINE ? " (no line)" : "");
  } else {
    snprintf(buf, cap, "0x%" PRIx64, g->pc);
  }
}

/* The cells function, file, line of a location (null/empty where unknown). */
static void emit_loc(ic_emit *e, const ic_sym_loc *loc, int found, int with_line) {
  if (found & IC_SYM_FUNCTION) ic_emit_str(e, NULL, loc->function);
  else ic_emit_null(e, NULL);
  if ((found & IC_SYM_LINE) && with_line) {
    ic_emit_str(e, NULL, loc->file);
    ic_emit_u64(e, NULL, loc->line);
  } else {
    ic_emit_null(e, NULL);
    ic_emit_null(e, NULL);
  }
}

static void emit_counts(ic_emit *e, uint64_t count, uint64_t crit_e, uint64_t dmiss, uint64_t bmisp,
                        uint64_t cycles) {
  ic_emit_u64(e, NULL, count);
  ic_emit_fixed(e, NULL, pct(crit_e, count), 1);
  ic_emit_u64(e, NULL, dmiss);
  ic_emit_u64(e, NULL, bmisp);
  ic_emit_u64(e, NULL, dmiss + bmisp);
  ic_emit_fixed(e, NULL, pct(dmiss + bmisp, cycles), 2);
}

static ic_status print_annotate(const annot_opts *o, const cli_run_opts *ro, const cli_run *run, const ic_slack *s,
                                const ic_slack_pc *tab, size_t n, const ic_symbols *sym, ic_err *err) {
  const ic_slack_totals *t = ic_slack_get_totals(s);
  group_set gs = {0};
  size_t *member = malloc((n ? n : 1) * sizeof *member), *rank_of = malloc((n ? n : 1) * sizeof *rank_of);
  ic_status st = member && rank_of ? group_table(tab, n, sym, o->by, &gs, member, rank_of, err)
                                   : ic_fail(err, IC_ERUN, "annotate: out of memory for %zu pcs", n);
  ic_emit *e = NULL;
  if (st == IC_OK) st = cli_report_open(&e, stdout, o->fmt, "annotate", ro, run, err);
  if (st != IC_OK) {
    free(member);
    free(rank_of);
    free(gs.g);
    free(gs.slot);
    return st;
  }
  cli_report_partial(e, run);
  ic_emit_str(e, "by", o->by == BY_LINE ? "line" : "function");
  ic_emit_str_shown(e, "symbols", sym ? ic_sym_path(sym) : NULL, sym ? ic_sym_path(sym) : "none");
  ic_emit_u64(e, "instructions", t->instructions);
  ic_emit_u64(e, "cycles", t->cycles);
  ic_emit_u64(e, "critical_cycles", t->crit_miss_cycles + t->crit_misp_cycles);
  ic_emit_u64(e, "dmiss_cycles", t->crit_miss_cycles);
  ic_emit_u64(e, "bmisp_cycles", t->crit_misp_cycles);
  ic_emit_u64(e, "static_pcs", n);
  ic_emit_u64(e, "rows", gs.n);
  ic_emit_u64(e, "window", ic_slack_window(s));

  const size_t top = o->top == 0 || o->top > gs.n ? gs.n : (size_t)o->top;
  const ic_emit_col cols[] = {
      {"rank", -1, 0},     {"where", -1, 0},   {"pc", -1, IC_EMIT_COL_TEXT_HIDE}, {"function", -1, IC_EMIT_COL_TEXT_HIDE},
      {"file", -1, IC_EMIT_COL_TEXT_HIDE}, {"line", -1, IC_EMIT_COL_TEXT_HIDE},
      {"static", -1, 0},   {"count", -1, 0},   {"crit_E_pct", 1, 0}, {"dmiss", -1, 0},
      {"bmisp", -1, 0},    {"critical", -1, 0}, {"cost_pct", 2, 0},
  };
  const int ncols = (int)(sizeof cols / sizeof cols[0]);
  char label[600], buf[64];
  ic_emit_table_begin(e, o->by == BY_LINE ? "lines" : "functions", cols, ncols, 0);
  for (size_t r = 0; r < top; r++) {
    const group *g = &gs.g[r];
    group_label(g, o->by, label, sizeof label);
    ic_emit_row_begin(e);
    ic_emit_u64(e, NULL, r + 1);
    ic_emit_str(e, NULL, label);
    snprintf(buf, sizeof buf, "0x%" PRIx64, g->pc);
    ic_emit_str(e, NULL, buf);
    emit_loc(e, &g->loc, g->found, g->kind == 2);
    ic_emit_u64(e, NULL, g->statics);
    emit_counts(e, g->count, g->crit_e, g->dmiss, g->bmisp, t->cycles);
    ic_emit_row_end(e);
  }
  ic_emit_table_end(e);
  if (top < gs.n) {
    snprintf(label, sizeof label, "(%zu of %zu rows shown; --top 0 shows all)\n", top, gs.n);
    ic_emit_text_line(e, label);
  }

  const size_t hot = o->disasm < top ? (size_t)o->disasm : top;
  if (hot > 0) {
    const ic_emit_col dcols[] = {
        {"rank", -1, 0},     {"pc", -1, 0},       {"where", -1, 0},  {"function", -1, IC_EMIT_COL_TEXT_HIDE},
        {"offset", -1, IC_EMIT_COL_TEXT_HIDE}, {"file", -1, IC_EMIT_COL_TEXT_HIDE},
        {"line", -1, IC_EMIT_COL_TEXT_HIDE},   {"insn", -1, 0},
        {"count", -1, 0},    {"crit_E_pct", 1, 0}, {"dmiss", -1, 0},  {"bmisp", -1, 0},
        {"critical", -1, 0}, {"cost_pct", 2, 0},
    };
    ic_program_image img = cli_run_image(run);
    char insn[96];
    ic_emit_table_begin(e, "disassembly", dcols, (int)(sizeof dcols / sizeof dcols[0]), 0);
    for (size_t r = 0; r < hot; r++)
      for (size_t i = 0; i < n; i++) {
        if (rank_of[member[i]] != r) continue;
        const ic_slack_pc *p = &tab[i];
        ic_emit_row_begin(e);
        ic_emit_u64(e, NULL, r + 1);
        snprintf(buf, sizeof buf, "0x%" PRIx64, p->pc);
        ic_emit_str(e, NULL, buf);
        cli_where_emit(e, sym, p->pc, "");
        cli_where_disasm(img, p->pc, insn, sizeof insn);
        ic_emit_str(e, NULL, insn);
        emit_counts(e, p->count, p->crit[IC_NODE_E], p->crit_miss_cycles, p->crit_misp_cycles, t->cycles);
        ic_emit_row_end(e);
      }
    ic_emit_table_end(e);
  }
  snprintf(label, sizeof label,
           "\n%" PRIu64 " instructions, %" PRIu64 " cycles; critical cycles %" PRIu64 " (%.2f%%): dmiss %" PRIu64
           ", bmisp %" PRIu64 "\n",
           t->instructions, t->cycles, t->crit_miss_cycles + t->crit_misp_cycles,
           pct(t->crit_miss_cycles + t->crit_misp_cycles, t->cycles), t->crit_miss_cycles, t->crit_misp_cycles);
  ic_emit_text_line(e, label);
  st = ic_emit_close(e, err);
  free(member);
  free(rank_of);
  free(gs.g);
  free(gs.slot);
  return st;
}

static void progress(void *ctx, uint64_t committed) {
  (void)ctx;
  fprintf(stderr, "\r%" PRIu64 " instructions", committed);
}

int cmd_annotate(int argc, char **argv) {
  annot_opts ao = {.by = BY_FUNCTION, .top = 20, .disasm = UINT64_MAX, .window = IC_SLACK_DEFAULT_WINDOW,
                   .fmt = IC_EMIT_TEXT};
  cli_run_opts ro;
  ic_err err;
  ic_status st = cli_run_parse(argc, argv, &ro, annot_options, annot_option, &ao, &err);
  if (st != IC_OK) return cli_fail_err(st, &err);
  if (ro.help) {
    annot_help();
    return 0;
  }
  if (ao.disasm == UINT64_MAX) ao.disasm = ao.by == BY_LINE ? 5 : 1;
  cli_run run;
  memset(&run, 0, sizeof run);
  ro.once = 1;
  st = cli_run_setup(&ro, &run, &err);
  if (st != IC_OK) return cli_fail_err(st, &err);
  ic_slack *s = NULL;
  st = ic_slack_create(&s, (uint32_t)ao.window, &err);
  if (st == IC_OK) {
    ooo_stats stats;
    int tty = isatty(2);
    st = cli_run_graph(&run, ic_slack_sink(s), ic_cpus_allowed(), tty ? progress : NULL, NULL, &stats, &err);
    if (tty) fputs("\r\033[K", stderr);
    if (st == IC_OK) st = ic_slack_finish(s, &err);
  }
  ic_slack_pc *tab = NULL;
  size_t n = 0;
  if (st == IC_OK) st = ic_slack_table(s, IC_SLACK_BY_PC, &tab, &n, &err);
  if (st == IC_OK) {
    ic_symbols *sym = cli_where_open(&ao.where, &ro, &run, tab, n);
    st = print_annotate(&ao, &ro, &run, s, tab, n, sym, &err);
    ic_sym_close(sym);
  }
  free(tab);
  ic_slack_destroy(s);
  int rc = cli_run_finish(&run, st == IC_OK ? 0 : cli_fail_err(st, &err));
  cli_run_free(&run);
  return rc;
}
