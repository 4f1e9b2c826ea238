/* run.c: shared set-up of the commands that run a program on the timing
 * model (see run.h). */
#define _GNU_SOURCE
#include "run.h"

#include "opts.h"
#include "record_pipe.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rv.h"
#include "host.h"
#include "trace.h"
#include "trace_run.h"

int cli_parse_count(const char *s, uint64_t *out) {
  if (!s || *s < '0' || *s > '9') return -1;
  errno = 0;
  char *end;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno) return -1;
  unsigned long long mul = 1;
  if (*end == 'k' || *end == 'K') mul = 1000, end++;
  else if (*end == 'M') mul = 1000000, end++;
  else if (*end == 'G') mul = 1000000000, end++;
  if (*end || (mul > 1 && v > UINT64_MAX / mul)) return -1;
  *out = v * mul;
  return 0;
}

int cli_count_option(const char *opt, const char *v, uint64_t *out, ic_err *err) {
  if (!v) {
    ic_fail(err, IC_EINPUT, "%s: missing value", opt);
    return -1;
  }
  if (cli_parse_count(v, out) != 0) {
    ic_fail(err, IC_EINPUT, "%s '%s': expected a non-negative count", opt, v);
    return -1;
  }
  return 0;
}

int cli_parse_bytes(const char *s, uint64_t *out) {
  if (!s || *s < '0' || *s > '9') return -1;
  errno = 0;
  char *end;
  unsigned long long v = strtoull(s, &end, 10);
  if (errno) return -1;
  int shift = 0;
  if (*end == 'k' || *end == 'K') shift = 10, end++;
  else if (*end == 'M') shift = 20, end++;
  else if (*end == 'G') shift = 30, end++;
  if (*end || (shift && v > UINT64_MAX >> shift)) return -1;
  *out = (uint64_t)v << shift;
  return 0;
}

/* The options every program-running command shares (run.h). */
enum {
  O_CONFIG = CLI_OPT_COMMON, O_WORKLOAD, O_GUEST_ROOT, O_SKIP, O_WARM, O_MAX, O_SEED, O_TRACE,
  O_TRACE_FORMAT, O_ARCH, O_GUEST_MEMORY, O_SET, O_GUEST_OUTPUT
};

static const struct option common_opts[] = {
    {"config", required_argument, NULL, O_CONFIG},
    {"workload", required_argument, NULL, O_WORKLOAD},
    {"guest-root", required_argument, NULL, O_GUEST_ROOT},
    {"skip", required_argument, NULL, O_SKIP},
    {"warm", required_argument, NULL, O_WARM},
    {"max", required_argument, NULL, O_MAX},
    {"seed", required_argument, NULL, O_SEED},
    {"trace", required_argument, NULL, O_TRACE},
    {"trace-format", required_argument, NULL, O_TRACE_FORMAT},
    {"arch", required_argument, NULL, O_ARCH},
    {"guest-memory", required_argument, NULL, O_GUEST_MEMORY},
    {"set", required_argument, NULL, O_SET},
    {"guest-output", no_argument, NULL, O_GUEST_OUTPUT},
    {"help", no_argument, NULL, 'h'},
};
enum { N_COMMON = sizeof common_opts / sizeof common_opts[0] };

typedef struct run_parse {
  cli_run_opts *o;
  cli_option_fn own;
  void *own_ctx;
  const char *who, *sep; /* the message prefix: "sim" ": ", or nothing for icost */
} run_parse;

static int common_option(void *ctx, int id, const char *name, const char *v, ic_err *err) {
  run_parse *p = ctx;
  cli_run_opts *o = p->o;
  uint64_t *count = NULL;
  switch (id) {
  case 'h': o->help = 1; return 0;
  case O_GUEST_OUTPUT: o->guest_output = 1; return 0;
  case O_CONFIG: o->config_path = v; return 0;
  case O_WORKLOAD: o->workload = v; return 0;
  case O_GUEST_ROOT: o->guest_root = v; return 0;
  case O_TRACE: o->trace = v; return 0;
  case O_TRACE_FORMAT: o->trace_format = v; return 0;
  case O_ARCH: o->arch = v; return 0;
  case O_SKIP: count = &o->skip; break;
  case O_WARM: count = &o->warm; break;
  case O_MAX: count = &o->max; break;
  case O_SEED: count = &o->seed; break;
  case O_GUEST_MEMORY:
    if (cli_parse_bytes(v, &o->guest_memory) != 0) {
      ic_fail(err, IC_EINPUT, "%s%s--guest-memory needs a size in bytes (suffix K, M or G)", p->who, p->sep);
      return -1;
    }
    return 0;
  case O_SET:
    if (o->nsets == CLI_RUN_MAX_SETS) {
      ic_fail(err, IC_EINPUT, "%s%smore than %d --set options", p->who, p->sep, CLI_RUN_MAX_SETS);
      return -1;
    }
    o->sets[o->nsets++] = v;
    return 0;
  default:
    if (p->own) return p->own(p->own_ctx, id, name, v, err);
    ic_fail(err, IC_EINPUT, "%s%sunexpected option %s", p->who, p->sep, name);
    return -1;
  }
  if (cli_parse_count(v, count) != 0) {
    ic_fail(err, IC_EINPUT, "%s%s%s '%s' is not a count (digits, optional k/M/G)", p->who, p->sep, name, v);
    return -1;
  }
  if (id == O_MAX && o->max == 0) {
    ic_fail(err, IC_EINPUT, "%s%s--max 0: give a positive count (leave --max out to run to the end)", p->who,
            p->sep);
    return -1;
  }
  return 0;
}

ic_status cli_run_parse(int argc, char **argv, cli_run_opts *o, const struct option *own,
                        cli_option_fn own_fn, void *ctx, ic_err *err) {
  memset(o, 0, sizeof *o);
  o->warm = 1000000;
  o->guest_memory = RV_DEFAULT_MEM_LIMIT;
  const char *cmd = argc > 0 ? argv[0] : "icost";
  const int sub = strcmp(cmd, "icost") != 0;
  run_parse p = {o, own_fn, ctx, sub ? cmd : "", sub ? ": " : ""};
  /* the command's options, then the common ones it does not name itself */
  size_t nown = 0;
  while (own && own[nown].name) nown++;
  struct option *all = malloc((nown + N_COMMON + 1) * sizeof *all);
  if (!all) return ic_fail(err, IC_ERUN, "out of memory");
  size_t n = 0;
  for (size_t k = 0; k < nown; k++) all[n++] = own[k];
  for (size_t k = 0; k < N_COMMON; k++) {
    int named = 0;
    for (size_t j = 0; j < nown && !named; j++) named = strcmp(own[j].name, common_opts[k].name) == 0;
    if (!named) all[n++] = common_opts[k];
  }
  memset(&all[n], 0, sizeof all[n]);
  int prog;
  ic_status st = cli_getopt(argc, argv, all, CLI_WORDS_AFTER_DASHES, common_option, &p, &prog, err);
  free(all);
  if (st != IC_OK) return st;
  o->prog_argc = argc - prog;
  o->prog_argv = o->prog_argc ? argv + prog : NULL;
  return IC_OK;
}

ic_status cli_guest_load(rv_proc **out, int argc, char **argv, rv_options *opt, ic_err *err) {
  /* The guest's argv[0], AT_EXECFN and /proc/self/exe are the program's
     file name without its directory (/proc/self/exe: "/NAME"), so that where
     the program lies changes no number. */
  const char *path = argv[0], *slash = strrchr(path, '/');
  char *name = (char *)(slash && slash[1] ? slash + 1 : path);
  opt->execfn = name;
  char exe_link[300];
  snprintf(exe_link, sizeof exe_link, "/%s", name);
  opt->exe_link = exe_link;
  char **gargv = malloc(((size_t)argc + 1) * sizeof *gargv);
  if (!gargv) return ic_fail(err, IC_ERUN, "out of memory");
  memcpy(gargv, argv, ((size_t)argc + 1) * sizeof *gargv);
  gargv[0] = name;
  ic_status st = rv_proc_load(out, path, argc, gargv, opt, err);
  free(gargv);
  opt->execfn = NULL;
  opt->exe_link = NULL;
  return st;
}

ic_status cli_run_setup(const cli_run_opts *o, cli_run *r, ic_err *err) {
  memset(r, 0, sizeof *r);
  r->guest_fd = -1;
  ic_status st = ooo_config_load(&r->config, o->config_path, err);
  if (st) goto fail;
  for (int k = 0; k < o->nsets; k++)
    if ((st = ooo_config_set(r->config, o->sets[k], err))) goto fail;
  if (o->trace || o->trace_format) {
    if ((st = cli_trace_setup(o, r, err))) goto fail;
    return IC_OK;
  }
  if ((st = cli_workload_resolve(&r->workload, o->workload, o->prog_argc, o->prog_argv, err)))
    goto fail;
  uint32_t isa = ic_host_elf_isa(r->workload.argv[0], NULL);
  if (o->arch) {
    static const struct { const char *name; uint32_t isa; } arches[] = {
        {"riscv64", IC_ISA_RV64}, {"rv64", IC_ISA_RV64},       {"x86-64", IC_ISA_X86_64},
        {"x86_64", IC_ISA_X86_64}, {"aarch64", IC_ISA_AARCH64}, {"arm64", IC_ISA_AARCH64}};
    uint32_t want = 0;
    for (size_t k = 0; k < sizeof arches / sizeof arches[0]; k++)
      if (strcmp(o->arch, arches[k].name) == 0) want = arches[k].isa;
    if (!want) {
      st = ic_fail(err, IC_EINPUT, "--arch '%s': expected riscv64, x86-64 or aarch64", o->arch);
      goto fail;
    }
    if (isa != want) {
      st = ic_fail(err, IC_EINPUT, "%s: not an ELF program of %s (--arch)", r->workload.name, o->arch);
      goto fail;
    }
  }
  if (isa == IC_ISA_X86_64 || isa == IC_ISA_AARCH64) { /* through qemu-user */
    if ((st = cli_host_setup(o, r, isa, err))) goto fail;
    return IC_OK;
  }
  rv_options opt;
  rv_options_default(&opt);
  opt.seed = o->seed;
  opt.mem_limit = o->guest_memory;
  opt.root = o->guest_root;
  if (!o->guest_output) {
    r->guest_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (r->guest_fd < 0) {
      st = ic_fail(err, IC_ERUN, "/dev/null: %s", strerror(errno));
      goto fail;
    }
    opt.stdin_fd = opt.stdout_fd = opt.stderr_fd = r->guest_fd;
  }
  rv_proc *p = NULL;
  st = cli_guest_load(&p, r->workload.argc, r->workload.argv, &opt, err);
  if (st) goto fail;
  r->checkpoint = p;
  r->warm = o->warm < o->skip ? o->warm : o->skip;
  r->max = o->max;
  r->guest_output = o->guest_output;
  uint64_t fast = o->skip - r->warm;
  r->skipped = fast ? rv_proc_skip(p, fast) : 0;
  const char *why = "";
  if (rv_proc_state(p, NULL, &why) == RV_FAULT) {
    st = ic_fail(err, IC_ERUN, "%s: %s", r->workload.name, why);
    goto fail;
  }
  if (r->skipped < fast) {
    st = ic_fail(err, IC_EINPUT, "%s: the program ended after %llu instructions, within --skip %llu",
                 r->workload.name, (unsigned long long)r->skipped, (unsigned long long)o->skip);
    goto fail;
  }
  return IC_OK;
fail:
  cli_run_free(r);
  return st;
}

ic_status cli_core_run(const cli_run *r, ic_catmask ideal, const ic_graph_sink *sink,
                       cli_run_progress_fn progress, void *pctx, ic_inst_source src, ooo_core **core,
                       ic_err *err) {
  *core = NULL;
  ic_status st = ooo_create(core, r->config, ideal, err);
  if (st) return st;
  ooo_set_scopes(*core, r->scopes);
  if (sink) ooo_set_graph_sink(*core, *sink);
  if (r->fetch_log) ooo_set_fetch_log(*core, r->fetch_log, r->fetch_from, r->fetch_n);
  if (progress) ooo_set_progress(*core, progress, pctx, 1000000);
  uint64_t warmed = 0;
  if (r->warm && (st = ooo_warm(*core, src, r->warm, &warmed, err))) return st;
  return ooo_run(*core, src, r->max, err);
}

ic_status cli_core_finish(const cli_run *r, const ooo_core *core, int exited, int code, ooo_stats *stats,
                          ic_err *err) {
  if (exited && code != 0 && !atomic_exchange((_Atomic int *)&r->exit_noted, 1))
    fprintf(stderr, "icost: warning: %s exited with status %d (the numbers are of that run%s)\n",
            r->workload.name, code, r->guest_output ? "" : "; --guest-output shows its output");
  if (ooo_get_stats(core)->instructions == 0)
    return ic_fail(err, IC_EINPUT, "%s: no instructions left to time after --skip", r->workload.name);
  *stats = *ooo_get_stats(core);
  return IC_OK;
}

ic_status cli_run_execute(const cli_run *r, ic_catmask ideal, const ic_graph_sink *sink,
                          cli_run_progress_fn progress, void *pctx, ooo_stats *stats,
                          ic_err *err) {
  if (r->trace) return cli_trace_execute(r, ideal, sink, progress, pctx, stats, err);
  rv_proc *p = rv_proc_clone((const rv_proc *)r->checkpoint);
  if (!p) return ic_fail(err, IC_ERUN, "%s: out of memory cloning the program", r->workload.name);
  ooo_core *core = NULL;
  ic_status st = cli_core_run(r, ideal, sink, progress, pctx, rv_proc_source(p), &core, err);
  if (st) goto out;
  const char *why = "";
  int code = 0;
  rv_state ps = rv_proc_state(p, &code, &why);
  char nosys[400];
  if (rv_proc_nosys_summary(p, nosys, sizeof nosys) &&
      !atomic_exchange((_Atomic int *)&r->nosys_noted, 1))
    fprintf(stderr, "icost: warning: %s: unsupported system calls, answered -ENOSYS: %s\n",
            r->workload.name, nosys);
  if (ps == RV_FAULT) {
    int sig = rv_proc_signal(p, NULL);
    if (!sig || r->refuse_partial || ooo_get_stats(core)->instructions == 0) {
      st = ic_fail(err, IC_ERUN, "%s: %s", r->workload.name, why);
      goto out;
    }
    cli_run *w = (cli_run *)r; /* the first run to see it writes; every run sees the same */
    if (!atomic_exchange(&w->signal_noted, 1)) {
      snprintf(w->guest_why, sizeof w->guest_why, "%s", why);
      w->guest_signal = sig;
    }
  }
  st = cli_core_finish(r, core, ps == RV_EXITED, code, stats, err);
out:
  ooo_destroy(core);
  rv_proc_destroy(p);
  return st;
}

typedef struct graph_run {
  const cli_run *run;
  cli_run_progress_fn progress;
  void *pctx;
  ooo_stats *stats;
} graph_run;

static ic_status graph_run_once(void *ctx, const ic_graph_sink *sink, ic_err *err) {
  const graph_run *g = ctx;
  return cli_run_execute(g->run, 0, sink, g->progress, g->pctx, g->stats, err);
}

ic_status cli_run_graph(const cli_run *r, ic_graph_sink sink, int cpus, cli_run_progress_fn progress,
                        void *pctx, ooo_stats *stats, ic_err *err) {
  graph_run g = {r, progress, pctx, stats};
  return ic_record_pipe_run(sink, cpus, graph_run_once, &g, err);
}

ic_status cli_profiler_check(const cli_run *r, ic_err *err) {
  if (cli_trace_micro_ops(r))
    return ic_fail(err, IC_EINPUT,
                   "%s: the profiler does not follow x86-64 programs yet (their micro-ops share a pc, "
                   "and samples hold no micro-op index): use the graph (--method graph, validate "
                   "--methods graph,graphfrag)",
                   r->workload.name);
  return IC_OK;
}

ic_program_image cli_run_image(const cli_run *r) {
  if (r->trace) return cli_trace_image(r);
  return rv_proc_image((rv_proc *)r->checkpoint);
}

const char *cli_run_partial(const cli_run *r) {
  static _Thread_local char line[512];
  if (!r->guest_signal) return NULL;
  const char *name = r->guest_signal < 32 ? sigabbrev_np(r->guest_signal) : NULL;
  snprintf(line, sizeof line, "the guest was killed by signal %d (SIG%s; %s): the numbers are of "
           "the instructions timed before it", r->guest_signal, name ? name : "RT", r->guest_why);
  return line;
}

int cli_run_finish(const cli_run *r, int rc) {
  if (rc != 0 || !r->guest_signal) return rc;
  fprintf(stderr, "icost: %s: %s (the report above is of the instructions timed before it)\n",
          r->workload.name, r->guest_why);
  return 128 + r->guest_signal;
}

void cli_run_free(cli_run *r) {
  cli_trace_free(r);
  ooo_config_destroy(r->config);
  cli_workload_free(&r->workload);
  rv_proc_destroy((rv_proc *)r->checkpoint);
  if (r->guest_fd >= 0) close(r->guest_fd);
  memset(r, 0, sizeof *r);
  r->guest_fd = -1;
}
