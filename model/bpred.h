/* bpred.h: the branch predictor: bimodal and gshare 2-bit counter tables
 * with a meta chooser, a set-associative BTB with LRU, and a return-address
 * stack.
 *
 * The core has no wrong path, so bp_predict_update() is given the truth (the
 * stream's next pc), predicts, updates every structure at once and returns
 * whether the prediction was wrong: wrong direction of a conditional branch,
 * or a wrong or missing target of a taken control transfer (BTB for direct
 * and indirect jumps and calls, RAS for returns). */
#ifndef IC_BPRED_H
#define IC_BPRED_H

#include <stdint.h>

typedef struct bpred {
  uint8_t *bimodal, *gshare, *meta;
  uint32_t bim_mask, gsh_mask, meta_mask, hist_mask;
  uint32_t history;
  uint64_t *btb_tag, *btb_target, *btb_lru;
  uint32_t btb_sets, btb_ways;
  uint64_t btb_tick;
  uint64_t *ras;
  uint32_t ras_size, ras_top, ras_count;
} bpred;

int bp_init(bpred *b, uint32_t bimodal, uint32_t gshare, uint32_t hist_bits, uint32_t meta,
            uint32_t btb_entries, uint32_t btb_ways, uint32_t ras);
void bp_free(bpred *b);
/* opclass: IC_OP_BRANCH/JUMP/CALL/RETURN/IJUMP (others: returns 0).
 * Returns 1 when the front end would have fetched the wrong next pc. */
int bp_predict_update(bpred *b, uint8_t opclass, uint64_t pc, uint8_t size, uint64_t next_pc);

#endif
