/* test_synth_loop.h: a synthetic instruction stream for tests that run
 * the timing model without the emulator: a loop at 0x1000 of 12
 * instructions (two loads striding over 8 MB, which miss; a chain of adds
 * and multiplies on them; a store), closed by a branch back taken 3 times
 * in 4 at random, else 4 more and a jump back. `max` instructions, from
 * the seed x. */
#ifndef TEST_SYNTH_LOOP_H
#define TEST_SYNTH_LOOP_H

#include <stdint.h>
#include <string.h>

#include "inst.h"

typedef struct synth {
  uint64_t n, max, x, pc, addr;
} synth;

static inline uint64_t synth_rnd(uint64_t *x) {
  *x ^= *x << 13;
  *x ^= *x >> 7;
  *x ^= *x << 17;
  return *x;
}

/* Loop body at 0x1000: 12 instructions, the last a branch back (taken
 * with probability 3/4, random), else 4 more and a jump back. */
static inline size_t synth_fill(void *ctx, ic_inst *buf, size_t cap) {
  synth *s = ctx;
  size_t k = 0;
  while (k < cap && s->n < s->max) {
    ic_inst *in = &buf[k++];
    memset(in, 0, sizeof *in);
    memset(in->src, IC_REG_NONE, sizeof in->src);
    memset(in->dst, IC_REG_NONE, sizeof in->dst);
    in->pc = s->pc;
    in->size = 4;
    in->opclass = IC_OP_INT_ALU;
    uint64_t slot = (s->pc - 0x1000) / 4;
    switch (slot) {
    case 0: /* load a0, (a1): strided over 8 MB, misses */
    case 5:
      in->opclass = IC_OP_LOAD;
      in->src[0] = 11;
      in->dst[0] = 10 + (uint8_t)(slot / 5);
      s->addr = (s->addr + 4160) % (8u << 20);
      in->mem_addr = 0x10000000 + s->addr;
      in->mem_size = 8;
      break;
    case 1: in->src[0] = 10; in->src[1] = 12; in->dst[0] = 12; break;
    case 2: in->opclass = IC_OP_INT_MUL; in->src[0] = 12; in->src[1] = 13; in->dst[0] = 13; break;
    case 3: in->src[0] = 11; in->dst[0] = 11; break;
    case 7:
      in->opclass = IC_OP_STORE;
      in->src[0] = 11;
      in->src[1] = 13;
      in->mem_addr = 0x20000000 + (s->n % 512) * 8;
      in->mem_size = 8;
      break;
    case 11: in->opclass = IC_OP_BRANCH; in->src[0] = 12; break;
    case 15: in->opclass = IC_OP_JUMP; break;
    default: in->src[0] = 14; in->dst[0] = 14 + (uint8_t)(slot % 3); break;
    }
    if (slot == 11) in->next_pc = synth_rnd(&s->x) % 4 ? 0x1000 : s->pc + 4;
    else if (slot == 15) in->next_pc = 0x1000;
    else in->next_pc = s->pc + 4;
    s->pc = in->next_pc;
    s->n++;
  }
  return k;
}

#endif
