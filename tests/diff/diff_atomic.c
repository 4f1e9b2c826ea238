/* diff_atomic.c: the A extension: LR/SC success and the failures the spec
 * requires (no reservation, a reservation for another address, a second SC),
 * and every AMO in .w and .d forms with and without aq/rl, on edge-case
 * operands; prints the old value, the stored value and the SC results.
 * An optional argument STEP uses every STEP-th operand only. */
#include <stdlib.h>

#include "diff_util.h"

static const uint64_t vals[] = {0, 1, 0xffffffffffffffffULL, 0x8000000000000000ULL,
                                0x7fffffffffffffffULL, 0x80000000ULL, 0x7fffffffULL,
                                0xfffffffe00000005ULL};
#define NV (sizeof vals / sizeof vals[0])

/* One function per mnemonic; a '.' cannot be part of a C name, so each
 * mnemonic has a short key (AMO_STR_key). */
typedef uint64_t (*amo_fn)(uint64_t *, uint64_t);
#define AMO_FN(m) \
  static uint64_t amo_fn_##m(uint64_t *p, uint64_t v) { \
    uint64_t r; \
    __asm__ volatile(AMO_STR_##m " %0, %2, (%1)" : "=r"(r) : "r"(p), "r"(v) : "memory"); \
    return r; \
  }
#define AMO_STR_swapd "amoswap.d"
#define AMO_STR_addd "amoadd.d"
#define AMO_STR_xord "amoxor.d"
#define AMO_STR_andd "amoand.d"
#define AMO_STR_ord "amoor.d"
#define AMO_STR_mind "amomin.d"
#define AMO_STR_maxd "amomax.d"
#define AMO_STR_minud "amominu.d"
#define AMO_STR_maxud "amomaxu.d"
#define AMO_STR_swapw "amoswap.w"
#define AMO_STR_addw "amoadd.w"
#define AMO_STR_xorw "amoxor.w"
#define AMO_STR_andw "amoand.w"
#define AMO_STR_orw "amoor.w"
#define AMO_STR_minw "amomin.w"
#define AMO_STR_maxw "amomax.w"
#define AMO_STR_minuw "amominu.w"
#define AMO_STR_maxuw "amomaxu.w"
#define AMO_STR_adddaq "amoadd.d.aq"
#define AMO_STR_swapwrl "amoswap.w.rl"
#define AMO_STR_ordaqrl "amoor.d.aqrl"
#define AMO_STR_maxuwaqrl "amomaxu.w.aqrl"
#define AMO_NAMES(X) \
  X(swapd) X(addd) X(xord) X(andd) X(ord) X(mind) X(maxd) X(minud) X(maxud) X(swapw) X(addw) \
  X(xorw) X(andw) X(orw) X(minw) X(maxw) X(minuw) X(maxuw) X(adddaq) X(swapwrl) X(ordaqrl) \
  X(maxuwaqrl)
AMO_NAMES(AMO_FN)
static const struct {
  const char *name;
  amo_fn fn;
} amos[] = {
#define AMO_ENTRY(m) {AMO_STR_##m, amo_fn_##m},
    AMO_NAMES(AMO_ENTRY)
};

static uint64_t lr_d(uint64_t *p) {
  uint64_t r;
  __asm__ volatile("lr.d %0, (%1)" : "=r"(r) : "r"(p) : "memory");
  return r;
}
static uint64_t lr_w(uint32_t *p) {
  uint64_t r;
  __asm__ volatile("lr.w.aq %0, (%1)" : "=r"(r) : "r"(p) : "memory");
  return r;
}
static uint64_t sc_d(uint64_t *p, uint64_t v) {
  uint64_t r;
  __asm__ volatile("sc.d %0, %2, (%1)" : "=r"(r) : "r"(p), "r"(v) : "memory");
  return r;
}
static uint64_t sc_w(uint32_t *p, uint64_t v) {
  uint64_t r;
  __asm__ volatile("sc.w.rl %0, %2, (%1)" : "=r"(r) : "r"(p), "r"(v) : "memory");
  return r;
}

static uint64_t mem[4] __attribute__((aligned(16)));

int main(int argc, char **argv) {
  size_t step = argc > 1 ? strtoul(argv[1], NULL, 10) : 1;
  if (step < 1) step = 1;
  for (size_t k = 0; k < sizeof amos / sizeof amos[0]; k++) {
    du_str(amos[k].name);
    du_nl();
    for (size_t i = 0; i < NV; i += step) {
      for (size_t j = 0; j < NV; j += step) {
        mem[0] = vals[i];
        mem[1] = 0x5555555555555555ULL;
        /* .w forms act on the low word (little-endian) and sign-extend */
        uint64_t old = amos[k].fn(&mem[0], vals[j]);
        du_hex(old);
        du_putc('>');
        du_hex(mem[0]);
        du_putc(' ');
      }
      du_nl();
    }
  }
  /* LR/SC */
  uint32_t *w = (uint32_t *)&mem[2];
  mem[0] = 10;
  mem[1] = 20;
  mem[2] = 0xffffffff80000000ULL;
  uint64_t r[12];
  r[0] = lr_d(&mem[0]);
  r[1] = sc_d(&mem[0], 11);           /* succeeds: 0 */
  r[2] = sc_d(&mem[0], 12);           /* no reservation: fails, nonzero */
  r[3] = lr_d(&mem[0]);
  r[4] = sc_d(&mem[1], 21);           /* another address: fails */
  r[5] = sc_d(&mem[0], 13);           /* reservation gone after an SC: fails */
  r[6] = lr_w(w);                     /* sign-extended */
  r[7] = sc_w(w, 0x7fffffffULL);      /* succeeds */
  r[8] = lr_w(w);
  r[9] = sc_w(w, 0x12345678ULL);      /* succeeds */
  /* an LR/SC increment loop, the way atomics are compiled */
  for (int i = 0; i < 5; i++) {
    uint64_t v;
    do v = lr_d(&mem[1]);
    while (sc_d(&mem[1], v + 3) != 0);
  }
  r[10] = __atomic_fetch_add(&mem[3], 5, __ATOMIC_SEQ_CST);
  uint64_t expect = 5;
  r[11] = __atomic_compare_exchange_n(&mem[3], &expect, 9, 0, __ATOMIC_SEQ_CST,
                                      __ATOMIC_SEQ_CST);
  du_str("lrsc ");
  du_hex(r[0]);
  for (int i = 1; i < 12; i++) {
    du_putc(' ');
    /* an SC failure code is any nonzero value: print only success/failure */
    du_hex((i == 1 || i == 2 || i == 4 || i == 5 || i == 7 || i == 9) ? r[i] != 0 : r[i]);
  }
  du_nl();
  du_str("mem ");
  for (int i = 0; i < 4; i++) {
    du_hex(mem[i]);
    du_putc(' ');
  }
  du_nl();
  du_flush();
  return 0;
}
