/* cmd_icost.c: the main command, `icost [options] [-- PROGRAM ARGS]`: cost
 * and interaction-cost breakdown of a run over a list of categories.
 *
 * Methods (--method): graph (default) feeds the model's dependence graph to
 * the streaming powerset solver during one model run; multisim (2^n model
 * runs) and graphfrag (random windows of the graph) are engine/multisim.h's.
 * Every method ends in the same ic_breakdown and the same output formats. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "breakdown.h"
#include "chart.h"
#include "cli.h"
#include "cpus.h"
#include "multisim.h"
#include "profiler.h"
#include "record_pipe.h"
#include "report.h"
#include "run.h"
#include "rv.h"
#include "shapley.h"
#include "sweep_cli.h"
#include "solver.h"

static const char icost_help[] =
    "usage: icost [options] [-- PROGRAM ARGS]\n"
    "\n"
    "Runs PROGRAM (default: the default workload of the manifest) on the out-of-order\n"
    "timing model and breaks its execution time into the cost of each category of\n"
    "events and the interaction costs between them (Fields et al., TACO 2004).\n"
    "`icost help` lists the other commands (sim, critical, graph, validate, ...);\n"
    "`icost --version` prints the version.\n"
    "\n"
    "options:\n"
    "  --categories LIST   comma list of categories, in the order the table shows them\n"
    "                      (default: all eight, dl1,win,bw,bmisp,dmiss,shalu,lgalu,imiss;\n"
    "                      at most 12; CATEGORY@WHERE: scoped, below)\n"
    "  --method M          graph (default): one run recording the dependence graph, the\n"
    "                        idealizations of every subset the table needs solved\n"
    "                        in one pass over it;\n"
    "                      multisim: one model run per subset the table needs, run S\n"
    "                        with the hardware of the categories in S idealized\n"
    "                        (ground truth, slow);\n"
    "                      graphfrag: one run; K random windows of L instructions of\n"
    "                        the graph, each solved alone (as the profiler's fragments)\n"
    "                      profiler: one run with ProfileMe-style sampling hooks; the\n"
    "                        samples are stitched into fragments of L instructions by\n"
    "                        signature matching (icost profile/analyze do it offline)\n"
    "  --format F          text (default), csv, yaml or json: the same numbers;\n"
    "                      csv, yaml and json start with the run's provenance\n"
    "  --plot FILE         also draw the breakdown as a chart (the paper's Fig. 1b: a\n"
    "                      bar per category, interaction and base in percent of t,\n"
    "                      interactions above zero parallel, below serial) into\n"
    "                      FILE.svg or FILE.png\n"
    "  --cycles            text: add a column with the cycles of each entry\n"
    "  --kernel K          graph: the solver's vector kernel, auto (default: the\n"
    "                      fastest this CPU runs), portable, avx2 or avx512; every\n"
    "                      kernel gives the same numbers (for checks and benchmarks)\n"
    "  --show shapley      also the exact Shapley share of each category: its cost\n"
    "                      averaged over every order in which the categories can be\n"
    "                      idealized one after another; the shares sum to t - t(all\n"
    "                      categories). Needs t(S) of every subset (2^n). --show\n"
    "                      all,shapley: both\n"
    "  --show all          list every interaction (default with more than 4 categories:\n"
    "                      only the pairs with the first category, the rest summed as\n"
    "                      `other`). The table needs t(S) of every subset S with\n"
    "                      --show all or at most 4 categories (2^n: time grows as\n"
    "                      2^n), else of {}, the singletons, the pairs with the first\n"
    "                      category and the whole list (2n + 1: 17 of 256 with 8)\n"
    "  -j, --jobs N       CPUs to use (default: those the process may run on):\n"
    "                      multisim: runs in parallel; graph: with 2 or more the model\n"
    "                      runs on one and the solver beside it on the others\n"
    "  --fragments K       graphfrag: windows (default 200); profiler: with --max, the\n"
    "                      signature-sample interval is set for about K fragments;\n"
    "                      without, they are taken back to back and K kept, chosen\n"
    "                      uniformly as the run goes; memory holds the K and at\n"
    "                      most 131072 detailed samples (a uniform reservoir of\n"
    "                      those taken, about 15 MB), however long the run\n"
    "  --frag-length L     graphfrag/profiler: instructions per fragment (default 3 x\n"
    "                      win's idealized window, 60 x core.rob, at least 2000: 3840 on\n"
    "                      the baseline machine; at most half of --max where that half\n"
    "                      is 2000 or more; a fragment sees only the overlap within it,\n"
    "                      and win's reaches over 20 ROBs: a shorter one with win\n"
    "                      chosen gets a note on stderr)\n"
    "  --frag-seed S       graphfrag/profiler: seed of the windows or sampling and of the\n"
    "                      bootstrap (default 1)\n"
    "  --frag-warmup W     graphfrag/profiler: the first W instructions of each fragment\n"
    "                      are solved but not counted (its time is C(last) - C(W-th)\n"
    "                      under each idealization), so the counted part does not start\n"
    "                      with an empty machine (default 4 x core.rob, at most L/2;\n"
    "                      0: none)\n"
    "  --config F          machine file (default: configs/baseline.yaml, built in)\n"
    "  --set KEY=VALUE     override one machine parameter (repeatable)\n"
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
    "  --trace FILE        run on a trace instead of a program (every command takes\n"
    "                      it): an icost trace (`icost record -o FILE -- PROGRAM`)\n"
    "                      replays exactly the recorded stream, so the numbers are\n"
    "                      the live run's; --skip seeks in it\n"
    "  --trace-format F    icost or champsim (default: champsim when the name holds\n"
    "                      .champsimtrace, raw, .xz or .gz, else icost)\n"
    "  --arch A            riscv64, x86-64 or aarch64: check the program's ELF\n"
    "                      machine (x86-64 and aarch64 run under qemu-user with\n"
    "                      icost's plugin; x86 instructions count as micro-ops)\n"
    "\n"
    "ChampSim traces carry no op class, access size or instruction bytes. icost\n"
    "assumes: a record with a source memory operand is an 8-byte load (with a\n"
    "destination one too, a read-modify-write), one with only a destination memory\n"
    "operand an 8-byte store, every other non-branch a one-cycle ALU operation;\n"
    "branch kinds are inferred from the stack pointer, flags and instruction\n"
    "pointer registers as ChampSim does; one destination register is kept. So\n"
    "shalu and lgalu (no multiplies, divides or FP are seen) and the access-size\n"
    "parts of dl1 mean less, and the profiler's stitcher knows only executed pcs\n"
    "(frontends/trace/champsim.h has the details).\n"
    "\n"
    "numbers (t(S) = execution time with the events of the categories in S idealized;\n"
    "t = t({}); all in cycles of the timed part):\n"
    "  cycles          the model's simulated cycles of the run (multisim: its\n"
    "                  unidealized run; graphfrag: t estimated from the windows,\n"
    "                  their cycles per instruction times the run's instructions;\n"
    "                  profiler: the same from its fragments; validate's columns\n"
    "                  show these same cycles)\n"
    "  run_cycles      profiler: the sampled run's own simulated cycles\n"
    "  critical_path   graph: the critical-path length of the recorded dependence\n"
    "                  graph; the model guarantees it equals cycles (a warning says\n"
    "                  when it does not, with the number of mismatching records)\n"
    "  instructions    timed instructions committed\n"
    "  percent         of t: a category's row is cost({c}) = t - t({c}), the cycles\n"
    "                  saved by idealizing it alone; an interaction row U is icost(U)\n"
    "                  = cost(U) minus the icost of every proper subset of U (0:\n"
    "                  independent, > 0: parallel, the events must be fixed together,\n"
    "                  < 0: serial, fixing either one is enough); `other` is the sum of\n"
    "                  the interactions not listed; `base` = t(all categories), the\n"
    "                  cycles no listed category removes. The rows' cycles sum to t\n"
    "                  (exactly for graph and multisim, whose times are integers).\n"
    "                  Text shows one decimal: the base row is 100.0 minus the other\n"
    "                  printed rows, so the printed column sums to exactly 100.0;\n"
    "                  csv/yaml give the unrounded values (base = 100 - the others).\n"
    "  cycles (column) the same entries in cycles (--cycles; always in csv/yaml)\n"
    "  95% CI          graphfrag/profiler: bootstrap interval of the percent over\n"
    "                  windows or fragments\n"
    "  shapley         (--show shapley) a category's Shapley share in cycles and\n"
    "                  percent of t: the mean over all orders of the categories of\n"
    "                  t(before) - t(before + it), i.e. the sum over the subsets U\n"
    "                  holding it of icost(U) / |U|; the shares sum to t - base\n"
    "  solver window   graph: instructions of dependence graph kept live; edges out of\n"
    "                  window: edges whose source was older and was taken as time 0\n"
    "\n"
    "yaml: workload, config, method, cycles, critical_path (null unless graph),\n"
    "instructions, solver {window, out_of_window, baseline_mismatches} (graph),\n"
    "categories, total (= t), and breakdown: a list of {name, kind (single,\n"
    "interaction, other, base), set (the categories; [] for other and base), cycles,\n"
    "percent, and lo/hi (graphfrag)}; with --show shapley, shapley: a list of {name,\n"
    "cycles, percent} (csv: rows named shapley:CATEGORY).\n"
    "\n" CLI_SCOPED_HELP
    "\n"
    "categories:\n";

typedef struct icost_opts {
  const char *categories, *method, *format, *show, *kernel, *plot;
  int in_cycles;
  int jobs;
  uint64_t fragments, fraglen, fragseed;
  uint64_t fragwarm;  /* --frag-warmup */
  int have_fragwarm;
  const uint8_t *need; /* the subsets the breakdown shows (ic_breakdown_needed) */
} icost_opts;

enum {
  O_CATEGORIES = CLI_OPT_OWN, O_METHOD, O_FORMAT, O_SHOW, O_KERNEL, O_PLOT, O_CYCLES, O_FRAGMENTS,
  O_FRAG_LENGTH, O_FRAG_SEED, O_FRAG_WARMUP
};

static const struct option icost_options[] = {
    {"categories", required_argument, NULL, O_CATEGORIES},
    {"method", required_argument, NULL, O_METHOD},
    {"format", required_argument, NULL, O_FORMAT},
    {"show", required_argument, NULL, O_SHOW},
    {"kernel", required_argument, NULL, O_KERNEL},
    {"plot", required_argument, NULL, O_PLOT},
    {"cycles", no_argument, NULL, O_CYCLES},
    {"jobs", required_argument, NULL, 'j'},
    {"fragments", required_argument, NULL, O_FRAGMENTS},
    {"frag-length", required_argument, NULL, O_FRAG_LENGTH},
    {"frag-seed", required_argument, NULL, O_FRAG_SEED},
    {"frag-warmup", required_argument, NULL, O_FRAG_WARMUP},
    {NULL, 0, NULL, 0},
};

static int icost_option(void *ctx, int id, const char *name, const char *v, ic_err *err) {
  icost_opts *o = ctx;
  switch (id) {
  case O_CATEGORIES: o->categories = v; return 0;
  case O_METHOD: o->method = v; return 0;
  case O_FORMAT: o->format = v; return 0;
  case O_SHOW: o->show = v; return 0;
  case O_KERNEL: o->kernel = v; return 0;
  case O_PLOT: o->plot = v; return 0;
  case O_CYCLES: o->in_cycles = 1; return 0;
  }
  uint64_t n;
  const int ok = cli_parse_count(v, &n) == 0;
  const char *why = NULL;
  switch (id) {
  case 'j':
    if (!ok || n == 0 || n > 1024) why = "expected 1 to 1024";
    else o->jobs = (int)n;
    break;
  case O_FRAGMENTS:
    if (!ok || n == 0) why = "expected a positive count";
    else o->fragments = n;
    break;
  case O_FRAG_LENGTH:
    if (!ok || n == 0 || n > SIG_MAX_LENGTH) why = "expected a count from 1 to 1000000";
    else o->fraglen = n;
    break;
  case O_FRAG_SEED:
    if (!ok) why = "expected a number";
    else o->fragseed = n;
    break;
  default: /* O_FRAG_WARMUP */
    if (!ok || n > UINT32_MAX) why = "expected a number";
    else o->fragwarm = n, o->have_fragwarm = 1;
    break;
  }
  if (why) {
    ic_fail(err, IC_EINPUT, "%s '%s': %s", name, v, why);
    return -1;
  }
  return 0;
}

/* ---- the model-run callback for multisim/graphfrag ------------------- */

typedef struct run_ctx {
  const cli_run *run;
  uint64_t base_cycles, base_insns; /* of the run with nothing idealized */
} run_ctx;

static ic_status run_once(void *ctx, ic_catmask ideal, const ic_graph_sink *sink, uint64_t *cycles,
                          uint64_t *insns, ic_err *err) {
  run_ctx *c = ctx;
  ooo_stats st;
  ic_status s = cli_run_execute(c->run, ideal, sink, NULL, NULL, &st, err);
  if (s != IC_OK) return s;
  *cycles = st.cycles;
  *insns = st.instructions;
  if (ideal == 0) { /* one such run per method: no concurrent writer */
    c->base_cycles = st.cycles;
    c->base_insns = st.instructions;
  }
  return IC_OK;
}

/* ---- progress on stderr when it is a terminal ------------------------ */

static void progress_insns(void *ctx, uint64_t n) {
  (void)ctx;
  fprintf(stderr, "\ricost: %llu instructions", (unsigned long long)n);
  fflush(stderr);
}

static void progress_runs(void *ctx, int done, int total) {
  (void)ctx;
  fprintf(stderr, "\ricost: multisim %d/%d runs", done, total);
  fflush(stderr);
}

/* ---- methods ---------------------------------------------------------- */

typedef struct result {
  ic_breakdown b;
  uint64_t cycles, instructions;
  uint64_t run_cycles;        /* profiler: the sampled run's own cycles (0: other methods) */
  int have_graph;             /* graph method: the fields below are valid */
  uint64_t critical_path;
  ic_solver_stats solver;
  uint64_t frag_length, frag_warmup; /* graphfrag/profiler (length 0: other methods) */
} result;

static ic_status method_graph(const cli_run *run, const uint8_t *cats, int ncat, int tty,
                              const icost_opts *o, result *res, ic_err *err) {
  ic_solver *s;
  ic_status st = ic_solver_create(&s, cats, ncat, err);
  if (st != IC_OK) return st;
  if ((st = ic_solver_set_subsets(s, o->need, err)) != IC_OK) {
    ic_solver_destroy(s);
    return st;
  }
  if (o->kernel) {
    static const ic_solver_kernel ks[] = {IC_KERNEL_AUTO, IC_KERNEL_PORTABLE, IC_KERNEL_AVX2, IC_KERNEL_AVX512};
    size_t k = 0;
    while (k < sizeof ks / sizeof ks[0] && strcmp(o->kernel, ic_solver_kernel_name(ks[k])) != 0) k++;
    if (k == sizeof ks / sizeof ks[0] || !ic_solver_set_kernel(s, ks[k])) {
      ic_solver_destroy(s);
      return ic_fail(err, IC_EINPUT, "--kernel '%s': %s", o->kernel,
                     k == sizeof ks / sizeof ks[0] ? "expected auto, portable, avx2 or avx512"
                                                   : "this CPU does not run it");
    }
  }
  const int cpus = o->jobs > 0 ? o->jobs : ic_cpus_allowed();
  const int piped = ic_record_pipe_worth(cpus);
  ic_solver_set_threads(s, ic_solver_threads_for(piped ? cpus - 1 : cpus, ncat));
  ooo_stats os;
  st = cli_run_graph(run, ic_solver_sink(s), cpus, tty ? progress_insns : NULL, NULL, &os, err);
  if (st == IC_OK) {
    size_t n = (size_t)1 << ncat;
    double *t = malloc(n * sizeof *t);
    if (!t) {
      st = ic_fail(err, IC_ERUN, "out of memory");
    } else {
      const uint64_t *ts = ic_solver_times(s);
      for (size_t k = 0; k < n; k++) t[k] = (double)ts[k];
      ic_breakdown_unneeded_nan(t, ncat, o->need);
      st = ic_breakdown_from_times(&res->b, cats, ncat, t, err);
      free(t);
    }
    res->cycles = os.cycles;
    res->instructions = os.instructions;
    res->have_graph = 1;
    res->critical_path = ic_solver_times(s)[0];
    ic_solver_get_stats(s, &res->solver);
  }
  ic_solver_destroy(s);
  return st;
}

typedef ic_status (*method_fn)(const cli_run *run, const uint8_t *cats, int ncat, int tty,
                               const icost_opts *o, result *res, ic_err *err);

static ic_status method_multisim(const cli_run *run, const uint8_t *cats, int ncat, int tty,
                                 const icost_opts *o, result *res, ic_err *err) {
  run_ctx rc = {run, 0, 0};
  ic_multisim_opts mo = {.cats = cats, .ncat = ncat, .run = run_once, .run_ctx = &rc,
                         .jobs = o->jobs, .progress = tty ? progress_runs : NULL,
                         .need = o->need};
  ic_status st = ic_multisim_run(&mo, &res->b, err);
  res->cycles = rc.base_cycles;
  res->instructions = rc.base_insns;
  return st;
}

/* The fragments' length and warm-up: --frag-length, else 3 windows of win
 * (ic_fragment_length_for); --frag-warmup, else 4 ROBs (graphfrag.h). */
static ic_status frag_shape(const cli_run *run, const icost_opts *o, const uint8_t *cats, int ncat,
                            uint64_t *len, uint64_t *w, ic_err *err) {
  int64_t rob;
  ic_status st = ooo_config_get(run->config, "core.rob", &rob, err);
  if (st != IC_OK) return st;
  *len = o->fraglen ? o->fraglen : cli_fragment_length((uint32_t)rob, run->max);
  cli_note_fragments(cats, ncat, *len, (uint32_t)rob);
  *w = o->have_fragwarm ? o->fragwarm : ic_fragment_warmup_for((uint32_t)rob, *len);
  return IC_OK;
}

static ic_status method_graphfrag(const cli_run *run, const uint8_t *cats, int ncat, int tty,
                                  const icost_opts *o, result *res, ic_err *err) {
  (void)tty;
  run_ctx rc = {run, 0, 0};
  ic_graphfrag_opts fo = {.cats = cats, .ncat = ncat, .fragments = o->fragments, .need = o->need,
                          .seed = o->fragseed};
  ic_status st = frag_shape(run, o, cats, ncat, &fo.length, &fo.warmup, err);
  if (st != IC_OK) return st;
  res->frag_length = fo.length;
  res->frag_warmup = fo.warmup;
  st = ic_graphfrag_run(&fo, run_once, &rc, &res->b, err);
  res->cycles = (uint64_t)(res->b.total + 0.5);
  res->instructions = rc.base_insns;
  return st;
}

/* The shotgun profiler: one run with the sampling hook, samples stitched into
 * fragments of L instructions (engine/profiler.h). The signature-sample
 * interval is chosen so that a bounded run (--max) yields about K fragments;
 * an unbounded run takes them back to back and keeps K of them, chosen
 * uniformly while it runs (reservoir sampling). */
static ic_status method_profiler(const cli_run *run, const uint8_t *cats, int ncat, int tty,
                                 const icost_opts *o, result *res, ic_err *err) {
  (void)tty;
  run_ctx rc = {run, 0, 0};
  ic_profiler_opts po = {.cats = cats, .ncat = ncat, .seed = o->fragseed, .need = o->need};
  ic_status st = cli_profiler_check(run, err);
  if (st != IC_OK) return st;
  st = sig_machine_from_config(run->config, &po.machine, err);
  if (st != IC_OK) return st;
  uint64_t len, warm;
  if ((st = frag_shape(run, o, cats, ncat, &len, &warm, err)) != IC_OK) return st;
  po.length = (uint32_t)len;
  po.warmup = (uint32_t)warm;
  res->frag_length = len;
  res->frag_warmup = warm;
  ic_profiler_set_sampling(&po, run->max, o->fragments);
  ic_program_image img = cli_run_image(run);
  ic_profiler_stats ps;
  st = ic_profiler_run(&po, run_once, &rc, &img, &res->b, &ps, err);
  /* cycles is the t the percents are of (as validate's profiler column);
     the sampled run's own cycles beside it */
  res->cycles = st == IC_OK ? (uint64_t)(res->b.total + 0.5) : 0;
  res->run_cycles = rc.base_cycles;
  res->instructions = rc.base_insns;
  if (st == IC_OK)
    fprintf(stderr,
            "icost: profiler: %llu fragments stitched, %llu aborted; instructions %llu exact, "
            "%llu approximate, %llu inferred, %llu patched; %llu indirect targets redirected, "
            "%llu fragments cut at an unknown one, %llu returns not to their call, %llu indirect "
            "jumps sent to nearby code, %llu indirect calls sent to a code pointer, %llu loads "
            "taken without their sampled memory producer\n",
            (unsigned long long)ps.stitch.stitched, (unsigned long long)ps.stitch.aborted,
            (unsigned long long)ps.stitch.exact, (unsigned long long)ps.stitch.approx,
            (unsigned long long)ps.stitch.inferred, (unsigned long long)ps.stitch.patched,
            (unsigned long long)ps.stitch.redirected, (unsigned long long)ps.stitch.truncated,
            (unsigned long long)ps.stitch.unwound, (unsigned long long)ps.stitch.near_jumps,
            (unsigned long long)ps.stitch.pointer_calls, (unsigned long long)ps.stitch.mem_dropped);
  return st;
}

/* The --method switch: graph here, the others from engine/multisim.h and
 * engine/profiler.h. */
static ic_status run_method(const char *method, const cli_run *run, const uint8_t *cats, int ncat,
                            int tty, const icost_opts *o, result *res, ic_err *err) {
  static const struct {
    const char *name;
    method_fn fn;
  } methods[] = {{"multisim", method_multisim}, {"graphfrag", method_graphfrag},
                 {"profiler", method_profiler}};
  if (strcmp(method, "graph") == 0) return method_graph(run, cats, ncat, tty, o, res, err);
  for (size_t k = 0; k < sizeof methods / sizeof methods[0]; k++)
    if (strcmp(method, methods[k].name) == 0) return methods[k].fn(run, cats, ncat, tty, o, res, err);
  return ic_fail(err, IC_EINPUT, "--method '%s': expected graph, multisim, graphfrag or profiler", method);
}

static int known_method(const char *m) {
  return !strcmp(m, "graph") || !strcmp(m, "multisim") || !strcmp(m, "graphfrag") ||
         !strcmp(m, "profiler");
}

/* ---- output ----------------------------------------------------------- */

/* The run's values before the breakdown: text shows them as lines, csv as
   "#" records, yaml and json as keys. */
static void write_header(ic_emit *em, const cli_run *run, const char *method, const result *r) {
  cli_report_partial(em, run);
  ic_emit_str(em, "workload", run->workload.name);
  ic_emit_str(em, "config", ooo_config_name(run->config));
  ic_emit_str(em, "method", method);
  ic_emit_u64(em, "instructions", r->instructions);
  ic_emit_u64(em, "cycles", r->cycles);
  if (r->run_cycles) ic_emit_u64(em, "run_cycles", r->run_cycles);
  if (r->have_graph)
    ic_emit_u64(em, "critical_path", r->critical_path);
  else {
    ic_emit_only(em, IC_EMIT_MACHINE);
    ic_emit_null(em, "critical_path");
    ic_emit_only(em, IC_EMIT_ALL);
  }
  if (r->have_graph) {
    char line[128];
    snprintf(line, sizeof line, "%llu instructions, %llu edges out of window",
             (unsigned long long)r->solver.window, (unsigned long long)r->solver.out_of_window);
    ic_emit_only(em, IC_EMIT_ONLY(IC_EMIT_TEXT));
    ic_emit_str(em, "solver_window", line);
    ic_emit_only(em, IC_EMIT_MACHINE);
    ic_emit_map_begin(em, "solver");
    ic_emit_u64(em, "window", r->solver.window);
    ic_emit_u64(em, "out_of_window", r->solver.out_of_window);
    ic_emit_u64(em, "baseline_mismatches", r->solver.violations);
    ic_emit_map_end(em);
    ic_emit_only(em, IC_EMIT_ALL);
  }
  if (r->frag_length) {
    char line[128];
    snprintf(line, sizeof line, "%llu instructions each, the first %llu not counted",
             (unsigned long long)r->frag_length, (unsigned long long)r->frag_warmup);
    ic_emit_only(em, IC_EMIT_ONLY(IC_EMIT_TEXT));
    ic_emit_str(em, "fragments", line);
    ic_emit_only(em, IC_EMIT_MACHINE);
    ic_emit_map_begin(em, "fragments");
    ic_emit_u64(em, "length", r->frag_length);
    ic_emit_u64(em, "warmup", r->frag_warmup);
    ic_emit_map_end(em);
    ic_emit_only(em, IC_EMIT_ALL);
  }
}

static int plot_suffix_ok(const char *p) {
  size_t l = strlen(p);
  return l > 4 && (!strcasecmp(p + l - 4, ".svg") || !strcasecmp(p + l - 4, ".png"));
}

/* --plot FILE: the breakdown as the paper's Fig. 1b (plot.c). */
static int plot_run(const char *path, const cli_run *run, const cli_run_opts *ro,
                    const char *method, const result *r, int show_all) {
  char title[256], sub[1024];
  snprintf(title, sizeof title, "%s: cost and interaction-cost breakdown", run->workload.name);
  int n = snprintf(sub, sizeof sub, "method %s, machine %s", method, ooo_config_name(run->config));
  for (int k = 0; k < ro->nsets && n < (int)sizeof sub; k++)
    n += snprintf(sub + n, sizeof sub - (size_t)n, "%s%s", k ? ", " : " with ", ro->sets[k]);
  if (n < (int)sizeof sub)
    snprintf(sub + n, sizeof sub - (size_t)n, "; t = %llu cycles, %llu instructions",
             (unsigned long long)r->cycles, (unsigned long long)r->instructions);
  return cli_plot_breakdown(&r->b, show_all, title, sub, path);
}

/* --show: "all", "shapley" or both, comma separated; 0 if it parses. */
static int parse_show(const char *v, int *all, int *shapley) {
  char buf[64];
  if (snprintf(buf, sizeof buf, "%s", v) >= (int)sizeof buf) return -1;
  char *save = NULL;
  int any = 0;
  for (char *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save), any = 1) {
    if (!strcmp(w, "all")) *all = 1;
    else if (!strcmp(w, "shapley")) *shapley = 1;
    else return -1;
  }
  return any ? 0 : -1;
}

/* The Shapley shares (engine/shapley.h) after the breakdown: the table
 * `shapley`, a row per category {name, percent, cycles}; text adds a "sum"
 * row. Percent is of t. */
static ic_status write_shapley(ic_emit *em, const ic_breakdown *b, ic_err *err) {
  const int n = b->ncat;
  double *t = malloc(((size_t)1 << n) * sizeof *t), phi[IC_SHAPLEY_MAX_CATS];
  if (!t) return ic_fail(err, IC_ERUN, "out of memory");
  for (size_t s = 0; s < ((size_t)1 << n); s++) t[s] = b->total - b->cost[s];
  ic_status st = ic_shapley(t, n, phi, err);
  free(t);
  if (st != IC_OK) return st;
  const ic_emit_col cols[] = {{"name", -1, 0}, {"percent", 1, 0}, {"cycles", 2, 0}};
  ic_emit_table_begin(em, "shapley", cols, 3, 0);
  double sum = 0;
  for (int k = 0; k < n; k++) {
    sum += phi[k];
    ic_emit_row_begin(em);
    ic_emit_str(em, NULL, ic_category_name(b->cats[k]));
    ic_emit_double(em, NULL, b->total != 0 ? 100.0 * phi[k] / b->total : 0.0);
    ic_emit_double(em, NULL, phi[k]);
    ic_emit_row_end(em);
  }
  ic_emit_only(em, IC_EMIT_ONLY(IC_EMIT_TEXT));
  ic_emit_row_begin(em);
  ic_emit_str(em, NULL, "sum");
  ic_emit_double(em, NULL, b->total != 0 ? 100.0 * sum / b->total : 0.0);
  ic_emit_double(em, NULL, sum);
  ic_emit_row_end(em);
  ic_emit_only(em, IC_EMIT_ALL);
  ic_emit_table_end(em);
  return IC_OK;
}

int cmd_icost(int argc, char **argv) {
  static char name[] = "icost";
  argv[0] = name;
  icost_opts io = {.method = "graph", .format = "text", .fragseed = 1};
  cli_run_opts ro;
  ic_err err;
  ic_status st = cli_run_parse(argc, argv, &ro, icost_options, icost_option, &io, &err);
  if (st != IC_OK) return cli_fail_err(st, &err);
  if (ro.help) {
    fputs(icost_help, stdout);
    for (int c = 0; c < IC_CAT_COUNT; c++)
      printf("  %-8s %s\n", ic_category_names[c], ic_category_help[c]);
    return 0;
  }
  uint8_t cats[IC_SOLVER_MAX_CATS];
  int ncat = 0;
  ic_emit_format fmt;
  if ((st = cli_format_parse("icost", io.format, &fmt, &err)) != IC_OK) return cli_fail_err(st, &err);
  int show_all = 0, show_shapley = 0;
  if (io.show && parse_show(io.show, &show_all, &show_shapley) != 0)
    return cli_fail(2, "--show '%s': expected all, shapley or all,shapley", io.show);
  if (io.plot && !plot_suffix_ok(io.plot))
    return cli_fail(2, "--plot '%s': the chart's file name ends in .svg or .png", io.plot);
  if (!known_method(io.method))
    return cli_fail(2, "--method '%s': expected graph, multisim, graphfrag or profiler", io.method);

  cli_run run;
  memset(&run, 0, sizeof run);
  /* the graph method times the run once: a host program streams live; the
     others replay it (multisim, graphfrag) or read its image while it runs
     (the profiler's signature bits need each branch's size) */
  ro.once = strcmp(io.method, "graph") == 0;
  if ((st = cli_run_setup(&ro, &run, &err)) != IC_OK) return cli_fail_err(st, &err);
  static ic_scopes scopes; /* the run's scoped categories (names resolved in its program) */
  if (io.categories) {
    if ((st = cli_categories(run.trace ? NULL : run.workload.argv[0], io.categories, cats, &ncat,
                             IC_SOLVER_MAX_CATS, &scopes, &err)) != IC_OK) {
      cli_run_free(&run);
      return cli_fail(2, "--categories: %s", err.msg);
    }
    run.scopes = scopes.n ? &scopes : NULL;
    if (run.scopes && !strcmp(io.method, "profiler")) {
      cli_run_free(&run);
      return cli_fail(2, "--categories: scoped categories are not supported by the profiler "
                         "(its samples carry no scope); use graph, graphfrag or multisim");
    }
  } else {
    for (int c = 0; c < IC_CAT_COUNT; c++) cats[ncat++] = (uint8_t)c;
  }
  uint8_t need[1u << IC_SOLVER_MAX_CATS];
  ic_breakdown_needed(ncat, show_all || show_shapley, need);
  io.need = need;
  int tty = isatty(2);
  result res;
  memset(&res, 0, sizeof res);
  st = run_method(io.method, &run, cats, ncat, tty, &io, &res, &err);
  if (tty) fputs("\r\033[K", stderr);
  if (st != IC_OK) {
    cli_run_free(&run);
    return cli_fail_err(st, &err);
  }
  if (res.have_graph && (res.critical_path != res.cycles || res.solver.violations))
    fprintf(stderr,
            "icost: warning: graph critical path %llu, simulated cycles %llu, %llu records whose "
            "node times differ from the model's (first: instruction %llu); the breakdown may be "
            "off\n",
            (unsigned long long)res.critical_path, (unsigned long long)res.cycles,
            (unsigned long long)res.solver.violations,
            (unsigned long long)res.solver.first_violation_seq);
  char ci_warn[256];
  if (ic_breakdown_ci_warning(&res.b, ci_warn, sizeof ci_warn)) fprintf(stderr, "icost: %s\n", ci_warn);
  ic_emit *em = NULL;
  st = cli_report_open(&em, stdout, fmt, "icost", &ro, &run, &err);
  if (st == IC_OK) {
    write_header(em, &run, io.method, &res);
    st = ic_breakdown_emit(&res.b, em, show_all, io.in_cycles, &err);
    if (st == IC_OK && show_shapley) st = write_shapley(em, &res.b, &err);
    if (st == IC_OK)
      st = ic_emit_close(em, &err);
    else
      ic_emit_abandon(em);
  }
  int plot_rc = 0;
  if (st == IC_OK && io.plot) {
    plot_rc = plot_run(io.plot, &run, &ro, io.method, &res, show_all);
    ic_chart_release();
  }
  ic_breakdown_free(&res.b);
  int rc = st != IC_OK ? cli_fail_err(st, &err)
           : fflush(stdout) != 0 ? cli_fail(1, "cannot write the breakdown") : 0;
  rc = cli_run_finish(&run, rc);
  cli_run_free(&run);
  return rc != 0 ? rc : plot_rc;
}
