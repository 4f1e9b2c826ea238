/* cmd_critical.c: `icost critical` (slack and criticality per static
 * instruction, engine/slack.h) and `icost graph` (a window of the recorded
 * dependence graph as GraphML or DOT, engine/export.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cpus.h"
#include "export.h"
#include "run.h"
#include "rv.h"
#include "champsim.h"
#include "trace.h"
#include "slack.h"
#include "where.h"

typedef enum { FMT_TEXT, FMT_CSV, FMT_YAML } out_format;

/* Option callbacks return -1 for a bad value, with *err filled by ic_fail. */
static int bad_value(ic_status st) {
  (void)st;
  return -1;
}

static int parse_u64(const char *opt, const char *v, uint64_t *out, ic_err *err) {
  if (!v) return bad_value(ic_fail(err, IC_EINPUT, "%s: missing value", opt));
  if (cli_parse_count(v, out) != 0)
    return bad_value(ic_fail(err, IC_EINPUT, "%s '%s': expected a non-negative count", opt, v));
  return 2;
}

/* A comma list of category names as a mask; IC_EINPUT names the bad one. */
static ic_status parse_ideal(const char *opt, const char *list, ic_catmask *out, ic_err *err) {
  *out = 0;
  if (!*list) return ic_fail(err, IC_EINPUT, "%s: empty category list", opt);
  char name[32];
  const char *p = list;
  while (1) {
    const char *e = strchr(p, ',');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    if (len == 0 || len >= sizeof name)
      return ic_fail(err, IC_EINPUT, "%s '%s': empty or overlong category name", opt, list);
    memcpy(name, p, len);
    name[len] = 0;
    int c = ic_category_lookup(name);
    if (c < 0) return ic_fail(err, IC_EINPUT, "%s: unknown category '%s'", opt, name);
    if (*out & IC_CATBIT(c)) return ic_fail(err, IC_EINPUT, "%s: category '%s' given twice", opt, name);
    *out |= IC_CATBIT(c);
    if (!e) break;
    p = e + 1;
  }
  return IC_OK;
}

/* ---- icost critical ------------------------------------------------------- */

typedef struct crit_opts {
  uint64_t top, window;
  out_format fmt;
  ic_catmask ideal;
  cli_where_opts where;
} crit_opts;

static int crit_option(void *ctx, int argc, char **argv, int i, ic_err *err) {
  crit_opts *o = ctx;
  const char *v = i + 1 < argc ? argv[i + 1] : NULL;
  int used = cli_where_option(&o->where, argc, argv, i, err);
  if (used != 0) return used;
  if (strcmp(argv[i], "--top") == 0) return parse_u64("--top", v, &o->top, err);
  if (strcmp(argv[i], "--window") == 0) {
    int n = parse_u64("--window", v, &o->window, err);
    if (n > 0 && (o->window < IC_SLACK_MIN_WINDOW || o->window > IC_SLACK_MAX_WINDOW)) {
      ic_fail(err, IC_EINPUT, "--window %s: must be between %u and %u instructions", v, IC_SLACK_MIN_WINDOW,
              IC_SLACK_MAX_WINDOW);
      return -1;
    }
    return n;
  }
  if (strcmp(argv[i], "--format") == 0) {
    if (!v) return bad_value(ic_fail(err, IC_EINPUT, "--format: missing value"));
    if (strcmp(v, "text") == 0) o->fmt = FMT_TEXT;
    else if (strcmp(v, "csv") == 0) o->fmt = FMT_CSV;
    else if (strcmp(v, "yaml") == 0) o->fmt = FMT_YAML;
    else return bad_value(ic_fail(err, IC_EINPUT, "--format '%s': expected text, csv or yaml", v));
    return 2;
  }
  if (strcmp(argv[i], "--ideal") == 0) {
    if (!v) return bad_value(ic_fail(err, IC_EINPUT, "--ideal: missing category list"));
    return parse_ideal("--ideal", v, &o->ideal, err) == IC_OK ? 2 : -1;
  }
  return 0;
}

static void crit_help(void) {
  printf(
      "usage: icost critical [common options] [--top N] [--window W] [--ideal LIST]\n"
      "                      [--format text|csv|yaml] [--symbols FILE | --no-symbols]\n"
      "                      [-- PROGRAM ARGS]\n"
      "\n"
      "Runs the program (default: the default workload) on the timing model, records its\n"
      "dependence graph (paper Table II: nodes D dispatch, R operands ready, E execute,\n"
      "P complete, C commit per dynamic instruction) and reports, per static instruction,\n"
      "how often its nodes lie on the critical path and what its critical events cost.\n"
      "\n"
      "  --top N        print the N static instructions of highest cost (default 20; 0: all)\n"
      "  --window W     slack window, instructions (default %u, %u..%u); see below\n"
      "  --ideal LIST   analyse the graph with these categories idealized (comma list of\n"
      "                 dl1 win bw bmisp dmiss shalu lgalu imiss; graph rules of DESIGN.md):\n"
      "                 what is critical once those events are gone; cycles is then the\n"
      "                 idealized critical-path length and the stamp check is off. The run\n"
      "                 itself is always the baseline machine.\n"
      "  --format F     text (aligned table), csv or yaml; same numbers\n"
      CLI_WHERE_HELP
      "  common options: --config F, --set KEY=VALUE, --skip N, --warm N, --max N, --seed S,\n"
      "                  --workload NAME, --guest-output (see `icost sim --help`)\n"
      "\n"
      "Slack: the cycles a node can be delayed without delaying the end of its window.\n"
      "A backward pass runs over windows of W committed instructions that overlap by half;\n"
      "each instruction is reported from a window that extends at least W/2 instructions\n"
      "past it, and the last window ends at the run's last commit (exact there). Windowed\n"
      "slack treats the window's last commit as critical, so it approximates the global\n"
      "slack; it converges as W/2 grows to many ROB sizes. A node with slack 0 is critical.\n"
      "An edge is critical when both its ends have slack 0 and it is tight (the source time\n"
      "plus its latency equals the destination time).\n"
      "\n"
      "Columns, one row per static instruction, ordered by cost:\n"
      "  pc          instruction address\n"
      "  insn        its disassembly\n"
      "  count       dynamic instances\n"
      "  D R E P C   %% of instances whose dispatch/ready/execute/complete/commit node has\n"
      "              slack 0 (is on a critical path); csv/yaml give fractions 0..1\n"
      "              (columns crit_D..crit_C, key critical)\n"
      "  slack       mean slack of the execute node, cycles: how much later the instruction\n"
      "              could start executing, or how much longer it could take, without\n"
      "              delaying the window end\n"
      "  miss        data-cache/DTLB miss cycles (dmiss parts of its execute latency), all\n"
      "  crit_miss   the part of those on a critical execute edge: the cycles a perfect\n"
      "              prefetch of this load could remove at most\n"
      "  misp        times it was a mispredicted branch (followed by a PD edge; csv/yaml:\n"
      "              mispredicts)\n"
      "  crit_misp   latency of its critical misprediction-recovery (PD) edges, cycles\n"
      "  cost%%       (crit_miss + crit_misp) as %% of the run's cycles: the ranking key\n"
      "  where       its function and offset (ELF symbols) and source file:line (DWARF),\n"
      "              as far as known; csv/yaml: function (empty/null when unknown),\n"
      "              offset, file and line (csv: empty, yaml: left out when unknown)\n"
      "\n"
      "Totals: instructions and cycles of the timed run (the critical-path length equals\n"
      "the cycles), the %% of all nodes of each kind that are critical, mean slack, the\n"
      "critical miss and misprediction cycles, the number of windows, and two checks: nodes\n"
      "whose recomputed time differs from the model's stamp (should be 0) and edges whose\n"
      "source lay beyond the reach of the arrival times kept (the larger of %u windows and\n"
      "%u instructions; such a source counts as time 0).\n",
      IC_SLACK_DEFAULT_WINDOW, IC_SLACK_MIN_WINDOW, IC_SLACK_MAX_WINDOW, IC_SLACK_REACH_FACTOR, IC_SLACK_MIN_REACH);
}

static void progress(void *ctx, uint64_t committed) {
  (void)ctx;
  fprintf(stderr, "\r%" PRIu64 " instructions", committed);
}

static double pct(uint64_t a, uint64_t b) { return b ? 100.0 * (double)a / (double)b : 0.0; }

static void disasm(ic_program_image img, uint64_t pc, char *buf, size_t cap) {
  cli_where_disasm(img, pc, buf, cap);
}

/* Double-quoted string with " and \ escaped (valid in CSV after doubling
 * quotes, and in YAML). */
static void put_quoted(FILE *f, const char *s, int csv) {
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"') fputs(csv ? "\"\"" : "\\\"", f);
    else if (*s == '\\' && !csv) fputs("\\\\", f);
    else fputc(*s, f);
  }
  fputc('"', f);
}

static void ideal_text(ic_catmask m, char *buf, size_t cap) {
  size_t k = 0;
  buf[0] = 0;
  for (int c = 0; c < IC_CAT_COUNT; c++)
    if (m & IC_CATBIT(c)) {
      int w = snprintf(buf + k, cap - k, "%s%s", k ? "," : "", ic_category_names[c]);
      if (w > 0 && (size_t)w < cap - k) k += (size_t)w;
    }
}

/* csv: the function, offset, file and line of pc (empty fields for what
 * is unknown). */
static void csv_where(FILE *f, const ic_symbols *sym, uint64_t pc) {
  ic_sym_loc loc;
  int found = ic_sym_lookup(sym, pc, &loc);
  fputc(',', f);
  if (found & IC_SYM_FUNCTION) put_quoted(f, loc.function, 1);
  fputc(',', f);
  if (found & IC_SYM_FUNCTION) fprintf(f, "%" PRIu64, loc.offset);
  fputc(',', f);
  if (found & IC_SYM_LINE) put_quoted(f, loc.file, 1);
  fputc(',', f);
  if (found & IC_SYM_LINE) fprintf(f, "%u", loc.line);
}

static void yaml_where(FILE *f, const ic_symbols *sym, uint64_t pc) {
  ic_sym_loc loc;
  int found = ic_sym_lookup(sym, pc, &loc);
  fputs("    function: ", f);
  if (found & IC_SYM_FUNCTION) {
    put_quoted(f, loc.function, 0);
    fprintf(f, "\n    offset: %" PRIu64 "\n", loc.offset);
  } else {
    fputs("null\n", f);
  }
  if (found & IC_SYM_LINE) {
    fputs("    file: ", f);
    put_quoted(f, loc.file, 0);
    fprintf(f, "\n    line: %u\n", loc.line);
  }
}

static void print_critical(FILE *f, const crit_opts *o, const ic_slack *s, const ic_slack_pc *tab, size_t n,
                           ic_program_image img, const ic_symbols *sym) {
  const ic_slack_totals *t = ic_slack_get_totals(s);
  char ideal[128];
  ideal_text(o->ideal, ideal, sizeof ideal);
  size_t top = o->top == 0 || o->top > n ? n : (size_t)o->top;
  char insn[96];
  if (o->fmt == FMT_CSV) {
    fputs("rank,pc,insn,count,crit_D,crit_R,crit_E,crit_P,crit_C,mean_slack,miss_cycles,crit_miss_cycles,"
          "mispredicts,crit_misp_cycles,cost_pct,function,offset,file,line\n",
          f);
    for (size_t i = 0; i <= top; i++) {
      const ic_slack_pc *p = i < top ? &tab[i] : NULL;
      if (p) {
        disasm(img, p->pc, insn, sizeof insn);
        fprintf(f, "%zu,0x%" PRIx64 ",", i + 1, p->pc);
        put_quoted(f, insn, 1);
        fprintf(f, ",%" PRIu64, p->count);
        for (int k = 0; k < IC_NODE_COUNT; k++) fprintf(f, ",%.4f", (double)p->crit[k] / (double)p->count);
        fprintf(f, ",%.3f,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.4f",
                (double)p->slack_sum / (double)p->count, p->miss_cycles, p->crit_miss_cycles, p->misp_count,
                p->crit_misp_cycles, pct(p->crit_miss_cycles + p->crit_misp_cycles, t->cycles));
        csv_where(f, sym, p->pc);
        fputc('\n', f);
      } else {
        fprintf(f, "total,,,%" PRIu64, t->instructions);
        for (int k = 0; k < IC_NODE_COUNT; k++)
          fprintf(f, ",%.4f", t->instructions ? (double)t->crit[k] / (double)t->instructions : 0.0);
        fprintf(f, ",%.3f,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.4f,,,,\n",
                t->instructions ? (double)t->slack_sum / (double)t->instructions : 0.0, t->miss_cycles,
                t->crit_miss_cycles, t->misp_count, t->crit_misp_cycles,
                pct(t->crit_miss_cycles + t->crit_misp_cycles, t->cycles));
      }
    }
    return;
  }
  if (o->fmt == FMT_YAML) {
    fprintf(f, "window: %u\nideal: [%s]\n", ic_slack_window(s), ideal);
    fprintf(f, "totals:\n");
    fprintf(f, "  instructions: %" PRIu64 "\n  cycles: %" PRIu64 "\n", t->instructions, t->cycles);
    fprintf(f, "  critical:\n");
    for (int k = 0; k < IC_NODE_COUNT; k++)
      fprintf(f, "    %c: %.4f\n", ic_node_names[k],
              t->instructions ? (double)t->crit[k] / (double)t->instructions : 0.0);
    fprintf(f, "  mean_slack: %.3f\n", t->instructions ? (double)t->slack_sum / (double)t->instructions : 0.0);
    fprintf(f, "  miss_cycles: %" PRIu64 "\n  crit_miss_cycles: %" PRIu64 "\n", t->miss_cycles,
            t->crit_miss_cycles);
    fprintf(f, "  mispredicts: %" PRIu64 "\n  crit_misp_cycles: %" PRIu64 "\n", t->misp_count,
            t->crit_misp_cycles);
    fprintf(f, "  windows: %" PRIu64 "\n  stamp_mismatches: %" PRIu64 "\n  unreached_edges: %" PRIu64
               "\n  static_pcs: %" PRIu64 "\n",
            t->windows, t->stamp_mismatches, t->unreached_edges, t->static_pcs);
    fprintf(f, "instructions:\n");
    for (size_t i = 0; i < top; i++) {
      const ic_slack_pc *p = &tab[i];
      disasm(img, p->pc, insn, sizeof insn);
      fprintf(f, "  - pc: 0x%" PRIx64 "\n    insn: ", p->pc);
      put_quoted(f, insn, 0);
      fprintf(f, "\n    count: %" PRIu64 "\n    critical: {", p->count);
      for (int k = 0; k < IC_NODE_COUNT; k++)
        fprintf(f, "%s%c: %.4f", k ? ", " : "", ic_node_names[k], (double)p->crit[k] / (double)p->count);
      fprintf(f, "}\n    mean_slack: %.3f\n    miss_cycles: %" PRIu64 "\n    crit_miss_cycles: %" PRIu64
                 "\n    mispredicts: %" PRIu64 "\n    crit_misp_cycles: %" PRIu64 "\n    cost_pct: %.4f\n",
              (double)p->slack_sum / (double)p->count, p->miss_cycles, p->crit_miss_cycles, p->misp_count,
              p->crit_misp_cycles, pct(p->crit_miss_cycles + p->crit_misp_cycles, t->cycles));
      yaml_where(f, sym, p->pc);
    }
    return;
  }
  fprintf(f, "%4s  %-12s %-28s %10s %5s %5s %5s %5s %5s %8s %10s %10s %8s %10s %6s%s\n", "rank", "pc", "insn",
          "count", "D%", "R%", "E%", "P%", "C%", "slack", "miss", "crit_miss", "misp", "crit_misp", "cost%",
          sym ? "  where" : "");
  for (size_t i = 0; i < top; i++) {
    const ic_slack_pc *p = &tab[i];
    disasm(img, p->pc, insn, sizeof insn);
    fprintf(f, "%4zu  0x%-10" PRIx64 " %-28.28s %10" PRIu64, i + 1, p->pc, insn, p->count);
    for (int k = 0; k < IC_NODE_COUNT; k++) fprintf(f, " %5.1f", pct(p->crit[k], p->count));
    fprintf(f, " %8.2f %10" PRIu64 " %10" PRIu64 " %8" PRIu64 " %10" PRIu64 " %6.2f",
            (double)p->slack_sum / (double)p->count, p->miss_cycles, p->crit_miss_cycles, p->misp_count,
            p->crit_misp_cycles, pct(p->crit_miss_cycles + p->crit_misp_cycles, t->cycles));
    if (sym) {
      ic_sym_loc loc;
      char where[256];
      int found = ic_sym_lookup(sym, p->pc, &loc);
      fprintf(f, "  %s", found ? ic_sym_format(&loc, found, p->pc, 1, where, sizeof where) : "-");
    }
    fputc('\n', f);
  }
  fprintf(f, "%4s  %-12s %-28s %10" PRIu64, "", "total", "", t->instructions);
  for (int k = 0; k < IC_NODE_COUNT; k++) fprintf(f, " %5.1f", pct(t->crit[k], t->instructions));
  fprintf(f, " %8.2f %10" PRIu64 " %10" PRIu64 " %8" PRIu64 " %10" PRIu64 " %6.2f\n",
          t->instructions ? (double)t->slack_sum / (double)t->instructions : 0.0, t->miss_cycles,
          t->crit_miss_cycles, t->misp_count, t->crit_misp_cycles,
          pct(t->crit_miss_cycles + t->crit_misp_cycles, t->cycles));
  fprintf(f,
          "\n%" PRIu64 " instructions, %" PRIu64 " cycles (IPC %.3f), %" PRIu64 " static instructions (%zu shown)\n"
          "critical miss cycles %" PRIu64 " (%.2f%% of cycles), critical misprediction cycles %" PRIu64
          " (%.2f%%)\n"
          "slack window %u instructions, %" PRIu64 " windows; stamp mismatches %" PRIu64 ", unreached edges %" PRIu64
          "\n%s%s%s",
          t->instructions, t->cycles, t->cycles ? (double)t->instructions / (double)t->cycles : 0.0, t->static_pcs,
          top, t->crit_miss_cycles, pct(t->crit_miss_cycles, t->cycles), t->crit_misp_cycles,
          pct(t->crit_misp_cycles, t->cycles), ic_slack_window(s), t->windows, t->stamp_mismatches,
          t->unreached_edges, o->ideal ? "graph idealized: " : "", ideal,
          o->ideal ? " (cycles are that graph's critical-path length; stamps not checked)\n" : "");
}

int cmd_critical(int argc, char **argv) {
  crit_opts co = {.top = 20, .window = IC_SLACK_DEFAULT_WINDOW, .fmt = FMT_TEXT};
  cli_run_opts ro;
  ic_err err;
  ic_status st = cli_run_parse(argc, argv, &ro, crit_option, &co, &err);
  if (st != IC_OK) return cli_fail_err(st, &err);
  if (ro.help) {
    crit_help();
    return 0;
  }
  cli_run run;
  memset(&run, 0, sizeof run);
  st = cli_run_setup(&ro, &run, &err);
  if (st != IC_OK) return cli_fail_err(st, &err);
  ic_slack *s = NULL;
  st = ic_slack_create(&s, (uint32_t)co.window, &err);
  if (st == IC_OK) st = ic_slack_set_ideal(s, co.ideal, &err);
  if (st == IC_OK) {
    ic_graph_sink sink = ic_slack_sink(s);
    ooo_stats stats;
    int tty = isatty(2);
    st = cli_run_graph(&run, sink, ic_cpus_allowed(), tty ? progress : NULL, NULL, &stats, &err);
    if (tty) fputs("\r\033[K", stderr);
    if (st == IC_OK) st = ic_slack_finish(s, &err);
    if (st == IC_OK && !co.ideal && ic_slack_get_totals(s)->cycles != stats.cycles)
      fprintf(stderr, "icost: warning: critical-path length %" PRIu64 " != simulated cycles %" PRIu64 "\n",
              ic_slack_get_totals(s)->cycles, stats.cycles);
  }
  ic_slack_pc *tab = NULL;
  size_t n = 0;
  if (st == IC_OK) st = ic_slack_table(s, IC_SLACK_BY_COST, &tab, &n, &err);
  if (st == IC_OK) {
    if (ic_slack_get_totals(s)->stamp_mismatches)
      fprintf(stderr, "icost: warning: %" PRIu64 " graph nodes disagree with the model's stamps\n",
              ic_slack_get_totals(s)->stamp_mismatches);
    ic_program_image img = cli_run_image(&run);
    if (cli_run_partial(&run)) printf("partial: %s\n", cli_run_partial(&run));
    ic_symbols *sym = cli_where_open(&co.where, &ro, &run, tab, n);
    print_critical(stdout, &co, s, tab, n, img, sym);
    ic_sym_close(sym);
    if (fflush(stdout) != 0) st = ic_fail(&err, IC_ERUN, "stdout: write error");
  }
  free(tab);
  ic_slack_destroy(s);
  int rc = cli_run_finish(&run, st == IC_OK ? 0 : cli_fail_err(st, &err));
  cli_run_free(&run);
  return rc;
}

/* ---- icost graph ------------------------------------------------------------ */

typedef struct graph_opts {
  uint64_t from, count;
  int have_from, have_count;
  ic_export_format fmt;
  const char *out;
  ic_catmask ideal, run_ideal;
} graph_opts;

static int graph_option(void *ctx, int argc, char **argv, int i, ic_err *err) {
  graph_opts *o = ctx;
  const char *v = i + 1 < argc ? argv[i + 1] : NULL;
  if (strcmp(argv[i], "--from") == 0) {
    o->have_from = 1;
    return parse_u64("--from", v, &o->from, err);
  }
  if (strcmp(argv[i], "--count") == 0) {
    o->have_count = 1;
    int n = parse_u64("--count", v, &o->count, err);
    if (n > 0 && (o->count == 0 || o->count > IC_EXPORT_MAX_COUNT)) {
      ic_fail(err, IC_EINPUT, "--count %s: must be between 1 and %u instructions", v, IC_EXPORT_MAX_COUNT);
      return -1;
    }
    return n;
  }
  if (strcmp(argv[i], "--format") == 0) {
    if (!v) return bad_value(ic_fail(err, IC_EINPUT, "--format: missing value"));
    return ic_export_parse_format(v, &o->fmt, err) == IC_OK ? 2 : -1;
  }
  if (strcmp(argv[i], "-o") == 0 || strcmp(argv[i], "--output") == 0) {
    if (!v) return bad_value(ic_fail(err, IC_EINPUT, "%s: missing file name", argv[i]));
    o->out = v;
    return 2;
  }
  if (strcmp(argv[i], "--ideal") == 0) {
    if (!v) return bad_value(ic_fail(err, IC_EINPUT, "--ideal: missing category list"));
    return parse_ideal("--ideal", v, &o->ideal, err) == IC_OK ? 2 : -1;
  }
  if (strcmp(argv[i], "--run-ideal") == 0) {
    if (!v) return bad_value(ic_fail(err, IC_EINPUT, "--run-ideal: missing category list"));
    return parse_ideal("--run-ideal", v, &o->run_ideal, err) == IC_OK ? 2 : -1;
  }
  return 0;
}

static void graph_help(void) {
  fputs("usage: icost graph --from N --count M [--format graphml|dot] [-o FILE] [--ideal LIST]\n"
        "                   [--run-ideal LIST] [common options] [-- PROGRAM ARGS]\n"
        "\n"
        "Runs the program on the timing model (stopping after instruction N+M-1 of the timed\n"
        "run) and writes the dependence graph of timed instructions N..N+M-1 (counted from 0\n"
        "after --skip/--warm), M at most 200000.\n"
        "\n"
        "  --from N        first instruction of the window (required)\n"
        "  --count M       instructions in the window (required)\n"
        "  --format F      graphml (default) or dot\n"
        "  -o FILE         output file, written completely or not at all (default: stdout)\n"
        "  --ideal LIST    comma list of categories to idealize in the exported edges:\n"
        "                  dl1 win bw bmisp dmiss shalu lgalu imiss (the run itself is the\n"
        "                  baseline machine; the mask is applied to the graph, DESIGN.md)\n"
        "  --run-ideal LIST  the run itself on the machine with these categories idealized\n"
        "                  (as multisim's run of that subset): its graph's stamps are that\n"
        "                  machine's times, to compare with the baseline graph under --ideal\n"
        "                  (same instructions, same sequence numbers) where they disagree\n"
        "  common options: --config F, --set KEY=VALUE, --skip N, --warm N, --max N, --seed S,\n"
        "                  --workload NAME, --guest-output\n"
        "\n"
        "Vertices: 5 per instruction, named D12 R12 E12 P12 C12 (node and sequence number) with\n"
        "attributes node, seq, t (model cycle stamp), pc, opclass, label; plus one vertex\n"
        "\"start\" (time 0) that is the source of every edge coming from before the window.\n"
        "Edges (paper Table II and model/graph_rec.h) have the attributes\n"
        "  kind      one of",
        stdout);
  for (int k = 0; k < IC_EDGE_KIND_COUNT; k++) printf(" %s", ic_edge_names[k]);
  fputs("\n"
        "  latency   cycles, under --ideal\n"
        "  parts     category:cycles of the baseline latency\n"
        "  dist      instructions back to the source\n"
        "  mem       1: a dependence through memory\n"
        "  external  1: the source is before the window (the edge leaves \"start\")\n"
        "Edges that --ideal removes are left out. An IW edge (issue slots) stands for the\n"
        "rule that at most n instructions issue per cycle, oldest first (n: the issue width,\n"
        "or the units of the instruction's pool), counted over the older instructions in flight;\n"
        "it holds under every --ideal but bw (which widens issue). In the window's times under\n"
        "--ideal it is kept only where that rule delayed its destination past its other\n"
        "in-edges, and then comes from an older instruction that issued in the full cycle just\n"
        "before (dist says which).\n"
        "The longest path from \"start\" to each vertex is its time in the window's graph (for\n"
        "--from 0 and no --ideal, exactly the model's stamp t).\n",
        stdout);
}

int cmd_graph(int argc, char **argv) {
  graph_opts go = {.fmt = IC_EXPORT_GRAPHML};
  cli_run_opts ro;
  ic_err err;
  ic_status st = cli_run_parse(argc, argv, &ro, graph_option, &go, &err);
  if (st != IC_OK) return cli_fail_err(st, &err);
  if (ro.help) {
    graph_help();
    return 0;
  }
  if (!go.have_from || !go.have_count) return cli_fail(2, "graph: --from N and --count M are required");
  if (go.from > UINT64_MAX - go.count) return cli_fail(2, "graph: --from %" PRIu64 " is too large", go.from);
  if (ro.max && ro.max < go.from + go.count)
    return cli_fail(2, "graph: --max %" PRIu64 " ends the run before instruction %" PRIu64, ro.max,
                    go.from + go.count - 1);
  cli_run run;
  memset(&run, 0, sizeof run);
  st = cli_run_setup(&ro, &run, &err);
  if (st != IC_OK) return cli_fail_err(st, &err);
  run.max = go.from + go.count;
  ic_export_recorder *rec = NULL;
  st = ic_export_recorder_create(&rec, go.from, go.count, &err);
  if (st == IC_OK) {
    ic_graph_sink sink = ic_export_recorder_sink(rec);
    ooo_stats stats;
    st = cli_run_execute(&run, go.run_ideal, &sink, NULL, NULL, &stats, &err);
  }
  if (st == IC_OK) {
    size_t n;
    const ic_graph_rec *recs = ic_export_recorder_records(rec, &n);
    if (n == 0) {
      st = ic_fail(&err, IC_EINPUT, "graph: the run ended after %" PRIu64 " instructions, before instruction %" PRIu64,
                   ic_export_recorder_seen(rec), go.from);
    } else {
      if (n < go.count)
        fprintf(stderr, "icost: note: the run ended after %" PRIu64 " instructions; exporting %zu of %" PRIu64 "\n",
                ic_export_recorder_seen(rec), n, go.count);
      st = ic_export_write_path(go.out, recs, n, go.ideal, go.fmt, &err);
    }
  }
  ic_export_recorder_destroy(rec);
  int rc = cli_run_finish(&run, st == IC_OK ? 0 : cli_fail_err(st, &err));
  cli_run_free(&run);
  return rc;
}
