/* test_rv64_exec.c: the RV64 interpreter on hand-assembled programs.
 *
 * Each program is a list of instruction words (encoded by the helpers in
 * test_rv64_util.h from the ISA manual's formats) in a minimal ELF, ending in
 * ebreak; the test inspects the hart afterwards. Expected values come from
 * the ISA manual's definitions (e.g. its table of division by zero and
 * overflow results), not from the emulator. */
#include <criterion/criterion.h>
#include <signal.h>

#include "rv.h"
#include "rv_internal.h"
#include "test_rv64_util.h"

enum { ZERO, RA, SP, GP, TP, T0, T1, T2, S0, S1, A0, A1, A2, A3, A4, A5, A6, A7 };

static rv_proc *load_words(const uint32_t *w, size_t n, const void *data, size_t dlen) {
  char path[128];
  t_tmp(path, sizeof path, "exec.elf");
  cr_assert_eq(t_elf_words(path, w, n, data, dlen), 0);
  rv_proc *p;
  ic_err err;
  char *argv[] = {path, NULL};
  ic_status st = rv_proc_load(&p, path, 1, argv, NULL, &err);
  unlink(path);
  cr_assert_eq(st, IC_OK, "load: %s", err.msg);
  return p;
}

/* Runs to the final ebreak; checks that it stopped there. */
static rv_proc *run_words(const uint32_t *w, size_t n) {
  rv_proc *p = load_words(w, n, NULL, 0);
  rv_proc_skip(p, 100000);
  const char *why;
  cr_assert_eq(rv_proc_state(p, NULL, &why), RV_FAULT);
  cr_assert(strstr(why, "ebreak"), "stopped for another reason: %s", why);
  cr_assert_eq(p->pc, T_CODE_VA + 4 * (n - 1), "stopped at 0x%llx", (unsigned long long)p->pc);
  return p;
}

static uint32_t op_rr(uint32_t f7, uint32_t f3, uint32_t opc, int rd, int rs1, int rs2) {
  return enc_r(f7, (uint32_t)rs2, (uint32_t)rs1, f3, (uint32_t)rd, opc);
}
#define DIV(rd, a, b) op_rr(1, 4, 0x33, rd, a, b)
#define DIVU(rd, a, b) op_rr(1, 5, 0x33, rd, a, b)
#define REM(rd, a, b) op_rr(1, 6, 0x33, rd, a, b)
#define REMU(rd, a, b) op_rr(1, 7, 0x33, rd, a, b)
#define DIVW(rd, a, b) op_rr(1, 4, 0x3b, rd, a, b)
#define DIVUW(rd, a, b) op_rr(1, 5, 0x3b, rd, a, b)
#define REMW(rd, a, b) op_rr(1, 6, 0x3b, rd, a, b)
#define REMUW(rd, a, b) op_rr(1, 7, 0x3b, rd, a, b)
#define MULH(rd, a, b) op_rr(1, 1, 0x33, rd, a, b)
#define MULHSU(rd, a, b) op_rr(1, 2, 0x33, rd, a, b)
#define MULHU(rd, a, b) op_rr(1, 3, 0x33, rd, a, b)
#define SLLI(rd, a, sh) enc_i((sh), (a), 1, (rd), 0x13)
#define SRAI(rd, a, sh) enc_i(0x400 | (sh), (a), 5, (rd), 0x13)
#define SRLIW(rd, a, sh) enc_i((sh), (a), 5, (rd), 0x1b)
#define SRAIW(rd, a, sh) enc_i(0x400 | (sh), (a), 5, (rd), 0x1b)
#define ADDIW(rd, a, imm) enc_i((imm), (a), 0, (rd), 0x1b)
#define LUI(rd, imm20) enc_u((imm20), (rd), 0x37)
#define AUIPC(rd, imm20) enc_u((imm20), (rd), 0x17)
#define LD(rd, rs1, imm) enc_i((imm), (rs1), 3, (rd), 0x03)
#define LW(rd, rs1, imm) enc_i((imm), (rs1), 2, (rd), 0x03)
#define LBU(rd, rs1, imm) enc_i((imm), (rs1), 4, (rd), 0x03)
#define SD(rs2, rs1, imm) enc_s((imm), (rs2), (rs1), 3, 0x23)
#define JALR(rd, rs1, imm) enc_i((imm), (rs1), 0, (rd), 0x67)
#define AMO(f5, f3, rd, rs1, rs2) enc_r((uint32_t)(f5) << 2, (rs2), (rs1), (f3), (rd), 0x2f)

Test(rv64_exec, division_by_zero_and_overflow_follow_the_manual) {
  const uint32_t w[] = {
      LI(A0, 7),  LI(A1, 0), LI(T0, -1), SLLI(T1, T0, 63), /* t1 = INT64_MIN */
      DIV(S0, A0, A1), DIVU(S1, A0, A1), REM(A2, A0, A1), REMU(A3, A0, A1),
      DIV(A4, T1, T0), REM(A5, T1, T0),
      LUI(T2, 0x80000),                              /* t2 = sext(0x80000000) */
      DIVW(A6, T2, T0), REMW(A7, T2, T0), DIVUW(S1 + 9, A0, A1), REMUW(S1 + 10, A0, A1),
      DIVW(S1 + 11, A0, A1),
      EBREAK};
  rv_proc *p = run_words(w, sizeof w / sizeof w[0]);
  cr_assert_eq(p->x[S0], UINT64_MAX);       /* x/0 = -1 */
  cr_assert_eq(p->x[S1], UINT64_MAX);       /* divu x/0 = 2^64-1 */
  cr_assert_eq(p->x[A2], 7);                /* rem x/0 = x */
  cr_assert_eq(p->x[A3], 7);
  cr_assert_eq(p->x[A4], 1ull << 63);       /* overflow: -2^63 */
  cr_assert_eq(p->x[A5], 0);
  cr_assert_eq(p->x[T2], 0xffffffff80000000ull); /* lui sign-extends */
  cr_assert_eq(p->x[A6], 0xffffffff80000000ull);
  cr_assert_eq(p->x[A7], 0);
  cr_assert_eq(p->x[18], UINT64_MAX);       /* divuw x/0 = sext(2^32-1) */
  cr_assert_eq(p->x[19], 7);
  cr_assert_eq(p->x[20], UINT64_MAX);
  rv_proc_destroy(p);
}

Test(rv64_exec, word_ops_sign_extend_and_high_multiplies) {
  const uint32_t w[] = {
      LUI(A0, 0x80000),       /* a0 = 0xffffffff80000000 */
      ADDIW(A1, A0, -1),      /* 0x7fffffff */
      SRLIW(A2, A0, 4),       /* 0x08000000 */
      SRAIW(A3, A0, 4),       /* 0xfffffffff8000000 */
      LI(T0, -1),
      MULH(A4, T0, T0),       /* (-1)(-1) = 1: high 0 */
      MULHU(A5, T0, T0),      /* (2^64-1)^2 = 2^128 - 2^65 + 1: high 2^64-2 */
      MULHSU(A6, T0, T0),     /* -1 * (2^64-1): high -1 */
      SRAI(A7, A0, 63),       /* -1 */
      AUIPC(S0, 1),           /* pc + 0x1000 */
      EBREAK};
  rv_proc *p = run_words(w, sizeof w / sizeof w[0]);
  cr_assert_eq(p->x[A1], 0x7fffffffull);
  cr_assert_eq(p->x[A2], 0x08000000ull);
  cr_assert_eq(p->x[A3], 0xfffffffff8000000ull);
  cr_assert_eq(p->x[A4], 0);
  cr_assert_eq(p->x[A5], UINT64_MAX - 1);
  cr_assert_eq(p->x[A6], UINT64_MAX);
  cr_assert_eq(p->x[A7], UINT64_MAX);
  cr_assert_eq(p->x[S0], T_CODE_VA + 9 * 4 + 0x1000);
  cr_assert_eq(p->x[0], 0);
  rv_proc_destroy(p);
}

Test(rv64_exec, writes_to_x0_are_dropped) {
  const uint32_t w[] = {LI(ZERO, 5), LUI(ZERO, 7), ADDI(A0, ZERO, 3), EBREAK};
  rv_proc *p = run_words(w, 4);
  cr_assert_eq(p->x[0], 0);
  cr_assert_eq(p->x[A0], 3);
  rv_proc_destroy(p);
}

Test(rv64_exec, lr_sc_and_amos) {
  const uint64_t data[2] = {100, 0x1122334455667788ull};
  const uint32_t w[] = {
      LUI(A0, 0x20),                 /* a0 = 0x20000 (data) */
      LI(A1, 5),
      AMO(0x00, 3, A2, A0, A1),      /* amoadd.d a2, a1, (a0): a2 = 100, mem = 105 */
      AMO(0x02, 3, A3, A0, 0),       /* lr.d a3, (a0) = 105 */
      LI(T0, 42),
      AMO(0x03, 3, A4, A0, T0),      /* sc.d a4, t0, (a0): success 0, mem = 42 */
      AMO(0x03, 3, A5, A0, T0),      /* again without reservation: 1 */
      LD(A6, A0, 0),                 /* 42 */
      LI(T1, -1),
      AMO(0x18, 2, A7, A0, T1),      /* amominu.w a7, t1, (a0): old 42, min 42 */
      AMO(0x10, 2, S0, A0, T1),      /* amomin.w s0, t1, (a0): old 42, new -1 */
      LW(S1, A0, 0),                 /* -1 sign-extended */
      LD(T2, A0, 8),
      EBREAK};
  rv_proc *p = load_words(w, sizeof w / sizeof w[0], data, sizeof data);
  rv_proc_skip(p, 1000);
  const char *why;
  cr_assert_eq(rv_proc_state(p, NULL, &why), RV_FAULT);
  cr_assert(strstr(why, "ebreak"), "%s", why);
  cr_assert_eq(p->x[A2], 100);
  cr_assert_eq(p->x[A3], 105);
  cr_assert_eq(p->x[A4], 0);
  cr_assert_eq(p->x[A5], 1);
  cr_assert_eq(p->x[A6], 42);
  cr_assert_eq(p->x[A7], 42);
  cr_assert_eq(p->x[S0], 42);
  cr_assert_eq(p->x[S1], UINT64_MAX);
  cr_assert_eq(p->x[T2], 0x1122334455667788ull);
  rv_proc_destroy(p);
}

Test(rv64_exec, misaligned_amo_faults_but_misaligned_load_works) {
  const uint64_t data[2] = {0x0807060504030201ull, 0x100f0e0d0c0b0a09ull};
  const uint32_t w[] = {LUI(A0, 0x20), LD(A1, A0, 3), ADDI(A4, A0, 4),
                        AMO(0x00, 3, A3, A4, A2), /* amoadd.d a3, a2, (a4): misaligned */
                        EBREAK};
  rv_proc *p = load_words(w, 5, data, sizeof data);
  rv_proc_skip(p, 1000);
  const char *why;
  cr_assert_eq(rv_proc_state(p, NULL, &why), RV_FAULT);
  cr_assert(strstr(why, "misaligned atomic"), "%s", why);
  cr_assert(strstr(why, "fault at pc 0x1000c"), "%s", why);
  cr_assert_eq(p->x[A1], 0x0b0a090807060504ull);
  cr_assert_eq(rv_proc_icount(p), 3);
  rv_proc_destroy(p);
}

/* Runs the words; the fault message must contain msg, and the guest ends
   by signal sig as under Linux. */
static void expect_fault_sig(const uint32_t *w, size_t n, const char *msg, int sig) {
  rv_proc *p = load_words(w, n, NULL, 0);
  const char *why = "";
  rv_proc_skip(p, 100);
  cr_assert_eq(rv_proc_state(p, NULL, &why), RV_FAULT);
  cr_assert(strstr(why, msg), "%s", why);
  int self = -1;
  cr_assert_eq(rv_proc_signal(p, &self), sig, "%s", why);
  cr_assert_eq(self, 0);
  rv_proc_destroy(p);
}
#define expect_fault(w, n, msg) expect_fault_sig(w, n, msg, SIGSEGV)

/* An unsupported system call returns -ENOSYS (-38) and the program goes on
   to the ebreak after it; the calls are counted by number. */
static void expect_nosys(const uint32_t *w, size_t n, const char *summary) {
  rv_proc *p = load_words(w, n, NULL, 0);
  const char *why = "";
  rv_proc_skip(p, 100);
  cr_assert_eq(rv_proc_state(p, NULL, &why), RV_FAULT);
  cr_assert(strstr(why, "ebreak"), "%s", why);
  cr_assert_eq(rv_proc_signal(p, NULL), SIGTRAP);
  cr_assert_eq((int64_t)p->x[A0], -38);
  char buf[300];
  cr_assert_eq(rv_proc_nosys_summary(p, buf, sizeof buf), 1);
  cr_assert_str_eq(buf, summary);
  rv_proc_destroy(p);
}

Test(rv64_exec, faults_name_pc_reason_and_bytes) {
  const uint32_t bad_load[] = {LI(A0, 64), LD(A1, A0, 0), EBREAK};
  rv_proc *p = load_words(bad_load, 3, NULL, 0);
  cr_assert_eq(rv_proc_skip(p, 100), 1);
  const char *why;
  cr_assert_eq(rv_proc_state(p, NULL, &why), RV_FAULT);
  cr_assert(strstr(why, "fault at pc 0x10004: load from unmapped address 0x40 (bytes 83 35 05 00)"),
            "%s", why);
  rv_proc_destroy(p);

  const uint32_t store_ro[] = {LUI(A0, 0x10), SD(A0, A0, 0), EBREAK};
  expect_fault(store_ro, 3, "store to protected address 0x10000");

  const uint32_t illegal[] = {LI(A0, 1), 0xffffffffu, EBREAK};
  p = load_words(illegal, 3, NULL, 0);
  rv_proc_skip(p, 100);
  rv_proc_state(p, NULL, &why);
  cr_assert(strstr(why, "fault at pc 0x10004: illegal instruction (bytes ff ff ff ff)"), "%s", why);
  cr_assert_eq(rv_proc_signal(p, NULL), SIGILL);
  cr_assert_eq(rv_proc_icount(p), 1);
  rv_proc_destroy(p);

  const uint32_t jump_away[] = {LUI(A0, 0x20), JALR(ZERO, A0, 0), EBREAK};
  expect_fault(jump_away, 3, "instruction fetch from non-executable address 0x20000");
  const uint32_t bad_sys[] = {LI(A7, 1999), ECALL, ECALL, EBREAK};
  expect_nosys(bad_sys, 4, "1999 (2 calls)");
  const uint32_t clone_sys[] = {LI(A7, 220), ECALL, EBREAK};
  expect_nosys(clone_sys, 3, "220 [clone: threads and child processes are not supported] (1 call)");
  const uint32_t brk[] = {LI(A0, 1), EBREAK};
  expect_fault_sig(brk, 2, "fault at pc 0x10004: ebreak", SIGTRAP);
}

Test(rv64_exec, exit_code_and_skip_counts) {
  const uint32_t w[] = {LI(A0, 300), LI(A7, 93), ECALL, EBREAK};
  rv_proc *p = load_words(w, 4, NULL, 0);
  cr_assert_eq(rv_proc_skip(p, 1), 1);
  cr_assert_eq(rv_proc_state(p, NULL, NULL), RV_RUNNING);
  cr_assert_eq(rv_proc_skip(p, 100), 2);
  int code = -1;
  cr_assert_eq(rv_proc_state(p, &code, NULL), RV_EXITED);
  cr_assert_eq(code, 300 & 0xff);
  cr_assert_eq(rv_proc_icount(p), 3);
  cr_assert_eq(rv_proc_skip(p, 100), 0);
  rv_proc_destroy(p);
}

/* Records: op classes from inst.h's rules, registers, memory, next pc. */
Test(rv64_exec, records_describe_each_instruction) {
  const uint32_t w[] = {
      /* 0x10000 */ LUI(A0, 0x20),
      /* 0x10004 */ SD(A0, A0, 8),
      /* 0x10008 */ LD(A1, A0, 8),
      /* 0x1000c */ enc_j(12, RA),           /* call 0x10018 */
      /* 0x10010 */ enc_b(8, A1, A0, 0),     /* beq a0,a1 -> 0x10018: taken */
      /* 0x10014 */ EBREAK,
      /* 0x10018 */ ADDI(A2, A2, 1),
      /* 0x1001c */ enc_b(-8, A2, ZERO, 1),  /* bne zero,a2 -> 0x10014 when a2 != 0 */
      /* 0x10020 */ EBREAK};
  /* Path: lui, sd, ld, jal -> addi (a2=1), bne taken -> ebreak. */
  rv_proc *p = load_words(w, sizeof w / sizeof w[0], NULL, 0);
  ic_inst_source src = rv_proc_source(p);
  ic_inst r[16];
  size_t n = src.fill(src.ctx, r, 16);
  cr_assert_eq(n, 6);
  cr_assert_eq(src.fill(src.ctx, r + n, 16), 0);
  cr_assert_eq(r[0].opclass, IC_OP_INT_ALU);
  cr_assert_eq(r[0].dst[0], A0);
  cr_assert_eq(r[0].src[0], IC_REG_NONE);
  cr_assert_eq(r[1].opclass, IC_OP_STORE);
  cr_assert_eq(r[1].mem_addr, 0x20008);
  cr_assert_eq(r[1].mem_size, 8);
  cr_assert_eq(r[1].dst[0], IC_REG_NONE);
  cr_assert(r[1].src[0] == A0 && r[1].src[1] == A0);
  cr_assert_eq(r[2].opclass, IC_OP_LOAD);
  cr_assert_eq(r[2].dst[0], A1);
  cr_assert_eq(r[2].src[0], A0);
  cr_assert_eq(r[2].mem_addr, 0x20008);
  cr_assert_eq(r[3].opclass, IC_OP_CALL);
  cr_assert_eq(r[3].next_pc, 0x10018);
  cr_assert_eq(r[3].dst[0], RA);
  cr_assert(ic_inst_taken(&r[3]));
  cr_assert_eq(r[4].pc, 0x10018);
  cr_assert_eq(r[4].src[0], A2);
  cr_assert_eq(r[4].dst[0], A2);
  cr_assert_eq(r[5].opclass, IC_OP_BRANCH);
  cr_assert_eq(r[5].next_pc, 0x10014);
  cr_assert_eq(r[5].src[0], A2); /* x0 is never listed */
  cr_assert_eq(r[5].src[1], IC_REG_NONE);
  for (size_t i = 0; i < n; i++) cr_assert_eq(r[i].size, 4);
  rv_proc_destroy(p);
}

Test(rv64_exec, jump_classes) {
  const uint32_t w[] = {
      /* 0x10000 */ enc_j(8, ZERO),          /* j 0x10008: JUMP */
      /* 0x10004 */ EBREAK,
      /* 0x10008 */ AUIPC(A5, 0),            /* a5 = 0x10008 */
      /* 0x1000c */ JALR(T0, A5, 16),        /* call via t0 -> 0x10018: CALL */
      /* 0x10010 */ JALR(ZERO, A5, 24),      /* -> 0x10020: IJUMP */
      /* 0x10014 */ EBREAK,
      /* 0x10018 */ JALR(ZERO, T0, 0),       /* return via t0 -> 0x10010: RETURN */
      /* 0x1001c */ EBREAK,
      /* 0x10020 */ EBREAK};
  rv_proc *p = load_words(w, sizeof w / sizeof w[0], NULL, 0);
  ic_inst_source src = rv_proc_source(p);
  ic_inst r[16];
  size_t n = src.fill(src.ctx, r, 16);
  cr_assert_eq(n, 5);
  cr_assert_eq(r[0].opclass, IC_OP_JUMP);
  cr_assert_eq(r[2].opclass, IC_OP_CALL);
  cr_assert_eq(r[3].opclass, IC_OP_RETURN);
  cr_assert_eq(r[3].next_pc, 0x10010);
  cr_assert_eq(r[4].opclass, IC_OP_IJUMP);
  cr_assert_eq(r[4].next_pc, 0x10020);
  rv_proc_destroy(p);
}

/* The program image decodes the same static facts the records carry. */
Test(rv64_exec, program_image_matches_records) {
  const uint32_t w[] = {LUI(A0, 0x20), enc_j(8, RA), EBREAK, LD(A1, A0, 0), EBREAK};
  rv_proc *p = load_words(w, 5, NULL, 0);
  ic_program_image im = rv_proc_image(p);
  ic_static_inst s;
  cr_assert(im.lookup(im.ctx, 0x10004, &s));
  cr_assert(s.valid);
  cr_assert_eq(s.opclass, IC_OP_CALL);
  cr_assert_eq(s.target, 0x1000c);
  cr_assert_eq(s.raw, w[1]);
  cr_assert(im.lookup(im.ctx, 0x1000c, &s));
  cr_assert_eq(s.opclass, IC_OP_LOAD);
  cr_assert_eq(s.dst[0], A1);
  cr_assert_not(im.lookup(im.ctx, 0x20000, &s)); /* data, not code */
  cr_assert_eq(s.valid, 0);
  cr_assert_not(im.lookup(im.ctx, 0x10001, &s));
  rv_proc_destroy(p);
}

/* A clone continues exactly like the original. */
Test(rv64_exec, clone_is_a_deep_copy) {
  const uint64_t data[1] = {0};
  const uint32_t w[] = {
      LUI(A0, 0x20), LI(A1, 0), LI(A2, 200),
      /* loop at 0x1000c: */ ADDI(A1, A1, 3), SD(A1, A0, 0), ADDI(A2, A2, -1),
      enc_b(-12, ZERO, A2, 1), /* bne a2, zero, loop */
      LD(A0, A0, 0), LI(A7, 93), ECALL};
  rv_proc *p = load_words(w, sizeof w / sizeof w[0], data, sizeof data);
  rv_proc_skip(p, 50);
  rv_proc *q = rv_proc_clone(p);
  cr_assert_not_null(q);
  rv_proc_skip(p, 1000000);
  cr_assert_eq(rv_proc_icount(q), 50);
  rv_proc_skip(q, 1000000);
  int c1, c2;
  cr_assert_eq(rv_proc_state(p, &c1, NULL), RV_EXITED);
  cr_assert_eq(rv_proc_state(q, &c2, NULL), RV_EXITED);
  cr_assert_eq(c1, (600) & 0xff);
  cr_assert_eq(c1, c2);
  cr_assert_eq(rv_proc_icount(p), rv_proc_icount(q));
  rv_proc_destroy(p);
  rv_proc_destroy(q);
}

/* Self-modifying code: a store over an instruction that already ran (and
   sits pre-decoded) takes effect for the next execution. */
Test(rv64_exec, stores_to_code_drop_stale_decodes) {
  const uint32_t code[] = {
      /* 0x10000 */ LI(A1, 0),
      /* 0x10004 */ ADDI(A1, A1, 1),            /* overwritten by the word at 0x1002c */
      /* 0x10008 */ enc_b(0x20, ZERO, A2, 1),   /* bne a2,zero -> 0x10028 */
      /* 0x1000c */ AUIPC(A3, 0),               /* a3 = 0x1000c */
      /* 0x10010 */ LW(A4, A3, 0x20),           /* a4 = word at 0x1002c */
      /* 0x10014 */ enc_s(-8, A4, A3, 2, 0x23), /* sw a4, -8(a3): to 0x10004 */
      /* 0x10018 */ LI(A2, 1),
      /* 0x1001c */ 0x0000100fu,                /* fence.i */
      /* 0x10020 */ enc_j(-0x1c, ZERO),         /* j 0x10004 */
      /* 0x10024 */ EBREAK,
      /* 0x10028 */ EBREAK,
      /* 0x1002c */ ADDI(A1, A1, 100)};
  size_t len;
  uint8_t *img = t_elf_image(code, sizeof code, NULL, 0, &len);
  put32(img + 64 + 4, 7); /* make the code segment rwx */
  char path[128];
  t_tmp(path, sizeof path, "smc.elf");
  cr_assert_eq(t_write_file(path, img, len), 0);
  free(img);
  rv_proc *p;
  ic_err err;
  char *argv[] = {path, NULL};
  cr_assert_eq(rv_proc_load(&p, path, 1, argv, NULL, &err), IC_OK, "%s", err.msg);
  unlink(path);
  rv_proc_skip(p, 100);
  const char *why;
  cr_assert_eq(rv_proc_state(p, NULL, &why), RV_FAULT);
  cr_assert(strstr(why, "pc 0x10028"), "%s", why);
  cr_assert_eq(p->x[A1], 101); /* 1 from the first pass, 100 from the patched one */
  rv_proc_destroy(p);
}

/* Compressed instructions decode to the same operation as their 32-bit
   expansion; the cross assembler is the independent oracle. */
Test(rv64_exec, compressed_matches_expansion) {
  if (!t_have("riscv64-linux-gnu-as") || !t_have("riscv64-linux-gnu-objcopy")) {
    cr_skip_test("riscv64-linux-gnu binutils not installed");
  }
  static const char *const pairs[][2] = {
      {"c.addi4spn a0,sp,16", "addi a0,sp,16"}, {"c.fld fa0,8(a1)", "fld fa0,8(a1)"},
      {"c.lw a2,4(a3)", "lw a2,4(a3)"},         {"c.ld a4,248(a5)", "ld a4,248(a5)"},
      {"c.fsd fa1,16(s0)", "fsd fa1,16(s0)"},   {"c.sw s1,124(a0)", "sw s1,124(a0)"},
      {"c.sd a1,8(a2)", "sd a1,8(a2)"},         {"c.nop", "addi zero,zero,0"},
      {"c.addi a0,-3", "addi a0,a0,-3"},        {"c.addiw a1,31", "addiw a1,a1,31"},
      {"c.li t0,-32", "addi t0,zero,-32"},      {"c.addi16sp sp,-512", "addi sp,sp,-512"},
      {"c.lui a3,0xfffe1", "lui a3,0xfffe1"},   {"c.srli a0,63", "srli a0,a0,63"},
      {"c.srai a1,1", "srai a1,a1,1"},          {"c.andi a2,-1", "andi a2,a2,-1"},
      {"c.sub s0,s1", "sub s0,s0,s1"},          {"c.xor a0,a1", "xor a0,a0,a1"},
      {"c.or a2,a3", "or a2,a2,a3"},            {"c.and a4,a5", "and a4,a4,a5"},
      {"c.subw a0,a5", "subw a0,a0,a5"},        {"c.addw s1,a0", "addw s1,s1,a0"},
      {"c.j .+2046", "jal zero,.+2046"},        {"c.j .-2048", "jal zero,.-2048"},
      {"c.beqz a0,.+254", "beq a0,zero,.+254"}, {"c.bnez s1,.-256", "bne s1,zero,.-256"},
      {"c.slli a0,63", "slli a0,a0,63"},        {"c.fldsp fs0,504(sp)", "fld fs0,504(sp)"},
      {"c.lwsp ra,252(sp)", "lw ra,252(sp)"},   {"c.ldsp t6,8(sp)", "ld t6,8(sp)"},
      {"c.jr a0", "jalr zero,0(a0)"},           {"c.mv a0,a1", "add a0,zero,a1"},
      {"c.ebreak", "ebreak"},                   {"c.jalr t1", "jalr ra,0(t1)"},
      {"c.add a0,a1", "add a0,a0,a1"},          {"c.fsdsp fs1,504(sp)", "fsd fs1,504(sp)"},
      {"c.swsp a0,252(sp)", "sw a0,252(sp)"},   {"c.sdsp s11,0(sp)", "sd s11,0(sp)"},
  };
  size_t np = sizeof pairs / sizeof pairs[0];
  char s_path[128], o_path[128], b_path[128], cmd[1024];
  t_tmp(s_path, sizeof s_path, "c.s");
  t_tmp(o_path, sizeof o_path, "c.o");
  t_tmp(b_path, sizeof b_path, "c.bin");
  FILE *f = fopen(s_path, "w");
  cr_assert_not_null(f);
  /* Each pair: the compressed form (2 bytes) then the expansion (4 bytes),
     with pc-relative targets written relative to the compressed one. */
  for (size_t i = 0; i < np; i++) {
    char exp[64];
    snprintf(exp, sizeof exp, "%s", pairs[i][1]);
    char *dot = strstr(exp, ".+"), *dotm = strstr(exp, ".-");
    fprintf(f, ".option rvc\n1: %s\n.option norvc\n", pairs[i][0]);
    if (dot || dotm) {
      char *d = dot ? dot : dotm;
      long off = strtol(d + 1, NULL, 0);
      *d = 0;
      fprintf(f, "%s1b%+ld\n", exp, off);
    } else {
      fprintf(f, "%s\n", exp);
    }
  }
  fclose(f);
  snprintf(cmd, sizeof cmd,
           "riscv64-linux-gnu-as -march=rv64gc -o %s %s && riscv64-linux-gnu-objcopy -O binary "
           "-j .text %s %s",
           o_path, s_path, o_path, b_path);
  int rc = system(cmd);
  unlink(s_path);
  unlink(o_path);
  cr_assert_eq(rc, 0, "assembling failed");
  FILE *b = fopen(b_path, "rb");
  uint8_t buf[6 * 64];
  size_t got = fread(buf, 1, sizeof buf, b);
  fclose(b);
  unlink(b_path);
  cr_assert_eq(got, 6 * np);
  for (size_t i = 0; i < np; i++) {
    uint16_t c;
    uint32_t e;
    memcpy(&c, buf + 6 * i, 2);
    memcpy(&e, buf + 6 * i + 2, 4);
    rv_dinst dc, de;
    uint64_t pc = 0x10000 + 6 * i;
    rv_decode(c, pc, &dc);
    rv_decode(e, pc, &de);
    cr_assert_eq(dc.size, 2, "%s", pairs[i][0]);
    cr_assert_neq(dc.op, RV_OP_ILLEGAL, "%s decoded as illegal", pairs[i][0]);
    cr_assert_eq(dc.op, de.op, "%s: op %s vs %s", pairs[i][0], rv_opinfo_table[dc.op].mnemonic,
                 rv_opinfo_table[de.op].mnemonic);
    cr_assert(dc.rd == de.rd && dc.rs1 == de.rs1 && dc.rs2 == de.rs2, "%s: registers", pairs[i][0]);
    /* a branch/jump expansion sits 2 bytes later: same target, offset - 2 */
    int64_t adj = (de.op == RV_OP_JAL || rv_opinfo_table[de.op].opclass == IC_OP_BRANCH) ? 2 : 0;
    cr_assert_eq(dc.imm, de.imm + adj, "%s: imm %lld vs %lld", pairs[i][0], (long long)dc.imm,
                 (long long)de.imm);
  }
}

/* Reserved compressed encodings are illegal. */
Test(rv64_exec, reserved_compressed_encodings_are_illegal) {
  static const uint16_t bad[] = {
      0x0000, /* all zeros (c.addi4spn with imm 0) */
      0x6101, /* c.addi16sp with imm 0 */
      0x6501, /* c.lui a0,0 */
      0x8002, /* c.jr x0 */
      0x4002, /* c.lwsp x0 */
      0x2001, /* c.addiw x0 */
      0x9c41 | 0x40, /* c.subw-space reserved (funct2 10 with bit12) */
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    rv_dinst d;
    rv_decode(bad[i], 0x10000, &d);
    cr_assert_eq(d.op, RV_OP_ILLEGAL, "0x%04x decoded as %s", bad[i],
                 rv_opinfo_table[d.op].mnemonic);
  }
}

/* Disassembly of words whose text comes from riscv64 objdump -M no-aliases. */
Test(rv64_exec, disassembly) {
  static const struct {
    uint32_t raw;
    const char *text;
  } cases[] = {
      {0x00150513, "addi a0,a0,1"},        {0x02c59553, "fadd.d fa0,fa1,fa2,rtz"},
      {0x02c5f553, "fadd.d fa0,fa1,fa2"},  {0xc2051553, "fcvt.w.d a0,fa0,rtz"},
      {0x008780e7, "jalr ra,8(a5)"},       {0x00102573, "csrrs a0,fflags,zero"},
      {0x1005b52f, "lr.d a0,(a1)"},        {0x18c5b52f, "sc.d a0,a2,(a1)"},
      {0x68c5f543, "fmadd.s fa0,fa1,fa2,fa3"}, {0xff813503, "ld a0,-8(sp)"},
      {0x00a13827, "fsd fa0,16(sp)"},      {0x0000100f, "fence.i"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char buf[64];
    rv_disasm(cases[i].raw, 0x1000, buf, sizeof buf);
    cr_assert_str_eq(buf, cases[i].text);
  }
  char buf[64];
  rv_disasm(0x00b50863, 0x14, buf, sizeof buf); /* objdump: beq a0,a1,24 */
  cr_assert_str_eq(buf, "beq a0,a1,0x24");
  rv_disasm(0x556d, 0, buf, sizeof buf);        /* c.li a0,-5 */
  cr_assert_str_eq(buf, "addi a0,zero,-5");
  char tiny[4];
  rv_disasm(0x00150513, 0, tiny, sizeof tiny);  /* truncates, never overflows */
  cr_assert_str_eq(tiny, "add");
}

/* Any 32-bit word decodes and disassembles without trouble; a decoded
   instruction's record fields are in range. */
Test(rv64_exec, random_words_decode_safely) {
  uint64_t s = 99;
  for (int i = 0; i < 200000; i++) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    uint32_t w = (uint32_t)(s >> 32);
    rv_dinst d;
    rv_decode(w, 0x10000, &d);
    cr_assert_lt(d.op, RV_OP_COUNT);
    cr_assert(d.size == 2 || d.size == 4);
    cr_assert_eq(d.size, (w & 3) == 3 ? 4 : 2);
    cr_assert_lt(d.opclass, IC_OP_COUNT);
    for (int k = 0; k < IC_MAX_SRC; k++)
      cr_assert(d.src[k] == IC_REG_NONE || (d.src[k] > 0 && d.src[k] < IC_REG_COUNT));
    cr_assert(d.dst[0] == IC_REG_NONE || (d.dst[0] > 0 && d.dst[0] < IC_REG_COUNT));
    char buf[64];
    rv_disasm(w, 0x10000, buf, sizeof buf);
    cr_assert_gt(strlen(buf), 2);
  }
}
