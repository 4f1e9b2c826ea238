/* test_model_synth.h: synthetic instruction streams for the model tests.
 *
 * A stream is an array of ic_inst built by hand: a loop body produced by a
 * generator, closed by a backward branch, so the numbers a test expects can
 * be derived from the machine parameters alone. */
#ifndef TEST_MODEL_SYNTH_H
#define TEST_MODEL_SYNTH_H

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ooo.h"

typedef struct arr_src {
  const ic_inst *v;
  size_t n, i;
} arr_src;

static size_t arr_fill(void *ctx, ic_inst *buf, size_t cap) {
  arr_src *a = ctx;
  size_t k = a->n - a->i < cap ? a->n - a->i : cap;
  memcpy(buf, a->v + a->i, k * sizeof *buf);
  a->i += k;
  return k;
}

static inline ic_inst_source arr_source(arr_src *a, const ic_inst *v, size_t n) {
  a->v = v;
  a->n = n;
  a->i = 0;
  ic_inst_source s = {a, arr_fill};
  return s;
}

static inline ic_inst mk(uint8_t op, uint8_t dst, uint8_t s0, uint8_t s1) {
  ic_inst in;
  memset(&in, 0, sizeof in);
  in.opclass = op;
  in.size = 4;
  in.dst[0] = dst;
  in.src[0] = s0;
  in.src[1] = s1;
  in.src[2] = IC_REG_NONE;
  return in;
}

/* splitmix64: well mixed bits, so a predictor cannot learn them */
static inline uint64_t lcg(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* gen fills body instruction j of the loop (pc and next_pc are set after);
 * it may make the instruction a branch with a taken target of its own. */
typedef void (*body_fn)(ic_inst *in, size_t j, void *st);

/* n instructions: loops of `body` generated instructions and a backward
 * branch (taken but at the very end). A generated branch with next_pc = 1
 * is taken to pc + 8, skipping body slot j + 1, so the stream stays
 * consistent (each record's next_pc is the next record's pc). */
static inline ic_inst *make_loop(size_t n, size_t body, body_fn gen, void *st) {
  ic_inst *v = calloc(n, sizeof *v);
  const uint64_t base = 0x10000;
  size_t k = 0;
  while (k < n) {
    for (size_t j = 0; j < body && k < n; j++, k++) {
      v[k].next_pc = 0;
      gen(&v[k], j, st);
      v[k].pc = base + 4 * j;
      v[k].size = 4;
      if (v[k].opclass == IC_OP_BRANCH && v[k].next_pc && j + 2 < body) {
        v[k].next_pc = v[k].pc + 8;
        j++;
      } else {
        v[k].next_pc = v[k].pc + 4;
      }
    }
    if (k < n) {
      v[k] = mk(IC_OP_BRANCH, IC_REG_NONE, IC_REG_NONE, IC_REG_NONE);
      v[k].pc = base + 4 * body;
      v[k].next_pc = k + 1 < n ? base : v[k].pc + 4;
      k++;
    }
  }
  return v;
}

/* Runs a stream on a fresh core; warm records first, then the rest. */
static inline ic_status run_stream(const ooo_config *cfg, ic_catmask ideal, const ic_inst *v, size_t n,
                                   size_t warm, const ic_graph_sink *sink, ooo_stats *out, ic_err *err) {
  ooo_core *c;
  ic_status st = ooo_create(&c, cfg, ideal, err);
  if (st) return st;
  if (sink) ooo_set_graph_sink(c, *sink);
  arr_src a;
  uint64_t done;
  if (warm) st = ooo_warm(c, arr_source(&a, v, warm), warm, &done, err);
  if (!st) st = ooo_run(c, arr_source(&a, v + warm, n - warm), 0, err);
  if (!st) *out = *ooo_get_stats(c);
  ooo_destroy(c);
  return st;
}

/* ---- generators ---------------------------------------------------------- */

static inline void g_chain(ic_inst *in, size_t j, void *st) {
  (void)j, (void)st;
  *in = mk(IC_OP_INT_ALU, 5, 5, IC_REG_NONE);
}
static inline void g_indep(ic_inst *in, size_t j, void *st) {
  (void)st;
  *in = mk(IC_OP_INT_ALU, (uint8_t)(6 + j % 20), IC_REG_NONE, IC_REG_NONE);
}
static inline void g_mul(ic_inst *in, size_t j, void *st) {
  (void)j, (void)st;
  *in = mk(IC_OP_INT_MUL, 5, 5, 6);
}
typedef struct chase_st {
  uint64_t seed, lines;
} chase_st;
/* dependent loads x5 = [x5] at random lines among `lines` 64-byte lines */
static inline void g_chase(ic_inst *in, size_t j, void *st) {
  (void)j;
  chase_st *c = st;
  *in = mk(IC_OP_LOAD, 5, 5, IC_REG_NONE);
  in->mem_size = 8;
  in->mem_addr = 0x40000000 + (lcg(&c->seed) % c->lines) * 64;
}
/* a branch taken at random (it skips a nop), between independent adds */
static inline void g_randbr(ic_inst *in, size_t j, void *st) {
  uint64_t *seed = st;
  if (j % 4 == 1) {
    *in = mk(IC_OP_BRANCH, IC_REG_NONE, 7, IC_REG_NONE);
    in->next_pc = (lcg(seed) >> 7) & 1; /* make_loop turns 1 into a taken target */
  } else {
    *in = mk(IC_OP_INT_ALU, 7, IC_REG_NONE, IC_REG_NONE);
  }
}
/* a mix of everything the idealizations touch */
static inline void g_mix(ic_inst *in, size_t j, void *st) {
  uint64_t *seed = st;
  switch (j % 12) {
  case 0: *in = mk(IC_OP_LOAD, 5, 6, IC_REG_NONE); in->mem_size = 8;
          in->mem_addr = 0x40000000 + (lcg(seed) % 65536) * 64; break;
  case 1: *in = mk(IC_OP_INT_ALU, 8, 5, 8); break;
  case 2: *in = mk(IC_OP_INT_MUL, 9, 8, 9); break;
  case 3: *in = mk(IC_OP_BRANCH, IC_REG_NONE, 9, IC_REG_NONE); in->next_pc = (lcg(seed) >> 9) & 1; break;
  case 4: *in = mk(IC_OP_INT_ALU, 10, IC_REG_NONE, IC_REG_NONE); break;
  case 5: *in = mk(IC_OP_STORE, IC_REG_NONE, 6, 8); in->mem_size = 8;
          in->mem_addr = 0x50000000 + (lcg(seed) % 512) * 8; break;
  case 6: *in = mk(IC_OP_LOAD, 11, 6, IC_REG_NONE); in->mem_size = 8;
          in->mem_addr = 0x50000000 + (lcg(seed) % 512) * 8; break;
  case 7: *in = mk(IC_OP_FP_MUL, 40, 40, 41); break;
  case 8: *in = mk(IC_OP_FP_ADD, 42, 40, 42); break;
  case 9: *in = mk(IC_OP_INT_DIV, 12, 11, 12); break;
  case 10: *in = mk(IC_OP_INT_ALU, 6, 6, IC_REG_NONE); break;
  default: *in = mk(IC_OP_FP_DIV, 43, 42, IC_REG_NONE); break;
  }
}

/* Machines unlike the shipped ones, drawn from a fixed seed: each key from
 * a list of values that includes its extremes (a 1-entry ROB, 1-wide
 * issue, a 1-cycle memory, an IQ or LSQ smaller than the ROB). The graph
 * must replay every one of them exactly: the tool is used on machines
 * nobody here configured. Uses Criterion's asserts. */
static inline void random_machine(ooo_config *cfg, uint64_t *seed) {
  static const struct {
    const char *key;
    int n;
    int v[7];
  } keys[] = {
      {"core.fetch_width", 6, {1, 2, 3, 4, 8, 32}},    {"core.fetch_queue", 4, {1, 2, 16, 64}},
      {"core.fetch_taken", 3, {1, 2, 8}},              {"core.frontend_depth", 4, {1, 2, 9, 40}},
      {"core.dispatch_ready", 4, {1, 2, 3, 20}},       {"core.rob", 7, {1, 2, 8, 32, 64, 128, 512}},
      {"core.issue_width", 6, {1, 2, 3, 4, 8, 32}},    {"core.wakeup", 3, {1, 2, 4}},
      {"core.commit_width", 4, {1, 2, 6, 16}},         {"core.store_bw", 3, {1, 2, 4}},
      {"core.recovery", 4, {0, 1, 3, 50}},             {"fu.int_alu", 4, {1, 2, 3, 6}},
      {"fu.int_mul", 2, {1, 2}},                       {"fu.fp_add", 3, {1, 2, 4}},
      {"fu.fp_muldiv", 2, {1, 2}},                     {"fu.ldst", 4, {1, 2, 3, 4}},
      {"latency.int_alu", 2, {1, 2}},                  {"latency.int_mul", 3, {1, 3, 5}},
      {"latency.int_div", 3, {1, 20, 100}},            {"latency.fp_add", 3, {1, 2, 4}},
      {"latency.fp_mul", 3, {1, 4, 6}},                {"latency.fp_div", 3, {1, 12, 30}},
      {"l1d.latency", 4, {1, 2, 4, 6}},                {"l1d.size", 3, {1024, 8192, 32768}},
      {"l1d.ways", 4, {1, 2, 4, 8}},                   {"l2.latency", 3, {1, 12, 30}},
      {"mem.latency", 4, {1, 50, 100, 400}},           {"mem.mshrs", 5, {1, 2, 4, 8, 64}},
      {"tlb.miss_latency", 3, {0, 30, 100}},           {"bpred.history", 3, {0, 4, 13}},
  };
  ic_err err;
  char set[96];
  int rob = 0;
  for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
    const int v = keys[k].v[lcg(seed) % (uint64_t)keys[k].n];
    if (!strcmp(keys[k].key, "core.rob")) rob = v;
    snprintf(set, sizeof set, "%s=%d", keys[k].key, v);
    cr_assert_eq(ooo_config_set(cfg, set, &err), IC_OK, "%s: %s", set, err.msg);
  }
  /* the queues: as large as the ROB, or smaller (a split window) */
  const int iq[] = {rob, rob, rob / 2, rob / 4, 1}, lsq[] = {rob, rob / 2, 3};
  const int q = iq[lcg(seed) % 5], l = lsq[lcg(seed) % 3];
  snprintf(set, sizeof set, "core.iq=%d", q > 0 ? q : 1);
  cr_assert_eq(ooo_config_set(cfg, set, &err), IC_OK, "%s: %s", set, err.msg);
  snprintf(set, sizeof set, "core.lsq=%d", l > 0 ? l : 1);
  cr_assert_eq(ooo_config_set(cfg, set, &err), IC_OK, "%s: %s", set, err.msg);
}

#endif
