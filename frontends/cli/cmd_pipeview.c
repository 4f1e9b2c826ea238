/* cmd_pipeview.c: `icost pipeview`, a window of the timed run as a Kanata
 * log (version 0004), the text format the Konata pipeline viewer opens.
 *
 * Each instruction of the window is one Kanata instruction whose stages in
 * lane 0 are the model's stamps: F from its fetch to its dispatch, then one
 * stage per graph node, named by its letter (D dispatched, R operands ready,
 * E executing, P complete), and its retirement at its commit C. Lane 1
 * repeats a stage where the node that starts it is on the window's critical
 * path (engine/export.h, ic_export_critical_stamps), and the label says
 * which nodes are. A Kanata file only moves forward in time, so the events
 * are sorted by cycle before they are written. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "champsim.h"
#include "cli.h"
#include "export.h"
#include "ic_file.h"
#include "run.h"
#include "rv.h"
#include "trace.h"

typedef struct pv_opts {
  uint64_t from, count;
  int have_from, have_count;
  const char *out;
} pv_opts;

enum { O_FROM = CLI_OPT_OWN, O_COUNT };

static const struct option pv_options[] = {
    {"from", required_argument, NULL, O_FROM},
    {"count", required_argument, NULL, O_COUNT},
    {"output", required_argument, NULL, 'o'},
    {NULL, 0, NULL, 0},
};

static int pv_option(void *ctx, int id, const char *name, const char *v, ic_err *err) {
  pv_opts *o = ctx;
  if (id == 'o') {
    o->out = v;
    return 0;
  }
  const int from = id == O_FROM;
  if (cli_count_option(name, v, from ? &o->from : &o->count, err) != 0) return -1;
  if (!from && (o->count == 0 || o->count > IC_EXPORT_MAX_COUNT)) {
    ic_fail(err, IC_EINPUT, "--count %s: must be between 1 and %u instructions", v, IC_EXPORT_MAX_COUNT);
    return -1;
  }
  *(from ? &o->have_from : &o->have_count) = 1;
  return 0;
}

static void pv_help(void) {
  fputs("usage: icost pipeview --from N --count M -o FILE [common options] [-- PROGRAM ARGS]\n"
        "\n"
        "Runs the program on the timing model (stopping after instruction N+M-1 of the timed\n"
        "run) and writes timed instructions N..N+M-1 (counted from 0 after --skip/--warm),\n"
        "M at most 200000, as a Kanata log (version 0004), which the Konata pipeline viewer\n"
        "opens (as gem5's and XiangShan's logs).\n"
        "\n"
        "  --from N        first instruction of the window (required)\n"
        "  --count M       instructions in the window (required)\n"
        "  -o, --output FILE  output file, written completely or not at all (\"-\": stdout)\n"
        "  common options: --config F, --set KEY=VALUE, --skip N, --warm N, --max N, --seed S,\n"
        "                  --workload NAME, --guest-output, --trace FILE\n"
        "\n"
        "Each instruction: its id in the file counts from 0, its id in the simulator is its\n"
        "sequence number, thread 0. The left-pane label is \"PC: DISASSEMBLY\", followed by\n"
        "\"  [critical D R E P C]\" with the nodes of it on the critical path; the mouse-over\n"
        "label gives the five stamps. Lane 0 stages, from the model's cycle stamps:\n"
        "  F   fetched, in the front end (fetch cycle to dispatch D)\n"
        "  D   dispatched into the window, operands not ready (D to R)\n"
        "  R   operands ready, waiting to issue (R to E)\n"
        "  E   executing (E to P, the execution latency with any miss)\n"
        "  P   complete, waiting to commit in order (P to C)\n"
        "and the retirement (Kanata R, retire ids counting from 0 in commit order) at C.\n"
        "A stage has zero length where two stamps are equal.\n"
        "Lane 1: the same stage again where the node that starts it (D, R, E, P) is on the\n"
        "critical path: the path of tight edges (source stamp plus latency equals the\n"
        "destination's stamp, graph --help) back from the window's last commit; it stops\n"
        "where it leaves the window.\n",
        stdout);
}

/* The disassembly of the instruction at pc ("?" where the image has none). */
static void pv_disasm(ic_program_image img, uint64_t pc, char *buf, size_t cap) {
  ic_static_inst si;
  memset(&si, 0, sizeof si);
  if (!img.lookup || !img.lookup(img.ctx, pc, &si) || !si.valid) {
    snprintf(buf, cap, "?");
    return;
  }
  if (ic_trace_image_disasm(img, pc, buf, cap) || ic_champsim_image_disasm(img, pc, buf, cap)) return;
  rv_disasm(si.raw, pc, buf, cap);
}

/* One transition of one instruction: at cycle t it enters stage k (0 F,
 * 1..4 D R E P, 5 retired). */
typedef struct pv_event {
  uint64_t t;
  uint32_t id;
  uint8_t k;
} pv_event;

static int pv_cmp(const void *a, const void *b) {
  const pv_event *x = a, *y = b;
  if (x->t != y->t) return x->t < y->t ? -1 : 1;
  if (x->id != y->id) return x->id < y->id ? -1 : 1;
  return (int)x->k - (int)y->k;
}

static const char *const pv_stage[5] = {"F", "D", "R", "E", "P"};

/* Writes the log of records recs[0..n) with fetch cycles fetch[] and
 * critical nodes crit[5 * i + node]. */
static void pv_write(FILE *f, const ic_graph_rec *recs, size_t n, const uint64_t *fetch, const uint8_t *crit,
                     ic_program_image img, pv_event *ev) {
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    ev[m++] = (pv_event){fetch[i], (uint32_t)i, 0};
    for (int k = 0; k < IC_NODE_COUNT; k++) ev[m++] = (pv_event){recs[i].t[k], (uint32_t)i, (uint8_t)(k + 1)};
  }
  qsort(ev, m, sizeof *ev, pv_cmp);
  fprintf(f, "Kanata\t0004\nC=\t%" PRIu64 "\n", m ? ev[0].t : 0);
  uint64_t now = m ? ev[0].t : 0, retired = 0;
  char dis[128];
  for (size_t j = 0; j < m; j++) {
    const pv_event *e = &ev[j];
    const ic_graph_rec *r = &recs[e->id];
    if (e->t > now) {
      fprintf(f, "C\t%" PRIu64 "\n", e->t - now);
      now = e->t;
    }
    if (e->k == 0) {
      fprintf(f, "I\t%u\t%" PRIu64 "\t0\n", e->id, r->seq);
      pv_disasm(img, r->pc, dis, sizeof dis);
      fprintf(f, "L\t%u\t0\t%" PRIx64 ": %s", e->id, r->pc, dis);
      int any = 0;
      for (int k = 0; k < IC_NODE_COUNT; k++)
        if (crit[IC_NODE_COUNT * e->id + k]) {
          fprintf(f, "%s%c", any ? " " : "  [critical ", ic_node_names[k]);
          any = 1;
        }
      fprintf(f, "%s\n", any ? "]" : "");
      fprintf(f, "L\t%u\t1\tseq %" PRIu64 " fetch %" PRIu64 " D %" PRIu64 " R %" PRIu64 " E %" PRIu64 " P %" PRIu64
                 " C %" PRIu64 "\n",
              e->id, r->seq, fetch[e->id], r->t[IC_NODE_D], r->t[IC_NODE_R], r->t[IC_NODE_E], r->t[IC_NODE_P],
              r->t[IC_NODE_C]);
    } else {
      /* leave the stage before: lane 1 first where it was marked */
      const int prev = e->k - 1;
      if (prev >= 1 && crit[IC_NODE_COUNT * e->id + (unsigned)(prev - 1)])
        fprintf(f, "E\t%u\t1\t%s\n", e->id, pv_stage[prev]);
      fprintf(f, "E\t%u\t0\t%s\n", e->id, pv_stage[prev]);
    }
    if (e->k < 5) {
      fprintf(f, "S\t%u\t0\t%s\n", e->id, pv_stage[e->k]);
      if (e->k >= 1 && crit[IC_NODE_COUNT * e->id + (unsigned)(e->k - 1)])
        fprintf(f, "S\t%u\t1\t%s\n", e->id, pv_stage[e->k]);
    } else {
      fprintf(f, "R\t%u\t%" PRIu64 "\t0\n", e->id, retired++);
    }
  }
}

/* The critical nodes of the window (5 per record), in the model's stamps. */
static ic_status pv_critical(const ic_graph_rec *recs, size_t n, uint8_t *crit, ic_err *err) {
  igraph_t g;
  ic_status st = ic_export_build(&g, recs, n, 0, err);
  if (st != IC_OK) return st;
  uint8_t *cv = malloc(IC_NODE_COUNT * n + 1), *ce = malloc((size_t)igraph_ecount(&g) + 1);
  if (!cv || !ce || ic_export_critical_stamps(&g, cv, ce) < 0) st = ic_fail(err, IC_ERUN, "pipeview: out of memory");
  else memcpy(crit, cv, IC_NODE_COUNT * n);
  free(cv);
  free(ce);
  igraph_destroy(&g);
  return st;
}

static ic_status pv_output(const char *path, const ic_graph_rec *recs, size_t n, const uint64_t *fetch,
                           ic_program_image img, ic_err *err) {
  uint8_t *crit = malloc(IC_NODE_COUNT * n);
  pv_event *ev = malloc((IC_NODE_COUNT + 1) * n * sizeof *ev);
  ic_status st = IC_OK;
  if (!crit || !ev) st = ic_fail(err, IC_ERUN, "pipeview: out of memory for %zu instructions", n);
  if (st == IC_OK) st = pv_critical(recs, n, crit, err);
  if (st == IC_OK) {
    if (strcmp(path, "-") == 0) {
      pv_write(stdout, recs, n, fetch, crit, img, ev);
    } else {
      ic_outfile *o;
      st = ic_outfile_open(&o, path, err);
      if (st == IC_OK) {
        pv_write(ic_outfile_stream(o), recs, n, fetch, crit, img, ev);
        st = ic_outfile_commit(o, err);
      }
    }
  }
  free(crit);
  free(ev);
  return st;
}

int cmd_pipeview(int argc, char **argv) {
  pv_opts po = {0};
  cli_run_opts ro;
  ic_err err;
  ic_status st = cli_run_parse(argc, argv, &ro, pv_options, pv_option, &po, &err);
  if (st != IC_OK) return cli_fail_err(st, &err);
  if (ro.help) {
    pv_help();
    return 0;
  }
  if (!po.have_from || !po.have_count) return cli_fail(2, "pipeview: --from N and --count M are required");
  if (!po.out) return cli_fail(2, "pipeview: -o FILE is required (\"-o -\": stdout)");
  if (po.from > UINT64_MAX - po.count) return cli_fail(2, "pipeview: --from %" PRIu64 " is too large", po.from);
  if (ro.max && ro.max < po.from + po.count)
    return cli_fail(2, "pipeview: --max %" PRIu64 " ends the run before instruction %" PRIu64, ro.max,
                    po.from + po.count - 1);
  cli_run run;
  memset(&run, 0, sizeof run);
  ro.once = 1;
  st = cli_run_setup(&ro, &run, &err);
  if (st != IC_OK) return cli_fail_err(st, &err);
  run.max = po.from + po.count;
  uint64_t *fetch = calloc(po.count, sizeof *fetch);
  ic_export_recorder *rec = NULL;
  if (!fetch) st = ic_fail(&err, IC_ERUN, "pipeview: out of memory for %" PRIu64 " instructions", po.count);
  if (st == IC_OK) st = ic_export_recorder_create(&rec, po.from, po.count, &err);
  if (st == IC_OK) {
    run.fetch_log = fetch;
    run.fetch_from = po.from;
    run.fetch_n = po.count;
    ic_graph_sink sink = ic_export_recorder_sink(rec);
    ooo_stats stats;
    st = cli_run_execute(&run, 0, &sink, NULL, NULL, &stats, &err);
  }
  if (st == IC_OK) {
    size_t n;
    const ic_graph_rec *recs = ic_export_recorder_records(rec, &n);
    if (n == 0) {
      st = ic_fail(&err, IC_EINPUT,
                   "pipeview: the run ended after %" PRIu64 " instructions, before instruction %" PRIu64,
                   ic_export_recorder_seen(rec), po.from);
    } else {
      if (n < po.count)
        fprintf(stderr, "icost: note: the run ended after %" PRIu64 " instructions; writing %zu of %" PRIu64 "\n",
                ic_export_recorder_seen(rec), n, po.count);
      st = pv_output(po.out, recs, n, fetch, cli_run_image(&run), &err);
    }
  }
  ic_export_recorder_destroy(rec);
  free(fetch);
  int rc = cli_run_finish(&run, st == IC_OK ? 0 : cli_fail_err(st, &err));
  cli_run_free(&run);
  return rc;
}
