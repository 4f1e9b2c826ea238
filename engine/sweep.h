/* sweep.h: design-space sweeps: a grid of machine overrides times workloads,
 * one ordinary icost run per (point, workload), and the results store.
 *
 * A sweep is its spec: fixed overrides (--set), axes (a machine key and its
 * values each), workloads, categories, method, skip, warm, max, seed. Its
 * points are the cross product of the axes (the first axis varies slowest);
 * its jobs are points x workloads, job j = point * nworkloads + workload.
 * A shard I of N (0 <= I < N) holds the jobs j with j mod N == I, so the
 * shards are disjoint, cover every job, and get a mix of points.
 *
 * The results store is a directory with one YAML record per job, named by a
 * hash of everything that makes the run (the job key): KEY.yaml. A record is
 * written to a temporary file in the same directory, fsync'ed and renamed,
 * so it is there whole or not at all; a run whose record exists is done, so
 * a rerun after a kill or a crash does only what is missing, and many
 * writers (cluster tasks on a shared file system) can share the directory:
 * two writers of one job leave one record (a run killed with its sweep
 * leaves a temporary .tmp-KEY-HOST-PID-N, removed by the next sweep on that
 * host once PID is gone). A record holds
 *
 *   sweep_record: 1, key, point: {KEY: VALUE ...} (the swept keys),
 *   sweep_provenance: {icost_version, config, overrides, machine (the
 *     resolved machine), workload, argv, program_hash, categories, method,
 *     skip, warm, max, seed, shapley, command},
 *   then the run's own `icost --format yaml` output (its provenance, workload, cycles,
 *   instructions, categories, total, breakdown, shapley, ...),
 *   run: {host, pid, started (UTC), seconds} (not part of exports).
 *
 * The engine does not start runs itself: the caller's run function writes a
 * run's YAML output into a file descriptor (the CLI runs `icost` as a child
 * process, so each point is an ordinary run). */
#ifndef IC_SWEEP_H
#define IC_SWEEP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "emit.h"
#include "ic_err.h"

#define IC_SWEEP_MAX_AXES 8
#define IC_SWEEP_MAX_VALUES 4096
#define IC_SWEEP_MAX_JOBS 1000000

/* One swept key and its values (strings as the config takes them). */
typedef struct ic_sweep_axis {
  char key[64];
  int nvalues;
  char **values;
} ic_sweep_axis;

/* Parses "KEY=V1,V2,...". An item may be a range LO..HI (step 1),
 * LO..HI:STEP (arithmetic) or LO..HI*F (geometric, F >= 2), of integers.
 * IC_EINPUT for an empty axis or item, a bad range, a value given twice or
 * more than IC_SWEEP_MAX_VALUES values. Whether KEY is a machine key and
 * the values are in its range is ic_sweep_check's job. */
ic_status ic_sweep_axis_parse(const char *arg, ic_sweep_axis *a, ic_err *err);
void ic_sweep_axis_free(ic_sweep_axis *a);

typedef struct ic_sweep_workload {
  const char *name;
  int argc;
  char *const *argv;
  uint64_t program_hash; /* ic_sweep_hash_file of argv[0] */
} ic_sweep_workload;

typedef struct ic_sweep_spec {
  const char *config_path;         /* NULL: the built-in baseline */
  const char *const *sets;         /* fixed overrides, "KEY=VALUE" */
  int nsets;
  const ic_sweep_axis *axes;
  int naxes;
  const ic_sweep_workload *workloads;
  int nworkloads;
  const char *categories;          /* as given; NULL: the default list */
  const char *method;              /* graph, multisim, graphfrag, profiler */
  uint64_t skip, warm, max, seed;
  int shapley;                     /* records carry the Shapley shares */
  const char *version;             /* icost version */
} ic_sweep_spec;

/* Points (product of the axes' lengths) and jobs (points x workloads). */
size_t ic_sweep_points(const ic_sweep_spec *s);
size_t ic_sweep_jobs(const ic_sweep_spec *s);
/* The value of axis `axis` at point p. */
const char *ic_sweep_value(const ic_sweep_spec *s, size_t point, int axis);

/* Checks the spec before anything runs: at least one workload and one
 * axis, no axis key twice or also among the fixed overrides, at most
 * IC_SWEEP_MAX_JOBS jobs, and the machine of every point loads (every key
 * known, every value in its range). The message names the bad input. */
ic_status ic_sweep_check(const ic_sweep_spec *s, ic_err *err);

/* The job's key: 16 hex digits of a 64-bit FNV-1a hash of everything that
 * makes the run (config, overrides in order, point, workload and its argv,
 * program hash, categories, method, skip, warm, max, seed, shapley). */
void ic_sweep_key(const ic_sweep_spec *s, size_t job, char out[17]);

/* FNV-1a 64 of a file's bytes; IC_EINPUT if it cannot be read. */
ic_status ic_sweep_hash_file(const char *path, uint64_t *out, ic_err *err);

/* The "KEY=VALUE" overrides of a job, fixed ones first, then the point's;
 * *n of them in out (capacity cap), strings owned by the caller (free). */
int ic_sweep_overrides(const ic_sweep_spec *s, size_t point, char **out, int cap);

/* Runs one job: writes its `icost --format yaml` output to fd (the record
 * file, positioned after the header). IC_ERUN/IC_EINPUT with the reason. */
typedef ic_status (*ic_sweep_run_fn)(void *ctx, const ic_sweep_spec *s, size_t point, size_t wl,
                                     int fd, ic_err *err);
/* Called after each finished job (from worker threads, serialized). */
typedef void (*ic_sweep_progress_fn)(void *ctx, size_t done, size_t todo, size_t failed,
                                     double seconds_left);

typedef struct ic_sweep_run_opts {
  const char *dir;       /* the results store (created if missing) */
  int threads;           /* jobs at once, >= 1 */
  int shard, nshards;    /* this shard, of nshards (0, 1: everything) */
  ic_sweep_run_fn run;
  void *run_ctx;
  ic_sweep_progress_fn progress; /* may be NULL */
  void *progress_ctx;
} ic_sweep_run_opts;

typedef struct ic_sweep_summary {
  size_t in_shard;  /* jobs of this shard */
  size_t present;   /* of them, already in the store before this run */
  size_t done;      /* run and recorded now */
  size_t failed;    /* run and failed (no record) */
  char first_error[512];
} ic_sweep_summary;

/* Runs every job of the shard that has no record yet, o->threads at once,
 * each record written atomically. Returns IC_OK when every job ran or
 * was present (failures are counted in *sum, with the first message; the
 * caller decides the exit code); IC_ERUN if the store cannot be used.
 * Time complexity: O(jobs) besides the runs. */
ic_status ic_sweep_run(const ic_sweep_spec *s, const ic_sweep_run_opts *o, ic_sweep_summary *sum,
                       ic_err *err);

/* ---- reading the store ----------------------------------------------- */

typedef struct ic_sweep_entry {
  char *name;
  double cycles, percent;
} ic_sweep_entry;

/* One record as read back. */
typedef struct ic_sweep_rec {
  char *file;                   /* record file name */
  int npoint;
  char **point_keys, **point_values;
  char *workload, *method, *config, *categories, *version, *program_hash, *overrides;
  uint64_t skip, max, seed;
  double cycles, instructions;
  int nbreakdown, nshapley;
  ic_sweep_entry *breakdown, *shapley;
  void *doc;                    /* the record's YAML tree (yaml_document_t), for
                                   the export */
} ic_sweep_rec;

typedef struct ic_sweep_table {
  size_t n;
  ic_sweep_rec *rec;            /* sorted by point values, then workload */
  int nkeys;
  char **keys;                  /* every swept key, in the records' order */
} ic_sweep_table;

/* Reads every record of the store dir. IC_EINPUT if dir is not a readable
 * directory or a record does not parse (naming it). */
ic_status ic_sweep_table_load(ic_sweep_table *t, const char *dir, ic_err *err);
void ic_sweep_table_free(ic_sweep_table *t);
/* The value of swept key `key` in record r, or NULL. */
const char *ic_sweep_rec_value(const ic_sweep_rec *r, const char *key);

/* The store's runs into em (opened by the caller, with its provenance), in
 * em's format: csv one tidy table `runs` (a row per record: a column per
 * swept key, workload, provenance, instructions, cycles, ipc, then
 * NAME_cycles and NAME_percent per breakdown entry and shapley_NAME_cycles,
 * shapley_NAME_percent); yaml and json a list `runs` of the records, each
 * as stored (its point, sweep_provenance, the run's own report with its
 * provenance) without where it ran (`run`), with ipc = instructions /
 * cycles. IC_ERUN when out of memory; the emitter's errors come at its
 * close. Time complexity: O(size of the records). */
ic_status ic_sweep_export(const ic_sweep_table *t, ic_emit *em, ic_err *err);

#endif
