/* test_util.h: small helpers several test files share. */
#ifndef IC_TEST_UTIL_H
#define IC_TEST_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* The whole file at path, NUL-terminated, in malloc'd memory (its length in
 * *len if len is not NULL); NULL if it cannot be opened. */
static inline char *t_slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *b = malloc((size_t)(n > 0 ? n : 0) + 1);
  size_t got = b ? fread(b, 1, (size_t)(n > 0 ? n : 0), f) : 0;
  if (b) b[got] = 0;
  fclose(f);
  if (len) *len = got;
  return b;
}

/* Builds the static riscv64 program `src` into `exe` (riscv64-linux-gnu-gcc
 * -O2 -static and `flags`). Tests run in parallel processes and several may
 * build the same program: each writes its own source and binary and renames
 * the binary into place whole, so no test runs a half-written one. 1 on
 * success, 0 when the compiler is missing or fails. */
static inline int t_cross_build(const char *exe, const char *src, const char *flags) {
  if (system("riscv64-linux-gnu-gcc --version >/dev/null 2>&1") != 0) return 0;
  char c[600], tmp[600], cmd[1600];
  snprintf(c, sizeof c, "%s.%d.c", exe, (int)getpid());
  snprintf(tmp, sizeof tmp, "%s.%d.tmp", exe, (int)getpid());
  FILE *f = fopen(c, "w");
  if (!f) return 0;
  fputs(src, f);
  fclose(f);
  snprintf(cmd, sizeof cmd, "riscv64-linux-gnu-gcc -O2 -static %s -o %s %s", flags ? flags : "", tmp, c);
  const int ok = system(cmd) == 0 && rename(tmp, exe) == 0;
  unlink(c);
  if (!ok) unlink(tmp);
  return ok;
}

#endif
