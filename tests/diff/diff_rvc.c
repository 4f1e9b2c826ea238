/* diff_rvc.c: the compressed (C) instructions written out explicitly, so
 * that every form is decoded at least once whatever the compiler picks:
 * c.li c.lui c.addi c.addiw c.addi16sp c.addi4spn c.slli c.srli c.srai c.andi
 * c.mv c.add c.sub c.xor c.or c.and c.subw c.addw, loads and stores (c.lw
 * c.ld c.sw c.sd c.fld c.fsd and the sp-relative forms), c.j c.beqz c.bnez
 * c.jr c.jalr. Results are printed as hex. */
#include "diff_util.h"

static const uint64_t vals[] = {0, 1, 0xffffffffffffffffULL, 0x8000000000000000ULL,
                                0x7fffffff80000001ULL, 0x123456789abcdef0ULL};
#define NV (sizeof vals / sizeof vals[0])

static void alu(uint64_t a, uint64_t b) {
  uint64_t r[20];
  /* a in s0 (x8), b in s1 (x9): the registers the 3-bit fields reach */
  __asm__ volatile(
      ".option push\n\t.option rvc\n\t"
      "mv s0, %[a]\n\tmv s1, %[b]\n\t"
      "c.li a0, -32\n\tmv %[r0], a0\n\t"
      "c.lui a0, 0xfffe1\n\tmv %[r1], a0\n\t"
      "mv a0, s0\n\tc.addi a0, -17\n\tmv %[r2], a0\n\t"
      "mv a0, s0\n\tc.addiw a0, 31\n\tmv %[r3], a0\n\t"
      "mv a0, s0\n\tc.slli a0, 63\n\tmv %[r4], a0\n\t"
      "mv a0, s0\n\tc.srli a0, 1\n\tmv %[r5], a0\n\t"
      "mv a0, s0\n\tc.srai a0, 33\n\tmv %[r6], a0\n\t"
      "mv a0, s0\n\tc.andi a0, -3\n\tmv %[r7], a0\n\t"
      "c.mv a0, s1\n\tmv %[r8], a0\n\t"
      "mv a0, s0\n\tc.add a0, s1\n\tmv %[r9], a0\n\t"
      "mv a0, s0\n\tc.sub a0, s1\n\tmv %[r10], a0\n\t"
      "mv a0, s0\n\tc.xor a0, s1\n\tmv %[r11], a0\n\t"
      "mv a0, s0\n\tc.or a0, s1\n\tmv %[r12], a0\n\t"
      "mv a0, s0\n\tc.and a0, s1\n\tmv %[r13], a0\n\t"
      "mv a0, s0\n\tc.subw a0, s1\n\tmv %[r14], a0\n\t"
      "mv a0, s0\n\tc.addw a0, s1\n\tmv %[r15], a0\n\t"
      "mv a0, s0\n\tc.slli a0, 1\n\tmv %[r16], a0\n\t"
      "c.li a0, 31\n\tmv %[r17], a0\n\t"
      "mv a0, s0\n\tc.srai a0, 63\n\tmv %[r18], a0\n\t"
      "mv a0, s0\n\tc.srli a0, 63\n\tmv %[r19], a0\n\t"
      ".option pop"
      : [r0] "=&r"(r[0]), [r1] "=&r"(r[1]), [r2] "=&r"(r[2]), [r3] "=&r"(r[3]),
        [r4] "=&r"(r[4]), [r5] "=&r"(r[5]), [r6] "=&r"(r[6]), [r7] "=&r"(r[7]),
        [r8] "=&r"(r[8]), [r9] "=&r"(r[9]), [r10] "=&r"(r[10]), [r11] "=&r"(r[11]),
        [r12] "=&r"(r[12]), [r13] "=&r"(r[13]), [r14] "=&r"(r[14]), [r15] "=&r"(r[15]),
        [r16] "=&r"(r[16]), [r17] "=&r"(r[17]), [r18] "=&r"(r[18]), [r19] "=&r"(r[19])
      : [a] "r"(a), [b] "r"(b)
      : "s0", "s1", "a0");
  for (int i = 0; i < 20; i++) {
    du_hex(r[i]);
    du_putc(i + 1 < 20 ? ' ' : '\n');
  }
}

static void memory(void) {
  uint64_t buf[8] = {0x1111111122222222ULL, 0x3333333344444444ULL, 0xfedcba9876543210ULL, 0, 0,
                     0, 0, 0};
  uint64_t r[8];
  __asm__ volatile(
      ".option push\n\t.option rvc\n\t"
      "mv s0, %[p]\n\t"
      "c.lw a0, 4(s0)\n\tmv %[r0], a0\n\t"
      "c.ld a1, 16(s0)\n\tmv %[r1], a1\n\t"
      "c.sw a1, 24(s0)\n\t"
      "c.sd a1, 32(s0)\n\t"
      "c.fld fa0, 0(s0)\n\t"
      "c.fsd fa0, 40(s0)\n\t"
      "c.ld a0, 24(s0)\n\tmv %[r2], a0\n\t"
      "c.ld a0, 40(s0)\n\tmv %[r3], a0\n\t"
      /* sp-relative forms on a frame of our own */
      "c.addi16sp sp, -64\n\t"
      "c.sdsp a1, 8(sp)\n\t"
      "c.swsp a0, 16(sp)\n\t"
      "c.fsdsp fa0, 24(sp)\n\t"
      "c.ldsp a0, 8(sp)\n\tmv %[r4], a0\n\t"
      "c.lwsp a0, 16(sp)\n\tmv %[r5], a0\n\t"
      "c.fldsp fa1, 24(sp)\n\tfmv.x.d %[r6], fa1\n\t"
      "c.addi4spn a0, sp, 24\n\tsub %[r7], a0, sp\n\t"
      "c.addi16sp sp, 64\n\t"
      ".option pop"
      : [r0] "=&r"(r[0]), [r1] "=&r"(r[1]), [r2] "=&r"(r[2]), [r3] "=&r"(r[3]),
        [r4] "=&r"(r[4]), [r5] "=&r"(r[5]), [r6] "=&r"(r[6]), [r7] "=&r"(r[7])
      : [p] "r"(buf)
      : "s0", "a0", "a1", "fa0", "fa1", "memory");
  du_str("mem");
  for (int i = 0; i < 8; i++) {
    du_putc(' ');
    du_hex(r[i]);
  }
  du_nl();
}

/* control flow: counts how often each compressed branch is taken */
static uint64_t branches(uint64_t n) {
  uint64_t taken = 0;
  __asm__ volatile(
      ".option push\n\t.option rvc\n\t"
      "mv s0, %[n]\n\t"
      "li s1, 0\n\t"
      "1:\n\t"
      "c.beqz s0, 3f\n\t"
      "andi a0, s0, 1\n\t"
      "c.bnez a0, 2f\n\t"
      "c.addi s1, 1\n\t"
      "2:\n\t"
      "c.addi s0, -1\n\t"
      "c.j 1b\n\t"
      "3:\n\t"
      "mv %[t], s1\n\t"
      ".option pop"
      : [t] "=r"(taken)
      : [n] "r"(n)
      : "s0", "s1", "a0");
  return taken;
}

__attribute__((noinline)) static uint64_t leaf(uint64_t x) { return x * 3 + 1; }

static uint64_t indirect(uint64_t x) {
  uint64_t r;
  uint64_t (*volatile fn)(uint64_t) = leaf;
  /* c.jalr through a register, and the callee returns with c.jr ra */
  __asm__ volatile(".option push\n\t.option rvc\n\t"
                   "mv a0, %[x]\n\t"
                   "mv t1, %[f]\n\t"
                   "c.jalr t1\n\t"
                   "mv %[r], a0\n\t"
                   ".option pop"
                   : [r] "=r"(r)
                   : [x] "r"(x), [f] "r"(fn)
                   : "ra", "t1", "a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "t0", "t2",
                     "t3", "t4", "t5", "t6", "memory");
  return r;
}

int main(void) {
  for (size_t i = 0; i < NV; i++)
    for (size_t j = 0; j < NV; j++) alu(vals[i], vals[j]);
  memory();
  du_str("branches ");
  du_hex(branches(1001));
  du_str(" indirect ");
  du_hex(indirect(41));
  du_nl();
  du_flush();
  return 0;
}
