/* ooo_config.h: the machine parameters, shared by the config loader and the
 * core (internal to model/; the public API is ooo.h).
 *
 * OOO_CONFIG_LIST is the one table of parameters: every key is
 * "section.name", an integer with a default (the baseline machine, paper
 * Table VII, identical to configs/baseline.yaml; a test checks it), a range,
 * flags, and a one-line meaning that `icost sim --print-config` writes as a
 * comment. */
#ifndef IC_OOO_CONFIG_H
#define IC_OOO_CONFIG_H

#include <stdint.h>

#include "ooo.h"

#define OOO_P2 1 /* value must be a power of two */

/* X(id, "key", default, min, max, flags, "meaning") */
#define OOO_CONFIG_LIST(X) \
  X(FETCH_WIDTH, "core.fetch_width", 6, 1, 256, 0, "instructions fetched and dispatched per cycle (FBW distance)") \
  X(FETCH_QUEUE, "core.fetch_queue", 16, 1, 4096, 0, "fetch queue entries in front of dispatch, besides the front-end pipeline latches") \
  X(FETCH_TAKEN, "core.fetch_taken", 2, 1, 64, 0, "taken control transfers per fetch cycle: fetch stops after this many") \
  X(FRONTEND_DEPTH, "core.frontend_depth", 9, 1, 256, 0, "cycles from fetch to dispatch") \
  X(DISPATCH_READY, "core.dispatch_ready", 2, 1, 256, 0, "cycles from dispatch to the first possible issue (DR edge)") \
  X(ROB, "core.rob", 64, 1, 65536, 0, "reorder buffer (instruction window) entries") \
  X(IQ, "core.iq", 64, 1, 65536, 0, "issue queue entries (dispatched, not yet issued)") \
  X(LSQ, "core.lsq", 64, 1, 65536, 0, "load/store queue entries (dispatched, not yet committed)") \
  X(ISSUE_WIDTH, "core.issue_width", 6, 1, 256, 0, "instructions issued per cycle") \
  X(WAKEUP, "core.wakeup", 1, 1, 16, 0, "issue-wakeup loop: cycles between back-to-back dependent one-cycle ops") \
  X(COMMIT_WIDTH, "core.commit_width", 6, 1, 256, 0, "instructions committed per cycle (CBW distance)") \
  X(STORE_BW, "core.store_bw", 2, 1, 256, 0, "stores committed (written to the L1D) per cycle") \
  X(RECOVERY, "core.recovery", 3, 0, 1024, 0, "cycles from a mispredicted branch's completion to fetch of the right path") \
  X(FU_INT_ALU, "fu.int_alu", 6, 1, 256, 0, "integer ALUs (also branches, jumps, other)") \
  X(FU_INT_MUL, "fu.int_mul", 2, 1, 256, 0, "integer multiply/divide units") \
  X(FU_FP_ADD, "fu.fp_add", 4, 1, 256, 0, "floating-point ALUs") \
  X(FU_FP_MULDIV, "fu.fp_muldiv", 2, 1, 256, 0, "floating-point multiply/divide/sqrt units") \
  X(FU_LDST, "fu.ldst", 3, 1, 256, 0, "load/store ports") \
  X(LAT_INT_ALU, "latency.int_alu", 1, 1, 1024, 0, "integer ALU latency (pipelined)") \
  X(LAT_INT_MUL, "latency.int_mul", 3, 1, 1024, 0, "integer multiply latency (pipelined)") \
  X(LAT_INT_DIV, "latency.int_div", 20, 1, 1024, 0, "integer divide latency (unpipelined, on an int_mul unit)") \
  X(LAT_FP_ADD, "latency.fp_add", 2, 1, 1024, 0, "fp add/compare/convert latency (pipelined)") \
  X(LAT_FP_MUL, "latency.fp_mul", 4, 1, 1024, 0, "fp multiply/fma latency (pipelined)") \
  X(LAT_FP_DIV, "latency.fp_div", 12, 1, 1024, 0, "fp divide/sqrt latency (unpipelined, on an fp_muldiv unit)") \
  X(BP_BIMODAL, "bpred.bimodal", 8192, 1, 1 << 26, OOO_P2, "bimodal predictor 2-bit counters") \
  X(BP_GSHARE, "bpred.gshare", 8192, 1, 1 << 26, OOO_P2, "gshare predictor 2-bit counters") \
  X(BP_HISTORY, "bpred.history", 13, 0, 30, 0, "gshare global history bits") \
  X(BP_META, "bpred.meta", 8192, 1, 1 << 26, OOO_P2, "meta (chooser) 2-bit counters") \
  X(BTB_ENTRIES, "bpred.btb_entries", 4096, 1, 1 << 24, 0, "branch target buffer entries") \
  X(BTB_WAYS, "bpred.btb_ways", 2, 1, 64, 0, "branch target buffer associativity") \
  X(RAS, "bpred.ras", 64, 0, 65536, 0, "return address stack entries") \
  X(L1I_SIZE, "l1i.size", 32768, 64, 1 << 30, 0, "L1 instruction cache bytes") \
  X(L1I_WAYS, "l1i.ways", 2, 1, 64, 0, "L1I associativity") \
  X(L1I_LINE, "l1i.line", 64, 8, 4096, OOO_P2, "L1I line bytes") \
  X(L1D_SIZE, "l1d.size", 32768, 64, 1 << 30, 0, "L1 data cache bytes") \
  X(L1D_WAYS, "l1d.ways", 2, 1, 64, 0, "L1D associativity") \
  X(L1D_LINE, "l1d.line", 64, 8, 4096, OOO_P2, "L1D line bytes") \
  X(L1D_LATENCY, "l1d.latency", 2, 1, 1024, 0, "L1D hit latency (load issue to dependent issue)") \
  X(L2_SIZE, "l2.size", 1048576, 64, 1 << 30, 0, "unified L2 bytes (backs L1I and L1D)") \
  X(L2_WAYS, "l2.ways", 4, 1, 64, 0, "L2 associativity") \
  X(L2_LINE, "l2.line", 64, 8, 4096, OOO_P2, "L2 line bytes") \
  X(L2_LATENCY, "l2.latency", 12, 1, 4096, 0, "L2 hit latency, added to an L1 miss") \
  X(MEM_LATENCY, "mem.latency", 100, 1, 100000, 0, "memory latency, added to an L2 miss") \
  X(MSHRS, "mem.mshrs", 8, 1, 4096, 0, "L1D miss status holding registers (outstanding line misses)") \
  X(PAGE, "tlb.page", 4096, 256, 1 << 30, OOO_P2, "page bytes") \
  X(TLB_MISS, "tlb.miss_latency", 30, 0, 100000, 0, "TLB miss handling cycles") \
  X(DTLB_ENTRIES, "tlb.dtlb_entries", 128, 1, 1 << 20, 0, "data TLB entries") \
  X(DTLB_WAYS, "tlb.dtlb_ways", 4, 1, 1 << 20, 0, "data TLB associativity") \
  X(ITLB_ENTRIES, "tlb.itlb_entries", 64, 1, 1 << 20, 0, "instruction TLB entries") \
  X(ITLB_WAYS, "tlb.itlb_ways", 4, 1, 1 << 20, 0, "instruction TLB associativity")

typedef enum ooo_param {
#define OOO_X(id, k, d, lo, hi, f, h) OOO_##id,
  OOO_CONFIG_LIST(OOO_X)
#undef OOO_X
  OOO_PARAM_COUNT
} ooo_param;

/* Values of all parameters (the core reads them directly). */
const int64_t *ooo_config_values(const ooo_config *c);

#endif
