/* test_diff_qemu.c: differential tests of icost's RV64GC emulator against
 * qemu-riscv64. Each program of tests/diff/ is compiled at test time with
 * riscv64-linux-gnu-gcc -static into <build>/diff/, run under both, and
 * must give the same stdout, stderr, exit code and written files; for most
 * of them the executed pc sequence must be identical too (qemu's
 * `-singlestep -d exec,nochain` log against `icost emu --trace-pc`). The
 * programs print only what must agree (no times, random bytes, addresses).
 * Skipped, with a message, when the cross compiler or qemu is missing. */
#include "diff/diff_run.h"

#define DIFF_SRC ICOST_SOURCE_DIR "/tests/diff/"
#define DIFF_OUT ICOST_BUILD_DIR "/diff/"

typedef struct diff_prog {
  const char *name;  /* test and binary name */
  const char *src;   /* file in tests/diff/ */
  const char *march; /* extra -march/-mabi, or NULL for gcc's default (RV64GC) */
  int nargs;
  char *args[4]; /* "{D}": a fresh directory of each side's own */
  int trace;     /* also compare pc sequences, running with targs */
  int ntargs;    /* (a shorter run: qemu's per-instruction log is slow) */
  char *targs[4];
} diff_prog;

static char *qemu_path, *gcc_path;

static void need_tools(void) {
  gcc_path = dr_which("riscv64-linux-gnu-gcc");
  qemu_path = dr_which("qemu-riscv64");
  if (!gcc_path) cr_skip_test("riscv64-linux-gnu-gcc not found: differential test skipped");
  if (!qemu_path) cr_skip_test("qemu-riscv64 not found: differential test skipped");
}

static time_t mtime(const char *p) {
  struct stat st;
  return stat(p, &st) == 0 ? st.st_mtime : 0;
}

/* Compiles tests/diff/SRC into <build>/diff/NAME unless it is up to date. */
static void compile(const diff_prog *p, char *out, size_t outsz) {
  mkdir(DIFF_OUT, 0755);
  char src[512], tmp[1024], log[1024];
  snprintf(src, sizeof src, DIFF_SRC "%s", p->src);
  snprintf(out, outsz, DIFF_OUT "%s", p->name);
  time_t t = mtime(out);
  if (t && t > mtime(src) && t > mtime(DIFF_SRC "diff_util.h")) return;
  snprintf(tmp, sizeof tmp, "%s.tmp", out);
  snprintf(log, sizeof log, "%s.log", out);
  char *argv[16];
  int k = 0;
  argv[k++] = gcc_path;
  argv[k++] = "-O2";
  argv[k++] = "-static";
  argv[k++] = "-Wall";
  argv[k++] = "-Wextra";
  argv[k++] = "-Werror";
  if (p->march) {
    argv[k++] = (char *)p->march;
    argv[k++] = "-mabi=lp64d";
  }
  argv[k++] = "-o";
  argv[k++] = tmp;
  argv[k++] = src;
  argv[k++] = "-lm";
  argv[k] = NULL;
  int rc = dr_run(argv, environ, log, log, -1);
  if (rc != 0) {
    size_t n;
    char *msg = dr_slurp(log, &n);
    cr_assert_fail("compiling %s failed (%d): %.1500s", src, rc, msg ? msg : "");
  }
  cr_assert_eq(rename(tmp, out), 0);
  remove(log);
}

static void diff_test(const diff_prog *p) {
  need_tools();
  char prog[512], dq[600], de[600], cap[600], trace[600];
  compile(p, prog, sizeof prog);
  int dirs = 0;
  for (int i = 0; i < p->nargs; i++) dirs |= strcmp(p->args[i], "{D}") == 0;
  /* same-length directory names on both sides: the paths are part of the
   * guest's data, and string lengths steer control flow */
  snprintf(dq, sizeof dq, "%s.dq", prog);
  snprintf(de, sizeof de, "%s.de", prog);
  snprintf(cap, sizeof cap, "%s", prog);
  dr_compare_runs(qemu_path, prog, p->nargs, (char **)p->args, dirs ? dq : NULL,
                  dirs ? de : NULL, cap);
  if (p->trace) {
    snprintf(dq, sizeof dq, "%s.tq", prog);
    snprintf(de, sizeof de, "%s.te", prog);
    snprintf(trace, sizeof trace, "%s.trace", prog);
    dr_compare_traces(qemu_path, prog, p->ntargs, (char **)p->targs, dirs ? dq : NULL,
                      dirs ? de : NULL, trace);
  }
}

#define DIFF_TEST(tname, ...) \
  Test(diff_qemu, tname, .timeout = 180) { \
    static const diff_prog p = {#tname, __VA_ARGS__}; \
    diff_test(&p); \
  }

/* integer and M edge cases; compressed code by default, and without C */
DIFF_TEST(int, "diff_int.c", NULL, 0, {0}, 1, 1, {"3"})
DIFF_TEST(int_norvc, "diff_int.c", "-march=rv64g", 0, {0}, 1, 1, {"4"})
/* A: LR/SC and every AMO */
DIFF_TEST(atomic, "diff_atomic.c", NULL, 0, {0}, 1, 1, {"3"})
/* F/D: every rounding mode (results and fflags), then NaN cases and boxing */
DIFF_TEST(fp_rm, "diff_fp.c", NULL, 1, {"rm"}, 0, 0, {0})
DIFF_TEST(fp_nan, "diff_fp.c", NULL, 1, {"nan"}, 1, 2, {"nan", "3"})
DIFF_TEST(fp_nan_norvc, "diff_fp.c", "-march=rv64g", 1, {"nan"}, 0, 0, {0})
/* every compressed instruction form, written out */
DIFF_TEST(rvc, "diff_rvc.c", NULL, 0, {0}, 1, 0, {0})
/* how programs end: exit through stdio, abort (a signal), end of input */
DIFF_TEST(exit, "diff_exit.c", NULL, 1, {"exit"}, 1, 1, {"exit"})
DIFF_TEST(abort, "diff_exit.c", NULL, 1, {"abort"}, 1, 1, {"abort"})
DIFF_TEST(stdin, "diff_exit.c", NULL, 1, {"stdin"}, 1, 1, {"stdin"})
/* system calls and file I/O into a directory of each side's own */
DIFF_TEST(sys, "diff_sys.c", NULL, 1, {"{D}"}, 1, 1, {"{D}"})
DIFF_TEST(sysx, "diff_sysx.c", NULL, 1, {"{D}"}, 1, 1, {"{D}"})

/* The harness itself must see differences: equal trees pass, one changed
 * byte, a missing file and a different mode each fail; the qemu log parser
 * takes the pc from the right field and skips other lines. */
Test(diff_qemu, harness_detects_differences) {
  char a[600], b[600], fa[700], fb[700], msg[1024];
  mkdir(DIFF_OUT, 0755);
  snprintf(a, sizeof a, DIFF_OUT "harness.a");
  snprintf(b, sizeof b, DIFF_OUT "harness.b");
  dr_fresh_dir(a);
  dr_fresh_dir(b);
  snprintf(fa, sizeof fa, "%s/x", a);
  snprintf(fb, sizeof fb, "%s/x", b);
  FILE *f = fopen(fa, "w");
  fputs("same\n", f);
  fclose(f);
  f = fopen(fb, "w");
  fputs("same\n", f);
  fclose(f);
  cr_assert(dr_dirs_equal(a, b, msg, sizeof msg), "%s", msg);
  f = fopen(fb, "w");
  fputs("samf\n", f);
  fclose(f);
  cr_assert(!dr_dirs_equal(a, b, msg, sizeof msg));
  cr_assert_not_null(strstr(msg, "differs"), "%s", msg);
  remove(fb);
  cr_assert(!dr_dirs_equal(a, b, msg, sizeof msg));
  cr_assert_not_null(strstr(msg, "nothing more"), "%s", msg);
  f = fopen(fb, "w");
  fputs("same\n", f);
  fclose(f);
  chmod(fb, 0600);
  chmod(fa, 0644);
  cr_assert(!dr_dirs_equal(a, b, msg, sizeof msg));
  cr_assert_not_null(strstr(msg, "mode"), "%s", msg);

  uint64_t pc;
  cr_assert(dr_qemu_pc("Trace 0: 0x7f0f26800100 [0000000000000000/0000000000010558/00207600/"
                       "00000201] _start\n",
                       &pc));
  cr_assert_eq(pc, 0x10558);
  cr_assert(!dr_qemu_pc("IN: _start\n", &pc));
  cr_assert(!dr_qemu_pc("Trace 0: 0x7f0f26800100 [garbage]\n", &pc));
}
