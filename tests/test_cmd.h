/* test_cmd.h: running a shell command from a Criterion test. */
#ifndef IC_TEST_CMD_H
#define IC_TEST_CMD_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

/* Runs cmd with popen; returns everything it wrote to stdout (malloc'd,
 * NUL-terminated) and its exit status in *status (-1: killed). */
static inline char *run_cmd(const char *cmd, int *status) {
  FILE *p = popen(cmd, "r");
  cr_assert_not_null(p);
  size_t cap = 1 << 16, len = 0, k;
  char *buf = malloc(cap);
  while ((k = fread(buf + len, 1, cap - len - 1, p)) > 0) {
    len += k;
    if (len + 1 == cap) buf = realloc(buf, cap *= 2);
  }
  buf[len] = 0;
  int st = pclose(p);
  *status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return buf;
}

#endif
