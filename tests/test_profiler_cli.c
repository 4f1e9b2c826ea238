/* test_profiler_cli.c: `icost profile` and `icost analyze` end to end on a
 * tiny cross-compiled loop (skipped without riscv64-linux-gnu-gcc):
 * the sample file is written deterministically for a seed, analyze prints
 * a breakdown with CIs and stitching counts in every format, and bad
 * input (no -o, a missing/truncated/foreign file, a mismatched program)
 * is a one-line error with exit status 2 and no partial output file. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_util.h"

static const char loop_src[] =
    "#include <stdlib.h>\n"
    "static long a[1 << 16];\n"
    "int main(int argc, char **argv) {\n"
    "  long n = argc > 1 ? atol(argv[1]) : 100000, s = 0;\n"
    "  unsigned x = 12345;\n"
    "  for (long i = 0; i < n; i++) {\n"
    "    x = x * 1103515245u + 12345u;\n"
    "    if (x & 0x10000) s += a[x & 0xffff]; else a[(x >> 3) & 0xffff] = s;\n"
    "  }\n"
    "  return (int)(s & 1);\n"
    "}\n";

static int build(const char *name, const char *src, char *exe, size_t cap) {
  snprintf(exe, cap, "%s/h7_%s", ICOST_BUILD_DIR, name);
  return t_cross_build(exe, src, NULL);
}

/* Runs `icost ARGS`; returns the exit status; out/err get file paths. */
static int icost(const char *args, char *out, char *err) {
  static int n = 0;
  /* tests run in parallel processes: the pid keeps their files apart */
  snprintf(out, 512, "%s/h7_cli_%d_%d.out", ICOST_BUILD_DIR, (int)getpid(), n);
  snprintf(err, 512, "%s/h7_cli_%d_%d.err", ICOST_BUILD_DIR, (int)getpid(), n++);
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "%s %s >%s 2>%s", ICOST_BINARY, args, out, err);
  int st = system(cmd);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}


static int one_line(const char *path) {
  char *s = t_slurp(path, NULL);
  int ok = s && strncmp(s, "icost: ", 7) == 0 && strchr(s, '\n') == s + strlen(s) - 1;
  free(s);
  return ok;
}

#define RUN_OPTS "--skip 100k --warm 50k --max 200k --sample-interval 8 --signature-interval 2000 --fragment-length 500"

Test(profiler_cli, profile_then_analyze, .timeout = 600) {
  char exe[512], out[512], err[512], args[2048], f1[512], f2[512];
  if (!build("cli_loop", loop_src, exe, sizeof exe)) cr_skip_test("riscv64-linux-gnu-gcc missing");
  snprintf(f1, sizeof f1, "%s/h7_cli_a.samples", ICOST_BUILD_DIR);
  snprintf(f2, sizeof f2, "%s/h7_cli_b.samples", ICOST_BUILD_DIR);
  snprintf(args, sizeof args, "profile -o %s " RUN_OPTS " --seed 4 -- %s 10000000", f1, exe);
  cr_assert_eq(icost(args, out, err), 0, "profile failed: %s", t_slurp(err, NULL));
  char *e = t_slurp(err, NULL);
  cr_assert(strstr(e, "detailed") && strstr(e, "samples/s"), "stderr: %s", e);
  free(e);
  snprintf(args, sizeof args, "profile -o %s " RUN_OPTS " --seed 4 -- %s 10000000", f2, exe);
  cr_assert_eq(icost(args, out, err), 0);
  size_t l1 = 0, l2 = 0;
  char *a = t_slurp(f1, &l1), *b = t_slurp(f2, &l2);
  cr_assert(l1 == l2 && memcmp(a, b, l1) == 0, "two profiles with one seed differ");
  free(b);
  /* analyze, text */
  snprintf(args, sizeof args, "analyze %s --categories dmiss,bmisp,win", f1);
  cr_assert_eq(icost(args, out, err), 0, "analyze failed: %s", t_slurp(err, NULL));
  char *t = t_slurp(out, NULL);
  cr_assert(strstr(t, "stitched insts") && strstr(t, "95% CI") && strstr(t, "dmiss+bmisp") &&
                strstr(t, "\ntotal ") && strstr(t, "100.0\n"),
            "%s", t);
  free(t);
  /* yaml and csv */
  snprintf(args, sizeof args, "analyze %s --categories dmiss,bmisp --format yaml --fragments 5",
           f1);
  cr_assert_eq(icost(args, out, err), 0);
  t = t_slurp(out, NULL);
  cr_assert(strstr(t, "stitching:\n  fragments: 5\n") && strstr(t, "lo:"), "%s", t);
  free(t);
  snprintf(args, sizeof args, "analyze %s --categories dmiss --format csv", f1);
  cr_assert_eq(icost(args, out, err), 0);
  t = t_slurp(out, NULL);
  cr_assert(strncmp(t, "#,provenance.version,", 21) == 0, "%s", t);
  cr_assert(strstr(t, "\nname,kind,percent,cycles,lo,hi\n"), "%s", t);
  free(t);
  /* a truncated copy is rejected naming the file */
  char tr[512];
  snprintf(tr, sizeof tr, "%s/h7_cli_trunc.samples", ICOST_BUILD_DIR);
  FILE *f = fopen(tr, "wb");
  fwrite(a, 1, l1 / 2, f);
  fclose(f);
  snprintf(args, sizeof args, "analyze %s", tr);
  cr_assert_eq(icost(args, out, err), 2);
  cr_assert(one_line(err));
  e = t_slurp(err, NULL);
  cr_assert(strstr(e, tr) != NULL, "%s", e);
  free(e);
  free(a);
  /* a mismatched program */
  char other[512];
  if (!build("cli_other", "int main(void) { return 0; }\n", other, sizeof other))
    cr_assert_fail("second build failed");
  snprintf(args, sizeof args, "analyze %s --program %s", f1, other);
  cr_assert_eq(icost(args, out, err), 2);
  cr_assert(one_line(err));
  e = t_slurp(err, NULL);
  cr_assert(strstr(e, "not the program") != NULL, "%s", e);
  free(e);
}

/* Without --signature-interval, a run with --max gets about 200 signature
 * samples (as `icost --method profiler`): 200k instructions of fragments of
 * 500 at interval 500; the old default (10000) gave about 19. */
static unsigned long long signature_samples(const char *stderr_text) {
  const char *p = strstr(stderr_text, " signature samples");
  cr_assert_not_null(p, "%s", stderr_text);
  while (p > stderr_text && p[-1] >= '0' && p[-1] <= '9') p--;
  return strtoull(p, NULL, 10);
}

Test(profiler_cli, profile_interval_follows_max, .timeout = 600) {
  char exe[512], out[512], err[512], args[2048], f[512];
  if (!build("cli_loop", loop_src, exe, sizeof exe)) cr_skip_test("riscv64-linux-gnu-gcc missing");
  snprintf(f, sizeof f, "%s/h7_cli_iv.samples", ICOST_BUILD_DIR);
  snprintf(args, sizeof args,
           "profile -o %s --skip 100k --warm 50k --max 200k --fragment-length 500 -- %s 10000000", f,
           exe);
  cr_assert_eq(icost(args, out, err), 0, "profile failed: %s", t_slurp(err, NULL));
  char *e = t_slurp(err, NULL);
  const unsigned long long n = signature_samples(e);
  cr_assert(n >= 150 && n <= 250, "%llu signature samples: %s", n, e);
  free(e);
  snprintf(args, sizeof args,
           "profile -o %s --skip 100k --warm 50k --max 200k --fragment-length 500 "
           "--signature-interval 10000 -- %s 10000000",
           f, exe);
  cr_assert_eq(icost(args, out, err), 0, "profile failed: %s", t_slurp(err, NULL));
  e = t_slurp(err, NULL);
  cr_assert_lt(signature_samples(e), 40, "%s", e);
  free(e);
  remove(f);
}

/* Without --max the signature samples are taken back to back over the whole
 * run and K of them kept (--signatures, default 200): a run of about 280k
 * instructions in fragments of 500 takes one every 500 and keeps 200; the same
 * seed gives the same file; analyze stitches what was kept. */
static unsigned long long taken_samples(const char *stderr_text) {
  const char *p = strstr(stderr_text, "kept at random of ");
  return p ? strtoull(p + strlen("kept at random of "), NULL, 10) : 0;
}

Test(profiler_cli, profile_without_max_keeps_k_of_the_run, .timeout = 600) {
  char exe[512], out[512], err[512], args[2048], f[512], g[512];
  if (!build("cli_loop", loop_src, exe, sizeof exe)) cr_skip_test("riscv64-linux-gnu-gcc missing");
  snprintf(f, sizeof f, "%s/h7_cli_res.samples", ICOST_BUILD_DIR);
  snprintf(g, sizeof g, "%s/h7_cli_res2.samples", ICOST_BUILD_DIR);
  snprintf(args, sizeof args, "profile -o %s --fragment-length 500 -- %s 15000", f, exe);
  cr_assert_eq(icost(args, out, err), 0, "profile failed: %s", t_slurp(err, NULL));
  char *e = t_slurp(err, NULL);
  cr_assert_eq(signature_samples(e), 200, "%s", e);
  const unsigned long long taken = taken_samples(e);
  const char *p = strstr(e, " from ");
  cr_assert_not_null(p, "%s", e);
  const unsigned long long insns = strtoull(p + 6, NULL, 10);
  cr_assert(insns > 100000 && taken >= insns / 500 && taken <= insns / 500 + 1,
            "%llu taken from %llu instructions: %s", taken, insns, e);
  free(e);
  snprintf(args, sizeof args, "profile -o %s --fragment-length 500 -- %s 15000", g, exe);
  cr_assert_eq(icost(args, out, err), 0);
  size_t l1 = 0, l2 = 0;
  char *a = t_slurp(f, &l1), *b = t_slurp(g, &l2);
  cr_assert(l1 == l2 && memcmp(a, b, l1) == 0, "two profiles with one seed differ");
  free(a);
  free(b);
  snprintf(args, sizeof args, "analyze %s --categories dmiss,bmisp", f);
  cr_assert_eq(icost(args, out, err), 0, "analyze failed: %s", t_slurp(err, NULL));
  char *t = t_slurp(out, NULL);
  cr_assert(strstr(t, "200 signature") && strstr(t, "200 walked"), "%s", t);
  free(t);
  /* --signatures K keeps K; with --signature-interval alone every one is written */
  snprintf(args, sizeof args, "profile -o %s --fragment-length 500 --signatures 50 -- %s 15000", f,
           exe);
  cr_assert_eq(icost(args, out, err), 0, "profile failed: %s", t_slurp(err, NULL));
  e = t_slurp(err, NULL);
  cr_assert(signature_samples(e) == 50 && taken_samples(e) == taken, "%s", e);
  free(e);
  snprintf(args, sizeof args,
           "profile -o %s --fragment-length 500 --signature-interval 1 -- %s 15000", f, exe);
  cr_assert_eq(icost(args, out, err), 0, "profile failed: %s", t_slurp(err, NULL));
  e = t_slurp(err, NULL);
  cr_assert(signature_samples(e) == taken && taken_samples(e) == 0, "%s", e);
  free(e);
  cr_assert_eq(icost("profile -o /tmp/x --signatures 0", out, err), 2);
  cr_assert(one_line(err));
  remove(f);
  remove(g);
}

Test(profiler_cli, usage_errors) {
  char out[512], err[512];
  cr_assert_eq(icost("profile --max 10", out, err), 2);
  cr_assert(one_line(err));
  cr_assert_eq(icost("profile -o /tmp/x --sample-interval 0", out, err), 2);
  cr_assert(one_line(err));
  cr_assert_eq(icost("analyze", out, err), 2);
  cr_assert(one_line(err));
  cr_assert_eq(icost("analyze " ICOST_BUILD_DIR "/h7_no_such.samples", out, err), 2);
  cr_assert(one_line(err));
  cr_assert_eq(icost("analyze " ICOST_SOURCE_DIR "/CMakeLists.txt", out, err), 2);
  cr_assert(one_line(err));
  char *e = t_slurp(err, NULL);
  cr_assert(strstr(e, "not a sample file") != NULL, "%s", e);
  free(e);
  cr_assert_eq(icost("analyze x y", out, err), 2);
  cr_assert_eq(icost("analyze x --format xml", out, err), 2);
  cr_assert_eq(icost("analyze --help", out, err), 0);
  cr_assert_eq(icost("profile --help", out, err), 0);
}

Test(profiler_cli, failed_profile_leaves_no_file, .timeout = 60) {
  char out[512], err[512], args[2048], path[512];
  snprintf(path, sizeof path, "%s/h7_cli_fail.samples", ICOST_BUILD_DIR);
  remove(path);
  /* a program that cannot be loaded */
  snprintf(args, sizeof args, "profile -o %s -- %s/CMakeLists.txt", path, ICOST_SOURCE_DIR);
  cr_assert_neq(icost(args, out, err), 0);
  cr_assert(one_line(err));
  FILE *f = fopen(path, "rb");
  cr_assert_null(f, "a failed profile left %s", path);
}

/* --method profiler and the profiler column of validate: the breakdown sums
   to 100 and, on a loop whose time is mostly one category, the profiler
   finds it within a few points of multisim. */
Test(profiler_cli, method_profiler_and_validate_column, .timeout = 600) {
  char exe[512], out[512], err[512], args[2048];
  if (!build("cli_loop2", loop_src, exe, sizeof exe)) cr_skip_test("riscv64-linux-gnu-gcc missing");
  snprintf(args, sizeof args,
           "--method profiler --categories bmisp,dmiss --format yaml --skip 100k --warm 50k "
           "--max 300k --fragments 40 --frag-length 1000 -- %s 10000000",
           exe);
  cr_assert_eq(icost(args, out, err), 0, "failed: %s", t_slurp(err, NULL));
  char *t = t_slurp(out, NULL);
  cr_assert(strstr(t, "method: profiler") && strstr(t, "name: base") && strstr(t, "lo:"), "%s", t);
  free(t);
  char *e = t_slurp(err, NULL);
  cr_assert(strstr(e, "fragments stitched"), "stderr: %s", e);
  free(e);
  snprintf(args, sizeof args,
           "validate --methods graph,profiler --categories bmisp,dmiss --format yaml --skip 100k "
           "--warm 50k --max 300k --fragments 40 --frag-length 1000 -j 2 -- %s 10000000",
           exe);
  cr_assert_eq(icost(args, out, err), 0, "failed: %s", t_slurp(err, NULL));
  t = t_slurp(out, NULL);
  cr_assert(strstr(t, "profiler") != NULL, "%s", t);
  free(t);
  /* the text report: the profiler's bmisp row is within 5 points of multisim */
  snprintf(args, sizeof args,
           "validate --methods profiler --categories bmisp,dmiss --skip 100k --warm 50k "
           "--max 300k --fragments 40 --frag-length 1000 -j 2 -- %s 10000000",
           exe);
  cr_assert_eq(icost(args, out, err), 0, "failed: %s", t_slurp(err, NULL));
  t = t_slurp(out, NULL);
  char *row = strstr(t, "\nbmisp ");
  cr_assert_not_null(row, "%s", t);
  double ms = 0, pr = 0, lo = 0, hi = 0, er = 0;
  cr_assert_eq(sscanf(row, "\nbmisp %lf %lf [ %lf , %lf ] %lf", &ms, &pr, &lo, &hi, &er), 5, "%s", t);
  cr_assert_gt(ms, 10.0, "the loop should be misprediction-bound: %s", t);
  cr_assert_lt(fabs(pr - ms), 5.0, "%s", t);
  free(t);
}

/* The sample file keeps the program's absolute path: analyze from another
 * directory finds it; moved, analyze stops with one line naming --program,
 * and --program then finds it; changed in place, one line naming --program
 * too. */
Test(profiler_cli, program_by_absolute_path_and_hash, .timeout = 600) {
  char exe[512], other[512], out[512], err[512], args[2048], dir[] = "/tmp/icost_prog_XXXXXX";
  if (!build("cli_loop", loop_src, exe, sizeof exe)) cr_skip_test("riscv64-linux-gnu-gcc missing");
  if (!build("cli_other", "int main(void) { return 0; }\n", other, sizeof other))
    cr_assert_fail("second build failed");
  cr_assert(mkdtemp(dir));
  char cmd[4096];
  snprintf(cmd, sizeof cmd,
           "cp %s %s/prog && cd %s && %s profile -o s.samples " RUN_OPTS " --seed 4 -- ./prog 10000000 "
           ">/dev/null 2>&1",
           exe, dir, dir, ICOST_BINARY);
  cr_assert_eq(system(cmd), 0, "%s", cmd);
  snprintf(args, sizeof args, "analyze %s/s.samples --categories dmiss", dir);
  cr_assert_eq(icost(args, out, err), 0, "analyze from another directory: %s", t_slurp(err, NULL));
  snprintf(cmd, sizeof cmd, "mv %s/prog %s/prog2", dir, dir);
  cr_assert_eq(system(cmd), 0);
  cr_assert_eq(icost(args, out, err), 2);
  cr_assert(one_line(err));
  char *e = t_slurp(err, NULL);
  cr_assert(strstr(e, "--program") && strstr(e, "/prog,") && strstr(e, "gone"), "%s", e);
  free(e);
  snprintf(args, sizeof args, "analyze %s/s.samples --categories dmiss --program %s/prog2", dir, dir);
  cr_assert_eq(icost(args, out, err), 0, "--program: %s", t_slurp(err, NULL));
  snprintf(cmd, sizeof cmd, "cp %s %s/prog", other, dir);
  cr_assert_eq(system(cmd), 0);
  snprintf(args, sizeof args, "analyze %s/s.samples --categories dmiss", dir);
  cr_assert_eq(icost(args, out, err), 2);
  cr_assert(one_line(err));
  e = t_slurp(err, NULL);
  cr_assert(strstr(e, "--program") && strstr(e, "changed"), "%s", e);
  free(e);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  cr_assert_eq(system(cmd), 0);
}

/* A profile interrupted by SIGINT or SIGTERM leaves neither its file nor a
 * temporary file. */
Test(profiler_cli, interrupted_profile_leaves_nothing, .timeout = 120) {
  char exe[512], dir[] = "/tmp/icost_intr_XXXXXX";
  if (!build("cli_loop", loop_src, exe, sizeof exe)) cr_skip_test("riscv64-linux-gnu-gcc missing");
  cr_assert(mkdtemp(dir));
  static const char *const sigs[] = {"INT", "TERM"};
  for (int k = 0; k < 2; k++) {
    char cmd[4096];
    /* a run far longer than the signal's delay; the exit status says the
       signal ended it */
    snprintf(cmd, sizeof cmd,
             "timeout -s %s 2 %s profile -o %s/s.samples --sample-interval 8 -- %s 1000000000 "
             ">/dev/null 2>&1; test $? -ne 0",
             sigs[k], ICOST_BINARY, dir, exe);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    snprintf(cmd, sizeof cmd, "test -z \"$(ls -A %s)\"", dir);
    cr_assert_eq(system(cmd), 0, "SIG%s left files in %s", sigs[k], dir);
  }
  cr_assert_eq(rmdir(dir), 0);
}
