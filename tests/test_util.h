/* test_util.h: small helpers several test files share. */
#ifndef IC_TEST_UTIL_H
#define IC_TEST_UTIL_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
 * build the same program: each compiles in a directory of its own (the
 * source under the program's name, so every build is the same bytes) and
 * renames the binary into place whole, so no test runs a half-written one
 * and a program does not change under a test that checks it. 1 on success,
 * 0 when the compiler is missing or fails. */
static inline int t_cross_build(const char *exe, const char *src, const char *flags) {
  if (system("riscv64-linux-gnu-gcc --version >/dev/null 2>&1") != 0) return 0;
  const char *base = strrchr(exe, '/') ? strrchr(exe, '/') + 1 : exe;
  char dir[600], c[1300], tmp[1300], cmd[3000];
  snprintf(dir, sizeof dir, "%s.%d.d", exe, (int)getpid());
  snprintf(c, sizeof c, "%s/%s.c", dir, base);
  snprintf(tmp, sizeof tmp, "%s/%s", dir, base);
  if (mkdir(dir, 0755) != 0 && errno != EEXIST) return 0;
  FILE *f = fopen(c, "w");
  if (!f) return 0;
  fputs(src, f);
  fclose(f);
  snprintf(cmd, sizeof cmd, "cd '%s' && riscv64-linux-gnu-gcc -O2 -static %s -o '%s' '%s.c'", dir,
           flags ? flags : "", base, base);
  const int ok = system(cmd) == 0 && rename(tmp, exe) == 0;
  unlink(c);
  unlink(tmp);
  rmdir(dir);
  return ok;
}

/* Removes the csv records that name the input, the provenance's and the
 * workload's ("#,provenance.KEY,...", "#,workload,..."), from out in place. */
static inline void t_drop_provenance(char *out) {
  char *w = out;
  for (char *line = out; *line;) {
    char *nl = strchr(line, '\n');
    size_t len = nl ? (size_t)(nl - line) + 1 : strlen(line);
    if (strncmp(line, "#,provenance.", 13) != 0 && strncmp(line, "#,workload,", 11) != 0) {
      memmove(w, line, len);
      w += len;
    }
    line += len;
  }
  *w = 0;
}

#endif
