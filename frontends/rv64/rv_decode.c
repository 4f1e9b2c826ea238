/* rv_decode.c: RV64GC instruction decoder and disassembler.
 *
 * 32-bit formats (bit 31 on the left):
 *   R  | funct7 | rs2 | rs1 | f3 | rd | opcode |
 *   R4 | rs3 |fmt| rs2 | rs1 | rm | rd | opcode |
 *   I  |   imm[11:0]  | rs1 | f3 | rd | opcode |
 *   S  | imm[11:5] | rs2 | rs1 | f3 | imm[4:0] | opcode |
 *   B  | imm[12|10:5] | rs2 | rs1 | f3 | imm[4:1|11] | opcode |
 *   U  |      imm[31:12]           | rd | opcode |
 *   J  | imm[20|10:1|11|19:12]     | rd | opcode |
 * A compressed instruction (low two bits != 11) is decoded straight into
 * the operation of its 32-bit expansion, with size 2.
 *
 * The decoder also fills the static part of the instruction's record (op
 * class, source and destination registers, memory size) from the operand
 * format of rv_opinfo_table, so the two cannot drift apart. */
#include <stdio.h>

#include "rv_internal.h"

const rv_opinfo rv_opinfo_table[RV_OP_COUNT] = {
#define RV_X(e, m, f, c) {m, f, IC_OP_##c},
    RV_OP_LIST(RV_X)
#undef RV_X
};

static inline uint32_t bits(uint32_t v, int hi, int lo) {
  return (v >> lo) & ((1u << (hi - lo + 1)) - 1);
}
static inline int64_t sext(uint64_t v, int width) {
  return (int64_t)(v << (64 - width)) >> (64 - width);
}

static void set(rv_dinst *d, rv_op op, unsigned rd, unsigned rs1, unsigned rs2, int64_t imm) {
  d->op = (uint16_t)op;
  d->rd = (uint8_t)rd;
  d->rs1 = (uint8_t)rs1;
  d->rs2 = (uint8_t)rs2;
  d->imm = imm;
}

static int mem_size_of(rv_op op) {
  switch (op) {
  case RV_OP_LB: case RV_OP_LBU: case RV_OP_SB: return 1;
  case RV_OP_LH: case RV_OP_LHU: case RV_OP_SH: return 2;
  case RV_OP_LW: case RV_OP_LWU: case RV_OP_SW: case RV_OP_FLW: case RV_OP_FSW: return 4;
  case RV_OP_LD: case RV_OP_SD: case RV_OP_FLD: case RV_OP_FSD: return 8;
  default:
    if (op >= RV_OP_LR_W && op <= RV_OP_AMOMAXU_W) return 4;
    if (op >= RV_OP_LR_D && op <= RV_OP_AMOMAXU_D) return 8;
    return 0;
  }
}

static int uses_rm(rv_op op) { return strchr(rv_opinfo_table[op].fmt, 'r') != NULL; }

static int is_fcsr_csr(int64_t csr) { return csr >= 1 && csr <= 3; }

/* The record's static part, from the operand format. */
static void fill_static(rv_dinst *d) {
  rv_op op = d->op;
  const char *f = rv_opinfo_table[op].fmt;
  int ns = 0;
  d->src[0] = d->src[1] = d->src[2] = IC_REG_NONE;
  d->dst[0] = IC_REG_NONE;
  for (; *f; f++) {
    int reg = -1, is_dst = 0;
    switch (*f) {
    case 'd': reg = d->rd, is_dst = 1; break;
    case 'D': reg = IC_REG_F0 + d->rd, is_dst = 1; break;
    case 's': case 'o': case 'a': reg = d->rs1; break;
    case 'S': reg = IC_REG_F0 + d->rs1; break;
    case 't': reg = d->rs2; break;
    case 'T': reg = IC_REG_F0 + d->rs2; break;
    case 'R': reg = IC_REG_F0 + d->rs3; break;
    case 'r': if (d->rm == 7) reg = IC_REG_FCSR; break;
    default: break;
    }
    if (reg <= 0) continue; /* x0 is never a dependence */
    if (is_dst) d->dst[0] = (uint8_t)reg;
    else if (ns < IC_MAX_SRC) d->src[ns++] = (uint8_t)reg;
  }
  if (op >= RV_OP_CSRRW && op <= RV_OP_CSRRCI && is_fcsr_csr(d->imm)) {
    if (ns < IC_MAX_SRC) d->src[ns++] = IC_REG_FCSR;
    if (d->rd == 0) d->dst[0] = IC_REG_FCSR;
  }
  d->opclass = rv_opinfo_table[op].opclass;
  if (op == RV_OP_JAL) {
    d->opclass = (d->rd == 1 || d->rd == 5) ? IC_OP_CALL : IC_OP_JUMP;
  } else if (op == RV_OP_JALR) {
    if (d->rd == 1 || d->rd == 5) d->opclass = IC_OP_CALL;
    else if (d->rd == 0 && d->imm == 0 && (d->rs1 == 1 || d->rs1 == 5)) d->opclass = IC_OP_RETURN;
    else d->opclass = IC_OP_IJUMP;
  }
  d->mem_size = (uint8_t)mem_size_of(op);
  d->is_rmw = (op >= RV_OP_SC_W && op <= RV_OP_AMOMAXU_W) ||
              (op >= RV_OP_SC_D && op <= RV_OP_AMOMAXU_D);
}

static void decode32(uint32_t w, rv_dinst *d) {
  unsigned opc = w & 0x7f, rd = bits(w, 11, 7), f3 = bits(w, 14, 12), rs1 = bits(w, 19, 15),
           rs2 = bits(w, 24, 20), f7 = bits(w, 31, 25);
  int64_t iimm = (int32_t)w >> 20;
  int64_t simm = ((int32_t)w >> 25) * 32 + (int64_t)rd;
  int64_t bimm = sext((bits(w, 31, 31) << 12) | (bits(w, 7, 7) << 11) | (bits(w, 30, 25) << 5) |
                          (bits(w, 11, 8) << 1),
                      13);
  int64_t jimm = sext((bits(w, 31, 31) << 20) | (bits(w, 19, 12) << 12) | (bits(w, 20, 20) << 11) |
                          (bits(w, 30, 21) << 1),
                      21);
  int64_t uimm = (int32_t)(w & 0xfffff000u);
  d->rm = (uint8_t)f3;
  d->rs3 = (uint8_t)bits(w, 31, 27);
  switch (opc) {
  case 0x37: set(d, RV_OP_LUI, rd, 0, 0, uimm); return;
  case 0x17: set(d, RV_OP_AUIPC, rd, 0, 0, uimm); return;
  case 0x6f: set(d, RV_OP_JAL, rd, 0, 0, jimm); return;
  case 0x67: if (f3 == 0) set(d, RV_OP_JALR, rd, rs1, 0, iimm); return;
  case 0x63: {
    static const rv_op br[8] = {RV_OP_BEQ, RV_OP_BNE, RV_OP_ILLEGAL, RV_OP_ILLEGAL,
                                RV_OP_BLT, RV_OP_BGE, RV_OP_BLTU, RV_OP_BGEU};
    set(d, br[f3], 0, rs1, rs2, bimm);
    return;
  }
  case 0x03: {
    static const rv_op ld[8] = {RV_OP_LB, RV_OP_LH, RV_OP_LW, RV_OP_LD,
                                RV_OP_LBU, RV_OP_LHU, RV_OP_LWU, RV_OP_ILLEGAL};
    set(d, ld[f3], rd, rs1, 0, iimm);
    return;
  }
  case 0x23: {
    static const rv_op st[8] = {RV_OP_SB, RV_OP_SH, RV_OP_SW, RV_OP_SD};
    if (f3 < 4) set(d, st[f3], 0, rs1, rs2, simm);
    return;
  }
  case 0x13: {
    static const rv_op ar[8] = {RV_OP_ADDI, RV_OP_SLLI, RV_OP_SLTI, RV_OP_SLTIU,
                                RV_OP_XORI, RV_OP_SRLI, RV_OP_ORI, RV_OP_ANDI};
    unsigned f6 = bits(w, 31, 26);
    if (f3 == 1) {
      if (f6 == 0) set(d, RV_OP_SLLI, rd, rs1, 0, bits(w, 25, 20));
    } else if (f3 == 5) {
      if (f6 == 0) set(d, RV_OP_SRLI, rd, rs1, 0, bits(w, 25, 20));
      else if (f6 == 0x10) set(d, RV_OP_SRAI, rd, rs1, 0, bits(w, 25, 20));
    } else {
      set(d, ar[f3], rd, rs1, 0, iimm);
    }
    return;
  }
  case 0x1b:
    if (f3 == 0) set(d, RV_OP_ADDIW, rd, rs1, 0, iimm);
    else if (f3 == 1 && f7 == 0) set(d, RV_OP_SLLIW, rd, rs1, 0, rs2);
    else if (f3 == 5 && f7 == 0) set(d, RV_OP_SRLIW, rd, rs1, 0, rs2);
    else if (f3 == 5 && f7 == 0x20) set(d, RV_OP_SRAIW, rd, rs1, 0, rs2);
    return;
  case 0x33: {
    static const rv_op base[8] = {RV_OP_ADD, RV_OP_SLL, RV_OP_SLT, RV_OP_SLTU,
                                  RV_OP_XOR, RV_OP_SRL, RV_OP_OR, RV_OP_AND};
    static const rv_op mul[8] = {RV_OP_MUL, RV_OP_MULH, RV_OP_MULHSU, RV_OP_MULHU,
                                 RV_OP_DIV, RV_OP_DIVU, RV_OP_REM, RV_OP_REMU};
    if (f7 == 0) set(d, base[f3], rd, rs1, rs2, 0);
    else if (f7 == 1) set(d, mul[f3], rd, rs1, rs2, 0);
    else if (f7 == 0x20 && f3 == 0) set(d, RV_OP_SUB, rd, rs1, rs2, 0);
    else if (f7 == 0x20 && f3 == 5) set(d, RV_OP_SRA, rd, rs1, rs2, 0);
    return;
  }
  case 0x3b: {
    static const rv_op mul[8] = {RV_OP_MULW, RV_OP_ILLEGAL, RV_OP_ILLEGAL, RV_OP_ILLEGAL,
                                 RV_OP_DIVW, RV_OP_DIVUW, RV_OP_REMW, RV_OP_REMUW};
    if (f7 == 1) set(d, mul[f3], rd, rs1, rs2, 0);
    else if (f7 == 0 && f3 == 0) set(d, RV_OP_ADDW, rd, rs1, rs2, 0);
    else if (f7 == 0 && f3 == 1) set(d, RV_OP_SLLW, rd, rs1, rs2, 0);
    else if (f7 == 0 && f3 == 5) set(d, RV_OP_SRLW, rd, rs1, rs2, 0);
    else if (f7 == 0x20 && f3 == 0) set(d, RV_OP_SUBW, rd, rs1, rs2, 0);
    else if (f7 == 0x20 && f3 == 5) set(d, RV_OP_SRAW, rd, rs1, rs2, 0);
    return;
  }
  case 0x0f:
    if (f3 == 0) set(d, RV_OP_FENCE, 0, 0, 0, 0);
    else if (f3 == 1) set(d, RV_OP_FENCE_I, 0, 0, 0, 0);
    return;
  case 0x73:
    if (f3 == 0) {
      if (w == 0x00000073) set(d, RV_OP_ECALL, 0, 0, 0, 0);
      else if (w == 0x00100073) set(d, RV_OP_EBREAK, 0, 0, 0, 0);
    } else if (f3 != 4) {
      static const rv_op csr[8] = {RV_OP_ILLEGAL, RV_OP_CSRRW,  RV_OP_CSRRS,  RV_OP_CSRRC,
                                   RV_OP_ILLEGAL, RV_OP_CSRRWI, RV_OP_CSRRSI, RV_OP_CSRRCI};
      set(d, csr[f3], rd, rs1, 0, bits(w, 31, 20));
    }
    return;
  case 0x2f: {
    unsigned f5 = bits(w, 31, 27);
    int dw = f3 == 3;
    if (f3 != 2 && f3 != 3) return;
    rv_op op = RV_OP_ILLEGAL;
    switch (f5) {
    case 0x02: if (rs2 == 0) op = RV_OP_LR_W; break;
    case 0x03: op = RV_OP_SC_W; break;
    case 0x01: op = RV_OP_AMOSWAP_W; break;
    case 0x00: op = RV_OP_AMOADD_W; break;
    case 0x04: op = RV_OP_AMOXOR_W; break;
    case 0x0c: op = RV_OP_AMOAND_W; break;
    case 0x08: op = RV_OP_AMOOR_W; break;
    case 0x10: op = RV_OP_AMOMIN_W; break;
    case 0x14: op = RV_OP_AMOMAX_W; break;
    case 0x18: op = RV_OP_AMOMINU_W; break;
    case 0x1c: op = RV_OP_AMOMAXU_W; break;
    default: break;
    }
    if (op != RV_OP_ILLEGAL && dw) op = (rv_op)(op + (RV_OP_LR_D - RV_OP_LR_W));
    set(d, op, rd, rs1, rs2, 0);
    return;
  }
  case 0x07:
    if (f3 == 2) set(d, RV_OP_FLW, rd, rs1, 0, iimm);
    else if (f3 == 3) set(d, RV_OP_FLD, rd, rs1, 0, iimm);
    return;
  case 0x27:
    if (f3 == 2) set(d, RV_OP_FSW, 0, rs1, rs2, simm);
    else if (f3 == 3) set(d, RV_OP_FSD, 0, rs1, rs2, simm);
    return;
  case 0x43: case 0x47: case 0x4b: case 0x4f: {
    unsigned fmt = bits(w, 26, 25);
    if (fmt > 1) return;
    rv_op op = (rv_op)(RV_OP_FMADD_S + ((opc - 0x43) >> 2) + (fmt ? 4 : 0));
    set(d, op, rd, rs1, rs2, 0);
    return;
  }
  case 0x53: {
    rv_op op = RV_OP_ILLEGAL;
    int dbl = f7 & 1;
    switch (f7 >> 2) {
    case 0x00: op = dbl ? RV_OP_FADD_D : RV_OP_FADD_S; break;
    case 0x01: op = dbl ? RV_OP_FSUB_D : RV_OP_FSUB_S; break;
    case 0x02: op = dbl ? RV_OP_FMUL_D : RV_OP_FMUL_S; break;
    case 0x03: op = dbl ? RV_OP_FDIV_D : RV_OP_FDIV_S; break;
    case 0x0b: if (rs2 == 0) op = dbl ? RV_OP_FSQRT_D : RV_OP_FSQRT_S; break;
    case 0x04:
      if (f3 < 3) op = (rv_op)((dbl ? RV_OP_FSGNJ_D : RV_OP_FSGNJ_S) + f3);
      break;
    case 0x05:
      if (f3 < 2) op = (rv_op)((dbl ? RV_OP_FMIN_D : RV_OP_FMIN_S) + f3);
      break;
    case 0x08:
      if (f7 == 0x20 && rs2 == 1) op = RV_OP_FCVT_S_D;
      else if (f7 == 0x21 && rs2 == 0) op = RV_OP_FCVT_D_S;
      break;
    case 0x14:
      if (f3 == 2) op = dbl ? RV_OP_FEQ_D : RV_OP_FEQ_S;
      else if (f3 == 1) op = dbl ? RV_OP_FLT_D : RV_OP_FLT_S;
      else if (f3 == 0) op = dbl ? RV_OP_FLE_D : RV_OP_FLE_S;
      break;
    case 0x18:
      if (rs2 < 4) op = (rv_op)((dbl ? RV_OP_FCVT_W_D : RV_OP_FCVT_W_S) + rs2);
      break;
    case 0x1a:
      if (rs2 < 4) op = (rv_op)((dbl ? RV_OP_FCVT_D_W : RV_OP_FCVT_S_W) + rs2);
      break;
    case 0x1c:
      if (rs2 == 0 && f3 == 0) op = dbl ? RV_OP_FMV_X_D : RV_OP_FMV_X_W;
      else if (rs2 == 0 && f3 == 1) op = dbl ? RV_OP_FCLASS_D : RV_OP_FCLASS_S;
      break;
    case 0x1e:
      if (rs2 == 0 && f3 == 0) op = dbl ? RV_OP_FMV_D_X : RV_OP_FMV_W_X;
      break;
    default: break;
    }
    if ((f7 & 2) != 0) op = RV_OP_ILLEGAL; /* fmt H/Q */
    set(d, op, rd, rs1, rs2, 0);
    return;
  }
  default: return;
  }
}

/* RV64C, decoded into the operation of the 32-bit expansion. */
static void decode16(uint32_t h, rv_dinst *d) {
  unsigned q = h & 3, f3 = bits(h, 15, 13);
  unsigned rd = bits(h, 11, 7), rs2 = bits(h, 6, 2);
  unsigned rdp = 8 + bits(h, 4, 2), rs1p = 8 + bits(h, 9, 7);
  int64_t imm6 = sext((bits(h, 12, 12) << 5) | bits(h, 6, 2), 6);
  d->rm = 0;
  if (q == 0) {
    uint64_t ldw = (bits(h, 12, 10) << 3) | (bits(h, 6, 6) << 2) | (bits(h, 5, 5) << 6);
    uint64_t ldd = (bits(h, 12, 10) << 3) | (bits(h, 6, 5) << 6);
    switch (f3) {
    case 0: {
      uint64_t nz = (bits(h, 12, 11) << 4) | (bits(h, 10, 7) << 6) | (bits(h, 6, 6) << 2) |
                    (bits(h, 5, 5) << 3);
      if (nz) set(d, RV_OP_ADDI, rdp, 2, 0, (int64_t)nz);
      return;
    }
    case 1: set(d, RV_OP_FLD, rdp, rs1p, 0, (int64_t)ldd); return;
    case 2: set(d, RV_OP_LW, rdp, rs1p, 0, (int64_t)ldw); return;
    case 3: set(d, RV_OP_LD, rdp, rs1p, 0, (int64_t)ldd); return;
    case 5: set(d, RV_OP_FSD, 0, rs1p, rdp, (int64_t)ldd); return;
    case 6: set(d, RV_OP_SW, 0, rs1p, rdp, (int64_t)ldw); return;
    case 7: set(d, RV_OP_SD, 0, rs1p, rdp, (int64_t)ldd); return;
    default: return;
    }
  }
  if (q == 1) {
    switch (f3) {
    case 0: set(d, RV_OP_ADDI, rd, rd, 0, imm6); return;
    case 1: if (rd) set(d, RV_OP_ADDIW, rd, rd, 0, imm6); return;
    case 2: set(d, RV_OP_ADDI, rd, 0, 0, imm6); return;
    case 3:
      if (rd == 2) {
        int64_t nz = sext((bits(h, 12, 12) << 9) | (bits(h, 6, 6) << 4) | (bits(h, 5, 5) << 6) |
                              (bits(h, 4, 3) << 7) | (bits(h, 2, 2) << 5),
                          10);
        if (nz) set(d, RV_OP_ADDI, 2, 2, 0, nz);
      } else if (imm6) {
        set(d, RV_OP_LUI, rd, 0, 0, imm6 * 4096);
      }
      return;
    case 4: {
      unsigned f2 = bits(h, 11, 10);
      uint64_t sh = (bits(h, 12, 12) << 5) | bits(h, 6, 2);
      if (f2 == 0) set(d, RV_OP_SRLI, rs1p, rs1p, 0, (int64_t)sh);
      else if (f2 == 1) set(d, RV_OP_SRAI, rs1p, rs1p, 0, (int64_t)sh);
      else if (f2 == 2) set(d, RV_OP_ANDI, rs1p, rs1p, 0, imm6);
      else {
        static const rv_op ops[8] = {RV_OP_SUB,  RV_OP_XOR,  RV_OP_OR,      RV_OP_AND,
                                     RV_OP_SUBW, RV_OP_ADDW, RV_OP_ILLEGAL, RV_OP_ILLEGAL};
        set(d, ops[(bits(h, 12, 12) << 2) | bits(h, 6, 5)], rs1p, rs1p, rdp, 0);
      }
      return;
    }
    case 5: {
      int64_t j = sext((bits(h, 12, 12) << 11) | (bits(h, 11, 11) << 4) | (bits(h, 10, 9) << 8) |
                           (bits(h, 8, 8) << 10) | (bits(h, 7, 7) << 6) | (bits(h, 6, 6) << 7) |
                           (bits(h, 5, 3) << 1) | (bits(h, 2, 2) << 5),
                       12);
      set(d, RV_OP_JAL, 0, 0, 0, j);
      return;
    }
    default: {
      int64_t b = sext((bits(h, 12, 12) << 8) | (bits(h, 11, 10) << 3) | (bits(h, 6, 5) << 6) |
                           (bits(h, 4, 3) << 1) | (bits(h, 2, 2) << 5),
                       9);
      set(d, f3 == 6 ? RV_OP_BEQ : RV_OP_BNE, 0, rs1p, 0, b);
      return;
    }
    }
  }
  /* q == 2 */
  uint64_t ldsp = (bits(h, 12, 12) << 5) | (bits(h, 6, 5) << 3) | (bits(h, 4, 2) << 6);
  uint64_t sdsp = (bits(h, 12, 10) << 3) | (bits(h, 9, 7) << 6);
  switch (f3) {
  case 0: set(d, RV_OP_SLLI, rd, rd, 0, (int64_t)((bits(h, 12, 12) << 5) | rs2)); return;
  case 1: set(d, RV_OP_FLD, rd, 2, 0, (int64_t)ldsp); return;
  case 2:
    if (rd)
      set(d, RV_OP_LW, rd, 2, 0,
          (int64_t)((bits(h, 12, 12) << 5) | (bits(h, 6, 4) << 2) | (bits(h, 3, 2) << 6)));
    return;
  case 3: if (rd) set(d, RV_OP_LD, rd, 2, 0, (int64_t)ldsp); return;
  case 4:
    if (!bits(h, 12, 12)) {
      if (rs2 == 0) {
        if (rd) set(d, RV_OP_JALR, 0, rd, 0, 0);
      } else {
        set(d, RV_OP_ADD, rd, 0, rs2, 0);
      }
    } else if (rs2 == 0) {
      if (rd == 0) set(d, RV_OP_EBREAK, 0, 0, 0, 0);
      else set(d, RV_OP_JALR, 1, rd, 0, 0);
    } else {
      set(d, RV_OP_ADD, rd, rd, rs2, 0);
    }
    return;
  case 5: set(d, RV_OP_FSD, 0, 2, rs2, (int64_t)sdsp); return;
  case 6: set(d, RV_OP_SW, 0, 2, rs2, (int64_t)((bits(h, 12, 9) << 2) | (bits(h, 8, 7) << 6))); return;
  default: set(d, RV_OP_SD, 0, 2, rs2, (int64_t)sdsp); return;
  }
}

void rv_decode(uint32_t raw, uint64_t pc, rv_dinst *d) {
  memset(d, 0, sizeof *d);
  d->pc = pc;
  d->op = RV_OP_ILLEGAL;
  if ((raw & 3) == 3) {
    d->size = 4;
    d->raw = raw;
    decode32(raw, d);
  } else {
    d->size = 2;
    d->raw = raw & 0xffff;
    decode16(raw & 0xffff, d);
  }
  if (uses_rm((rv_op)d->op) && (d->rm == 5 || d->rm == 6)) d->op = RV_OP_ILLEGAL;
  if (d->op == RV_OP_ILLEGAL) d->rd = d->rs1 = d->rs2 = d->rs3 = 0;
  fill_static(d);
}

/* ---- disassembly ---- */

static const char *const xname[32] = {
    "zero", "ra", "sp", "gp", "tp", "t0", "t1", "t2", "s0", "s1", "a0",
    "a1",   "a2", "a3", "a4", "a5", "a6", "a7", "s2", "s3", "s4", "s5",
    "s6",   "s7", "s8", "s9", "s10", "s11", "t3", "t4", "t5", "t6"};
static const char *const fname[32] = {
    "ft0", "ft1", "ft2", "ft3", "ft4",  "ft5",  "ft6", "ft7", "fs0", "fs1", "fa0",
    "fa1", "fa2", "fa3", "fa4", "fa5",  "fa6",  "fa7", "fs2", "fs3", "fs4", "fs5",
    "fs6", "fs7", "fs8", "fs9", "fs10", "fs11", "ft8", "ft9", "ft10", "ft11"};
static const char *const rmname[8] = {"rne", "rtz", "rdn", "rup", "rmm", "rm5", "rm6", "dyn"};

static const char *csr_name(int64_t csr) {
  switch (csr) {
  case 1: return "fflags";
  case 2: return "frm";
  case 3: return "fcsr";
  case 0xc00: return "cycle";
  case 0xc01: return "time";
  case 0xc02: return "instret";
  default: return NULL;
  }
}

void rv_disasm(uint32_t raw, uint64_t pc, char *buf, size_t cap) {
  rv_dinst d;
  if (!buf || cap == 0) return;
  rv_decode(raw, pc, &d);
  if (d.op == RV_OP_ILLEGAL) {
    snprintf(buf, cap, d.size == 2 ? "illegal 0x%04x" : "illegal 0x%08x", d.raw);
    return;
  }
  const rv_opinfo *oi = &rv_opinfo_table[d.op];
  size_t n = (size_t)snprintf(buf, cap, "%s", oi->mnemonic);
  int first = 1;
  for (const char *f = oi->fmt; *f && n < cap; f++) {
    char tmp[64];
    const char *cn;
    if (*f == ',') continue;
    switch (*f) {
    case 'd': snprintf(tmp, sizeof tmp, "%s", xname[d.rd]); break;
    case 'D': snprintf(tmp, sizeof tmp, "%s", fname[d.rd]); break;
    case 's': snprintf(tmp, sizeof tmp, "%s", xname[d.rs1]); break;
    case 'S': snprintf(tmp, sizeof tmp, "%s", fname[d.rs1]); break;
    case 't': snprintf(tmp, sizeof tmp, "%s", xname[d.rs2]); break;
    case 'T': snprintf(tmp, sizeof tmp, "%s", fname[d.rs2]); break;
    case 'R': snprintf(tmp, sizeof tmp, "%s", fname[d.rs3]); break;
    case 'i': snprintf(tmp, sizeof tmp, "%lld", (long long)d.imm); break;
    case 'u': snprintf(tmp, sizeof tmp, "0x%llx", (unsigned long long)((uint64_t)d.imm >> 12) & 0xfffff); break;
    case 'b': snprintf(tmp, sizeof tmp, "0x%llx", (unsigned long long)(pc + (uint64_t)d.imm)); break;
    case 'o': snprintf(tmp, sizeof tmp, "%lld(%s)", (long long)d.imm, xname[d.rs1]); break;
    case 'a': snprintf(tmp, sizeof tmp, "(%s)", xname[d.rs1]); break;
    case 'c':
      cn = csr_name(d.imm);
      if (cn) snprintf(tmp, sizeof tmp, "%s", cn);
      else snprintf(tmp, sizeof tmp, "0x%llx", (unsigned long long)d.imm);
      break;
    case 'z': snprintf(tmp, sizeof tmp, "%u", d.rs1); break;
    case 'r':
      if (d.rm == 7) continue;
      snprintf(tmp, sizeof tmp, "%s", rmname[d.rm]);
      break;
    default: continue;
    }
    n += (size_t)snprintf(buf + n, cap - n, "%s%s", first ? " " : ",", tmp);
    first = 0;
  }
}
