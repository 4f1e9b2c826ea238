/* cmd_sweep.c: `icost sweep`: a design-space sweep over machine keys and
 * workloads (engine/sweep.h), each point an ordinary `icost` run made as a
 * child process of this binary, its YAML output kept in the results store;
 * the store's table (--export), its charts (--plot), and the same sweep as
 * a Slurm job array (--slurm-script). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "cpus.h"
#include "report.h"
#include "run.h"
#include "solver.h"
#include "sweep.h"
#include "sweep_cli.h"
#include "workload.h"


static const char sweep_help[] =
    "usage: icost sweep --vary KEY=V1,V2,... [--vary ...] [--workload NAME ...]\n"
    "                   [--categories LIST] [--method M] [--skip N] [--max N] [-j N]\n"
    "                   [--shard I/N] --out DIR [-- PROGRAM ARGS]\n"
    "       icost sweep --out DIR --export csv|json|yaml  the table of what DIR holds\n"
    "       icost sweep --out DIR --plot PLOTDIR      the sweep's charts\n"
    "\n"
    "Runs the cross product of the axes' values (the points) on every workload, one\n"
    "ordinary `icost --format yaml --set KEY=VALUE ...` run per (point, workload),\n"
    "so each run's numbers are those of the same run made by hand. Each run's\n"
    "output and provenance are written to DIR as one record file, whole or not at\n"
    "all: a rerun (after a kill, a crash, or with more values) runs only what DIR\n"
    "lacks, and many processes (cluster tasks) may share DIR.\n"
    "\n"
    "options:\n"
    "  --vary KEY=VALUES   a machine key (as --set; `icost sim --print-config` lists\n"
    "                      them) and a comma list of values; an item may be a range\n"
    "                      LO..HI (step 1), LO..HI:STEP or LO..HI*FACTOR (32..256*2:\n"
    "                      32,64,128,256). Repeatable: one axis each, at most 8\n"
    "  --file SWEEP.yaml   the sweep from a file: axes: {KEY: [values] or \"LO..HI\"},\n"
    "                      workloads: [NAMES], programs: [[PROGRAM, ARGS...]], suite,\n"
    "                      categories, method, config, set: [KEY=VALUE], skip, max,\n"
    "                      warm, seed; options given on the command line win, axes,\n"
    "                      workloads and sets of both are taken together\n"
    "  --workload NAME     a manifest workload (repeatable; default: the default one)\n"
    "  --suite TAG         every manifest workload with the tag (short, full, extra)\n"
    "  --categories LIST   as icost (default: all eight)\n"
    "  --method M          as icost: graph (default), multisim, graphfrag, profiler\n"
    "  --no-shapley        do not compute the Shapley shares (by default every run\n"
    "                      solves every subset of the categories for them: 2^n)\n"
    "  --config F, --set KEY=VALUE, --skip N, --warm N, --max N, --seed S\n"
    "                      as icost, the same for every point\n"
    "  -j, --jobs N        runs at once (default: the CPUs this process may use,\n"
    "                      sched_getaffinity; never more); each run gets -j of the\n"
    "                      CPUs divided by N (at least 1)\n"
    "  --shard I/N         run only shard I (0 <= I < N) of N: the runs whose index\n"
    "                      modulo N is I (default under a Slurm job array:\n"
    "                      SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN of\n"
    "                      SLURM_ARRAY_TASK_COUNT)\n"
    "  --out DIR           the results store (created if missing)\n"
    "  --export F          after running (or alone), write every record in DIR to\n"
    "                      stdout: csv (a table), json or yaml (see below)\n"
    "  --plot PLOTDIR      after running (or alone), draw the charts of DIR into\n"
    "                      PLOTDIR: per category a sensitivity chart (its Shapley\n"
    "                      share, else its cost, in percent of t against the first\n"
    "                      swept key, a line per value of the second) and the\n"
    "                      breakdowns of all points side by side, per workload; SVG\n"
    "                      and PNG each\n"
    "  --slurm-script F    do not run: write an sbatch job-array script to F whose\n"
    "                      task I runs `icost sweep ... --shard I/N` (N: --tasks,\n"
    "                      default the number of runs, at most 64)\n"
    "  --tasks N           array tasks of --slurm-script\n"
    "  --submit            with --slurm-script: submit it with sbatch\n"
    "\n"
    "On a cluster without Slurm, the same shards run under GNU parallel, e.g.\n"
    "  parallel --sshloginfile hosts icost sweep ARGS --shard {}/8 -j 1 ::: $(seq 0 7)\n"
    "with DIR on a file system every host sees.\n"
    "\n"
    "numbers: a record holds its point (the swept keys and values), provenance\n"
    "(icost version, config, every override, the resolved machine, workload, argv,\n"
    "program_hash: FNV-1a 64 of the program file, categories, method, skip, warm,\n"
    "max, seed), then the run's own `icost --format yaml` output (cycles,\n"
    "instructions, breakdown entries in cycles and percent of t, the Shapley shares;\n"
    "see `icost --help`), and where and how long it ran. The csv table has a row\n"
    "per record: a column per swept key, workload, provenance, instructions, cycles,\n"
    "ipc (instructions / cycles), then NAME_cycles and NAME_percent per breakdown\n"
    "entry and shapley_NAME_cycles, shapley_NAME_percent; json and yaml, the\n"
    "export's provenance (icost's version; program, machine and overrides are\n"
    "null or empty there, as the records differ in them) and `runs`, a list of\n"
    "the records as stored, each with its own provenance, without where they\n"
    "ran, and with ipc.\n"
    "\n"
    "progress: on stderr, runs finished of those to run and an estimate of the time\n"
    "left (the mean time per finished run so far times the runs left, divided over\n"
    "nothing: runs in flight are counted as not started).\n";

/* ---- options ---------------------------------------------------------- */

typedef struct sweep_opts {
  ic_sweep_axis axes[IC_SWEEP_MAX_AXES];
  int naxes;
  const char *categories, *method, *out, *export_fmt, *plot, *slurm, *suite, *shard, *file;
  int no_shapley, submit;
  uint64_t jobs, tasks;
  const char *wnames[256]; /* --workload NAME, in order */
  int nwnames;
} sweep_opts;

enum {
  O_VARY = CLI_OPT_OWN, O_CATEGORIES, O_METHOD, O_OUT, O_EXPORT, O_PLOT, O_SLURM_SCRIPT, O_SUITE, O_SHARD,
  O_FILE, O_NO_SHAPLEY, O_SUBMIT, O_TASKS, O_WORKLOAD
};

/* --workload is sweep's own: repeatable, one run per name */
static const struct option sweep_options[] = {
    {"vary", required_argument, NULL, O_VARY},
    {"workload", required_argument, NULL, O_WORKLOAD},
    {"categories", required_argument, NULL, O_CATEGORIES},
    {"method", required_argument, NULL, O_METHOD},
    {"out", required_argument, NULL, O_OUT},
    {"export", required_argument, NULL, O_EXPORT},
    {"plot", required_argument, NULL, O_PLOT},
    {"slurm-script", required_argument, NULL, O_SLURM_SCRIPT},
    {"suite", required_argument, NULL, O_SUITE},
    {"shard", required_argument, NULL, O_SHARD},
    {"file", required_argument, NULL, O_FILE},
    {"no-shapley", no_argument, NULL, O_NO_SHAPLEY},
    {"submit", no_argument, NULL, O_SUBMIT},
    {"jobs", required_argument, NULL, 'j'},
    {"tasks", required_argument, NULL, O_TASKS},
    {NULL, 0, NULL, 0},
};

static int sweep_option(void *ctx, int id, const char *name, const char *v, ic_err *err) {
  sweep_opts *o = ctx;
  switch (id) {
  case O_NO_SHAPLEY: o->no_shapley = 1; return 0;
  case O_SUBMIT: o->submit = 1; return 0;
  case O_VARY:
    if (o->naxes == IC_SWEEP_MAX_AXES) {
      ic_fail(err, IC_EINPUT, "sweep: more than %d --vary axes", IC_SWEEP_MAX_AXES);
      return -1;
    }
    if (ic_sweep_axis_parse(v, &o->axes[o->naxes], err) != IC_OK) return -1;
    o->naxes++;
    return 0;
  case O_WORKLOAD:
    if (o->nwnames == (int)(sizeof o->wnames / sizeof o->wnames[0])) {
      ic_fail(err, IC_EINPUT, "sweep: more than %zu --workload options", sizeof o->wnames / sizeof o->wnames[0]);
      return -1;
    }
    o->wnames[o->nwnames++] = v;
    return 0;
  case O_CATEGORIES: o->categories = v; return 0;
  case O_METHOD: o->method = v; return 0;
  case O_OUT: o->out = v; return 0;
  case O_EXPORT: o->export_fmt = v; return 0;
  case O_PLOT: o->plot = v; return 0;
  case O_SLURM_SCRIPT: o->slurm = v; return 0;
  case O_SUITE: o->suite = v; return 0;
  case O_SHARD: o->shard = v; return 0;
  case O_FILE: o->file = v; return 0;
  }
  uint64_t *dst = id == 'j' ? &o->jobs : &o->tasks;
  if (cli_parse_count(v, dst) != 0 || *dst == 0 || *dst > 100000) {
    ic_fail(err, IC_EINPUT, "sweep: %s '%s': expected a count from 1 to 100000", name, v);
    return -1;
  }
  return 0;
}

/* "I/N" with 0 <= I < N; 0 on success. */
static int parse_shard(const char *s, int *i, int *n) {
  char *e;
  errno = 0;
  long a = strtol(s, &e, 10);
  if (e == s || *e != '/' || errno) return -1;
  const char *s2 = e + 1;
  long b = strtol(s2, &e, 10);
  if (e == s2 || *e || errno || b < 1 || b > 1000000 || a < 0 || a >= b) return -1;
  *i = (int)a;
  *n = (int)b;
  return 0;
}

/* The shard from a Slurm job array's environment; 1 if set, 0 if not,
 * -1 (message in err) if set but unusable. */
static int slurm_shard(int *i, int *n, ic_err *err) {
  const char *id = getenv("SLURM_ARRAY_TASK_ID"), *cnt = getenv("SLURM_ARRAY_TASK_COUNT");
  const char *mn = getenv("SLURM_ARRAY_TASK_MIN");
  if (!id || !*id) return 0;
  char *e;
  long a = strtol(id, &e, 10), m = mn && *mn ? strtol(mn, NULL, 10) : 0,
       c = cnt && *cnt ? strtol(cnt, NULL, 10) : 0;
  if (*e || c < 1 || a - m < 0 || a - m >= c) {
    ic_fail(err, IC_EINPUT,
            "sweep: SLURM_ARRAY_TASK_ID=%s with SLURM_ARRAY_TASK_MIN=%s, "
            "SLURM_ARRAY_TASK_COUNT=%s is not a shard (give --shard I/N)",
            id, mn ? mn : "(unset)", cnt ? cnt : "(unset)");
    return -1;
  }
  *i = (int)(a - m);
  *n = (int)c;
  return 1;
}

/* ---- running one point: a child `icost` ------------------------------- */

typedef struct sweep_run_ctx {
  char exe[4096];
  const unsigned char *is_program; /* per workload: by -- PROGRAM, else --workload NAME */
  int child_jobs;                  /* -j of each run: the CPUs / the runs at once */
} sweep_run_ctx;

/* argv of the child run (strings owned by *store, freed by the caller). */
static char **child_argv(const sweep_run_ctx *c, const ic_sweep_spec *s, size_t point, size_t wl,
                         char ***store, int *nstore) {
  const int cap = 64 + 2 * (IC_SWEEP_MAX_AXES + CLI_RUN_MAX_SETS) + s->workloads[wl].argc;
  char **av = calloc((size_t)cap, sizeof *av);
  char **own = calloc((size_t)cap, sizeof *own);
  int n = 0, no = 0;
#define OWN(x) (own[no++] = (x))
  av[n++] = (char *)c->exe;
  av[n++] = "--format";
  av[n++] = "yaml";
  if (s->config_path) {
    av[n++] = "--config";
    av[n++] = (char *)s->config_path;
  }
  char *ov[IC_SWEEP_MAX_AXES + CLI_RUN_MAX_SETS];
  int nov = ic_sweep_overrides(s, point, ov, IC_SWEEP_MAX_AXES + CLI_RUN_MAX_SETS);
  for (int k = 0; k < nov; k++) {
    av[n++] = "--set";
    av[n++] = OWN(ov[k]);
  }
  if (s->categories) {
    av[n++] = "--categories";
    av[n++] = (char *)s->categories;
  }
  av[n++] = "--method";
  av[n++] = (char *)s->method;
  if (s->shapley) {
    av[n++] = "--show";
    av[n++] = "shapley";
  }
  const char *nn[] = {"--skip", "--warm", "--max", "--seed"};
  uint64_t nv[] = {s->skip, s->warm, s->max, s->seed};
  for (int k = 0; k < 4; k++) {
    if (k == 2 && nv[k] == 0) continue; /* no --max: to the end */
    char *v = NULL;
    if (asprintf(&v, "%llu", (unsigned long long)nv[k]) < 0) v = NULL;
    av[n++] = (char *)nn[k];
    av[n++] = OWN(v);
  }
  {
    /* each run gets its part of the CPUs: -j N runs at once share them */
    char *v = NULL;
    if (asprintf(&v, "%d", c->child_jobs) < 0) v = NULL;
    av[n++] = "-j";
    av[n++] = OWN(v);
  }
  if (!c->is_program[wl]) {
    av[n++] = "--workload";
    av[n++] = (char *)s->workloads[wl].name;
  } else {
    av[n++] = "--";
    for (int k = 0; k < s->workloads[wl].argc; k++) av[n++] = s->workloads[wl].argv[k];
  }
  av[n] = NULL;
#undef OWN
  *store = own;
  *nstore = no;
  return av;
}

/* The last non-empty line of what fd holds (the child's stderr). */
static void last_line(int fd, char *out, size_t cap) {
  out[0] = 0;
  off_t end = lseek(fd, 0, SEEK_END);
  if (end <= 0) return;
  off_t from = end > 4096 ? end - 4096 : 0;
  char buf[4097];
  ssize_t n = pread(fd, buf, (size_t)(end - from), from);
  if (n <= 0) return;
  buf[n] = 0;
  while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r')) buf[--n] = 0;
  char *l = strrchr(buf, '\n');
  l = l ? l + 1 : buf;
  if (!strncmp(l, "icost: ", 7)) l += 7;
  size_t len = strlen(l);
  if (len >= cap) len = cap - 1;
  memcpy(out, l, len);
  out[len] = 0;
}

static ic_status run_point(void *ctx, const ic_sweep_spec *s, size_t point, size_t wl, int fd,
                           ic_err *err) {
  const sweep_run_ctx *c = ctx;
  char **own;
  int nown;
  char **av = child_argv(c, s, point, wl, &own, &nown);
  int errfd = memfd_create("icost-sweep-stderr", MFD_CLOEXEC);
  int nullfd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  ic_status st = IC_OK;
  if (errfd < 0 || nullfd < 0) {
    st = ic_fail(err, IC_ERUN, "sweep: %s", strerror(errno));
    goto out;
  }
  pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0) {
    st = ic_fail(err, IC_ERUN, "sweep: fork: %s", strerror(errno));
    goto out;
  }
  if (pid == 0) {
    /* a killed sweep takes its runs with it */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    if (dup2(nullfd, 0) < 0 || dup2(fd, 1) < 0 || dup2(errfd, 2) < 0) _exit(127);
    execv(c->exe, av);
    _exit(127);
  }
  int ws;
  while (waitpid(pid, &ws, 0) < 0)
    if (errno != EINTR) {
      st = ic_fail(err, IC_ERUN, "sweep: waitpid: %s", strerror(errno));
      goto out;
    }
  if (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0) {
    char why[400];
    last_line(errfd, why, sizeof why);
    char where[256];
    int p = snprintf(where, sizeof where, "%s", s->workloads[wl].name);
    for (int k = 0; k < s->naxes && p < (int)sizeof where; k++)
      p += snprintf(where + p, sizeof where - (size_t)p, " %s=%s", s->axes[k].key,
                    ic_sweep_value(s, point, k));
    if (WIFEXITED(ws))
      st = ic_fail(err, WEXITSTATUS(ws) == 2 ? IC_EINPUT : IC_ERUN, "%s: exit %d: %s", where,
                   WEXITSTATUS(ws), why[0] ? why : "(no message)");
    else
      st = ic_fail(err, IC_ERUN, "%s: killed by signal %d", where, WTERMSIG(ws));
  }
out:
  if (errfd >= 0) close(errfd);
  if (nullfd >= 0) close(nullfd);
  for (int k = 0; k < nown; k++) free(own[k]);
  free(own);
  free(av);
  return st;
}

/* ---- progress ---------------------------------------------------------- */

static void fmt_duration(char *buf, size_t cap, double s) {
  if (isnan(s)) snprintf(buf, cap, "?");
  else if (s < 60) snprintf(buf, cap, "%.0fs", s);
  else if (s < 3600) snprintf(buf, cap, "%dm%02ds", (int)s / 60, (int)s % 60);
  else snprintf(buf, cap, "%dh%02dm", (int)s / 3600, (int)s % 3600 / 60);
}

static void progress(void *ctx, size_t done, size_t todo, size_t failed, double left) {
  const int tty = *(const int *)ctx;
  char d[32];
  fmt_duration(d, sizeof d, left);
  fprintf(stderr, "%sicost: sweep: %zu/%zu runs done", tty ? "\r\033[K" : "", done, todo);
  if (failed) fprintf(stderr, " (%zu failed)", failed);
  if (done < todo) fprintf(stderr, ", about %s left", d);
  fputs(tty ? "" : "\n", stderr);
  fflush(stderr);
}

/* ---- the command -------------------------------------------------------- */

int cmd_sweep(int argc, char **argv) {
  static char name[] = "sweep";
  argv[0] = name;
  sweep_opts so;
  memset(&so, 0, sizeof so);
  const char **wnames = so.wnames;
  int nwnames = 0;
  cli_run_opts ro;
  ic_err err;
  int rc = 0;
  cli_workload *wls = NULL;
  size_t nwls = 0;
  ic_sweep_workload *sw = NULL;
  unsigned char *is_program = NULL;
  sweep_file sf;
  memset(&sf, 0, sizeof sf);
  const char *sets[2 * CLI_RUN_MAX_SETS];
  int nsets = 0;
  ic_status st = cli_run_parse(argc, argv, &ro, sweep_options, sweep_option, &so, &err);
  if (st != IC_OK) {
    rc = cli_fail_err(st, &err);
    goto done;
  }
  nwnames = so.nwnames;
  if (ro.help) {
    fputs(sweep_help, stdout);
    goto done;
  }
  if (!so.out) {
    rc = cli_fail(2, "sweep: --out DIR is required (the results store)");
    goto done;
  }
  int export_fmt = -1; /* an ic_emit_format */
  if (so.export_fmt) {
    ic_emit_format f;
    if (ic_emit_format_parse(so.export_fmt, &f, &err) != IC_OK || f == IC_EMIT_TEXT) {
      rc = cli_fail(2, "sweep: --export '%s': expected csv, json or yaml", so.export_fmt);
      goto done;
    }
    export_fmt = (int)f;
  }
  if (so.naxes == 0 && !so.file) {
    if (!so.export_fmt && !so.plot) {
      rc = cli_fail(2, "sweep: no --vary axis (or --export/--plot to read %s)", so.out);
      goto done;
    }
    rc = sweep_read_out(so.out, export_fmt, so.plot);
    goto done;
  }

  /* the spec: a sweep file's and the command line's, then checks of every
     input before anything runs */
  if (so.file) {
    if ((st = sweep_file_load(so.file, &sf, &err)) != IC_OK) {
      rc = cli_fail(2, "sweep: --file %s", err.msg);
      goto done;
    }
    for (int a = 0; a < sf.naxes; a++) {
      if (so.naxes == IC_SWEEP_MAX_AXES) {
        rc = cli_fail(2, "sweep: more than %d axes", IC_SWEEP_MAX_AXES);
        goto done;
      }
      if ((st = ic_sweep_axis_parse(sf.axes[a], &so.axes[so.naxes], &err)) != IC_OK) {
        rc = cli_fail(2, "sweep: %s: %s", so.file, err.msg);
        goto done;
      }
      so.naxes++;
    }
    for (int j = 0; j < sf.nworkloads && nwnames < 256; j++) wnames[nwnames++] = sf.workloads[j];
    if (!so.categories) so.categories = sf.categories;
    if (!so.method) so.method = sf.method;
    if (!so.suite) so.suite = sf.suite;
    if (!ro.config_path) ro.config_path = sf.config;
    if (!ro.skip && sf.have[0]) ro.skip = sf.count[0];
    if (!ro.max && sf.have[1]) ro.max = sf.count[1];
    if (ro.warm == 1000000 && sf.have[2]) ro.warm = sf.count[2];
    if (!ro.seed && sf.have[3]) ro.seed = sf.count[3];
    for (int j = 0; j < sf.nsets && nsets < CLI_RUN_MAX_SETS; j++) sets[nsets++] = sf.sets[j];
  }
  for (int j = 0; j < ro.nsets; j++) sets[nsets++] = ro.sets[j];
  if (!so.method) so.method = "graph";
  if (so.suite) {
    if ((st = cli_workload_list(NULL, so.suite, &wls, &nwls, &err)) != IC_OK) {
      rc = cli_fail(2, "sweep: --suite: %s", err.msg);
      goto done;
    }
    if (nwls == 0) {
      rc = cli_fail(2, "sweep: --suite %s: no workload has that tag", so.suite);
      goto done;
    }
  }
  const size_t nprog = (size_t)sf.nprograms + (ro.prog_argc > 0);
  size_t nw = nwls + (size_t)nwnames + nprog;
  const int use_default = nw == 0;
  if (use_default) nw = 1;
  cli_workload *all = calloc(nw, sizeof *all);
  sw = calloc(nw, sizeof *sw);
  is_program = calloc(nw, 1);
  if (!all || !sw || !is_program) {
    free(all);
    rc = cli_fail(1, "out of memory");
    goto done;
  }
  size_t k = 0;
  for (size_t j = 0; j < nwls; j++) {
    st = cli_workload_resolve(&all[k], wls[j].name, 0, NULL, &err);
    if (st != IC_OK) break;
    k++;
  }
  for (int j = 0; j < nwnames && st == IC_OK; j++) {
    st = cli_workload_resolve(&all[k], wnames[j], 0, NULL, &err);
    if (st == IC_OK) k++;
  }
  for (int j = 0; j < sf.nprograms && st == IC_OK; j++) {
    st = cli_workload_resolve(&all[k], NULL, sf.prog_argc[j], sf.programs[j], &err);
    if (st == IC_OK) is_program[k++] = 1;
  }
  if (st == IC_OK && (ro.prog_argc > 0 || use_default)) {
    st = cli_workload_resolve(&all[k], NULL, ro.prog_argc, ro.prog_argv, &err);
    if (st == IC_OK) is_program[k++] = ro.prog_argc > 0;
  }
  for (size_t j = 0; j < k && st == IC_OK; j++) {
    for (size_t i = 0; i < j; i++)
      if (!strcmp(all[i].name, all[j].name))
        st = ic_fail(&err, IC_EINPUT, "sweep: workload '%s' given twice", all[j].name);
    sw[j].name = all[j].name;
    sw[j].argc = all[j].argc;
    sw[j].argv = all[j].argv;
    if (st == IC_OK) st = ic_sweep_hash_file(all[j].argv[0], &sw[j].program_hash, &err);
  }
  if (st != IC_OK) {
    for (size_t j = 0; j < k; j++) cli_workload_free(&all[j]);
    free(all);
    rc = cli_fail_err(st, &err);
    goto done;
  }
  if (so.categories) {
    uint8_t cats[16];
    int ncat;
    if (ic_parse_categories(so.categories, cats, &ncat, &err) != IC_OK) {
      rc = cli_fail(2, "sweep: --categories: %s", err.msg);
      goto free_all;
    }
  }
  if (strcmp(so.method, "graph") && strcmp(so.method, "multisim") &&
      strcmp(so.method, "graphfrag") && strcmp(so.method, "profiler")) {
    rc = cli_fail(2, "sweep: --method '%s': expected graph, multisim, graphfrag or profiler",
                  so.method);
    goto free_all;
  }
  ic_sweep_spec spec = {.config_path = ro.config_path, .sets = sets, .nsets = nsets,
                        .axes = so.axes, .naxes = so.naxes, .workloads = sw, .nworkloads = (int)k,
                        .categories = so.categories, .method = so.method, .skip = ro.skip,
                        .warm = ro.warm, .max = ro.max, .seed = ro.seed,
                        .shapley = !so.no_shapley, .version = cli_version()};
  if ((st = ic_sweep_check(&spec, &err)) != IC_OK) {
    rc = cli_fail_err(st, &err);
    goto free_all;
  }
  int shard = 0, nshards = 1;
  if (so.shard) {
    if (parse_shard(so.shard, &shard, &nshards) != 0) {
      rc = cli_fail(2, "sweep: --shard '%s': expected I/N with 0 <= I < N", so.shard);
      goto free_all;
    }
  } else if (slurm_shard(&shard, &nshards, &err) < 0) {
    rc = cli_fail(2, "%s", err.msg);
    goto free_all;
  }
  const int cpus = ic_cpus_allowed();
  int jobs = so.jobs ? (int)so.jobs : cpus;
  if (jobs > cpus) jobs = cpus;

  if (so.slurm) {
    rc = sweep_slurm_script(so.slurm, argc, argv, so.tasks, ic_sweep_jobs(&spec), so.submit);
    goto free_all;
  }

  sweep_run_ctx rcx = {.is_program = is_program,
                       .child_jobs = cpus / jobs > 0 ? cpus / jobs : 1};
  ssize_t el = readlink("/proc/self/exe", rcx.exe, sizeof rcx.exe - 1);
  if (el <= 0) {
    rc = cli_fail(1, "sweep: cannot find the icost binary: %s", strerror(errno));
    goto free_all;
  }
  rcx.exe[el] = 0;
  int tty = isatty(2);
  ic_sweep_run_opts o = {.dir = so.out, .threads = jobs, .shard = shard, .nshards = nshards,
                         .run = run_point, .run_ctx = &rcx, .progress = progress,
                         .progress_ctx = &tty};
  ic_sweep_summary sum;
  {
    size_t total = ic_sweep_jobs(&spec);
    fprintf(stderr, "icost: sweep: %zu points x %d workloads = %zu runs", ic_sweep_points(&spec),
            spec.nworkloads, total);
    if (nshards > 1) fprintf(stderr, ", shard %d/%d", shard, nshards);
    fprintf(stderr, ", %d at once, into %s\n", jobs, so.out);
  }
  st = ic_sweep_run(&spec, &o, &sum, &err);
  if (tty) fputs("\n", stderr);
  if (st != IC_OK) {
    rc = cli_fail_err(st, &err);
    goto free_all;
  }
  printf("sweep: %zu runs in this shard: %zu already in %s, %zu run now, %zu failed\n",
         sum.in_shard, sum.present, so.out, sum.done, sum.failed);
  fflush(stdout);
  if (sum.failed) {
    rc = cli_fail(1, "sweep: %zu of %zu runs failed (rerun to retry them); first: %s", sum.failed,
                  sum.in_shard - sum.present, sum.first_error);
    goto free_all;
  }
  if (so.export_fmt || so.plot) rc = sweep_read_out(so.out, export_fmt, so.plot);
free_all:
  for (size_t j = 0; j < k; j++) cli_workload_free(&all[j]);
  free(all);
done:
  for (int a = 0; a < so.naxes; a++) ic_sweep_axis_free(&so.axes[a]);
  cli_workload_list_free(wls, nwls);
  free(sw);
  free(is_program);
  sweep_file_free(&sf);
  return rc;
}
