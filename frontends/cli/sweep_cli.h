/* sweep_cli.h: the parts of `icost sweep` beside running it (cmd_sweep.c):
 * reading the results store back (the table, the charts) and the Slurm
 * job-array script. */
#ifndef IC_SWEEP_CLI_H
#define IC_SWEEP_CLI_H

#include <stddef.h>
#include <stdint.h>

/* A sweep file (YAML), `icost sweep --file F`:
 *   axes: {KEY: [V1, V2, ...] or KEY: "LO..HI[:STEP|*F]", ...}
 *   workloads: [NAME, ...]      programs: [[PROGRAM, ARGS...], ...]
 *   suite: TAG    categories: LIST    method: M    config: F
 *   set: [KEY=VALUE, ...]    skip: N    max: N    warm: N    seed: S
 * Options given on the command line win; axes, workloads, programs and
 * sets of both are taken together. */
typedef struct sweep_file {
  char **axes; /* "KEY=V1,V2,..." */
  int naxes;
  char **workloads;
  int nworkloads;
  char ***programs; /* NULL-terminated argv each */
  int *prog_argc;
  int nprograms;
  char **sets;
  int nsets;
  char *categories, *method, *config, *suite;
  uint64_t count[4]; /* skip, max, warm, seed */
  int have[4];
} sweep_file;

/* IC_EINPUT with "FILE:LINE:COL: why" when it cannot be read, does not
 * parse, or holds an unknown key or a value of the wrong kind. */
#include "ic_err.h"
ic_status sweep_file_load(const char *path, sweep_file *f, ic_err *err);
void sweep_file_free(sweep_file *f);

/* Reads the store dir: with fmt an ic_emit_format (csv, yaml or json)
 * writes its runs to stdout (ic_sweep_export; yaml and json after the
 * export's provenance), with -1 none; with plotdir non-NULL draws its
 * charts there. Returns the exit code (messages printed). */
int sweep_read_out(const char *dir, int fmt, const char *plotdir);

/* Writes an sbatch job-array script to path whose task I of N runs this
 * sweep's shard I/N (argv: the sweep command's arguments, argv[0] the
 * subcommand's name; the options that select a shard, the parallelism, the
 * script itself, export and plot are left out). tasks 0: one per run, at
 * most 64. With submit, runs `sbatch path`. Returns the exit code. */
int sweep_slurm_script(const char *path, int argc, char **argv, uint64_t tasks, size_t runs,
                       int submit);

/* The sweep's charts into plotdir (created if missing): per workload and
 * category a sensitivity chart, per workload the breakdowns side by side;
 * each as SVG and PNG (plot.c). Returns the exit code. */
struct ic_sweep_table;
int sweep_plot(const struct ic_sweep_table *t, const char *plotdir);

/* One run's breakdown chart (the paper's Fig. 1b) to path (.svg/.png).
 * Returns the exit code (0, or a printed failure). */
struct ic_breakdown;
int cli_plot_breakdown(const struct ic_breakdown *b, int show_all, const char *title,
                       const char *subtitle, const char *path);

#endif
