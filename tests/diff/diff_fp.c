/* diff_fp.c MODE: the F and D extensions, result bits and fflags after
 * every operation.
 *
 *   diff_fp rm   every rounding-sensitive operation (add, sub, mul, div,
 *                sqrt, the four fused multiply-adds, conversions between
 *                integers and both precisions, double to single) under
 *                every rounding mode: the five static modes encoded in the
 *                instruction, and dynamic rounding with frm set by
 *                fesetround (four C modes) and by writing frm (RMM);
 *   diff_fp nan  special operands in round-to-nearest: signalling and quiet
 *                NaNs, infinities, signed zeros, subnormals through
 *                arithmetic, fmin/fmax, sign injection, compares, fclass,
 *                conversions of NaN/inf/out-of-range values, NaN boxing.
 *
 * An optional second argument STEP uses every STEP-th operand only (a
 * shorter run for the pc-trace comparison).
 *
 * Operands go in and results come out through fmv between integer and FP
 * registers, so no compiler code touches the bit patterns. Each result is
 * printed as RESULT/FLAGS in hex. */
#include <fenv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff_util.h"

#define MVIN_d "fmv.d.x"
#define MVOUT_d "fmv.x.d"
#define MVIN_s "fmv.w.x"
#define MVOUT_s "fmv.x.w"

typedef uint64_t (*fp_fn)(uint64_t, uint64_t, uint64_t);

/* Shapes. op is the mnemonic without the precision suffix, P the
 * precision, rm a rounding-mode operand (rne rtz rdn rup rmm dyn). */
#define DEF_B2RM(key, op, P, rm) \
  static uint64_t key##_##P##_##rm(uint64_t a, uint64_t b, uint64_t c) { \
    uint64_t r; \
    (void)c; \
    __asm__ volatile(MVIN_##P " ft0, %1\n\t" MVIN_##P " ft1, %2\n\t" op "." #P \
                     " ft2, ft0, ft1, " #rm "\n\t" MVOUT_##P " %0, ft2" \
                     : "=r"(r) : "r"(a), "r"(b) : "ft0", "ft1", "ft2"); \
    return r; \
  }
#define DEF_U1RM(key, op, P, rm) \
  static uint64_t key##_##P##_##rm(uint64_t a, uint64_t b, uint64_t c) { \
    uint64_t r; \
    (void)b, (void)c; \
    __asm__ volatile(MVIN_##P " ft0, %1\n\t" op "." #P " ft2, ft0, " #rm "\n\t" MVOUT_##P \
                     " %0, ft2" \
                     : "=r"(r) : "r"(a) : "ft0", "ft2"); \
    return r; \
  }
#define DEF_FMA(key, op, P, rm) \
  static uint64_t key##_##P##_##rm(uint64_t a, uint64_t b, uint64_t c) { \
    uint64_t r; \
    __asm__ volatile(MVIN_##P " ft0, %1\n\t" MVIN_##P " ft1, %2\n\t" MVIN_##P " ft2, %3\n\t" op \
                     "." #P " ft3, ft0, ft1, ft2, " #rm "\n\t" MVOUT_##P " %0, ft3" \
                     : "=r"(r) : "r"(a), "r"(b), "r"(c) : "ft0", "ft1", "ft2", "ft3"); \
    return r; \
  }
/* fp -> integer: op is the full mnemonic prefix, e.g. "fcvt.w" */
#define DEF_F2I(key, op, P, rm) \
  static uint64_t key##_##P##_##rm(uint64_t a, uint64_t b, uint64_t c) { \
    uint64_t r; \
    (void)b, (void)c; \
    __asm__ volatile(MVIN_##P " ft0, %1\n\t" op "." #P " %0, ft0, " #rm \
                     : "=r"(r) : "r"(a) : "ft0"); \
    return r; \
  }
/* integer -> fp: op is the integer suffix, e.g. "w" for fcvt.P.w */
#define DEF_I2F(key, op, P, rm) \
  static uint64_t key##_##P##_##rm(uint64_t a, uint64_t b, uint64_t c) { \
    uint64_t r; \
    (void)b, (void)c; \
    __asm__ volatile("fcvt." #P "." op " ft2, %1, " #rm "\n\t" MVOUT_##P " %0, ft2" \
                     : "=r"(r) : "r"(a) : "ft2"); \
    return r; \
  }
/* int32 -> double is exact: the assembler takes no rounding mode for it */
#define DEF_I2F_EXACT(key, op, P, rm) \
  static uint64_t key##_##P##_##rm(uint64_t a, uint64_t b, uint64_t c) { \
    uint64_t r; \
    (void)b, (void)c; \
    __asm__ volatile("fcvt." #P "." op " ft2, %1\n\t" MVOUT_##P " %0, ft2" \
                     : "=r"(r) : "r"(a) : "ft2"); \
    return r; \
  }
/* no rounding mode */
#define DEF_B2(key, op, P) \
  static uint64_t key##_##P(uint64_t a, uint64_t b, uint64_t c) { \
    uint64_t r; \
    (void)c; \
    __asm__ volatile(MVIN_##P " ft0, %1\n\t" MVIN_##P " ft1, %2\n\t" op "." #P \
                     " ft2, ft0, ft1\n\t" MVOUT_##P " %0, ft2" \
                     : "=r"(r) : "r"(a), "r"(b) : "ft0", "ft1", "ft2"); \
    return r; \
  }
#define DEF_CMP(key, op, P) \
  static uint64_t key##_##P(uint64_t a, uint64_t b, uint64_t c) { \
    uint64_t r; \
    (void)c; \
    __asm__ volatile(MVIN_##P " ft0, %1\n\t" MVIN_##P " ft1, %2\n\t" op "." #P " %0, ft0, ft1" \
                     : "=r"(r) : "r"(a), "r"(b) : "ft0", "ft1"); \
    return r; \
  }
#define DEF_CLASS(P) \
  static uint64_t fclass_##P(uint64_t a, uint64_t b, uint64_t c) { \
    uint64_t r; \
    (void)b, (void)c; \
    __asm__ volatile(MVIN_##P " ft0, %1\n\tfclass." #P " %0, ft0" : "=r"(r) : "r"(a) : "ft0"); \
    return r; \
  }

#define FOR_RM(X, key, op, P) \
  X(key, op, P, rne) X(key, op, P, rtz) X(key, op, P, rdn) X(key, op, P, rup) \
  X(key, op, P, rmm) X(key, op, P, dyn)
#define FOR_P_RM(X, key, op) FOR_RM(X, key, op, d) FOR_RM(X, key, op, s)

/* (shape, key, mnemonic) of the rounding-sensitive operations */
#define RM_OPS(X) \
  X(DEF_B2RM, fadd, "fadd") X(DEF_B2RM, fsub, "fsub") X(DEF_B2RM, fmul, "fmul") \
  X(DEF_B2RM, fdiv, "fdiv") X(DEF_U1RM, fsqrt, "fsqrt") X(DEF_FMA, fmadd, "fmadd") \
  X(DEF_FMA, fmsub, "fmsub") X(DEF_FMA, fnmsub, "fnmsub") X(DEF_FMA, fnmadd, "fnmadd") \
  X(DEF_F2I, cvtw, "fcvt.w") X(DEF_F2I, cvtwu, "fcvt.wu") X(DEF_F2I, cvtl, "fcvt.l") \
  X(DEF_F2I, cvtlu, "fcvt.lu") X(DEF_I2F, cvtfl, "l") X(DEF_I2F, cvtflu, "lu")
#define DEF_ALL_RM(shape, key, op) FOR_P_RM(shape, key, op)
RM_OPS(DEF_ALL_RM)

FOR_RM(DEF_I2F, cvtfw, "w", s) FOR_RM(DEF_I2F, cvtfwu, "wu", s)
FOR_RM(DEF_I2F_EXACT, cvtfw, "w", d) FOR_RM(DEF_I2F_EXACT, cvtfwu, "wu", d)

/* double -> single rounds; single -> double is exact */
FOR_RM(DEF_U1RM, cvtsd, "fcvt.s", d)

DEF_B2(fmin, "fmin", d) DEF_B2(fmin, "fmin", s) DEF_B2(fmax, "fmax", d) DEF_B2(fmax, "fmax", s)
DEF_B2(fsgnj, "fsgnj", d) DEF_B2(fsgnj, "fsgnj", s) DEF_B2(fsgnjn, "fsgnjn", d)
DEF_B2(fsgnjn, "fsgnjn", s) DEF_B2(fsgnjx, "fsgnjx", d) DEF_B2(fsgnjx, "fsgnjx", s)
DEF_CMP(feq, "feq", d) DEF_CMP(feq, "feq", s) DEF_CMP(flt, "flt", d) DEF_CMP(flt, "flt", s)
DEF_CMP(fle, "fle", d) DEF_CMP(fle, "fle", s) DEF_CLASS(d) DEF_CLASS(s)

static uint64_t cvtds(uint64_t a, uint64_t b, uint64_t c) { /* fcvt.d.s */
  uint64_t r;
  (void)b, (void)c;
  __asm__ volatile("fmv.w.x ft0, %1\n\tfcvt.d.s ft2, ft0\n\tfmv.x.d %0, ft2"
                   : "=r"(r) : "r"(a) : "ft0", "ft2");
  return r;
}

/* operand kinds: which value list an operand slot draws from */
enum { V_RMD, V_RMS, V_CVD, V_CVS, V_INT, V_SPD, V_SPS, V_FMAD, V_FMAS };

static const uint64_t rm_d[] = {
    0x3ff0000000000000, 0xbff8000000000000, 0x3fb999999999999a, 0x3fd5555555555555,
    0x7fefffffffffffff, 0x0000000000000001, 0x8010000000000000, 0x4340000000000001,
};
static const uint64_t rm_s[] = {
    0x3f800000, 0xbfc00000, 0x3dcccccd, 0x3eaaaaab, 0x7f7fffff, 0x00000001, 0x80800000, 0x4b800001,
};
/* conversion sources: halves, the edges of every integer range, out of
 * range, NaN and infinities */
static const uint64_t cv_d[] = {
    0x3ff8000000000000, /* 1.5 */ 0x4004000000000000, /* 2.5 */
    0xbff8000000000000, /* -1.5 */ 0xc004000000000000, /* -2.5 */
    0x3fe0000000000000, /* 0.5 */ 0xbfe0000000000000, /* -0.5 */
    0x41dfffffffe00000, /* 2^31-0.5 */ 0xc1e0000000100000, /* -2^31-0.5 */
    0x41effffffff00000, /* 2^32-0.5 */ 0x43e0000000000000, /* 2^63 */
    0xc3e0000000000000, /* -2^63 */ 0x43f0000000000000, /* 2^64 */
    0x8000000000000000, /* -0 */ 0x444b1ae4d6e2ef50, /* 1e21 */
    0x7ff8000000000000, /* qNaN */ 0x7ff0000000000001, /* sNaN */
    0x7ff0000000000000, /* inf */ 0xfff0000000000000, /* -inf */
};
static const uint64_t cv_s[] = {
    0x3fc00000, 0x40200000, 0xbfc00000, 0xc0200000, 0x3f000000, 0xbf000000,
    0x4effffff, /* just under 2^31 */ 0xcf000001, /* just beyond -2^31 */
    0x4f800000, /* 2^32 */ 0x5f000000, /* 2^63 */ 0xdf000000, /* -2^63 */
    0x5f800000, /* 2^64 */ 0x80000000, 0x7fc00000, 0x7f800001, 0x7f800000, 0xff800000,
    0x3f7fffff, /* just under 1 */
};
static const uint64_t ints[] = {
    1, 0xffffffffffffffff, 0x0020000000000001, 0x7fffffffffffffff, 0x8000000000000000,
    0x01000001, 0xffffffff, 0x80000001, 0xfffffffffffffffd, 0x7fffffff,
};
/* special operands (round to nearest) */
static const uint64_t sp_d[] = {
    0x0000000000000000, 0x8000000000000000, 0x3ff0000000000000, 0xbff0000000000000,
    0x000fffffffffffff, /* largest subnormal */ 0x0010000000000000,
    0x7fefffffffffffff, 0x7ff0000000000000, 0xfff0000000000000,
    0x7ff8000000000000, /* canonical qNaN */ 0xfff8000000000123, /* -qNaN with payload */
    0x7ff4000000000000, /* sNaN */ 0xfff0000000000001, /* -sNaN */
};
static const uint64_t sp_s[] = {
    0x00000000, 0x80000000, 0x3f800000, 0xbf800000, 0x007fffff, 0x00800000, 0x7f7fffff,
    0x7f800000, 0xff800000, 0x7fc00000, 0xffc00123, 0x7fa00000, 0xff800001,
};
/* fused multiply-add triples: cancellation, overflow, exact zero sums,
 * 0 * inf (invalid), NaN addends */
static const uint64_t fma_d[][3] = {
    {0x3fd5555555555555, 0x4008000000000000, 0xbff0000000000000},
    {0x3fb999999999999a, 0x3fb999999999999a, 0xbf847ae147ae147b},
    {0x7fefffffffffffff, 0x4000000000000000, 0xffefffffffffffff},
    {0x3fd5555555555555, 0x3fd5555555555555, 0x3fd5555555555555},
    {0x3ff0000000000000, 0x3ff0000000000000, 0xbff0000000000000},
    {0x0000000000000001, 0x3fe0000000000000, 0x0000000000000000},
    {0x7ff0000000000000, 0x0000000000000000, 0x7ff8000000000000},
    {0x3ff0000000000000, 0x7ff4000000000000, 0x3ff0000000000000},
};
static const uint64_t fma_s[][3] = {
    {0x3eaaaaab, 0x40400000, 0xbf800000}, {0x3dcccccd, 0x3dcccccd, 0xbc23d70a},
    {0x7f7fffff, 0x40000000, 0xff7fffff}, {0x3eaaaaab, 0x3eaaaaab, 0x3eaaaaab},
    {0x3f800000, 0x3f800000, 0xbf800000}, {0x00000001, 0x3f000000, 0x00000000},
    {0x7f800000, 0x00000000, 0x7fc00000}, {0x3f800000, 0x7fa00000, 0x3f800000},
};

#define LEN(a) (sizeof(a) / sizeof((a)[0]))

static const uint64_t *vlist(int kind, size_t *n) {
  switch (kind) {
  case V_RMD: *n = LEN(rm_d); return rm_d;
  case V_RMS: *n = LEN(rm_s); return rm_s;
  case V_CVD: *n = LEN(cv_d); return cv_d;
  case V_CVS: *n = LEN(cv_s); return cv_s;
  case V_INT: *n = LEN(ints); return ints;
  case V_SPD: *n = LEN(sp_d); return sp_d;
  default: *n = LEN(sp_s); return sp_s;
  }
}

static inline void clear_flags(void) { __asm__ volatile("csrw fflags, zero"); }
static inline uint64_t get_flags(void) {
  uint64_t f;
  __asm__ volatile("csrr %0, fflags" : "=r"(f));
  return f;
}

static void result(fp_fn fn, uint64_t a, uint64_t b, uint64_t c) {
  clear_flags();
  uint64_t r = fn(a, b, c);
  uint64_t f = get_flags();
  du_hex(r);
  du_putc('/');
  du_hex2(f);
}

static size_t step = 1; /* every step-th operand */

/* nargs operands drawn from kind (all pairs for 2; FMA triples for 3) */
static void run(const char *name, fp_fn fn, int nargs, int kind) {
  du_str(name);
  du_nl();
  if (kind == V_FMAD || kind == V_FMAS) {
    for (size_t i = 0; i < LEN(fma_d); i += step) {
      const uint64_t *t = kind == V_FMAD ? fma_d[i] : fma_s[i];
      result(fn, t[0], t[1], t[2]);
      du_putc(' ');
    }
    du_nl();
    return;
  }
  size_t n;
  const uint64_t *v = vlist(kind, &n);
  for (size_t i = 0; i < n; i += step) {
    if (nargs == 1) {
      result(fn, v[i], 0, 0);
      du_putc(' ');
      continue;
    }
    for (size_t j = 0; j < n; j += step) {
      result(fn, v[i], v[j], 0);
      du_putc(' ');
    }
    du_nl();
  }
  if (nargs == 1) du_nl();
}

/* The rm sweep: one table row per (operation, precision); each is run with
 * the five static modes and with dyn under each of five frm values. */
typedef struct rm_row {
  const char *name;
  int nargs, kind;
  fp_fn f[6]; /* rne rtz rdn rup rmm dyn */
} rm_row;

#define ROW(key, P, name, nargs, kind) \
  {name, nargs, kind, \
   {key##_##P##_rne, key##_##P##_rtz, key##_##P##_rdn, key##_##P##_rup, key##_##P##_rmm, \
    key##_##P##_dyn}}
static const rm_row rm_rows[] = {
    ROW(fadd, d, "fadd.d", 2, V_RMD),     ROW(fadd, s, "fadd.s", 2, V_RMS),
    ROW(fsub, d, "fsub.d", 2, V_RMD),     ROW(fsub, s, "fsub.s", 2, V_RMS),
    ROW(fmul, d, "fmul.d", 2, V_RMD),     ROW(fmul, s, "fmul.s", 2, V_RMS),
    ROW(fdiv, d, "fdiv.d", 2, V_RMD),     ROW(fdiv, s, "fdiv.s", 2, V_RMS),
    ROW(fsqrt, d, "fsqrt.d", 1, V_RMD),   ROW(fsqrt, s, "fsqrt.s", 1, V_RMS),
    ROW(fmadd, d, "fmadd.d", 3, V_FMAD),  ROW(fmadd, s, "fmadd.s", 3, V_FMAS),
    ROW(fmsub, d, "fmsub.d", 3, V_FMAD),  ROW(fmsub, s, "fmsub.s", 3, V_FMAS),
    ROW(fnmsub, d, "fnmsub.d", 3, V_FMAD), ROW(fnmsub, s, "fnmsub.s", 3, V_FMAS),
    ROW(fnmadd, d, "fnmadd.d", 3, V_FMAD), ROW(fnmadd, s, "fnmadd.s", 3, V_FMAS),
    ROW(cvtw, d, "fcvt.w.d", 1, V_CVD),   ROW(cvtw, s, "fcvt.w.s", 1, V_CVS),
    ROW(cvtwu, d, "fcvt.wu.d", 1, V_CVD), ROW(cvtwu, s, "fcvt.wu.s", 1, V_CVS),
    ROW(cvtl, d, "fcvt.l.d", 1, V_CVD),   ROW(cvtl, s, "fcvt.l.s", 1, V_CVS),
    ROW(cvtlu, d, "fcvt.lu.d", 1, V_CVD), ROW(cvtlu, s, "fcvt.lu.s", 1, V_CVS),
    ROW(cvtfw, d, "fcvt.d.w", 1, V_INT),  ROW(cvtfw, s, "fcvt.s.w", 1, V_INT),
    ROW(cvtfwu, d, "fcvt.d.wu", 1, V_INT), ROW(cvtfwu, s, "fcvt.s.wu", 1, V_INT),
    ROW(cvtfl, d, "fcvt.d.l", 1, V_INT),  ROW(cvtfl, s, "fcvt.s.l", 1, V_INT),
    ROW(cvtflu, d, "fcvt.d.lu", 1, V_INT), ROW(cvtflu, s, "fcvt.s.lu", 1, V_INT),
    ROW(cvtsd, d, "fcvt.s.d", 1, V_CVD),
};

static const char *const rm_names[6] = {"rne", "rtz", "rdn", "rup", "rmm", "dyn"};

/* sets the dynamic rounding mode d (0..4 = RNE RTZ RDN RUP RMM); C's
 * fesetround has no RMM, so that one is written to frm directly */
static void set_dyn(int d) {
  static const int c_modes[4] = {FE_TONEAREST, FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD};
  if (d < 4) {
    fesetround(c_modes[d]);
  } else {
    __asm__ volatile("csrwi frm, 4");
  }
}

static void sweep(void) {
  char name[48];
  for (size_t k = 0; k < LEN(rm_rows); k++) {
    const rm_row *row = &rm_rows[k];
    for (int m = 0; m < 5; m++) {
      snprintf(name, sizeof name, "%s %s", row->name, rm_names[m]);
      run(name, row->f[m], row->nargs, row->kind);
    }
    for (int d = 0; d < 5; d++) {
      set_dyn(d);
      uint64_t frm;
      __asm__ volatile("csrr %0, frm" : "=r"(frm));
      snprintf(name, sizeof name, "%s dyn frm=%d", row->name, (int)frm);
      run(name, row->f[5], row->nargs, row->kind);
    }
    set_dyn(0);
  }
}

/* NaN boxing: single-precision operations on FP registers whose upper 32
 * bits are not all ones must see the canonical NaN; single results are
 * boxed; flw boxes, fmv.x.w takes the low bits unchecked. */
static void boxing(void) {
  static const uint64_t unboxed[] = {0x000000003f800000, 0xfffffffe3f800000, 0xffffffff3f800000,
                                     0x7ff8000000000000};
  du_str("boxing");
  du_nl();
  for (size_t i = 0; i < LEN(unboxed); i++) {
    uint64_t r[6];
    float one = 1.0f;
    clear_flags();
    __asm__ volatile("fmv.d.x ft0, %6\n\t"
                     "flw ft1, 0(%7)\n\t"
                     "fadd.s ft2, ft0, ft1\n\t"
                     "fmv.x.d %0, ft2\n\t"
                     "fsgnj.s ft3, ft0, ft1\n\t"
                     "fmv.x.d %1, ft3\n\t"
                     "fmv.x.w %2, ft0\n\t"
                     "fcvt.d.s ft4, ft0\n\t"
                     "fmv.x.d %3, ft4\n\t"
                     "fmv.x.d %4, ft1\n\t"
                     "fclass.s %5, ft0"
                     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5])
                     : "r"(unboxed[i]), "r"(&one)
                     : "ft0", "ft1", "ft2", "ft3", "ft4");
    uint64_t f = get_flags();
    for (int j = 0; j < 6; j++) {
      du_hex(r[j]);
      du_putc(' ');
    }
    du_hex2(f);
    du_nl();
  }
  /* fsw stores the low 32 bits; fld/fsd move 64 bits unchanged */
  uint64_t in = 0x7ff4000000000001, out64 = 0;
  uint32_t out32 = 0;
  __asm__ volatile("fmv.d.x ft0, %2\n\tfsd ft0, 0(%0)\n\tfsw ft0, 0(%1)"
                   :
                   : "r"(&out64), "r"(&out32), "r"(in)
                   : "ft0", "memory");
  du_str("store ");
  du_hex(out64);
  du_putc(' ');
  du_hex(out32);
  du_nl();
}

typedef struct sp_row {
  const char *name;
  fp_fn f;
  int nargs, kind;
} sp_row;

static const sp_row sp_rows[] = {
    {"fadd.d", fadd_d_rne, 2, V_SPD},  {"fadd.s", fadd_s_rne, 2, V_SPS},
    {"fsub.d", fsub_d_rne, 2, V_SPD},  {"fsub.s", fsub_s_rne, 2, V_SPS},
    {"fmul.d", fmul_d_rne, 2, V_SPD},  {"fmul.s", fmul_s_rne, 2, V_SPS},
    {"fdiv.d", fdiv_d_rne, 2, V_SPD},  {"fdiv.s", fdiv_s_rne, 2, V_SPS},
    {"fsqrt.d", fsqrt_d_rne, 1, V_SPD}, {"fsqrt.s", fsqrt_s_rne, 1, V_SPS},
    {"fmin.d", fmin_d, 2, V_SPD},      {"fmin.s", fmin_s, 2, V_SPS},
    {"fmax.d", fmax_d, 2, V_SPD},      {"fmax.s", fmax_s, 2, V_SPS},
    {"fsgnj.d", fsgnj_d, 2, V_SPD},    {"fsgnj.s", fsgnj_s, 2, V_SPS},
    {"fsgnjn.d", fsgnjn_d, 2, V_SPD},  {"fsgnjn.s", fsgnjn_s, 2, V_SPS},
    {"fsgnjx.d", fsgnjx_d, 2, V_SPD},  {"fsgnjx.s", fsgnjx_s, 2, V_SPS},
    {"feq.d", feq_d, 2, V_SPD},        {"feq.s", feq_s, 2, V_SPS},
    {"flt.d", flt_d, 2, V_SPD},        {"flt.s", flt_s, 2, V_SPS},
    {"fle.d", fle_d, 2, V_SPD},        {"fle.s", fle_s, 2, V_SPS},
    {"fclass.d", fclass_d, 1, V_SPD},  {"fclass.s", fclass_s, 1, V_SPS},
    {"fclass.d cv", fclass_d, 1, V_CVD}, {"fclass.s cv", fclass_s, 1, V_CVS},
    {"fcvt.d.s", cvtds, 1, V_SPS},     {"fcvt.s.d", cvtsd_d_rne, 1, V_SPD},
    {"fcvt.w.d", cvtw_d_rne, 1, V_SPD}, {"fcvt.wu.s", cvtwu_s_rne, 1, V_SPS},
    {"fcvt.l.d", cvtl_d_rne, 1, V_SPD}, {"fcvt.lu.s", cvtlu_s_rne, 1, V_SPS},
    {"fmadd.d", fmadd_d_rne, 3, V_FMAD}, {"fnmadd.s", fnmadd_s_rne, 3, V_FMAS},
};

static void specials(void) {
  for (size_t k = 0; k < LEN(sp_rows); k++)
    run(sp_rows[k].name, sp_rows[k].f, sp_rows[k].nargs, sp_rows[k].kind);
  boxing();
  /* fcsr as a whole: frm and fflags fields */
  uint64_t fcsr;
  __asm__ volatile("csrwi fflags, 0x1f\n\tcsrwi frm, 3\n\tcsrr %0, fcsr\n\tcsrw fcsr, zero"
                   : "=r"(fcsr));
  du_str("fcsr ");
  du_hex(fcsr);
  du_nl();
}

int main(int argc, char **argv) {
  if (argc == 3) step = strtoul(argv[2], NULL, 10);
  if (step < 1) step = 1;
  if ((argc == 2 || argc == 3) && strcmp(argv[1], "rm") == 0) {
    sweep();
  } else if ((argc == 2 || argc == 3) && strcmp(argv[1], "nan") == 0) {
    specials();
  } else {
    du_str("usage: diff_fp rm|nan [STEP]\n");
    du_flush();
    return 2;
  }
  du_flush();
  return 0;
}
