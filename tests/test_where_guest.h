/* test_where_guest.h: a small guest program with a hot loop in a function
 * of its own, built with DWARF (-g -O1) for the tests of function and
 * source-line resolution (test_symbols.c, test_annotate_cli.c), and its
 * stripped variants. The source marks the lines the tests look for, so no
 * line number is written down twice. */
#ifndef IC_TEST_WHERE_GUEST_H
#define IC_TEST_WHERE_GUEST_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define WHERE_SRC_NAME "hot_where.c"

/* hot_loop: a random branch (half its instances mispredict) and a table
 * load; FIRST and LAST bound the function, HOT is the branch's line. */
static const char where_src[] =
    "#include <stdint.h>\n"
    "#include <stdlib.h>\n"
    "#define N 4096\n"
    "static uint64_t table[N];\n"
    "__attribute__((noinline)) uint64_t hot_loop(long n) { /* FIRST */\n"
    "  uint64_t x = 88172645463325252ull, s = 0;\n"
    "  for (long i = 0; i < n; i++) {\n"
    "    x ^= x << 13; x ^= x >> 7; x ^= x << 17;\n"
    "    s += table[x % N];\n"
    "    if (x & 1) s ^= (uint64_t)i; /* HOT */\n"
    "  }\n"
    "  return s;\n"
    "} /* LAST */\n"
    "int main(int argc, char **argv) {\n"
    "  long n = argc > 1 ? atol(argv[1]) : 1000;\n"
    "  for (int i = 0; i < N; i++) table[i] = (uint64_t)i * 3;\n"
    "  return (int)(hot_loop(n) & 1);\n"
    "}\n";

/* The line of the source that holds marker (1-based). */
static inline unsigned where_line_of(const char *marker) {
  const char *p = strstr(where_src, marker);
  cr_assert_not_null(p, "no %s in the guest source", marker);
  unsigned line = 1;
  for (const char *q = where_src; q < p; q++) line += *q == '\n';
  return line;
}

/* Builds the guest with cc (cflags added) into ICOST_BUILD_DIR/where_guest/
 * name, then runs post (a command with %s for the program, or NULL) on it;
 * NULL when the compiler is missing. Tests run in parallel processes: the
 * source is written whole and renamed, the program built under a name of
 * this process and renamed, so a reader never sees half a file. */
static inline const char *where_build(const char *cc, const char *cflags, const char *name, const char *post) {
  static char out[8][600];
  static int nout;
  char dir[512], src[600], tmp[700], cmd[4096];
  snprintf(dir, sizeof dir, "%s/where_guest", ICOST_BUILD_DIR);
  mkdir(dir, 0777);
  cr_assert(nout < 8);
  char *exe = out[nout];
  snprintf(exe, sizeof out[0], "%s/%s", dir, name);
  struct stat st;
  if (stat(exe, &st) == 0) return out[nout++];
  snprintf(cmd, sizeof cmd, "command -v %s >/dev/null 2>&1", cc);
  if (system(cmd) != 0) return NULL;
  snprintf(src, sizeof src, "%s/" WHERE_SRC_NAME, dir);
  snprintf(tmp, sizeof tmp, "%s.%d", src, (int)getpid());
  FILE *f = fopen(tmp, "w");
  cr_assert_not_null(f);
  fputs(where_src, f);
  cr_assert_eq(fclose(f), 0);
  cr_assert_eq(rename(tmp, src), 0);
  snprintf(tmp, sizeof tmp, "%s.tmp%d", exe, (int)getpid());
  int n = snprintf(cmd, sizeof cmd, "%s %s -o %s %s", cc, cflags, tmp, src);
  if (post) {
    n += snprintf(cmd + n, sizeof cmd - (size_t)n, " && ");
    n += snprintf(cmd + n, sizeof cmd - (size_t)n, post, tmp);
  }
  snprintf(cmd + n, sizeof cmd - (size_t)n, " && mv %s %s", tmp, exe);
  cr_assert_eq(system(cmd), 0, "%s", cmd);
  return out[nout++];
}

/* The riscv64 guest with DWARF, without it (symbols only), and stripped. */
#define WHERE_RV_CC "riscv64-linux-gnu-gcc"
#define WHERE_RV_FLAGS "-g -O1 -static"
static inline const char *where_rv_dwarf(void) { return where_build(WHERE_RV_CC, WHERE_RV_FLAGS, "hot_rv", NULL); }
static inline const char *where_rv_nodebug(void) {
  return where_build(WHERE_RV_CC, WHERE_RV_FLAGS, "hot_rv_nodebug", "riscv64-linux-gnu-strip --strip-debug %s");
}
static inline const char *where_rv_stripped(void) {
  return where_build(WHERE_RV_CC, WHERE_RV_FLAGS, "hot_rv_stripped", "riscv64-linux-gnu-strip %s");
}

#endif
