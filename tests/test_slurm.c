/* test_slurm.c: a sweep on a real Slurm: a one-node cluster on localhost
 * (tests/slurm_cluster.sh: munged, slurmctld, slurmd, all files in a
 * temporary directory) is started, `icost sweep ... --slurm-script F
 * --submit` submits the sweep as a job array of 2 tasks with sbatch, the
 * test waits (at most 90 s) for both tasks, and the store's table must equal
 * that of the same sweep run locally. The cluster is stopped whatever
 * happens. Slurm (slurm-wlm, munge) is installed by bench/setup.sh; if it
 * is missing or cannot run, this test fails: it never skips. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test_cmd.h"

static char dir[64];

static void stop_cluster(void) {
  if (!dir[0]) return;
  char cmd[512];
  snprintf(cmd, sizeof cmd,
           "bash %s/tests/slurm_cluster.sh stop %s >/dev/null 2>&1; rm -rf '%s'",
           ICOST_SOURCE_DIR, dir, dir);
  if (system(cmd) != 0) fprintf(stderr, "test_slurm: could not stop the cluster in %s\n", dir);
}

static int count_records(const char *d) {
  DIR *dp = opendir(d);
  if (!dp) return 0;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(dp))) {
    size_t l = strlen(e->d_name);
    n += e->d_name[0] != '.' && l > 5 && !strcmp(e->d_name + l - 5, ".yaml");
  }
  closedir(dp);
  return n;
}

#define SWEEP                                                                         \
  "--vary core.rob=32,64,128 --vary l1d.latency=1,3 --workload mix.short --categories " \
  "dl1,win --max 10k"

Test(slurm, sweep_job_array_equals_local_run, .fini = stop_cluster, .timeout = 180) {
  snprintf(dir, sizeof dir, "/tmp/icost-slurm-XXXXXX");
  cr_assert_not_null(mkdtemp(dir));
  char cmd[2048], conf[128];
  int st;
  snprintf(cmd, sizeof cmd, "bash %s/tests/slurm_cluster.sh start %s 2>&1", ICOST_SOURCE_DIR, dir);
  char *out = run_cmd(cmd, &st);
  cr_assert_eq(st, 0, "the one-node Slurm cluster did not start:\n%s", out);
  free(out);
  snprintf(conf, sizeof conf, "%s/slurm.conf", dir);
  cr_assert_eq(setenv("SLURM_CONF", conf, 1), 0);

  /* submit: a 2-task array over the 6 runs */
  snprintf(cmd, sizeof cmd,
           "cd %s && %s sweep " SWEEP " --out %s/store --slurm-script %s/job.sh --tasks 2 "
           "--submit 2>&1",
           dir, ICOST_BINARY, dir, dir);
  out = run_cmd(cmd, &st);
  cr_assert_eq(st, 0, "%s", out);
  unsigned long job = 0;
  char *sub = strstr(out, "Submitted batch job ");
  cr_assert_not_null(sub, "sbatch did not submit: %s", out);
  job = strtoul(sub + 20, NULL, 10);
  cr_assert_gt(job, 0);
  free(out);

  /* wait for both tasks to leave the queue and for the 6 records */
  char store[128];
  snprintf(store, sizeof store, "%s/store", dir);
  int done = 0;
  for (int i = 0; i < 900 && !done; i++) {
    snprintf(cmd, sizeof cmd, "squeue -h -j %lu 2>&1", job);
    out = run_cmd(cmd, &st);
    int queued = st == 0 && out[0] != 0;
    free(out);
    done = !queued && count_records(store) == 6;
    if (!done) {
      struct timespec ts = {0, 100000000};
      nanosleep(&ts, NULL);
    }
  }
  if (!done) {
    snprintf(cmd, sizeof cmd, "cat %s/icost-sweep-*.log %s/slurmd.log 2>&1 | tail -40", dir, dir);
    out = run_cmd(cmd, &st);
    cr_assert_fail("the job array did not finish in 90 s (%d records):\n%s",
                   count_records(store), out);
  }
  /* each task ran one shard of 3 runs, and said so in its log */
  for (int t = 0; t < 2; t++) {
    snprintf(cmd, sizeof cmd, "cat %s/icost-sweep-%lu_%d.log 2>&1", dir, job, t);
    out = run_cmd(cmd, &st);
    cr_assert_eq(st, 0, "no log of task %d", t);
    char want[64];
    snprintf(want, sizeof want, "shard %d/2", t);
    cr_assert(strstr(out, want), "task %d: %s", t, out);
    cr_assert(strstr(out, "3 runs in this shard"), "task %d: %s", t, out);
    free(out);
  }

  /* the same sweep locally, and the two tables */
  snprintf(cmd, sizeof cmd, "%s sweep " SWEEP " --out %s/local >/dev/null 2>&1", ICOST_BINARY, dir);
  cr_assert_eq(system(cmd), 0);
  snprintf(cmd, sizeof cmd, "%s sweep --out %s/store --export csv 2>&1", ICOST_BINARY, dir);
  char *cluster = run_cmd(cmd, &st);
  cr_assert_eq(st, 0, "%s", cluster);
  snprintf(cmd, sizeof cmd, "%s sweep --out %s/local --export csv 2>&1", ICOST_BINARY, dir);
  char *local = run_cmd(cmd, &st);
  cr_assert_eq(st, 0, "%s", local);
  cr_assert_str_eq(cluster, local);
  int lines = 0;
  for (char *p = cluster; *p; p++) lines += *p == '\n';
  cr_assert_eq(lines, 7);
  free(cluster);
  free(local);
}
