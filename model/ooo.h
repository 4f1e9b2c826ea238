/* ooo.h: the cycle-level out-of-order timing model and its machine config.
 *
 * A machine is an ooo_config: a flat table of named integer parameters
 * (OOO_CONFIG_LIST in ooo_config.c, keys like "core.rob" or "l1d.latency"),
 * loaded from YAML (the files in configs/, nested sections or dotted flat keys, an
 * optional `base:` file it overrides) and overridable one key at a time.
 *
 * An ooo_core is one simulated processor driven by an ic_inst_source. It
 * models fetch (width, taken-branch limit, fetch queue, L1I/ITLB), branch
 * prediction (bimodal/gshare/meta, BTB, RAS), dispatch into ROB/IQ/LSQ,
 * oldest-first issue to FU pools and load/store ports, L1D/L2/memory with
 * DTLB and MSHRs, perfect disambiguation with store-to-load forwarding, and
 * in-order commit. No wrong-path execution: after a misprediction fetch
 * stops until the branch completes plus the recovery latency.
 *
 * Cycle conventions (the graph records use the same stamps): D is the
 * dispatch cycle, R the first cycle the instruction could issue, E its issue
 * cycle, P = E + execution latency the first cycle a dependent can issue
 * (plus the extra issue-wakeup cycles of core.wakeup > 1), C its commit
 * cycle (>= P + 1). The run's cycle count is the last C.
 *
 * Graph records (ooo_set_graph_sink; graph_rec.h) carry these parts:
 *   DD   imiss (I-cache/ITLB stall cycles of the fetch gap), bw (fetch-group
 *        ends: width or taken-branch limit), win (cycles at the head of
 *        dispatch with a full ROB/IQ/LSQ), none (fetch queue full, run start)
 *        -- only when the node waited beyond every edge (residual)
 *   FBW  bw 1 (dist = fetch width)      CD  no parts (dist = ROB entries)
 *   PD   none (recovery + front-end depth), imiss (refetch miss)
 *   DR   none (core.dispatch_ready)     PR  none (core.wakeup - 1); MEM flag
 *   RE   bw (issue width, pipelined FU/port busy: bw scales both), lgalu
 *        (every unit held by an unpipelined divide, where no FU edge
 *        binds), dmiss (no free MSHR, where no MSHR edge binds)
 *   EP   shalu (one-cycle ops incl. branches), lgalu (mul/div/fp), loads:
 *        dl1 (L1 latency) + dmiss (DTLB miss, L2, memory, wait for a line
 *        in flight), stores: none 1 + dmiss (DTLB miss)
 *   PP   no parts (load on a line an older load's miss is bringing in)
 *   PC   none 1    CC  bw (store bandwidth, residual)    CBW  bw 1 (dist: commit
 *        width, or for a store the store_bw-th store before it where nearer)
 *   FU   no parts: from the unpipelined op (divide) that last held the unit
 *        the instruction issued on; where it binds, RE has no parts
 *   IBW  bw 1: from the register ancestor issue width + 1 steps up the
 *        chain through each instruction's youngest register producer
 *   MSHR no parts: from the earlier miss whose completion freed an MSHR
 *        for a missing load (graph_rec.h); where it binds, RE has no parts
 * A residual that the recorded causes cannot cover from the in-order edge
 * is added to the binding edge instead (cycles no cause explains are tagged
 * none and counted in graph_unattributed). Edges to producers more than
 * IC_WIN_FACTOR x ROB back, and edges to instructions before the run's
 * first, are omitted.
 *
 * Two cores (and two configs) in one process are independent: there is no
 * global mutable state. */
#ifndef IC_OOO_H
#define IC_OOO_H

#include <stdint.h>
#include <stdio.h>

#include "categories.h"
#include "graph_rec.h"
#include "ic_err.h"
#include "inst.h"
#include "scope.h"

/* The functional-unit pools (config keys fu.int_alu, fu.int_mul, fu.fp_add,
 * fu.fp_muldiv, fu.ldst: the units of each), and the pool an instruction of
 * opclass op issues on: multiplies and integer divides on the multiply
 * units, FP multiplies and divides on the FP mult/div units, loads and
 * stores on the LD/ST ports, everything else (control transfers included)
 * on the integer ALUs. */
enum { OOO_POOL_ALU, OOO_POOL_MUL, OOO_POOL_FPADD, OOO_POOL_FPMD, OOO_POOL_LDST, OOO_POOL_COUNT };

static inline int ooo_pool_of(uint8_t op) {
  switch (op) {
  case IC_OP_INT_MUL:
  case IC_OP_INT_DIV: return OOO_POOL_MUL;
  case IC_OP_FP_ADD: return OOO_POOL_FPADD;
  case IC_OP_FP_MUL:
  case IC_OP_FP_DIV: return OOO_POOL_FPMD;
  case IC_OP_LOAD:
  case IC_OP_STORE: return OOO_POOL_LDST;
  default: return OOO_POOL_ALU;
  }
}

/* ---- machine configuration ---------------------------------------------- */

typedef struct ooo_config ooo_config;

/* Loads a config file (NULL: the baseline machine, configs/baseline.yaml of
 * the source tree, see ooo_config.c). Errors name file:line:column. */
ic_status ooo_config_load(ooo_config **out, const char *path, ic_err *err);
/* Overrides one key: "core.rob=128". */
ic_status ooo_config_set(ooo_config *c, const char *key_eq_value, ic_err *err);
/* Writes the resolved config as YAML that ooo_config_load reads back. */
ic_status ooo_config_write(const ooo_config *c, FILE *f);
ooo_config *ooo_config_clone(const ooo_config *c);
void ooo_config_destroy(ooo_config *c);
/* Generic getter: value of a key ("core.rob"); IC_EINPUT for an unknown key. */
ic_status ooo_config_get(const ooo_config *c, const char *key, int64_t *value, ic_err *err);
/* The source of the config (path of the file loaded, or "baseline"). */
const char *ooo_config_name(const ooo_config *c);
/* 64-bit FNV-1a hash of the resolved machine: every parameter's key and
 * value, not its name, so two files that give the same machine hash alike
 * (a report's provenance). Time complexity: O(parameters). */
uint64_t ooo_config_hash(const ooo_config *c);

uint32_t ooo_config_rob(const ooo_config *c);          /* ROB entries (CD distance) */
uint32_t ooo_config_fetch_width(const ooo_config *c);  /* fetch = dispatch width (FBW) */
uint32_t ooo_config_issue_width(const ooo_config *c);
uint32_t ooo_config_commit_width(const ooo_config *c); /* CBW distance */

/* ---- statistics ---------------------------------------------------------- */

/* X(field, "name", "meaning") */
#define OOO_STATS_LIST(X) \
  X(cycles, "cycles", "simulated cycles: commit cycle of the last instruction") \
  X(instructions, "instructions", "committed instructions") \
  X(branches, "branches", "conditional branches, jumps, calls and returns") \
  X(branch_mispredictions, "branch_mispredictions", "wrong direction, or wrong/missing target of a taken control transfer") \
  X(loads, "loads", "loads (incl. AMO/LR)") \
  X(stores, "stores", "stores (incl. SC)") \
  X(forwarded_loads, "forwarded_loads", "loads that got their data from an in-flight store") \
  X(l1d_accesses, "l1d_accesses", "L1D lookups by loads at issue and stores at commit") \
  X(l1d_misses, "l1d_misses", "L1D lookups that missed (a hit on a line still in flight counts as a hit)") \
  X(l2_accesses, "l2_accesses", "L2 lookups (L1D and L1I misses)") \
  X(l2_misses, "l2_misses", "L2 lookups that went to memory") \
  X(l1i_accesses, "l1i_accesses", "L1I lookups (one per fetched cache line)") \
  X(l1i_misses, "l1i_misses", "L1I lookups that missed") \
  X(dtlb_misses, "dtlb_misses", "DTLB misses (loads and stores)") \
  X(itlb_misses, "itlb_misses", "ITLB misses") \
  X(mshr_full_stalls, "mshr_full_stalls", "cycles a missing load could not issue because every MSHR was busy") \
  X(stall_rob_full, "stall_rob_full", "cycles dispatch stopped because the ROB was full") \
  X(stall_iq_full, "stall_iq_full", "cycles dispatch stopped because the issue queue was full") \
  X(stall_lsq_full, "stall_lsq_full", "cycles dispatch stopped because the load/store queue was full") \
  X(stall_frontend, "stall_frontend", "cycles dispatch had nothing to dispatch (front end empty)") \
  X(stall_mispredict, "stall_mispredict", "cycles fetch waited for a mispredicted branch to resolve and recover") \
  X(stall_icache, "stall_icache", "cycles fetch waited for an L1I or ITLB miss") \
  X(stall_fetch_queue, "stall_fetch_queue", "cycles fetch stopped because the fetch queue was full") \
  X(stall_store_bw, "stall_store_bw", "cycles commit stopped at the store-bandwidth limit") \
  X(skipped_cycles, "skipped_cycles", "idle cycles skipped without simulating them (included in cycles)") \
  X(graph_unattributed, "graph_unattributed", "graph hook only: node delay cycles beyond every edge that no recorded cause explained (tagged none)")

typedef struct ooo_stats {
#define OOO_X(f, n, d) uint64_t f;
  OOO_STATS_LIST(OOO_X)
#undef OOO_X
} ooo_stats;

extern const char *const ooo_stats_names[];
extern const char *const ooo_stats_help[];
/* Number of fields of ooo_stats; field k is ((const uint64_t *)s)[k]. */
extern const int ooo_stats_count;

/* ---- the core ------------------------------------------------------------ */

typedef struct ooo_core ooo_core;

/* Creates a core for machine c (copied) with the categories in `ideal`
 * idealized (DESIGN.md table): dl1 L1D latency 0; win ROB, IQ, LSQ x20;
 * bw fetch/dispatch, issue, commit widths, store bandwidth, FU counts and
 * load/store ports x20 and no taken-branch fetch limit; bmisp no
 * mispredictions; dmiss every data access an L1D and DTLB hit; shalu
 * one-cycle integer ops (and branches) latency 0; lgalu multi-cycle int and
 * FP ops latency 0; imiss every fetch an L1I and ITLB hit.
 * Time: O(sizes of the configured tables). */
ic_status ooo_create(ooo_core **out, const ooo_config *c, ic_catmask ideal, ic_err *err);
/* Scoped categories (scope.h; NULL or none: no scopes), kept by pointer
 * (the caller keeps them alive; cores may share them): the scoped ids of
 * `ideal` idealize their base's events of the instructions whose pc their
 * ranges hold, and graph records are tagged for every scope
 * (ic_scopes_tag). Call before ooo_warm/ooo_run. */
void ooo_set_scopes(ooo_core *core, const ic_scopes *scopes);
/* Optional graph hook: one ic_graph_rec per committed timed instruction. */
void ooo_set_graph_sink(ooo_core *core, ic_graph_sink sink);
/* Optional, with a graph sink: the cycle in which each timed instruction
 * with seq in [from, from + n) was fetched, written to f[seq - from] when
 * its record is built (the pipeline view's fetch stage; the records carry
 * D..C only). f NULL: none. */
void ooo_set_fetch_log(ooo_core *core, uint64_t *f, uint64_t from, uint64_t n);
/* Optional progress callback, called about every `every` committed
 * instructions with the count so far (library never prints). */
void ooo_set_progress(ooo_core *core, void (*fn)(void *ctx, uint64_t committed), void *ctx,
                      uint64_t every);
/* Functional warming: consumes up to n records, updating only caches, TLBs
 * and branch predictors; *done gets how many were consumed. */
ic_status ooo_warm(ooo_core *core, ic_inst_source src, uint64_t n, uint64_t *done, ic_err *err);
/* Timed simulation of up to max records (0: until the source ends), starting
 * and ending with an empty pipeline. A second call continues the clock. */
ic_status ooo_run(ooo_core *core, ic_inst_source src, uint64_t max, ic_err *err);
const ooo_stats *ooo_get_stats(const ooo_core *core);
void ooo_destroy(ooo_core *core);

/* ---- graph record checker (graph_check.c) -------------------------------- */

/* Replays records in commit order: every node time must equal the max over
 * its in-edges (source time + latency, sources before the first record at
 * time 0), equal the model's stamp, and no edge may exceed its destination.
 * Feed it as an ic_graph_sink (ctx = the checker). */
typedef struct ooo_graph_check ooo_graph_check;
ooo_graph_check *ooo_graph_check_create(void);
void ooo_graph_check_destroy(ooo_graph_check *g);
ic_graph_sink ooo_graph_check_sink(ooo_graph_check *g);
/* Records checked so far and the last commit time replayed. */
uint64_t ooo_graph_check_count(const ooo_graph_check *g);
uint64_t ooo_graph_check_last_commit(const ooo_graph_check *g);

#endif
