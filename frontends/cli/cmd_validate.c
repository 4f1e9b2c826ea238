/* cmd_validate.c: `icost validate`, the breakdown computed several ways
 * (multisim, graph, graphfrag) side by side, on one workload or a suite
 * (paper Tables VIII and IX). The arithmetic is engine/validate.c; here are
 * the options, the per-workload run set-up (run.h) and the printing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "breakdown.h"
#include "cli.h"
#include "report.h"
#include "run.h"
#include "rv.h"
#include "solver.h"
#include "validate.h"
#include "workload.h"

static const char validate_help[] =
    "usage: icost validate [--categories LIST] [--methods LIST] [--suite MANIFEST]\n"
    "                      [--suite-tag TAG] [-j N] [--fragments K] [--frag-length L]\n"
    "                      [--frag-seed S] [--format text|csv|yaml|json] [--show all]\n"
    "                      [common options] [-- PROGRAM ARGS]\n"
    "\n"
    "Computes the cost/interaction-cost breakdown of the categories several ways and\n"
    "compares each with multisim, the ground truth (paper Tables VIII and IX).\n"
    "\n"
    "  --categories LIST  comma list of categories (default: all eight, in the order\n"
    "                     dl1,win,bw,bmisp,dmiss,shalu,lgalu,imiss); 2^n runs each;\n"
    "                     CATEGORY@WHERE: scoped (below; not with the profiler)\n"
    "  --methods LIST     methods compared with multisim (default: graph,graphfrag):\n"
    "                       multisim   2^n model runs, run S with the categories of S\n"
    "                                  idealized in the model; t(S) = its cycles\n"
    "                       graph      one run recording the dependence graph; t(S) =\n"
    "                                  critical path with the edges of S idealized\n"
    "                       graphfrag  one run; K windows of L instructions of the\n"
    "                                  graph, each solved alone (sources before the\n"
    "                                  window at time 0); percents = icost summed over\n"
    "                                  windows / the windows' time; the 95% CI is a\n"
    "                                  bootstrap over windows (1000 resamples); one\n"
    "                                  from fewer than 10 windows or fragments says\n"
    "                                  little: its column reads `95% CI (!)`, a line\n"
    "                                  below the table and one on stderr say so\n"
    "                                  (yaml, json: METHOD_ci_warning beside\n"
    "                                  METHOD_ci_fragments; csv: item ci_fragments)\n"
    "                       profiler   one run with the sampling hooks; samples are\n"
    "                                  stitched into fragments of L instructions by\n"
    "                                  signature matching and solved like graphfrag's\n"
    "                                  windows (with --max: about K fragments;\n"
    "                                  without: K of the run's back-to-back ones,\n"
    "                                  chosen uniformly as the run goes)\n"
    "  --suite MANIFEST   run every workload of a manifest tagged `full` (or --suite-tag)\n"
    "  --suite-tag TAG    run every workload of the manifest (default one unless\n"
    "                     --suite) with this tag: short, full, default, extra\n"
    "  -j, --jobs N      CPUs to use (default: those the process may run on):\n"
    "                     multisim runs in parallel; graph: the model on one, the\n"
    "                     solver beside it\n"
    "  --fragments K      graphfrag windows (default 200), chosen uniformly among the\n"
    "                     run's blocks of L instructions by reservoir sampling (the\n"
    "                     instructions before the first block are one more block)\n"
    "  --frag-length L    instructions per window (default, as the profiler's: 60 x\n"
    "                     core.rob, at least 2000, at most half of --max where that\n"
    "                     half is 2000 or more)\n"
    "  --frag-seed S      seed of the window choice and the bootstrap (default 1)\n"
    "  --frag-warmup W    graphfrag/profiler: the first W instructions of each window\n"
    "                     are solved but not counted, so the counted part does not\n"
    "                     start with an empty machine (default 4 x core.rob, at most\n"
    "                     L/2; 0: none)\n"
    "  --format F         text (default), csv, yaml or json: the same numbers; csv,\n"
    "                     yaml and json start with the provenance\n"
    "  --show all         list every interaction (default with more than 4 categories:\n"
    "                     singletons, pairs with the first category, `other` = the sum\n"
    "                     of the remaining interactions, base)\n"
    "\n"
    "Common options: --config F, --set KEY=VALUE, --skip N, --warm N, --max N,\n"
    "--seed S, --workload NAME, --guest-output (see `icost sim --help`). Every run\n"
    "starts from one fast-forward checkpoint (loaded and skipped once) and re-warms\n"
    "its own fresh core on its own copy of the emulator.\n"
    "\n"
    CLI_SCOPED_HELP
    "\n"
    "Numbers: each entry is the icost of a set of categories in percent of execution\n"
    "time (cycles); base is the time no chosen category removes; entries sum to 100.\n"
    "error = method - multisim, in percentage points. `mean error` (Table IX) is the\n"
    "mean of |method - multisim| / |multisim| in percent over the paper's rows (with\n"
    "more than 4 categories: the singletons and the pairs with the first category;\n"
    "else every subset; never base) whose multisim magnitude exceeds 5% of\n"
    "execution time; `over every subset` (YAML/CSV: *_all) is the same over all 2^n-1\n"
    "subsets. A relative error makes a small entry loud (1 point off a 2% entry is\n"
    "50%), so beside it: `points on average`, the mean of |method - multisim| in\n"
    "percentage points over the same entries (YAML/CSV: mean_abs_error_pp), and\n"
    "`largest error`, the largest |method - multisim| over the rows (every subset)\n"
    "but base, with its entry (max_abs_error_pp[_all], YAML: max_abs_error_set).\n"
    "Interaction signs agree unless an interaction is >= +0.05 in one\n"
    "method and <= -0.05 in the other. cycles: multisim's t, graph's critical\n"
    "path, graphfrag's and profiler's t estimated from their windows or fragments\n"
    "(their cycles per instruction times the run's instructions): the t each\n"
    "method's percents are of, the `cycles` `icost --method M` prints (the\n"
    "profiler's sampled run's own cycles are its run_cycles there).\n"
    "wall time: seconds each method took (multisim with -j threads).\n"
    "note: multisim is not monotone: some run idealizing S plus one more category c\n"
    "was slower than the run idealizing S, by more than 0.5% of time (e.g. faster ops\n"
    "that change which instructions take the issue slots first); the largest such\n"
    "step is named. A dependence graph only shortens paths when latencies shrink, so\n"
    "the entries those runs enter cannot be followed by any graph method (YAML:\n"
    "reference_slowdown; CSV: slowdown_steps, slowdown_worst_percent).\n";

typedef struct vopts {
  const char *categories, *methods, *suite, *suite_tag, *format, *show;
  int jobs;
  uint64_t fragments, fraglen, fragseed;
  uint64_t fragwarm; /* --frag-warmup */
  int have_fragwarm;
  int fragment_methods; /* graphfrag or profiler among the methods */
  int profiler;         /* the profiler among them */
  const ic_scopes *scopes; /* scoped categories of the list, or NULL */
} vopts;

enum {
  O_CATEGORIES = CLI_OPT_OWN, O_METHODS, O_SUITE, O_SUITE_TAG, O_FORMAT, O_SHOW, O_FRAGMENTS, O_FRAG_LENGTH,
  O_FRAG_SEED, O_FRAG_WARMUP
};

static const struct option validate_options[] = {
    {"categories", required_argument, NULL, O_CATEGORIES},
    {"methods", required_argument, NULL, O_METHODS},
    {"suite", required_argument, NULL, O_SUITE},
    {"suite-tag", required_argument, NULL, O_SUITE_TAG},
    {"format", required_argument, NULL, O_FORMAT},
    {"show", required_argument, NULL, O_SHOW},
    {"fragments", required_argument, NULL, O_FRAGMENTS},
    {"frag-length", required_argument, NULL, O_FRAG_LENGTH},
    {"fragment-length", required_argument, NULL, O_FRAG_LENGTH},
    {"frag-seed", required_argument, NULL, O_FRAG_SEED},
    {"frag-warmup", required_argument, NULL, O_FRAG_WARMUP},
    {"jobs", required_argument, NULL, 'j'},
    {NULL, 0, NULL, 0},
};

static int parse_extra(void *ctx, int id, const char *a, const char *val, ic_err *err) {
  vopts *v = ctx;
  const char **str = id == O_CATEGORIES ? &v->categories
                     : id == O_METHODS  ? &v->methods
                     : id == O_SUITE    ? &v->suite
                     : id == O_SUITE_TAG ? &v->suite_tag
                     : id == O_FORMAT   ? &v->format
                     : id == O_SHOW     ? &v->show
                                        : NULL;
  if (str) {
    *str = val;
    return 0;
  }
  uint64_t *num = id == O_FRAGMENTS       ? &v->fragments
                  : id == O_FRAG_LENGTH   ? &v->fraglen
                  : id == O_FRAG_SEED     ? &v->fragseed
                  : id == O_FRAG_WARMUP   ? &v->fragwarm
                                          : NULL;
  const int is_jobs = id == 'j';
  uint64_t n;
  if (cli_parse_count(val, &n) != 0) {
    ic_fail(err, IC_EINPUT, "%s '%s': not a count", a, val);
    return -1;
  }
  if (is_jobs) {
    if (n < 1 || n > 1024) {
      ic_fail(err, IC_EINPUT, "%s '%s': must be 1 to 1024", a, val);
      return -1;
    }
    v->jobs = (int)n;
  } else {
    if (n == 0 && num != &v->fragseed && num != &v->fragwarm) {
      ic_fail(err, IC_EINPUT, "%s '%s': must be positive", a, val);
      return -1;
    }
    if (num == &v->fraglen && n > SIG_MAX_LENGTH) {
      ic_fail(err, IC_EINPUT, "%s '%s': at most %d", a, val, SIG_MAX_LENGTH);
      return -1;
    }
    *num = n;
    if (num == &v->fragwarm) v->have_fragwarm = 1;
  }
  return 0;
}

/* Progress on stderr (only when it is a terminal). */
typedef struct vprogress {
  const char *workload;
} vprogress;

static void show_progress(void *ctx, int done, int total) {
  vprogress *p = ctx;
  fprintf(stderr, "\rvalidate %s: multisim %d/%d runs", p->workload, done, total);
  fflush(stderr);
}

static ic_status run_once(void *ctx, ic_catmask ideal, const ic_graph_sink *sink,
                          uint64_t *cycles, uint64_t *insns, ic_err *err) {
  const cli_run *r = ctx;
  ooo_stats st;
  ic_status s = cli_run_execute(r, ideal, sink, NULL, NULL, &st, err);
  if (s != IC_OK) return s;
  *cycles = st.cycles;
  *insns = st.instructions;
  return IC_OK;
}

/* Sets up and validates one workload. */
static ic_status validate_one(const cli_run_opts *base, const vopts *v, const char *name, int argc,
                              char **argv, ic_validate_report *rep, ic_validate_run_opts *vo,
                              int tty, ic_err *err) {
  cli_run_opts o = *base;
  if (argc > 0) {
    o.prog_argc = argc;
    o.prog_argv = argv;
    o.workload = NULL;
  }
  cli_run run;
  memset(&run, 0, sizeof run);
  ic_status st = cli_run_setup(&o, &run, err);
  if (st != IC_OK) return st; /* cli_run_setup released run */
  if (v->profiler && (st = cli_profiler_check(&run, err)) != IC_OK) {
    cli_run_free(&run);
    return st;
  }
  run.refuse_partial = 1;
  run.scopes = v->scopes;
  const char *wname = name ? name : run.workload.name;
  vprogress prog = {wname};
  vo->run = run_once;
  vo->run_ctx = &run;
  ic_program_image img = cli_run_image(&run);
  vo->img = &img;
  st = sig_machine_from_config(run.config, &vo->prof.machine, err);
  if (st != IC_OK) {
    cli_run_free(&run);
    return st;
  }
  /* The fragments' length and warm-up, as icost's: --frag-length, else 3
     windows of win on this machine; --frag-warmup, else 4 ROBs. */
  int64_t rob = 0;
  st = ooo_config_get(run.config, "core.rob", &rob, err);
  if (st != IC_OK) {
    cli_run_free(&run);
    return st;
  }
  const uint64_t len = v->fraglen ? v->fraglen : cli_fragment_length((uint32_t)rob, run.max);
  static int noted; /* once per command (a suite's workloads share the machine) */
  if (v->fragment_methods && !noted) {
    cli_note_fragments(vo->cats, vo->ncat, len, (uint32_t)rob);
    noted = 1;
  }
  vo->frag.length = len;
  vo->prof.length = (uint32_t)len;
  const uint64_t warm = v->have_fragwarm ? v->fragwarm : ic_fragment_warmup_for((uint32_t)rob, len);
  vo->frag.warmup = warm;
  vo->prof.warmup = (uint32_t)warm;
  ic_profiler_set_sampling(&vo->prof, run.max, vo->frag.fragments);
  vo->progress = tty ? show_progress : NULL;
  vo->progress_ctx = &prog;
  if (tty) {
    fprintf(stderr, "\rvalidate %s: graph and graphfrag runs", wname);
    fflush(stderr);
  }
  st = ic_validate_workload(rep, wname, vo, err);
  if (tty) fprintf(stderr, "\r\033[K");
  for (int m = 0; st == IC_OK && m < IC_VALIDATE_MAX_METHODS; m++) {
    char warn[256];
    if (ic_validate_report_ci_warning(rep, ic_validate_report_workloads(rep) - 1, m, warn, sizeof warn))
      fprintf(stderr, "icost: warning: %s: %s\n", wname, warn);
  }
  cli_run_free(&run);
  return st;
}

/* The report with its provenance: the machine and program of the runs (a
 * suite: the manifest's tag as the workload, no program). */
static ic_status write_report(const cli_run_opts *ro, const vopts *v, int suite,
                              ic_emit_format fmt, const ic_validate_report *rep, int show_all,
                              ic_err *err) {
  cli_run run;
  memset(&run, 0, sizeof run);
  ic_status st = ooo_config_load(&run.config, ro->config_path, err);
  for (int k = 0; st == IC_OK && k < ro->nsets; k++) st = ooo_config_set(run.config, ro->sets[k], err);
  if (st == IC_OK && !suite && !ro->trace)
    st = cli_workload_resolve_from(&run.workload, NULL, NULL, ro->workload, ro->prog_argc,
                                   ro->prog_argv, err);
  ic_emit *em = NULL;
  if (st == IC_OK) st = ic_emit_open(&em, stdout, fmt, err);
  if (st == IC_OK) {
    ic_provenance p;
    char hash[17];
    cli_run_provenance(ro, &run, "validate", &p, hash);
    if (suite) p.workload = v->suite_tag ? v->suite_tag : "full";
    ic_emit_provenance(em, &p);
    if ((st = ic_validate_report_emit(rep, em, show_all, err)) == IC_OK)
      st = ic_emit_close(em, err);
    else
      ic_emit_abandon(em);
  }
  ooo_config_destroy(run.config);
  cli_workload_free(&run.workload);
  return st;
}

int cmd_validate(int argc, char **argv) {
  vopts v = {.fragseed = 1};
  cli_run_opts ro;
  ic_err err;
  ic_status st = cli_run_parse(argc, argv, &ro, validate_options, parse_extra, &v, &err);
  if (st != IC_OK) return cli_fail_err(st, &err);
  if (ro.help) {
    fputs(validate_help, stdout);
    return 0;
  }
  uint8_t cats[IC_SOLVER_MAX_CATS];
  int ncat = 0;
  static ic_scopes scopes; /* the scoped categories, names looked up in the program */
  if (v.categories) {
    cli_workload w = {0};
    const char *prog = NULL;
    if (!v.suite && !v.suite_tag && !ro.trace && strchr(v.categories, '@') &&
        cli_workload_resolve(&w, ro.workload, ro.prog_argc, ro.prog_argv, &err) == IC_OK &&
        w.argc > 0)
      prog = w.argv[0];
    st = cli_categories(prog, v.categories, cats, &ncat, IC_SOLVER_MAX_CATS, &scopes, &err);
    cli_workload_free(&w);
    if (st != IC_OK) return cli_fail(2, "--categories: %s", err.msg);
    v.scopes = scopes.n ? &scopes : NULL;
  } else {
    for (int c = 0; c < IC_CAT_COUNT; c++) cats[ncat++] = (uint8_t)c;
  }
  int methods[IC_VALIDATE_MAX_METHODS], nm;
  st = ic_validate_parse_methods(v.methods ? v.methods : "graph,graphfrag", methods, &nm, &err);
  if (st != IC_OK) return cli_fail_err(st, &err);
  for (int m = 0; m < nm; m++)
    if (v.scopes && methods[m] == IC_VM_PROFILER)
      return cli_fail(2, "--methods: the profiler does not support scoped categories (its "
                         "samples carry no scope); leave it out of --methods");
  ic_emit_format fmt = IC_EMIT_TEXT;
  if (v.format && (st = cli_format_parse("validate", v.format, &fmt, &err)) != IC_OK)
    return cli_fail_err(st, &err);
  int show_all = 0;
  if (v.show) {
    if (strcmp(v.show, "all") != 0) return cli_fail(2, "--show '%s': only `all` is known", v.show);
    show_all = 1;
  }
  int suite = v.suite || v.suite_tag;
  if (suite && (ro.prog_argc > 0 || ro.workload))
    return cli_fail(2, "--suite/--suite-tag run a manifest's workloads: give no program or "
                       "--workload");

  const char *mnames[IC_VALIDATE_MAX_METHODS];
  for (int m = 0; m < nm; m++) {
    mnames[m] = ic_validate_method_names[methods[m]];
    v.fragment_methods |= methods[m] == IC_VM_GRAPHFRAG || methods[m] == IC_VM_PROFILER;
    v.profiler |= methods[m] == IC_VM_PROFILER;
  }
  ic_validate_report *rep;
  st = ic_validate_report_create(&rep, cats, ncat, mnames, nm, &err);
  if (st != IC_OK) return cli_fail_err(st, &err);
  ic_validate_run_opts vo = {.cats = cats, .ncat = ncat, .jobs = v.jobs};
  vo.frag.fragments = v.fragments;
  vo.frag.seed = v.fragseed;
  vo.prof.seed = v.fragseed;
  int tty = isatty(2);

  if (suite) {
    cli_workload *ws = NULL;
    size_t n = 0;
    st = cli_workload_list(v.suite, v.suite_tag ? v.suite_tag : "full", &ws, &n, &err);
    if (st == IC_OK && n == 0)
      st = ic_fail(&err, IC_EINPUT, "%s: no workload tagged '%s'",
                   v.suite ? v.suite : cli_workload_manifest_path(),
                   v.suite_tag ? v.suite_tag : "full");
    /* a missing program is found now, not after an hour of the suite */
    for (size_t i = 0; st == IC_OK && i < n; i++)
      if (ws[i].argc < 1 || access(ws[i].argv[0], X_OK) != 0)
        st = ic_fail(&err, IC_EINPUT, "workload %s: %s: not an executable program (build the "
                                      "workloads: bash bench/workloads/build.sh DIR)",
                     ws[i].name, ws[i].argc ? ws[i].argv[0] : "(none)");
    for (size_t i = 0; st == IC_OK && i < n; i++) {
      st = validate_one(&ro, &v, ws[i].name, ws[i].argc, ws[i].argv, rep, &vo, tty, &err);
      if (st != IC_OK) {
        ic_err inner = err;
        ic_fail(&err, st, "workload %s: %s", ws[i].name, inner.msg);
      }
    }
    cli_workload_list_free(ws, n);
  } else {
    st = validate_one(&ro, &v, NULL, 0, NULL, rep, &vo, tty, &err);
  }
  if (st == IC_OK) st = write_report(&ro, &v, suite, fmt, rep, show_all, &err);
  ic_validate_report_destroy(rep);
  if (st != IC_OK) return cli_fail_err(st, &err);
  return 0;
}
