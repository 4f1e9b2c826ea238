/* diff_util.h: cheap, buffered output for the differential test programs.
 *
 * These programs run under qemu-riscv64 and icost emu and their stdout is
 * compared byte for byte; their executed pc sequences too, so output must
 * be cheap in instructions (no printf per value) and must not depend on
 * anything that may legitimately differ (time, randomness, addresses). */
#ifndef DIFF_UTIL_H
#define DIFF_UTIL_H

#include <stdint.h>
#include <string.h>
#include <unistd.h>

static char du_buf[1 << 15];
static size_t du_len;

static inline void du_flush(void) {
  size_t off = 0;
  while (off < du_len) {
    ssize_t w = write(1, du_buf + off, du_len - off);
    if (w <= 0) break;
    off += (size_t)w;
  }
  du_len = 0;
}

static inline void du_putc(char c) {
  if (du_len == sizeof du_buf) du_flush();
  du_buf[du_len++] = c;
}

static inline void du_str(const char *s) {
  while (*s) du_putc(*s++);
}

/* v as 16 lowercase hex digits */
static inline void du_hex(uint64_t v) {
  for (int sh = 60; sh >= 0; sh -= 4) du_putc("0123456789abcdef"[(v >> sh) & 15]);
}

static inline void du_hex2(uint64_t v) { /* two hex digits, for flags */
  du_putc("0123456789abcdef"[(v >> 4) & 15]);
  du_putc("0123456789abcdef"[v & 15]);
}

static inline void du_dec(int64_t v) {
  char t[24];
  int n = 0;
  uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;
  do t[n++] = (char)('0' + u % 10); while ((u /= 10) != 0);
  if (v < 0) du_putc('-');
  while (n) du_putc(t[--n]);
}

static inline void du_nl(void) { du_putc('\n'); }

#endif
