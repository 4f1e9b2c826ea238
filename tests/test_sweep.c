/* test_sweep.c: design-space sweeps (engine/sweep.h, `icost sweep`).
 *
 *   - axes: lists, ranges, bad ones; points in order; shards disjoint and
 *     covering; job keys differ where runs differ;
 *   - a sweep's numbers equal the same runs made one by one with --set
 *     (its json export read with json-c: the export's provenance, then
 *     the runs, each with its own);
 *   - a sweep killed half way (its own pid) and run again: every run
 *     exactly once, the same table as an uninterrupted sweep;
 *   - shards run at once into one store, plus a whole sweep beside them:
 *     one record per run, the table of the whole;
 *   - bad input: one line, exit 2, before anything runs (no store made);
 *   - the Slurm script: one task per shard, each task's command a shard.
 * Runs use the short workloads and --max 10k..20k. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "sweep.h"
#include "test_util.h"
#include "test_cmd.h"

static char *icost(const char *args, int *status) {
  char cmd[8192];
  snprintf(cmd, sizeof cmd, "%s %s 2>&1", ICOST_BINARY, args);
  return run_cmd(cmd, status);
}

/* icost with stderr dropped (for tables on stdout) */
static char *icost_out(const char *args, int *status) {
  char cmd[8192];
  snprintf(cmd, sizeof cmd, "%s %s 2>/dev/null", ICOST_BINARY, args);
  return run_cmd(cmd, status);
}

static void tmpdir(char *out, size_t cap, const char *tag) {
  snprintf(out, cap, "/tmp/icost-test-sweep-%s-XXXXXX", tag);
  cr_assert_not_null(mkdtemp(out));
}

static void rmtree(const char *dir) {
  char cmd[4200];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  cr_assert_eq(system(cmd), 0);
}

/* records (KEY.yaml) and leftover temporaries in dir */
static int count_files(const char *dir, int temporaries) {
  DIR *d = opendir(dir);
  if (!d) return -1;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    size_t l = strlen(e->d_name);
    if (temporaries) n += !strncmp(e->d_name, ".tmp-", 5);
    else n += e->d_name[0] != '.' && l > 5 && !strcmp(e->d_name + l - 5, ".yaml");
  }
  closedir(d);
  return n;
}

static int workloads_built(void) {
  int st;
  char *out = icost("sim --workload mix.short --max 1k", &st);
  free(out);
  return st == 0;
}

/* ---- the engine's pieces ---------------------------------------------- */

static void expect_axis(const char *arg, const char *const *want, int n) {
  ic_sweep_axis a;
  ic_err err;
  cr_assert_eq(ic_sweep_axis_parse(arg, &a, &err), IC_OK, "%s: %s", arg, err.msg);
  cr_assert_eq(a.nvalues, n, "%s: %d values", arg, a.nvalues);
  for (int k = 0; k < n; k++) cr_expect_str_eq(a.values[k], want[k], "%s [%d]", arg, k);
  ic_sweep_axis_free(&a);
}

static void expect_axis_error(const char *arg, const char *msg) {
  ic_sweep_axis a;
  ic_err err;
  cr_assert_eq(ic_sweep_axis_parse(arg, &a, &err), IC_EINPUT, "%s parsed", arg);
  cr_expect(strstr(err.msg, msg) != NULL, "%s: '%s' not in '%s'", arg, msg, err.msg);
}

Test(sweep, axes_lists_and_ranges) {
  const char *a[] = {"32", "64", "128"};
  expect_axis("core.rob=32,64,128", a, 3);
  const char *b[] = {"1", "2", "3", "4"};
  expect_axis("l1d.latency=1..4", b, 4);
  const char *c[] = {"32", "64", "128", "256"};
  expect_axis("core.rob=32..256*2", c, 4);
  const char *d[] = {"10", "40", "70", "100", "7"};
  expect_axis("mem.latency=10..100:30,7", d, 5);
  const char *e[] = {"5"};
  expect_axis("core.rob=5..5", e, 1);
  expect_axis_error("core.rob=", "empty axis");
  expect_axis_error("core.rob", "KEY=V1,V2");
  expect_axis_error("=1,2", "KEY=V1,V2");
  expect_axis_error("core.rob=1,,2", "empty item");
  expect_axis_error("core.rob=4..1", "is empty");
  expect_axis_error("core.rob=1..x", "range '1..x'");
  expect_axis_error("core.rob=1..8:0", "STEP");
  expect_axis_error("core.rob=1..8*1", "FACTOR >= 2");
  expect_axis_error("core.rob=32,64,32", "'32' given twice");
}

static char *vals_rob[] = {"32", "64", "128"}, *vals_lat[] = {"1", "2"};

static void spec2(ic_sweep_spec *s, ic_sweep_axis *ax, ic_sweep_workload *w) {
  memset(ax, 0, 2 * sizeof *ax);
  strcpy(ax[0].key, "core.rob");
  ax[0].nvalues = 3;
  ax[0].values = vals_rob;
  strcpy(ax[1].key, "l1d.latency");
  ax[1].nvalues = 2;
  ax[1].values = vals_lat;
  static char *av0[] = {"/bin/true"}, *av1[] = {"/bin/false"};
  w[0] = (ic_sweep_workload){"a", 1, av0, 1};
  w[1] = (ic_sweep_workload){"b", 1, av1, 2};
  memset(s, 0, sizeof *s);
  s->axes = ax;
  s->naxes = 2;
  s->workloads = w;
  s->nworkloads = 2;
  s->method = "graph";
  s->version = "test";
}

Test(sweep, points_shards_and_keys) {
  ic_sweep_spec s;
  ic_sweep_axis ax[2];
  ic_sweep_workload w[2];
  spec2(&s, ax, w);
  cr_assert_eq(ic_sweep_points(&s), 6);
  cr_assert_eq(ic_sweep_jobs(&s), 12);
  /* the first axis varies slowest */
  cr_assert_str_eq(ic_sweep_value(&s, 0, 0), "32");
  cr_assert_str_eq(ic_sweep_value(&s, 1, 1), "2");
  cr_assert_str_eq(ic_sweep_value(&s, 2, 0), "64");
  cr_assert_str_eq(ic_sweep_value(&s, 5, 0), "128");
  cr_assert_str_eq(ic_sweep_value(&s, 5, 1), "2");
  /* every job its own key; a different max, another key */
  char keys[12][17];
  for (size_t j = 0; j < 12; j++) {
    ic_sweep_key(&s, j, keys[j]);
    for (size_t i = 0; i < j; i++) cr_assert_str_neq(keys[i], keys[j]);
  }
  char k2[17];
  s.max = 1000;
  ic_sweep_key(&s, 0, k2);
  cr_assert_str_neq(k2, keys[0]);
  s.max = 0;
  ic_sweep_key(&s, 0, k2);
  cr_assert_str_eq(k2, keys[0]);
  ic_err err;
  cr_assert_eq(ic_sweep_check(&s, &err), IC_OK, "%s", err.msg);
  vals_rob[1] = "0";
  cr_assert_eq(ic_sweep_check(&s, &err), IC_EINPUT);
  cr_assert(strstr(err.msg, "core.rob") && strstr(err.msg, "out of range"), "%s", err.msg);
  vals_rob[1] = "64";
  strcpy(ax[1].key, "core.nosuch");
  cr_assert_eq(ic_sweep_check(&s, &err), IC_EINPUT);
  cr_assert(strstr(err.msg, "unknown key 'core.nosuch'"), "%s", err.msg);
  strcpy(ax[1].key, "core.rob");
  cr_assert_eq(ic_sweep_check(&s, &err), IC_EINPUT);
  cr_assert(strstr(err.msg, "swept twice"), "%s", err.msg);
}

/* ---- end to end -------------------------------------------------------- */

/* The value of a yaml scalar line `  KEY: V` after `after` in s, as a double. */
static double yaml_num(const char *s, const char *key) {
  const char *p = strstr(s, key);
  cr_assert_not_null(p, "no %s in %s", key, s);
  return strtod(p + strlen(key), NULL);
}

/* A sweep's records equal the same runs made by hand with --set: cycles,
 * instructions, every breakdown entry and Shapley share, to the digit. */
Test(sweep, numbers_equal_runs_by_hand, .timeout = 240) {
  if (!workloads_built()) cr_skip("workloads not built");
  char dir[256], args[2048];
  tmpdir(dir, sizeof dir, "hand");
  snprintf(args, sizeof args,
           "sweep --vary core.rob=16,128 --vary l1d.latency=1,4 --workload mix.short "
           "--workload chase.short --categories dl1,win,dmiss --max 10k -j 2 --out %s",
           dir);
  int st;
  char *out = icost(args, &st);
  cr_assert_eq(st, 0, "%s", out);
  cr_assert(strstr(out, "8 runs in this shard: 0 already"), "%s", out);
  free(out);
  snprintf(args, sizeof args, "sweep --out %s --export=json", dir);
  char *json = icost_out(args, &st);
  cr_assert_eq(st, 0, "%s", json);
  json_object *root = json_tokener_parse(json), *prov, *runs;
  cr_assert_not_null(root, "not json: %s", json);
  cr_assert(json_object_object_get_ex(root, "provenance", &prov) &&
                json_object_object_get_ex(root, "runs", &runs),
            "%s", json);
  cr_expect_str_eq(json_object_get_string(json_object_object_get(prov, "command")), "sweep");
  cr_expect(json_object_get_string(json_object_object_get(prov, "version"))[0] != 0);
  cr_assert_eq(json_object_array_length(runs), 8, "%s", json);
  const char *wl[] = {"chase.short", "mix.short"};
  const char *rob[] = {"16", "128"}, *lat[] = {"1", "4"};
  int checked = 0;
  for (int r = 0; r < 2; r++)
    for (int l = 0; l < 2; l++)
      for (int w = 0; w < 2; w++) {
        snprintf(args, sizeof args,
                 "--set core.rob=%s --set l1d.latency=%s --workload %s --categories "
                 "dl1,win,dmiss --max 10k --show shapley --format csv",
                 rob[r], lat[l], wl[w]);
        char *hand = icost_out(args, &st);
        cr_assert_eq(st, 0, "%s", hand);
        /* the record of this point and workload, with its run's provenance */
        json_object *found = NULL;
        for (size_t i = 0; i < json_object_array_length(runs) && !found; i++) {
          json_object *rec = json_object_array_get_idx(runs, i);
          json_object *pt = json_object_object_get(rec, "point");
          if (json_object_get_int(json_object_object_get(pt, "core.rob")) == atoi(rob[r]) &&
              json_object_get_int(json_object_object_get(pt, "l1d.latency")) == atoi(lat[l]) &&
              !strcmp(json_object_get_string(json_object_object_get(rec, "workload")), wl[w]))
            found = rec;
        }
        cr_assert_not_null(found, "no record for core.rob=%s l1d.latency=%s %s", rob[r], lat[l], wl[w]);
        json_object *rp = json_object_object_get(found, "provenance");
        cr_expect_eq(json_object_array_length(json_object_object_get(rp, "overrides")), 2, "%s",
                     json_object_to_json_string(rp));
        /* every csv row of the run by hand: the same name, cycles and
           percent in the record */
        int rows = 0, shap = 0;
        for (char *h = strtok(hand, "\n"); h; h = strtok(NULL, "\n")) {
          /* "#" records: the header; then the breakdown table
             (name,kind,percent,cycles) and the shapley one (name,percent,cycles) */
          char name[64], kind[64], cyc[64], pct[64];
          if (h[0] == '#' || !strncmp(h, "name,kind,", 10)) continue;
          if (!strcmp(h, "name,percent,cycles")) {
            shap = 1;
            continue;
          }
          if (shap ? sscanf(h, "%63[^,],%63[^,],%63s", name, pct, cyc) != 3
                   : sscanf(h, "%63[^,],%63[^,],%63[^,],%63s", name, kind, pct, cyc) != 4)
            continue;
          json_object *list = json_object_object_get(found, shap ? "shapley" : "breakdown"), *e = NULL;
          for (size_t i = 0; i < json_object_array_length(list) && !e; i++) {
            json_object *x = json_object_array_get_idx(list, i);
            if (!strcmp(json_object_get_string(json_object_object_get(x, "name")), name)) e = x;
          }
          cr_expect_not_null(e, "%s: no entry %s in %s", args, name, json_object_to_json_string(list));
          if (e) {
            const double p = json_object_get_double(json_object_object_get(e, "percent")),
                         c = json_object_get_double(json_object_object_get(e, "cycles"));
            cr_expect(p == strtod(pct, NULL) && c == strtod(cyc, NULL), "%s: %s: %s %s, record %s", args,
                      name, pct, cyc, json_object_to_json_string(e));
          }
          rows++;
        }
        cr_assert(rows >= 9, "%d rows", rows);
        free(hand);
        checked++;
      }
  cr_assert_eq(checked, 8);
  json_object_put(root);
  free(json);
  /* the yaml export holds the same tree (read with Python's yaml) */
  if (system("/usr/bin/python3 -c 'import yaml' 2>/dev/null") == 0) {
    snprintf(args, sizeof args,
             "%s sweep --out %s --export yaml | /usr/bin/python3 -c 'import sys, yaml; d = yaml.safe_load(sys.stdin); "
             "print(\"ok\" if list(d) == [\"provenance\", \"runs\"] and len(d[\"runs\"]) == 8 and "
             "all(r[\"provenance\"][\"overrides\"] for r in d[\"runs\"]) else d)' 2>&1",
             ICOST_BINARY, dir);
    char *y = run_cmd(args, &st);
    cr_expect(st == 0 && strncmp(y, "ok", 2) == 0, "%s", y);
    free(y);
  }
  /* cycles of one by hand against the csv export */
  snprintf(args, sizeof args,
           "--set core.rob=16 --set l1d.latency=4 --workload chase.short --categories "
           "dl1,win,dmiss --max 10k --format yaml");
  char *y = icost_out(args, &st);
  double cycles = yaml_num(y, "\ncycles: ");
  free(y);
  snprintf(args, sizeof args, "sweep --out %s --export csv", dir);
  char *csv = icost_out(args, &st);
  cr_assert_eq(st, 0);
  char row[64];
  snprintf(row, sizeof row, "16,4,chase.short,graph,");
  char *p = strstr(csv, row);
  cr_assert_not_null(p, "%s", csv);
  char c[64];
  snprintf(c, sizeof c, ",10000,%.0f,", cycles);
  char *eol = strchr(p, '\n');
  *eol = 0;
  cr_assert(strstr(p, c) != NULL, "'%s' not in %s", c, p);
  free(csv);
  rmtree(dir);
}

static char *export_csv(const char *dir) {
  char args[512];
  snprintf(args, sizeof args, "sweep --out %s --export csv", dir);
  int st;
  char *t = icost_out(args, &st);
  cr_assert_eq(st, 0, "%s", t);
  return t;
}

/* Kill a sweep (its own pid) once some records are in, run it again: every
 * run exactly once, and the same table as a sweep never interrupted. */
Test(sweep, kill_half_way_and_rerun, .timeout = 300) {
  if (!workloads_built()) cr_skip("workloads not built");
  char dir[256], ref[256];
  tmpdir(dir, sizeof dir, "kill");
  tmpdir(ref, sizeof ref, "ref");
  const char *sweep_args = "--vary core.rob=16..128*2 --vary l1d.latency=1,3 "
                           "--workload mix.short --categories dl1,win --max 20k -j 1";
  pid_t pid = fork();
  cr_assert(pid >= 0);
  if (pid == 0) {
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "exec %s sweep %s --out %s >/dev/null 2>&1", ICOST_BINARY,
             sweep_args, dir);
    execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
    _exit(127);
  }
  /* wait for 3 of the 8 records, at most 120 s */
  int n = 0;
  for (int i = 0; i < 1200 && (n = count_files(dir, 0)) < 3; i++) {
    struct timespec ts = {0, 100000000};
    nanosleep(&ts, NULL);
  }
  cr_assert_geq(n, 3, "only %d records after 120 s", n);
  cr_assert_eq(kill(pid, SIGKILL), 0);
  int ws;
  cr_assert_eq(waitpid(pid, &ws, 0), pid);
  cr_assert(WIFSIGNALED(ws), "the sweep ended before it was killed");
  int before = count_files(dir, 0);
  cr_assert_lt(before, 8, "the sweep finished before the kill");
  /* the rerun runs exactly what is missing */
  char args[2048];
  snprintf(args, sizeof args, "sweep %s --out %s", sweep_args, dir);
  int st;
  char *out = icost(args, &st);
  cr_assert_eq(st, 0, "%s", out);
  char want[512];
  snprintf(want, sizeof want, "8 runs in this shard: %d already in %s, %d run now, 0 failed",
           before, dir, 8 - before);
  cr_assert(strstr(out, want), "'%s' not in %s", want, out);
  free(out);
  cr_assert_eq(count_files(dir, 0), 8);
  cr_assert_eq(count_files(dir, 1), 0, "the killed run's temporary is left");
  snprintf(args, sizeof args, "sweep %s --out %s", sweep_args, ref);
  out = icost(args, &st);
  cr_assert_eq(st, 0, "%s", out);
  free(out);
  char *a = export_csv(dir), *b = export_csv(ref);
  cr_assert_str_eq(a, b);
  /* a header and 8 rows */
  int lines = 0;
  for (char *p = a; *p; p++) lines += *p == '\n';
  cr_assert_eq(lines, 9);
  free(a);
  free(b);
  rmtree(dir);
  rmtree(ref);
}

/* Two shards and a whole sweep at once into one store: one record per run,
 * the shards alone give the whole, and the table is the whole sweep's. */
Test(sweep, shards_and_many_writers, .timeout = 300) {
  if (!workloads_built()) cr_skip("workloads not built");
  char dir[256], ref[256];
  tmpdir(dir, sizeof dir, "shared");
  tmpdir(ref, sizeof ref, "whole");
  const char *sweep_args = "--vary core.rob=32,64,96 --workload stream.short "
                           "--workload mix.short --categories dl1,dmiss --max 10k -j 1";
  char cmd[4096];
  snprintf(cmd, sizeof cmd,
           "%1$s sweep %2$s --shard 0/2 --out %3$s >/dev/null 2>&1 & "
           "%1$s sweep %2$s --shard 1/2 --out %3$s >/dev/null 2>&1 & "
           "SLURM_ARRAY_TASK_ID=1 SLURM_ARRAY_TASK_COUNT=2 %1$s sweep %2$s --out %3$s "
           ">/dev/null 2>&1 & wait",
           ICOST_BINARY, sweep_args, dir);
  cr_assert_eq(system(cmd), 0);
  cr_assert_eq(count_files(dir, 0), 6);
  cr_assert_eq(count_files(dir, 1), 0, "temporaries left");
  char args[2048];
  snprintf(args, sizeof args, "sweep %s --out %s", sweep_args, dir);
  int st;
  char *out = icost(args, &st);
  cr_assert_eq(st, 0, "%s", out);
  cr_assert(strstr(out, "6 runs in this shard: 6 already"), "%s", out);
  free(out);
  snprintf(args, sizeof args, "sweep %s --out %s", sweep_args, ref);
  out = icost(args, &st);
  cr_assert_eq(st, 0, "%s", out);
  free(out);
  char *a = export_csv(dir), *b = export_csv(ref);
  cr_assert_str_eq(a, b);
  free(a);
  free(b);
  rmtree(dir);
  rmtree(ref);
}

static void expect_bad(const char *args, const char *msg, const char *dir) {
  int st;
  char *out = icost(args, &st);
  cr_expect_eq(st, 2, "%s: exit %d: %s", args, st, out);
  cr_expect(strstr(out, msg) != NULL, "%s: '%s' not in: %s", args, msg, out);
  cr_expect(strncmp(out, "icost: ", 7) == 0, "%s: %s", args, out);
  cr_expect(strchr(out, '\n') == out + strlen(out) - 1, "not one line: %s", out);
  struct stat sb;
  cr_expect(stat(dir, &sb) != 0, "%s: the store was made", args);
  free(out);
}

Test(sweep, bad_input_one_line_before_anything_runs) {
  if (!workloads_built()) cr_skip("workloads not built");
  const char *d = "/tmp/icost-test-sweep-never-made";
  char a[1024];
#define BAD(args, msg)                                                   \
  do {                                                                   \
    snprintf(a, sizeof a, "sweep %s --workload mix.short --out %s", args, d); \
    expect_bad(a, msg, d);                                               \
  } while (0)
  BAD("--vary core.nosuch=1,2", "unknown key 'core.nosuch'");
  BAD("--vary core.rob=64,0", "out of range");
  BAD("--vary core.rob=", "empty axis");
  BAD("--vary core.rob=8..1", "is empty");
  BAD("--vary core.rob=abc", "core.rob");
  BAD("--vary core.rob=32 --vary core.rob=64", "swept twice");
  BAD("--vary core.rob=32 --set core.rob=64", "also fixed by --set");
  BAD("--vary core.rob=32 --categories dl1,nosuch", "unknown category 'nosuch'");
  BAD("--vary core.rob=32 --method nosuch", "--method 'nosuch'");
  BAD("--vary core.rob=32 --shard 2/2", "--shard '2/2'");
  BAD("--vary core.rob=32 --workload nosuch", "nosuch");
  BAD("--vary core.rob=32 --export xml", "--export 'xml'");
  BAD("--vary core.rob=32 -j 0", "-j '0'");
#undef BAD
  expect_bad("sweep --vary core.rob=32", "--out DIR is required", d);
  expect_bad("sweep --out /tmp/icost-test-sweep-never-made --export csv",
             "/tmp/icost-test-sweep-never-made", d);
  snprintf(a, sizeof a, "SLURM_ARRAY_TASK_ID=5 SLURM_ARRAY_TASK_COUNT=2 %s sweep --vary "
           "core.rob=32 --workload mix.short --out %s 2>&1", ICOST_BINARY, d);
  int st;
  char *out = run_cmd(a, &st);
  cr_expect_eq(st, 2, "%s", out);
  cr_expect(strstr(out, "SLURM_ARRAY_TASK_ID=5") != NULL, "%s", out);
  free(out);
}

/* A failed run (a program that faults) is reported, leaves no record, and
 * the other runs are kept. */
Test(sweep, failed_run_leaves_no_record, .timeout = 120) {
  if (!workloads_built()) cr_skip("workloads not built");
  char dir[256], args[1024];
  tmpdir(dir, sizeof dir, "fail");
  /* skip past the end of the program: every run fails at set-up */
  snprintf(args, sizeof args,
           "sweep --vary core.rob=32,64 --workload mix.short --categories dl1 --skip 900M "
           "--out %s",
           dir);
  int st;
  char *out = icost(args, &st);
  cr_assert_eq(st, 1, "%s", out);
  cr_assert(strstr(out, "2 of 2 runs failed"), "%s", out);
  cr_assert(strstr(out, "mix.short core.rob="), "%s", out);
  free(out);
  cr_assert_eq(count_files(dir, 0), 0);
  cr_assert_eq(count_files(dir, 1), 0);
  rmtree(dir);
}

/* The Slurm script: an array of N tasks, each the same sweep with --shard
 * $SLURM_ARRAY_TASK_ID/N, the program after --, no -j/--slurm-script. */
Test(sweep, slurm_script_shards) {
  if (!workloads_built()) cr_skip("workloads not built");
  char dir[256], args[1024], path[300];
  tmpdir(dir, sizeof dir, "slurm");
  snprintf(path, sizeof path, "%s/job.sh", dir);
  snprintf(args, sizeof args,
           "sweep --vary core.rob=32,64,128 --workload mix.short --max 10k -j 2 --out %s/store "
           "--slurm-script %s --tasks 2",
           dir, path);
  int st;
  char *out = icost(args, &st);
  cr_assert_eq(st, 0, "%s", out);
  free(out);
  char *s = t_slurp(path, NULL);
  cr_assert_not_null(s);
  cr_assert(strncmp(s, "#!/bin/bash\n", 12) == 0);
  cr_assert(strstr(s, "\n#SBATCH --array=0-1\n"), "%s", s);
  cr_assert(strstr(s, " sweep --vary core.rob=32,64,128 --workload mix.short --max 10k --out "),
            "%s", s);
  cr_assert(strstr(s, "--shard \"$SLURM_ARRAY_TASK_ID/2\""), "%s", s);
  cr_assert(!strstr(s, "--slurm-script") && !strstr(s, "--tasks") && !strstr(s, "-j 2"), "%s", s);
  struct stat sb;
  cr_assert_eq(stat(path, &sb), 0);
  cr_assert(sb.st_mode & S_IXUSR);
  free(s);
  rmtree(dir);
}

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  cr_assert_not_null(f);
  fputs(text, f);
  cr_assert_eq(fclose(f), 0);
}

/* A sweep file gives the same table as the same sweep on the command line;
 * a file that does not parse, or with an unknown key or a bad value, is one
 * line naming the file, line and column, before anything runs. */
Test(sweep, sweep_file_equals_command_line, .timeout = 120) {
  if (!workloads_built()) cr_skip("workloads not built");
  char dir[256], path[300], args[1024];
  tmpdir(dir, sizeof dir, "file");
  snprintf(path, sizeof path, "%s/s.yaml", dir);
  write_file(path, "# a sweep\naxes:\n  core.rob: [32, 64]\n  l1d.latency: \"1..2\"\n"
                   "workloads: [mix.short]\ncategories: [dl1, win]\nmax: 10k\n");
  snprintf(args, sizeof args, "sweep --file %s --out %s/a", path, dir);
  int st;
  char *out = icost(args, &st);
  cr_assert_eq(st, 0, "%s", out);
  free(out);
  snprintf(args, sizeof args,
           "sweep --vary core.rob=32,64 --vary l1d.latency=1,2 --workload mix.short "
           "--categories dl1,win --max 10k --out %s/b",
           dir);
  out = icost(args, &st);
  cr_assert_eq(st, 0, "%s", out);
  cr_assert(strstr(out, "4 runs in this shard"), "%s", out);
  free(out);
  char a[300], b[300];
  snprintf(a, sizeof a, "%s/a", dir);
  snprintf(b, sizeof b, "%s/b", dir);
  char *ta = export_csv(a), *tb = export_csv(b);
  cr_assert_str_eq(ta, tb);
  free(ta);
  free(tb);
  const char *bad[][2] = {
      {"axes:\n  core.rob: [32\n", "s.yaml:3:1:"},
      {"axes: {core.rob: [32]}\nbogus: 1\n", "s.yaml:2:1: unknown key 'bogus'"},
      {"axes: {core.rob: [32]}\nmax: lots\n", "s.yaml:2:6: max: a count"},
      {"axes: {core.rob: [32, 0]}\n", "out of range"},
      {"axes: {core.rob: []}\n", "empty axis"},
      {"workloads: [mix.short]\n", "no axes"},
      {"- 1\n- 2\n", "a mapping"},
  };
  char never[300];
  snprintf(never, sizeof never, "%s/never", dir);
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    write_file(path, bad[k][0]);
    snprintf(args, sizeof args, "sweep --file %s --out %s", path, never);
    expect_bad(args, bad[k][1], never);
  }
  rmtree(dir);
}
