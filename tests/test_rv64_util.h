/* test_rv64_util.h: helpers for the emulator tests: RISC-V instruction
 * encoders (from the ISA manual's formats, written independently of the
 * emulator's decoder), a writer of minimal static ELF executables, and
 * compiling/running small C programs with the cross compiler and
 * qemu-riscv64 when they are installed. */
#ifndef TEST_RV64_UTIL_H
#define TEST_RV64_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- encoders (register numbers are x/f indices) ---- */
static inline uint32_t enc_r(uint32_t f7, uint32_t rs2, uint32_t rs1, uint32_t f3, uint32_t rd,
                             uint32_t opc) {
  return f7 << 25 | rs2 << 20 | rs1 << 15 | f3 << 12 | rd << 7 | opc;
}
static inline uint32_t enc_i(int32_t imm, uint32_t rs1, uint32_t f3, uint32_t rd, uint32_t opc) {
  return ((uint32_t)imm & 0xfff) << 20 | rs1 << 15 | f3 << 12 | rd << 7 | opc;
}
static inline uint32_t enc_s(int32_t imm, uint32_t rs2, uint32_t rs1, uint32_t f3, uint32_t opc) {
  uint32_t u = (uint32_t)imm & 0xfff;
  return (u >> 5) << 25 | rs2 << 20 | rs1 << 15 | f3 << 12 | (u & 31) << 7 | opc;
}
static inline uint32_t enc_b(int32_t off, uint32_t rs2, uint32_t rs1, uint32_t f3) {
  uint32_t u = (uint32_t)off;
  return ((u >> 12) & 1) << 31 | ((u >> 5) & 63) << 25 | rs2 << 20 | rs1 << 15 | f3 << 12 |
         ((u >> 1) & 15) << 8 | ((u >> 11) & 1) << 7 | 0x63;
}
static inline uint32_t enc_j(int32_t off, uint32_t rd) {
  uint32_t u = (uint32_t)off;
  return ((u >> 20) & 1) << 31 | ((u >> 1) & 0x3ff) << 21 | ((u >> 11) & 1) << 20 |
         ((u >> 12) & 0xff) << 12 | rd << 7 | 0x6f;
}
static inline uint32_t enc_u(uint32_t imm20, uint32_t rd, uint32_t opc) {
  return imm20 << 12 | rd << 7 | opc;
}
#define ADDI(rd, rs1, imm) enc_i((imm), (rs1), 0, (rd), 0x13)
#define LI(rd, imm) ADDI((rd), 0, (imm))
#define ECALL 0x00000073u
#define EBREAK 0x00100073u

/* ---- minimal static ELF: code at CODE_VA (r-x), data at DATA_VA (rw-) ---- */
#define T_CODE_VA 0x10000ull
#define T_DATA_VA 0x20000ull

static inline void put16(uint8_t *b, uint16_t v) { memcpy(b, &v, 2); }
static inline void put32(uint8_t *b, uint32_t v) { memcpy(b, &v, 4); }
static inline void put64(uint8_t *b, uint64_t v) { memcpy(b, &v, 8); }

/* Builds the image in memory; *len receives its size. code is raw bytes
   (so that compressed instructions can be mixed in). Caller frees. */
static inline uint8_t *t_elf_image(const void *code, size_t code_len, const void *data,
                                   size_t data_len, size_t *len) {
  size_t code_off = 0x1000, data_off = 0x2000;
  size_t n = data_off + data_len;
  uint8_t *b = calloc(1, n);
  memcpy(b, "\x7f" "ELF", 4);
  b[4] = 2, b[5] = 1, b[6] = 1;
  put16(b + 16, 2);   /* ET_EXEC */
  put16(b + 18, 243); /* EM_RISCV */
  put32(b + 20, 1);
  put64(b + 24, T_CODE_VA);
  put64(b + 32, 64);  /* phoff */
  put32(b + 48, 0x5); /* RVC, double-float ABI */
  put16(b + 52, 64);
  put16(b + 54, 56);
  put16(b + 56, 2);
  uint8_t *ph = b + 64;
  put32(ph, 1), put32(ph + 4, 5), put64(ph + 8, code_off), put64(ph + 16, T_CODE_VA);
  put64(ph + 24, T_CODE_VA), put64(ph + 32, code_len), put64(ph + 40, code_len),
      put64(ph + 48, 0x1000);
  ph += 56;
  put32(ph, 1), put32(ph + 4, 6), put64(ph + 8, data_off), put64(ph + 16, T_DATA_VA);
  put64(ph + 24, T_DATA_VA), put64(ph + 32, data_len), put64(ph + 40, data_len + 0x1000),
      put64(ph + 48, 0x1000);
  memcpy(b + code_off, code, code_len);
  if (data_len) memcpy(b + data_off, data, data_len);
  *len = n;
  return b;
}

static inline int t_write_file(const char *path, const void *buf, size_t len) {
  FILE *f = fopen(path, "wb");
  if (!f) return -1;
  size_t k = fwrite(buf, 1, len, f);
  return (fclose(f) == 0 && k == len) ? 0 : -1;
}

/* A unique temp path for this test process. */
static inline void t_tmp(char *buf, size_t cap, const char *tag) {
  snprintf(buf, cap, "/tmp/icost_rv64_%ld_%s", (long)getpid(), tag);
}

/* Writes a minimal ELF with code words (4-byte instructions) to path. */
static inline int t_elf_words(const char *path, const uint32_t *words, size_t n,
                              const void *data, size_t data_len) {
  size_t len;
  uint8_t *img = t_elf_image(words, n * 4, data, data_len, &len);
  int r = t_write_file(path, img, len);
  free(img);
  return r;
}

static inline int t_have(const char *cmd) {
  char buf[256];
  snprintf(buf, sizeof buf, "command -v %s >/dev/null 2>&1", cmd);
  return system(buf) == 0;
}

/* Compiles C source text to a static RISC-V executable at out. 0 on success. */
static inline int t_cross_compile(const char *src_text, const char *out, const char *extra) {
  char src[256], cmd[1024];
  snprintf(src, sizeof src, "%s.c", out);
  if (t_write_file(src, src_text, strlen(src_text))) return -1;
  snprintf(cmd, sizeof cmd, "riscv64-linux-gnu-gcc -O2 -static -o %s %s %s 2>/dev/null", out, src,
           extra ? extra : "");
  int r = system(cmd);
  unlink(src);
  return r == 0 ? 0 : -1;
}

/* Runs a shell command, captures stdout into a malloc'd string; returns the
   exit status (or -1). */
static inline int t_run_capture(const char *cmd, char **out) {
  FILE *f = popen(cmd, "r");
  if (!f) return -1;
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap);
  size_t k;
  while ((k = fread(buf + n, 1, cap - n - 1, f)) > 0) {
    n += k;
    if (cap - n < 2) buf = realloc(buf, cap *= 2);
  }
  buf[n] = 0;
  int st = pclose(f);
  *out = buf;
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

#endif
