/* ooo_internal.h: what the core's two files share, not a public header
 * (only model/ooo_core.c and model/ooo_graph.c include it): the core's
 * state, its per-instruction flags and stall causes, and the graph hook.
 * ooo_core.c runs the pipeline; ooo_graph.c turns the state the pipeline
 * leaves for a committed instruction into its graph record. */
#ifndef ICOST_OOO_INTERNAL_H
#define ICOST_OOO_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "bpred.h"
#include "cache.h"
#include "iq_tab.h"
#include "ooo.h"
#include "ooo_config.h"
#include "reg_chain.h"

#define NONE_SEQ IC_SEQ_NONE
#define INF_CYCLE UINT64_MAX
#define BATCH 256
#define FLUSH_EVERY 8 /* records per batch: 8 (5.7 KB) stay in L1 between batches, 32 did not */
#define ILOG_CYCLES 512u /* cycles of issues kept for the slot rule's check; a
                            wait reaching further back stays a fixed RE part */

enum {
  FU_ALU = OOO_POOL_ALU,
  FU_MUL = OOO_POOL_MUL,
  FU_FPADD = OOO_POOL_FPADD,
  FU_FPMD = OOO_POOL_FPMD,
  FU_LDST = OOO_POOL_LDST,
  FU_COUNT = OOO_POOL_COUNT
};

/* Why fetch delivered nothing more in a cycle; every cycle gets one. FR_BW:
 * a taken-branch break; FR_WIDTH: the fetch width (not put on DD,
 * ooo_graph_record). */
enum { FR_BW, FR_FQ, FR_IMISS, FR_MISP, FR_END, FR_WIDTH, FR_COUNT };
/* Why the dispatch head could not dispatch. */
enum { DB_NONE, DB_ROB, DB_IQ, DB_LSQ, DB_EMPTY };
/* fill_seq tag: the line was filled by a store's miss at commit */
#define STORE_FILL (UINT64_C(1) << 62)
/* Why a ready instruction could not issue. */
enum { IB_FU = 1, IB_MSHR = 2, IB_LONG = 3 }; /* IB_LONG: every unit held by an unpipelined op */

/* per-instruction flags */
enum {
  FL_MISP = 1,    /* mispredicted control transfer */
  FL_ISSUED = 2,
  FL_LOAD = 4,    /* reads memory (incl. AMO) */
  FL_STORE = 8,   /* writes memory (incl. AMO, SC) */
  FL_FWD = 16,    /* load fully covered by an in-flight store */
  /* its own idealizations (dmiss, dl1, and shalu or lgalu for its
     execution), set at fetch for the core's categories and for those of
     the scopes holding its pc (ooo_set_scopes) */
  FL_IDEAL_MEM = 32,
  FL_IDEAL_DL1 = 64,
  FL_IDEAL_EXEC = 128,
};

struct ooo_core {
  /* effective parameters (idealizations applied) */
  uint32_t fw, fe_cap, ftaken, depth, dr, rob, iq, lsq, iw, wk, cw, sbw, recov;
  uint32_t fu_n[FU_COUNT];
  uint32_t lat_alu, lat_mul, lat_div, lat_fpadd, lat_fpmul, lat_fpdiv;
  uint32_t l1d_lat, l2_lat, mem_lat, tlb_lat;
  uint32_t page_shift, maxdist;
  ic_catmask ideal;
  int i_dl1, i_bmisp, i_dmiss, i_imiss;
  /* scoped categories (scope.h), NULL: none. An instruction's own
   * idealizations are FL_IDEAL_* flags set at fetch from the base categories
   * idealized for it: those of `ideal`, and of the scopes of ideal holding
   * its pc */
  const ic_scopes *scopes;
  uint8_t ideal_bases;  /* ideal's base categories */
  uint8_t ideal_fl;     /* FL_IDEAL_MEM, FL_IDEAL_DL1 for ideal (the core's own) */
  uint64_t tag_prev_pc; /* pc of the last record built (ic_scopes_tag) */

  cache l1i, l1d, l2, dtlb, itlb;
  bpred bp;

  /* ring */
  uint64_t cap, mask;
  uint64_t head, disp, tail;
  uint32_t iq_count, lsq_count;
  ic_inst *in;
  uint64_t *F, *D, *R, *E, *P, *C;
  uint64_t *Phist;     /* P by seq & hmask, kept IC_WIN_FACTOR windows back */
  uint64_t hmask;
  uint32_t *ep_a, *ep_b; /* EP parts: latency (or dl1 part of a load), dmiss part */
  uint8_t *ep_cat;
  uint64_t *pp_src;      /* load waiting on an older load's miss, or NONE */
  uint8_t *fl, *pending;
  uint8_t *pmask;      /* bit k: prod slot k holds a producer */
  uint64_t *racc;      /* max producer-ready time seen so far */
  uint64_t *cons_head; /* first consumer link (seq*4+slot) */
  uint64_t *cons_next; /* [cap*4] next link of each source slot */
  uint64_t *prod;      /* [cap*4] producer seq per slot (3 = memory), for PR edges */
  uint64_t *wheel_next;
  uint32_t *g_imiss, *g_bw, *g_none; /* front-end gap cycles by cause */
  uint32_t *g_width;                 /* ... of which fetch width ended the group */
  uint32_t *dwin;                    /* dispatch cycles blocked by a full window */
  uint32_t *re_mshr;                 /* issue cycles blocked by a full MSHR file */
  uint32_t *re_lg;                   /* ... by units held by unpipelined (divide) ops */
  uint32_t *sb_blk;                  /* commit cycles blocked by store bandwidth */
  uint64_t *sring;                   /* graph, where sbw < cw: the last sbw stores
                                        committed (CBW), oldest at spos; NULL else */
  uint32_t spos;
  uint8_t *blk_why;
  uint64_t *ready_bits;

  uint64_t last_writer[IC_REG_COUNT];

  /* store address hash: 8-byte chunk -> youngest in-flight store */
  uint64_t *sh_key, *sh_val;
  uint64_t sh_mask;
  int sh_bits;
  /* graph only: committed stores, 8-byte chunk -> (seq << 8 | bytes
   * written) of the youngest committed store to it, direct mapped and
   * lossy (at least maxdist / 2 entries: stores are rarely more than every
   * other instruction) */
  struct cs_entry {
    uint64_t key, val;
  } *cs;
  int cs_bits;

  /* timing wheel */
  uint64_t *wheel_head;
  uint64_t wheel_mask, wheel_count;

  uint64_t *fu_busy[FU_COUNT];
  uint64_t *fu_hold[FU_COUNT]; /* per unit: the unpipelined op that last held it, or NONE */
  uint64_t *fu_last[FU_COUNT]; /* ring of the pool's last fu_n unpipelined issues (graph) */
  uint32_t fu_lpos[FU_COUNT];  /* its oldest entry */
  uint64_t *fu_src;             /* per instruction: fu_hold of its unit when it issued */
  uint64_t *anc;  /* [cap][astride]: register ancestors 1..alev steps up one chain (IBW,
                     reg_chain.h) */
  uint32_t alev;  /* issue width + 1, or 0: not tracked (ic_chain_levels) */
  uint32_t astride; /* ic_chain_stride(alev) */
  uint64_t *mshr_free;
  uint64_t *mshr_hold; /* per MSHR: the miss that last held it, or NONE */
  uint64_t *mshr_ring; /* the last nmshr misses in allocation order (MSHR edges) */
  uint64_t *mshr_src;  /* per instruction: source of its MSHR edge, or NONE */
  uint64_t *iq_src;    /* per instruction: source of its IQ edge, or NONE */
  ic_iq_tab iq_rule;   /* the IQ rule (graph_rec.h): the K largest E's of this
                          run's committed instructions (k 0: no rule) */
  uint64_t *lsq_src;   /* per instruction: source of its LSQ edge, or NONE */
  uint64_t *mring;     /* the last lsq memory instructions, by nmem % lsq */
  uint64_t nmem;       /* memory instructions dispatched */
  uint64_t *iss_now;   /* the instructions issued this cycle, in issue order */
  uint32_t n_iss_now;  /* ... how many */
  uint32_t iq_bi;      /* iq_count before this cycle's issues */
  int split_window;    /* graph hook on and the IQ or the LSQ smaller than the ROB:
                          IQ and LSQ edges are tracked */
  uint64_t *mtag;      /* per instruction: the youngest L1D miss among it and its ancestors */
  uint64_t *mroot_ring; /* the last nmshr root misses in allocation order (capacity edges) */
  uint32_t nmshr, mshr_pos, mroot_pos;
  /* the instructions issued in each of the last ILOG_CYCLES cycles, for the
   * slot rule's check at commit (slot_rule_gives): row t & (ILOG_CYCLES - 1)
   * holds ilog_n[row] issues of cycle ilog_cyc[row], iw a row, in issue
   * order (NULL where the IW edges are not tracked) */
  uint64_t *ilog_seq, *ilog_cyc;
  uint8_t *ilog_n;

  /* issue-blocked list of the last scanned cycle (for skip accounting) */
  uint64_t *blk_list;
  uint32_t nblk;
  uint64_t blk_wake;

  /* fetch; flog: the fetch cycles of timed instructions [flog_from,
     flog_from + flog_n), written at their commit (ooo_set_fetch_log) */
  uint64_t *flog, flog_from, flog_n;
  uint64_t stall_until;
  uint8_t stall_reason;
  uint64_t misp_seq;
  uint64_t fetch_line, fetch_page;
  uint32_t acc[FR_COUNT];
  uint8_t fetch_reason;
  uint8_t disp_block;
  int commit_sb_blocked;

  /* input */
  ic_inst buf[BATCH];
  size_t buf_n, buf_i;
  int in_end;
  uint64_t remaining;
  ic_inst_source src;

  uint64_t cycle; /* next cycle to simulate */
  uint64_t run_first;
  int activity;
  ooo_stats st;

  /* graph */
  int have_sink;
  ic_graph_sink sink;
  ic_graph_rec *batch; /* records built at commit, handed over when full */
  ic_graph_rec *own_batch; /* FLUSH_EVERY records, where the sink has no buffer */
  uint32_t nbatch;
  size_t batch_cap;    /* records batch holds */
  ic_status sink_status;
  ic_err sink_err;

  void (*progress)(void *, uint64_t);
  void *pctx;
  uint64_t pevery, pnext;
};

/* ---- the graph hook (ooo_graph.c) ---------------------------------------- */

/* Builds the graph record of instruction i, committed at cycle t, into the
 * batch (handed to the sink when full). */
void ooo_graph_record(ooo_core *c, uint64_t i, uint64_t t);
/* Hands the batch's records to the sink. */
void ooo_graph_flush(ooo_core *c);

#endif
