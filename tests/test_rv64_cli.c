/* test_rv64_cli.c: `icost emu` as a user sees it: exit codes, the fault and
 * bad-file messages, --max, --stats, --trace-pc, --records, --help. */
#include <criterion/criterion.h>

#include "test_rv64_util.h"

/* Runs `icost emu ARGS`, stdout+stderr captured; returns the exit status. */
static int emu(const char *args, char **out) {
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "%s emu %s 2>&1", ICOST_BINARY, args);
  return t_run_capture(cmd, out);
}

static void write_prog(const char *path, const uint32_t *w, size_t n) {
  cr_assert_eq(t_elf_words(path, w, n, NULL, 0), 0);
  chmod(path, 0755);
}

Test(rv64_cli, exit_code_output_and_trace) {
  /* write(1, "ok\n", 3) from data; exit(42) */
  const uint32_t w[] = {LI(10, 1), enc_u(0x20, 11, 0x37) /* lui a1,0x20 */, LI(12, 3), LI(17, 64),
                        ECALL,     LI(10, 42),  LI(17, 93), ECALL};
  char path[128], trace[128], args[512];
  t_tmp(path, sizeof path, "cli.elf");
  t_tmp(trace, sizeof trace, "cli.trace");
  size_t len;
  uint8_t *img = t_elf_image(w, sizeof w, "ok\n", 3, &len);
  cr_assert_eq(t_write_file(path, img, len), 0);
  free(img);
  char *out;
  snprintf(args, sizeof args, "--stats --trace-pc %s -- %s", trace, path);
  cr_assert_eq(emu(args, &out), 42);
  cr_assert(strncmp(out, "ok\n", 3) == 0, "%s", out);
  cr_assert(strstr(out, "instructions: 8\n"), "%s", out);
  cr_assert(strstr(out, "MIPS: "), "%s", out);
  free(out);
  FILE *f = fopen(trace, "r");
  cr_assert_not_null(f);
  char line[64];
  for (int i = 0; i < 8; i++) {
    char want[32];
    snprintf(want, sizeof want, "%016llx\n", (unsigned long long)(T_CODE_VA + 4 * i));
    cr_assert_not_null(fgets(line, sizeof line, f));
    cr_assert_str_eq(line, want);
  }
  cr_assert_null(fgets(line, sizeof line, f));
  fclose(f);

  /* --max stops early and says so; --records gives the same result */
  snprintf(args, sizeof args, "--max 3 -- %s", path);
  cr_assert_eq(emu(args, &out), 0);
  cr_assert(strstr(out, "stopped after 3 instructions"), "%s", out);
  free(out);
  snprintf(args, sizeof args, "--records --skip 2 %s", path);
  cr_assert_eq(emu(args, &out), 42);
  cr_assert_str_eq(out, "ok\n");
  free(out);
  unlink(path);
  unlink(trace);
}

Test(rv64_cli, fault_and_bad_file_messages) {
  const uint32_t w[] = {LI(10, 0), 0x00053583u /* ld a1,0(a0) */, EBREAK};
  char path[128], args[512];
  t_tmp(path, sizeof path, "cli_fault.elf");
  write_prog(path, w, 3);
  char *out;
  snprintf(args, sizeof args, "-- %s", path);
  cr_assert_eq(emu(args, &out), 139); /* 128 + SIGSEGV, as qemu-riscv64 */
  char want[256];
  snprintf(want, sizeof want,
           "icost: %s: fault at pc 0x10004: load from unmapped address 0x0 (bytes 83 35 05 00)\n",
           path);
  cr_assert_str_eq(out, want);
  free(out);

  cr_assert_eq(t_write_file(path, "#!/bin/sh\n", 10), 0);
  cr_assert_eq(emu(args, &out), 2);
  snprintf(want, sizeof want, "icost: %s: not an ELF file\n", path);
  cr_assert_str_eq(out, want);
  free(out);
  unlink(path);

  cr_assert_eq(emu("", &out), 2);
  cr_assert(strstr(out, "icost: emu: no program given"), "%s", out);
  free(out);
  cr_assert_eq(emu("--bogus -- x", &out), 2);
  cr_assert(strstr(out, "unknown option '--bogus'"), "%s", out);
  free(out);
  cr_assert_eq(emu("--max -1 -- x", &out), 2);
  free(out);
  cr_assert_eq(emu("--help", &out), 0);
  cr_assert(strstr(out, "--trace-pc FILE"), "%s", out);
  free(out);
}

Test(rv64_cli, glibc_program_like_qemu) {
  if (!t_have("riscv64-linux-gnu-gcc")) cr_skip_test("riscv64-linux-gnu-gcc not installed");
  char exe[128], args[512];
  t_tmp(exe, sizeof exe, "cli_glibc");
  cr_assert_eq(t_cross_compile("#include <stdio.h>\n#include <stdlib.h>\n"
                               "int main(int c, char **v) { char b[64]; "
                               "while (fgets(b, sizeof b, stdin)) printf(\"[%s]\", b); "
                               "printf(\"%d %s %.3f\\n\", c, v[c - 1], atof(v[1]) * 2); return c; }\n",
                               exe, NULL),
               0);
  char *out;
  snprintf(args, sizeof args, "-- %s 1.25 two </dev/null", exe);
  cr_assert_eq(emu(args, &out), 3);
  cr_assert_str_eq(out, "3 two 2.500\n");
  free(out);
  char cmd[512];
  snprintf(cmd, sizeof cmd, "printf 'a\\nb\\n' | %s emu -- %s x 2>&1", ICOST_BINARY, exe);
  cr_assert_eq(t_run_capture(cmd, &out), 2);
  cr_assert_str_eq(out, "[a\n][b\n]2 x 0.000\n");
  free(out);
  unlink(exe);
}
