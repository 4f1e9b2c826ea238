/* sweep_slurm.c: `icost sweep ... --slurm-script F [--submit]`: an sbatch
 * job-array script whose task I runs the sweep's shard I/N (sweep_cli.h).
 * Slurm schedules; icost only shards: each task writes its records into the
 * shared store, and a rerun of the script (or of any shard) does only what
 * the store lacks. */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "sweep_cli.h"

/* A word for the shell: as is when it is safe, else in single quotes. */
static void put_word(FILE *f, const char *s) {
  int safe = *s != 0;
  for (const char *p = s; *p && safe; p++)
    safe = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=,:+@%", *p) !=
           NULL;
  if (safe) {
    fputs(s, f);
    return;
  }
  fputc('\'', f);
  for (; *s; s++) {
    if (*s == '\'') fputs("'\\''", f);
    else fputc(*s, f);
  }
  fputc('\'', f);
}

/* options of the submitting command that the tasks do not take: name and
 * whether it has a value, in the forms cli_getopt reads (opts.h): --name V,
 * --name=V, and for -j also -jN */
static const struct {
  const char *name;
  int value;
} dropped[] = {{"--slurm-script", 1}, {"--submit", 0}, {"--tasks", 1}, {"--shard", 1}, {"-j", 1},
               {"--jobs", 1},         {"--export", 1}, {"--plot", 1}};

static int dropped_option(const char *a, int *skip_next) {
  for (size_t k = 0; k < sizeof dropped / sizeof dropped[0]; k++) {
    size_t l = strlen(dropped[k].name);
    if (strncmp(a, dropped[k].name, l) != 0) continue;
    if (a[l] == 0) {
      *skip_next = dropped[k].value;
      return 1;
    }
    if ((a[l] == '=' || l == 2) && dropped[k].value) { /* --name=V, -jN */
      *skip_next = 0;
      return 1;
    }
  }
  return 0;
}

int sweep_slurm_script(const char *path, int argc, char **argv, uint64_t tasks, size_t runs,
                       int submit) {
  if (tasks == 0) tasks = runs < 64 ? runs : 64;
  if (tasks > runs) tasks = runs;
  char exe[PATH_MAX], cwd[PATH_MAX];
  ssize_t el = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (el <= 0) return cli_fail(1, "sweep: cannot find the icost binary: %s", strerror(errno));
  exe[el] = 0;
  if (!getcwd(cwd, sizeof cwd)) return cli_fail(1, "sweep: getcwd: %s", strerror(errno));
  char tmp[PATH_MAX + 32];
  snprintf(tmp, sizeof tmp, "%s.tmp%ld", path, (long)getpid());
  FILE *f = fopen(tmp, "w");
  if (!f) return cli_fail(2, "sweep: --slurm-script %s: %s", path, strerror(errno));
  fprintf(f,
          "#!/bin/bash\n"
          "# icost sweep as a Slurm job array: task I of %llu runs shard I/%llu of the\n"
          "# sweep's %zu runs; every task writes its records into the sweep's --out store\n"
          "# (on a file system all nodes see). Submit with: sbatch %s\n"
          "# A rerun (or a rerun of one task) runs only what the store lacks.\n"
          "#SBATCH --job-name=icost-sweep\n"
          "#SBATCH --array=0-%llu\n"
          "#SBATCH --ntasks=1\n"
          "#SBATCH --cpus-per-task=1\n"
          "#SBATCH --output=icost-sweep-%%A_%%a.log\n"
          "set -euo pipefail\n"
          "cd ",
          (unsigned long long)tasks, (unsigned long long)tasks, runs, path,
          (unsigned long long)tasks - 1);
  put_word(f, cwd);
  fputs("\nexec ", f);
  put_word(f, exe);
  fputs(" sweep", f);
  int skip = 0, after_dashes = 0;
  for (int i = 1; i < argc; i++) {
    if (!after_dashes) {
      if (skip) {
        skip = 0;
        continue;
      }
      if (!strcmp(argv[i], "--")) after_dashes = 1;
      else if (dropped_option(argv[i], &skip)) continue;
    }
    if (after_dashes && !strcmp(argv[i], "--")) {
      fputs(" --shard \"$SLURM_ARRAY_TASK_ID/", f);
      fprintf(f, "%llu\" -j \"${SLURM_CPUS_PER_TASK:-1}\"", (unsigned long long)tasks);
      after_dashes = 2;
    }
    fputc(' ', f);
    put_word(f, argv[i]);
  }
  if (after_dashes != 2)
    fprintf(f, " --shard \"$SLURM_ARRAY_TASK_ID/%llu\" -j \"${SLURM_CPUS_PER_TASK:-1}\"",
            (unsigned long long)tasks);
  fputc('\n', f);
  int bad = ferror(f);
  if (fflush(f) != 0 || fsync(fileno(f)) != 0) bad = 1;
  if (fclose(f) != 0) bad = 1;
  if (bad || chmod(tmp, 0755) != 0 || rename(tmp, path) != 0) {
    unlink(tmp);
    return cli_fail(1, "sweep: --slurm-script %s: %s", path, strerror(errno ? errno : EIO));
  }
  printf("sweep: wrote %s: a job array of %llu tasks over %zu runs\n", path,
         (unsigned long long)tasks, runs);
  fflush(stdout);
  if (!submit) return 0;
  pid_t pid = fork();
  if (pid < 0) return cli_fail(1, "sweep: fork: %s", strerror(errno));
  if (pid == 0) {
    execlp("sbatch", "sbatch", path, (char *)NULL);
    fprintf(stderr, "icost: sweep: --submit: sbatch: %s\n", strerror(errno));
    _exit(127);
  }
  int ws;
  while (waitpid(pid, &ws, 0) < 0)
    if (errno != EINTR) return cli_fail(1, "sweep: waitpid: %s", strerror(errno));
  if (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0)
    return cli_fail(1, "sweep: --submit: sbatch %s failed (exit %d)", path,
                    WIFEXITED(ws) ? WEXITSTATUS(ws) : -1);
  return 0;
}
