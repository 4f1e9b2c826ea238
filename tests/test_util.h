/* test_util.h: small helpers several test files share. */
#ifndef IC_TEST_UTIL_H
#define IC_TEST_UTIL_H

#include <stdio.h>
#include <stdlib.h>

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

#endif
