/* run.h: shared set-up of the commands that run a program on the timing model
 * (sim, icost, critical, graph, later validate/multisim).
 *
 * Two steps. cli_run_parse reads the common options
 *
 *   --config F        machine file (default: configs/baseline.yaml)
 *   --set KEY=VALUE   override one config key (repeatable)
 *   --skip N          instructions to fast-forward before the timed part;
 *                     the last min(N, --warm) of them warm caches, TLBs and
 *                     branch predictors (functional warming)
 *   --warm N          warming length (default 1000000)
 *   --max N           timed instructions (absent: to the end; 0 is refused)
 *   --seed S          guest seed (AT_RANDOM, getrandom, /dev/urandom)
 *   --guest-memory N  bytes the guest may map (default 4G)
 *   --guest-root DIR  the guest's path lookups stay inside DIR
 *   --workload NAME   manifest workload instead of the default one
 *   --guest-output    let the guest write to our stdout/stderr
 *   -- PROGRAM ARGS   the program to run (else the default workload)
 *   --trace FILE      a trace file (icost record) instead of a program;
 *                     --skip seeks in it, every run replays it
 *   --trace-format F  icost (default) or champsim (else by the name)
 *   --arch A          riscv64, x86-64 or aarch64: the program must be of A
 *                     (the frontend follows the ELF's machine either way)
 *   -h, --help
 *
 * and hands every other option to the command's callback. cli_run_setup then
 * loads the config, resolves the workload, loads the program and
 * fast-forwards it to the start of the warming part; the result is a
 * checkpoint. cli_run_execute clones that checkpoint, warms and runs a fresh
 * core with the given idealizations and optional graph sink, so a command can
 * run the same interval many times (multisim). A guest killed by a signal
 * before any timed instruction ends the run with IC_ERUN and the emulator's
 * reason; after some, the run is reported as partial (below). The
 * unsupported system calls of a run (answered -ENOSYS) are listed once on
 * stderr. A
 * guest that exits with a nonzero status is timed as usual (a benchmark may
 * return anything), but the first run of a cli_run to see it says so in
 * one warning line on stderr: a program that failed early (a missing input
 * file, bad arguments) would otherwise be analysed silently, its own
 * message hidden without --guest-output. */
#ifndef IC_CLI_RUN_H
#define IC_CLI_RUN_H

#include <stdint.h>

#include "categories.h"
#include "graph_rec.h"
#include "ic_err.h"
#include "ooo.h"
#include "opts.h"
#include "rv.h"
#include "workload.h"

#define CLI_RUN_MAX_SETS 64

typedef struct cli_run_opts {
  const char *config_path;               /* NULL: baseline */
  const char *sets[CLI_RUN_MAX_SETS];    /* --set arguments, in order */
  int nsets;
  uint64_t skip, warm, max, seed;
  uint64_t guest_memory;                 /* --guest-memory (bytes) */
  const char *guest_root;                /* --guest-root DIR or NULL */
  const char *workload;                  /* --workload NAME or NULL */
  int guest_output;
  int help;                              /* --help or -h was given */
  int prog_argc;                         /* after `--` */
  char **prog_argv;
  const char *trace;                     /* --trace FILE instead of a program */
  const char *trace_format;              /* --trace-format icost|champsim, or NULL */
  const char *arch;                      /* --arch: the program's isa, checked */
  int once;                              /* set by a command that times the run once: an
                                            x86-64/AArch64 program then streams live from
                                            qemu instead of being recorded first */
} cli_run_opts;

/* Parses argv[1..argc-1] (argv[0] is the command's name, "icost" or "sim",
 * for the messages) with cli_getopt (opts.h): the options above and the
 * command's own (table own, ending with a zero entry; NULL for none), each
 * of which goes to own_fn. A command that names a common option in own
 * takes it over (sweep's repeatable --workload). The program is what
 * follows `--`. IC_EINPUT with a one-line message for bad usage. Counts
 * take k, M, G as 10^3, 10^6, 10^9 (cli_parse_count); sizes in bytes K, M,
 * G as KiB, MiB, GiB (cli_parse_bytes), as machine configs do. */
ic_status cli_run_parse(int argc, char **argv, cli_run_opts *opts, const struct option *own,
                        cli_option_fn own_fn, void *ctx, ic_err *err);

/* Parses a size in bytes with optional K/M/G suffix (KiB, MiB, GiB: "512M");
   0 on success. */
int cli_parse_bytes(const char *s, uint64_t *out);

/* What the guest sees of the host, for the --help of the commands that run
   a program (README has the same words). */
#define GUEST_ENV_HELP                                                                   \
  "The guest sees the host as under qemu-riscv64: it reads and writes the host's\n"      \
  "files with icost's permissions, from icost's working directory (--guest-root\n"     \
  "DIR confines its paths to DIR). What would make runs differ is virtual: time\n"     \
  "(1 ns per instruction from a fixed epoch), pid 1000, uid 1000, one cpu,\n"          \
  "getrandom, AT_RANDOM, /dev/urandom and /dev/random (all from --seed), the\n"        \
  "environment (LANG=C and a fixed PATH); the timing commands give it its\n"           \
  "program's file name without the directory as argv[0], AT_EXECFN and\n"            \
  "/proc/self/exe (\"/NAME\"), so the directory a program lies in changes no\n"      \
  "number (`icost emu` passes the path as given, as qemu-riscv64 does).\n"            \
  "/proc/self/maps lists the guest's own mappings.\n"

/* Parses a decimal count with optional k/M/G suffix ("10M"); 0 on success. */
int cli_parse_count(const char *s, uint64_t *out);

/* A command option's count value v (option name opt, for the message): 0,
 * or -1 with *err saying what is wrong (a cli_option_fn's return). */
int cli_count_option(const char *opt, const char *v, uint64_t *out, ic_err *err);

/* A set-up run: the config, the workload and the checkpoint at the start of
 * the warming part. */
typedef struct cli_run {
  ooo_config *config;
  cli_workload workload;
  void *checkpoint;        /* rv_proc *, positioned at the warming start */
  uint64_t warm;           /* instructions to warm before timing */
  uint64_t max;            /* timed instructions (0: to the end) */
  int guest_fd;            /* /dev/null fd for guest output, or -1 */
  uint64_t skipped;        /* instructions actually fast-forwarded */
  int guest_output;        /* --guest-output was given */
  _Atomic int exit_noted;  /* the guest's nonzero exit status was reported */
  void *trace;             /* the --trace reader (trace_run.h); checkpoint is then NULL */
  _Atomic int nosys_noted; /* its unsupported system calls were listed */
  _Atomic int signal_noted; /* guest_signal and guest_why are set */
  int guest_signal;        /* the signal that killed the guest in the timed part, or 0 */
  int refuse_partial;      /* set by the caller: a guest killed by a signal fails the run
                              (validate compares methods over complete runs only) */
  char guest_why[400];     /* the emulator's reason for it */
  uint64_t *fetch_log;     /* set by the caller: ooo_set_fetch_log of each run's core */
  uint64_t fetch_from, fetch_n;
  const ic_scopes *scopes; /* scoped categories of the run's category list, or NULL
                              (set by the command; every core of the run gets them) */
} cli_run;

/* Whether the profiler can follow run r: IC_OK, or IC_EINPUT with the
 * reason (x86-64 micro-ops share a pc, and samples and signatures hold no
 * micro-op index, so stitching would join the wrong instructions). */
ic_status cli_profiler_check(const cli_run *r, ic_err *err);

/* A run whose guest was killed by a signal (a fault, abort) after some
 * timed instructions is reported as far as it went, as gem5 dumps its
 * statistics: cli_run_execute returns IC_OK with the statistics of the
 * instructions timed before it, and a command marks its report with
 * cli_run_partial's line and ends with cli_run_finish. */
/* Parses a --categories list (model/scope.h: CATEGORY or CATEGORY@WHERE)
 * into cats[] and *scopes, resolving function names and FILE:LINE ranges in
 * the ELF file `program` (NULL: none, only pc ranges), and publishes the
 * scopes' names for reports; a run gets them in cli_run.scopes. IC_EINPUT
 * with one line. */
/* The --help paragraph on scoped categories (icost, icost validate). */
#define CLI_SCOPED_HELP \
  "Scoped categories: CATEGORY@WHERE idealizes the category's events of the\n" \
  "instructions in WHERE only, in the graph and in the model alike; WHERE is a\n" \
  "function (NAME, with its .cold/.part parts), FILE:LINE, FILE:FIRST-LAST (DWARF\n" \
  "lines) or a pc range 0xLO-0xHI (LO included, HI not). The row is named as\n" \
  "written (dmiss@hash_lookup). An instruction's event: dl1 the L1D latency of its\n" \
  "own load; dmiss its own data access (an L1D and DTLB hit that leaves the caches\n" \
  "alone: a later access outside the scope to the same line still misses); bmisp\n" \
  "its own prediction (the branch); shalu, lgalu its execution latency; imiss the\n" \
  "fetch of the I-cache line it is the first instruction fetched from. win and bw\n" \
  "are shared by every instruction and cannot be scoped. A category and its\n" \
  "scopes may be listed together (an event inside the scope is then idealized by\n" \
  "either); up to 3 scopes of one category, which must not overlap; scopes of\n" \
  "different categories may. The profiler does not support them (graph,\n" \
  "graphfrag, multisim do).\n"

ic_status cli_categories(const char *program, const char *list, uint8_t *cats, int *ncat,
                         int max, ic_scopes *scopes, ic_err *err);

/* One line for a report ("killed by signal 11 (SIGSEGV) ...: the numbers are
 * of the instructions timed before it"), or NULL for a complete run. */
const char *cli_run_partial(const cli_run *r);
/* A command's exit code: rc, or, where rc is 0 and the guest was killed by
 * a signal, the emulator's reason on stderr and 128 + the signal, as a
 * shell (and qemu-riscv64) would give. */
int cli_run_finish(const cli_run *r, int rc);

/* Loads a static RISC-V program for a timed run: argv[0] is its path; the
 * guest sees only its file name (argv[0], AT_EXECFN, /proc/self/exe), so
 * where it lies changes no number. Every command that times or records a
 * program loads it so. */
ic_status cli_guest_load(rv_proc **out, int argc, char **argv, rv_options *opt, ic_err *err);

/* Loads the config (applying every --set), resolves the workload, loads the
 * program and fast-forwards it. On failure *r is released. */
ic_status cli_run_setup(const cli_run_opts *o, cli_run *r, ic_err *err);

/* Progress callback for cli_run_execute (may be NULL). */
typedef void (*cli_run_progress_fn)(void *ctx, uint64_t committed);

/* One timed run from the checkpoint: clone, warm, run with `ideal` and the
 * optional sink; copies the statistics to *stats. IC_ERUN if the guest
 * faulted or the emulator stopped on an unsupported system call. */
ic_status cli_run_execute(const cli_run *r, ic_catmask ideal, const ic_graph_sink *sink,
                          cli_run_progress_fn progress, void *pctx, ooo_stats *stats,
                          ic_err *err);

/* The part of every run the frontends share (cli_run_execute, and the
 * trace and live runs of trace_run.c): a core for run r (ideal, sink,
 * progress as cli_run_execute's), warmed with r->warm instructions of src
 * and run for r->max. *core is set even on failure (ooo_destroy it). */
ic_status cli_core_run(const cli_run *r, ic_catmask ideal, const ic_graph_sink *sink,
                       cli_run_progress_fn progress, void *pctx, ic_inst_source src, ooo_core **core,
                       ic_err *err);
/* Its end: the program's nonzero exit status noted once (code, if exited),
 * a run with nothing timed refused, the core's statistics to *stats. */
ic_status cli_core_finish(const cli_run *r, const ooo_core *core, int exited, int code, ooo_stats *stats,
                          ic_err *err);


/* cli_run_execute with nothing idealized and `sink` fed through a record
 * pipe (record_pipe.h) where `cpus` allows: the model on this thread, the
 * sink's work on another. Returns once the sink has every record. */
ic_status cli_run_graph(const cli_run *r, ic_graph_sink sink, int cpus, cli_run_progress_fn progress,
                        void *pctx, ooo_stats *stats, ic_err *err);

/* The program image of the run (the program's or the trace's). */
ic_program_image cli_run_image(const cli_run *r);

/* Releases what cli_run_setup built (safe on a zeroed struct). */
void cli_run_free(cli_run *r);

#endif
