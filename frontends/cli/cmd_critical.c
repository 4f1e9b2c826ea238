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
#include "ic_file.h"
#include "report.h"
#include "run.h"
#include "rv.h"
#include "champsim.h"
#include "trace.h"
#include "slack.h"
#include "where.h"

/* A comma list of category names as a mask; IC_EINPUT names the bad one. */
static ic_status parse_ideal(const char *opt, const char *list, ic_catmask *out, ic_err *err) {
  *out = 0;
  if (!*list) return ic_fail(err, IC_EINPUT, "%s: empty category list", opt);
  char name[32];
  const char *p = list;
  while (1) {
    const char *e = strchr(p, ',');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    const char *item = p;
    ic_list_item_trim(&item, &len);
    if (len == 0 || len >= sizeof name)
      return ic_fail(err, IC_EINPUT, "%s '%s': empty or overlong category name", opt, list);
    memcpy(name, item, len);
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
  ic_emit_format fmt;
  ic_catmask ideal;
  cli_where_opts where;
} crit_opts;

enum { O_TOP = CLI_OPT_OWN, O_WINDOW, O_FORMAT, O_IDEAL };

static const struct option crit_options[] = {
    {"top", required_argument, NULL, O_TOP},
    {"window", required_argument, NULL, O_WINDOW},
    {"format", required_argument, NULL, O_FORMAT},
    {"ideal", required_argument, NULL, O_IDEAL},
    CLI_WHERE_OPTIONS,
    {NULL, 0, NULL, 0},
};

static int crit_option(void *ctx, int id, const char *name, const char *v, ic_err *err) {
  crit_opts *o = ctx;
  (void)name;
  switch (id) {
  case O_TOP: return cli_count_option("--top", v, &o->top, err);
  case O_WINDOW: return cli_window_option(v, &o->window, err);
  case O_FORMAT: return cli_format_parse("critical", v, &o->fmt, err) == IC_OK ? 0 : -1;
  case O_IDEAL: return parse_ideal("--ideal", v, &o->ideal, err) == IC_OK ? 0 : -1;
  default: return cli_where_option(&o->where, id, v, err);
  }
}

static void crit_help(void) {
  printf(
      "usage: icost critical [common options] [--top N] [--window W] [--ideal LIST]\n"
      "                      [--format text|csv|yaml|json] [--symbols FILE | --no-symbols]\n"
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
      "                 dl1 win bw bmisp dmiss shalu lgalu imiss; the rules of model/graph_rec.h):\n"
      "                 what is critical once those events are gone; cycles is then the\n"
      "                 idealized critical-path length and the stamp check is off. The run\n"
      "                 itself is always the baseline machine.\n"
      "  --format F     text (aligned table), csv, yaml or json; same numbers; csv,\n"
      "                 yaml and json start with the run's provenance\n"
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
      "Columns (the table `instructions`), one row per static instruction, ordered by cost:\n"
      "  rank              its place in that order\n"
      "  pc                instruction address\n"
      "  insn              its disassembly\n"
      "  count             dynamic instances\n"
      "  crit_D .. crit_C  share of instances whose dispatch/ready/execute/complete/commit\n"
      "                    node has slack 0 (is on a critical path): text in %%, csv, yaml\n"
      "                    and json as fractions 0..1\n"
      "  mean_slack        mean slack of the execute node, cycles: how much later the\n"
      "                    instruction could start executing, or how much longer it could\n"
      "                    take, without delaying the window end\n"
      "  miss_cycles       data-cache/DTLB miss cycles (dmiss parts of its execute latency)\n"
      "  crit_miss_cycles  the part of those on a critical execute edge: the cycles a\n"
      "                    perfect prefetch of this load could remove at most\n"
      "  mispredicts       times it was a mispredicted branch (followed by a PD edge)\n"
      "  crit_misp_cycles  latency of its critical misprediction-recovery (PD) edges, cycles\n"
      "  cost_pct          (crit_miss_cycles + crit_misp_cycles) as %% of the run's cycles:\n"
      "                    the ranking key\n"
      "  where             its function+offset (ELF symbols) and source file:line (DWARF),\n"
      "                    as far as known (- where nothing is)\n"
      "  function, offset, file, line\n"
      "                    the same in fields of their own (csv, yaml, json only; empty or\n"
      "                    null where unknown)\n"
      "\n"
      "Totals (text: the total row and the lines below the table; csv, yaml and json:\n"
      "`totals`, with `critical` the fractions per node kind): instructions and cycles\n"
      "of the timed run (the critical-path length equals the cycles), the %% of all nodes of each kind that are critical, mean slack, the\n"
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

static void ideal_text(ic_catmask m, char *buf, size_t cap) {
  size_t k = 0;
  buf[0] = 0;
  for (int c = 0; c < IC_CAT_COUNT; c++)
    if (m & IC_CATBIT(c)) {
      int w = snprintf(buf + k, cap - k, "%s%s", k ? "," : "", ic_category_names[c]);
      if (w > 0 && (size_t)w < cap - k) k += (size_t)w;
    }
}

static void ideal_list(ic_emit *em, ic_catmask m) {
  ic_emit_list_begin(em, "ideal");
  for (int c = 0; c < IC_CAT_COUNT; c++)
    if (m & IC_CATBIT(c)) ic_emit_str(em, NULL, ic_category_names[c]);
  ic_emit_list_end(em);
}

/* The share of `count` instances whose node is critical: a fraction in
   csv, yaml and json, a percent with one decimal in text. */
static void crit_share(ic_emit *em, uint64_t crit, uint64_t count) {
  char shown[32];
  ic_emit_shown(em, NULL, count ? (double)crit / (double)count : 0.0,
                ic_emit_fmt_fixed(shown, sizeof shown, pct(crit, count), 1));
}

/* The report: window and ideal, the table `instructions` (a row per static
 * instruction, the top N by cost; text adds a total row), then `totals`
 * (text: a summary in prose). */
static void print_critical(ic_emit *em, const crit_opts *o, const ic_slack *s, const ic_slack_pc *tab,
                           size_t n, ic_program_image img, const ic_symbols *sym) {
  const ic_slack_totals *t = ic_slack_get_totals(s);
  size_t top = o->top == 0 || o->top > n ? n : (size_t)o->top;
  char insn[96], pcs[32];
  ic_emit_only(em, IC_EMIT_MACHINE);
  ic_emit_u64(em, "window", ic_slack_window(s));
  ideal_list(em, o->ideal);
  ic_emit_only(em, IC_EMIT_ALL);
  const ic_emit_col cols[] = {
      {"rank", -1, 0},       {"pc", -1, 0},          {"insn", -1, 0},
      {"count", -1, 0},      {"crit_D", -1, 0},      {"crit_R", -1, 0},
      {"crit_E", -1, 0},     {"crit_P", -1, 0},      {"crit_C", -1, 0},
      {"mean_slack", 2, 0},  {"miss_cycles", -1, 0}, {"crit_miss_cycles", -1, 0},
      {"mispredicts", -1, 0}, {"crit_misp_cycles", -1, 0}, {"cost_pct", 2, 0},
      {"where", -1, 0},      {"function", -1, IC_EMIT_COL_TEXT_HIDE}, {"offset", -1, IC_EMIT_COL_TEXT_HIDE},
      {"file", -1, IC_EMIT_COL_TEXT_HIDE}, {"line", -1, IC_EMIT_COL_TEXT_HIDE},
  };
  _Static_assert(IC_NODE_COUNT == 5, "a crit_ column per node kind");
  ic_emit_table_begin(em, "instructions", cols, (int)(sizeof cols / sizeof cols[0]), 0);
  for (size_t i = 0; i < top; i++) {
    const ic_slack_pc *p = &tab[i];
    disasm(img, p->pc, insn, sizeof insn);
    snprintf(pcs, sizeof pcs, "0x%" PRIx64, p->pc);
    ic_emit_row_begin(em);
    ic_emit_u64(em, NULL, i + 1);
    ic_emit_str(em, NULL, pcs);
    ic_emit_str(em, NULL, insn);
    ic_emit_u64(em, NULL, p->count);
    for (int k = 0; k < IC_NODE_COUNT; k++) crit_share(em, p->crit[k], p->count);
    ic_emit_double(em, NULL, (double)p->slack_sum / (double)p->count);
    ic_emit_u64(em, NULL, p->miss_cycles);
    ic_emit_u64(em, NULL, p->crit_miss_cycles);
    ic_emit_u64(em, NULL, p->misp_count);
    ic_emit_u64(em, NULL, p->crit_misp_cycles);
    ic_emit_double(em, NULL, pct(p->crit_miss_cycles + p->crit_misp_cycles, t->cycles));
    cli_where_emit(em, sym, p->pc, "-");
    ic_emit_row_end(em);
  }
  const double mean_slack = t->instructions ? (double)t->slack_sum / (double)t->instructions : 0.0;
  const double cost = pct(t->crit_miss_cycles + t->crit_misp_cycles, t->cycles);
  ic_emit_only(em, IC_EMIT_ONLY(IC_EMIT_TEXT));
  ic_emit_row_begin(em);
  ic_emit_skip(em, NULL);
  ic_emit_str(em, NULL, "total");
  ic_emit_skip(em, NULL);
  ic_emit_u64(em, NULL, t->instructions);
  for (int k = 0; k < IC_NODE_COUNT; k++) crit_share(em, t->crit[k], t->instructions);
  ic_emit_double(em, NULL, mean_slack);
  ic_emit_u64(em, NULL, t->miss_cycles);
  ic_emit_u64(em, NULL, t->crit_miss_cycles);
  ic_emit_u64(em, NULL, t->misp_count);
  ic_emit_u64(em, NULL, t->crit_misp_cycles);
  ic_emit_double(em, NULL, cost);
  for (int k = 0; k < 5; k++) ic_emit_skip(em, NULL); /* where, function, offset, file, line */
  ic_emit_row_end(em);
  ic_emit_only(em, IC_EMIT_ALL);
  ic_emit_table_end(em);

  ic_emit_only(em, IC_EMIT_MACHINE);
  ic_emit_map_begin(em, "totals");
  ic_emit_u64(em, "instructions", t->instructions);
  ic_emit_u64(em, "cycles", t->cycles);
  ic_emit_map_begin(em, "critical");
  for (int k = 0; k < IC_NODE_COUNT; k++) {
    char key[2] = {ic_node_names[k], 0};
    ic_emit_double(em, key, t->instructions ? (double)t->crit[k] / (double)t->instructions : 0.0);
  }
  ic_emit_map_end(em);
  ic_emit_double(em, "mean_slack", mean_slack);
  ic_emit_u64(em, "miss_cycles", t->miss_cycles);
  ic_emit_u64(em, "crit_miss_cycles", t->crit_miss_cycles);
  ic_emit_u64(em, "mispredicts", t->misp_count);
  ic_emit_u64(em, "crit_misp_cycles", t->crit_misp_cycles);
  ic_emit_double(em, "cost_pct", cost);
  ic_emit_u64(em, "windows", t->windows);
  ic_emit_u64(em, "stamp_mismatches", t->stamp_mismatches);
  ic_emit_u64(em, "unreached_edges", t->unreached_edges);
  ic_emit_u64(em, "static_pcs", t->static_pcs);
  ic_emit_map_end(em);
  ic_emit_only(em, IC_EMIT_ALL);

  char line[512], a[32], b[32], c[32];
  ic_emit_text_line(em, "");
  snprintf(line, sizeof line, "%" PRIu64 " instructions, %" PRIu64 " cycles (IPC %s), %" PRIu64
           " static instructions (%zu shown)", t->instructions, t->cycles,
           ic_emit_fmt_fixed(a, sizeof a, t->cycles ? (double)t->instructions / (double)t->cycles : 0.0, 3),
           t->static_pcs, top);
  ic_emit_text_line(em, line);
  snprintf(line, sizeof line, "critical miss cycles %" PRIu64 " (%s%% of cycles), critical misprediction "
           "cycles %" PRIu64 " (%s%%)", t->crit_miss_cycles,
           ic_emit_fmt_fixed(b, sizeof b, pct(t->crit_miss_cycles, t->cycles), 2), t->crit_misp_cycles,
           ic_emit_fmt_fixed(c, sizeof c, pct(t->crit_misp_cycles, t->cycles), 2));
  ic_emit_text_line(em, line);
  snprintf(line, sizeof line, "slack window %u instructions, %" PRIu64 " windows; stamp mismatches %" PRIu64
           ", unreached edges %" PRIu64, ic_slack_window(s), t->windows, t->stamp_mismatches,
           t->unreached_edges);
  ic_emit_text_line(em, line);
  if (o->ideal) {
    char ideal[128];
    ideal_text(o->ideal, ideal, sizeof ideal);
    snprintf(line, sizeof line, "graph idealized: %s (cycles are that graph's critical-path length; "
             "stamps not checked)", ideal);
    ic_emit_text_line(em, line);
  }
}

int cmd_critical(int argc, char **argv) {
  crit_opts co = {.top = 20, .window = IC_SLACK_DEFAULT_WINDOW, .fmt = IC_EMIT_TEXT};
  cli_run_opts ro;
  ic_err err;
  ic_status st = cli_run_parse(argc, argv, &ro, crit_options, crit_option, &co, &err);
  if (st != IC_OK) return cli_fail_err(st, &err);
  if (ro.help) {
    crit_help();
    return 0;
  }
  cli_run run;
  memset(&run, 0, sizeof run);
  ro.once = 1;
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
    ic_emit *em;
    if ((st = cli_report_open(&em, stdout, co.fmt, "critical", &ro, &run, &err)) == IC_OK) {
      cli_report_partial(em, &run);
      ic_symbols *sym = cli_where_open(&co.where, &ro, &run, tab, n);
      print_critical(em, &co, s, tab, n, img, sym);
      ic_sym_close(sym);
      st = ic_emit_close(em, &err);
    }
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

enum { G_FROM = CLI_OPT_OWN, G_COUNT, G_FORMAT, G_IDEAL, G_RUN_IDEAL };

static const struct option graph_options[] = {
    {"from", required_argument, NULL, G_FROM},
    {"count", required_argument, NULL, G_COUNT},
    {"format", required_argument, NULL, G_FORMAT},
    {"output", required_argument, NULL, 'o'},
    {"ideal", required_argument, NULL, G_IDEAL},
    {"run-ideal", required_argument, NULL, G_RUN_IDEAL},
    {NULL, 0, NULL, 0},
};

static int graph_option(void *ctx, int id, const char *name, const char *v, ic_err *err) {
  graph_opts *o = ctx;
  (void)name;
  switch (id) {
  case G_FROM:
    o->have_from = 1;
    return cli_count_option("--from", v, &o->from, err);
  case G_COUNT:
    o->have_count = 1;
    if (cli_count_option("--count", v, &o->count, err) != 0) return -1;
    if (o->count == 0 || o->count > IC_EXPORT_MAX_COUNT) {
      ic_fail(err, IC_EINPUT, "--count %s: must be between 1 and %u instructions", v, IC_EXPORT_MAX_COUNT);
      return -1;
    }
    return 0;
  case G_FORMAT: return ic_export_parse_format(v, &o->fmt, err) == IC_OK ? 0 : -1;
  case 'o': o->out = v; return 0;
  case G_IDEAL: return parse_ideal("--ideal", v, &o->ideal, err) == IC_OK ? 0 : -1;
  default: return parse_ideal("--run-ideal", v, &o->run_ideal, err) == IC_OK ? 0 : -1;
  }
}

static void graph_help(void) {
  fputs("usage: icost graph --from N --count M [--format graphml|dot|json|yaml|csv] [-o FILE]\n"
        "                   [--ideal LIST]\n"
        "                   [--run-ideal LIST] [common options] [-- PROGRAM ARGS]\n"
        "\n"
        "Runs the program on the timing model (stopping after instruction N+M-1 of the timed\n"
        "run) and writes the dependence graph of timed instructions N..N+M-1 (counted from 0\n"
        "after --skip/--warm), M at most 200000.\n"
        "\n"
        "  --from N        first instruction of the window (required)\n"
        "  --count M       instructions in the window (required)\n"
        "  --format F      graphml (default), dot, json, yaml or csv: json, yaml and csv give\n"
        "                  the run's provenance, `graph` (the attributes below and\n"
        "                  critical_path), a table `nodes` (id, name, node, seq, t: the\n"
        "                  model's stamp, time: the window's longest path from \"start\", pc,\n"
        "                  opclass, critical) and a table `edges` (source and target ids,\n"
        "                  kind, latency, dist, parts, mem, external, critical)\n"
        "  -o, --output FILE  output file, written completely or not at all (default: stdout)\n"
        "  --ideal LIST    comma list of categories to idealize in the exported edges:\n"
        "                  dl1 win bw bmisp dmiss shalu lgalu imiss (the run itself is the\n"
        "                  baseline machine; the mask is applied to the graph by the rules\n"
        "                  of model/graph_rec.h and engine/graph.h)\n"
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
        "Edges that --ideal removes are left out. An IW edge (issue slots) stands for the slot\n"
        "rule that at most n instructions issue per cycle, oldest first (n: the issue width,\n"
        "or the units of the instruction's pool), counted over the older instructions in flight;\n"
        "it holds under every --ideal but bw (which widens issue). In the window's times under\n"
        "--ideal it is kept only where that rule delayed its destination past its other\n"
        "in-edges, and then comes from an older instruction that issued in the full cycle before\n"
        "the rule's last move of it (dist says which). The MSHR and IQ rules appear alike, as an\n"
        "MSHR edge from the miss whose completion gave that rule's last move and an IQ edge from\n"
        "the instruction whose issue freed an IQ entry, only where they delayed their destination.\n"
        "The longest path from \"start\" to each vertex is its time in the window's graph (for\n"
        "--from 0 and no --ideal, exactly the model's stamp t).\n"
        "Graph attributes (GraphML graph data; DOT graph attributes):\n"
        "  first_seq       sequence number of the window's first instruction (--from)\n"
        "  instructions    instructions in the window (--count, fewer if the run ended)\n"
        "  ideal           the --ideal categories, comma separated\n"
        "  external_edges  edges whose source is before the window (GraphML: they leave\n"
        "                  \"start\"; DOT: stubs, below)\n"
        "  dropped_edges   edges of the window left out: removed by the --ideal mask, and\n"
        "                  conditional IW edges (hand-built graphs) whose condition failed\n"
        "                  in the window's times (the rules are not counted)\n"
        "\n"
        "DOT (for `dot -Tsvg`): one rank per instruction, a box \"SEQ PC OPCLASS\" and its\n"
        "five nodes; edge labels are latencies. One critical path of the window (the\n"
        "longest path to the last C, each edge's source time plus latency its\n"
        "destination's time) is drawn in red, its nodes and edges marked critical=1,\n"
        "its length in the graph attribute critical_path. An edge from before the\n"
        "window, or one off the critical path spanning more than 4 instructions (a CD\n"
        "edge spans the ROB), leaves a gray stub in its destination's rank named after\n"
        "its source (attribute stub_of), so the ranks stay in program order and `dot`\n"
        "lays out hundreds of instructions in seconds.\n",
        stdout);
}

/* json, yaml or csv: the window through the report emitter, to -o FILE
 * (written completely or not at all) or stdout. */
static ic_status emit_graph(const graph_opts *go, const cli_run_opts *ro, const cli_run *run,
                            const ic_graph_rec *recs, size_t n, ic_err *err) {
  const ic_emit_format ef = go->fmt == IC_EXPORT_JSON ? IC_EMIT_JSON
                            : go->fmt == IC_EXPORT_YAML ? IC_EMIT_YAML
                                                        : IC_EMIT_CSV;
  const int to_stdout = !go->out || strcmp(go->out, "-") == 0;
  ic_outfile *o = NULL;
  char *text = NULL;
  size_t len = 0;
  FILE *f;
  ic_status st;
  if (to_stdout) {
    if (!(f = open_memstream(&text, &len))) return ic_fail(err, IC_ERUN, "graph export: out of memory");
  } else {
    if ((st = ic_outfile_open(&o, go->out, err)) != IC_OK) return st;
    f = ic_outfile_stream(o);
  }
  ic_emit *em;
  st = cli_report_open(&em, f, ef, "graph", ro, run, err);
  if (st == IC_OK) {
    st = ic_export_emit(em, recs, n, go->ideal, err);
    if (st == IC_OK)
      st = ic_emit_close(em, err);
    else
      ic_emit_abandon(em);
  }
  if (to_stdout) {
    if (fclose(f) != 0 && st == IC_OK) st = ic_fail(err, IC_ERUN, "graph export: out of memory");
    if (st == IC_OK && (fwrite(text, 1, len, stdout) != len || fflush(stdout) != 0))
      st = ic_fail(err, IC_ERUN, "graph export: stdout: write error");
    free(text);
  } else if (st == IC_OK) {
    st = ic_outfile_commit(o, err);
  } else {
    ic_outfile_abort(o);
  }
  return st;
}

int cmd_graph(int argc, char **argv) {
  graph_opts go = {.fmt = IC_EXPORT_GRAPHML};
  cli_run_opts ro;
  ic_err err;
  ic_status st = cli_run_parse(argc, argv, &ro, graph_options, graph_option, &go, &err);
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
  ro.once = 1;
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
      st = go.fmt == IC_EXPORT_GRAPHML || go.fmt == IC_EXPORT_DOT
               ? ic_export_write_path(go.out, recs, n, go.ideal, go.fmt, &err)
               : emit_graph(&go, &ro, &run, recs, n, &err);
    }
  }
  ic_export_recorder_destroy(rec);
  int rc = cli_run_finish(&run, st == IC_OK ? 0 : cli_fail_err(st, &err));
  cli_run_free(&run);
  return rc;
}
