/* host.c: x86-64 and AArch64 programs through qemu-user (see host.h). */
#define _GNU_SOURCE
#include "host.h"

#include <capstone/capstone.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "trace.h"

enum { R_FLAGS_X86 = 17, R_TMP = 18, R_NZCV = 64, R_MXCSR = 64 };
#define NONE IC_REG_NONE

uint32_t ic_host_elf_isa(const char *path, int *machine) {
  if (machine) *machine = -1;
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  uint8_t h[20];
  size_t n = fread(h, 1, sizeof h, f);
  fclose(f);
  if (n < 20 || memcmp(h, "\x7f" "ELF", 4) != 0) return 0;
  int m = h[18] | h[19] << 8;
  if (machine) *machine = m;
  if (h[4] != 2 || h[5] != 1) return 0; /* 64-bit little endian */
  return m == 62 ? IC_ISA_X86_64 : m == 183 ? IC_ISA_AARCH64 : m == 243 ? IC_ISA_RV64 : 0;
}

/* ================================ decoding ================================ */

enum { K_OP, K_MOVE, K_PUSH, K_POP, K_CALL, K_RET };

/* What an instruction does, decoded once. */
typedef struct tmpl {
  uint64_t pc;
  uint8_t size, valid, kind, opclass;
  uint8_t asrc[3], na;  /* address registers */
  uint8_t dsrc[6], nd;  /* data registers read */
  uint8_t dst;          /* the destination kept */
  uint8_t extra[4], nx; /* further destinations, carried by dst */
  uint8_t has_mem;      /* a memory operand that is accessed */
  uint64_t target;      /* direct branch target */
  uint8_t bytes[16];
  uint8_t rmw;          /* aarch64 atomics: read and write memory */
} tmpl;

struct ic_host_decoder {
  uint32_t isa;
  csh cs;
  uint8_t regmap[1024]; /* capstone register -> icost id */
  cs_insn *insn;
};

static void add_reg(uint8_t *v, uint8_t *n, int cap, uint8_t r) {
  if (r == NONE || r == 0) return;
  for (int k = 0; k < *n; k++)
    if (v[k] == r) return;
  if (*n < cap) v[(*n)++] = r;
}

static int parse_num(const char *s, int *out) {
  if (*s < '0' || *s > '9') return -1;
  *out = atoi(s);
  return 0;
}

/* icost's register id of a capstone register name (see host.h). */
static uint8_t x86_regid(const char *s) {
  static const char *const gpr[16][5] = {
      {"rax", "eax", "ax", "al", "ah"},   {"rbx", "ebx", "bx", "bl", "bh"},
      {"rcx", "ecx", "cx", "cl", "ch"},   {"rdx", "edx", "dx", "dl", "dh"},
      {"rsi", "esi", "si", "sil", ""},    {"rdi", "edi", "di", "dil", ""},
      {"rbp", "ebp", "bp", "bpl", ""},    {"rsp", "esp", "sp", "spl", ""},
  };
  for (int r = 0; r < 8; r++)
    for (int k = 0; k < 5; k++)
      if (gpr[r][k][0] && strcmp(s, gpr[r][k]) == 0) return (uint8_t)(1 + r);
  int n;
  if (s[0] == 'r' && parse_num(s + 1, &n) == 0 && n >= 8 && n <= 15) return (uint8_t)(1 + n);
  if (strcmp(s, "rflags") == 0 || strcmp(s, "eflags") == 0 || strcmp(s, "flags") == 0)
    return R_FLAGS_X86;
  if ((strncmp(s, "xmm", 3) == 0 || strncmp(s, "ymm", 3) == 0 || strncmp(s, "zmm", 3) == 0) &&
      parse_num(s + 3, &n) == 0)
    return (uint8_t)(32 + n % 32);
  if (strncmp(s, "st(", 3) == 0 && parse_num(s + 3, &n) == 0) return (uint8_t)(56 + n % 8);
  if (strcmp(s, "mxcsr") == 0) return R_MXCSR;
  return NONE; /* rip, segment, control, mask, fp status registers */
}

static uint8_t a64_reg(const char *s) {
  int n;
  if ((s[0] == 'x' || s[0] == 'w') && parse_num(s + 1, &n) == 0 && n <= 30) return (uint8_t)(1 + n);
  if (strcmp(s, "fp") == 0) return 30;
  if (strcmp(s, "lr") == 0) return 31;
  if (strchr("bhsdqv", s[0]) && s[0] && parse_num(s + 1, &n) == 0 && n <= 31) return (uint8_t)(32 + n);
  if (strcmp(s, "nzcv") == 0) return R_NZCV;
  return NONE; /* sp, wsp, xzr, wzr, system registers */
}

ic_status ic_host_decoder_create(ic_host_decoder **out, uint32_t isa, ic_err *err) {
  *out = NULL;
  ic_host_decoder *d = calloc(1, sizeof *d);
  if (!d) return ic_fail(err, IC_ERUN, "out of memory");
  d->isa = isa;
  cs_err e = isa == IC_ISA_X86_64   ? cs_open(CS_ARCH_X86, CS_MODE_64, &d->cs)
             : isa == IC_ISA_AARCH64 ? cs_open(CS_ARCH_ARM64, CS_MODE_ARM, &d->cs)
                                     : CS_ERR_ARCH;
  if (e != CS_ERR_OK) {
    free(d);
    return ic_fail(err, IC_ERUN, "capstone: %s", cs_strerror(e));
  }
  cs_option(d->cs, CS_OPT_DETAIL, CS_OPT_ON);
  memset(d->regmap, NONE, sizeof d->regmap);
  for (unsigned r = 1; r < sizeof d->regmap; r++) {
    const char *name = cs_reg_name(d->cs, r);
    if (name) d->regmap[r] = isa == IC_ISA_X86_64 ? x86_regid(name) : a64_reg(name);
  }
  d->insn = cs_malloc(d->cs);
  if (!d->insn) {
    cs_close(&d->cs);
    free(d);
    return ic_fail(err, IC_ERUN, "out of memory");
  }
  *out = d;
  return IC_OK;
}

void ic_host_decoder_destroy(ic_host_decoder *d) {
  if (!d) return;
  cs_free(d->insn, 1);
  cs_close(&d->cs);
  free(d);
}

static uint8_t map(const ic_host_decoder *d, unsigned r) {
  return r < sizeof d->regmap ? d->regmap[r] : NONE;
}

static int starts(const char *s, const char *p) { return strncmp(s, p, strlen(p)) == 0; }
static int ends(const char *s, const char *p) {
  size_t a = strlen(s), b = strlen(p);
  return a >= b && strcmp(s + a - b, p) == 0;
}

/* The op class of an x86 operation by its name. */
static uint8_t x86_class(const char *name) {
  const char *n = name[0] == 'v' ? name + 1 : name;
  if (!strcmp(n, "imul") || !strcmp(n, "mul") || !strcmp(n, "mulx") || !strcmp(n, "pdep") ||
      !strcmp(n, "pext") || starts(n, "pmul") || starts(n, "pmadd") || starts(n, "pclmul"))
    return IC_OP_INT_MUL;
  if (!strcmp(n, "div") || !strcmp(n, "idiv")) return IC_OP_INT_DIV;
  if (name[0] == 'f' && !starts(name, "fx") && !starts(name, "fn")) { /* x87 */
    if (starts(name, "fmul") || starts(name, "fimul")) return IC_OP_FP_MUL;
    if (starts(name, "fdiv") || starts(name, "fidiv") || starts(name, "fsqrt")) return IC_OP_FP_DIV;
    return IC_OP_FP_ADD;
  }
  if (starts(n, "fmadd") || starts(n, "fmsub") || starts(n, "fnmadd") || starts(n, "fnmsub") ||
      starts(n, "fmaddsub") || starts(n, "fmsubadd"))
    return IC_OP_FP_MUL;
  if (starts(n, "cvt")) return IC_OP_FP_ADD;
  if (n[0] != 'p' && (ends(n, "ss") || ends(n, "sd") || ends(n, "ps") || ends(n, "pd"))) {
    if (starts(n, "div") || starts(n, "sqrt")) return IC_OP_FP_DIV;
    if (starts(n, "mul") || starts(n, "rcp") || starts(n, "rsqrt") || starts(n, "dp"))
      return IC_OP_FP_MUL;
    if (starts(n, "add") || starts(n, "sub") || starts(n, "min") || starts(n, "max") ||
        starts(n, "cmp") || starts(n, "comi") || starts(n, "ucomi") || starts(n, "round") ||
        starts(n, "hadd") || starts(n, "hsub"))
      return IC_OP_FP_ADD;
  }
  static const char *const sys[] = {"syscall", "sysenter", "cpuid", "rdtsc", "rdtscp", "hlt",
                                    "ud2", "lfence", "mfence", "sfence", "pause", "xgetbv",
                                    "rdrand", "rdseed", "int", "int3", "into", "xsave",
                                    "xsavec", "xrstor", "fxsave", "fxrstor", "fxsave64",
                                    "fxrstor64", "xsave64", "xrstor64", "xsavec64", "rdpid",
                                    "wrfsbase", "rdfsbase", NULL};
  for (int k = 0; sys[k]; k++)
    if (!strcmp(name, sys[k])) return IC_OP_OTHER;
  return IC_OP_INT_ALU;
}

static int x86_is_move(const char *n) {
  if (starts(n, "cmov") || starts(n, "movmsk") || starts(n, "vmovmsk")) return 0;
  return starts(n, "mov") || starts(n, "vmov") || starts(n, "stos") || starts(n, "lods") ||
         !strcmp(n, "lddqu") || !strcmp(n, "vlddqu") || starts(n, "vbroadcast") ||
         starts(n, "vpbroadcast");
}

static void build_x86(ic_host_decoder *d, const cs_insn *in, tmpl *t) {
  const cs_x86 *x = &in->detail->x86;
  const char *name = cs_insn_name(d->cs, in->id);
  uint8_t wr[8], nw = 0;
  t->kind = K_OP;
  t->opclass = x86_class(name);
  int is_lea = in->id == X86_INS_LEA, is_nop = in->id == X86_INS_NOP || starts(name, "prefetch");
  int imm_target = 0;
  for (int k = 0; k < x->op_count; k++) {
    const cs_x86_op *op = &x->operands[k];
    if (op->type == X86_OP_REG) {
      if (op->access & CS_AC_READ) add_reg(t->dsrc, &t->nd, 6, map(d, op->reg));
      if (op->access & CS_AC_WRITE) add_reg(wr, &nw, 8, map(d, op->reg));
    } else if (op->type == X86_OP_MEM) {
      if (is_nop) continue;
      if (is_lea) {
        add_reg(t->dsrc, &t->nd, 6, map(d, op->mem.base));
        add_reg(t->dsrc, &t->nd, 6, map(d, op->mem.index));
      } else {
        t->has_mem = 1;
        add_reg(t->asrc, &t->na, 3, map(d, op->mem.base));
        add_reg(t->asrc, &t->na, 3, map(d, op->mem.index));
      }
    } else if (op->type == X86_OP_IMM && k == 0) {
      imm_target = 1;
      t->target = (uint64_t)op->imm;
    }
  }
  for (int k = 0; k < in->detail->regs_read_count; k++)
    add_reg(t->dsrc, &t->nd, 6, map(d, in->detail->regs_read[k]));
  for (int k = 0; k < in->detail->regs_write_count; k++)
    add_reg(wr, &nw, 8, map(d, in->detail->regs_write[k]));
  const uint8_t RSP = 8;
  int stack = 0;
  if (cs_insn_group(d->cs, in, CS_GRP_CALL)) {
    t->kind = K_CALL, t->opclass = IC_OP_CALL, stack = 1;
    if (!imm_target) t->target = 0;
  } else if (cs_insn_group(d->cs, in, CS_GRP_RET)) {
    t->kind = K_RET, t->opclass = IC_OP_RETURN, stack = 1, t->target = 0;
  } else if (cs_insn_group(d->cs, in, CS_GRP_IRET) || cs_insn_group(d->cs, in, CS_GRP_INT)) {
    t->opclass = IC_OP_OTHER, t->target = 0;
  } else if (cs_insn_group(d->cs, in, CS_GRP_JUMP)) {
    if (in->id == X86_INS_JMP || in->id == X86_INS_LJMP) t->opclass = imm_target ? IC_OP_JUMP : IC_OP_IJUMP;
    else t->opclass = IC_OP_BRANCH;
    if (!imm_target) t->target = 0;
  } else {
    t->target = 0;
    if (starts(name, "push")) t->kind = K_PUSH, stack = 1;
    else if (starts(name, "pop")) t->kind = K_POP, stack = 1;
    else if (x86_is_move(name)) t->kind = K_MOVE;
  }
  if (stack) { /* a stack engine: rsp is an address, never a dependence to wait on */
    uint8_t keep[6], nk = 0;
    for (int k = 0; k < t->nd; k++)
      if (t->dsrc[k] != RSP) keep[nk++] = t->dsrc[k];
    memcpy(t->dsrc, keep, nk);
    t->nd = nk;
    add_reg(t->asrc, &t->na, 3, RSP);
    t->has_mem = 1;
  }
  /* zero idioms */
  static const unsigned zero_ids[] = {X86_INS_XOR,    X86_INS_SUB,    X86_INS_PXOR,
                                      X86_INS_XORPS,  X86_INS_XORPD,  X86_INS_VPXOR,
                                      X86_INS_VXORPS, X86_INS_VXORPD, X86_INS_PSUBB,
                                      X86_INS_PSUBD,  X86_INS_PSUBQ,  X86_INS_VPXORD,
                                      X86_INS_VPXORQ};
  for (size_t k = 0; k < sizeof zero_ids / sizeof zero_ids[0]; k++)
    if (in->id == zero_ids[k] && x->op_count >= 2 && x->operands[x->op_count - 1].type == X86_OP_REG &&
        x->operands[x->op_count - 2].type == X86_OP_REG &&
        x->operands[x->op_count - 1].reg == x->operands[x->op_count - 2].reg) {
      t->nd = 0;
      break;
    }
  /* one destination: not rsp of a stack op, not the flags when there is another */
  t->dst = NONE;
  for (int k = 0; k < nw; k++) {
    if (stack && wr[k] == RSP) continue;
    if (t->dst == NONE || (t->dst == R_FLAGS_X86 && wr[k] != R_FLAGS_X86)) t->dst = wr[k];
  }
  for (int k = 0; k < nw; k++)
    if (wr[k] != t->dst && !(stack && wr[k] == RSP)) add_reg(t->extra, &t->nx, 4, wr[k]);
}

static uint8_t a64_class(const char *n) {
  if (!strcmp(n, "mul") || !strcmp(n, "madd") || !strcmp(n, "msub") || !strcmp(n, "mneg") ||
      starts(n, "smul") || starts(n, "umul") || starts(n, "smadd") || starts(n, "umadd") ||
      starts(n, "smsub") || starts(n, "umsub") || !strcmp(n, "mla") || !strcmp(n, "mls") ||
      starts(n, "pmul") || starts(n, "sqdmul") || starts(n, "smlal") || starts(n, "umlal"))
    return IC_OP_INT_MUL;
  if (!strcmp(n, "sdiv") || !strcmp(n, "udiv")) return IC_OP_INT_DIV;
  if (!strcmp(n, "fdiv") || !strcmp(n, "fsqrt") || starts(n, "frsqrt") || starts(n, "frecp"))
    return starts(n, "fdiv") || starts(n, "fsqrt") ? IC_OP_FP_DIV : IC_OP_FP_MUL;
  if (!strcmp(n, "fmul") || !strcmp(n, "fmadd") || !strcmp(n, "fmsub") || !strcmp(n, "fnmadd") ||
      !strcmp(n, "fnmsub") || !strcmp(n, "fmla") || !strcmp(n, "fmls") || !strcmp(n, "fnmul") ||
      !strcmp(n, "fmulx"))
    return IC_OP_FP_MUL;
  if (n[0] == 'f' || !strcmp(n, "scvtf") || !strcmp(n, "ucvtf")) return IC_OP_FP_ADD;
  static const char *const sys[] = {"svc", "mrs", "msr", "dmb", "dsb", "isb", "brk", "hlt",
                                    "sys", "sysl", "clrex", "yield", "wfe", "wfi", "sev", NULL};
  for (int k = 0; sys[k]; k++)
    if (!strcmp(n, sys[k])) return IC_OP_OTHER;
  return IC_OP_INT_ALU;
}

static void build_a64(ic_host_decoder *d, const cs_insn *in, tmpl *t) {
  const cs_arm64 *a = &in->detail->arm64;
  const char *name = cs_insn_name(d->cs, in->id);
  uint8_t wr[8], nw = 0;
  t->kind = K_OP;
  t->opclass = a64_class(name);
  int is_load = 0, is_store = 0, imm_target = 0;
  for (int k = 0; k < a->op_count; k++) {
    const cs_arm64_op *op = &a->operands[k];
    if (op->type == ARM64_OP_REG) {
      /* capstone 4 leaves access 0 on some operands: the first operand of a
         non-store is written, the others read */
      uint8_t acc = op->access;
      if (!acc) acc = k == 0 && !starts(name, "st") && !starts(name, "cmp") && !starts(name, "cmn") &&
                              !starts(name, "tst") && !starts(name, "cb") && !starts(name, "tb") &&
                              !starts(name, "br") && !starts(name, "blr") && !starts(name, "ret")
                          ? CS_AC_WRITE
                          : CS_AC_READ;
      if (acc & CS_AC_READ) add_reg(t->dsrc, &t->nd, 6, map(d, op->reg));
      if (acc & CS_AC_WRITE) add_reg(wr, &nw, 8, map(d, op->reg));
    } else if (op->type == ARM64_OP_MEM) {
      t->has_mem = 1;
      add_reg(t->asrc, &t->na, 3, map(d, op->mem.base));
      add_reg(t->asrc, &t->na, 3, map(d, op->mem.index));
      if (a->writeback) add_reg(wr, &nw, 8, map(d, op->mem.base));
    } else if (op->type == ARM64_OP_IMM && !imm_target) {
      imm_target = 1;
      t->target = (uint64_t)op->imm;
    }
  }
  for (int k = 0; k < in->detail->regs_read_count; k++)
    add_reg(t->dsrc, &t->nd, 6, map(d, in->detail->regs_read[k]));
  for (int k = 0; k < in->detail->regs_write_count; k++)
    add_reg(wr, &nw, 8, map(d, in->detail->regs_write[k]));
  if (a->update_flags) add_reg(wr, &nw, 8, R_NZCV);
  if (a->cc != ARM64_CC_INVALID && a->cc != ARM64_CC_AL && a->cc != ARM64_CC_NV)
    add_reg(t->dsrc, &t->nd, 6, R_NZCV);
  if (t->has_mem && !starts(name, "prfm")) {
    is_load = starts(name, "ld") || starts(name, "cas") || starts(name, "swp");
    is_store = starts(name, "st") || starts(name, "cas") || starts(name, "swp") ||
               (starts(name, "ld") && (strstr(name, "add") || strstr(name, "clr") ||
                                       strstr(name, "eor") || strstr(name, "set") ||
                                       strstr(name, "max") || strstr(name, "min")));
    t->opclass = is_load ? IC_OP_LOAD : IC_OP_STORE;
    t->rmw = is_load && is_store;
    if (!is_load && !is_store) t->opclass = IC_OP_INT_ALU, t->has_mem = 0;
  } else {
    t->has_mem = 0;
  }
  if (cs_insn_group(d->cs, in, CS_GRP_CALL)) t->opclass = IC_OP_CALL;
  else if (cs_insn_group(d->cs, in, CS_GRP_RET)) t->opclass = IC_OP_RETURN;
  else if (cs_insn_group(d->cs, in, CS_GRP_JUMP)) {
    if (in->id == ARM64_INS_B && (a->cc == ARM64_CC_INVALID || a->cc == ARM64_CC_AL))
      t->opclass = IC_OP_JUMP;
    else if (in->id == ARM64_INS_BR) t->opclass = IC_OP_IJUMP;
    else t->opclass = IC_OP_BRANCH;
  }
  if (t->opclass < IC_OP_BRANCH || t->opclass > IC_OP_CALL || !imm_target ||
      in->id == ARM64_INS_BLR || in->id == ARM64_INS_BR)
    t->target = 0;
  if (t->opclass == IC_OP_CALL) add_reg(wr, &nw, 8, 31); /* bl/blr write the link register */
  t->dst = NONE;
  for (int k = 0; k < nw; k++)
    if (t->dst == NONE || (t->dst == R_NZCV && wr[k] != R_NZCV)) t->dst = wr[k];
  /* a store's address and data registers share three source slots */
  if (t->opclass == IC_OP_STORE || t->opclass == IC_OP_LOAD) {
    uint8_t s[6], ns = 0;
    for (int k = 0; k < t->na; k++) add_reg(s, &ns, 6, t->asrc[k]);
    for (int k = 0; k < t->nd; k++) add_reg(s, &ns, 6, t->dsrc[k]);
    memcpy(t->dsrc, s, ns);
    t->nd = ns;
  }
  for (int k = 0; k < nw; k++)
    if (wr[k] != t->dst) add_reg(t->extra, &t->nx, 4, wr[k]);
}

/* Decodes bytes at pc into t; 0 if capstone does not know them. */
static int build(ic_host_decoder *d, const uint8_t *bytes, size_t n, uint64_t pc, tmpl *t) {
  memset(t, 0, sizeof *t);
  t->pc = pc;
  t->dst = NONE;
  size_t keep = n < 16 ? n : 16;
  memcpy(t->bytes, bytes, keep);
  t->size = (uint8_t)keep;
  const uint8_t *code = bytes;
  size_t left = n;
  uint64_t addr = pc;
  if (!cs_disasm_iter(d->cs, &code, &left, &addr, d->insn)) return 0;
  t->size = (uint8_t)d->insn->size;
  t->valid = 1;
  if (d->isa == IC_ISA_X86_64) build_x86(d, d->insn, t);
  else build_a64(d, d->insn, t);
  return 1;
}

int ic_host_decode_static(ic_host_decoder *d, const uint8_t *bytes, size_t n, uint64_t pc,
                          ic_static_inst *out) {
  memset(out, 0, sizeof *out);
  tmpl t;
  if (!build(d, bytes, n, pc, &t)) return 0;
  out->valid = 1;
  out->size = t.size;
  uint8_t op = t.opclass;
  if (d->isa == IC_ISA_X86_64 && t.has_mem && t.kind == K_MOVE) op = t.dst != NONE ? IC_OP_LOAD : IC_OP_STORE;
  if (t.kind == K_PUSH) op = IC_OP_STORE;
  if (t.kind == K_POP) op = IC_OP_LOAD;
  out->opclass = op;
  uint8_t ns = 0;
  for (int k = 0; k < t.nd; k++) add_reg(out->src, &ns, IC_MAX_SRC, t.dsrc[k]);
  for (int k = ns; k < IC_MAX_SRC; k++) out->src[k] = NONE;
  out->dst[0] = t.dst;
  out->target = t.target;
  out->is_mem_rmw = t.rmw;
  uint32_t raw = 0;
  memcpy(&raw, t.bytes, t.size < 4 ? t.size : 4);
  out->raw = raw;
  return 1;
}

int ic_host_disasm(ic_host_decoder *d, const uint8_t *bytes, size_t n, uint64_t pc, char *buf,
                   size_t cap) {
  const uint8_t *code = bytes;
  size_t left = n;
  uint64_t addr = pc;
  if (!cs_disasm_iter(d->cs, &code, &left, &addr, d->insn)) {
    snprintf(buf, cap, "?");
    return 0;
  }
  snprintf(buf, cap, "%s%s%s", d->insn->mnemonic, d->insn->op_str[0] ? " " : "", d->insn->op_str);
  return 1;
}

/* ================================ running ================================ */

typedef struct access {
  uint64_t addr;
  uint8_t size, store;
} maccess;

#define MAX_ACC 64
#define QCAP 64

struct ic_host {
  uint32_t isa;
  pid_t pid;
  int fd, err_fd;      /* the plugin's stream; qemu's stderr (a temp file) */
  char *prog;
  const char *qemu;
  ic_host_decoder *dec;
  uint8_t buf[1 << 16];
  size_t bpos, blen;
  int eof, saw_end, threads;
  tmpl *t;             /* templates by id */
  size_t nt, tcap;
  /* the instruction being collected */
  int have_cur;
  uint32_t cur;
  maccess acc[MAX_ACC];
  int nacc;
  /* records made, not yet handed out */
  ic_inst q[QCAP];
  int qh, qn;
  uint64_t insts, seq;
  uint64_t lastw_arch[IC_REG_COUNT], lastw_reg[IC_REG_COUNT];
  uint8_t carrier[IC_REG_COUNT];
  ic_status st;
  ic_err err;
  int finished;
};

static const char *plugin_path(char *buf, size_t cap) {
  const char *env = getenv("ICOST_QEMU_PLUGIN");
  if (env && *env) return env;
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n > 0) {
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (slash) {
      *slash = 0;
      if ((size_t)snprintf(buf, cap, "%.*s/icost-qemu-plugin.so", (int)(cap - 32), exe) < cap &&
          access(buf, R_OK) == 0)
        return buf;
      /* where `cmake --install` puts it: PREFIX/lib/icost beside PREFIX/bin */
      if ((size_t)snprintf(buf, cap, "%.*s/../lib/icost/icost-qemu-plugin.so", (int)(cap - 48), exe) < cap &&
          access(buf, R_OK) == 0)
        return buf;
    }
  }
#ifdef ICOST_BUILD_DIR_PLUGIN
  snprintf(buf, cap, "%s/icost-qemu-plugin.so", ICOST_BUILD_DIR_PLUGIN);
  if (access(buf, R_OK) == 0) return buf;
#endif
  return NULL;
}

static int on_path(const char *name) {
  const char *path = getenv("PATH");
  if (!path) path = "/usr/bin:/bin";
  char b[PATH_MAX];
  while (*path) {
    const char *c = strchr(path, ':');
    size_t l = c ? (size_t)(c - path) : strlen(path);
    if (l < sizeof b - 64) {
      snprintf(b, sizeof b, "%.*s/%.40s", (int)l, path, name);
      if (access(b, X_OK) == 0) return 1;
    }
    path += l + (c != NULL);
  }
  return 0;
}

/* qemu runs the program as this open descriptor, a copy of it in memory,
   so the path the guest sees (AT_EXECFN, the name on its stack: qemu takes
   the real path of what it opens, and a memfd's has none) is the same
   wherever the program lies, and the stack's layout with it. */
enum { PROG_FD = 4 };
#define PROG_FD_PATH "/proc/self/fd/4"

/* A memfd holding the file at path (close-on-exec); -1 on failure (in the
   child before exec: what it leaves open goes with it). */
static int prog_copy(const char *path) {
  int in = open(path, O_RDONLY | O_CLOEXEC), out = memfd_create("icost-guest", MFD_CLOEXEC);
  char buf[1 << 16];
  ssize_t n = 0;
  while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof buf)) > 0)
    for (ssize_t w = 0, k; w < n; w += k)
      if ((k = write(out, buf + w, (size_t)(n - w))) <= 0) return -1;
  if (in < 0 || n < 0) return -1;
  close(in);
  return out;
}

ic_status ic_host_start(ic_host **out, const char *path, int argc, char **argv, uint32_t isa,
                        const ic_host_opts *o, ic_err *err) {
  *out = NULL;
  const char *qemu = isa == IC_ISA_X86_64 ? "qemu-x86_64" : isa == IC_ISA_AARCH64 ? "qemu-aarch64" : NULL;
  if (!qemu) return ic_fail(err, IC_EINPUT, "%s: not an x86-64 or AArch64 program", path);
  if (!on_path(qemu))
    return ic_fail(err, IC_EINPUT, "%s: %s is not installed (Debian package qemu-user)", path, qemu);
  char pbuf[PATH_MAX];
  const char *plugin = plugin_path(pbuf, sizeof pbuf);
  if (!plugin)
    return ic_fail(err, IC_EINPUT,
                   "%s: icost's qemu plugin icost-qemu-plugin.so is neither next to the icost "
                   "executable nor in ../lib/icost beside it (set ICOST_QEMU_PLUGIN)", path);
  if (access(path, R_OK) != 0)
    return ic_fail(err, IC_EINPUT, "%s: cannot open: %s", path, strerror(errno));
  ic_host *h = calloc(1, sizeof *h);
  if (!h) return ic_fail(err, IC_ERUN, "out of memory");
  h->isa = isa;
  h->qemu = qemu;
  h->pid = -1;
  h->fd = h->err_fd = -1;
  for (int k = 0; k < IC_REG_COUNT; k++) h->carrier[k] = (uint8_t)k;
  ic_status st = ic_host_decoder_create(&h->dec, isa, err);
  if (st || !(h->prog = strdup(path))) {
    ic_host_destroy(h);
    return st ? st : ic_fail(err, IC_ERUN, "out of memory");
  }
  int p[2];
  char tmpl_path[] = "/tmp/icost-qemu-XXXXXX";
  h->err_fd = mkostemp(tmpl_path, O_CLOEXEC);
  if (h->err_fd >= 0) unlink(tmpl_path);
  if (pipe2(p, O_CLOEXEC) != 0 || h->err_fd < 0) {
    ic_host_destroy(h);
    return ic_fail(err, IC_ERUN, "cannot start %s: %s", qemu, strerror(errno));
  }
  char plugarg[PATH_MAX + 32], seed[24];
  snprintf(plugarg, sizeof plugarg, "%s,fd=%d", plugin, 3);
  snprintf(seed, sizeof seed, "%llu", (unsigned long long)o->seed);
  const char *slash = strrchr(path, '/');
  const char *name = slash && slash[1] ? slash + 1 : path;
  /* qemu's environment: the guest's fixed one and icost's QEMU_* settings,
     each unset for the guest (-U) */
  size_t nq = 0;
  for (char **e = environ; *e; e++) nq += strncmp(*e, "QEMU_", 5) == 0;
  char **av = calloc((size_t)argc + 16 + 2 * nq, sizeof *av);
  char **env = calloc(nq + 3, sizeof *env);
  char *unset = calloc(nq + 1, 256);
  if (!av || !env || !unset) {
    free(av), free(env), free(unset);
    close(p[0]), close(p[1]);
    ic_host_destroy(h);
    return ic_fail(err, IC_ERUN, "out of memory");
  }
  int k = 0, ne = 0;
  env[ne++] = "LANG=C";
  env[ne++] = "PATH=/usr/local/bin:/usr/bin:/bin";
  av[k++] = (char *)qemu;
  for (char **e = environ; *e; e++) {
    const char *eq = strchr(*e, '=');
    if (strncmp(*e, "QEMU_", 5) != 0 || !eq || eq - *e >= 256) continue;
    char *u = unset + 256 * (size_t)(ne - 2);
    memcpy(u, *e, (size_t)(eq - *e));
    env[ne++] = *e;
    av[k++] = "-U";
    av[k++] = u;
  }
  if (isa == IC_ISA_AARCH64) { /* ARMv8.0: no SVE or LSE atomics, which Capstone 4 does not
                                  decode and glibc would use if the cpu had them */
    av[k++] = "-cpu";
    av[k++] = "cortex-a72";
  }
  av[k++] = "-seed";
  av[k++] = seed;
  av[k++] = "-0";
  av[k++] = (char *)name;
  av[k++] = "-plugin";
  av[k++] = plugarg;
  av[k++] = PROG_FD_PATH;
  for (int j = 1; j < argc; j++) av[k++] = argv[j];
  av[k] = NULL;
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    personality((unsigned long)personality(0xffffffff) | ADDR_NO_RANDOMIZE);
    int nul = open("/dev/null", O_RDWR);
    int wfd = dup(p[1]), efd = dup(h->err_fd); /* neither is 3 while the originals are open */
    if (wfd < 0 || efd < 0) _exit(127);
    if (!o->guest_output) {
      dup2(nul, 0);
      dup2(nul, 1);
      dup2(efd, 2);
    }
    if (dup2(wfd, 3) < 0) _exit(127);
    int pfd = prog_copy(path);
    if (pfd < 0 || (pfd == PROG_FD ? fcntl(pfd, F_SETFD, 0) : dup2(pfd, PROG_FD)) < 0) _exit(127);
    signal(SIGPIPE, SIG_DFL);
    execvpe(qemu, av, env);
    _exit(127);
  }
  free(av);
  free(env);
  free(unset);
  close(p[1]);
  if (pid < 0) {
    close(p[0]);
    ic_host_destroy(h);
    return ic_fail(err, IC_ERUN, "cannot start %s: %s", qemu, strerror(errno));
  }
  h->pid = pid;
  h->fd = p[0];
  *out = h;
  return IC_OK;
}

static ic_status h_bad(ic_host *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static ic_status h_bad(ic_host *h, const char *fmt, ...) {
  if (h->st) return h->st;
  char why[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  h->st = IC_ERUN;
  ic_fail(&h->err, IC_ERUN, "%s: %s", h->prog, why);
  return h->st;
}

/* Reads exactly n bytes of the stream; -1 at its end. */
static int rd(ic_host *h, void *dst, size_t n) {
  uint8_t *d = dst;
  while (n) {
    if (h->bpos == h->blen) {
      if (h->eof) return -1;
      ssize_t k = read(h->fd, h->buf, sizeof h->buf);
      if (k < 0 && errno == EINTR) continue;
      if (k <= 0) {
        h->eof = 1;
        return -1;
      }
      h->bpos = 0, h->blen = (size_t)k;
    }
    size_t k = h->blen - h->bpos;
    if (k > n) k = n;
    memcpy(d, h->buf + h->bpos, k);
    h->bpos += k, d += k, n -= k;
  }
  return 0;
}

/* ---- records from an executed template ---- */

static uint8_t resolve(ic_host *h, uint8_t r) {
  if (r == NONE || r == 0 || r >= IC_REG_COUNT) return NONE;
  if (!h->lastw_arch[r]) return r;
  uint8_t c = h->carrier[r];
  if (c == NONE || h->lastw_reg[c] != h->lastw_arch[r]) return NONE;
  return c;
}

static void emit(ic_host *h, const tmpl *t, uint8_t opclass, const uint8_t *src, int ns, uint8_t dst,
                 const uint8_t *extra, int nx, const maccess *a) {
  ic_inst *in = &h->q[(h->qh + h->qn++) % QCAP];
  memset(in, 0, sizeof *in);
  in->pc = t->pc;
  in->size = t->size;
  in->next_pc = t->pc + t->size;
  in->opclass = opclass;
  uint8_t n = 0;
  for (int k = 0; k < ns; k++) add_reg(in->src, &n, IC_MAX_SRC, resolve(h, src[k]));
  for (int k = n; k < IC_MAX_SRC; k++) in->src[k] = NONE;
  in->dst[0] = dst < IC_REG_COUNT ? dst : NONE;
  if (a) {
    in->mem_addr = a->addr;
    in->mem_size = a->size;
  }
  h->seq++;
  if (in->dst[0] != NONE) {
    h->lastw_reg[dst] = h->seq;
    h->lastw_arch[dst] = h->seq;
    h->carrier[dst] = dst;
  }
  for (int k = 0; k < nx; k++)
    if (extra[k] < IC_REG_COUNT) {
      h->lastw_arch[extra[k]] = h->seq;
      h->carrier[extra[k]] = in->dst[0];
    }
}

/* Turns the collected instruction into records, the last with next_pc. */
static void crack(ic_host *h, const tmpl *t, uint64_t next_pc) {
  /* merge consecutive accesses of one direction that continue each other */
  maccess rd_[MAX_ACC], wr_[MAX_ACC];
  int nr = 0, nw = 0;
  for (int k = 0; k < h->nacc; k++) {
    maccess *v = h->acc[k].store ? wr_ : rd_;
    int *n = h->acc[k].store ? &nw : &nr;
    if (*n && v[*n - 1].addr + v[*n - 1].size == h->acc[k].addr &&
        v[*n - 1].size + h->acc[k].size <= 64)
      v[*n - 1].size = (uint8_t)(v[*n - 1].size + h->acc[k].size);
    else v[(*n)++] = h->acc[k];
  }
  if (nr > 8) nr = 8;
  if (nw > 8) nw = 8;
  const int first = h->qn;
  uint8_t s[8];
  int ns;
  if (h->isa == IC_ISA_AARCH64) {
    const maccess *a = t->opclass == IC_OP_LOAD ? (nr ? &rd_[0] : NULL)
                      : t->opclass == IC_OP_STORE ? (nw ? &wr_[0] : NULL) : NULL;
    uint8_t op = t->opclass;
    if ((op == IC_OP_LOAD || op == IC_OP_STORE) && !a) op = IC_OP_INT_ALU; /* no access made */
    emit(h, t, op, t->dsrc, t->nd, t->dst, t->extra, t->nx, a);
    h->q[(h->qh + h->qn - 1) % QCAP].is_mem_rmw = op == IC_OP_LOAD && t->rmw && nw;
  } else if (t->kind == K_MOVE && (nr || nw)) {
    if (nr && !nw) {
      for (int k = 0; k < nr; k++) emit(h, t, IC_OP_LOAD, t->asrc, t->na, t->dst, t->extra, t->nx, &rd_[k]);
    } else if (nw && !nr) {
      ns = 0;
      for (int k = 0; k < t->na; k++) s[ns++] = t->asrc[k];
      for (int k = 0; k < t->nd && ns < 8; k++) s[ns++] = t->dsrc[k];
      for (int k = 0; k < nw; k++) emit(h, t, IC_OP_STORE, s, ns, NONE, NULL, 0, &wr_[k]);
    } else { /* string move: load to the temporary, store it */
      for (int k = 0; k < nr; k++) emit(h, t, IC_OP_LOAD, t->asrc, t->na, R_TMP, NULL, 0, &rd_[k]);
      ns = 0;
      for (int k = 0; k < t->na; k++) s[ns++] = t->asrc[k];
      s[ns++] = R_TMP;
      for (int k = 0; k < nw; k++) emit(h, t, IC_OP_STORE, s, ns, NONE, t->extra, t->nx, &wr_[k]);
    }
  } else if (t->kind == K_PUSH && nw) {
    ns = 0;
    for (int k = 0; k < t->na; k++) s[ns++] = t->asrc[k];
    for (int k = 0; k < t->nd && ns < 8; k++) s[ns++] = t->dsrc[k];
    for (int k = 0; k < nw; k++) emit(h, t, IC_OP_STORE, s, ns, NONE, NULL, 0, &wr_[k]);
  } else if (t->kind == K_POP && nr) {
    for (int k = 0; k < nr; k++) emit(h, t, IC_OP_LOAD, t->asrc, t->na, t->dst, t->extra, t->nx, &rd_[k]);
  } else {
    /* loads to the temporary, the operation, stores of its result */
    for (int k = 0; k < nr; k++) emit(h, t, IC_OP_LOAD, t->asrc, t->na, R_TMP, NULL, 0, &rd_[k]);
    if (t->kind == K_CALL) /* the return address */
      for (int k = 0; k < nw; k++) emit(h, t, IC_OP_STORE, t->asrc, t->na, NONE, NULL, 0, &wr_[k]);
    ns = 0;
    if (nr) s[ns++] = R_TMP;
    for (int k = 0; k < t->nd && ns < 8; k++) s[ns++] = t->dsrc[k];
    if (!nr && !nw && t->has_mem && t->kind != K_CALL && t->kind != K_RET)
      for (int k = 0; k < t->na && ns < 8; k++) s[ns++] = t->asrc[k]; /* no access made */
    uint8_t dst = t->dst;
    if (dst == NONE && nw && t->kind != K_CALL) dst = R_TMP;
    emit(h, t, t->opclass, s, ns, dst, t->extra, t->nx, NULL);
    if (t->kind != K_CALL && t->kind != K_RET && nw) {
      ns = 0;
      for (int k = 0; k < t->na; k++) s[ns++] = t->asrc[k];
      s[ns++] = dst;
      for (int k = 0; k < nw; k++) emit(h, t, IC_OP_STORE, s, ns, NONE, NULL, 0, &wr_[k]);
    }
  }
  (void)first;
  h->q[(h->qh + h->qn - 1) % QCAP].next_pc = next_pc;
  h->insts++;
}

/* Reads messages until a record is queued or the stream ends. */
static void pump(ic_host *h) {
  while (h->qn == 0 && !h->st) {
    uint8_t tag;
    if (rd(h, &tag, 1)) {
      if (h->have_cur) { /* the last instruction: it falls through */
        const tmpl *t = &h->t[h->cur];
        h->have_cur = 0;
        crack(h, t, t->pc + t->size);
      }
      return;
    }
    if (tag == 'T') {
      uint8_t m[13];
      uint8_t bytes[16];
      if (rd(h, m, 13) || m[12] > 16 || rd(h, bytes, m[12])) {
        h_bad(h, "the qemu plugin's stream is cut short");
        return;
      }
      uint32_t id;
      uint64_t pc;
      memcpy(&id, m, 4);
      memcpy(&pc, m + 4, 8);
      if (id != h->nt) {
        h_bad(h, "the qemu plugin's stream is out of order");
        return;
      }
      if (h->nt == h->tcap) {
        size_t nc = h->tcap ? 2 * h->tcap : 4096;
        tmpl *nt = realloc(h->t, nc * sizeof *nt);
        if (!nt) {
          h_bad(h, "out of memory");
          return;
        }
        h->t = nt, h->tcap = nc;
      }
      build(h->dec, bytes, m[12], pc, &h->t[h->nt]);
      h->t[h->nt].size = h->t[h->nt].valid ? h->t[h->nt].size : m[12];
      h->nt++;
    } else if (tag == 'X') {
      uint32_t id;
      if (rd(h, &id, 4) || id >= h->nt) {
        h_bad(h, "the qemu plugin's stream is cut short or out of order");
        return;
      }
      const tmpl *t = &h->t[id];
      if (!t->valid) {
        char hex[64] = "";
        for (int k = 0; k < t->size && k < 15; k++) sprintf(hex + 3 * k, "%02x ", t->bytes[k]);
        if (*hex) hex[strlen(hex) - 1] = 0;
        h_bad(h, "Capstone cannot decode the instruction at pc 0x%llx (bytes %s)",
              (unsigned long long)t->pc, hex);
        return;
      }
      if (h->have_cur) crack(h, &h->t[h->cur], t->pc);
      h->have_cur = 1;
      h->cur = id;
      h->nacc = 0;
    } else if (tag == 'M') {
      uint8_t m[9];
      if (rd(h, m, 9)) {
        h_bad(h, "the qemu plugin's stream is cut short");
        return;
      }
      if (h->nacc < MAX_ACC && h->have_cur) {
        maccess *a = &h->acc[h->nacc++];
        memcpy(&a->addr, m, 8);
        unsigned shift = m[8] & 0xf;
        a->size = (uint8_t)(shift > 6 ? 64 : 1u << shift);
        a->store = !!(m[8] & 0x10);
      }
    } else if (tag == 'E') {
      h->saw_end = 1;
    } else if (tag == 'W') {
      h->threads = 1;
    } else {
      h_bad(h, "the qemu plugin's stream has an unknown message 0x%02x", tag);
      return;
    }
  }
}

static size_t h_fill(void *ctx, ic_inst *buf, size_t cap) {
  ic_host *h = ctx;
  size_t n = 0;
  while (n < cap) {
    if (!h->qn) pump(h);
    if (!h->qn) break;
    buf[n++] = h->q[h->qh];
    h->qh = (h->qh + 1) % QCAP;
    h->qn--;
  }
  return n;
}

ic_inst_source ic_host_source(ic_host *h) {
  ic_inst_source s = {h, h_fill};
  return s;
}

uint64_t ic_host_skip(ic_host *h, uint64_t n) {
  uint64_t start = h->insts;
  ic_inst b[64];
  while (h->insts - start < n) /* whole instructions: micro-ops of one stay together */
    if (!h_fill(h, b, 1)) break;
  /* drop the rest of the last skipped instruction's micro-ops */
  while (h->qn) h_fill(h, b, 1);
  return h->insts - start;
}

uint64_t ic_host_instructions(const ic_host *h) { return h->insts; }

/* The first line qemu wrote on stderr, or "". */
static void qemu_said(ic_host *h, char *out, size_t cap) {
  out[0] = 0;
  if (h->err_fd < 0) return;
  ssize_t n = pread(h->err_fd, out, cap - 1, 0);
  if (n <= 0) {
    out[0] = 0;
    return;
  }
  out[n] = 0;
  char *nl = strchr(out, '\n');
  if (nl) *nl = 0;
  char *fd = strstr(out, PROG_FD_PATH); /* qemu names the program by the path it was given */
  if (fd && strlen(out) + strlen(h->prog) < cap + strlen(PROG_FD_PATH)) {
    memmove(fd + strlen(h->prog), fd + strlen(PROG_FD_PATH), strlen(fd + strlen(PROG_FD_PATH)) + 1);
    memcpy(fd, h->prog, strlen(h->prog));
  }
}

ic_status ic_host_finish(ic_host *h, int *exited, int *exit_code, ic_err *err) {
  *exited = 0;
  *exit_code = 0;
  int stopped = !h->eof; /* the stream did not end: stop qemu */
  if (h->fd >= 0) close(h->fd);
  h->fd = -1;
  if (h->pid > 0) {
    if (stopped) kill(h->pid, SIGKILL);
    int ws = 0;
    while (waitpid(h->pid, &ws, 0) < 0 && errno == EINTR) {
    }
    h->pid = -1;
    h->finished = 1;
    if (h->st) {
      *err = h->err;
      return h->st;
    }
    if (stopped) return IC_OK;
    char said[300];
    qemu_said(h, said, sizeof said);
    if (WIFEXITED(ws) && WEXITSTATUS(ws) == 127 && !h->insts)
      return ic_fail(err, IC_ERUN, "%s: %s could not be started", h->prog, h->qemu);
    if (!h->saw_end || !h->insts) { /* qemu exits through the plugin's end when it cannot load */
      if (WIFSIGNALED(ws))
        return ic_fail(err, IC_ERUN, "%s: killed by signal %d under %s%s%s", h->prog,
                       WTERMSIG(ws), h->qemu, *said ? ": " : "", said);
      return ic_fail(err, IC_ERUN, "%s: %s could not run it (exit %d)%s%s", h->prog, h->qemu,
                     WIFEXITED(ws) ? WEXITSTATUS(ws) : -1, *said ? ": " : "", said);
    }
    if (WIFSIGNALED(ws))
      return ic_fail(err, IC_ERUN, "%s: killed by signal %d", h->prog, WTERMSIG(ws));
    *exited = 1;
    *exit_code = WEXITSTATUS(ws);
    return IC_OK;
  }
  if (h->st) {
    *err = h->err;
    return h->st;
  }
  return IC_OK;
}

void ic_host_destroy(ic_host *h) {
  if (!h) return;
  if (h->fd >= 0) close(h->fd);
  if (h->pid > 0) {
    kill(h->pid, SIGKILL);
    waitpid(h->pid, NULL, 0);
  }
  if (h->err_fd >= 0) close(h->err_fd);
  ic_host_decoder_destroy(h->dec);
  free(h->t);
  free(h->prog);
  free(h);
}

typedef struct span {
  uint64_t addr;
  uint8_t size;
  const uint8_t *bytes;
} span;

static int span_cmp(const void *a, const void *b) {
  const span *x = a, *y = b;
  return x->addr < y->addr ? -1 : x->addr > y->addr;
}

int ic_host_code(const ic_host *h, int (*fn)(void *, uint64_t, const uint8_t *, size_t), void *ctx) {
  if (!h->nt) return 0;
  span *s = malloc(h->nt * sizeof *s);
  uint8_t *run = malloc(1 << 20);
  if (!s || !run) {
    free(s), free(run);
    return -1;
  }
  for (size_t k = 0; k < h->nt; k++) s[k] = (span){h->t[k].pc, h->t[k].size, h->t[k].bytes};
  qsort(s, h->nt, sizeof *s, span_cmp);
  int r = 0;
  uint64_t start = 0, end = 0;
  size_t len = 0;
  for (size_t k = 0; k <= h->nt && !r; k++) {
    if (k < h->nt && len && s[k].addr <= end) { /* continues or overlaps the run */
      uint64_t e = s[k].addr + s[k].size;
      if (e > end && len + (e - end) <= (1 << 20)) {
        memcpy(run + len, s[k].bytes + (end - s[k].addr), e - end);
        len += e - end;
        end = e;
      }
      continue;
    }
    if (len) r = fn(ctx, start, run, len);
    if (k < h->nt) {
      start = s[k].addr;
      end = start + s[k].size;
      memcpy(run, s[k].bytes, s[k].size);
      len = s[k].size;
    }
  }
  free(s);
  free(run);
  return r;
}
