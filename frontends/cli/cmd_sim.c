/* cmd_sim.c: `icost sim`, run a program on the timing model and print its
 * statistics. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "report.h"
#include "run.h"

static void sim_usage(FILE *f) {
  fputs("usage: icost sim [options] [-- PROGRAM ARGS]\n"
        "\n"
        "Runs PROGRAM (default: the default workload of the manifest) on the cycle-level\n"
        "out-of-order timing model and prints its statistics.\n"
        "\n"
        "options:\n"
        "  --config F          machine file (default: configs/baseline.yaml, built in)\n"
        "  --set KEY=VALUE     override one machine parameter (repeatable), e.g. core.rob=128\n"
        "  --ideal LIST        idealize these categories (comma list, see below)\n"
        "  --skip N            fast-forward N instructions first; the last min(N, --warm)\n"
        "                      of them warm caches, TLBs and predictors (N may end in k/M/G)\n"
        "  --warm N            warming length (default 1M)\n"
        "  --max N             time at most N instructions (default: to the end)\n"
        "  --seed S            guest seed (AT_RANDOM, getrandom, /dev/urandom)\n"
        "  --guest-memory N    bytes the guest may map (K/M/G: KiB/MiB/GiB; default 4G):\n"
        "                      past it, mmap and brk fail with ENOMEM\n"
        "  --guest-root DIR    the guest's path lookups stay inside DIR\n"
        "  --workload NAME     a workload of the manifest instead of the default one\n"
        "  --guest-output      let the program write to our stdout/stderr\n"
        "  --format F          text (default), csv, yaml or json: the same numbers;\n"
        "                      csv, yaml and json start with the run's provenance\n"
        "  --print-config      print the resolved machine as YAML and exit\n"
        "  --graph MODE        graph hook: none (default); check: record the dependence\n"
        "                      graph and verify that replaying it reproduces every node's\n"
        "                      cycle and the cycle count (prints graph_records); discard:\n"
        "                      record and drop it (to measure the recording overhead)\n"
        "\n"
        "categories for --ideal:\n",
        f);
  for (int c = 0; c < IC_CAT_COUNT; c++)
    fprintf(f, "  %-8s %s\n", ic_category_names[c], ic_category_help[c]);
  fputs("\nnumbers (all counts are of the timed part only):\n"
        "  ipc                   instructions / cycles\n",
        f);
  for (int k = 0; k < ooo_stats_count; k++)
    fprintf(f, "  %-21s %s\n", ooo_stats_names[k], ooo_stats_help[k]);
  fputs("\nCycle 0 is the first cycle of the timed part, which starts with an empty\n"
        "pipeline; stall_* count cycles in which that stage did nothing for that reason.\n"
        "A guest killed by a signal (a fault, abort) after some timed instructions gets\n"
        "the statistics of those, under a PARTIAL line, and icost exits 128 + the\n"
        "signal (139 for a segfault). Unsupported system calls return -ENOSYS and are\n"
        "listed once on stderr.\n\n" GUEST_ENV_HELP,
        f);
}

typedef struct sim_opts {
  const char *format;
  const char *ideal;
  const char *graph;
  int print_config;
} sim_opts;

enum { O_FORMAT = CLI_OPT_OWN, O_IDEAL, O_GRAPH, O_PRINT_CONFIG };

static const struct option sim_options[] = {
    {"format", required_argument, NULL, O_FORMAT},
    {"ideal", required_argument, NULL, O_IDEAL},
    {"graph", required_argument, NULL, O_GRAPH},
    {"print-config", no_argument, NULL, O_PRINT_CONFIG},
    {NULL, 0, NULL, 0},
};

static int sim_option(void *ctx, int id, const char *name, const char *v, ic_err *err) {
  sim_opts *s = ctx;
  (void)name, (void)err;
  switch (id) {
  case O_FORMAT: s->format = v; break;
  case O_IDEAL: s->ideal = v; break;
  case O_GRAPH: s->graph = v; break;
  case O_PRINT_CONFIG: s->print_config = 1; break;
  }
  return 0;
}

/* Parses "dl1,win" (spaces around items allowed) into a mask. */
static ic_status parse_ideal(const char *list, ic_catmask *mask, ic_err *err) {
  *mask = 0;
  if (!list || !*list) return IC_OK;
  for (const char *p = list;;) {
    const char *e = strchr(p, ',');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    const char *item = p;
    ic_list_item_trim(&item, &len);
    char name[32];
    snprintf(name, sizeof name, "%.*s", (int)(len < sizeof name ? len : sizeof name - 1), item);
    int c = ic_category_lookup(name);
    if (c < 0) return ic_fail(err, IC_EINPUT, "sim: --ideal: unknown category '%s'", name);
    *mask |= IC_CATBIT(c);
    if (!e) break;
    p = e + 1;
  }
  return IC_OK;
}

static void progress(void *ctx, uint64_t n) {
  (void)ctx;
  fprintf(stderr, "\rsim: %llu instructions", (unsigned long long)n);
  fflush(stderr);
}

static ic_status discard(void *ctx, const ic_graph_rec *r, size_t n, ic_err *err) {
  (void)r, (void)err;
  *(uint64_t *)ctx += n;
  return IC_OK;
}

static int is_event(const char *name) {
  return strncmp(name, "stall_", 6) != 0 && strncmp(name, "graph_", 6) != 0 && strcmp(name, "cycles") != 0 &&
         strcmp(name, "instructions") != 0 && strcmp(name, "skipped_cycles") != 0;
}

/* The report: the run's values, then the tables `events` and `stalls`
   (stat -> count; yaml and json: mappings). */
static void print_stats(ic_emit *em, const cli_run *r, ic_catmask ideal, const ooo_stats *s) {
  const uint64_t *v = (const uint64_t *)s;
  double ipc = s->cycles ? (double)s->instructions / (double)s->cycles : 0.0;
  cli_report_partial(em, r);
  ic_emit_str(em, "workload", r->workload.name);
  ic_emit_str(em, "config", ooo_config_name(r->config));
  ic_emit_list_begin(em, "ideal");
  for (int c = 0; c < IC_CAT_COUNT; c++)
    if (ideal & IC_CATBIT(c)) ic_emit_str(em, NULL, ic_category_names[c]);
  ic_emit_list_end(em);
  ic_emit_u64(em, "cycles", s->cycles);
  ic_emit_u64(em, "instructions", s->instructions);
  ic_emit_fixed(em, "ipc", ipc, 4);
  const ic_emit_col cols[] = {{"stat", -1, 0}, {"value", -1, 0}};
  for (int stalls = 0; stalls < 2; stalls++) {
    ic_emit_table_begin(em, stalls ? "stalls" : "events", cols, 2, IC_EMIT_TABLE_MAP);
    for (int k = 0; k < ooo_stats_count; k++) {
      const char *name = ooo_stats_names[k];
      if (!strcmp(name, "cycles") || !strcmp(name, "instructions") || is_event(name) == stalls)
        continue;
      ic_emit_row_begin(em);
      ic_emit_str(em, NULL, name);
      ic_emit_u64(em, NULL, v[k]);
      ic_emit_row_end(em);
    }
    ic_emit_table_end(em);
  }
}

int cmd_sim(int argc, char **argv) {
  cli_run_opts o;
  sim_opts so = {"text", NULL, "none", 0};
  ic_err err;
  ic_status st = cli_run_parse(argc, argv, &o, sim_options, sim_option, &so, &err);
  if (st) return cli_fail_err(st, &err);
  if (o.help) {
    sim_usage(stdout);
    return 0;
  }
  ic_emit_format fmt;
  if ((st = cli_format_parse("sim", so.format, &fmt, &err))) return cli_fail_err(st, &err);
  if (strcmp(so.graph, "none") && strcmp(so.graph, "check") && strcmp(so.graph, "discard"))
    return cli_fail(2, "sim: --graph must be none, check or discard, not '%s'", so.graph);
  ic_catmask ideal;
  if ((st = parse_ideal(so.ideal, &ideal, &err))) return cli_fail_err(st, &err);
  if (so.print_config) {
    ooo_config *c;
    if ((st = ooo_config_load(&c, o.config_path, &err))) return cli_fail_err(st, &err);
    for (int k = 0; k < o.nsets; k++)
      if ((st = ooo_config_set(c, o.sets[k], &err))) {
        ooo_config_destroy(c);
        return cli_fail_err(st, &err);
      }
    ooo_config_write(c, stdout);
    ooo_config_destroy(c);
    return 0;
  }
  cli_run r;
  o.once = 1;
  if ((st = cli_run_setup(&o, &r, &err))) return cli_fail_err(st, &err);
  ooo_stats s;
  int tty = isatty(2);
  uint64_t discarded = 0;
  ooo_graph_check *chk = NULL;
  ic_graph_sink sink = {.ctx = &discarded, .consume = discard};
  if (strcmp(so.graph, "check") == 0) {
    if (!(chk = ooo_graph_check_create())) {
      cli_run_free(&r);
      return cli_fail(1, "sim: out of memory");
    }
    sink = ooo_graph_check_sink(chk);
  }
  int hook = strcmp(so.graph, "none") != 0;
  st = cli_run_execute(&r, ideal, hook ? &sink : NULL, tty ? progress : NULL, NULL, &s, &err);
  if (tty) fputs("\r\033[K", stderr);
  if (st == IC_OK && chk && ooo_graph_check_last_commit(chk) != s.cycles)
    st = ic_fail(&err, IC_ERUN, "graph check: last commit %llu != cycles %llu",
                 (unsigned long long)ooo_graph_check_last_commit(chk), (unsigned long long)s.cycles);
  if (st) {
    ooo_graph_check_destroy(chk);
    cli_run_free(&r);
    return cli_fail_err(st, &err);
  }
  ic_emit *em;
  int rc = 0;
  if ((st = cli_report_open(&em, stdout, fmt, "sim", &o, &r, &err)) == IC_OK) {
    print_stats(em, &r, ideal, &s);
    if (chk) {
      ic_emit_u64(em, "graph_records", ooo_graph_check_count(chk));
      ic_emit_text_line(em, "graph records: replayed, every stamp and the cycle count reproduced");
    }
    st = ic_emit_close(em, &err);
  }
  ooo_graph_check_destroy(chk);
  if (st) rc = cli_fail_err(st, &err);
  rc = cli_run_finish(&r, rc);
  cli_run_free(&r);
  return rc;
}
