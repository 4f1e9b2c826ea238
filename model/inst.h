/* inst.h: the instruction stream, the contract between frontends and model.
 *
 * One ic_inst per committed dynamic instruction, in program order. It says
 * what the instruction is and what it touched, never when: the stream carries
 * no timing. The model pulls records in batches through ic_inst_source, so a
 * frontend (the rv64 emulator, later trace readers) is one fill function and
 * the hot loop pays one indirect call per batch, not per instruction.
 *
 * The program image maps a pc to its static instruction; the stitcher walks
 * it to turn signature bits back into a path. */
#ifndef IC_INST_H
#define IC_INST_H

#include <stddef.h>
#include <stdint.h>

#include "ic_err.h"

/* Operation classes. X(enum suffix, name shown to users) */
#define IC_OPCLASS_LIST(X) \
  X(INT_ALU, "int_alu")    /* one-cycle integer op (add, logic, shift, lui, auipc, compare) */ \
  X(INT_MUL, "int_mul")    /* integer multiply */ \
  X(INT_DIV, "int_div")    /* integer divide / remainder */ \
  X(FP_ADD, "fp_add")      /* fp add/sub/compare/convert/move/sign-inject/min/max/classify */ \
  X(FP_MUL, "fp_mul")      /* fp multiply and fused multiply-add */ \
  X(FP_DIV, "fp_div")      /* fp divide and square root */ \
  X(LOAD, "load")          /* integer/fp load, LR, AMO (reads memory, writes a register) */ \
  X(STORE, "store")        /* integer/fp store, SC */ \
  X(BRANCH, "branch")      /* conditional branch */ \
  X(JUMP, "jump")          /* direct unconditional jump that is not a call (jal x0) */ \
  X(CALL, "call")          /* jal/jalr writing ra or t0 (x1/x5) */ \
  X(RETURN, "return")      /* jalr x0, 0(ra|t0) */ \
  X(IJUMP, "ijump")        /* any other indirect jump */ \
  X(OTHER, "other")        /* ecall, fence, csr access, ebreak, nop-like system ops */

typedef enum ic_opclass {
#define IC_X(e, n) IC_OP_##e,
  IC_OPCLASS_LIST(IC_X)
#undef IC_X
  IC_OP_COUNT
} ic_opclass;

extern const char *const ic_opclass_names[IC_OP_COUNT];

/* Register ids in one numbering. x0 is never a dependence and is never
 * listed; IC_REG_NONE fills unused slots. */
enum {
  IC_REG_X0 = 0,    /* integer registers x0..x31 are 0..31 */
  IC_REG_F0 = 32,   /* fp registers f0..f31 are 32..63 */
  IC_REG_FCSR = 64, /* fflags/frm/fcsr as one dependence */
  IC_REG_COUNT = 65,
  IC_REG_NONE = 0xff,
};

#define IC_MAX_SRC 3
#define IC_MAX_DST 1

typedef struct ic_inst {
  uint64_t pc;
  uint64_t next_pc;  /* pc of the next committed instruction: outcome and target */
  uint64_t mem_addr; /* effective address of a load/store/AMO, else 0 */
  uint8_t size;      /* instruction length in bytes: 2 or 4 */
  uint8_t opclass;   /* ic_opclass */
  uint8_t mem_size;  /* bytes accessed, 0 if none */
  uint8_t src[IC_MAX_SRC]; /* source register ids, IC_REG_NONE when unused */
  uint8_t dst[IC_MAX_DST]; /* destination register id, IC_REG_NONE when unused */
  uint8_t is_mem_rmw;      /* AMO/SC: also writes memory */
} ic_inst;

/* True when the record ends the fetch block: a branch taken or any jump. */
static inline int ic_inst_taken(const ic_inst *in) {
  return in->next_pc != in->pc + in->size;
}

/* A pull-based source of records. fill() writes up to cap records into buf
 * and returns how many; 0 means the stream ended (normally or not: the owner
 * of ctx says which). */
typedef struct ic_inst_source {
  void *ctx;
  size_t (*fill)(void *ctx, ic_inst *buf, size_t cap);
} ic_inst_source;

/* A static instruction of the program image. */
typedef struct ic_static_inst {
  uint8_t valid;    /* 0: no decodable instruction at this pc */
  uint8_t size;
  uint8_t opclass;
  uint8_t src[IC_MAX_SRC];
  uint8_t dst[IC_MAX_DST];
  uint64_t target;  /* direct branch/jump/call target, else 0 */
  uint32_t raw;     /* instruction bits (16-bit ones in the low half) */
  uint8_t is_mem_rmw; /* AMO/SC: also writes memory (as ic_inst's) */
} ic_static_inst;

/* pc -> static instruction; returns 0 and fills out->valid = 0 for a pc
 * outside the code. code_pointers (NULL where the image does not know
 * them): *out = the distinct addresses in the program's code that 8-byte
 * aligned words of its loaded image hold (function pointer tables, vtables,
 * computed-goto tables: where an indirect call or jump may go), ascending;
 * returns their count; valid while the image is. */
typedef struct ic_program_image {
  void *ctx;
  int (*lookup)(void *ctx, uint64_t pc, ic_static_inst *out);
  size_t (*code_pointers)(void *ctx, const uint64_t **out);
} ic_program_image;

#endif
