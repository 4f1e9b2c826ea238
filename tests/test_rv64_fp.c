/* test_rv64_fp.c: floating point against qemu-riscv64, bit for bit.
 *
 * A C program (below) sweeps every F/D arithmetic, conversion, comparison,
 * sign-injection, min/max, classify and fused operation over special
 * operands (zeros, ones, halfway cases, extremes, subnormals, infinities,
 * quiet and signaling NaNs, integer boundaries) in all five rounding modes,
 * and prints each result's bits with the fflags it raised. It is compiled
 * with the cross compiler at test time, run under qemu-riscv64 (the oracle)
 * and under the emulator, and the two outputs must be identical. Skipped
 * when the cross compiler or qemu-riscv64 is missing. */
#include <criterion/criterion.h>
#include <fcntl.h>

#include "rv.h"
#include "test_rv64_util.h"

static const char fp_prog[] =
    "/* Prints the bits and fflags of RISC-V FP instructions over special operands\n"
    "   in every rounding mode; run under two emulators and compare. */\n"
    "#include <stdint.h>\n"
    "#include <string.h>\n"
    "#include <unistd.h>\n"
    "\n"
    "static const uint64_t dv[] = {\n"
    "    0x0000000000000000ull, 0x8000000000000000ull, 0x3ff0000000000000ull, 0xbff0000000000000ull,\n"
    "    0x3ff8000000000000ull, 0x4004000000000000ull, 0xc004000000000000ull, 0x3fb999999999999aull,\n"
    "    0x7fefffffffffffffull, 0x0010000000000000ull, 0x000fffffffffffffull, 0x0000000000000001ull,\n"
    "    0x7ff0000000000000ull, 0xfff0000000000000ull, 0x7ff8000000000000ull, 0x7ff4000000000000ull,\n"
    "    0xfff8000000000001ull, 0x41e0000000000000ull, 0xc1e0000000100000ull, 0x43e0000000000000ull,\n"
    "    0x43f0000000000000ull, 0xc3e0000000000001ull, 0x41efffffffe00000ull, 0x3fe0000000000000ull,\n"
    "    0xbfe8000000000000ull, 0x4330000000000001ull, 0x3ca0000000000000ull, 0x47efffffe0000000ull,\n"
    "    0x36a0000000000000ull, 0x41dfffffffc00000ull};\n"
    "static const uint32_t sv[] = {\n"
    "    0x00000000u, 0x80000000u, 0x3f800000u, 0xbf800000u, 0x3fc00000u, 0x40200000u, 0xc0200000u,\n"
    "    0x3dcccccdu, 0x7f7fffffu, 0x00800000u, 0x007fffffu, 0x00000001u, 0x7f800000u, 0xff800000u,\n"
    "    0x7fc00000u, 0x7fa00000u, 0xffc00001u, 0x4f000000u, 0xcf000001u, 0x5f000000u, 0x5f800000u,\n"
    "    0x3f000000u, 0xbf400000u, 0x4b000001u, 0x33800000u, 0x4effffffu};\n"
    "#define ND (sizeof dv / sizeof dv[0])\n"
    "#define NS (sizeof sv / sizeof sv[0])\n"
    "\n"
    "static char obuf[1 << 16];\n"
    "static size_t on;\n"
    "static void flush(void) { size_t o = 0; while (o < on) { long k = write(1, obuf + o, on - o); if (k <= 0) break; o += (size_t)k; } on = 0; }\n"
    "static void ochar(char c) { if (on == sizeof obuf) flush(); obuf[on++] = c; }\n"
    "static void ostr(const char *s) { while (*s) ochar(*s++); }\n"
    "static void ohex(uint64_t v, int w) { for (int i = w - 1; i >= 0; i--) ochar(\"0123456789abcdef\"[(v >> (4 * i)) & 15]); }\n"
    "static void odec(long v) { char t[24]; int n = 0; if (v < 0) { ochar('-'); v = -v; } do t[n++] = (char)('0' + v % 10); while (v /= 10); while (n) ochar(t[--n]); }\n"
    "/* name, then the numbers that are >= 0 among a, b, c, d, then the result in hex (w digits), then the flags */\n"
    "static void emit(const char *name, long a, long b, long c, long d, uint64_t bits, int w, unsigned f) {\n"
    "  ostr(name); long v[4] = {a, b, c, d};\n"
    "  for (int i = 0; i < 4; i++) if (v[i] >= 0) { ochar(' '); odec(v[i]); }\n"
    "  ochar(' '); ohex(bits, w); ochar(' '); ohex(f, 2); ochar('\\n');\n"
    "}\n"
    "\n"
    "static void setrm(int rm) { __asm__ volatile(\"fsrm %0\" ::\"r\"(rm)); }\n"
    "static unsigned getfl(void) {\n"
    "  unsigned f;\n"
    "  __asm__ volatile(\"frflags %0; fsflags zero\" : \"=r\"(f));\n"
    "  return f;\n"
    "}\n"
    "static double D(uint64_t b) { double d; memcpy(&d, &b, 8); return d; }\n"
    "static uint64_t B(double d) { uint64_t b; memcpy(&b, &d, 8); return b; }\n"
    "static float S(uint32_t b) { float d; memcpy(&d, &b, 4); return d; }\n"
    "static uint32_t BS(float d) { uint32_t b; memcpy(&b, &d, 4); return b; }\n"
    "\n"
    "#define DOP2(name, insn) \\\n"
    "  for (size_t i = 0; i < ND; i++) for (size_t j = 0; j < ND; j++) { \\\n"
    "    double r; getfl(); __asm__ volatile(insn \" %0,%1,%2\" : \"=f\"(r) : \"f\"(D(dv[i])), \"f\"(D(dv[j]))); \\\n"
    "    unsigned f = getfl(); emit(name, rm, (long)i, (long)j, -1, B(r), 16, f); }\n"
    "#define SOP2(name, insn) \\\n"
    "  for (size_t i = 0; i < NS; i++) for (size_t j = 0; j < NS; j++) { \\\n"
    "    float r; getfl(); __asm__ volatile(insn \" %0,%1,%2\" : \"=f\"(r) : \"f\"(S(sv[i])), \"f\"(S(sv[j]))); \\\n"
    "    unsigned f = getfl(); emit(name, rm, (long)i, (long)j, -1, BS(r), 8, f); }\n"
    "#define DCMP(name, insn) \\\n"
    "  for (size_t i = 0; i < ND; i++) for (size_t j = 0; j < ND; j++) { \\\n"
    "    long r; getfl(); __asm__ volatile(insn \" %0,%1,%2\" : \"=r\"(r) : \"f\"(D(dv[i])), \"f\"(D(dv[j]))); \\\n"
    "    unsigned f = getfl(); emit(name, (long)i, (long)j, -1, -1, (uint64_t)r, 1, f); }\n"
    "#define SCMP(name, insn) \\\n"
    "  for (size_t i = 0; i < NS; i++) for (size_t j = 0; j < NS; j++) { \\\n"
    "    long r; getfl(); __asm__ volatile(insn \" %0,%1,%2\" : \"=r\"(r) : \"f\"(S(sv[i])), \"f\"(S(sv[j]))); \\\n"
    "    unsigned f = getfl(); emit(name, (long)i, (long)j, -1, -1, (uint64_t)r, 1, f); }\n"
    "#define DTOI(name, insn) \\\n"
    "  for (size_t i = 0; i < ND; i++) { long r; getfl(); \\\n"
    "    __asm__ volatile(insn \" %0,%1\" : \"=r\"(r) : \"f\"(D(dv[i]))); \\\n"
    "    unsigned f = getfl(); emit(name, rm, (long)i, -1, -1, (uint64_t)r, 16, f); }\n"
    "#define STOI(name, insn) \\\n"
    "  for (size_t i = 0; i < NS; i++) { long r; getfl(); \\\n"
    "    __asm__ volatile(insn \" %0,%1\" : \"=r\"(r) : \"f\"(S(sv[i]))); \\\n"
    "    unsigned f = getfl(); emit(name, rm, (long)i, -1, -1, (uint64_t)r, 16, f); }\n"
    "#define D1(name, insn) \\\n"
    "  for (size_t i = 0; i < ND; i++) { double r; getfl(); \\\n"
    "    __asm__ volatile(insn \" %0,%1\" : \"=f\"(r) : \"f\"(D(dv[i]))); \\\n"
    "    unsigned f = getfl(); emit(name, rm, (long)i, -1, -1, B(r), 16, f); }\n"
    "#define S1(name, insn) \\\n"
    "  for (size_t i = 0; i < NS; i++) { float r; getfl(); \\\n"
    "    __asm__ volatile(insn \" %0,%1\" : \"=f\"(r) : \"f\"(S(sv[i]))); \\\n"
    "    unsigned f = getfl(); emit(name, rm, (long)i, -1, -1, BS(r), 8, f); }\n"
    "\n"
    "static const long iv[] = {0, 1, -1, 3, 0x7fffffff, -0x80000000L, 0x7fffffffffffffffL,\n"
    "                          (long)0x8000000000000000UL, 0x123456789abcdefL, 16777217, 9007199254740993L,\n"
    "                          -9007199254740993L, 0xfffffffffffffL, 0x80000001};\n"
    "#define NI (sizeof iv / sizeof iv[0])\n"
    "#define ITOD(name, insn) \\\n"
    "  for (size_t i = 0; i < NI; i++) { double r; getfl(); \\\n"
    "    __asm__ volatile(insn \" %0,%1\" : \"=f\"(r) : \"r\"(iv[i])); \\\n"
    "    unsigned f = getfl(); emit(name, rm, (long)i, -1, -1, B(r), 16, f); }\n"
    "#define ITOS(name, insn) \\\n"
    "  for (size_t i = 0; i < NI; i++) { float r; getfl(); \\\n"
    "    __asm__ volatile(insn \" %0,%1\" : \"=f\"(r) : \"r\"(iv[i])); \\\n"
    "    unsigned f = getfl(); emit(name, rm, (long)i, -1, -1, BS(r), 8, f); }\n"
    "\n"
    "int main(void) {\n"
    "  for (int rm = 0; rm < 5; rm++) {\n"
    "    setrm(rm);\n"
    "    DOP2(\"fadd.d\", \"fadd.d\") DOP2(\"fsub.d\", \"fsub.d\") DOP2(\"fmul.d\", \"fmul.d\")\n"
    "    DOP2(\"fdiv.d\", \"fdiv.d\") SOP2(\"fadd.s\", \"fadd.s\") SOP2(\"fmul.s\", \"fmul.s\")\n"
    "    SOP2(\"fdiv.s\", \"fdiv.s\") SOP2(\"fsub.s\", \"fsub.s\")\n"
    "    D1(\"fsqrt.d\", \"fsqrt.d\") S1(\"fsqrt.s\", \"fsqrt.s\") D1(\"fcvt.s.d\", \"fcvt.s.d\")\n"
    "    S1(\"fcvt.d.s\", \"fcvt.d.s\")\n"
    "    DTOI(\"fcvt.w.d\", \"fcvt.w.d\") DTOI(\"fcvt.wu.d\", \"fcvt.wu.d\") DTOI(\"fcvt.l.d\", \"fcvt.l.d\")\n"
    "    DTOI(\"fcvt.lu.d\", \"fcvt.lu.d\") STOI(\"fcvt.w.s\", \"fcvt.w.s\") STOI(\"fcvt.wu.s\", \"fcvt.wu.s\")\n"
    "    STOI(\"fcvt.l.s\", \"fcvt.l.s\") STOI(\"fcvt.lu.s\", \"fcvt.lu.s\")\n"
    "    ITOD(\"fcvt.d.l\", \"fcvt.d.l\") ITOD(\"fcvt.d.lu\", \"fcvt.d.lu\") ITOD(\"fcvt.d.w\", \"fcvt.d.w\")\n"
    "    ITOD(\"fcvt.d.wu\", \"fcvt.d.wu\") ITOS(\"fcvt.s.l\", \"fcvt.s.l\") ITOS(\"fcvt.s.lu\", \"fcvt.s.lu\")\n"
    "    ITOS(\"fcvt.s.w\", \"fcvt.s.w\") ITOS(\"fcvt.s.wu\", \"fcvt.s.wu\")\n"
    "    for (size_t i = 0; i < ND; i += 3) for (size_t j = 0; j < ND; j += 2) for (size_t k = 0; k < ND; k += 3) {\n"
    "      double r; getfl();\n"
    "      __asm__ volatile(\"fmadd.d %0,%1,%2,%3\" : \"=f\"(r) : \"f\"(D(dv[i])), \"f\"(D(dv[j])), \"f\"(D(dv[k])));\n"
    "      unsigned f = getfl(); emit(\"fmadd.d\", rm, (long)i, (long)j, (long)k, B(r), 16, f);\n"
    "      __asm__ volatile(\"fnmsub.d %0,%1,%2,%3\" : \"=f\"(r) : \"f\"(D(dv[i])), \"f\"(D(dv[j])), \"f\"(D(dv[k])));\n"
    "      f = getfl(); emit(\"fnmsub.d\", rm, (long)i, (long)j, (long)k, B(r), 16, f);\n"
    "    }\n"
    "    for (size_t i = 0; i < NS; i += 2) for (size_t j = 0; j < NS; j += 3) for (size_t k = 0; k < NS; k += 2) {\n"
    "      float r; getfl();\n"
    "      __asm__ volatile(\"fmsub.s %0,%1,%2,%3\" : \"=f\"(r) : \"f\"(S(sv[i])), \"f\"(S(sv[j])), \"f\"(S(sv[k])));\n"
    "      unsigned f = getfl(); emit(\"fmsub.s\", rm, (long)i, (long)j, (long)k, BS(r), 8, f);\n"
    "      __asm__ volatile(\"fnmadd.s %0,%1,%2,%3\" : \"=f\"(r) : \"f\"(S(sv[i])), \"f\"(S(sv[j])), \"f\"(S(sv[k])));\n"
    "      f = getfl(); emit(\"fnmadd.s\", rm, (long)i, (long)j, (long)k, BS(r), 8, f);\n"
    "    }\n"
    "  }\n"
    "  int rm = 0;\n"
    "  setrm(7 & 0); /* static-rm forms below */\n"
    "  DTOI(\"fcvt.w.d.rtz\", \"fcvt.w.d %0,%1,rtz; #\") DTOI(\"fcvt.l.d.rmm\", \"fcvt.l.d %0,%1,rmm; #\")\n"
    "  DTOI(\"fcvt.lu.d.rup\", \"fcvt.lu.d %0,%1,rup; #\")\n"
    "  DOP2(\"fmin.d\", \"fmin.d\") DOP2(\"fmax.d\", \"fmax.d\") SOP2(\"fmin.s\", \"fmin.s\") SOP2(\"fmax.s\", \"fmax.s\")\n"
    "  DOP2(\"fsgnj.d\", \"fsgnj.d\") DOP2(\"fsgnjn.d\", \"fsgnjn.d\") DOP2(\"fsgnjx.d\", \"fsgnjx.d\")\n"
    "  SOP2(\"fsgnjx.s\", \"fsgnjx.s\")\n"
    "  DCMP(\"feq.d\", \"feq.d\") DCMP(\"flt.d\", \"flt.d\") DCMP(\"fle.d\", \"fle.d\")\n"
    "  SCMP(\"feq.s\", \"feq.s\") SCMP(\"flt.s\", \"flt.s\") SCMP(\"fle.s\", \"fle.s\")\n"
    "  for (size_t i = 0; i < ND; i++) { long r; __asm__ volatile(\"fclass.d %0,%1\" : \"=r\"(r) : \"f\"(D(dv[i]))); emit(\"fclass.d\", (long)i, -1, -1, -1, (uint64_t)r, 3, 0); }\n"
    "  for (size_t i = 0; i < NS; i++) { long r; __asm__ volatile(\"fclass.s %0,%1\" : \"=r\"(r) : \"f\"(S(sv[i]))); emit(\"fclass.s\", (long)i, -1, -1, -1, (uint64_t)r, 3, 0); }\n"
    "  /* NaN boxing: a double's bits read as a single are the canonical NaN. */\n"
    "  for (size_t i = 0; i < ND; i += 5) {\n"
    "    float r; long x;\n"
    "    __asm__ volatile(\"fmv.d.x ft0,%2; fadd.s %0,ft0,ft0; fmv.x.w %1,ft0\" : \"=f\"(r), \"=r\"(x) : \"r\"(dv[i]) : \"ft0\");\n"
    "    emit(\"box\", (long)i, -1, -1, -1, ((uint64_t)BS(r) << 32) | (uint32_t)x, 16, getfl());\n"
    "  }\n"
    "  flush();\n"
    "  return 0;\n"
    "}\n"
    "\n";

/* Runs path under the emulator with stdout into out_path; returns the state. */
static rv_state run_emu(const char *path, const char *out_path, int *code) {
  int fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  cr_assert(fd >= 0);
  rv_options o;
  rv_options_default(&o);
  o.stdout_fd = fd;
  rv_proc *p;
  ic_err err;
  char *argv[] = {(char *)path, NULL};
  cr_assert_eq(rv_proc_load(&p, path, 1, argv, &o, &err), IC_OK, "%s", err.msg);
  rv_proc_skip(p, 2000000000ull);
  const char *why;
  rv_state st = rv_proc_state(p, code, &why);
  cr_assert_eq(st, RV_EXITED, "%s", why);
  rv_proc_destroy(p);
  close(fd);
  return st;
}

Test(rv64_fp, every_op_and_rounding_mode_matches_qemu, .timeout = 120) {
  if (!t_have("riscv64-linux-gnu-gcc") || !t_have("qemu-riscv64"))
    cr_skip_test("riscv64-linux-gnu-gcc or qemu-riscv64 not installed");
  char exe[128], out[128], cmd[512];
  t_tmp(exe, sizeof exe, "fp");
  t_tmp(out, sizeof out, "fp.out");
  cr_assert_eq(t_cross_compile(fp_prog, exe, "-O1"), 0, "cross compile failed");
  char *want;
  snprintf(cmd, sizeof cmd, "qemu-riscv64 %s", exe);
  cr_assert_eq(t_run_capture(cmd, &want), 0);
  int code;
  run_emu(exe, out, &code);
  cr_assert_eq(code, 0);
  FILE *f = fopen(out, "rb");
  size_t n = strlen(want);
  char *got = malloc(n + 2);
  size_t k = fread(got, 1, n + 1, f);
  fclose(f);
  got[k] = 0;
  cr_assert_gt(n, 50000, "the sweep printed too little: %zu bytes", n);
  /* Report the first differing line, not a megabyte of text. */
  size_t i = 0, line = 1;
  while (i < n && i < k && want[i] == got[i]) line += want[i++] == '\n';
  if (i != n || k != n) {
    const char *ws = want + i, *gs = got + (i < k ? i : k);
    while (ws > want && ws[-1] != '\n') ws--;
    while (gs > got && gs[-1] != '\n') gs--;
    cr_assert_fail("line %zu differs: qemu \"%.60s\" emulator \"%.60s\"", line, ws, gs);
  }
  free(want);
  free(got);
  unlink(exe);
  unlink(out);
}
