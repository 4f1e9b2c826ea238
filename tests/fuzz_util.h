/* fuzz_util.h: what the libFuzzer targets (tests/fuzz_*.c) share: a
 * private scratch directory per process, writing an input to a file in
 * it, and the rule every target checks: bad input fails with IC_EINPUT
 * (or IC_ERUN) and a message, never a crash, hang or leak (the sanitizers
 * and libFuzzer's limits catch those). tests/run.sh builds and runs each
 * target for a bounded time over tests/fuzz/corpus/NAME with
 * tests/fuzz/NAME.dict, and replays tests/fuzz/regress/NAME. */
#ifndef IC_FUZZ_UTIL_H
#define IC_FUZZ_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ic_err.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The scratch directory of this process, created on first use. */
static inline const char *fz_dir(void) {
  static char dir[128];
  if (!dir[0]) {
    snprintf(dir, sizeof dir, "/tmp/icost_fuzz_%ld", (long)getpid());
    mkdir(dir, 0700);
  }
  return dir;
}

/* Writes n bytes to DIR/name; returns the path (static per name slot). */
static inline const char *fz_write(const char *name, const void *p, size_t n, char *path, size_t cap) {
  snprintf(path, cap, "%s/%s", fz_dir(), name);
  FILE *f = fopen(path, "wb");
  if (!f) abort();
  if (n && fwrite(p, 1, n, f) != n) abort();
  if (fclose(f) != 0) abort();
  return path;
}

/* A failed call must say why. */
static inline void fz_check(ic_status st, const ic_err *err) {
  if (st != IC_OK && (st != IC_EINPUT && st != IC_ERUN)) abort();
  if (st != IC_OK && err->msg[0] == 0) abort();
}

#endif
