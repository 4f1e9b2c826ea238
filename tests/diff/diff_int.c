/* diff_int.c: RV64I and M instructions on edge-case operands (division by
 * zero, signed overflow, shift amounts beyond the width, word forms and
 * their sign extension, loads of every width), printed as hex. The
 * instructions are written as inline assembly so the compiler cannot fold
 * or pick them. An optional argument STEP uses every STEP-th operand only
 * (a shorter run for the pc-trace comparison). */
#include <stdlib.h>

#include "diff_util.h"

static const uint64_t vals[] = {
    0, 1, 2, 0xffffffffffffffffULL, 0x8000000000000000ULL, 0x7fffffffffffffffULL,
    0x80000000ULL, 0x7fffffffULL, 0xffffffffULL, 0xffffffff80000000ULL, 0x123456789abcdef0ULL,
    63, 64, 0xfffffffffffffff9ULL, /* -7 */
};
#define NV (sizeof vals / sizeof vals[0])

#define RR(name) \
  static uint64_t op_##name(uint64_t a, uint64_t b) { \
    uint64_t r; \
    __asm__ volatile(#name " %0, %1, %2" : "=r"(r) : "r"(a), "r"(b)); \
    return r; \
  }
#define RR_LIST(X) \
  X(add) X(sub) X(sll) X(srl) X(sra) X(slt) X(sltu) X(xor) X(or) X(and) X(addw) X(subw) \
  X(sllw) X(srlw) X(sraw) X(mul) X(mulh) X(mulhsu) X(mulhu) X(mulw) X(div) X(divu) X(rem) \
  X(remu) X(divw) X(divuw) X(remw) X(remuw)
RR_LIST(RR)

typedef uint64_t (*rr_fn)(uint64_t, uint64_t);
static const struct {
  const char *name;
  rr_fn fn;
} rr_ops[] = {
#define RR_ENTRY(name) {#name, op_##name},
    RR_LIST(RR_ENTRY)
};

/* immediate forms: the immediate is part of the instruction, so each
 * (instruction, immediate) is its own asm statement */
#define RI(insn, imm) \
  do { \
    uint64_t r; \
    __asm__ volatile(insn " %0, %1, " #imm : "=r"(r) : "r"(a)); \
    du_hex(r); \
    du_putc(' '); \
  } while (0)

static void immediates(uint64_t a) {
  RI("addi", -2048); RI("addi", 2047); RI("slti", -1); RI("sltiu", -1); RI("sltiu", 1);
  RI("xori", -1); RI("ori", 0x555); RI("andi", -16); RI("slli", 63); RI("srli", 63);
  RI("srai", 63); RI("slli", 1); RI("srai", 31); RI("addiw", 1); RI("addiw", -2048);
  RI("slliw", 31); RI("srliw", 31); RI("sraiw", 31); RI("srliw", 0); RI("sraiw", 0);
  du_nl();
}

static void loads(void) {
  static const uint8_t mem[16] = {0x81, 0x92, 0xa3, 0xb4, 0xc5, 0xd6, 0xe7, 0xf8,
                                  0x01, 0x7f, 0x80, 0xff, 0x00, 0x80, 0x00, 0x80};
  uint64_t r[7];
  for (int off = 0; off < 8; off += 2) {
    const uint8_t *p = mem + off;
    __asm__ volatile("lb %0, 0(%1)" : "=r"(r[0]) : "r"(p));
    __asm__ volatile("lbu %0, 1(%1)" : "=r"(r[1]) : "r"(p));
    __asm__ volatile("lh %0, 0(%1)" : "=r"(r[2]) : "r"(p));
    __asm__ volatile("lhu %0, 0(%1)" : "=r"(r[3]) : "r"(p));
    r[4] = r[5] = r[6] = 0;
    if (off % 4 == 0) {
      __asm__ volatile("lw %0, 0(%1)" : "=r"(r[4]) : "r"(p));
      __asm__ volatile("lwu %0, 4(%1)" : "=r"(r[5]) : "r"(p));
    }
    if (off == 0) __asm__ volatile("ld %0, 8(%1)" : "=r"(r[6]) : "r"(p));
    du_str("load ");
    for (int i = 0; i < 7; i++) {
      du_hex(r[i]);
      du_putc(' ');
    }
    du_nl();
  }
  /* stores of every width into a buffer, then read back as one word */
  uint64_t buf[2] = {0, 0};
  uint64_t v = 0x1122334455667788ULL;
  __asm__ volatile("sb %1, 0(%0)\n\tsh %1, 2(%0)\n\tsw %1, 4(%0)\n\tsd %1, 8(%0)"
                   :
                   : "r"(buf), "r"(v)
                   : "memory");
  du_str("store ");
  du_hex(buf[0]);
  du_putc(' ');
  du_hex(buf[1]);
  du_nl();
}

int main(int argc, char **argv) {
  size_t step = argc > 1 ? strtoul(argv[1], NULL, 10) : 1;
  if (step < 1) step = 1;
  for (size_t k = 0; k < sizeof rr_ops / sizeof rr_ops[0]; k++) {
    du_str(rr_ops[k].name);
    du_nl();
    for (size_t i = 0; i < NV; i += step) {
      for (size_t j = 0; j < NV; j += step) {
        du_hex(rr_ops[k].fn(vals[i], vals[j]));
        du_putc(' ');
      }
      du_nl();
    }
  }
  for (size_t i = 0; i < NV; i += step) immediates(vals[i]);
  loads();
  uint64_t lui, pc1, pc2;
  __asm__ volatile("lui %0, 0xfffff" : "=r"(lui));
  __asm__ volatile("auipc %0, 0\n\tauipc %1, 1" : "=r"(pc1), "=r"(pc2));
  du_str("lui ");
  du_hex(lui);
  du_str(" auipc delta ");
  du_hex(pc2 - pc1);
  du_nl();
  du_flush();
  return 0;
}
