/* test_clean_failure.c: icost fails cleanly. Every file it writes (graph
 * -o, profile -o, emu --trace-pc) is complete or absent after SIGTERM or
 * SIGINT at any moment, with no temp file left beside it; a write error on
 * stdout is exit 1; readers refuse FIFOs, devices and directories at once;
 * a config with a key or base: given twice is an error with file:line. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include "test_guests.h"
#include "test_rv64_util.h"
#include "test_util.h"

static char exe[200], work[256];

static void setup(void) {
  if (!t_have("riscv64-linux-gnu-gcc")) cr_skip_test("riscv64-linux-gnu-gcc not installed");
  t_tmp(exe, sizeof exe, "cf_guest");
  cr_assert_eq(t_cross_compile(t_guest_random_branch, exe, NULL), 0);
  t_tmp(work, sizeof work, "cf_dir");
}

static int sh(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int sh(char **out, const char *fmt, ...) {
  char cmd[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(cmd, sizeof cmd, fmt, ap);
  va_end(ap);
  char *o = NULL;
  int rc = t_run_capture(cmd, &o);
  if (out) *out = o;
  else free(o);
  return rc;
}

/* Starts argv in dir, sends sig after delay_us, waits. */
static void run_and_kill(const char *dir, char *const argv[], int sig, long delay_us) {
  pid_t pid = fork();
  cr_assert_geq(pid, 0);
  if (pid == 0) {
    if (chdir(dir) != 0) _exit(126);
    freopen("/dev/null", "w", stdout);
    freopen("/dev/null", "w", stderr);
    execv(argv[0], argv);
    _exit(127);
  }
  struct timespec ts = {delay_us / 1000000, (delay_us % 1000000) * 1000};
  nanosleep(&ts, NULL);
  kill(pid, sig);
  int st;
  cr_assert_eq(waitpid(pid, &st, 0), pid);
}

/* The names in dir other than "." and ".."; at most one, target, allowed. */
static int only_target(const char *dir, const char *target) {
  DIR *d = opendir(dir);
  cr_assert_not_null(d);
  struct dirent *e;
  int found = 0;
  while ((e = readdir(d)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    cr_assert_str_eq(e->d_name, target, "%s left in %s", e->d_name, dir);
    found = 1;
  }
  closedir(d);
  return found;
}

typedef int (*complete_fn)(const char *path);

static int graph_complete(const char *path) {
  size_t n = 0;
  char *s = t_slurp(path, &n);
  int ok = s && n > 11 && memcmp(s + n - 11, "</graphml>\n", 11) == 0;
  free(s);
  return ok;
}

static int profile_complete(const char *path) {
  return sh(NULL, "%s analyze %s >/dev/null 2>&1", ICOST_BINARY, path) == 0;
}

static size_t trace_lines;
static int trace_complete(const char *path) {
  size_t n = 0;
  char *s = t_slurp(path, &n);
  size_t lines = 0;
  for (size_t i = 0; i < n; i++) lines += s[i] == '\n';
  free(s);
  return lines == trace_lines;
}

/* Kills `icost ARGS...` at several moments with SIGTERM and SIGINT: each
   time either a complete target or nothing, and no other file. */
static void kill_at_moments(char *const argv[], const char *target, complete_fn complete) {
  static const long delays_us[] = {0, 3000, 20000, 60000, 150000, 400000, 1200000};
  char path[512];
  srand((unsigned)time(NULL));
  int complete_seen = 0, absent_seen = 0;
  for (size_t k = 0; k < sizeof delays_us / sizeof delays_us[0]; k++)
    for (int s = 0; s < 2; s++) {
      sh(NULL, "rm -rf %s && mkdir -p %s", work, work);
      long jitter = rand() % 2000;
      run_and_kill(work, argv, s ? SIGINT : SIGTERM, delays_us[k] + jitter);
      snprintf(path, sizeof path, "%s/%s", work, target);
      if (only_target(work, target)) {
        cr_assert(complete(path), "%s incomplete after a signal at %ld us", target,
                  delays_us[k] + jitter);
        complete_seen++;
      } else {
        absent_seen++;
      }
    }
  cr_log_info("%s: %d complete, %d absent", target, complete_seen, absent_seen);
  sh(NULL, "rm -rf %s", work);
}

Test(clean_failure, graph_output_all_or_nothing_under_signals, .timeout = 300) {
  setup();
  char *argv[] = {ICOST_BINARY, "graph", "--from", "0", "--count", "4000", "-o", "g.graphml",
                  "--", exe, "20000", NULL};
  kill_at_moments(argv, "g.graphml", graph_complete);
}

Test(clean_failure, profile_output_all_or_nothing_under_signals, .timeout = 300) {
  setup();
  char *argv[] = {ICOST_BINARY, "profile", "-o", "s.bin", "--", exe, "200000", NULL};
  kill_at_moments(argv, "s.bin", profile_complete);
}

Test(clean_failure, trace_output_all_or_nothing_under_signals, .timeout = 300) {
  setup();
  char *out;
  cr_assert_eq(sh(&out, "%s emu --stats -- %s 300000 2>&1 >/dev/null", ICOST_BINARY, exe), 0);
  const char *c = strstr(out, "instructions: ");
  cr_assert_not_null(c);
  trace_lines = strtoull(c + 14, NULL, 10);
  free(out);
  char *argv[] = {ICOST_BINARY, "emu", "--trace-pc", "t.txt", "--", exe, "300000", NULL};
  kill_at_moments(argv, "t.txt", trace_complete);
}

Test(clean_failure, write_errors_and_odd_inputs) {
  setup();
  char *out;
  /* stdout on a full device: exit 1 with a message, as GNU tools */
  cr_assert_eq(sh(&out, "%s sim --max 5k -- %s 2>&1 >/dev/full", ICOST_BINARY, exe), 1);
  cr_assert(strstr(out, "stdout: write error"), "%s", out);
  free(out);
  cr_assert_eq(sh(NULL, "%s sim --help >/dev/full 2>/dev/null", ICOST_BINARY), 1);
  /* a trace to a full device: an error, and no file named after it */
  cr_assert_eq(sh(&out, "%s emu --trace-pc /dev/full -- %s 1000 2>&1", ICOST_BINARY, exe), 1);
  cr_assert(strstr(out, "/dev/full: write error"), "%s", out);
  free(out);
  struct stat sb;
  cr_assert(stat("/dev/full", &sb) == 0 && S_ISCHR(sb.st_mode), "a device was replaced");
  /* FIFOs, devices and directories: refused at once, never read */
  char fifo[256];
  t_tmp(fifo, sizeof fifo, "cf_fifo");
  unlink(fifo);
  cr_assert_eq(mkfifo(fifo, 0644), 0);
  const char *bad[] = {fifo, "/dev/zero", "/tmp"};
  for (int i = 0; i < 3; i++) {
    cr_assert_eq(sh(&out, "timeout 20 %s emu -- %s 2>&1", ICOST_BINARY, bad[i]), 2, "%s", out);
    free(out);
    cr_assert_eq(sh(&out, "timeout 20 %s sim --config %s 2>&1", ICOST_BINARY, bad[i]), 2, "%s", out);
    cr_assert(strstr(out, i == 2 ? "is a directory" : "not a regular file"), "%s", out);
    free(out);
    cr_assert_eq(sh(&out, "timeout 20 %s analyze %s 2>&1", ICOST_BINARY, bad[i]), 2, "%s", out);
    free(out);
  }
  /* analyze of a sample file whose program became a FIFO */
  char dir[300];
  snprintf(dir, sizeof dir, "%s.an", fifo);
  cr_assert_eq(sh(NULL, "rm -rf %s && mkdir %s && cp %s %s/prog && cd %s && %s profile -o s.bin -- "
                  "./prog 20000 2>/dev/null && rm prog && mkfifo prog",
                  dir, dir, exe, dir, dir, ICOST_BINARY), 0);
  cr_assert_eq(sh(&out, "cd %s && timeout 20 %s analyze s.bin 2>&1", dir, ICOST_BINARY), 2, "%s", out);
  cr_assert(strstr(out, "not a regular file"), "%s", out);
  free(out);
  sh(NULL, "rm -rf %s", dir);
  unlink(fifo);
}

Test(clean_failure, config_keys_given_twice) {
  char path[256], *out;
  snprintf(path, sizeof path, "%s/configs/test_cf_dup_%ld.yaml", ICOST_SOURCE_DIR, (long)getpid());
  cr_assert_eq(t_write_file(path, "base: baseline.yaml\ncore:\n  rob: 64\nbase: l1d4.yaml\n", 50), 0);
  cr_assert_eq(sh(&out, "%s sim --config %s --print-config 2>&1", ICOST_BINARY, path), 2);
  cr_assert(strstr(out, ".yaml:4:1: base: given twice (first at line 1)"), "%s", out);
  free(out);
  cr_assert_eq(t_write_file(path, "core:\n  rob: 64\n  iq: 8\n  rob: 32\n", 34), 0);
  cr_assert_eq(sh(&out, "%s sim --config %s --print-config 2>&1", ICOST_BINARY, path), 2);
  cr_assert(strstr(out, ".yaml:4:3: core.rob given twice (first at line 2)"), "%s", out);
  free(out);
  unlink(path);
  cr_assert_eq(sh(&out, "%s sim --config %s/configs --print-config 2>&1", ICOST_BINARY, ICOST_SOURCE_DIR), 2);
  cr_assert(strstr(out, "configs: is a directory"), "%s", out);
  free(out);
}
