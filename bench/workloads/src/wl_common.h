/* wl_common.h: shared by the workload kernels: a seeded LCG (so every run
 * sees the same data) and strict argument parsing. Each kernel prints a
 * checksum of its work so that a wrong emulation shows up as wrong output. */
#ifndef WL_COMMON_H
#define WL_COMMON_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* Knuth's MMIX LCG; the high bits are the good ones. */
static inline uint64_t wl_lcg(uint64_t *s) {
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  return *s;
}

/* Parses argv[i] as a decimal count in [lo, hi]; exits 2 with a message
 * naming the argument otherwise. */
static inline uint64_t wl_arg(int argc, char **argv, int i, const char *what, uint64_t lo,
                              uint64_t hi, const char *usage) {
  if (i >= argc) {
    fprintf(stderr, "usage: %s %s\n", argv[0], usage);
    exit(2);
  }
  char *end;
  errno = 0;
  unsigned long long v = strtoull(argv[i], &end, 10);
  if (errno || end == argv[i] || *end || argv[i][0] == '-' || v < lo || v > hi) {
    fprintf(stderr, "%s: %s must be an integer in [%llu, %llu], not '%s'\n", argv[0], what,
            (unsigned long long)lo, (unsigned long long)hi, argv[i]);
    exit(2);
  }
  return v;
}

#endif
