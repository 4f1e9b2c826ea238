/* diff_run.h: running a RISC-V program under qemu-riscv64 and under
 * `icost emu`, and comparing what they did: stdout, stderr, exit code, the
 * files written into a directory, and the executed pc sequence. Used by
 * tests/test_diff_qemu.c and tests/test_workloads.c (header-only: each
 * Criterion test is its own executable).
 *
 * qemu-riscv64 gives its guest its own environment; icost emu gives a fixed
 * one (LANG=C, PATH=/usr/local/bin:/usr/bin:/bin). qemu runs with exactly
 * that environment, so both guests start from the same stack image and the
 * pc sequences can be compared instruction by instruction. */
#ifndef DIFF_RUN_H
#define DIFF_RUN_H

#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static char *const dr_qemu_env[] = {"PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C", NULL};

/* Full path of an executable found on PATH, or NULL. */
static inline char *dr_which(const char *tool) {
  const char *path = getenv("PATH");
  if (!path) path = "/usr/local/bin:/usr/bin:/bin";
  char *copy = strdup(path), *save = NULL;
  char *found = NULL;
  for (char *dir = strtok_r(copy, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
    char *cand;
    if (asprintf(&cand, "%s/%s", *dir ? dir : ".", tool) < 0) break;
    if (access(cand, X_OK) == 0)
      found = cand;
    else
      free(cand);
  }
  free(copy);
  return found;
}

/* Starts argv (argv[0] a path) with stdin from /dev/null, stdout and stderr
 * into files (NULL: /dev/null), fd 3 = fd3 when >= 0, environment envp.
 * Returns the child's pid, -1 if fork failed. */
static inline pid_t dr_spawn(char *const argv[], char *const envp[], const char *out,
                             const char *err, int fd3) {
  fflush(NULL);
  pid_t pid = fork();
  if (pid != 0) return pid;
  struct rlimit no_core = {0, 0}; /* a guest killed by a signal leaves no core file */
  setrlimit(RLIMIT_CORE, &no_core);
  int t = fd3 >= 0 ? fcntl(fd3, F_DUPFD, 100) : -1; /* out of the way of what we open */
  int in = open("/dev/null", O_RDONLY);
  int o = open(out ? out : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  int e = open(err ? err : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (in < 0 || o < 0 || e < 0 || (fd3 >= 0 && t < 0)) _exit(126);
  dup2(in, 0);
  dup2(o, 1);
  dup2(e, 2);
  if (t >= 0)
    dup2(t, 3);
  else
    close(3);
  for (int fd = 4; fd < 1024; fd++) close(fd);
  execve(argv[0], argv, envp);
  _exit(127);
}

/* Waits for pid: its exit code, 128 + signal when killed, -1 on error. */
static inline int dr_wait(pid_t pid) {
  if (pid < 0) return -1;
  int st;
  while (waitpid(pid, &st, 0) < 0)
    if (errno != EINTR) return -1;
  if (WIFEXITED(st)) return WEXITSTATUS(st) == 127 ? -1 : WEXITSTATUS(st);
  return 128 + WTERMSIG(st);
}

static inline int dr_run(char *const argv[], char *const envp[], const char *out,
                         const char *err, int fd3) {
  return dr_wait(dr_spawn(argv, envp, out, err, fd3));
}

/* Reads a whole file; NULL if it cannot be read. *len gets its length. */
static inline char *dr_slurp(const char *path, size_t *len) {
  *len = 0;
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap + 1);
  size_t got;
  while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
    n += got;
    if (n == cap) {
      char *nb = realloc(buf, cap * 2 + 1);
      if (!nb) {
        free(buf);
        buf = NULL;
        break;
      }
      buf = nb;
      cap *= 2;
    }
  }
  fclose(f);
  if (buf) buf[n] = '\0';
  *len = n;
  return buf;
}

static inline int dr_rm_one(const char *p, const struct stat *sb, int flag,
                            struct FTW *ftw) {
  (void)sb, (void)flag, (void)ftw;
  remove(p);
  return 0;
}

/* Removes dir recursively (if present) and creates it empty. */
static inline void dr_fresh_dir(const char *dir) {
  nftw(dir, dr_rm_one, 16, FTW_DEPTH | FTW_PHYS);
  cr_assert_eq(mkdir(dir, 0755), 0, "mkdir %s: %s", dir, strerror(errno));
}

static inline int dr_cmp_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted entry names of dir (without . and ..); *n gets the count. */
static inline char **dr_list(const char *dir, size_t *n) {
  DIR *d = opendir(dir);
  cr_assert_not_null(d, "opendir %s: %s", dir, strerror(errno));
  char **names = NULL;
  size_t cnt = 0;
  struct dirent *de;
  while ((de = readdir(d))) {
    if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0) continue;
    names = realloc(names, (cnt + 1) * sizeof *names);
    names[cnt++] = strdup(de->d_name);
  }
  closedir(d);
  if (cnt) qsort(names, cnt, sizeof *names, dr_cmp_names);
  *n = cnt;
  return names;
}

/* Whether directory trees a (qemu's) and b (icost's) hold the same names,
 * kinds, permission bits and file contents; if not, msg says where. */
static inline int dr_dirs_equal(const char *a, const char *b, char *msg, size_t msz) {
  size_t na, nb;
  char **la = dr_list(a, &na), **lb = dr_list(b, &nb);
  int ok = 1;
  for (size_t i = 0; ok && (i < na || i < nb); i++) {
    if (!(i < na && i < nb && strcmp(la[i], lb[i]) == 0)) {
      snprintf(msg, msz, "files written differ: qemu wrote %s/%s, icost emu %s/%s", a,
               i < na ? la[i] : "(nothing more)", b, i < nb ? lb[i] : "(nothing more)");
      ok = 0;
      break;
    }
    char *pa, *pb;
    if (asprintf(&pa, "%s/%s", a, la[i]) < 0 || asprintf(&pb, "%s/%s", b, lb[i]) < 0) abort();
    struct stat sa, sb;
    if (lstat(pa, &sa) != 0 || lstat(pb, &sb) != 0 || sa.st_mode != sb.st_mode) {
      snprintf(msg, msz, "%s: mode %o under qemu, %o under icost emu", pb,
               (unsigned)sa.st_mode, (unsigned)sb.st_mode);
      ok = 0;
    } else if (S_ISDIR(sa.st_mode)) {
      ok = dr_dirs_equal(pa, pb, msg, msz);
    } else if (S_ISREG(sa.st_mode)) {
      size_t ca = 0, cb = 0;
      char *da = dr_slurp(pa, &ca), *db = dr_slurp(pb, &cb);
      if (!da || !db || ca != cb || memcmp(da, db, ca) != 0) {
        snprintf(msg, msz, "file %s differs: %zu bytes under qemu, %zu under icost emu", pb, ca,
                 cb);
        ok = 0;
      }
      free(da);
      free(db);
    }
    free(pa);
    free(pb);
  }
  for (size_t i = 0; i < na; i++) free(la[i]);
  for (size_t i = 0; i < nb; i++) free(lb[i]);
  free(la);
  free(lb);
  return ok;
}

static inline void dr_compare_dirs(const char *a, const char *b) {
  char msg[1024];
  cr_assert(dr_dirs_equal(a, b, msg, sizeof msg), "%s", msg);
}

/* First line where two texts differ, for a readable failure message. */
static inline void dr_first_diff(const char *a, size_t la, const char *b, size_t lb, char *msg,
                          size_t msz) {
  size_t i = 0, line = 1, start = 0;
  while (i < la && i < lb && a[i] == b[i]) {
    if (a[i] == '\n') line++, start = i + 1;
    i++;
  }
  const char *ea = memchr(a + start, '\n', la - start), *eb = memchr(b + start, '\n', lb - start);
  int wa = (int)((ea ? (size_t)(ea - a) : la) - start);
  int wb = (int)((eb ? (size_t)(eb - b) : lb) - start);
  snprintf(msg, msz, "line %zu: qemu '%.*s' vs icost emu '%.*s'", line, wa > 160 ? 160 : wa,
           a + start, wb > 160 ? 160 : wb, b + start);
}

/* Compares two captured outputs; what names the stream. */
static inline void dr_compare_files(const char *what, const char *qpath, const char *epath) {
  size_t lq, le;
  char *q = dr_slurp(qpath, &lq), *e = dr_slurp(epath, &le);
  cr_assert(q && e, "cannot read %s captures %s, %s", what, qpath, epath);
  if (lq != le || memcmp(q, e, lq) != 0) {
    char msg[512];
    dr_first_diff(q, lq, e, le, msg, sizeof msg);
    free(q);
    free(e);
    cr_assert_fail("%s differs (%zu bytes under qemu, %zu under icost emu; files %s, %s): %s",
                   what, lq, le, qpath, epath, msg);
  }
  free(q);
  free(e);
}

/* Parses the pc out of a `qemu -d exec` line,
 *   Trace 0: 0x7f0f26800100 [0000000000000000/0000000000010558/00207600/00000201] _start
 * (the second field in brackets). Returns 0 for other lines. */
static inline int dr_qemu_pc(const char *line, uint64_t *pc) {
  if (strncmp(line, "Trace ", 6) != 0) return 0;
  const char *br = strchr(line, '[');
  if (!br) return 0;
  const char *slash = strchr(br, '/');
  if (!slash) return 0;
  char *end;
  *pc = strtoull(slash + 1, &end, 16);
  return end != slash + 1 && *end == '/';
}

/* Runs prog under `icost emu --trace-pc` and under
 * `qemu-riscv64 -singlestep -d exec,nochain` and asserts that both execute
 * the same pc sequence. qemu's log streams through a pipe, so no log file
 * of the size of the run is written. args are the program's arguments
 * after argv[0]; each side gets its own dir (same length) when
 * dir_q/dir_e are given (replacing "{D}" in args). */
static inline void dr_compare_traces(const char *qemu, const char *prog, int nargs, char **args,
                              const char *dir_q, const char *dir_e, const char *trace_path) {
  char *argv[48];
  int k = 0;
  argv[k++] = (char *)ICOST_BINARY;
  argv[k++] = "emu";
  argv[k++] = "--trace-pc";
  argv[k++] = (char *)trace_path;
  argv[k++] = "--";
  argv[k++] = (char *)prog;
  for (int i = 0; i < nargs && k < 46; i++)
    argv[k++] = strcmp(args[i], "{D}") == 0 ? (char *)dir_e : args[i];
  argv[k] = NULL;
  if (dir_e) dr_fresh_dir(dir_e);
  int ecode = dr_run(argv, environ, NULL, NULL, -1);
  cr_assert_geq(ecode, 0, "cannot run %s", ICOST_BINARY);

  k = 0;
  argv[k++] = (char *)qemu;
  argv[k++] = "-singlestep";
  argv[k++] = "-d";
  argv[k++] = "exec,nochain";
  argv[k++] = "-D";
  argv[k++] = "/dev/fd/3";
  argv[k++] = (char *)prog;
  for (int i = 0; i < nargs && k < 46; i++)
    argv[k++] = strcmp(args[i], "{D}") == 0 ? (char *)dir_q : args[i];
  argv[k] = NULL;
  if (dir_q) dr_fresh_dir(dir_q);
  int pfd[2];
  cr_assert_eq(pipe(pfd), 0);
  pid_t pid = dr_spawn(argv, dr_qemu_env, NULL, NULL, pfd[1]);
  cr_assert_geq(pid, 0);
  close(pfd[1]);
  FILE *ql = fdopen(pfd[0], "r");
  FILE *el = fopen(trace_path, "r");
  cr_assert_not_null(el, "icost emu wrote no trace %s", trace_path);
  char qline[512], eline[64];
  uint64_t n = 0, prev = 0, qpc = 0, epc = 0;
  int mismatch = 0, qmore = 0, emore = 0;
  for (;;) {
    qmore = 0;
    while (fgets(qline, sizeof qline, ql))
      if (dr_qemu_pc(qline, &qpc)) {
        qmore = 1;
        break;
      }
    emore = fgets(eline, sizeof eline, el) != NULL;
    if (emore) epc = strtoull(eline, NULL, 16);
    if (!qmore || !emore) break;
    if (qpc != epc) {
      mismatch = 1;
      break;
    }
    prev = qpc;
    n++;
  }
  uint64_t qrest = 0, erest = 0, skip;
  while (fgets(qline, sizeof qline, ql)) qrest += dr_qemu_pc(qline, &skip) ? 1 : 0;
  while (fgets(eline, sizeof eline, el)) erest++;
  fclose(ql);
  fclose(el);
  int qcode = dr_wait(pid);
  cr_assert_geq(qcode, 0, "cannot run %s", qemu);
  cr_assert_eq(qcode, ecode, "exit code %d under qemu, %d under icost emu (traced runs)", qcode,
               ecode);
  cr_assert(!mismatch,
            "pc trace differs at instruction %" PRIu64 " (after pc 0x%" PRIx64
            "): qemu 0x%" PRIx64 ", icost emu 0x%" PRIx64,
            n, prev, qpc, epc);
  cr_assert(!qmore && !emore,
            "pc traces agree for %" PRIu64 " instructions (last pc 0x%" PRIx64
            "), then %s goes on for %" PRIu64 " more",
            n, prev, qmore ? "qemu" : "icost emu", (qmore ? qrest : erest) + 1);
  cr_assert_gt(n, 0, "empty pc traces");
  remove(trace_path);
}

/* Runs prog under qemu-riscv64 and under icost emu and asserts equal
 * stdout, stderr, exit code and, with dirs, equal files written. {D} in
 * args is replaced by each side's directory. Returns the exit code. */
static inline int dr_compare_runs(const char *qemu, const char *prog, int nargs, char **args,
                           const char *dir_q, const char *dir_e, const char *cap_prefix) {
  char *argv[48];
  char *qo, *qe, *eo, *ee;
  cr_assert(asprintf(&qo, "%s.qemu.out", cap_prefix) > 0 &&
            asprintf(&qe, "%s.qemu.err", cap_prefix) > 0 &&
            asprintf(&eo, "%s.icost.out", cap_prefix) > 0 &&
            asprintf(&ee, "%s.icost.err", cap_prefix) > 0);
  int k = 0;
  argv[k++] = (char *)qemu;
  argv[k++] = (char *)prog;
  for (int i = 0; i < nargs && k < 46; i++)
    argv[k++] = strcmp(args[i], "{D}") == 0 ? (char *)dir_q : args[i];
  argv[k] = NULL;
  if (dir_q) dr_fresh_dir(dir_q);
  int qcode = dr_run(argv, dr_qemu_env, qo, qe, -1);
  cr_assert_geq(qcode, 0, "cannot run %s", qemu);

  k = 0;
  argv[k++] = (char *)ICOST_BINARY;
  argv[k++] = "emu";
  argv[k++] = "--";
  argv[k++] = (char *)prog;
  for (int i = 0; i < nargs && k < 46; i++)
    argv[k++] = strcmp(args[i], "{D}") == 0 ? (char *)dir_e : args[i];
  argv[k] = NULL;
  if (dir_e) dr_fresh_dir(dir_e);
  int ecode = dr_run(argv, environ, eo, ee, -1);
  cr_assert_geq(ecode, 0, "cannot run %s", ICOST_BINARY);

  /* icost's own fault message names the cause: show it first */
  if (qcode != ecode) {
    size_t n;
    char *msg = dr_slurp(ee, &n);
    cr_assert_fail("%s: exit code %d under qemu, %d under icost emu; icost stderr: %.300s", prog,
                   qcode, ecode, msg ? msg : "");
  }
  char what[600];
  snprintf(what, sizeof what, "stdout of %.500s", prog);
  dr_compare_files(what, qo, eo);
  snprintf(what, sizeof what, "stderr of %.500s", prog);
  dr_compare_files(what, qe, ee);
  if (dir_q && dir_e) dr_compare_dirs(dir_q, dir_e);
  remove(qo), remove(qe), remove(eo), remove(ee);
  free(qo), free(qe), free(eo), free(ee);
  return qcode;
}

#endif
