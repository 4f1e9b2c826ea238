/* rv_internal.h: the emulator's internals shared by the frontends/rv64 sources.
 *
 * Layout of a guest process:
 *   - memory: 4 KiB pages in a 3-level radix table over the 36-bit page
 *     number (guest addresses below 2^48). A page is mapped with r/w/x
 *     permissions; its host bytes are allocated on first touch, so a large
 *     anonymous mapping costs nothing until used. Two direct-mapped software
 *     TLBs (read, write) cache page -> host addend for the fast path.
 *     Stores never take the fast path on executable pages, so that the slow
 *     path can drop stale pre-decoded instructions (self-modifying code).
 *   - block cache: direct-mapped by start pc; a block is a run of up to
 *     RV_BLOCK_MAX pre-decoded rv_dinst (operation, registers, immediate,
 *     and the record's static part) ending at a control transfer.
 *   - hart: x[32], f[32] (NaN-boxed singles), pc, fflags/frm, LR reservation.
 *   - OS: brk, mmap placement, guest fd -> host fd table, virtual clock.
 */
#ifndef RV_INTERNAL_H
#define RV_INTERNAL_H

#include <stdint.h>
#include <string.h>

#include "rv.h"

#define RV_PAGE_BITS 12
#define RV_PAGE_SIZE 4096u
#define RV_PAGE_MASK ((uint64_t)RV_PAGE_SIZE - 1)
#define RV_VA_BITS 48
#define RV_VA_LIMIT ((uint64_t)1 << RV_VA_BITS)
#define RV_RADIX_BITS 12
#define RV_RADIX_SIZE (1u << RV_RADIX_BITS)

#define RV_LIKELY(x) __builtin_expect(!!(x), 1)
#define RV_UNLIKELY(x) __builtin_expect(!!(x), 0)

enum { RV_PROT_R = 1, RV_PROT_W = 2, RV_PROT_X = 4, RV_MAPPED = 8 };

/* One page table entry: data NULL while the mapped page was never touched
   (reads as zeros). prot 0 means unmapped. */
typedef struct rv_pte {
  uint8_t *data;
  uint32_t prot;
} rv_pte;

#define RV_TLB_SIZE 1024
typedef struct rv_tlb {
  uint64_t vpn;     /* ~0: empty */
  uintptr_t addend; /* host address = guest address + addend */
} rv_tlb;

/* ---- operations: X(enum, mnemonic, operand format, op class) ----
 * Operand format, one char per operand as disassembled:
 *   d/D int/fp rd (destination)     s/S int/fp rs1     t/T int/fp rs2
 *   R fp rs3     i signed imm     u upper imm (lui/auipc)     b pc-relative
 *   target     o imm(rs1)     a (rs1)     c csr     z 5-bit csr immediate
 *   r rounding mode (printed unless dynamic)
 * The same string yields the record's source and destination registers. */
#define RV_OP_LIST(X)                                                                        \
  X(ILLEGAL, "illegal", "", OTHER)                                                            \
  X(LUI, "lui", "d,u", INT_ALU) X(AUIPC, "auipc", "d,u", INT_ALU)                              \
  X(JAL, "jal", "d,b", JUMP) X(JALR, "jalr", "d,o", IJUMP)                                     \
  X(BEQ, "beq", "s,t,b", BRANCH) X(BNE, "bne", "s,t,b", BRANCH)                                \
  X(BLT, "blt", "s,t,b", BRANCH) X(BGE, "bge", "s,t,b", BRANCH)                                \
  X(BLTU, "bltu", "s,t,b", BRANCH) X(BGEU, "bgeu", "s,t,b", BRANCH)                            \
  X(LB, "lb", "d,o", LOAD) X(LH, "lh", "d,o", LOAD) X(LW, "lw", "d,o", LOAD)                  \
  X(LD, "ld", "d,o", LOAD) X(LBU, "lbu", "d,o", LOAD) X(LHU, "lhu", "d,o", LOAD)              \
  X(LWU, "lwu", "d,o", LOAD)                                                                  \
  X(SB, "sb", "t,o", STORE) X(SH, "sh", "t,o", STORE) X(SW, "sw", "t,o", STORE)               \
  X(SD, "sd", "t,o", STORE)                                                                   \
  X(ADDI, "addi", "d,s,i", INT_ALU) X(SLTI, "slti", "d,s,i", INT_ALU)                          \
  X(SLTIU, "sltiu", "d,s,i", INT_ALU) X(XORI, "xori", "d,s,i", INT_ALU)                        \
  X(ORI, "ori", "d,s,i", INT_ALU) X(ANDI, "andi", "d,s,i", INT_ALU)                            \
  X(SLLI, "slli", "d,s,i", INT_ALU) X(SRLI, "srli", "d,s,i", INT_ALU)                          \
  X(SRAI, "srai", "d,s,i", INT_ALU)                                                           \
  X(ADD, "add", "d,s,t", INT_ALU) X(SUB, "sub", "d,s,t", INT_ALU)                              \
  X(SLL, "sll", "d,s,t", INT_ALU) X(SLT, "slt", "d,s,t", INT_ALU)                              \
  X(SLTU, "sltu", "d,s,t", INT_ALU) X(XOR, "xor", "d,s,t", INT_ALU)                            \
  X(SRL, "srl", "d,s,t", INT_ALU) X(SRA, "sra", "d,s,t", INT_ALU)                              \
  X(OR, "or", "d,s,t", INT_ALU) X(AND, "and", "d,s,t", INT_ALU)                                \
  X(ADDIW, "addiw", "d,s,i", INT_ALU) X(SLLIW, "slliw", "d,s,i", INT_ALU)                      \
  X(SRLIW, "srliw", "d,s,i", INT_ALU) X(SRAIW, "sraiw", "d,s,i", INT_ALU)                      \
  X(ADDW, "addw", "d,s,t", INT_ALU) X(SUBW, "subw", "d,s,t", INT_ALU)                          \
  X(SLLW, "sllw", "d,s,t", INT_ALU) X(SRLW, "srlw", "d,s,t", INT_ALU)                          \
  X(SRAW, "sraw", "d,s,t", INT_ALU)                                                           \
  X(MUL, "mul", "d,s,t", INT_MUL) X(MULH, "mulh", "d,s,t", INT_MUL)                            \
  X(MULHSU, "mulhsu", "d,s,t", INT_MUL) X(MULHU, "mulhu", "d,s,t", INT_MUL)                    \
  X(DIV, "div", "d,s,t", INT_DIV) X(DIVU, "divu", "d,s,t", INT_DIV)                            \
  X(REM, "rem", "d,s,t", INT_DIV) X(REMU, "remu", "d,s,t", INT_DIV)                            \
  X(MULW, "mulw", "d,s,t", INT_MUL) X(DIVW, "divw", "d,s,t", INT_DIV)                          \
  X(DIVUW, "divuw", "d,s,t", INT_DIV) X(REMW, "remw", "d,s,t", INT_DIV)                        \
  X(REMUW, "remuw", "d,s,t", INT_DIV)                                                         \
  X(FENCE, "fence", "", OTHER) X(FENCE_I, "fence.i", "", OTHER)                                \
  X(ECALL, "ecall", "", OTHER) X(EBREAK, "ebreak", "", OTHER)                                  \
  X(CSRRW, "csrrw", "d,c,s", OTHER) X(CSRRS, "csrrs", "d,c,s", OTHER)                          \
  X(CSRRC, "csrrc", "d,c,s", OTHER) X(CSRRWI, "csrrwi", "d,c,z", OTHER)                        \
  X(CSRRSI, "csrrsi", "d,c,z", OTHER) X(CSRRCI, "csrrci", "d,c,z", OTHER)                      \
  X(LR_W, "lr.w", "d,a", LOAD) X(SC_W, "sc.w", "d,t,a", STORE)                                 \
  X(AMOSWAP_W, "amoswap.w", "d,t,a", LOAD) X(AMOADD_W, "amoadd.w", "d,t,a", LOAD)              \
  X(AMOXOR_W, "amoxor.w", "d,t,a", LOAD) X(AMOAND_W, "amoand.w", "d,t,a", LOAD)                \
  X(AMOOR_W, "amoor.w", "d,t,a", LOAD) X(AMOMIN_W, "amomin.w", "d,t,a", LOAD)                  \
  X(AMOMAX_W, "amomax.w", "d,t,a", LOAD) X(AMOMINU_W, "amominu.w", "d,t,a", LOAD)              \
  X(AMOMAXU_W, "amomaxu.w", "d,t,a", LOAD)                                                    \
  X(LR_D, "lr.d", "d,a", LOAD) X(SC_D, "sc.d", "d,t,a", STORE)                                 \
  X(AMOSWAP_D, "amoswap.d", "d,t,a", LOAD) X(AMOADD_D, "amoadd.d", "d,t,a", LOAD)              \
  X(AMOXOR_D, "amoxor.d", "d,t,a", LOAD) X(AMOAND_D, "amoand.d", "d,t,a", LOAD)                \
  X(AMOOR_D, "amoor.d", "d,t,a", LOAD) X(AMOMIN_D, "amomin.d", "d,t,a", LOAD)                  \
  X(AMOMAX_D, "amomax.d", "d,t,a", LOAD) X(AMOMINU_D, "amominu.d", "d,t,a", LOAD)              \
  X(AMOMAXU_D, "amomaxu.d", "d,t,a", LOAD)                                                    \
  X(FLW, "flw", "D,o", LOAD) X(FSW, "fsw", "T,o", STORE)                                       \
  X(FLD, "fld", "D,o", LOAD) X(FSD, "fsd", "T,o", STORE)                                       \
  X(FMADD_S, "fmadd.s", "D,S,T,R,r", FP_MUL) X(FMSUB_S, "fmsub.s", "D,S,T,R,r", FP_MUL)        \
  X(FNMSUB_S, "fnmsub.s", "D,S,T,R,r", FP_MUL) X(FNMADD_S, "fnmadd.s", "D,S,T,R,r", FP_MUL)    \
  X(FMADD_D, "fmadd.d", "D,S,T,R,r", FP_MUL) X(FMSUB_D, "fmsub.d", "D,S,T,R,r", FP_MUL)        \
  X(FNMSUB_D, "fnmsub.d", "D,S,T,R,r", FP_MUL) X(FNMADD_D, "fnmadd.d", "D,S,T,R,r", FP_MUL)    \
  X(FADD_S, "fadd.s", "D,S,T,r", FP_ADD) X(FSUB_S, "fsub.s", "D,S,T,r", FP_ADD)                \
  X(FMUL_S, "fmul.s", "D,S,T,r", FP_MUL) X(FDIV_S, "fdiv.s", "D,S,T,r", FP_DIV)                \
  X(FSQRT_S, "fsqrt.s", "D,S,r", FP_DIV)                                                      \
  X(FSGNJ_S, "fsgnj.s", "D,S,T", FP_ADD) X(FSGNJN_S, "fsgnjn.s", "D,S,T", FP_ADD)              \
  X(FSGNJX_S, "fsgnjx.s", "D,S,T", FP_ADD)                                                    \
  X(FMIN_S, "fmin.s", "D,S,T", FP_ADD) X(FMAX_S, "fmax.s", "D,S,T", FP_ADD)                    \
  X(FCVT_W_S, "fcvt.w.s", "d,S,r", FP_ADD) X(FCVT_WU_S, "fcvt.wu.s", "d,S,r", FP_ADD)          \
  X(FCVT_L_S, "fcvt.l.s", "d,S,r", FP_ADD) X(FCVT_LU_S, "fcvt.lu.s", "d,S,r", FP_ADD)          \
  X(FMV_X_W, "fmv.x.w", "d,S", FP_ADD) X(FCLASS_S, "fclass.s", "d,S", FP_ADD)                  \
  X(FEQ_S, "feq.s", "d,S,T", FP_ADD) X(FLT_S, "flt.s", "d,S,T", FP_ADD)                        \
  X(FLE_S, "fle.s", "d,S,T", FP_ADD)                                                          \
  X(FCVT_S_W, "fcvt.s.w", "D,s,r", FP_ADD) X(FCVT_S_WU, "fcvt.s.wu", "D,s,r", FP_ADD)          \
  X(FCVT_S_L, "fcvt.s.l", "D,s,r", FP_ADD) X(FCVT_S_LU, "fcvt.s.lu", "D,s,r", FP_ADD)          \
  X(FMV_W_X, "fmv.w.x", "D,s", FP_ADD)                                                        \
  X(FADD_D, "fadd.d", "D,S,T,r", FP_ADD) X(FSUB_D, "fsub.d", "D,S,T,r", FP_ADD)                \
  X(FMUL_D, "fmul.d", "D,S,T,r", FP_MUL) X(FDIV_D, "fdiv.d", "D,S,T,r", FP_DIV)                \
  X(FSQRT_D, "fsqrt.d", "D,S,r", FP_DIV)                                                      \
  X(FSGNJ_D, "fsgnj.d", "D,S,T", FP_ADD) X(FSGNJN_D, "fsgnjn.d", "D,S,T", FP_ADD)              \
  X(FSGNJX_D, "fsgnjx.d", "D,S,T", FP_ADD)                                                    \
  X(FMIN_D, "fmin.d", "D,S,T", FP_ADD) X(FMAX_D, "fmax.d", "D,S,T", FP_ADD)                    \
  X(FCVT_S_D, "fcvt.s.d", "D,S,r", FP_ADD) X(FCVT_D_S, "fcvt.d.s", "D,S,r", FP_ADD)            \
  X(FCVT_W_D, "fcvt.w.d", "d,S,r", FP_ADD) X(FCVT_WU_D, "fcvt.wu.d", "d,S,r", FP_ADD)          \
  X(FCVT_L_D, "fcvt.l.d", "d,S,r", FP_ADD) X(FCVT_LU_D, "fcvt.lu.d", "d,S,r", FP_ADD)          \
  X(FMV_X_D, "fmv.x.d", "d,S", FP_ADD) X(FCLASS_D, "fclass.d", "d,S", FP_ADD)                  \
  X(FEQ_D, "feq.d", "d,S,T", FP_ADD) X(FLT_D, "flt.d", "d,S,T", FP_ADD)                        \
  X(FLE_D, "fle.d", "d,S,T", FP_ADD)                                                          \
  X(FCVT_D_W, "fcvt.d.w", "D,s,r", FP_ADD) X(FCVT_D_WU, "fcvt.d.wu", "D,s,r", FP_ADD)          \
  X(FCVT_D_L, "fcvt.d.l", "D,s,r", FP_ADD) X(FCVT_D_LU, "fcvt.d.lu", "D,s,r", FP_ADD)          \
  X(FMV_D_X, "fmv.d.x", "D,s", FP_ADD)

typedef enum rv_op {
#define RV_X(e, m, f, c) RV_OP_##e,
  RV_OP_LIST(RV_X)
#undef RV_X
  RV_OP_COUNT
} rv_op;

typedef struct rv_opinfo {
  const char *mnemonic;
  const char *fmt;
  uint8_t opclass; /* ic_opclass before the jal/jalr refinement */
} rv_opinfo;
extern const rv_opinfo rv_opinfo_table[RV_OP_COUNT];

/* A decoded instruction: what the interpreter needs, plus the static part
   of its record. */
typedef struct rv_dinst {
  uint64_t pc; /* the instruction's address */
  int64_t imm;
  uint16_t op;
  uint8_t rd, rs1, rs2, rs3, rm, size;
  uint8_t opclass, mem_size, is_rmw;
  uint8_t src[IC_MAX_SRC], dst[IC_MAX_DST];
  uint32_t raw;
} rv_dinst;
#define RV_NO_PC UINT64_MAX

/* A block: up to RV_BLOCK_MAX pre-decoded instructions that run in a row,
   from pc to the first control transfer, system instruction or page end.
   Running a block walks an array, so the next instruction does not wait for
   the previous one's size to be loaded. */
#define RV_BLOCK_MAX 16
typedef struct rv_block {
  uint64_t pc;  /* tag; RV_NO_PC when empty */
  uint64_t end; /* pc after the last instruction */
  uint32_t n;
  rv_dinst insts[RV_BLOCK_MAX];
} rv_block;
#define RV_BCACHE_BITS 12
#define RV_BCACHE_SIZE (1u << RV_BCACHE_BITS)

#define RV_MAX_FDS 256

/* What a guest fd reads: the host file, or the seeded random stream
   (/dev/urandom, /dev/random; the host fd is kept for fstat). */
enum { RV_FD_HOST = 0, RV_FD_RANDOM = 1 };

typedef struct rv_fd {
  int host; /* -1: closed */
  uint8_t owned;
  uint8_t is_dir;
  uint8_t kind; /* RV_FD_* */
} rv_fd;

/* Unsupported system calls: answered -ENOSYS and counted by number. */
#define RV_MAX_NOSYS 16
typedef struct rv_nosys {
  uint64_t nr, count;
} rv_nosys;

struct rv_proc {
  /* hart */
  uint64_t x[32];
  uint64_t f[32];
  uint64_t pc;
  uint32_t fflags, frm;
  int host_rm; /* rounding mode last set on the host during a run */
  uint64_t resv_addr;
  int resv_valid;
  uint64_t icount;

  /* run state */
  rv_state state;
  int exit_code;
  int term_sig;  /* RV_FAULT: the signal that ended the guest */
  int self_kill; /* ... and the guest sent it itself (kill, tgkill, abort) */
  char why[320];
  rv_nosys nosys[RV_MAX_NOSYS]; /* the first RV_MAX_NOSYS numbers, in order seen */
  unsigned n_nosys;
  uint64_t nosys_other; /* calls of numbers past the first RV_MAX_NOSYS */

  /* memory */
  rv_tlb tlb_r[RV_TLB_SIZE], tlb_w[RV_TLB_SIZE];
  rv_pte **radix[RV_RADIX_SIZE]; /* [vpn>>24][(vpn>>12)&4095] -> leaf of 4096 ptes */
  uint64_t pages_alloc;          /* host pages allocated */
  uint64_t pages_mapped;         /* guest pages mapped (what --guest-memory caps) */
  uint64_t pages_limit;          /* at most this many mapped pages */
  int host_oom;                  /* a host allocation for guest memory failed */

  rv_block *bcache; /* RV_BCACHE_SIZE direct-mapped blocks; allocated by the first run */

  /* OS */
  uint64_t brk_start, brk_cur;
  uint64_t mmap_next; /* next top-down mmap placement (exclusive end) */
  uint64_t stack_top;
  rv_fd fds[RV_MAX_FDS];
  uint64_t seed, rand_ctr;
  uint8_t sigact[65][24]; /* rt_sigaction: remembered, never delivered */
  uint64_t sigmask;
  char *exe_path; /* for /proc/self/exe */
  int root_fd;    /* --guest-root: an O_PATH fd the guest's lookups stay in, or -1 */

  /* program image */
  uint64_t entry, phdr, phent, phnum;
  uint64_t *codeptr; /* code addresses the loaded image's 8-byte words hold, ascending */
  size_t ncodeptr;
};

/* ---- memory (rv_mem.c) ---- */
void rv_mem_init(rv_proc *p);
void rv_mem_free(rv_proc *p);
int rv_mem_copy_from(rv_proc *dst, const rv_proc *src); /* 0 ok, -1 out of memory */
void rv_tlb_flush(rv_proc *p);
/* Maps [addr, addr+len) (page aligned) with prot, replacing what was there.
   Returns 0, or -1 on out of memory. */
int rv_mem_map(rv_proc *p, uint64_t addr, uint64_t len, uint32_t prot);
void rv_mem_unmap(rv_proc *p, uint64_t addr, uint64_t len);
/* Drops the contents of [addr, addr+len): its pages read as zeros again. */
void rv_mem_discard(rv_proc *p, uint64_t addr, uint64_t len);
/* 0, or -1 when some page of the range is not mapped. */
int rv_mem_protect(rv_proc *p, uint64_t addr, uint64_t len, uint32_t prot);
int rv_mem_range_free(const rv_proc *p, uint64_t addr, uint64_t len);
int rv_mem_range_mapped(const rv_proc *p, uint64_t addr, uint64_t len);
/* Moves the pages of [old, old+len) to [new, new+len) (both free/mapped). */
void rv_mem_move(rv_proc *p, uint64_t old_addr, uint64_t new_addr, uint64_t len);
rv_pte *rv_mem_pte(const rv_proc *p, uint64_t vpn);
/* Host pointer to guest byte addr if its page has all of prot (allocating
   the page on first touch); NULL otherwise (or on out of memory). */
uint8_t *rv_mem_host(rv_proc *p, uint64_t addr, uint32_t prot);
/* Copies between guest and host with permission checks; 0 or -1 (fault). */
int rv_mem_read(rv_proc *p, uint64_t addr, void *buf, uint64_t len);
int rv_mem_write(rv_proc *p, uint64_t addr, const void *buf, uint64_t len);
/* Copies without permission checks (the loader writing read-only pages). */
int rv_mem_poke(rv_proc *p, uint64_t addr, const void *buf, uint64_t len);
/* Reads without allocating or checking r (peek at code); 0 or -1. */
int rv_mem_peek(const rv_proc *p, uint64_t addr, void *buf, uint64_t len, uint32_t prot);
/* Reads a NUL-terminated guest string of at most cap-1 bytes; 0, -1 fault,
   -2 too long. */
int rv_mem_read_str(rv_proc *p, uint64_t addr, char *buf, size_t cap);
/* Drops pre-decoded blocks that overlap [addr, addr+len). */
void rv_dcache_invalidate(rv_proc *p, uint64_t addr, uint64_t len);
/* A new, empty block cache (NULL on out of memory). */
rv_block *rv_bcache_new(void);

/* ---- decode (rv_decode.c) ---- */
/* Decodes the instruction at pc into *d, including the record's static
   part. raw holds its bytes, little-endian; a compressed one uses only the
   low 16 bits. Undecodable bits give RV_OP_ILLEGAL. */
void rv_decode(uint32_t raw, uint64_t pc, rv_dinst *d);

/* ---- system calls (rv_sys.c) ---- */
void rv_syscall(rv_proc *p);
/* Stops the run: the guest is killed by signal sig (SIGSEGV for a bad
   address, SIGILL, SIGTRAP, SIGBUS, SIGKILL when the host has no memory). */
void rv_fault(rv_proc *p, int sig, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Virtual clock: one instruction is one nanosecond from a fixed epoch. */
#define RV_EPOCH_SEC 1700000000ull
void rv_fds_close(rv_proc *p);
int rv_fds_dup_from(rv_proc *dst, const rv_proc *src);
/* splitmix64 step (AT_RANDOM, getrandom). */
uint64_t rv_rand_next(uint64_t *state);

#endif
