/* ooo_core.c: the cycle-level out-of-order core (see ooo.h for the model and
 * its cycle conventions).
 *
 * State lives in ring buffers indexed by sequence number (seq & mask), one
 * array per field. Seq numbers are split by three pointers:
 *   head <= disp <= tail:  [head, disp) dispatched, in the ROB;
 *                          [disp, tail) fetched, in the front end.
 * Each simulated cycle evaluates commit, issue, dispatch, fetch in that
 * order, so a stage never sees what a later stage did in the same cycle
 * (except a zero-latency result, which wakes dependents for the same cycle
 * on purpose). A cycle in which nothing happened ends with a jump to the
 * next cycle in which something can happen (idle-cycle skipping).
 *
 * Issue: instructions whose operands will be ready at cycle R sit in a
 * timing wheel bucket R; at cycle R they move into a bitmap over the ring,
 * which the issue stage scans from the oldest, so oldest-first selection is
 * a few word scans. A producer keeps a list of its waiting consumers (links
 * through per-source slots, no allocation); its issue fixes its completion
 * P and wakes them.
 *
 * With a graph sink, the stages also keep what each instruction's graph
 * record needs (producers, latency parts, cause counters), and commit hands
 * the instruction to ooo_graph.c, which builds the record. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "ooo_internal.h"

const char *const ooo_stats_names[] = {
#define OOO_X(f, n, d) n,
    OOO_STATS_LIST(OOO_X)
#undef OOO_X
};
const char *const ooo_stats_help[] = {
#define OOO_X(f, n, d) d,
    OOO_STATS_LIST(OOO_X)
#undef OOO_X
};
const int ooo_stats_count = (int)(sizeof(ooo_stats) / sizeof(uint64_t));

/* ---- helpers ------------------------------------------------------------- */

static uint64_t pow2_at_least(uint64_t v) {
  uint64_t p = 64;
  while (p < v) p <<= 1;
  return p;
}

static inline uint64_t max64(uint64_t a, uint64_t b) { return a > b ? a : b; }

/* ---- store hash ---------------------------------------------------------- */

static inline uint64_t sh_home(const ooo_core *c, uint64_t k) {
  return (k * 0x9E3779B97F4A7C15ull) >> (64 - c->sh_bits);
}

static void sh_insert(ooo_core *c, uint64_t k, uint64_t seq) {
  uint64_t i = sh_home(c, k);
  while (c->sh_key[i] != NONE_SEQ && c->sh_key[i] != k) i = (i + 1) & c->sh_mask;
  c->sh_key[i] = k;
  c->sh_val[i] = seq;
}

static uint64_t sh_find(const ooo_core *c, uint64_t k) {
  uint64_t i = sh_home(c, k);
  while (c->sh_key[i] != NONE_SEQ) {
    if (c->sh_key[i] == k) return c->sh_val[i];
    i = (i + 1) & c->sh_mask;
  }
  return NONE_SEQ;
}

/* The bytes of chunk k (8 bytes) that an access [a, a + sz) covers, as a
 * mask. */
static inline uint64_t chunk_bytes(uint64_t k, uint64_t a, uint64_t sz) {
  uint64_t lo = a > k << 3 ? a - (k << 3) : 0, hi = a + sz - (k << 3);
  if (hi > 8) hi = 8;
  return ((1ull << hi) - 1) & ~((1ull << lo) - 1);
}

/* Committed stores (graph only). A load whose bytes a committed store wrote
 * depends on it as much as on an in-flight one: in the machine with a
 * larger window (win) or any idealization that moves the load earlier, the
 * store is still in flight and forwards. The dependence is a PR edge like a
 * forwarding store's; in the baseline it does not bind (the store executed
 * before it committed, before the load dispatched). */
static inline uint64_t cs_home(const ooo_core *c, uint64_t k) {
  return (k * 0x9E3779B97F4A7C15ull) >> (64 - c->cs_bits);
}

static void cs_insert(ooo_core *c, uint64_t k, uint64_t seq, uint64_t bytes) {
  struct cs_entry *e = &c->cs[cs_home(c, k)];
  e->key = k;
  e->val = seq << 8 | bytes;
}

/* The youngest committed store within maxdist of load i that wrote a byte
 * of [a, a + sz) in this run, as far as the table remembers, or NONE. */
static uint64_t cs_find(const ooo_core *c, uint64_t a, uint64_t sz, uint64_t i) {
  uint64_t best = NONE_SEQ;
  for (uint64_t k = a >> 3; k <= (a + sz - 1) >> 3; k++) {
    const struct cs_entry *e = &c->cs[cs_home(c, k)];
    uint64_t v = e->val, s = v >> 8;
    if (e->key != k || !(v & chunk_bytes(k, a, sz))) continue;
    if (s < c->run_first || s >= i || i - s > c->maxdist) continue;
    if (best == NONE_SEQ || s > best) best = s;
  }
  return best;
}

static void sh_remove(ooo_core *c, uint64_t k, uint64_t seq) {
  uint64_t i = sh_home(c, k);
  while (c->sh_key[i] != NONE_SEQ && c->sh_key[i] != k) i = (i + 1) & c->sh_mask;
  if (c->sh_key[i] != k || c->sh_val[i] != seq) return;
  /* backward-shift deletion keeps probe chains intact */
  uint64_t j = i;
  for (;;) {
    j = (j + 1) & c->sh_mask;
    if (c->sh_key[j] == NONE_SEQ) break;
    uint64_t h = sh_home(c, c->sh_key[j]);
    int move = (i <= j) ? (h <= i || h > j) : (h <= i && h > j);
    if (move) {
      c->sh_key[i] = c->sh_key[j];
      c->sh_val[i] = c->sh_val[j];
      i = j;
    }
  }
  c->sh_key[i] = NONE_SEQ;
}

/* ---- creation ------------------------------------------------------------ */

#define ALLOC(field, n) \
  do { \
    if (!((field) = calloc((n), sizeof *(field)))) goto oom; \
  } while (0)

ic_status ooo_create(ooo_core **out, const ooo_config *cfg, ic_catmask ideal, ic_err *err) {
  *out = NULL;
  const int64_t *v = ooo_config_values(cfg);
  ooo_core *c = calloc(1, sizeof *c);
  if (!c) return ic_fail(err, IC_ERUN, "out of memory");
  c->ideal = ideal;
  int win = ideal & IC_CATBIT(IC_CAT_WIN), bw = ideal & IC_CATBIT(IC_CAT_BW);
  uint32_t wf = win ? IC_WIN_FACTOR : 1, bf = bw ? IC_BW_FACTOR : 1;
  c->fw = (uint32_t)v[OOO_FETCH_WIDTH] * bf;
  c->depth = (uint32_t)v[OOO_FRONTEND_DEPTH];
  c->fe_cap = (uint32_t)v[OOO_FETCH_QUEUE] + c->depth * c->fw;
  c->ftaken = bw ? UINT32_MAX : (uint32_t)v[OOO_FETCH_TAKEN];
  c->dr = (uint32_t)v[OOO_DISPATCH_READY];
  c->rob = (uint32_t)v[OOO_ROB] * wf;
  c->iq = (uint32_t)v[OOO_IQ] * wf;
  c->lsq = (uint32_t)v[OOO_LSQ] * wf;
  c->iw = (uint32_t)v[OOO_ISSUE_WIDTH] * bf;
  c->wk = (uint32_t)v[OOO_WAKEUP];
  c->cw = (uint32_t)v[OOO_COMMIT_WIDTH] * bf;
  c->sbw = (uint32_t)v[OOO_STORE_BW] * bf;
  c->recov = (uint32_t)v[OOO_RECOVERY];
  /* bw idealizes issue bandwidth, and functional units and ports are issue
   * slots too: the graph has no FU edge (FU waits are fixed RE parts), so
   * scaling them keeps the model's idealization the graph's */
  c->fu_n[FU_ALU] = (uint32_t)v[OOO_FU_INT_ALU] * bf;
  c->fu_n[FU_MUL] = (uint32_t)v[OOO_FU_INT_MUL] * bf;
  c->fu_n[FU_FPADD] = (uint32_t)v[OOO_FU_FP_ADD] * bf;
  c->fu_n[FU_FPMD] = (uint32_t)v[OOO_FU_FP_MULDIV] * bf;
  c->fu_n[FU_LDST] = (uint32_t)v[OOO_FU_LDST] * bf;
  int sh = (ideal & IC_CATBIT(IC_CAT_SHALU)) != 0, lg = (ideal & IC_CATBIT(IC_CAT_LGALU)) != 0;
  c->lat_alu = sh ? 0 : (uint32_t)v[OOO_LAT_INT_ALU];
  c->lat_mul = lg ? 0 : (uint32_t)v[OOO_LAT_INT_MUL];
  c->lat_div = lg ? 0 : (uint32_t)v[OOO_LAT_INT_DIV];
  c->lat_fpadd = lg ? 0 : (uint32_t)v[OOO_LAT_FP_ADD];
  c->lat_fpmul = lg ? 0 : (uint32_t)v[OOO_LAT_FP_MUL];
  c->lat_fpdiv = lg ? 0 : (uint32_t)v[OOO_LAT_FP_DIV];
  c->i_dl1 = (ideal & IC_CATBIT(IC_CAT_DL1)) != 0;
  c->i_bmisp = (ideal & IC_CATBIT(IC_CAT_BMISP)) != 0;
  c->i_dmiss = (ideal & IC_CATBIT(IC_CAT_DMISS)) != 0;
  c->i_imiss = (ideal & IC_CATBIT(IC_CAT_IMISS)) != 0;
  c->ideal_bases = (uint8_t)(ideal & 0xffu);
  c->ideal_fl = (uint8_t)((c->i_dmiss ? FL_IDEAL_MEM : 0) | (c->i_dl1 ? FL_IDEAL_DL1 : 0));
  c->l1d_lat = c->i_dl1 ? 0 : (uint32_t)v[OOO_L1D_LATENCY];
  c->l2_lat = (uint32_t)v[OOO_L2_LATENCY];
  c->mem_lat = (uint32_t)v[OOO_MEM_LATENCY];
  c->tlb_lat = (uint32_t)v[OOO_TLB_MISS];
  c->page_shift = 0;
  while ((1ull << c->page_shift) < (uint64_t)v[OOO_PAGE]) c->page_shift++;
  c->nmshr = (uint32_t)v[OOO_MSHRS];
  c->maxdist = IC_WIN_FACTOR * c->rob;

  /* the ring holds the ROB and the front end; at commit of i it still
   * holds i - rob (CD) and i - fetch width (FBW) */
  c->cap = pow2_at_least(2ull * c->rob + c->fe_cap + c->fw + 64);
  c->mask = c->cap - 1;
  uint64_t hcap = pow2_at_least((uint64_t)c->maxdist + c->rob + c->fe_cap + 64);
  c->hmask = hcap - 1;
  ALLOC(c->Phist, hcap);
  uint64_t n = c->cap;
  ALLOC(c->in, n);
  ALLOC(c->F, n);
  ALLOC(c->D, n);
  ALLOC(c->R, n);
  ALLOC(c->E, n);
  ALLOC(c->P, n);
  ALLOC(c->C, n);
  ALLOC(c->ep_a, n);
  ALLOC(c->ep_b, n);
  ALLOC(c->ep_cat, n);
  ALLOC(c->pp_src, n);
  ALLOC(c->fl, n);
  ALLOC(c->pending, n);
  ALLOC(c->pmask, n);
  ALLOC(c->racc, n);
  ALLOC(c->cons_head, n);
  ALLOC(c->cons_next, n * 4);
  ALLOC(c->prod, n * 4);
  ALLOC(c->wheel_next, n);
  ALLOC(c->g_imiss, n);
  ALLOC(c->g_bw, n);
  ALLOC(c->g_width, n);
  ALLOC(c->g_none, n);
  ALLOC(c->dwin, n);
  ALLOC(c->re_mshr, n);
  ALLOC(c->re_lg, n);
  ALLOC(c->sb_blk, n);
  if (c->sbw < c->cw) {
    ALLOC(c->sring, c->sbw);
    memset(c->sring, 0xff, c->sbw * sizeof *c->sring);
  }
  ALLOC(c->blk_why, n);
  ALLOC(c->ready_bits, n / 64);
  ALLOC(c->blk_list, c->rob + 1);

  c->sh_bits = 4;
  while ((1ull << c->sh_bits) < 4ull * c->lsq + 16) c->sh_bits++;
  c->sh_mask = (1ull << c->sh_bits) - 1;
  ALLOC(c->sh_key, c->sh_mask + 1);
  ALLOC(c->sh_val, c->sh_mask + 1);
  memset(c->sh_key, 0xff, (c->sh_mask + 1) * sizeof *c->sh_key);
  c->cs_bits = 8;
  while ((1ull << c->cs_bits) < c->maxdist / 2) c->cs_bits++;
  ALLOC(c->cs, 1ull << c->cs_bits);
  memset(c->cs, 0xff, (1ull << c->cs_bits) * sizeof *c->cs);

  uint64_t maxlat = (uint64_t)c->tlb_lat + v[OOO_L1D_LATENCY] + c->l2_lat + c->mem_lat +
                    (uint64_t)v[OOO_LAT_INT_DIV] + (uint64_t)v[OOO_LAT_FP_DIV] +
                    (uint64_t)v[OOO_LAT_INT_MUL] + (uint64_t)v[OOO_LAT_FP_MUL] +
                    (uint64_t)v[OOO_LAT_FP_ADD] + (uint64_t)v[OOO_LAT_INT_ALU] + c->dr + c->wk;
  /* a pending-line hit can wait up to one more full miss */
  uint64_t wsize = pow2_at_least(2 * maxlat + 16);
  c->wheel_mask = wsize - 1;
  ALLOC(c->wheel_head, wsize);
  memset(c->wheel_head, 0xff, wsize * sizeof *c->wheel_head);
  for (int f = 0; f < FU_COUNT; f++) {
    ALLOC(c->fu_busy[f], c->fu_n[f]);
    ALLOC(c->fu_hold[f], c->fu_n[f]);
    memset(c->fu_hold[f], 0xff, c->fu_n[f] * sizeof *c->fu_hold[f]);
    ALLOC(c->fu_last[f], c->fu_n[f]);
    memset(c->fu_last[f], 0xff, c->fu_n[f] * sizeof *c->fu_last[f]);
  }
  ALLOC(c->fu_src, n);
  /* IBW edges need iw + 1 ancestors per instruction: skipped for the wide
   * bw-idealized machine, whose edges bw drops anyway */
  c->alev = ic_chain_levels(c->iw);
  c->astride = ic_chain_stride(c->alev);
  if (c->alev) {
    ALLOC(c->anc, n * c->astride);
    memset(c->anc, 0xff, n * c->astride * sizeof *c->anc);
  }
  ALLOC(c->mshr_free, c->nmshr);
  ALLOC(c->mshr_hold, c->nmshr);
  ALLOC(c->mshr_ring, c->nmshr);
  memset(c->mshr_hold, 0xff, c->nmshr * sizeof *c->mshr_hold);
  memset(c->mshr_ring, 0xff, c->nmshr * sizeof *c->mshr_ring);
  ALLOC(c->mroot_ring, c->nmshr);
  memset(c->mroot_ring, 0xff, c->nmshr * sizeof *c->mroot_ring);
  ALLOC(c->mshr_src, n);
  ALLOC(c->iq_src, n);
  ALLOC(c->lsq_src, n);
  memset(c->iq_src, 0xff, n * sizeof *c->iq_src); /* NONE_SEQ */
  memset(c->lsq_src, 0xff, n * sizeof *c->lsq_src);
  ALLOC(c->mring, c->lsq ? c->lsq : 1);
  ALLOC(c->iss_now, c->iw);
  ALLOC(c->mtag, n);
  /* IW edges (the slot rule) and the issue log that checks RE's waits
   * against it: skipped for the wide bw-idealized machine, like IBW */
  if (c->iw <= IC_SLOT_RULE_WIDTH) {
    ALLOC(c->ilog_seq, (size_t)ILOG_CYCLES * c->iw);
    ALLOC(c->ilog_cyc, ILOG_CYCLES);
    ALLOC(c->ilog_n, ILOG_CYCLES);
  }

  if (cache_init(&c->l1i, (uint64_t)v[OOO_L1I_SIZE], (uint32_t)v[OOO_L1I_WAYS], (uint32_t)v[OOO_L1I_LINE]) ||
      cache_init(&c->l1d, (uint64_t)v[OOO_L1D_SIZE], (uint32_t)v[OOO_L1D_WAYS], (uint32_t)v[OOO_L1D_LINE]) ||
      cache_init(&c->l2, (uint64_t)v[OOO_L2_SIZE], (uint32_t)v[OOO_L2_WAYS], (uint32_t)v[OOO_L2_LINE]) ||
      cache_init(&c->dtlb, (uint64_t)v[OOO_DTLB_ENTRIES] << c->page_shift, (uint32_t)v[OOO_DTLB_WAYS], 1u << c->page_shift) ||
      cache_init(&c->itlb, (uint64_t)v[OOO_ITLB_ENTRIES] << c->page_shift, (uint32_t)v[OOO_ITLB_WAYS], 1u << c->page_shift))
    goto oom;
  if (bp_init(&c->bp, (uint32_t)v[OOO_BP_BIMODAL], (uint32_t)v[OOO_BP_GSHARE], (uint32_t)v[OOO_BP_HISTORY],
              (uint32_t)v[OOO_BP_META], (uint32_t)v[OOO_BTB_ENTRIES], (uint32_t)v[OOO_BTB_WAYS],
              (uint32_t)v[OOO_RAS]))
    goto oom;
  for (int r = 0; r < IC_REG_COUNT; r++) c->last_writer[r] = NONE_SEQ;
  c->misp_seq = NONE_SEQ;
  c->fetch_line = c->fetch_page = NONE_SEQ;
  *out = c;
  return IC_OK;
oom:
  ooo_destroy(c);
  return ic_fail(err, IC_ERUN, "out of memory creating the timing model (ring of %llu entries)",
                 (unsigned long long)c->cap);
}

void ooo_destroy(ooo_core *c) {
  if (!c) return;
  free(c->in); free(c->F); free(c->D); free(c->R); free(c->E); free(c->P); free(c->C);
  free(c->fl); free(c->pending); free(c->pmask); free(c->racc); free(c->cons_head); free(c->cons_next);
  free(c->prod); free(c->wheel_next); free(c->g_imiss); free(c->g_bw); free(c->g_width); free(c->g_none);
  free(c->dwin); free(c->re_mshr); free(c->re_lg); free(c->sb_blk); free(c->sring); free(c->blk_why);
  free(c->ready_bits); free(c->blk_list); free(c->sh_key); free(c->sh_val);
  free(c->cs);
  free(c->wheel_head); free(c->mshr_free); free(c->mshr_hold); free(c->mshr_ring); free(c->mroot_ring); free(c->mtag);
  ic_iq_tab_free(&c->iq_rule);
  free(c->mshr_src); free(c->iq_src); free(c->lsq_src); free(c->mring); free(c->iss_now); free(c->own_batch);
  free(c->Phist); free(c->ep_a); free(c->ep_b); free(c->ep_cat); free(c->pp_src);
  for (int f = 0; f < FU_COUNT; f++) free(c->fu_busy[f]), free(c->fu_hold[f]), free(c->fu_last[f]);
  free(c->fu_src);
  free(c->anc);
  free(c->ilog_seq); free(c->ilog_cyc); free(c->ilog_n);
  cache_free(&c->l1i); cache_free(&c->l1d); cache_free(&c->l2);
  cache_free(&c->dtlb); cache_free(&c->itlb);
  bp_free(&c->bp);
  free(c);
}

void ooo_set_fetch_log(ooo_core *c, uint64_t *f, uint64_t from, uint64_t n) {
  c->flog = f;
  c->flog_from = from;
  c->flog_n = f ? n : 0;
}

void ooo_set_scopes(ooo_core *c, const ic_scopes *scopes) {
  c->scopes = scopes && scopes->n ? scopes : NULL;
}

void ooo_set_graph_sink(ooo_core *c, ic_graph_sink sink) {
  c->sink = sink;
  c->have_sink = sink.consume != NULL;
  c->split_window = c->have_sink && (c->iq < c->rob || c->lsq < c->rob);
  c->nbatch = 0;
  if (!c->have_sink) return;
  if (sink.buffer) {
    c->batch = sink.buffer(sink.ctx, &c->batch_cap);
    return;
  }
  if (!c->own_batch) c->own_batch = calloc(FLUSH_EVERY, sizeof *c->own_batch);
  if (!c->own_batch) {
    c->have_sink = c->split_window = 0;
    c->sink_status = ic_fail(&c->sink_err, IC_ERUN, "out of memory for graph records");
  }
  c->batch = c->own_batch;
  c->batch_cap = FLUSH_EVERY;
}

void ooo_set_progress(ooo_core *c, void (*fn)(void *, uint64_t), void *ctx, uint64_t every) {
  c->progress = fn;
  c->pctx = ctx;
  c->pevery = every ? every : 1000000;
}

const ooo_stats *ooo_get_stats(const ooo_core *c) { return &c->st; }

/* ---- memory hierarchy ---------------------------------------------------- */

/* L2 access for an L1 miss at cycle t; returns the extra latency beyond L1. */
static uint64_t l2_access(ooo_core *c, uint64_t addr, uint64_t t) {
  int hit;
  c->st.l2_accesses++;
  uint64_t l = cache_access(&c->l2, addr, &hit);
  uint64_t lat = c->l2_lat;
  if (!hit) {
    c->st.l2_misses++;
    lat += c->mem_lat;
    c->l2.ready[l] = t + lat;
  } else if (c->l2.ready[l] > t + lat) {
    lat = c->l2.ready[l] - t; /* line still on its way from memory */
  }
  return lat;
}

/* I-side access of the line holding pc at cycle t: stall cycles. */
static uint64_t ifetch_access(ooo_core *c, uint64_t pc, uint64_t t) {
  uint64_t pen = 0;
  uint64_t page = pc >> c->page_shift;
  if (page != c->fetch_page) {
    c->fetch_page = page;
    if (cache_lookup(&c->itlb, pc) < 0) {
      cache_fill(&c->itlb, pc);
      c->st.itlb_misses++;
      pen += c->tlb_lat;
    }
  }
  c->st.l1i_accesses++;
  if (cache_lookup(&c->l1i, pc) < 0) {
    cache_fill(&c->l1i, pc);
    c->st.l1i_misses++;
    pen += l2_access(c, pc, t + pen);
  }
  return pen;
}

/* ---- warming ------------------------------------------------------------- */

static void warm_one(ooo_core *c, const ic_inst *in) {
  uint64_t line = in->pc >> c->l1i.shift;
  if (line != c->fetch_line) {
    c->fetch_line = line;
    uint64_t page = in->pc >> c->page_shift;
    if (page != c->fetch_page) {
      c->fetch_page = page;
      if (cache_lookup(&c->itlb, in->pc) < 0) cache_fill(&c->itlb, in->pc);
    }
    int hit;
    cache_access(&c->l1i, in->pc, &hit);
    if (!hit) cache_access(&c->l2, in->pc, &hit);
  }
  if (in->opclass >= IC_OP_BRANCH && in->opclass <= IC_OP_IJUMP)
    bp_predict_update(&c->bp, in->opclass, in->pc, in->size, in->next_pc);
  if (in->opclass == IC_OP_LOAD || in->opclass == IC_OP_STORE) {
    if (cache_lookup(&c->dtlb, in->mem_addr) < 0) cache_fill(&c->dtlb, in->mem_addr);
    int hit;
    uint64_t l = cache_access(&c->l1d, in->mem_addr, &hit);
    c->l1d.ready[l] = 0;
    if (!hit) {
      uint64_t l2 = cache_access(&c->l2, in->mem_addr, &hit);
      c->l2.ready[l2] = 0;
    }
  }
}

ic_status ooo_warm(ooo_core *c, ic_inst_source src, uint64_t n, uint64_t *done, ic_err *err) {
  (void)err;
  uint64_t k = 0;
  ic_inst buf[BATCH];
  while (k < n) {
    size_t want = n - k < BATCH ? (size_t)(n - k) : BATCH;
    size_t got = src.fill(src.ctx, buf, want);
    if (!got) break;
    for (size_t j = 0; j < got; j++) warm_one(c, &buf[j]);
    k += got;
  }
  if (done) *done = k;
  c->fetch_line = NONE_SEQ;
  return IC_OK;
}

/* ---- stages -------------------------------------------------------------- */

static inline void wheel_insert(ooo_core *c, uint64_t i, uint64_t when) {
  uint64_t b = when & c->wheel_mask;
  c->wheel_next[i & c->mask] = c->wheel_head[b];
  c->wheel_head[b] = i;
  c->wheel_count++;
}

static inline void make_ready(ooo_core *c, uint64_t i, uint64_t t) {
  uint64_t x = i & c->mask;
  uint64_t r = max64(c->D[x] + c->dr, c->racc[x]);
  c->R[x] = r;
  if (r <= t) c->ready_bits[x >> 6] |= 1ull << (x & 63);
  else wheel_insert(c, i, r);
}

static void commit(ooo_core *c, uint64_t t) {
  uint32_t n = 0, stores = 0;
  c->commit_sb_blocked = 0;
  while (n < c->cw && c->head < c->disp) {
    uint64_t i = c->head, x = i & c->mask;
    uint8_t f = c->fl[x];
    if (!(f & FL_ISSUED) || c->P[x] + 1 > t) break;
    if (f & FL_STORE) {
      if (stores == c->sbw) {
        c->commit_sb_blocked = 1;
        c->sb_blk[x]++;
        c->st.stall_store_bw++;
        break;
      }
      stores++;
      const ic_inst *in = &c->in[x];
      if (!(f & FL_IDEAL_MEM)) {
        if (cache_lookup(&c->dtlb, in->mem_addr) < 0) cache_fill(&c->dtlb, in->mem_addr);
        int hit;
        c->st.l1d_accesses++;
        uint64_t l = cache_access(&c->l1d, in->mem_addr, &hit);
        if (!hit) {
          c->st.l1d_misses++;
          c->l1d.ready[l] = t + l2_access(c, in->mem_addr, t);
          c->l1d.fill_seq[l] = i | STORE_FILL;
        }
      }
      uint64_t a = in->mem_addr, sz = in->mem_size ? in->mem_size : 1;
      for (uint64_t k = a >> 3; k <= (a + sz - 1) >> 3; k++) {
        sh_remove(c, k, i);
        if (c->have_sink) cs_insert(c, k, i, chunk_bytes(k, a, sz));
      }
    }
    if (f & (FL_LOAD | FL_STORE)) c->lsq_count--;
    c->C[x] = t;
    if (c->have_sink) ooo_graph_record(c, i, t);
    c->head++;
    n++;
  }
  if (n) {
    c->activity = 1;
    c->st.instructions += n;
    c->st.cycles = t;
    if (c->progress && c->st.instructions >= c->pnext) {
      c->progress(c->pctx, c->st.instructions);
      c->pnext = c->st.instructions + c->pevery;
    }
  }
}

/* Execution latency of a non-memory op, its FU pool, the unit occupancy and
 * the category that owns the latency. */
static inline void op_timing(const ooo_core *c, uint8_t op, int *pool, uint32_t *lat,
                             uint32_t *occ, uint8_t *cat) {
  *occ = 1;
  *cat = IC_CAT_LGALU;
  *pool = ooo_pool_of(op);
  switch (op) {
  case IC_OP_INT_MUL: *lat = c->lat_mul; break;
  case IC_OP_INT_DIV: *lat = c->lat_div; *occ = c->lat_div ? c->lat_div : 1; break;
  case IC_OP_FP_ADD: *lat = c->lat_fpadd; break;
  case IC_OP_FP_MUL: *lat = c->lat_fpmul; break;
  case IC_OP_FP_DIV: *lat = c->lat_fpdiv; *occ = c->lat_fpdiv ? c->lat_fpdiv : 1; break;
  case IC_OP_LOAD:
  case IC_OP_STORE: *lat = 1; *cat = IC_CAT_NONE; break;
  default: *lat = c->lat_alu; *cat = IC_CAT_SHALU; break;
  }
}

/* The youngest L1D miss among the ancestors of instruction i (through its
 * register and memory producers), or NONE: a miss i must wait for. */
static uint64_t miss_ancestor(const ooo_core *c, uint64_t i) {
  uint64_t x = i & c->mask, best1 = 0; /* seq + 1; 0: none (NONE_SEQ + 1 wraps to 0) */
  const uint64_t *pr = &c->prod[x * 4];
  for (unsigned m = c->pmask[x]; m; m &= m - 1) {
    uint64_t p = pr[__builtin_ctz(m)];
    if (p + c->cap <= c->tail) continue; /* p's slot no longer holds p */
    uint64_t t1 = c->mtag[p & c->mask] + 1;
    if (t1 > best1) best1 = t1;
  }
  return best1 - 1;
}

/* The source of the MSHR edge of load i, which misses at cycle t and gets
 * MSHR mi: an earlier miss completed by t. If i waited for a free MSHR, the
 * one whose completion freed mi (it binds). Otherwise the capacity bound,
 * for a root miss only (one that depends on none of the last nmshr misses:
 * a miss that waits for another cannot be outstanding with it, so a chain
 * of dependent misses never fills the file, however far a larger window
 * lets the chain's neighbours run ahead): the oldest of the last nmshr root
 * misses (in allocation order) that is an earlier instruction and had
 * completed by t -- with misses completing in order, the one whose MSHR a
 * file full of independent misses would free first. NONE when this run has
 * had fewer than nmshr root misses (no bound) or no candidate fits. */
static uint64_t mshr_source(const ooo_core *c, uint64_t i, uint64_t t, uint32_t mi, int root) {
  uint64_t first = c->run_first;
  if (c->re_mshr[i & c->mask]) {
    uint64_t j = c->mshr_hold[mi];
    return j != NONE_SEQ && j >= first && j < i && i - j <= c->maxdist ? j : NONE_SEQ;
  }
  if (!root) return NONE_SEQ;
  for (uint32_t k = 0, at = c->mroot_pos; k < c->nmshr; k++) {
    uint64_t j = c->mroot_ring[at];
    if (j == NONE_SEQ || j < first) return NONE_SEQ; /* older ones are older still */
    if (j < i && i - j <= c->maxdist && c->Phist[j & c->hmask] <= t) return j;
    if (++at == c->nmshr) at = 0;
  }
  return NONE_SEQ;
}


/* The FU edge's source for an op issuing on `pool`: the unpipelined op
 * whose unit frees first among the pool's units, or NONE where some unit is
 * not held by one (the op needs only some free unit, not the one it got: the
 * holder of the unit it happened to take, the first free by index, may have
 * released it long before another unit, and under an idealization that
 * moves the ops closer that edge would serialize ops the machine overlaps,
 * e.g. divides alternating over two units). Where the wait for a unit binds,
 * the first to free is the unit the op took, so the edge is the same. */
static uint64_t fu_source(const ooo_core *c, int pool) {
  const uint64_t *busy = c->fu_busy[pool], *hold = c->fu_hold[pool];
  uint64_t src = NONE_SEQ, soonest = INF_CYCLE;
  for (uint32_t u = 0; u < c->fu_n[pool]; u++) {
    if (hold[u] == NONE_SEQ) return NONE_SEQ;
    if (busy[u] < soonest) soonest = busy[u], src = hold[u];
  }
  return src;
}

static void issue(ooo_core *c, uint64_t t) {
  c->iq_bi = c->iq_count;
  c->n_iss_now = 0;
  /* operands ready this cycle: wheel bucket t -> bitmap */
  uint64_t b = t & c->wheel_mask;
  uint64_t s = c->wheel_head[b], keep = NONE_SEQ;
  c->wheel_head[b] = NONE_SEQ;
  while (s != NONE_SEQ) {
    uint64_t x = s & c->mask, nx = c->wheel_next[x];
    if (c->R[x] == t) {
      c->ready_bits[x >> 6] |= 1ull << (x & 63);
      c->wheel_count--;
    } else { /* a later lap of the wheel */
      c->wheel_next[x] = keep;
      keep = s;
    }
    s = nx;
  }
  c->wheel_head[b] = keep;

  uint32_t issued = 0;
  int mshr_blocked = 0;
  c->nblk = 0;
  c->blk_wake = INF_CYCLE;
  uint64_t seq = c->head;
  while (seq < c->disp && issued < c->iw) {
    uint64_t x = seq & c->mask;
    uint64_t word = c->ready_bits[x >> 6] >> (x & 63);
    if (!word) {
      seq += 64 - (x & 63);
      continue;
    }
    seq += (uint64_t)__builtin_ctzll(word);
    if (seq >= c->disp) break;
    x = seq & c->mask;
    const ic_inst *in = &c->in[x];
    int pool;
    uint32_t lat, occ;
    uint8_t cat;
    op_timing(c, in->opclass, &pool, &lat, &occ, &cat);

    /* a free unit of the pool */
    uint64_t *busy = c->fu_busy[pool];
    int unit = -1;
    uint64_t soonest = INF_CYCLE;
    for (uint32_t u = 0; u < c->fu_n[pool]; u++) {
      if (busy[u] <= t) {
        unit = (int)u;
        break;
      }
      if (busy[u] < soonest) soonest = busy[u];
    }
    if (unit < 0) {
      /* units free next cycle are only pipelined-busy: issue bandwidth;
       * later, they hold divides whose occupancy is their latency (lgalu) */
      c->blk_why[x] = soonest > t + 1 ? IB_LONG : IB_FU;
      if (soonest > t + 1) c->re_lg[x]++;
      c->blk_list[c->nblk++] = seq;
      if (soonest < c->blk_wake) c->blk_wake = soonest;
      seq++;
      continue;
    }
    uint8_t f = c->fl[x];
    if (__builtin_expect(f & FL_IDEAL_EXEC, 0)) { /* shalu or lgalu scoped to it */
      lat = 0;
      occ = 1;
    }
    uint64_t p;
    uint64_t pp_src = NONE_SEQ, msrc = NONE_SEQ;
    int missed = 0;
    /* the youngest miss among i's ancestors (MSHR roots, IW keep) */
    const uint64_t ma = c->have_sink ? miss_ancestor(c, seq) : NONE_SEQ;
    uint64_t part_dl1 = 0, part_dmiss = 0;
    if ((f & FL_LOAD) && !(f & (FL_FWD | FL_IDEAL_MEM))) {
      uint64_t a = in->mem_addr;
      int64_t l1 = cache_lookup(&c->l1d, a);
      int mi = -1;
      if (l1 < 0) {
        uint64_t soon = INF_CYCLE;
        for (uint32_t k = 0; k < c->nmshr; k++) {
          if (c->mshr_free[k] <= t) {
            mi = (int)k;
            break;
          }
          if (c->mshr_free[k] < soon) soon = c->mshr_free[k];
        }
        if (mi < 0) {
          c->re_mshr[x]++;
          c->blk_why[x] = IB_MSHR;
          c->blk_list[c->nblk++] = seq;
          if (soon < c->blk_wake) c->blk_wake = soon;
          mshr_blocked = 1;
          seq++;
          continue;
        }
      }
      uint64_t tlb = 0;
      if (cache_lookup(&c->dtlb, a) < 0) {
        cache_fill(&c->dtlb, a);
        c->st.dtlb_misses++;
        tlb = c->tlb_lat;
      }
      c->st.l1d_accesses++;
      const uint32_t l1d_lat = f & FL_IDEAL_DL1 ? 0 : c->l1d_lat;
      part_dl1 = l1d_lat;
      uint64_t base = t + tlb + l1d_lat;
      if (l1 >= 0) {
        uint64_t ready = c->l1d.ready[l1];
        p = base;
        part_dmiss = tlb;
        if (ready > base) {
          /* the line is in flight: filled by a missing load (the wait
           * ends at its P) or by a store that missed at commit (at its P
           * plus the rest, a dmiss part of the PP edge): the wait moves with
           * that access instead of staying a fixed part of this one */
          uint64_t fs = c->l1d.fill_seq[l1];
          int st = fs != NONE_SEQ && (fs & STORE_FILL);
          if (st) fs &= ~STORE_FILL;
          if (fs != NONE_SEQ && fs < seq && fs >= c->run_first && seq - fs <= c->maxdist &&
              (fs < c->head || (c->fl[fs & c->mask] & FL_ISSUED)) &&
              (st ? c->Phist[fs & c->hmask] < ready : c->Phist[fs & c->hmask] == ready))
            pp_src = fs;
          else
            part_dmiss += ready - base;
          p = ready;
        }
      } else {
        c->st.l1d_misses++;
        uint64_t l2 = l2_access(c, a, t + tlb + l1d_lat);
        p = base + l2;
        part_dmiss = tlb + l2;
        uint64_t line = cache_fill(&c->l1d, a);
        c->l1d.ready[line] = p;
        c->l1d.fill_seq[line] = seq;
        if (c->have_sink) {
          int root = 1;
          for (uint32_t k = 0; k < c->nmshr && ma != NONE_SEQ; k++) root &= c->mshr_ring[k] != ma;
          msrc = mshr_source(c, seq, t, (uint32_t)mi, root);
          if (root) {
            c->mroot_ring[c->mroot_pos] = seq;
            if (++c->mroot_pos == c->nmshr) c->mroot_pos = 0;
          }
          missed = 1;
        }
        c->mshr_free[mi] = p;
        c->mshr_hold[mi] = seq;
        c->mshr_ring[c->mshr_pos] = seq;
        if (++c->mshr_pos == c->nmshr) c->mshr_pos = 0;
      }
    } else if (f & FL_LOAD) {
      part_dl1 = f & FL_IDEAL_DL1 ? 0 : c->l1d_lat; /* forwarded, or dmiss: a hit */
      p = t + part_dl1;
      if (f & FL_FWD) c->st.forwarded_loads++;
    } else if (f & FL_STORE) {
      uint64_t tlb = 0;
      if (!(f & FL_IDEAL_MEM) && cache_lookup(&c->dtlb, in->mem_addr) < 0) {
        cache_fill(&c->dtlb, in->mem_addr);
        c->st.dtlb_misses++;
        tlb = c->tlb_lat;
      }
      part_dmiss = tlb;
      p = t + 1 + tlb;
    } else {
      p = t + lat;
    }
    if (!c->have_sink) {
      c->fu_src[x] = NONE_SEQ;
    } else if (occ > 1) {
      /* an unpipelined op waits for the n-th most recent one issued on the
       * pool: with n units and one occupancy per pool, the n before it
       * hold every unit until the first of them completes, whatever the
       * pipelined ops did with the units in between. The same op in every
       * instance: a stream of divides keeps its throughput bound under an
       * idealization that moves them closer, and a profiler sample's
       * distance means the same in another instance (the units' last
       * holders, fu_source, depend on where pipelined ops happened to go) */
      uint64_t *last = c->fu_last[pool];
      uint32_t at = c->fu_lpos[pool];
      c->fu_src[x] = last[at];
      last[at] = seq;
      c->fu_lpos[pool] = at + 1 == c->fu_n[pool] ? 0 : at + 1;
    } else {
      c->fu_src[x] = fu_source(c, pool);
    }
    busy[unit] = t + occ;
    c->fu_hold[pool][unit] = occ > 1 ? seq : NONE_SEQ;
    c->E[x] = t;
    c->P[x] = p;
    c->Phist[seq & c->hmask] = p;
    c->fl[x] = f | FL_ISSUED;
    if (c->have_sink) {
      c->mtag[x] = missed ? seq : ma;
      if (c->ilog_seq) {
        uint64_t row = t & (ILOG_CYCLES - 1);
        if (c->ilog_cyc[row] != t) c->ilog_cyc[row] = t, c->ilog_n[row] = 0;
        c->ilog_seq[row * c->iw + c->ilog_n[row]++] = seq;
      }
    }
    c->ready_bits[x >> 6] &= ~(1ull << (x & 63));
    c->iq_count--;
    if (c->split_window) c->iss_now[c->n_iss_now++] = seq;
    issued++;
    if (f & FL_LOAD) {
      c->ep_a[x] = (uint32_t)part_dl1;
      c->ep_cat[x] = IC_CAT_DL1;
    } else if (f & FL_STORE) {
      c->ep_a[x] = 1;
      c->ep_cat[x] = IC_CAT_NONE;
    } else {
      c->ep_a[x] = lat;
      c->ep_cat[x] = cat;
    }
    c->ep_b[x] = (uint32_t)part_dmiss;
    c->pp_src[x] = pp_src;
    c->mshr_src[x] = msrc;
    /* wake consumers */
    uint64_t avail = p + c->wk - 1;
    uint64_t link = c->cons_head[x];
    c->cons_head[x] = NONE_SEQ;
    while (link != NONE_SEQ) {
      uint64_t cs = link >> 2, cx = cs & c->mask;
      uint64_t nl = c->cons_next[cx * 4 + (link & 3)];
      if (avail > c->racc[cx]) c->racc[cx] = avail;
      if (--c->pending[cx] == 0) make_ready(c, cs, t);
      link = nl;
    }
    if (seq == c->misp_seq) {
      c->misp_seq = NONE_SEQ;
      c->stall_until = p + c->recov;
      c->stall_reason = FR_MISP;
    }
    seq++;
  }
  if (issued) c->activity = 1;
  if (mshr_blocked) c->st.mshr_full_stalls++;
}

static void dispatch(ooo_core *c, uint64_t t) {
  uint32_t n = 0;
  c->disp_block = DB_NONE;
  while (n < c->fw) {
    if (c->disp == c->tail) {
      c->disp_block = DB_EMPTY;
      break;
    }
    uint64_t i = c->disp, x = i & c->mask;
    if (c->F[x] + c->depth > t) {
      c->disp_block = DB_EMPTY;
      break;
    }
    const ic_inst *in = &c->in[x];
    uint8_t f = c->fl[x];
    int mem = (f & (FL_LOAD | FL_STORE)) != 0;
    if (c->disp - c->head >= c->rob) c->disp_block = DB_ROB;
    else if (c->iq_count >= c->iq) c->disp_block = DB_IQ;
    else if (mem && c->lsq_count >= c->lsq) c->disp_block = DB_LSQ;
    if (c->disp_block != DB_NONE) {
      c->dwin[x]++;
      break;
    }
    c->D[x] = t;
    if (c->split_window) {
      /* the IQ edge (graph_rec.h): where the IQ was full before this
         cycle's issues, the n-th dispatch of the cycle took the entry the
         (iq_bi + n - iq)-th issue of it freed (its dispatch needs that
         issue: iq_bi - issues + n < iq) */
      c->iq_src[x] = NONE_SEQ;
      if (c->iq < c->rob && c->iq_bi + n >= c->iq && c->iq_bi + n - c->iq < c->n_iss_now)
        c->iq_src[x] = c->iss_now[c->iq_bi + n - c->iq];
      /* the LSQ edge: the memory instruction lsq before i, whose commit
         frees the entry i takes */
      c->lsq_src[x] = NONE_SEQ;
      if (mem && c->lsq < c->rob) {
        uint64_t *slot = &c->mring[c->nmem % c->lsq];
        if (c->nmem >= c->lsq) c->lsq_src[x] = *slot;
        *slot = i;
        c->nmem++;
      }
    }
    c->iq_count++;
    if (mem) c->lsq_count++;
    c->racc[x] = 0;
    c->cons_head[x] = NONE_SEQ;
    uint8_t pend = 0;
    uint64_t *const prod = &c->prod[x * 4];
    prod[3] = NONE_SEQ;
    uint8_t pm = 0;
    /* locals: the stores to prod[] could otherwise alias them and force reloads */
    uint8_t src[IC_MAX_SRC];
    memcpy(src, in->src, sizeof src);
    const uint64_t first = c->run_first, maxdist = c->maxdist;
#pragma GCC unroll 3 /* each slot's own code: the test for a shared writer reads fixed slots */
    for (int k = 0; k < IC_MAX_SRC; k++) {
      const uint64_t w = prod[k] = ic_chain_producer(c->last_writer, src, k, prod, i, first, maxdist);
      if (w == NONE_SEQ) continue;
      pm |= (uint8_t)(1u << k);
      const uint64_t wx = w & c->mask;
      if (w < c->head || (c->fl[wx] & FL_ISSUED)) { /* committed ones may be out of the ring */
        uint64_t avail = c->Phist[w & c->hmask] + c->wk - 1;
        if (avail > c->racc[x]) c->racc[x] = avail;
      } else {
        c->cons_next[x * 4 + k] = c->cons_head[wx];
        c->cons_head[wx] = i * 4 + (uint64_t)k;
        pend++;
      }
    }
    if (c->have_sink && c->alev) { /* ancestors through the youngest register producer */
      const uint64_t p = ic_chain_youngest(prod);
      /* p's row, where its ring slot still holds p */
      const uint64_t *up = p != NONE_SEQ && p + c->cap > c->tail ? &c->anc[(p & c->mask) * c->astride] : NULL;
      ic_chain_fill(&c->anc[x * c->astride], up, p, c->alev, c->astride);
    }
    if (f & (FL_LOAD | FL_STORE)) {
      uint64_t a = in->mem_addr, sz = in->mem_size ? in->mem_size : 1;
      if (f & FL_LOAD) {
        uint64_t best = NONE_SEQ;
        for (uint64_t k = a >> 3; k <= (a + sz - 1) >> 3; k++) {
          uint64_t s = sh_find(c, k);
          if (s == NONE_SEQ || s < c->head) continue;
          const ic_inst *si = &c->in[s & c->mask];
          uint64_t ss = si->mem_size ? si->mem_size : 1;
          if (si->mem_addr >= a + sz || si->mem_addr + ss <= a) continue; /* same chunk, no byte in common */
          if (best == NONE_SEQ || s > best) best = s;
        }
        if (best != NONE_SEQ) {
          const ic_inst *si = &c->in[best & c->mask];
          uint64_t ss = si->mem_size ? si->mem_size : 1;
          if (si->mem_addr <= a && si->mem_addr + ss >= a + sz) c->fl[x] = (f |= FL_FWD);
          prod[3] = best;
          pm |= 8;
          uint64_t bx = best & c->mask;
          if (c->fl[bx] & FL_ISSUED) {
            uint64_t avail = c->P[bx] + c->wk - 1;
            if (avail > c->racc[x]) c->racc[x] = avail;
          } else {
            c->cons_next[x * 4 + 3] = c->cons_head[bx];
            c->cons_head[bx] = i * 4 + 3;
            pend++;
          }
        } else if (c->have_sink && (best = cs_find(c, a, sz, i)) != NONE_SEQ) {
          prod[3] = best; /* committed: its data was in the cache */
          pm |= 8;
        }
      }
      if (f & FL_STORE)
        for (uint64_t k = a >> 3; k <= (a + sz - 1) >> 3; k++) sh_insert(c, k, i);
    }
    ic_chain_write(c->last_writer, in->dst[0], i);
    c->pending[x] = pend;
    c->pmask[x] = pm;
    if (!pend) make_ready(c, i, t);
    c->disp++;
    n++;
  }
  if (n) c->activity = 1;
  if (n == 0) {
    switch (c->disp_block) {
    case DB_ROB: c->st.stall_rob_full++; break;
    case DB_IQ: c->st.stall_iq_full++; break;
    case DB_LSQ: c->st.stall_lsq_full++; break;
    case DB_EMPTY: c->st.stall_frontend++; break;
    default: break;
    }
  }
}

/* Next record from the source, or NULL at the end of the stream / max. */
static inline const ic_inst *peek_inst(ooo_core *c) {
  if (c->buf_i < c->buf_n) return &c->buf[c->buf_i];
  if (c->in_end) return NULL;
  size_t want = c->remaining < BATCH ? (size_t)c->remaining : BATCH;
  c->buf_n = want ? c->src.fill(c->src.ctx, c->buf, want) : 0;
  c->buf_i = 0;
  if (!c->buf_n) {
    c->in_end = 1;
    return NULL;
  }
  c->remaining -= c->buf_n;
  return &c->buf[0];
}

/* The FL_IDEAL_* flags of an instruction of opclass op whose base
 * categories `im` are idealized (op_timing's category for its execution). */
static uint8_t scoped_flags(uint8_t im, uint8_t op) {
  uint8_t f = (uint8_t)((im & IC_CATBIT(IC_CAT_DMISS) ? FL_IDEAL_MEM : 0) |
                        (im & IC_CATBIT(IC_CAT_DL1) ? FL_IDEAL_DL1 : 0));
  int exec;
  switch (op) {
  case IC_OP_LOAD:
  case IC_OP_STORE: exec = -1; break;
  case IC_OP_INT_MUL:
  case IC_OP_INT_DIV:
  case IC_OP_FP_ADD:
  case IC_OP_FP_MUL:
  case IC_OP_FP_DIV: exec = IC_CAT_LGALU; break;
  default: exec = IC_CAT_SHALU; break;
  }
  if (exec >= 0 && (im & IC_CATBIT(exec))) f |= FL_IDEAL_EXEC;
  return f;
}

/* fetch, in two versions: with scopes (`scoped`: each instruction's own
 * idealizations from its pc) and without (the core's for all). */
static inline __attribute__((always_inline)) void fetch_with(ooo_core *c, uint64_t t, const int scoped) {
  if (t < c->stall_until) {
    c->fetch_reason = c->stall_reason;
  } else if (c->misp_seq != NONE_SEQ) {
    c->fetch_reason = FR_MISP;
  } else {
    uint32_t n = 0, taken = 0;
    for (;;) {
      if (n == c->fw) {
        c->fetch_reason = FR_WIDTH;
        break;
      }
      if (c->tail - c->disp >= c->fe_cap) {
        c->fetch_reason = FR_FQ;
        break;
      }
      const ic_inst *in = peek_inst(c);
      if (!in) {
        c->fetch_reason = FR_END;
        break;
      }
      int ideal_imiss, ideal_bmisp;
      uint8_t f;
      if (scoped) {
        const uint8_t im = (uint8_t)ic_scopes_ideal_at(c->scopes, c->ideal, in->pc);
        ideal_imiss = im & IC_CATBIT(IC_CAT_IMISS);
        ideal_bmisp = im & IC_CATBIT(IC_CAT_BMISP);
        f = scoped_flags(im, in->opclass);
      } else {
        ideal_imiss = c->i_imiss;
        ideal_bmisp = c->i_bmisp;
        f = c->ideal_fl;
      }
      if (!ideal_imiss) {
        uint64_t line = in->pc >> c->l1i.shift;
        if (line != c->fetch_line) {
          c->fetch_line = line;
          uint64_t pen = ifetch_access(c, in->pc, t);
          if (pen) {
            c->stall_until = t + pen;
            c->stall_reason = FR_IMISS;
            c->fetch_reason = FR_IMISS;
            break;
          }
        }
      } else {
        /* its fetch hit: the line counts as fetched for the instructions
           after it (they own no miss of it) */
        c->fetch_line = in->pc >> c->l1i.shift;
      }
      uint64_t i = c->tail, x = i & c->mask;
      c->in[x] = *in;
      c->buf_i++;
      c->F[x] = t;
      c->g_imiss[x] = c->acc[FR_IMISS];
      c->g_bw[x] = c->acc[FR_BW];
      c->g_width[x] = c->acc[FR_WIDTH];
      c->g_none[x] = c->acc[FR_FQ] + c->acc[FR_END];
      if (i == c->run_first) {
        /* the first instruction of a run: the gap since the previous
         * dispatch (or time 0) and the front-end depth own no category */
        uint64_t prev = i > 0 ? c->D[(i - 1) & c->mask] : 0;
        c->g_none[x] += c->depth + (uint32_t)(c->cycle > prev ? c->cycle - prev : 0);
      }
      memset(c->acc, 0, sizeof c->acc);
      c->dwin[x] = c->re_mshr[x] = c->re_lg[x] = c->sb_blk[x] = 0;
      if (in->opclass == IC_OP_LOAD) {
        f |= FL_LOAD;
        if (in->is_mem_rmw) f |= FL_STORE;
        c->st.loads++;
      } else if (in->opclass == IC_OP_STORE) {
        f |= FL_STORE;
        c->st.stores++;
      }
      c->tail++;
      n++;
      if (in->opclass >= IC_OP_BRANCH && in->opclass <= IC_OP_IJUMP) {
        c->st.branches++;
        if (!ideal_bmisp && bp_predict_update(&c->bp, in->opclass, in->pc, in->size, in->next_pc)) {
          f |= FL_MISP;
          c->fl[x] = f;
          c->st.branch_mispredictions++;
          c->misp_seq = i;
          /* this cycle ends the group; if width or the taken-branch limit
           * would have ended it anyway, that is its reason (a correctly
           * predicted branch would pay it too) */
          int brk = n == c->fw || (ic_inst_taken(in) && taken + 1 >= c->ftaken);
          c->fetch_reason = brk ? FR_BW : FR_MISP;
          break;
        }
      }
      c->fl[x] = f;
      if (ic_inst_taken(in) && ++taken >= c->ftaken) {
        c->fetch_reason = FR_BW;
        break;
      }
    }
    if (n) c->activity = 1;
  }
  if (c->fetch_reason == FR_END && c->tail == c->disp && c->head == c->disp) return;
  c->acc[c->fetch_reason]++;
  switch (c->fetch_reason) {
  case FR_MISP: c->st.stall_mispredict++; break;
  case FR_IMISS: c->st.stall_icache++; break;
  case FR_FQ: c->st.stall_fetch_queue++; break;
  default: break;
  }
}

static void fetch(ooo_core *c, uint64_t t) {
  if (c->scopes)
    fetch_with(c, t, 1);
  else
    fetch_with(c, t, 0);
}

/* The first cycle after t in which any stage can do something, for a cycle
 * t in which nothing happened. INF_CYCLE if nothing ever can. */
static uint64_t next_event(ooo_core *c, uint64_t t) {
  uint64_t nx = INF_CYCLE;
  if (c->head < c->disp) {
    uint64_t x = c->head & c->mask;
    if (c->fl[x] & FL_ISSUED) nx = c->P[x] + 1;
  }
  if (c->blk_wake < nx) nx = c->blk_wake;
  if (c->wheel_count) {
    for (uint64_t k = 1; k <= c->wheel_mask + 1 && t + k < nx; k++) {
      uint64_t s = c->wheel_head[(t + k) & c->wheel_mask];
      int found = 0;
      for (; s != NONE_SEQ; s = c->wheel_next[s & c->mask])
        if (c->R[s & c->mask] == t + k) {
          found = 1;
          break;
        }
      if (found) {
        nx = t + k;
        break;
      }
    }
  }
  if (c->disp < c->tail) {
    uint64_t r = c->F[c->disp & c->mask] + c->depth;
    if (r > t && r < nx) nx = r;
  }
  if (c->misp_seq == NONE_SEQ && !(c->fetch_reason == FR_END && c->buf_i >= c->buf_n && c->in_end)) {
    if (c->stall_until > t + 1) {
      if (c->stall_until < nx) nx = c->stall_until;
    } else if (c->fetch_reason != FR_FQ) {
      nx = t + 1;
    }
  }
  if (nx <= t) nx = t + 1;
  return nx;
}

/* Accounts k skipped idle cycles exactly as k more copies of cycle t. */
static void account_skip(ooo_core *c, uint64_t k) {
  c->st.skipped_cycles += k;
  if (!(c->fetch_reason == FR_END && c->tail == c->disp && c->head == c->disp)) {
    c->acc[c->fetch_reason] += (uint32_t)k;
    if (c->fetch_reason == FR_MISP) c->st.stall_mispredict += k;
    else if (c->fetch_reason == FR_IMISS) c->st.stall_icache += k;
    else if (c->fetch_reason == FR_FQ) c->st.stall_fetch_queue += k;
  }
  switch (c->disp_block) {
  case DB_ROB: c->st.stall_rob_full += k; c->dwin[c->disp & c->mask] += (uint32_t)k; break;
  case DB_IQ: c->st.stall_iq_full += k; c->dwin[c->disp & c->mask] += (uint32_t)k; break;
  case DB_LSQ: c->st.stall_lsq_full += k; c->dwin[c->disp & c->mask] += (uint32_t)k; break;
  case DB_EMPTY: c->st.stall_frontend += k; break;
  default: break;
  }
  int mshr = 0;
  for (uint32_t j = 0; j < c->nblk; j++) {
    uint64_t x = c->blk_list[j] & c->mask;
    if (c->blk_why[x] == IB_MSHR) c->re_mshr[x] += (uint32_t)k, mshr = 1;
    else if (c->blk_why[x] == IB_LONG) c->re_lg[x] += (uint32_t)k;
  }
  if (mshr) c->st.mshr_full_stalls += k;
}

ic_status ooo_run(ooo_core *c, ic_inst_source src, uint64_t max, ic_err *err) {
  if (c->sink_status != IC_OK)
    return ic_fail(err, c->sink_status, "%s", c->sink_err.msg);
  c->src = src;
  c->remaining = max ? max : UINT64_MAX;
  c->in_end = 0;
  c->buf_n = c->buf_i = 0;
  c->misp_seq = NONE_SEQ;
  c->stall_until = c->cycle;
  c->fetch_line = c->fetch_page = NONE_SEQ;
  memset(c->acc, 0, sizeof c->acc);
  for (int r = 0; r < IC_REG_COUNT; r++) c->last_writer[r] = NONE_SEQ;
  c->run_first = c->tail;
  /* the IQ rule counts this run's instructions, as the graph's evaluators
     count the records */
  ic_iq_tab_reset(&c->iq_rule, c->split_window ? ic_iq_rule_size(c->iq, c->rob) : 0);
  if (c->progress) c->pnext = c->st.instructions + c->pevery;
  uint64_t t = c->cycle;
  for (;;) {
    c->activity = 0;
    commit(c, t);
    issue(c, t);
    dispatch(c, t);
    fetch(c, t);
    if (c->have_sink && c->sink_status != IC_OK) break;
    if (c->head == c->tail && c->in_end && c->buf_i >= c->buf_n) break;
    if (c->activity) {
      t++;
      continue;
    }
    uint64_t nx = next_event(c, t);
    if (nx == INF_CYCLE)
      return ic_fail(err, IC_ERUN, "timing model stalled at cycle %llu with %llu instructions in flight",
                     (unsigned long long)t, (unsigned long long)(c->tail - c->head));
    if (nx > t + 1) account_skip(c, nx - t - 1);
    t = nx;
  }
  c->cycle = c->st.cycles + 1;
  if (c->have_sink) ooo_graph_flush(c);
  if (c->sink_status != IC_OK) return ic_fail(err, c->sink_status, "%s", c->sink_err.msg);
  return IC_OK;
}
