/* test_model_cli.c: `icost sim` end to end: output formats, --help,
 * --print-config round trip, --graph check, and the errors (bad config,
 * bad option, guest fault) with their exit codes. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "ooo.h"

/* Runs a shell command; returns its exit code and its stdout (+stderr). */
static int sh(const char *cmd, char *out, size_t cap) {
  char full[4096];
  snprintf(full, sizeof full, "%s 2>&1", cmd);
  FILE *p = popen(full, "r");
  cr_assert(p);
  size_t n = fread(out, 1, cap - 1, p);
  out[n] = 0;
  int st = pclose(p);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static const char *build_prog(const char *name, const char *src) {
  static char exe[4][512];
  static int k;
  char *e = exe[k++ % 4];
  snprintf(e, 512, ICOST_BUILD_DIR "/%s", name);
  struct stat st;
  if (stat(e, &st) == 0) return e;
  char path[600], cmd[2600];
  snprintf(path, sizeof path, "%s.c", e);
  FILE *f = fopen(path, "w");
  cr_assert(f);
  fputs(src, f);
  fclose(f);
  snprintf(cmd, sizeof cmd, "riscv64-linux-gnu-gcc -O2 -static -o %s.tmp %s 2>/dev/null && mv %s.tmp %s", e,
           path, e, e);
  if (system(cmd) != 0) return NULL;
  return e;
}

static const char *loop_prog(void) {
  const char *p = build_prog("test_model_cli_loop",
                             "#include <stdio.h>\nint main(void){ long s = 0; for (long i = 0; i < 20000; i++)"
                             " s += i * (i & 7); printf(\"%ld\\n\", s); return 0; }\n");
  if (!p) cr_skip_test("riscv64-linux-gnu-gcc cannot build the test program");
  return p;
}

static char out[1 << 16];

Test(model_cli, yaml_has_the_promised_keys) {
  const char *p = loop_prog();
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "%s sim --format yaml -- %s", ICOST_BINARY, p);
  cr_assert_eq(sh(cmd, out, sizeof out), 0, "%s", out);
  const char *keys[] = {"\ncycles: ", "\ninstructions: ", "\nipc: ", "\nevents:\n",
                        "\n  branch_mispredictions: ", "\n  l1d_misses: ", "\n  l2_misses: ",
                        "\n  l1i_misses: "};
  for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
    cr_expect(strstr(out, keys[k]) != NULL, "missing '%s' in:\n%s", keys[k], out);
  unsigned long long cyc = 0, ins = 0;
  cr_assert(sscanf(strstr(out, "\ncycles: "), "\ncycles: %llu", &cyc) == 1);
  cr_assert(sscanf(strstr(out, "\ninstructions: "), "\ninstructions: %llu", &ins) == 1);
  cr_expect(ins > 20000 && cyc > 0);
  /* the guest's own output went to /dev/null */
  cr_expect(strstr(out, "\n0\n") == NULL);
}

Test(model_cli, csv_text_and_graph_check_agree) {
  const char *p = loop_prog();
  char cmd[1024], out2[8192];
  snprintf(cmd, sizeof cmd, "%s sim --format csv --graph check -- %s", ICOST_BINARY, p);
  cr_assert_eq(sh(cmd, out, sizeof out), 0, "%s", out);
  cr_expect(strstr(out, "\n#,graph_records,") != NULL, "%s", out);
  char *c = strstr(out, "\n#,cycles,");
  cr_assert(c);
  unsigned long long a, b;
  sscanf(c, "\n#,cycles,%llu", &a);
  snprintf(cmd, sizeof cmd, "%s sim -- %s", ICOST_BINARY, p);
  cr_assert_eq(sh(cmd, out2, sizeof out2), 0, "%s", out2);
  c = strstr(out2, "\ncycles");
  cr_assert(c);
  sscanf(c, "\ncycles %llu", &b);
  cr_expect_eq(a, b, "the graph hook must not change the timing");
}

Test(model_cli, help_defines_every_number) {
  char cmd[512];
  snprintf(cmd, sizeof cmd, "%s sim --help", ICOST_BINARY);
  cr_assert_eq(sh(cmd, out, sizeof out), 0);
  for (int k = 0; k < ooo_stats_count; k++)
    cr_expect(strstr(out, ooo_stats_names[k]) != NULL, "--help lacks %s", ooo_stats_names[k]);
  for (int k = 0; k < IC_CAT_COUNT; k++) cr_expect(strstr(out, ic_category_names[k]) != NULL);
}

Test(model_cli, print_config_loads_back) {
  char cmd[1024], out2[1 << 14];
  snprintf(cmd, sizeof cmd,
           "%s sim --config %s/configs/wakeup2.yaml --set core.rob=80 --print-config > %s/test_model_cli.yaml",
           ICOST_BINARY, ICOST_SOURCE_DIR, ICOST_BUILD_DIR);
  cr_assert_eq(sh(cmd, out, sizeof out), 0, "%s", out);
  snprintf(cmd, sizeof cmd, "%s sim --config %s/test_model_cli.yaml --print-config | tail -n +2",
           ICOST_BINARY, ICOST_BUILD_DIR);
  cr_assert_eq(sh(cmd, out2, sizeof out2), 0, "%s", out2);
  snprintf(cmd, sizeof cmd, "tail -n +2 %s/test_model_cli.yaml", ICOST_BUILD_DIR);
  sh(cmd, out, sizeof out);
  cr_expect_str_eq(out, out2);
  cr_expect(strstr(out, "  rob: 80") != NULL);
  cr_expect(strstr(out, "  wakeup: 2") != NULL);
}

Test(model_cli, errors_and_exit_codes) {
  char cmd[1024];
  FILE *f = fopen(ICOST_BUILD_DIR "/test_model_cli_bad.yaml", "w");
  cr_assert(f);
  fputs("core:\n  rob: 64\n  iq: -3\n", f);
  fclose(f);
  snprintf(cmd, sizeof cmd, "%s sim --config %s/test_model_cli_bad.yaml --print-config", ICOST_BINARY,
           ICOST_BUILD_DIR);
  cr_expect_eq(sh(cmd, out, sizeof out), 2);
  cr_expect(strstr(out, "icost: ") == out && strstr(out, "test_model_cli_bad.yaml:3:7: core.iq") != NULL,
            "%s", out);
  snprintf(cmd, sizeof cmd, "%s sim --format xml -- /bin/true", ICOST_BINARY);
  cr_expect_eq(sh(cmd, out, sizeof out), 2);
  snprintf(cmd, sizeof cmd, "%s sim --ideal dl1,nope -- /bin/true", ICOST_BINARY);
  cr_expect_eq(sh(cmd, out, sizeof out), 2);
  cr_expect(strstr(out, "nope") != NULL);
  const char *fault = build_prog("test_model_cli_fault",
                                 "int main(int c, char **v){ volatile int *p = (int *)(long)(c - 1);"
                                 " for (int i = 0; i < 1000; i++) c += i; *p = c; return c; }\n");
  if (!fault) cr_skip_test("riscv64-linux-gnu-gcc cannot build the test program");
  snprintf(cmd, sizeof cmd, "%s sim -- %s", ICOST_BINARY, fault);
  /* killed by SIGSEGV: the instructions timed before it, marked partial,
     and 128 + 11 as qemu-riscv64 and a shell give */
  cr_expect_eq(sh(cmd, out, sizeof out), 139, "%s", out);
  cr_expect(strstr(out, "fault") != NULL, "%s", out);
  cr_expect(strstr(out, "PARTIAL") != NULL, "%s", out);
  cr_expect(strstr(out, "cycles") != NULL, "%s", out);
  /* killed before any timed instruction: no numbers, exit 1 */
  snprintf(cmd, sizeof cmd, "%s sim --skip 100k -- %s", ICOST_BINARY, fault);
  cr_expect_eq(sh(cmd, out, sizeof out), 1, "%s", out);
  cr_expect(strstr(out, "cycles") == NULL, "no numbers for a failed run: %s", out);
}

/* A guest that exits with a nonzero status is timed, and one warning says so
 * (its own output is hidden without --guest-output). */
Test(model_cli, nonzero_exit_status_is_reported) {
  const char *p = build_prog("test_model_cli_exit3",
                             "int main(int c, char **v){ (void)v; long s = 0; for (long i = 0; i < 5000;"
                             " i++) s += i ^ c; return s > 0 ? 3 : 4; }\n");
  if (!p) cr_skip_test("riscv64-linux-gnu-gcc cannot build the test program");
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "%s sim -- %s", ICOST_BINARY, p);
  cr_expect_eq(sh(cmd, out, sizeof out), 0, "%s", out);
  cr_expect(strstr(out, "cycles") != NULL, "%s", out);
  const char *w = strstr(out, "icost: warning: ");
  cr_expect(w && strstr(w, "exited with status 3") && strstr(w, "--guest-output"), "%s", out);
  snprintf(cmd, sizeof cmd, "%s --method multisim --categories dl1,win -j 2 -- %s", ICOST_BINARY, p);
  cr_expect_eq(sh(cmd, out, sizeof out), 0, "%s", out);
  w = strstr(out, "exited with status 3");
  cr_expect(w && !strstr(w + 1, "exited with status"), "one warning for the four runs: %s", out);
  snprintf(cmd, sizeof cmd, "%s sim -- %s", ICOST_BINARY, loop_prog());
  cr_expect_eq(sh(cmd, out, sizeof out), 0, "%s", out);
  cr_expect(strstr(out, "warning") == NULL, "status 0: no warning: %s", out);
}
