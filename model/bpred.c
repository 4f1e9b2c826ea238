/* bpred.c: combined bimodal/gshare predictor, BTB and RAS (see bpred.h). */
#include "bpred.h"

#include <stdlib.h>
#include <string.h>

#include "inst.h"

int bp_init(bpred *b, uint32_t bimodal, uint32_t gshare, uint32_t hist_bits, uint32_t meta,
            uint32_t btb_entries, uint32_t btb_ways, uint32_t ras) {
  memset(b, 0, sizeof *b);
  b->bimodal = malloc(bimodal);
  b->gshare = malloc(gshare);
  b->meta = malloc(meta);
  b->btb_sets = btb_entries / btb_ways;
  b->btb_ways = btb_ways;
  b->btb_tag = calloc(btb_entries, sizeof *b->btb_tag);
  b->btb_target = calloc(btb_entries, sizeof *b->btb_target);
  b->btb_lru = calloc(btb_entries, sizeof *b->btb_lru);
  b->ras_size = ras;
  b->ras = calloc(ras ? ras : 1, sizeof *b->ras);
  if (!b->bimodal || !b->gshare || !b->meta || !b->btb_tag || !b->btb_target || !b->btb_lru ||
      !b->ras) {
    bp_free(b);
    return -1;
  }
  /* weakly not-taken counters; meta weakly prefers bimodal */
  memset(b->bimodal, 1, bimodal);
  memset(b->gshare, 1, gshare);
  memset(b->meta, 1, meta);
  b->bim_mask = bimodal - 1;
  b->gsh_mask = gshare - 1;
  b->meta_mask = meta - 1;
  b->hist_mask = hist_bits >= 32 ? UINT32_MAX : (1u << hist_bits) - 1;
  return 0;
}

void bp_free(bpred *b) {
  free(b->bimodal);
  free(b->gshare);
  free(b->meta);
  free(b->btb_tag);
  free(b->btb_target);
  free(b->btb_lru);
  free(b->ras);
  memset(b, 0, sizeof *b);
}

static inline void counter_update(uint8_t *c, int taken) {
  if (taken) {
    if (*c < 3) (*c)++;
  } else if (*c > 0) {
    (*c)--;
  }
}

/* BTB lookup: 1 and *target if pc is present. */
static int btb_lookup(bpred *b, uint64_t pc, uint64_t *target) {
  uint64_t key = (pc >> 1) + 1;
  uint64_t base = ((pc >> 1) & (b->btb_sets - 1)) * b->btb_ways;
  for (uint32_t w = 0; w < b->btb_ways; w++)
    if (b->btb_tag[base + w] == key) {
      b->btb_lru[base + w] = ++b->btb_tick;
      *target = b->btb_target[base + w];
      return 1;
    }
  return 0;
}

static void btb_update(bpred *b, uint64_t pc, uint64_t target) {
  uint64_t key = (pc >> 1) + 1;
  uint64_t base = ((pc >> 1) & (b->btb_sets - 1)) * b->btb_ways;
  uint64_t victim = base, best = UINT64_MAX;
  for (uint32_t w = 0; w < b->btb_ways; w++) {
    uint64_t i = base + w;
    if (b->btb_tag[i] == key) {
      victim = i;
      break;
    }
    if (b->btb_lru[i] < best) best = b->btb_lru[i], victim = i;
  }
  b->btb_tag[victim] = key;
  b->btb_target[victim] = target;
  b->btb_lru[victim] = ++b->btb_tick;
}

static void ras_push(bpred *b, uint64_t ret) {
  if (!b->ras_size) return;
  b->ras_top = (b->ras_top + 1) % b->ras_size;
  b->ras[b->ras_top] = ret;
  if (b->ras_count < b->ras_size) b->ras_count++;
}

static int ras_pop(bpred *b, uint64_t *ret) {
  if (!b->ras_count) return 0;
  *ret = b->ras[b->ras_top];
  b->ras_top = (b->ras_top + b->ras_size - 1) % b->ras_size;
  b->ras_count--;
  return 1;
}

int bp_predict_update(bpred *b, uint8_t opclass, uint64_t pc, uint8_t size, uint64_t next_pc) {
  uint64_t fall = pc + size, target = 0;
  int taken = next_pc != fall, wrong = 0;
  switch (opclass) {
  case IC_OP_BRANCH: {
    uint32_t ib = (uint32_t)(pc >> 1) & b->bim_mask;
    uint32_t ig = ((uint32_t)(pc >> 1) ^ b->history) & b->gsh_mask;
    uint32_t im = (uint32_t)(pc >> 1) & b->meta_mask;
    int pb = b->bimodal[ib] >= 2, pg = b->gshare[ig] >= 2;
    int pred = b->meta[im] >= 2 ? pg : pb;
    if (pred) {
      int have = btb_lookup(b, pc, &target);
      wrong = taken ? (!have || target != next_pc) : 1;
    } else {
      wrong = taken;
    }
    if (pb != pg) counter_update(&b->meta[im], pg == taken);
    counter_update(&b->bimodal[ib], taken);
    counter_update(&b->gshare[ig], taken);
    b->history = ((b->history << 1) | (uint32_t)taken) & b->hist_mask;
    if (taken) btb_update(b, pc, next_pc);
    break;
  }
  case IC_OP_JUMP:
  case IC_OP_IJUMP:
  case IC_OP_CALL: {
    int have = btb_lookup(b, pc, &target);
    wrong = !have || target != next_pc;
    btb_update(b, pc, next_pc);
    if (opclass == IC_OP_CALL) ras_push(b, fall);
    break;
  }
  case IC_OP_RETURN: {
    int have = ras_pop(b, &target);
    wrong = !have || target != next_pc;
    break;
  }
  default:
    break;
  }
  return wrong;
}
