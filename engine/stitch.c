/* stitch.c: the stitcher (stitch.h), paper Fig. 7: a fragment's records
 * from its skeleton and the samples. Where its path goes through the code
 * is stitch_path.c. */
#include "stitch.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "categories.h"
#include "graph.h"
#include "ooo.h"
#include "rec_eval.h"
#include "reg_chain.h"
#include "stitch_path.h"

const char *const ic_stitch_abort_names[IC_STITCH_ABORT_COUNT] = {
#define IC_X(e, n, d) n,
    IC_STITCH_ABORT_LIST(IC_X)
#undef IC_X
};
const char *const ic_stitch_abort_help[IC_STITCH_ABORT_COUNT] = {
#define IC_X(e, n, d) d,
    IC_STITCH_ABORT_LIST(IC_X)
#undef IC_X
};

void ic_stitch_stats_add(ic_stitch_stats *a, const ic_stitch_stats *b) {
  a->fragments += b->fragments;
  a->stitched += b->stitched;
  a->aborted += b->aborted;
  for (int k = 0; k < IC_STITCH_ABORT_COUNT; k++) a->abort_why[k] += b->abort_why[k];
  a->instructions += b->instructions;
  a->exact += b->exact;
  a->approx += b->approx;
  a->inferred += b->inferred;
  a->patched += b->patched;
  a->redirected += b->redirected;
  a->truncated += b->truncated;
  a->site_returns += b->site_returns;
  a->unwound += b->unwound;
  a->near_jumps += b->near_jumps;
  a->pointer_calls += b->pointer_calls;
  a->first_misses += b->first_misses;
  a->mem_dropped += b->mem_dropped;
}


/* A new edge of r. The fixed edges of one position are at most 15 (DD FBW
   CD PD DR, 3 register PR, memory PR, RE EP PP CC PC CBW); the measured
   ones of other kinds are added only while the record has room. */
static ic_edge *new_edge(ic_graph_rec *r, uint8_t kind, uint32_t dist) {
  ic_edge *e = &r->edge[r->nedges++];
  memset(e, 0, sizeof *e);
  e->kind = kind;
  e->dist = dist;
  return e;
}

static void part(ic_edge *e, uint8_t cat, uint64_t cyc) {
  if (!cyc || e->nparts >= IC_MAX_PARTS) return;
  ic_part_set(&e->part[e->nparts++], cyc, cat);
}

static const ic_edge *item(const sig_detail *d, uint8_t kind, uint8_t flags) {
  if (!d) return NULL;
  for (int k = 0; k < d->nitems; k++)
    if (d->item[k].kind == kind && d->item[k].flags == flags) return &d->item[k];
  return NULL;
}

/* Is a sample's wait for an MSHR (RE's dmiss part) one the MSHR rule gives
 * from the fragment's own misses? Where the sample has the rule and the
 * edge from the earlier miss whose completion freed the MSHR the load got
 * (ooo_core.c, mshr_source: the load waited, for an earlier holder), the
 * fragment's rule waits for its own holders, as it does for every load
 * without a sample. Pasted as well, the wait of another instance was a
 * fixed latency from R beside the rule: a max of waits of random phase,
 * later than either (bench_machines seed 7, m12: 1 MSHR, ROB 32, issue
 * width 1; x_list: fragments 14% longer than the run, win 12.6% against
 * 1.3% in multisim and 0.1% in the graph; now -0.3%). A wait without that
 * edge was for an MSHR a younger load held, which the rule (earlier
 * holders only) cannot give: it stays. The profiler then follows the graph
 * more closely on few-MSHR machines, also where the graph is off (the
 * pasted waits had offset some of the graph's error there). */
static int mshr_wait_is_the_rules(const sig_detail *d) {
  int edge = 0;
  for (int k = 0; k < d->nitems; k++) edge |= d->item[k].kind == IC_EDGE_MSHR;
  return d->mshr_k && edge;
}

/* Kinds the walk above places itself. */
static int handled_kind(uint8_t kind) {
  switch (kind) {
  case IC_EDGE_DD:
  case IC_EDGE_FBW:
  case IC_EDGE_CD:
  case IC_EDGE_PD:
  case IC_EDGE_DR:
  case IC_EDGE_PR:
  case IC_EDGE_RE:
  case IC_EDGE_EP:
  case IC_EDGE_PP:
  case IC_EDGE_PC:
  case IC_EDGE_CC:
  case IC_EDGE_CBW:
  case IC_EDGE_IBW: return 1;
  default: return 0;
  }
}

/* EP of an inferred instruction. */
static void infer_ep(ic_edge *ep, uint8_t op, unsigned b, const sig_machine *m) {
  switch (op) {
  case IC_OP_INT_MUL: part(ep, IC_CAT_LGALU, m->lat_int_mul); break;
  case IC_OP_INT_DIV: part(ep, IC_CAT_LGALU, m->lat_int_div); break;
  case IC_OP_FP_ADD: part(ep, IC_CAT_LGALU, m->lat_fp_add); break;
  case IC_OP_FP_MUL: part(ep, IC_CAT_LGALU, m->lat_fp_mul); break;
  case IC_OP_FP_DIV: part(ep, IC_CAT_LGALU, m->lat_fp_div); break;
  case IC_OP_LOAD:
    part(ep, IC_CAT_DL1, m->l1d_latency);
    if (b & SIG_B2)
      part(ep, IC_CAT_DMISS,
           (uint64_t)m->l2_latency + ((b & SIG_B1) ? 0 : (uint64_t)m->mem_latency));
    break;
  case IC_OP_STORE: part(ep, IC_CAT_NONE, 1); break;
  default: part(ep, IC_CAT_SHALU, m->lat_int_alu); break;
  }
}

static void drop_items(sig_detail *d, uint8_t kind, uint8_t flags) {
  int w = 0;
  for (int k = 0; k < d->nitems; k++)
    if (d->item[k].kind != kind || d->item[k].flags != flags) d->item[w++] = d->item[k];
  d->nitems = (uint8_t)w;
}

static void drop_parts(ic_edge *e, uint8_t cat) {
  int w = 0;
  for (int k = 0; k < e->nparts; k++)
    if (e->part[k].cat != cat) e->part[w++] = e->part[k];
  e->nparts = (uint8_t)w;
}

static void add_item(sig_detail *d, const ic_edge *e) {
  if (d->nitems < SIG_MAX_ITEMS) d->item[d->nitems++] = *e;
}

/* The skeleton's 2 bits of an instruction are facts about this dynamic
 * instance. A best sample whose own (centre) bits differ was taken where
 * another event happened (a hit where this instance missed, no
 * misprediction where it mispredicted, ...): the items those bits decide
 * are replaced by what the bits say, as for an inferred instruction, and
 * the rest (waits, distances) is kept. b is the bits as they speak of the
 * instruction's own work (its I-cache miss is the caller's). Returns 1 if
 * d was changed. */
static int patch_sample(sig_detail *d, uint8_t op, unsigned b, const sig_machine *m) {
  unsigned have = (unsigned)(d->sig >> (2 * SIG_HALF)) & 3u;
  if (have == b) return 0;
  int b2 = (b & SIG_B2) != 0;
  if (is_control(op)) {
    if (!((have ^ b) & SIG_B2)) return 0;
    /* bit 2 of a control transfer: a misprediction (or an I-cache miss,
       which the PD item does not hold either way) */
    int has_pd = item(d, IC_EDGE_PD, 0) != NULL;
    if (b2 == has_pd) return 0;
    drop_items(d, IC_EDGE_PD, 0);
    if (b2) {
      ic_edge pd;
      memset(&pd, 0, sizeof pd);
      pd.kind = IC_EDGE_PD;
      pd.dist = 1;
      part(&pd, IC_CAT_NONE, (uint64_t)m->recovery + m->frontend_depth);
      add_item(d, &pd);
    }
    return 1;
  }
  if (op == IC_OP_LOAD) {
    /* bits 1, 2: hit (1 0), L2 hit (1 1), L2 miss (0 1) */
    drop_items(d, IC_EDGE_EP, 0);
    ic_edge ep;
    memset(&ep, 0, sizeof ep);
    ep.kind = IC_EDGE_EP;
    infer_ep(&ep, op, b, m);
    add_item(d, &ep);
    if (!b2) { /* a hit: no line in flight, no MSHR taken */
      drop_items(d, IC_EDGE_PP, 0);
      int w = 0;
      for (int k = 0; k < d->nitems; k++)
        if (d->item[k].kind != IC_EDGE_MSHR) d->item[w++] = d->item[k];
      d->nitems = (uint8_t)w;
      for (int k = 0; k < d->nitems; k++)
        if (d->item[k].kind == IC_EDGE_RE) drop_parts(&d->item[k], IC_CAT_DMISS);
    }
    return 1;
  }
  if (op == IC_OP_STORE) {
    if (b2) return 0; /* a miss the sample lacks: its latency is unknown */
    drop_items(d, IC_EDGE_PP, 0);
    for (int k = 0; k < d->nitems; k++)
      if (d->item[k].kind == IC_EDGE_EP || d->item[k].kind == IC_EDGE_RE)
        drop_parts(&d->item[k], IC_CAT_DMISS);
    return 1;
  }
  return 0; /* any other instruction: its bit 2 is an I-cache miss (set by the caller) */
}

/* The cache lines the fragment's path fetched, an open-addressing set of
 * line numbers + 1 (0: empty), half full at most. */
typedef struct line_set {
  uint64_t *slot;
  size_t mask, n;
} line_set;

/* Adds line; returns 1 if it was not there (a first fetch from the line).
 * A full set answers 1 (cold) for every line it does not hold. */
static int line_first(line_set *ls, uint64_t line) {
  uint64_t key = line + 1;
  size_t h = (size_t)((key * UINT64_C(0x9e3779b97f4a7c15)) >> 17) & ls->mask;
  while (ls->slot[h]) {
    if (ls->slot[h] == key) return 0;
    h = (h + 1) & ls->mask;
  }
  if (2 * (ls->n + 1) <= ls->mask + 1) {
    ls->slot[h] = key;
    ls->n++;
  }
  return 1;
}

static int has_cat(const ic_edge *e, uint8_t cat) {
  for (int q = 0; q < e->nparts; q++)
    if (e->part[q].cat == cat) return 1;
  return 0;
}

/* Whether a detailed sample of pc shows bit 2 as the instruction's own
 * event (a data miss, a misprediction: its centre bit 2 set with no I-cache
 * miss): then a load's, store's or control transfer's bit 2 at a first
 * fetch is taken as that event, not as an I-cache miss (a hot instruction
 * whose line the fragment fetches first was fetched before the fragment);
 * code with no such sample (run rarely, cold) takes it as the miss. */
static int own_event_seen(const sig_db *db, uint64_t pc, uint64_t seq) {
  uint64_t c2 = (uint64_t)SIG_B2 << (2 * SIG_HALF);
  sig_detail d;
  int same = 0;
  if (!sig_db_best_first(db, pc, c2, c2, c2, seq, &d, &same) || !(d.sig & c2)) return 0;
  for (int k = 0; k < d.nitems; k++)
    if ((d.item[k].kind == IC_EDGE_DD ||
         (d.item[k].kind == IC_EDGE_PD && d.item[k].flags == SIG_ITEM_SELF)) &&
        has_cat(&d.item[k], IC_CAT_IMISS))
      return 0;
  return 1;
}

/* What the fragment's rules count: the slot counts, the MSHR holders and
 * the IQ rule's E's of the positions so far (rec_eval.h). */
struct rules {
  ic_rec_tabs tabs; /* tabs.iq.k: the machine's IQ rule (0: none) */
  /* MSHR capacity edges (mshr_capacity): per position the youngest load
     miss among its register ancestors and itself (-1: none); the last kms
     misses and the last 2 kms root misses (rings); kms, the machine's MSHRs
     as the samples' MSHR rules give them (0: none seen yet) */
  int64_t *mtag;
  int64_t miss[IC_MSHR_RULE_MAX], root[2 * IC_MSHR_RULE_MAX];
  uint32_t kms, nmiss, nroot;
};

static void rules_free(struct rules *ru) {
  ic_rec_tabs_free(&ru->tabs);
  free(ru->mtag);
  ru->mtag = NULL;
}

/* The MSHR capacity edge of position k (solved: its times are set), as the
 * model's for a root miss (ooo_core.c, mshr_source): a load miss that
 * depends on none of the last kms misses waits for the oldest, in
 * allocation order, of the last kms root misses to take an MSHR that
 * completed by its E. Built from the fragment's own misses (missed: the
 * bits say it missed and no line wait says the line was in flight) and the
 * stitched baseline's times: allocation order is the order of their E's
 * (among the last 2 kms root misses in program order), and the edge leaves
 * the baseline's times as they are. Pasted from another instance's sample,
 * the edge pointed at whatever sat at its distance here: on narrow.yaml the
 * fragments of x_list took 693k cycles against 559k in the run, and the
 * profiler's error there was 32%; with program order instead of the E's,
 * 11.9%, now 6.0. prod: k's register producers (IC_SEQ_NONE: none). Returns the
 * source's position, or -1. */
static int64_t mshr_capacity(struct rules *ru, const ic_graph_rec *recs, uint32_t k, int missed,
                             const uint64_t *prod, int nprod, uint64_t maxdist) {
  int64_t ma = -1;
  for (int q = 0; q < nprod; q++)
    if (prod[q] != IC_SEQ_NONE && ru->mtag[prod[q]] > ma) ma = ru->mtag[prod[q]];
  ru->mtag[k] = missed ? (int64_t)k : ma;
  if (!missed || !ru->kms) return -1;
  int root = 1;
  for (uint32_t q = 0; q < ru->kms && q < ru->nmiss; q++) root &= ru->miss[q] != ma;
  int64_t src = -1;
  const uint32_t rcap = 2 * ru->kms;
  if (root && ru->nroot >= ru->kms) {
    /* allocation order: of the last 2 kms root misses, the kms that took
       their MSHRs last by E(k); of those, the first to have taken it that
       completed by E(k) */
    const uint64_t ek = recs[k].t[IC_NODE_E];
    int64_t cand[2 * IC_MSHR_RULE_MAX];
    uint32_t nc = 0;
    for (uint32_t q = 0; q < rcap && q < ru->nroot; q++) {
      const int64_t j = ru->root[q];
      if ((uint64_t)((int64_t)k - j) <= maxdist && recs[j].t[IC_NODE_E] <= ek) cand[nc++] = j;
    }
    for (uint32_t a = 1; a < nc; a++) /* by E, latest first */
      for (uint32_t b = a; b > 0 && recs[cand[b]].t[IC_NODE_E] > recs[cand[b - 1]].t[IC_NODE_E]; b--) {
        const int64_t t = cand[b];
        cand[b] = cand[b - 1];
        cand[b - 1] = t;
      }
    if (nc > ru->kms) nc = ru->kms;
    for (uint32_t q = nc; q-- > 0 && src < 0;)
      if (recs[cand[q]].t[IC_NODE_P] <= ek) src = cand[q];
  }
  ru->miss[ru->nmiss++ % ru->kms] = k;
  if (root) ru->root[ru->nroot++ % rcap] = k;
  return src;
}

/* The node times of record k with nothing idealized (rec_eval.h), from
 * its edges, the earlier records' times (sources before the fragment at
 * time 0, as the solver has them) and the rules' tables of the positions
 * before k. The tables take k later (the fragment's loop, once the
 * capacity edge is built). */
static void solve_record(ic_graph_rec *recs, uint32_t k, struct rules *ru) {
  const ic_rec_past past = {(const char *)recs + offsetof(ic_graph_rec, t), sizeof *recs, k, UINT64_MAX,
                            k};
  /* r->iq is the table's own size (the machine's IQ rule): no reset, so
     nothing can fail */
  (void)ic_rec_eval(&recs[k], 0, &past, &ru->tabs, recs[k].t, NULL);
}

/* Issue slots from the fragment's own times (position k, its edges in
 * place but for IW). A sample's issue wait (RE's bw part) and IW edges are
 * its instance's: where the issue slots were taken, and by whom, depends on
 * the phase of the loop around it, and pasted into a fragment beside
 * samples of other instances they add waits where this fragment had free
 * slots (a max over edges of random phase is later than each phase's own).
 * So both are rebuilt from the fragment as the model issues: at most
 * issue_width instructions per cycle and at most its units per pool
 * (ooo_pool_of), oldest first (taking slots in age order is exactly that:
 * an older instruction's issue never depends on a younger one). Position k
 * issues at the first cycle from E' (its other E edges) with a free slot;
 * that delay, from E' on, is RE's bw part, as the model charges it (none
 * where RE has no other part and the slot rule gives the delay back from
 * R). Only the slots' delay: measured from R + RE instead, it took in the
 * waits of E's other edges and rules as well (an MSHR the rule made the
 * load wait for, a unit an FU edge held), and those, fixed as bw, stayed
 * under dmiss and lgalu (bench_machines seed 23, m1: 1 MSHR, issue width 1,
 * x_list: profiler dmiss 73.0% against 89.2% in multisim; 90.3% with the
 * slots' delay alone). The record's slot rule (graph_rec.h) is set as the
 * model sets it: the width's and, where the pool has fewer units than the
 * width, the pool's (none at the first position, or where the width
 * exceeds 32, as in the model).
 *
 * The slot counts (slot_tab.h) hold the issues of the positions so far,
 * from the latest D on. */
static void issue_slots(ic_graph_rec *recs, uint32_t k, const sig_machine *m, struct rules *ru) {
  ic_graph_rec *r = &recs[k];
  ic_slot_tab *st = &ru->tabs.slots;
  const uint32_t n = m->issue_width;
  const uint32_t units[OOO_POOL_COUNT] = {m->fu_int_alu, m->fu_int_mul, m->fu_fp_add,
                                          m->fu_fp_muldiv, m->fu_ldst};
  const int pool = ooo_pool_of(r->opclass);
  const uint32_t pn = units[pool];
  int w = 0, re = -1;
  for (int q = 0; q < r->nedges; q++) {
    if (r->edge[q].kind == IC_EDGE_IW) continue;
    if (r->edge[q].kind == IC_EDGE_RE) re = w;
    r->edge[w++] = r->edge[q];
  }
  r->nedges = (uint8_t)w;
  r->slot_w = r->slot_p = 0;
  if (re < 0 || !n || !pn) return;
  ic_edge *ree = &r->edge[re];
  drop_parts(ree, IC_CAT_BW);
  solve_record(recs, k, ru); /* without the rule: its E from the other edges */
  const uint64_t e0 = r->t[IC_NODE_E];
  const uint64_t e = ic_slot_tab_time(st, e0, (int)n, (int)pn, pool);
  ic_rec_set_slot_rule(r, n, pn, k == 0); /* as the model sets it */
  /* the delay is RE's bw part, unless, as in the model, RE has no other
     part and the slot rule gives it back from R */
  if (e > e0 && !(ree->nparts == 0 && (r->slot_w || r->slot_p) &&
                  ic_slot_tab_time(st, r->t[IC_NODE_R], r->slot_w, r->slot_p, pool) == e))
    part(ree, IC_CAT_BW, e - e0);
}

/* sig_db_pick's test of a sample for position k: a wait for a line another
 * access brought (its PP item) fits only where the access at that distance
 * in this fragment is a load that missed (bit 2) or a store (a store's fill
 * is charged on the PP edge, with no bit 2 of its own): the distance to the
 * line's first miss varies by instance (addresses), and pasted where the
 * fragment has no miss it tied the position to a load that brought
 * nothing, so its miss latency was lost (x_branchmiss: dmiss 4.7% against
 * 6.8% in multisim). */
typedef struct fit_ctx {
  const ic_graph_rec *recs;
  const sig_skeleton *sk;
  const ic_program_image *img;
  uint32_t k;
} fit_ctx;

static int pp_fits(void *ctx, const sig_detail *d) {
  const fit_ctx *f = ctx;
  const ic_edge *pp = item(d, IC_EDGE_PP, 0);
  if (!pp) return 1;
  if (pp->dist == 0 || pp->dist > f->k) return 0;
  const uint32_t j = f->k - pp->dist;
  const uint8_t op = f->recs[j].opclass;
  return op == IC_OP_STORE || (op == IC_OP_LOAD && (f->sk->bits[j] & SIG_B2));
}

/* Does position j of the fragment write memory: a store, or a load that
 * also writes (an AMO: the image's is_mem_rmw)? */
static int writes_memory(const fit_ctx *f, uint32_t j) {
  const uint8_t op = f->recs[j].opclass;
  if (op == IC_OP_STORE) return 1;
  if (op != IC_OP_LOAD || !f->img->lookup) return 0;
  ic_static_inst si;
  return f->img->lookup(f->img->ctx, f->recs[j].pc, &si) && si.is_mem_rmw;
}

/* A load's memory producer (its memory PR item) fits only where the
 * instruction at that distance in this fragment writes memory, or lies
 * before the fragment. The distance varies by instance (addresses, and the
 * path between), and pasted where the fragment has no store it tied the
 * load to whatever was there: on bzip2 (configs/l1d4.yaml) samples of a
 * load whose producer is the store of the previous iteration (53 back)
 * gave 73 from other instances, a branch in this path, so the stitched
 * loop lost its chain through memory, and win's cost came out 21.4%
 * against 6.8% in multisim (the profiler's mean error 64.9%). With this
 * test 15.5% (38.3%); with the producer of the nearest sample further out
 * that fits, where none of the 16 nearest does (sig_db_pick_far), 8.5%
 * (7.6%). */
static int mem_fits(void *ctx, const sig_detail *d) {
  const fit_ctx *f = ctx;
  const ic_edge *pr = item(d, IC_EDGE_PR, IC_EDGE_MEM);
  if (!pr || pr->dist > f->k) return 1;
  return pr->dist > 0 && writes_memory(f, f->k - pr->dist);
}

static int pp_mem_fits(void *ctx, const sig_detail *d) { return pp_fits(ctx, d) && mem_fits(ctx, d); }

/* Samples of a pc's best group looked at for a fitting memory producer
   beyond the nearest SIG_DB_SPREAD (sig_db_pick_far). */
#define STITCH_FAR_MAX 1024

#define STACK_MAX 256
#define ABORT(why)                          \
  do {                                      \
    st->aborted++;                          \
    st->abort_why[IC_STITCH_ABORT_##why]++; \
    free(anc);                              \
    free(lines.slot);                       \
    rules_free(&ru);                        \
    return IC_OK;                           \
  } while (0)

ic_status ic_stitch_fragment(const sig_db *db, const sig_machine *m, const ic_program_image *img,
                             const sig_skeleton *sk, ic_graph_rec *recs, size_t *built,
                             ic_stitch_stats *st, ic_err *err) {
  return ic_stitch_fragment_prefix(db, m, img, sk, sk->n, recs, built, st, err);
}

ic_status ic_stitch_fragment_prefix(const sig_db *db, const sig_machine *m,
                                    const ic_program_image *img, const sig_skeleton *sk,
                                    uint32_t min_keep, ic_graph_rec *recs, size_t *built,
                                    ic_stitch_stats *st, ic_err *err) {
  return ic_stitch_fragment_sites(db, m, img, NULL, sk, min_keep, recs, built, st, err);
}

ic_status ic_stitch_fragment_sites(const sig_db *db, const sig_machine *m,
                                   const ic_program_image *img, const ic_stitch_sites *sites,
                                   const sig_skeleton *sk, uint32_t min_keep, ic_graph_rec *recs,
                                   size_t *built, ic_stitch_stats *st, ic_err *err) {
  *built = 0;
  st->fragments++;
  /* IBW: each position's register ancestors 1..alev steps up the chain
     through its youngest register producer (reg_chain.h; fragment
     positions), in a ring of rows over the positions a producer can be at:
     maxdist back, so a producer's row is never the position's own */
  const uint32_t alev = ic_chain_levels(m->issue_width); /* rows of alev entries, each set */
  uint64_t arows = (uint64_t)IC_WIN_FACTOR * m->rob + 1;
  if (arows > sk->n) arows = sk->n;
  uint64_t *anc = NULL;
  if (alev && arows) {
    anc = malloc(arows * alev * sizeof *anc);
    if (!anc) return ic_fail(err, IC_ERUN, "stitcher: out of memory");
  }
  /* I-cache lines: with the machine's line size (a power of two), the
     lines the path fetched so far; without it every line is taken as
     fetched before (bit 2 is an I-cache miss only where nothing else can
     set it) */
  line_set lines = {NULL, 0, 0};
  int lshift = 0;
  if (m->l1i_line >= 2 && !(m->l1i_line & (m->l1i_line - 1))) {
    lshift = __builtin_ctz(m->l1i_line);
    size_t cap = 64;
    while (cap < 2 * (size_t)sk->n && cap < ((size_t)1 << 21)) cap *= 2;
    lines.slot = calloc(cap, sizeof *lines.slot);
    if (!lines.slot) {
      free(anc);
      return ic_fail(err, IC_ERUN, "stitcher: out of memory");
    }
    lines.mask = cap - 1;
  }
  uint64_t prev_line = 0;
  uint32_t imiss_lat = sig_db_imiss_cycles(db);
  int sampled_imiss = imiss_lat > 0; /* the program has I-cache misses at all */
  if (!imiss_lat) imiss_lat = m->l2_latency;
  uint64_t last_writer[IC_REG_COUNT];
  for (int r = 0; r < IC_REG_COUNT; r++) last_writer[r] = IC_SEQ_NONE;
  uint64_t stack[STACK_MAX];
  int sp = 0; /* a ring: the oldest entries are overwritten when it overflows */
  int depth = 0;
  ic_edge pd_next;
  int have_pd = 0;
  uint64_t pc = sk->start_pc;
  uint64_t maxdist = (uint64_t)IC_WIN_FACTOR * m->rob;
  uint64_t exact = 0, approx = 0, inferred = 0, patched = 0, redirected = 0, site_returns = 0;
  uint64_t unwound = 0, near_jumps = 0, pointer_calls = 0, first_misses = 0, mem_dropped = 0;
  struct {
    int64_t at; /* the latest position whose next pc was guessed, -1: none */
    uint64_t exact, approx, inferred, patched, redirected, site_returns, unwound, near_jumps;
    uint64_t pointer_calls, first_misses, mem_dropped;
  } guess = {-1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  uint32_t gcnt = 0, gtaken = 0; /* the current fetch group: instructions, taken transfers */
  int prev_wbound = 0;            /* the previous position waited for the window */
  struct rules ru = {0}; /* the issues, MSHR holders and IQ rule's E's so far (issue_slots,
                            solve_record) */
  const uint32_t iq_k = ic_iq_rule_size(m->iq, m->rob); /* as the model sets it */
  if ((iq_k && ic_iq_tab_reset(&ru.tabs.iq, iq_k) != 0) ||
      !(ru.mtag = malloc((sk->n ? sk->n : 1) * sizeof *ru.mtag))) {
    free(anc);
    free(lines.slot);
    rules_free(&ru);
    return ic_fail(err, IC_ERUN, "stitcher: out of memory");
  }
  uint32_t n = sk->n;
  sig_detail cur;
  for (uint32_t k = 0; k < n; k++) {
    ic_static_inst si;
    memset(&si, 0, sizeof si);
    int bad_pc = !img->lookup(img->ctx, pc, &si) || !si.valid || si.opclass >= IC_OP_COUNT;
    if ((bad_pc || bits_impossible(si.opclass, sk->bits[k])) && guess.at >= 0 &&
        (uint32_t)guess.at + 1 >= min_keep) {
      /* past a guessed return site the path went wrong: keep what was
         known before the latest guess */
      n = (uint32_t)guess.at + 1;
      exact = guess.exact;
      approx = guess.approx;
      inferred = guess.inferred;
      patched = guess.patched;
      redirected = guess.redirected;
      site_returns = guess.site_returns;
      unwound = guess.unwound;
      near_jumps = guess.near_jumps;
      pointer_calls = guess.pointer_calls;
      first_misses = guess.first_misses;
      mem_dropped = guess.mem_dropped;
      st->truncated++;
      break;
    }
    if (bad_pc) ABORT(PC);
    unsigned b = sk->bits[k];
    if (bits_impossible(si.opclass, b)) ABORT(BITS);
    /* bit 2 and the I-cache: a miss can only be at the first fetch from a
       line the path has not fetched before in the fragment (a fragment's
       code fits the I-cache; the model has no wrong-path fetch). There, bit
       2 of an instruction that can have no other event is the miss; of a
       load, store or control transfer it is taken as the miss too (their
       own bit 2 is then unknown: matching ignores it and the sample's own
       is kept), except a load's with bit 1 clear (an L2 data miss, which
       needs it). Elsewhere bit 2 of those is their own event. */
    int cold = 0;
    if (lshift) {
      uint64_t line = pc >> lshift;
      cold = (k == 0 || line != prev_line) && line_first(&lines, line);
      prev_line = line;
    }
    int other_op = !is_control(si.opclass) && si.opclass != IC_OP_LOAD &&
                   si.opclass != IC_OP_STORE;
    int imiss_here = (b & SIG_B2) && (other_op || (cold && sampled_imiss &&
                                                   !own_event_seen(db, pc, sk->seq + k)));
    int split = imiss_here && !other_op && !(si.opclass == IC_OP_LOAD && !(b & SIG_B1));
    uint64_t want = 0, mask = 0;
    for (int j = 0; j < SIG_WINDOW; j++) {
      int64_t q = (int64_t)k + j - SIG_HALF;
      if (q < 0 || q >= (int64_t)n) continue;
      want |= (uint64_t)(sk->bits[q] & 3u) << (2 * j);
      mask |= (uint64_t)3 << (2 * j);
    }
    uint64_t centre = (uint64_t)3 << (2 * SIG_HALF);
    if (split) {
      mask &= ~((uint64_t)SIG_B2 << (2 * SIG_HALF));
      centre = (uint64_t)SIG_B1 << (2 * SIG_HALF);
    }
    int same = 0;
    const sig_detail *d = NULL;
    /* a missing load or store: its sample's line wait must fit (pp_fits);
       a load: its memory producer too (mem_fits), else it is taken from a
       sample whose line wait fits, without its memory producer */
    fit_ctx fc = {recs, sk, img, k};
    int fit = 1, nomem = 0;
    const int missing = (si.opclass == IC_OP_LOAD || si.opclass == IC_OP_STORE) &&
                        (b & SIG_B2) && !split;
    sig_db_fits fits = missing ? pp_fits : NULL;
    const int load = si.opclass == IC_OP_LOAD;
    int found = sig_db_pick(db, pc, want, mask, centre, sk->seq + k,
                            load ? (missing ? pp_mem_fits : mem_fits) : fits, &fc, &cur, &same, &fit);
    if (load && found && !fit) {
      nomem = 1;
      fit = 1;
      found = sig_db_pick(db, pc, want, mask, centre, sk->seq + k, fits, &fc, &cur, &same, &fit);
    }
    if (found && cur.opclass == si.opclass) d = &cur;
    if (d && nomem) {
      /* the producer of the nearest sample whose producer fits (one with
         none fits too), further out than the nearest 16: it varies with
         the path between, which the 16 may all have had otherwise */
      sig_detail far;
      drop_items(&cur, IC_EDGE_PR, IC_EDGE_MEM);
      const ic_edge *pr = NULL;
      if (sig_db_pick_far(db, pc, want, mask, centre, sk->seq + k, mem_fits, &fc, STITCH_FAR_MAX,
                          &far))
        pr = item(&far, IC_EDGE_PR, IC_EDGE_MEM);
      if (pr) add_item(&cur, pr);
      else mem_dropped++;
    }
    if (d && !fit) {
      /* no sample near waits for a line an access of this fragment brought:
         the instance is the line's first miss (a load's miss latency from
         the bits, as an inferred instruction's) */
      drop_items(&cur, IC_EDGE_PP, 0);
      if (si.opclass == IC_OP_LOAD) drop_items(&cur, IC_EDGE_EP, 0);
      first_misses++;
    }
    if (!d) inferred++;
    else if (same == __builtin_popcountll(mask)) exact++;
    else approx++;
    /* the bits as they speak of the instruction's own work */
    unsigned bown = b;
    if (split) bown = (b & SIG_B1) | (d ? (unsigned)(cur.sig >> (2 * SIG_HALF)) & SIG_B2 : 0u);
    int own = d && cur.seq == sk->seq + k;
    int fixed = d && patch_sample(&cur, si.opclass, bown, m);

    ic_graph_rec *r = &recs[k];
    r->seq = k;
    r->pc = pc;
    r->opclass = si.opclass;
    r->nedges = 0;
    r->sdrop[0] = r->sdrop[1] = 0;
    r->slot_w = r->slot_p = r->mshr_k = 0;
    memset(r->rule_pad_, 0, sizeof r->rule_pad_);
    r->iq = ru.tabs.iq.k; /* the machine's IQ rule, as the model sets it */
    memset(r->t, 0, sizeof r->t);
    /* fetch groups along the path: a group ends after fetch_width
       instructions or at its fetch_taken-th taken control transfer; the
       instruction after a misprediction starts one (its gap is the PD
       penalty). The first of a group that a taken transfer ended gets the
       one-cycle fetch break (bw) on DD, wherever the sample's instance had
       its own: where the breaks fall is a property of the path, not of the
       instruction, and breaks pasted from other instances land at random
       distances instead of one per group, which lengthens the front end.
       A group the width ended gets none, as in the model (FR_WIDTH): the
       FBW edge already holds the first of the next group a cycle behind
       the one fetch_width before it. A sample of this very instance (its
       retire count is the position's) keeps its own gap. */
    int mispred_before = k > 0 && have_pd;
    int group_break = 0;
    if (k == 0 || mispred_before) {
      gcnt = 0;
      gtaken = 0;
    } else if (gcnt >= m->fetch_width || (m->fetch_taken && gtaken >= m->fetch_taken)) {
      group_break = m->fetch_taken && gtaken >= m->fetch_taken;
      gcnt = 0;
      gtaken = 0;
    }
    gcnt++;
    if (is_control(si.opclass) && (b & SIG_B1)) gtaken++;
    /* D node; the I-cache miss as the bits say: a sample's own miss where
       there is one here (else the program's mean sampled miss), none
       where there is none */
    const ic_edge *it = item(d, IC_EDGE_DD, 0);
    ic_edge *dd = new_edge(r, IC_EDGE_DD, 1);
    if (it) {
      *dd = *it;
      if (!own) drop_parts(dd, IC_CAT_BW);
    }
    if (!own) {
      int had = has_cat(dd, IC_CAT_IMISS);
      if (had && !imiss_here) drop_parts(dd, IC_CAT_IMISS);
      else if (!had && imiss_here) part(dd, IC_CAT_IMISS, imiss_lat);
      fixed |= d && had != imiss_here;
    }
    if (fixed) patched++;
    uint64_t imiss_cyc = 0;
    for (int q = 0; q < dd->nparts; q++)
      if (dd->part[q].cat == IC_CAT_IMISS) imiss_cyc += dd->part[q].cycles;
    uint8_t present = d ? d->present : (SIG_HAS_FBW | SIG_HAS_CD | SIG_HAS_CBW);
    if (present & SIG_HAS_FBW) {
      it = item(d, IC_EDGE_FBW, 0);
      if (it) *new_edge(r, IC_EDGE_FBW, m->fetch_width) = *it;
      else part(new_edge(r, IC_EDGE_FBW, m->fetch_width), IC_CAT_BW, 1);
    }
    if (present & SIG_HAS_CD) {
      it = item(d, IC_EDGE_CD, 0);
      if (it) *new_edge(r, IC_EDGE_CD, m->rob) = *it;
      else new_edge(r, IC_EDGE_CD, m->rob);
    }
    /* after a misprediction the refetch's I-cache miss is on PD as well
       (as the model puts it): this position's, not the sample's */
    ic_edge *pd = NULL;
    if (k == 0 && (it = item(d, IC_EDGE_PD, SIG_ITEM_SELF)) != NULL) {
      pd = new_edge(r, IC_EDGE_PD, 1);
      *pd = *it;
      pd->flags = 0;
    } else if (have_pd) {
      pd = new_edge(r, IC_EDGE_PD, 1);
      *pd = pd_next;
    }
    if (pd && !own) {
      drop_parts(pd, IC_CAT_IMISS);
      part(pd, IC_CAT_IMISS, imiss_cyc);
    }
    have_pd = 0;
    /* the break shows only where the front end sets dispatch. Where the
       window (CD) holds this instruction or held its predecessor, the fetch
       queue is backed up and the break hides behind it: the model charges
       no bw there (fetch stops on the full queue, not at the group's end;
       DD's gap parts are cut to the dispatch gap), and a break placed
       anyway counts bw where the back end bound (memory-bound code). The
       times are the stitched graph's own, nothing idealized. */
    int wbound = 0;
    if (k > 0) {
      uint64_t ddv = recs[k - 1].t[IC_NODE_D] + ic_edge_latency(dd, 0);
      for (int q = 0; q < r->nedges; q++) {
        const ic_edge *e = &r->edge[q];
        if (e->kind == IC_EDGE_CD && e->dist <= k &&
            recs[k - e->dist].t[IC_NODE_C] + ic_edge_latency(e, 0) >= ddv)
          wbound = 1;
      }
    }
    if (!own && group_break && !wbound && !prev_wbound) part(dd, IC_CAT_BW, 1);
    prev_wbound = wbound;
    /* R node */
    part(new_edge(r, IC_EDGE_DR, 0), IC_CAT_NONE, m->dispatch_ready);
    uint64_t prod[IC_MAX_SRC]; /* as the model's (reg_chain.h) */
    for (int q = 0; q < IC_MAX_SRC; q++)
      if ((prod[q] = ic_chain_producer(last_writer, si.src, q, prod, k, 0, maxdist)) != IC_SEQ_NONE)
        part(new_edge(r, IC_EDGE_PR, (uint32_t)(k - prod[q])), IC_CAT_NONE, m->wakeup > 0 ? m->wakeup - 1 : 0);
    it = item(d, IC_EDGE_PR, IC_EDGE_MEM);
    if (it) *new_edge(r, IC_EDGE_PR, it->dist) = *it;
    /* E, P nodes */
    it = item(d, IC_EDGE_RE, 0);
    if (it) {
      ic_edge *ree = new_edge(r, IC_EDGE_RE, 0);
      *ree = *it;
      if (!own && mshr_wait_is_the_rules(d)) drop_parts(ree, IC_CAT_DMISS);
    } else {
      new_edge(r, IC_EDGE_RE, 0);
    }
    if (anc) {
      /* as the model (reg_chain.h): ancestors through the youngest register
         producer, whose row the ring holds (it is at most maxdist back);
         an edge to the one alev steps up, latency 1 (bw) */
      uint64_t *an = &anc[(k % arows) * alev];
      const uint64_t p = ic_chain_youngest(prod);
      ic_chain_fill(an, p != IC_SEQ_NONE ? &anc[(p % arows) * alev] : NULL, p, alev, alev);
      const uint64_t j = ic_chain_ibw_source(an, alev, k, 0, maxdist);
      if (j != IC_SEQ_NONE) part(new_edge(r, IC_EDGE_IBW, (uint32_t)(k - j)), IC_CAT_BW, 1);
    }
    it = item(d, IC_EDGE_EP, 0);
    if (it) *new_edge(r, IC_EDGE_EP, 0) = *it;
    else infer_ep(new_edge(r, IC_EDGE_EP, 0), si.opclass, bown, m);
    it = item(d, IC_EDGE_PP, 0);
    if (it) *new_edge(r, IC_EDGE_PP, it->dist) = *it;
    /* C node */
    it = item(d, IC_EDGE_CC, 0);
    if (it) *new_edge(r, IC_EDGE_CC, 1) = *it;
    else new_edge(r, IC_EDGE_CC, 1);
    it = item(d, IC_EDGE_PC, 0);
    if (it) *new_edge(r, IC_EDGE_PC, 0) = *it;
    else part(new_edge(r, IC_EDGE_PC, 0), IC_CAT_NONE, 1);
    if (present & SIG_HAS_CBW) {
      it = item(d, IC_EDGE_CBW, 0);
      if (it) *new_edge(r, IC_EDGE_CBW, m->commit_width) = *it;
      else part(new_edge(r, IC_EDGE_CBW, m->commit_width), IC_CAT_BW, 1);
    }
    /* every other kind the sample measured (FU, IBW, ...), as measured;
       an MSHR edge only from the instance's own sample (another instance's
       points at whatever sits at its distance here): the capacity edge is
       built from the fragment's misses instead */
    for (int q = 0; d && q < d->nitems && r->nedges < IC_MAX_EDGES; q++) {
      const ic_edge *e = &d->item[q];
      if (!handled_kind(e->kind) && (own || e->kind != IC_EDGE_MSHR)) *new_edge(r, e->kind, e->dist) = *e;
    }
    /* the sample's rules: the MSHR rule of its load, and the slot rule of
       its own instance (issue_slots rebuilds it for the others) */
    if (d) {
      r->mshr_k = d->mshr_k;
      if (d->mshr_k && !ru.kms) ru.kms = d->mshr_k;
      if (own) {
        r->slot_w = d->slot_w;
        r->slot_p = d->slot_p;
      }
    }
    if (!own) issue_slots(recs, k, m, &ru);
    solve_record(recs, k, &ru);
    /* the capacity edge, after the record is solved (mshr_capacity) */
    const int primary = si.opclass == IC_OP_LOAD && (bown & SIG_B2) && !item(d, IC_EDGE_PP, 0);
    const int64_t cap_src = mshr_capacity(&ru, recs, k, primary, prod, IC_MAX_SRC, maxdist);
    if (cap_src >= 0 && !own && r->nedges < IC_MAX_EDGES)
      new_edge(r, IC_EDGE_MSHR, (uint32_t)((int64_t)k - cap_src));
    if (ic_rec_take(r, 0, &ru.tabs, r->t) != IC_REC_OK) {
      rules_free(&ru);
      free(anc);
      free(lines.slot);
      return ic_fail(err, IC_ERUN, "stitcher: out of memory");
    }
    /* misprediction penalty for the next instruction */
    it = item(d, IC_EDGE_PD, 0);
    if (it) {
      pd_next = *it;
      have_pd = 1;
    } else if (!d && is_control(si.opclass) && (bown & SIG_B2)) {
      memset(&pd_next, 0, sizeof pd_next);
      pd_next.kind = IC_EDGE_PD;
      pd_next.dist = 1;
      part(&pd_next, IC_CAT_NONE, (uint64_t)m->recovery + m->frontend_depth);
      have_pd = 1;
    }
    ic_chain_write(last_writer, si.dst[0], k);
    if (k + 1 == n) break; /* no next pc needed */
    int redir = 0, guessed = 0;
    /* next pc */
    uint64_t fall = pc + si.size;
    switch (si.opclass) {
    case IC_OP_BRANCH: pc = (b & SIG_B1) ? si.target : fall; break;
    case IC_OP_JUMP:
    case IC_OP_CALL:
      if (si.opclass == IC_OP_CALL) {
        stack[sp] = fall;
        sp = (sp + 1) % STACK_MAX;
        if (depth < STACK_MAX) depth++;
      }
      if (si.target) {
        pc = si.target;
        break;
      }
      /* an indirect jump or call: as IJUMP */
      __attribute__((fallthrough));
    case IC_OP_IJUMP: {
      uint64_t at = pc;
      pc = stitch_indirect_target(db, img, sk, k, pc, want, mask, centre, d, &redir);
      if (!pc && si.opclass == IC_OP_IJUMP && (pc = stitch_jump_target(img, sk, k, at)) != 0) {
        near_jumps++;
        guessed = 1;
      }
      if (!pc && si.opclass == IC_OP_CALL && (pc = stitch_pointer_target(img, sk, k, at)) != 0) {
        pointer_calls++;
        guessed = 1;
      }
      break;
    }
    case IC_OP_RETURN: {
      uint64_t back = 0;
      if (depth > 0) {
        sp = (sp + STACK_MAX - 1) % STACK_MAX;
        depth--;
        back = stack[sp];
        /* the call's return site, unless the bits after it do not fit
           there: a return that does not go back to its call (longjmp, a
           context switch) leaves the stack wrong, so it is dropped and
           the target found as for a return whose call is not known */
        if (k + 1 >= n || stitch_path_fit_len(img, sk, k + 1, back, RETURN_CHECK) > 0) {
          pc = back;
          break;
        }
        depth = 0;
        unwound++;
      }
      pc = stitch_indirect_target(db, img, sk, k, pc, want, mask, centre, d, &redir);
      if (!pc && (pc = stitch_site_target(img, sites, sk, k)) != 0) {
        site_returns++;
        guessed = 1;
      }
      break;
    }
    default: pc = fall; break;
    }
    redirected += (uint64_t)redir;
    if (guessed) {
      /* the counts of the positions up to the latest guess (its own guess
         not counted: cut there, the guess is not used) */
      guess.at = k;
      guess.site_returns = site_returns - (si.opclass == IC_OP_RETURN);
      guess.unwound = unwound;
      guess.near_jumps = near_jumps - (si.opclass == IC_OP_IJUMP);
      guess.pointer_calls = pointer_calls - (si.opclass == IC_OP_CALL);
      guess.first_misses = first_misses;
      guess.mem_dropped = mem_dropped;
      guess.exact = exact;
      guess.approx = approx;
      guess.inferred = inferred;
      guess.patched = patched;
      guess.redirected = redirected;
    }
    if (!pc) { /* the path is unknown from here: keep the prefix or abort */
      if (k + 1 < min_keep) ABORT(TARGET);
      n = k + 1;
      st->truncated++;
      break;
    }
  }
  free(anc);
  free(lines.slot);
  rules_free(&ru);
  st->stitched++;
  st->instructions += n;
  st->exact += exact;
  st->approx += approx;
  st->inferred += inferred;
  st->patched += patched;
  st->redirected += redirected;
  st->site_returns += site_returns;
  st->unwound += unwound;
  st->near_jumps += near_jumps;
  st->pointer_calls += pointer_calls;
  st->first_misses += first_misses;
  st->mem_dropped += mem_dropped;
  *built = n;
  return IC_OK;
}
