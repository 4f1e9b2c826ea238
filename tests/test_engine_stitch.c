/* test_engine_stitch.c: what the stitcher takes from the skeleton rather
 * than from a sample: the instruction's own bits override what a sample
 * taken at another event says (a hit sample for a load the skeleton says
 * missed the L2, a branch sample without a misprediction where the skeleton
 * has one), IBW edges are rebuilt from the register chains of the
 * stitched path (a sampled IBW distance is never used), and fetch breaks
 * (DD's bw part) fall where the path's fetch groups start, not where a
 * sample from another instance had its own.
 *
 * Program (4-byte instructions, straight line then a loop back):
 *   0x100 addi x5 <- x5   0x104 addi x5 <- x5   0x108 ld x6 <- (x5)
 *   0x10c addi x5 <- x5   0x110 addi x5 <- x5   0x114 beq x5 -> 0x100
 *   0x200 jr x5 (indirect)
 *   0x300 addi x6 <- x6   0x304 addi x6 <- x6
 *   0x400 ld x6 <- (x5)   0x404 addi x6 <- x6
 *   0x210 jr x5 (indirect)
 *   0x500 .. 0x5a0: 41 x addi x7 <- x7
 *   0x600 .. 0x69c: 40 x addi x7 <- x7, 0x6a0 ld x6 <- (x5)
 *   0x700 .. 0x79c: 40 independent adds (x8 .. x15) */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "sig.h"
#include "sig_db.h"
#include "solver.h"
#include "graph.h"
#include "stitch.h"
#include "test_sig_util.h"

/* A small machine: the baseline's latencies, a narrower and shallower core. */
static sig_machine machine(void) {
  sig_machine m = t_sig_machine_baseline();
  m.fetch_width = 4;
  m.commit_width = 4;
  m.rob = 32;
  m.dispatch_ready = 1;
  m.recovery = 2;
  m.frontend_depth = 5;
  m.l2_latency = 10;
  m.mem_latency = 80;
  m.tlb_miss = 20;
  m.issue_width = 2; /* IBW: the ancestor 3 steps up a chain */
  m.fetch_taken = 0;
  m.l1i_line = 0;
  return m;
}

static int lookup(void *ctx, uint64_t pc, ic_static_inst *o) {
  (void)ctx;
  memset(o, 0, sizeof *o);
  memset(o->src, IC_REG_NONE, sizeof o->src);
  memset(o->dst, IC_REG_NONE, sizeof o->dst);
  o->size = 4;
  o->valid = 1;
  switch (pc) {
  case 0x100:
  case 0x104:
  case 0x10c:
  case 0x110: o->opclass = IC_OP_INT_ALU; o->src[0] = 5; o->dst[0] = 5; break;
  case 0x108: o->opclass = IC_OP_LOAD; o->src[0] = 5; o->dst[0] = 6; break;
  case 0x114: o->opclass = IC_OP_BRANCH; o->src[0] = 5; o->target = 0x100; break;
  case 0x200: o->opclass = IC_OP_IJUMP; o->src[0] = 5; break;
  case 0x300:
  case 0x304:
  case 0x404: o->opclass = IC_OP_INT_ALU; o->src[0] = 6; o->dst[0] = 6; break;
  case 0x400: o->opclass = IC_OP_LOAD; o->src[0] = 5; o->dst[0] = 6; break;
  case 0x210:
  case 0x100000: o->opclass = IC_OP_IJUMP; o->src[0] = 5; break;
  case 0x6a0: o->opclass = IC_OP_LOAD; o->src[0] = 5; o->dst[0] = 6; break;
  default:
    /* two straight runs of 41 adds: 0x500..0x5a0 and 0x600..0x69c (then
       the load at 0x6a0) */
    if ((pc >= 0x500 && pc <= 0x5a0) || (pc >= 0x600 && pc < 0x6a0)) {
      o->opclass = IC_OP_INT_ALU;
      o->src[0] = 7;
      o->dst[0] = 7;
      break;
    }
    if (pc >= 0x700 && pc < 0x7a0) { /* 40 independent adds */
      o->opclass = IC_OP_INT_ALU;
      o->dst[0] = (uint8_t)(8 + (pc >> 2) % 8);
      break;
    }
    o->valid = 0;
    return 0;
  }
  return 1;
}

static const ic_program_image img = {NULL, lookup, NULL};

static const ic_edge *find(const ic_graph_rec *r, uint8_t kind) {
  for (int k = 0; k < r->nedges; k++)
    if (r->edge[k].kind == kind) return &r->edge[k];
  return NULL;
}

static int count(const ic_graph_rec *r, uint8_t kind) {
  int n = 0;
  for (int k = 0; k < r->nedges; k++) n += r->edge[k].kind == kind;
  return n;
}

static sig_detail sample(uint64_t seq, uint64_t pc, uint8_t op, uint64_t next, uint64_t sig) {
  sig_detail d;
  memset(&d, 0, sizeof d);
  d.seq = seq;
  d.pc = pc;
  d.opclass = op;
  d.next_pc = next;
  d.sig = sig;
  d.present = SIG_HAS_FBW | SIG_HAS_CD | SIG_HAS_CBW;
  return d;
}

static ic_edge *add(sig_detail *d, uint8_t kind, uint32_t dist, uint8_t cat, uint32_t cyc) {
  ic_edge *e = &d->item[d->nitems++];
  memset(e, 0, sizeof *e);
  e->kind = kind;
  e->dist = dist;
  if (cyc) {
    e->nparts = 1;
    e->part[0].cat = cat;
    e->part[0].cycles = cyc;
  }
  return e;
}

#define B1 SIG_B1
#define B2 SIG_B2
#define CENTRE(b) ((uint64_t)(b) << (2 * SIG_HALF))

/* The skeleton: two loop iterations; the load of the first hits, the one of
   the second misses the L2; the branch of the first is mispredicted. */
static const uint8_t bits[12] = {0, 0, B1, 0, 0, B1 | B2, 0, 0, B2, 0, 0, 0};

static void stitch(sig_db *db, ic_graph_rec *recs, ic_stitch_stats *st) {
  sig_machine m = machine();
  sig_skeleton sk = {5000, 0x100, 12, (uint8_t *)bits, 0};
  size_t built;
  ic_err err;
  cr_assert_eq(ic_stitch_fragment(db, &m, &img, &sk, recs, &built, st, &err), IC_OK, "%s",
               err.msg);
  cr_assert_eq(built, 12);
  for (int k = 0; k < 12; k++) cr_assert_eq(recs[k].pc, 0x100u + 4u * (unsigned)(k % 6));
}

Test(stitch_skeleton, own_bits_override_the_sample) {
  sig_db *db;
  ic_err err;
  cr_assert_eq(sig_db_create(&db, &err), IC_OK);
  sig_out o = sig_db_out(db);
  /* the only load sample: an L1 hit (own bits B1), a 2-cycle EP */
  sig_detail ld = sample(10, 0x108, IC_OP_LOAD, 0x10c, CENTRE(B1));
  add(&ld, IC_EDGE_EP, 0, IC_CAT_DL1, 2);
  add(&ld, IC_EDGE_RE, 0, IC_CAT_DMISS, 3); /* kept: not decided by the bits (an MSHR wait) */
  /* the only branch sample: taken, not mispredicted (no PD item) */
  sig_detail br = sample(11, 0x114, IC_OP_BRANCH, 0x100, CENTRE(B1));
  cr_assert_eq(o.detail(o.ctx, &ld, &err), IC_OK);
  cr_assert_eq(o.detail(o.ctx, &br, &err), IC_OK);
  cr_assert_eq(sig_db_build(db, &err), IC_OK);
  ic_graph_rec recs[12];
  ic_stitch_stats st = {0};
  stitch(db, recs, &st);
  /* first load: the sample agrees with its bits (a hit) */
  cr_assert_eq(ic_edge_latency(find(&recs[2], IC_EDGE_EP), 0), 2);
  /* second load: bits B2 without B1, an L2 miss: dl1 + l2 + mem */
  const ic_edge *ep = find(&recs[8], IC_EDGE_EP);
  cr_assert_eq(ic_edge_latency(ep, 0), 2 + 10 + 80);
  cr_assert_eq(ic_edge_latency(ep, IC_CATBIT(IC_CAT_DMISS)), 2);
  cr_assert_eq(ic_edge_latency(find(&recs[8], IC_EDGE_RE), 0), 3);
  /* the first branch mispredicted (B1|B2): the instruction after it gets
     the penalty though the sample had none; the second (B1 only) none */
  const ic_edge *pd = find(&recs[6], IC_EDGE_PD);
  cr_assert_not_null(pd);
  cr_assert_eq(ic_edge_latency(pd, 0), 2 + 5);
  cr_assert_null(find(&recs[0], IC_EDGE_PD));
  /* patched: the second load and the first branch */
  cr_assert_eq(st.patched, 2);
  cr_assert_eq(st.inferred, 8);
  sig_db_destroy(db);
}

Test(stitch_skeleton, a_sample_event_the_skeleton_denies_is_dropped) {
  sig_db *db;
  ic_err err;
  cr_assert_eq(sig_db_create(&db, &err), IC_OK);
  sig_out o = sig_db_out(db);
  /* a mispredicted branch sample (own bits B1|B2, PD for the next) and an
     L2-hit load sample with a cache-line-sharing producer */
  sig_detail br = sample(11, 0x114, IC_OP_BRANCH, 0x100, CENTRE(B1 | B2));
  add(&br, IC_EDGE_PD, 1, IC_CAT_NONE, 40);
  sig_detail ld = sample(12, 0x108, IC_OP_LOAD, 0x10c, CENTRE(B1 | B2));
  add(&ld, IC_EDGE_EP, 0, IC_CAT_DL1, 2)->part[1] = (ic_lat_part){10, IC_CAT_DMISS};
  ld.item[0].nparts = 2;
  add(&ld, IC_EDGE_PP, 2, IC_CAT_NONE, 0);
  cr_assert_eq(o.detail(o.ctx, &br, &err), IC_OK);
  cr_assert_eq(o.detail(o.ctx, &ld, &err), IC_OK);
  cr_assert_eq(sig_db_build(db, &err), IC_OK);
  ic_graph_rec recs[12];
  ic_stitch_stats st = {0};
  stitch(db, recs, &st);
  /* the first branch is mispredicted by its bits: the sample's own penalty */
  cr_assert_eq(ic_edge_latency(find(&recs[6], IC_EDGE_PD), 0), 40);
  /* the first load hit (B1): no dmiss part, no PP */
  cr_assert_eq(ic_edge_latency(find(&recs[2], IC_EDGE_EP), 0), 2);
  cr_assert_null(find(&recs[2], IC_EDGE_PP));
  /* the second load missed the L2 (B2 only): the inferred miss latency. A
     miss may wait for a line another access brought, but the sample's
     producer, 2 back, is the branch here, which brought none: the load is
     the line's first miss, without PP */
  cr_assert_eq(ic_edge_latency(find(&recs[8], IC_EDGE_EP), 0), 2 + 10 + 80);
  cr_assert_null(find(&recs[8], IC_EDGE_PP));
  cr_assert_eq(st.first_misses, 1);
  /* the last branch (bits 0) is not mispredicted: the sample's penalty is
     not kept for a next instruction (none here, but the count says so) */
  cr_assert_eq(st.patched, 3);
  sig_db_destroy(db);
}

Test(stitch_skeleton, ibw_rebuilt_from_the_register_chain) {
  sig_db *db;
  ic_err err;
  cr_assert_eq(sig_db_create(&db, &err), IC_OK);
  sig_out o = sig_db_out(db);
  /* an add sample carrying an IBW item with a distance from elsewhere */
  sig_detail a = sample(10, 0x10c, IC_OP_INT_ALU, 0x110, 0);
  add(&a, IC_EDGE_IBW, 1, IC_CAT_BW, 1);
  cr_assert_eq(o.detail(o.ctx, &a, &err), IC_OK);
  cr_assert_eq(sig_db_build(db, &err), IC_OK);
  ic_graph_rec recs[12];
  ic_stitch_stats st = {0};
  stitch(db, recs, &st);
  /* chain through x5: 0 <- nothing, 1 <- 0, 2 (ld) <- 1, 3 <- 1 (the load
     writes x6), 4 <- 3, 5 (beq) <- 4, 6 <- 4, 7 <- 6, 8 <- 7, 9 <- 7, ...
     ancestors 3 steps up: 3 -> 1 -> 0 -> none; 4 -> 3,1,0: IBW to 0 */
  static const int anc3[12] = {-1, -1, -1, -1, 0, 1, 1, 3, 4, 4, 6, 7};
  for (int k = 0; k < 12; k++) {
    const ic_edge *e = find(&recs[k], IC_EDGE_IBW);
    cr_assert_leq(count(&recs[k], IC_EDGE_IBW), 1, "position %d", k);
    if (anc3[k] < 0) {
      cr_assert_null(e, "position %d", k);
    } else {
      cr_assert_not_null(e, "position %d", k);
      cr_assert_eq(e->dist, (uint32_t)(k - anc3[k]), "position %d", k);
      cr_assert_eq(ic_edge_latency(e, 0), 1);
      cr_assert_eq(ic_edge_latency(e, IC_CATBIT(IC_CAT_BW)), 0);
    }
  }
  /* the records are a graph the solver accepts */
  ic_solver *sv;
  const uint8_t cats[1] = {IC_CAT_BW};
  cr_assert_eq(ic_solver_create(&sv, cats, 1, &err), IC_OK);
  cr_assert_eq(ic_solver_feed(sv, recs, 12, &err), IC_OK, "%s", err.msg);
  ic_solver_destroy(sv);
  sig_db_destroy(db);
}

/* DD's bw part of position k (0 if none). */
static uint64_t dd_bw(const ic_graph_rec *r) {
  const ic_edge *dd = find(r, IC_EDGE_DD);
  cr_assert_not_null(dd);
  return ic_edge_latency(dd, 0) - ic_edge_latency(dd, IC_CATBIT(IC_CAT_BW));
}

Test(stitch_skeleton, fetch_breaks_follow_the_path) {
  /* no misprediction; the branch of the first iteration taken (back to
     0x100), the last one not */
  static const uint8_t nb[12] = {0, 0, B1, 0, 0, B1, 0, 0, B1, 0, 0, 0};
  sig_db *db;
  ic_err err;
  cr_assert_eq(sig_db_create(&db, &err), IC_OK);
  sig_out o = sig_db_out(db);
  /* the add at 0x10c sampled at another instance with a break of its own,
     and once at position 9 of the skeleton itself (retire count 5009) */
  sig_detail other = sample(10, 0x10c, IC_OP_INT_ALU, 0x110, 0);
  add(&other, IC_EDGE_DD, 1, IC_CAT_BW, 1);
  sig_detail self = sample(5009, 0x10c, IC_OP_INT_ALU, 0x110, 0);
  add(&self, IC_EDGE_DD, 1, IC_CAT_BW, 1);
  cr_assert_eq(o.detail(o.ctx, &other, &err), IC_OK);
  cr_assert_eq(o.detail(o.ctx, &self, &err), IC_OK);
  cr_assert_eq(sig_db_build(db, &err), IC_OK);
  sig_machine m = machine();
  for (uint32_t ft = 1; ft <= 2; ft++) {
    m.fetch_taken = ft;
    sig_skeleton sk = {5000, 0x100, 12, (uint8_t *)nb, 0};
    ic_graph_rec recs[12];
    size_t built;
    ic_stitch_stats st = {0};
    cr_assert_eq(ic_stitch_fragment(db, &m, &img, &sk, recs, &built, &st, &err), IC_OK);
    cr_assert_eq(built, 12);
    /* fetch width 4: groups [0..3] [4..7] [8..11] when a taken branch does
       not end one (fetch_taken 2); with fetch_taken 1 the taken branch at 5
       ends its group: [4, 5] [6..9] [10, 11]. Only a group the taken branch
       ended breaks (one the width ended: none, FBW holds it, as in the
       model). Position 3's sample (another instance) does not bring its
       break; position 9's own sample does. */
    for (int k = 0; k < 12; k++) {
      int brk = ft == 1 && k == 6;
      if (k == 9) brk = 1;
      cr_assert_eq(dd_bw(&recs[k]), (uint64_t)brk, "fetch_taken %u, position %d", ft, k);
    }
  }
  sig_db_destroy(db);
}

Test(stitch_skeleton, indirect_target_must_fit_the_bits) {
  /* the jump went to 0x400 (a load: bit 1) here; its best-matching sample
     went to 0x300 (an add, which cannot have bit 1), another one to 0x400 */
  static const uint8_t jb[3] = {B1, B1, 0};
  const uint64_t exact_sig = ((uint64_t)B1 << (2 * SIG_HALF)) | ((uint64_t)B1 << (2 * SIG_HALF + 2));
  for (int with_other = 0; with_other < 2; with_other++) {
    sig_db *db;
    ic_err err;
    cr_assert_eq(sig_db_create(&db, &err), IC_OK);
    sig_out o = sig_db_out(db);
    sig_detail best = sample(5000, 0x200, IC_OP_IJUMP, 0x300, exact_sig);
    sig_detail other = sample(10, 0x200, IC_OP_IJUMP, 0x400, (uint64_t)B1 << (2 * SIG_HALF));
    cr_assert_eq(o.detail(o.ctx, &best, &err), IC_OK);
    if (with_other) cr_assert_eq(o.detail(o.ctx, &other, &err), IC_OK);
    cr_assert_eq(sig_db_build(db, &err), IC_OK);
    uint64_t t[4];
    cr_assert_eq(sig_db_targets(db, 0x200, exact_sig, SIG_MASK42, (uint64_t)3 << (2 * SIG_HALF),
                                t, 4),
                 (size_t)(1 + with_other));
    cr_assert_eq(t[0], 0x300); /* best first */
    sig_machine m = machine();
    sig_skeleton sk = {5000, 0x200, 3, (uint8_t *)jb, 0};
    ic_graph_rec recs[3];
    size_t built;
    ic_stitch_stats st = {0};
    cr_assert_eq(ic_stitch_fragment(db, &m, &img, &sk, recs, &built, &st, &err), IC_OK);
    cr_assert_eq(built, 3);
    cr_assert_eq(st.redirected, with_other);
    if (with_other) {
      cr_assert_eq(recs[1].pc, 0x400);
      cr_assert_eq(recs[2].pc, 0x404);
      cr_assert_eq(st.near_jumps, 0);
    } else {
      /* no sampled target fits the bits: the code does. The load at 0x108
         (then an add), the taken branch at 0x114 (then the add at 0x100)
         and the load at 0x400 fit both bits, so none within 2 KB is the
         only one; of those, the nearest to the jump: 0x114 */
      cr_assert_eq(recs[1].pc, 0x114);
      cr_assert_eq(recs[2].pc, 0x100);
      cr_assert_eq(st.near_jumps, 1);
    }
    sig_db_destroy(db);
  }
}

/* An indirect jump whose target neither a sample nor the code within 16 KB
 * gives (the jump at 0x100000 is the only instruction there, and a jump
 * cannot have bit 1 clear): the target is unknown, the fragment is cut
 * there as a prefix, or aborted where the prefix is shorter than asked. */
Test(stitch_skeleton, unknown_target_cuts_the_fragment) {
  static const uint8_t jb[3] = {B1, 0, 0};
  sig_db *db;
  ic_err err;
  cr_assert_eq(sig_db_create(&db, &err), IC_OK);
  cr_assert_eq(sig_db_build(db, &err), IC_OK);
  sig_machine m = machine();
  sig_skeleton sk = {5000, 0x100000, 3, (uint8_t *)jb, 0};
  ic_graph_rec recs[3];
  size_t built;
  ic_stitch_stats st = {0};
  cr_assert_eq(ic_stitch_fragment(db, &m, &img, &sk, recs, &built, &st, &err), IC_OK);
  cr_assert_eq(built, 0);
  cr_assert_eq(st.abort_why[IC_STITCH_ABORT_TARGET], 1);
  /* as a prefix: the jump itself is known, the rest is not */
  ic_stitch_stats st2 = {0};
  cr_assert_eq(ic_stitch_fragment_prefix(db, &m, &img, &sk, 1, recs, &built, &st2, &err), IC_OK);
  cr_assert_eq(built, 1);
  cr_assert_eq(recs[0].pc, 0x100000);
  cr_assert_eq(st2.truncated, 1);
  cr_assert_eq(st2.stitched, 1);
  cr_assert_eq(st2.aborted, 0);
  cr_assert_eq(st2.instructions, 1);
  cr_assert_eq(st2.near_jumps, 0);
  cr_assert_eq(ic_stitch_fragment_prefix(db, &m, &img, &sk, 2, recs, &built, &st2, &err), IC_OK);
  cr_assert_eq(built, 0); /* shorter than min_keep: aborted */
  cr_assert_eq(st2.abort_why[IC_STITCH_ABORT_TARGET], 1);
  sig_db_destroy(db);
}

Test(stitch_skeleton, indirect_target_checked_to_the_end) {
  /* the two targets differ only 41 instructions in: an add at 0x5a0, a
     load (bit 1) at 0x6a0; the skeleton has the load */
  uint8_t jb[42];
  memset(jb, 0, sizeof jb);
  jb[0] = B1;  /* the jump */
  jb[41] = B1; /* a load that hit */
  sig_db *db;
  ic_err err;
  cr_assert_eq(sig_db_create(&db, &err), IC_OK);
  sig_out o = sig_db_out(db);
  sig_detail best = sample(5000, 0x210, IC_OP_IJUMP, 0x500, (uint64_t)B1 << (2 * SIG_HALF));
  sig_detail other = sample(10, 0x210, IC_OP_IJUMP, 0x600, (uint64_t)B2 << (2 * SIG_HALF));
  cr_assert_eq(o.detail(o.ctx, &best, &err), IC_OK);
  cr_assert_eq(o.detail(o.ctx, &other, &err), IC_OK);
  cr_assert_eq(sig_db_build(db, &err), IC_OK);
  sig_machine m = machine();
  sig_skeleton sk = {5000, 0x210, 42, jb, 0};
  ic_graph_rec recs[42];
  size_t built;
  ic_stitch_stats st = {0};
  cr_assert_eq(ic_stitch_fragment(db, &m, &img, &sk, recs, &built, &st, &err), IC_OK);
  cr_assert_eq(built, 42);
  cr_assert_eq(recs[1].pc, 0x600);
  cr_assert_eq(recs[41].pc, 0x6a0);
  cr_assert_eq(st.redirected, 1);
  sig_db_destroy(db);
}

/* Issue slots are the fragment's own (stitch.h): 40 independent adds and at
   most issue_width = 2 issues per cycle. Samples of other instances bring a
   5-cycle issue wait and an IW edge 7 back, which their own phase of the
   slots gave them; both are replaced by the fragment's oldest-first slots.
   A sample of the very instance (position 20) keeps its own. */
Test(stitch_skeleton, issue_slots_are_the_fragments_own) {
  sig_db *db;
  ic_err err;
  cr_assert_eq(sig_db_create(&db, &err), IC_OK);
  sig_out o = sig_db_out(db);
  for (uint64_t pc = 0x700; pc < 0x7a0; pc += 4) {
    int own = pc == 0x750;
    sig_detail a = sample(own ? 7000 + 20 : 100 + pc, pc, IC_OP_INT_ALU, pc + 4, 0);
    add(&a, IC_EDGE_RE, 0, IC_CAT_BW, 5);
    if (!own) add(&a, IC_EDGE_IW, 7, IC_CAT_BW, 1);
    cr_assert_eq(o.detail(o.ctx, &a, &err), IC_OK);
  }
  cr_assert_eq(sig_db_build(db, &err), IC_OK);
  static const uint8_t zero[40];
  sig_machine m = machine();
  sig_skeleton sk = {7000, 0x700, 40, (uint8_t *)zero, 0};
  ic_graph_rec recs[40];
  size_t built;
  ic_stitch_stats st = {0};
  cr_assert_eq(ic_stitch_fragment(db, &m, &img, &sk, recs, &built, &st, &err), IC_OK, "%s",
               err.msg);
  cr_assert_eq(built, 40);
  for (int k = 0; k < 20; k++) {
    const ic_graph_rec *r = &recs[k];
    uint64_t e = r->t[IC_NODE_E];
    int same = 0;
    for (int j = 0; j < 20; j++) same += recs[j].t[IC_NODE_E] == e;
    cr_assert_leq(same, 2, "%d issues in cycle %llu", same, (unsigned long long)e);
    /* the wait is the slots': none where a slot was free at once; where
       the slot rule gives it back from R it lives on the rule, not on RE */
    const ic_edge *re = find(r, IC_EDGE_RE);
    cr_assert(r->t[IC_NODE_R] + ic_edge_latency(re, 0) == e || re->nparts == 0, "position %d", k);
    if (k >= 2) {
      cr_assert_eq(e, recs[k - 2].t[IC_NODE_E] + 1, "position %d", k);
      /* the slot rule of the width (2), no IW edge */
      cr_assert_eq(r->slot_w, 2, "position %d", k);
      cr_assert_eq(r->slot_p, 0, "position %d", k);
      cr_assert_eq(count(r, IC_EDGE_IW), 0);
    }
  }
  /* the slots bind: dispatch runs ahead of issue, and the wait is the
     rule's; evaluated, the fragment gives back its own times */
  cr_assert_gt(recs[19].t[IC_NODE_E], recs[19].t[IC_NODE_R]);
  cr_assert_eq(ic_edge_latency(find(&recs[19], IC_EDGE_RE), 0), 0);
  uint64_t nt[20 * IC_NODE_COUNT], tend;
  cr_assert_eq(ic_graph_eval(recs, 20, 0, nt, &tend, &err), IC_OK, "%s", err.msg);
  for (int k = 0; k < 20; k++)
    cr_assert_eq(nt[k * IC_NODE_COUNT + IC_NODE_E], recs[k].t[IC_NODE_E], "position %d", k);
  /* the own sample keeps its wait and has no IW edge */
  cr_assert_eq(ic_edge_latency(find(&recs[20], IC_EDGE_RE), 0), 5);
  cr_assert_null(find(&recs[20], IC_EDGE_IW));
  sig_db_destroy(db);
}
