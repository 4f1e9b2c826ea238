/* rv_exec.c: the RV64GC interpreter, the record source and the program
 * image.
 *
 * One loop (rv_run.inc) serves both fast-forward and record production: it
 * is compiled twice, with and without records, so fast-forward pays nothing
 * for them. The loop looks up the block at pc in the direct-mapped block
 * cache (decoding it on a miss), then walks the block's pre-decoded
 * instructions with threaded dispatch; walking an array keeps the next
 * instruction independent of the previous one's length. The budget bounds
 * how much of a block runs, so rv_proc_skip(n) stops after exactly n.
 *
 * Floating point runs on the host's IEEE arithmetic with the host rounding
 * mode switched to the instruction's (only when it changes). Exception flags
 * accrue in the host status word during a run and are folded into fflags
 * when the guest reads fcsr and when the run returns; the host environment
 * of the caller is saved and restored around every run. What the host does
 * not do the RISC-V way is done by hand: canonical NaNs, NaN boxing,
 * fmin/fmax, comparisons, fclass, and float-to-integer conversions
 * (saturating, with their own invalid/inexact rules). Rounding mode RMM,
 * which the host lacks, is nearest-even plus a step away from zero on exact
 * ties (found from the exact error of the result) for add, sub, mul, the
 * fused ops and conversions; fdiv/fsqrt, whose ties occur only in the
 * subnormal range, keep nearest-even under RMM (a known difference). */
#include <fenv.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "rv_internal.h"

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the emulator assumes a little-endian host");

enum { FF_NX = 1, FF_UF = 2, FF_OF = 4, FF_DZ = 8, FF_NV = 16 };
#define CANON_S 0x7fc00000u
#define CANON_D 0x7ff8000000000000ull

/* ---- faults ---- */

static void mem_fault(rv_proc *p, uint64_t pc, const char *what, uint64_t addr) {
  const rv_pte *e = rv_mem_pte(p, addr >> RV_PAGE_BITS);
  p->pc = pc;
  if (p->host_oom) /* the page was mapped, but the host had no memory for it */
    rv_fault(p, SIGKILL, "%s address 0x%llx: out of host memory", what, (unsigned long long)addr);
  else
    rv_fault(p, SIGSEGV, "%s %s address 0x%llx", what,
             (!e || !(e->prot & RV_MAPPED)) ? "unmapped" : "protected", (unsigned long long)addr);
}

/* ---- memory fast paths ---- */

static int load_slow(rv_proc *p, uint64_t a, unsigned size, void *out) {
  if ((a & RV_PAGE_MASK) + size > RV_PAGE_SIZE) return rv_mem_read(p, a, out, size);
  uint8_t *h = rv_mem_host(p, a, RV_PROT_R);
  if (!h) return -1;
  rv_tlb *t = &p->tlb_r[(a >> RV_PAGE_BITS) & (RV_TLB_SIZE - 1)];
  t->vpn = a >> RV_PAGE_BITS;
  t->addend = (uintptr_t)h - (uintptr_t)a;
  memcpy(out, h, size);
  return 0;
}

static int store_slow(rv_proc *p, uint64_t a, unsigned size, const void *in) {
  if ((a & RV_PAGE_MASK) + size > RV_PAGE_SIZE) return rv_mem_write(p, a, in, size);
  rv_pte *e = rv_mem_pte(p, a >> RV_PAGE_BITS);
  if (e && (e->prot & RV_PROT_X)) return rv_mem_write(p, a, in, size);
  uint8_t *h = rv_mem_host(p, a, RV_PROT_W);
  if (!h) return -1;
  rv_tlb *t = &p->tlb_w[(a >> RV_PAGE_BITS) & (RV_TLB_SIZE - 1)];
  t->vpn = a >> RV_PAGE_BITS;
  t->addend = (uintptr_t)h - (uintptr_t)a;
  memcpy(h, in, size);
  return 0;
}

static inline int load(rv_proc *p, uint64_t a, unsigned size, void *out) {
  const rv_tlb *t = &p->tlb_r[(a >> RV_PAGE_BITS) & (RV_TLB_SIZE - 1)];
  if (RV_LIKELY(t->vpn == a >> RV_PAGE_BITS && (a & RV_PAGE_MASK) + size <= RV_PAGE_SIZE)) {
    memcpy(out, (const void *)(uintptr_t)(a + t->addend), size);
    return 0;
  }
  return load_slow(p, a, size, out);
}

static inline int store(rv_proc *p, uint64_t a, unsigned size, const void *in) {
  const rv_tlb *t = &p->tlb_w[(a >> RV_PAGE_BITS) & (RV_TLB_SIZE - 1)];
  if (RV_LIKELY(t->vpn == a >> RV_PAGE_BITS && (a & RV_PAGE_MASK) + size <= RV_PAGE_SIZE)) {
    memcpy((void *)(uintptr_t)(a + t->addend), in, size);
    return 0;
  }
  return store_slow(p, a, size, in);
}

/* ---- fetch: blocks ---- */

static void fetch_fault(rv_proc *p, uint64_t pc) {
  const rv_pte *e = rv_mem_pte(p, pc >> RV_PAGE_BITS);
  p->pc = pc;
  if (p->host_oom) {
    rv_fault(p, SIGKILL, "instruction fetch from address 0x%llx: out of host memory",
             (unsigned long long)pc);
    return;
  }
  rv_fault(p, SIGSEGV, "instruction fetch from %s address 0x%llx",
           e && (e->prot & RV_MAPPED) ? "non-executable" : "unmapped", (unsigned long long)pc);
}

/* Decodes the instruction at pc into *d; -1 if it cannot be fetched. */
static int decode_at(rv_proc *p, uint64_t pc, rv_dinst *d) {
  uint16_t lo, hi = 0;
  const uint8_t *h = rv_mem_host(p, pc, RV_PROT_X);
  if (!h) return -1;
  memcpy(&lo, h, 2);
  if ((lo & 3) == 3) {
    h = rv_mem_host(p, pc + 2, RV_PROT_X);
    if (!h) return -1;
    memcpy(&hi, h, 2);
  }
  rv_decode((uint32_t)lo | (uint32_t)hi << 16, pc, d);
  return 0;
}

static int ends_block(const rv_dinst *d) {
  switch (d->op) {
  case RV_OP_JAL: case RV_OP_JALR: case RV_OP_BEQ: case RV_OP_BNE: case RV_OP_BLT:
  case RV_OP_BGE: case RV_OP_BLTU: case RV_OP_BGEU: case RV_OP_ECALL: case RV_OP_EBREAK:
  case RV_OP_FENCE_I: case RV_OP_ILLEGAL:
    return 1;
  default:
    return 0;
  }
}

static inline unsigned block_slot(uint64_t pc) {
  return (unsigned)((pc >> 1) ^ (pc >> (RV_BCACHE_BITS + 1))) & (RV_BCACHE_SIZE - 1);
}

/* Builds the block at pc. An instruction that cannot be fetched ends the
   block before it, so its fault is raised only if it is reached. */
static rv_block *block_build(rv_proc *p, uint64_t pc, rv_block *b) {
  uint64_t a = pc;
  b->n = 0;
  for (;;) {
    rv_dinst *d = &b->insts[b->n];
    if (decode_at(p, a, d)) break;
    b->n++;
    a += d->size;
    if (ends_block(d) || b->n == RV_BLOCK_MAX || (a >> RV_PAGE_BITS) != (pc >> RV_PAGE_BITS)) break;
  }
  if (b->n == 0) {
    b->pc = RV_NO_PC;
    fetch_fault(p, pc);
    return NULL;
  }
  b->pc = pc;
  b->end = a;
  return b;
}

static inline rv_block *block_at(rv_proc *p, uint64_t pc) {
  if (RV_UNLIKELY(!p->bcache) && !(p->bcache = rv_bcache_new())) {
    p->pc = pc;
    rv_fault(p, SIGKILL, "out of host memory for the block cache");
    return NULL;
  }
  rv_block *b = &p->bcache[block_slot(pc)];
  if (RV_LIKELY(b->pc == pc)) return b;
  return block_build(p, pc, b);
}

/* ---- floating point helpers ---- */

static uint32_t host_flags(void) {
  int e = fetestexcept(FE_ALL_EXCEPT);
  return ((e & FE_INEXACT) ? FF_NX : 0) | ((e & FE_UNDERFLOW) ? FF_UF : 0) |
         ((e & FE_OVERFLOW) ? FF_OF : 0) | ((e & FE_DIVBYZERO) ? FF_DZ : 0) |
         ((e & FE_INVALID) ? FF_NV : 0);
}

/* Folds the host's accrued flags into fflags and clears them. */
static void sync_flags(rv_proc *p) {
  p->fflags |= host_flags();
  feclearexcept(FE_ALL_EXCEPT);
}

/* Resolves rm (7: frm) and sets the host rounding mode; -1 if invalid. */
static inline int set_rm(rv_proc *p, unsigned rm) {
  if (rm == 7) rm = p->frm;
  if (rm > 4) return -1;
  if ((int)rm != p->host_rm) {
    static const int host[5] = {FE_TONEAREST, FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD, FE_TONEAREST};
    fesetround(host[rm]);
    p->host_rm = (int)rm;
  }
  return (int)rm;
}

static inline uint32_t fbits(float f) { uint32_t b; memcpy(&b, &f, 4); return b; }
static inline uint64_t dbits(double f) { uint64_t b; memcpy(&b, &f, 8); return b; }
static inline float bitsf(uint32_t b) { float f; memcpy(&f, &b, 4); return f; }
static inline double bitsd(uint64_t b) { double f; memcpy(&f, &b, 8); return f; }

/* Single operand from a 64-bit register: not NaN-boxed reads as canonical NaN. */
static inline uint32_t gets_bits(const rv_proc *p, unsigned r) {
  uint64_t v = p->f[r];
  return (v >> 32) == 0xffffffffu ? (uint32_t)v : CANON_S;
}
static inline float gets(const rv_proc *p, unsigned r) { return bitsf(gets_bits(p, r)); }
static inline double getd(const rv_proc *p, unsigned r) { return bitsd(p->f[r]); }
static inline void puts_bits(rv_proc *p, unsigned r, uint32_t b) {
  p->f[r] = 0xffffffff00000000ull | b;
}
static inline void puts_(rv_proc *p, unsigned r, float f) {
  puts_bits(p, r, f != f ? CANON_S : fbits(f));
}
static inline void putd(rv_proc *p, unsigned r, double f) { p->f[r] = f != f ? CANON_D : dbits(f); }

static inline int s_isnan(uint32_t b) { return (b & 0x7fffffffu) > 0x7f800000u; }
static inline int s_issnan(uint32_t b) { return s_isnan(b) && !(b & 0x00400000u); }
static inline int d_isnan(uint64_t b) { return (b & ~(1ull << 63)) > 0x7ff0000000000000ull; }
static inline int d_issnan(uint64_t b) { return d_isnan(b) && !(b & (1ull << 51)); }
static inline int s_isinf(uint32_t b) { return (b & 0x7fffffffu) == 0x7f800000u; }
static inline int d_isinf(uint64_t b) { return (b & ~(1ull << 63)) == 0x7ff0000000000000ull; }
static inline int s_iszero(uint32_t b) { return (b & 0x7fffffffu) == 0; }
static inline int d_iszero(uint64_t b) { return (b & ~(1ull << 63)) == 0; }

/* Host arithmetic behind volatile operands, so that the compiler can neither
   fold it nor move it across the rounding-mode changes. */
#define VOP(T, expr) \
  do {               \
    volatile T r_ = (expr); \
    res = r_;        \
  } while (0)

static uint64_t fclass_bits(int neg, int inf, int nan, int snan, int zero, int sub) {
  if (nan) return snan ? 1u << 8 : 1u << 9;
  if (inf) return neg ? 1u << 0 : 1u << 7;
  if (zero) return neg ? 1u << 3 : 1u << 4;
  if (sub) return neg ? 1u << 2 : 1u << 5;
  return neg ? 1u << 1 : 1u << 6;
}

/* Float (as an exact double) to integer: round with rm, then saturate.
   kind: 0 w, 1 wu, 2 l, 3 lu. */
static uint64_t cvt_to_int(rv_proc *p, double v, int is_nan, unsigned rm, int kind) {
  static const double lo[4] = {-2147483648.0, 0.0, -9223372036854775808.0, 0.0};
  static const double hi_excl[4] = {2147483648.0, 4294967296.0, 9223372036854775808.0,
                                    18446744073709551616.0};
  static const uint64_t vmax[4] = {0x7fffffffull, 0xffffffffull, 0x7fffffffffffffffull, ~0ull};
  static const uint64_t vmin[4] = {0x80000000ull, 0, 0x8000000000000000ull, 0};
  uint64_t r;
  if (is_nan) {
    p->fflags |= FF_NV;
    r = vmax[kind];
  } else {
    double t = rm == 4 ? round(v) : nearbyint(v);
    if (t < lo[kind]) {
      p->fflags |= FF_NV;
      r = vmin[kind];
    } else if (t >= hi_excl[kind]) {
      p->fflags |= FF_NV;
      r = vmax[kind];
    } else {
      if (t != v) p->fflags |= FF_NX;
      if (kind == 0 || kind == 2) r = (uint64_t)(int64_t)t;
      else r = (uint64_t)t;
    }
  }
  if (kind < 2) r = (uint64_t)(int64_t)(int32_t)(uint32_t)r;
  return r;
}

static uint64_t s_minmax(rv_proc *p, uint32_t a, uint32_t b, int is_max) {
  if (s_isnan(a) || s_isnan(b)) {
    if (s_issnan(a) || s_issnan(b)) p->fflags |= FF_NV;
    if (s_isnan(a) && s_isnan(b)) return CANON_S;
    return s_isnan(a) ? b : a;
  }
  if (s_iszero(a) && s_iszero(b)) return is_max ? (a & b) : (a | b);
  float fa = bitsf(a), fb = bitsf(b);
  return is_max ? (fa > fb ? a : b) : (fa < fb ? a : b);
}

static uint64_t d_minmax(rv_proc *p, uint64_t a, uint64_t b, int is_max) {
  if (d_isnan(a) || d_isnan(b)) {
    if (d_issnan(a) || d_issnan(b)) p->fflags |= FF_NV;
    if (d_isnan(a) && d_isnan(b)) return CANON_D;
    return d_isnan(a) ? b : a;
  }
  if (d_iszero(a) && d_iszero(b)) return is_max ? (a & b) : (a | b);
  double fa = bitsd(a), fb = bitsd(b);
  return is_max ? (fa > fb ? a : b) : (fa < fb ? a : b);
}

/* kind: 0 eq, 1 lt, 2 le */
static uint64_t s_cmp(rv_proc *p, uint32_t a, uint32_t b, int kind) {
  if (s_isnan(a) || s_isnan(b)) {
    if (kind != 0 || s_issnan(a) || s_issnan(b)) p->fflags |= FF_NV;
    return 0;
  }
  float fa = bitsf(a), fb = bitsf(b);
  return kind == 0 ? fa == fb : kind == 1 ? fa < fb : fa <= fb;
}

static uint64_t d_cmp(rv_proc *p, uint64_t a, uint64_t b, int kind) {
  if (d_isnan(a) || d_isnan(b)) {
    if (kind != 0 || d_issnan(a) || d_issnan(b)) p->fflags |= FF_NV;
    return 0;
  }
  double fa = bitsd(a), fb = bitsd(b);
  return kind == 0 ? fa == fb : kind == 1 ? fa < fb : fa <= fb;
}

/* RMM (round to nearest, ties to max magnitude) on a host that only has
   ties-to-even: the host rounds to nearest-even, and on an exact tie the
   result steps one ulp away from zero. s is that result, err the exact
   value minus s, computed exactly by the caller (TwoSum, fma, integers). */
static double rmm_d(double s, double err, double scale) {
  uint64_t b = dbits(s), nb;
  if (err == 0 || d_isnan(b) || d_isinf(b)) return s;
  if ((b << 1) == 0) nb = (err < 0 ? 1ull << 63 : 0) | 1;
  else nb = ((err > 0) == !(b >> 63)) ? b + 1 : b - 1;
  double n = bitsd(nb);
  if (d_isinf(nb) || (n - s) * scale != 2 * err) return s;
  return fabs(n) > fabs(s) ? n : s;
}

static float rmm_s(float s, double err) {
  uint32_t b = fbits(s), nb;
  if (err == 0 || s_isnan(b) || s_isinf(b)) return s;
  if ((b << 1) == 0) nb = (err < 0 ? 1u << 31 : 0) | 1;
  else nb = ((err > 0) == !(b >> 31)) ? b + 1 : b - 1;
  float n = bitsf(nb);
  if (s_isinf(nb) || (double)n - (double)s != 2 * err) return s;
  return fabsf(n) > fabsf(s) ? n : s;
}

/* Exact error of the nearest-even sum s = a + b (TwoSum). */
static double two_sum_err(double a, double b, double s) {
  double bb = s - a;
  return (a - (s - bb)) + (b - bb);
}

/* Exact error of an integer converted to nearest-even s (|s| < 2^64). */
static double int_err(int64_t v, int is_unsigned, double s) {
  __int128 exact = is_unsigned ? (__int128)(uint64_t)v : (__int128)v;
  __int128 r = s >= 18446744073709551616.0 ? ((__int128)1 << 64) : s < 0 ? (__int128)(int64_t)s
               : (__int128)(uint64_t)s;
  return (double)(exact - r); /* |exact - r| is below 2^12: exact in a double */
}

/* The fused ops; neg_prod / neg_add select fmadd, fmsub, fnmsub, fnmadd.
   inf * 0 is invalid even when the addend is a quiet NaN. */
static void fma_s(rv_proc *p, const rv_dinst *d, int neg_prod, int neg_add, int rm) {
  uint32_t a = gets_bits(p, d->rs1), b = gets_bits(p, d->rs2), c = gets_bits(p, d->rs3);
  if (s_isnan(c) && ((s_isinf(a) && s_iszero(b)) || (s_iszero(a) && s_isinf(b))))
    p->fflags |= FF_NV;
  float fa = bitsf(neg_prod ? a ^ 0x80000000u : a), fb = bitsf(b),
        fc = bitsf(neg_add ? c ^ 0x80000000u : c), res;
  volatile float va = fa, vb = fb, vc = fc;
  VOP(float, fmaf(va, vb, vc));
  if (rm == 4 && !s_isnan(fbits(res)) && !s_isinf(fbits(res))) {
    /* The product is exact in double; a float tie is a sum exact in double. */
    double prod = (double)fa * (double)fb, sum = prod + (double)fc;
    if (two_sum_err(prod, (double)fc, sum) == 0) res = rmm_s(res, sum - (double)res);
  }
  puts_(p, d->rd, res);
}

static void fma_d(rv_proc *p, const rv_dinst *d, int neg_prod, int neg_add, int rm) {
  uint64_t a = p->f[d->rs1], b = p->f[d->rs2], c = p->f[d->rs3];
  const uint64_t sgn = 1ull << 63;
  if (d_isnan(c) && ((d_isinf(a) && d_iszero(b)) || (d_iszero(a) && d_isinf(b))))
    p->fflags |= FF_NV;
  double fa = bitsd(neg_prod ? a ^ sgn : a), fb = bitsd(b), fc = bitsd(neg_add ? c ^ sgn : c),
         res;
  volatile double va = fa, vb = fb, vc = fc;
  VOP(double, fma(va, vb, vc));
  if (rm == 4 && !d_isnan(dbits(res)) && !d_isinf(dbits(res))) {
    /* The product is exact in binary128; a double tie is a sum exact there. */
    __float128 prod = (__float128)fa * fb, sum = prod + fc, bb = sum - prod;
    if ((prod - (sum - bb)) + (fc - bb) == 0) {
      __float128 err = sum - res; /* exact; compared in binary128, no flags */
      uint64_t b = dbits(res), nb;
      if (err != 0) {
        if ((b << 1) == 0) nb = (err < 0 ? 1ull << 63 : 0) | 1;
        else nb = ((err > 0) == !(b >> 63)) ? b + 1 : b - 1;
        if (!d_isinf(nb) && (__float128)bitsd(nb) - res == 2 * err && fabs(bitsd(nb)) > fabs(res))
          res = bitsd(nb);
      }
    }
  }
  putd(p, d->rd, res);
}

/* Executes one FP instruction that is not a load/store; 0, or -1 when it is
   illegal (bad rounding mode). Out of line: the integer loop stays small. */
static int exec_fp(rv_proc *p, const rv_dinst *d) {
  int rm = 0;
  const char *fmt = rv_opinfo_table[d->op].fmt;
  if (strchr(fmt, 'r') && (rm = set_rm(p, d->rm)) < 0) return -1;
  uint64_t *x = p->x;
  unsigned rd = d->rd, r1 = d->rs1, r2 = d->rs2;
  switch ((rv_op)d->op) {
  case RV_OP_FMADD_S: fma_s(p, d, 0, 0, rm); break;
  case RV_OP_FMSUB_S: fma_s(p, d, 0, 1, rm); break;
  case RV_OP_FNMSUB_S: fma_s(p, d, 1, 0, rm); break;
  case RV_OP_FNMADD_S: fma_s(p, d, 1, 1, rm); break;
  case RV_OP_FMADD_D: fma_d(p, d, 0, 0, rm); break;
  case RV_OP_FMSUB_D: fma_d(p, d, 0, 1, rm); break;
  case RV_OP_FNMSUB_D: fma_d(p, d, 1, 0, rm); break;
  case RV_OP_FNMADD_D: fma_d(p, d, 1, 1, rm); break;
  case RV_OP_FADD_S: case RV_OP_FSUB_S: case RV_OP_FMUL_S: case RV_OP_FDIV_S: {
    volatile float a = gets(p, r1), b = gets(p, r2);
    float res;
    if (d->op == RV_OP_FADD_S) VOP(float, a + b);
    else if (d->op == RV_OP_FSUB_S) VOP(float, a - b);
    else if (d->op == RV_OP_FMUL_S) VOP(float, a * b);
    else VOP(float, a / b);
    if (rm == 4 && d->op != RV_OP_FDIV_S && !s_isnan(fbits(res)) && !s_isinf(fbits(res))) { /* float +,-,* are exact in double */
      double da = a, db = b;
      double exact = d->op == RV_OP_FADD_S ? da + db : d->op == RV_OP_FSUB_S ? da - db : da * db;
      res = rmm_s(res, exact - (double)res);
    }
    puts_(p, rd, res);
    break;
  }
  case RV_OP_FSQRT_S: {
    volatile float a = gets(p, r1);
    float res;
    VOP(float, __builtin_sqrtf(a));
    puts_(p, rd, res);
    break;
  }
  case RV_OP_FADD_D: case RV_OP_FSUB_D: case RV_OP_FMUL_D: case RV_OP_FDIV_D: {
    volatile double a = getd(p, r1), b = getd(p, r2);
    double res;
    if (d->op == RV_OP_FADD_D) VOP(double, a + b);
    else if (d->op == RV_OP_FSUB_D) VOP(double, a - b);
    else if (d->op == RV_OP_FMUL_D) VOP(double, a * b);
    else VOP(double, a / b);
    if (rm == 4 && d->op != RV_OP_FDIV_D && !d_isnan(dbits(res)) && !d_isinf(dbits(res))) {
      if (d->op != RV_OP_FMUL_D) {
        res = rmm_d(res, two_sum_err(a, d->op == RV_OP_FADD_D ? b : -b, res), 1.0);
      } else if (fabs(res) > 0x1p-900) {
        res = rmm_d(res, fma(a, b, -res), 1.0);
      } else { /* tiny product: find its error scaled into the normal range */
        double x = a, y = b;
        if (fabs(x) > fabs(y)) x = b, y = a;
        res = rmm_d(res, fma(x * 0x1p600, y, -res * 0x1p600), 0x1p600);
      }
    }
    putd(p, rd, res);
    break;
  }
  case RV_OP_FSQRT_D: {
    volatile double a = getd(p, r1);
    double res;
    VOP(double, __builtin_sqrt(a));
    putd(p, rd, res);
    break;
  }
  case RV_OP_FSGNJ_S: case RV_OP_FSGNJN_S: case RV_OP_FSGNJX_S: {
    uint32_t a = gets_bits(p, r1), b = gets_bits(p, r2), s = b & 0x80000000u;
    if (d->op == RV_OP_FSGNJN_S) s ^= 0x80000000u;
    else if (d->op == RV_OP_FSGNJX_S) s = (a ^ b) & 0x80000000u;
    puts_bits(p, rd, (a & 0x7fffffffu) | s);
    break;
  }
  case RV_OP_FSGNJ_D: case RV_OP_FSGNJN_D: case RV_OP_FSGNJX_D: {
    const uint64_t sgn = 1ull << 63;
    uint64_t a = p->f[r1], b = p->f[r2], s = b & sgn;
    if (d->op == RV_OP_FSGNJN_D) s ^= sgn;
    else if (d->op == RV_OP_FSGNJX_D) s = (a ^ b) & sgn;
    p->f[rd] = (a & ~sgn) | s;
    break;
  }
  case RV_OP_FMIN_S: case RV_OP_FMAX_S:
    puts_bits(p, rd, (uint32_t)s_minmax(p, gets_bits(p, r1), gets_bits(p, r2), d->op == RV_OP_FMAX_S));
    break;
  case RV_OP_FMIN_D: case RV_OP_FMAX_D:
    p->f[rd] = d_minmax(p, p->f[r1], p->f[r2], d->op == RV_OP_FMAX_D);
    break;
  case RV_OP_FCVT_W_S: case RV_OP_FCVT_WU_S: case RV_OP_FCVT_L_S: case RV_OP_FCVT_LU_S: {
    uint32_t a = gets_bits(p, r1);
    x[rd] = cvt_to_int(p, s_isnan(a) ? 0.0 : (double)bitsf(a), s_isnan(a), (unsigned)rm,
                       d->op - RV_OP_FCVT_W_S);
    break;
  }
  case RV_OP_FCVT_W_D: case RV_OP_FCVT_WU_D: case RV_OP_FCVT_L_D: case RV_OP_FCVT_LU_D: {
    uint64_t a = p->f[r1];
    x[rd] = cvt_to_int(p, d_isnan(a) ? 0.0 : bitsd(a), d_isnan(a), (unsigned)rm,
                       d->op - RV_OP_FCVT_W_D);
    break;
  }
  case RV_OP_FMV_X_W: x[rd] = (uint64_t)(int64_t)(int32_t)(uint32_t)p->f[r1]; break;
  case RV_OP_FMV_X_D: x[rd] = p->f[r1]; break;
  case RV_OP_FMV_W_X: puts_bits(p, rd, (uint32_t)x[r1]); break;
  case RV_OP_FMV_D_X: p->f[rd] = x[r1]; break;
  case RV_OP_FCLASS_S: {
    uint32_t a = gets_bits(p, r1);
    x[rd] = fclass_bits(a >> 31, s_isinf(a), s_isnan(a), s_issnan(a), s_iszero(a),
                        (a & 0x7f800000u) == 0 && !s_iszero(a));
    break;
  }
  case RV_OP_FCLASS_D: {
    uint64_t a = p->f[r1];
    x[rd] = fclass_bits((int)(a >> 63), d_isinf(a), d_isnan(a), d_issnan(a), d_iszero(a),
                        (a & 0x7ff0000000000000ull) == 0 && !d_iszero(a));
    break;
  }
  case RV_OP_FEQ_S: case RV_OP_FLT_S: case RV_OP_FLE_S:
    x[rd] = s_cmp(p, gets_bits(p, r1), gets_bits(p, r2),
                  d->op == RV_OP_FEQ_S ? 0 : d->op == RV_OP_FLT_S ? 1 : 2);
    break;
  case RV_OP_FEQ_D: case RV_OP_FLT_D: case RV_OP_FLE_D:
    x[rd] = d_cmp(p, p->f[r1], p->f[r2], d->op == RV_OP_FEQ_D ? 0 : d->op == RV_OP_FLT_D ? 1 : 2);
    break;
  case RV_OP_FCVT_S_W: case RV_OP_FCVT_S_WU: case RV_OP_FCVT_S_L: case RV_OP_FCVT_S_LU: {
    volatile uint64_t v = x[r1];
    float res;
    if (d->op == RV_OP_FCVT_S_W) VOP(float, (float)(int32_t)v);
    else if (d->op == RV_OP_FCVT_S_WU) VOP(float, (float)(uint32_t)v);
    else if (d->op == RV_OP_FCVT_S_L) VOP(float, (float)(int64_t)v);
    else VOP(float, (float)v);
    if (rm == 4) {
      int64_t iv = d->op == RV_OP_FCVT_S_W ? (int32_t)v : d->op == RV_OP_FCVT_S_WU ? (int64_t)(uint32_t)v
                                                                                : (int64_t)v;
      res = rmm_s(res, int_err(iv, d->op == RV_OP_FCVT_S_LU, (double)res));
    }
    puts_(p, rd, res);
    break;
  }
  case RV_OP_FCVT_D_W: case RV_OP_FCVT_D_WU: case RV_OP_FCVT_D_L: case RV_OP_FCVT_D_LU: {
    volatile uint64_t v = x[r1];
    double res;
    if (d->op == RV_OP_FCVT_D_W) VOP(double, (double)(int32_t)v);
    else if (d->op == RV_OP_FCVT_D_WU) VOP(double, (double)(uint32_t)v);
    else if (d->op == RV_OP_FCVT_D_L) VOP(double, (double)(int64_t)v);
    else VOP(double, (double)v);
    if (rm == 4 && (d->op == RV_OP_FCVT_D_L || d->op == RV_OP_FCVT_D_LU))
      res = rmm_d(res, int_err((int64_t)v, d->op == RV_OP_FCVT_D_LU, res), 1.0);
    putd(p, rd, res);
    break;
  }
  case RV_OP_FCVT_S_D: {
    volatile double a = getd(p, r1);
    float res;
    VOP(float, (float)a);
    if (rm == 4 && !d_isnan(dbits(a)) && !d_isinf(dbits(a)) && fabs(a) > 0x1p-120) res = rmm_s(res, a - (double)res);
    puts_(p, rd, res);
    break;
  }
  case RV_OP_FCVT_D_S: {
    volatile float a = gets(p, r1);
    double res;
    VOP(double, (double)a);
    putd(p, rd, res);
    break;
  }
  default: return -1;
  }
  return 0;
}

/* ---- CSRs ---- */

/* 0, or -1: illegal (unknown csr, or a write to a read-only one). */
static int exec_csr(rv_proc *p, const rv_dinst *d) {
  unsigned csr = (unsigned)d->imm;
  int is_imm = d->op >= RV_OP_CSRRWI;
  uint64_t src = is_imm ? d->rs1 : p->x[d->rs1];
  int writes = (d->op == RV_OP_CSRRW || d->op == RV_OP_CSRRWI) || d->rs1 != 0;
  uint64_t old;
  switch (csr) {
  case 1: sync_flags(p); old = p->fflags; break;
  case 2: old = p->frm; break;
  case 3: sync_flags(p); old = (uint64_t)p->frm << 5 | p->fflags; break;
  case 0xc00: case 0xc02: old = p->icount; break;
  case 0xc01: old = p->icount / 100; break; /* 10 MHz timebase at 1 instruction/ns */
  default: return -1;
  }
  if (writes) {
    uint64_t v;
    int op = d->op - (is_imm ? RV_OP_CSRRWI : RV_OP_CSRRW); /* 0 w, 1 s, 2 c */
    v = op == 0 ? src : op == 1 ? (old | src) : (old & ~src);
    switch (csr) {
    case 1: p->fflags = v & 31; break;
    case 2: p->frm = v & 7; break;
    case 3: p->fflags = v & 31; p->frm = (v >> 5) & 7; break;
    default: return -1;
    }
  }
  p->x[d->rd] = old;
  return 0;
}

/* ---- the loop: two compiled copies of rv_run.inc ---- */

#define RV_RUN_NAME run_fast_
#define RV_RUN_REC 0
#include "rv_run.inc"
#undef RV_RUN_NAME
#undef RV_RUN_REC
#define RV_RUN_NAME run_rec
#define RV_RUN_REC 1
#include "rv_run.inc"
#undef RV_RUN_NAME
#undef RV_RUN_REC

/* ---- the public run interface ---- */

static uint64_t run_fast(rv_proc *p, uint64_t n) { return run_fast_(p, n, NULL); }

uint64_t rv_proc_skip(rv_proc *p, uint64_t n) {
  uint64_t total = 0;
  while (total < n && p->state == RV_RUNNING) {
    uint64_t k = run_fast(p, n - total);
    total += k;
    if (k == 0) break;
  }
  return total;
}

static size_t source_fill(void *ctx, ic_inst *buf, size_t cap) {
  return (size_t)run_rec(ctx, cap, buf);
}

ic_inst_source rv_proc_source(rv_proc *p) {
  ic_inst_source s = {p, source_fill};
  return s;
}

rv_state rv_proc_state(const rv_proc *p, int *exit_code, const char **why) {
  if (exit_code) *exit_code = p->exit_code;
  if (why) *why = p->state == RV_FAULT ? p->why : "";
  return p->state;
}

int rv_proc_signal(const rv_proc *p, int *self) {
  if (self) *self = p->state == RV_FAULT && p->self_kill;
  return p->state == RV_FAULT ? p->term_sig : 0;
}

uint64_t rv_proc_icount(const rv_proc *p) { return p->icount; }

int rv_decode_static(uint32_t raw, uint64_t pc, ic_static_inst *out) {
  rv_dinst d;
  memset(out, 0, sizeof *out);
  rv_decode(raw, pc, &d);
  if (d.op == RV_OP_ILLEGAL) return 0;
  out->valid = 1;
  out->size = d.size;
  out->opclass = d.opclass;
  memcpy(out->src, d.src, IC_MAX_SRC);
  out->dst[0] = d.dst[0];
  out->raw = d.raw;
  out->is_mem_rmw = d.is_rmw;
  if (d.opclass == IC_OP_BRANCH || d.op == RV_OP_JAL) out->target = pc + (uint64_t)d.imm;
  return 1;
}

static int image_lookup(void *ctx, uint64_t pc, ic_static_inst *out) {
  const rv_proc *p = ctx;
  uint16_t lo, hi = 0;
  memset(out, 0, sizeof *out);
  if ((pc & 1) || rv_mem_peek(p, pc, &lo, 2, RV_PROT_X)) return 0;
  if ((lo & 3) == 3 && rv_mem_peek(p, pc + 2, &hi, 2, RV_PROT_X)) return 0;
  return rv_decode_static((uint32_t)lo | (uint32_t)hi << 16, pc, out);
}

size_t rv_proc_code_pointers(const rv_proc *p, const uint64_t **out) {
  *out = p->codeptr;
  return p->ncodeptr;
}

int rv_proc_code_pages(const rv_proc *p,
                       int (*fn)(void *ctx, uint64_t addr, const uint8_t *page), void *ctx) {
  static const uint8_t zero[RV_PAGE_SIZE];
  for (uint64_t hi = 0; hi < RV_RADIX_SIZE; hi++) {
    rv_pte **mid = p->radix[hi];
    if (!mid) continue;
    for (uint64_t m = 0; m < RV_RADIX_SIZE; m++) {
      const rv_pte *leaf = mid[m];
      if (!leaf) continue;
      for (uint64_t k = 0; k < RV_RADIX_SIZE; k++) {
        if ((leaf[k].prot & (RV_PROT_X | RV_MAPPED)) != (RV_PROT_X | RV_MAPPED)) continue;
        uint64_t vpn = hi << (2 * RV_RADIX_BITS) | m << RV_RADIX_BITS | k;
        int r = fn(ctx, vpn << RV_PAGE_BITS, leaf[k].data ? leaf[k].data : zero);
        if (r) return r;
      }
    }
  }
  return 0;
}

static size_t image_code_pointers(void *ctx, const uint64_t **out) {
  const rv_proc *p = ctx;
  *out = p->codeptr;
  return p->ncodeptr;
}

ic_program_image rv_proc_image(rv_proc *p) {
  ic_program_image im = {p, image_lookup, image_code_pointers};
  return im;
}
