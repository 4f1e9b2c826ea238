/* test_stitch.c: the stitcher on a hand-made program image: the walk
 * (branch bits, call/return stack, indirect targets from samples), the
 * inference from bits and machine defaults where no sample exists, the
 * aborts on impossible bit/opcode combinations and unknown targets, and the
 * exact/approximate/inferred counts.
 *
 * Program (4-byte instructions):
 *   0x1000 addi            0x1004 amoadd (src x5, dst x6)   0x1008 add x7 <- x6
 *   0x100c beq -> 0x1000   0x1010 call 0x2000          0x1014 jr (indirect)
 *   0x2000 mul             0x2004 ret                   0x3000 div */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "profiler.h"
#include "sig.h"
#include "sig_db.h"
#include "solver.h"
#include "stitch.h"
#include "test_sig_util.h"

/* The baseline machine without the parameters these hand-made records
   predate: no IBW rebuilding (issue width 0), no fetch-group breaks, no
   I-cache line tracking. */
static sig_machine machine(void) {
  sig_machine m = t_sig_machine_baseline();
  m.issue_width = 0;
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
  case 0x1000: o->opclass = IC_OP_INT_ALU; o->dst[0] = 5; break;
  case 0x1004: /* an AMO (amoadd.d x6, x0, (x5)): it writes memory too */
    o->opclass = IC_OP_LOAD; o->src[0] = 5; o->dst[0] = 6; o->is_mem_rmw = 1; break;
  case 0x1008: o->opclass = IC_OP_INT_ALU; o->src[0] = 6; o->src[1] = 6; o->dst[0] = 7; break;
  case 0x100c: o->opclass = IC_OP_BRANCH; o->src[0] = 7; o->target = 0x1000; break;
  case 0x1010: o->opclass = IC_OP_CALL; o->dst[0] = 1; o->target = 0x2000; break;
  case 0x1014: o->opclass = IC_OP_IJUMP; o->src[0] = 7; break;
  case 0x2000: o->opclass = IC_OP_INT_MUL; o->src[0] = 7; o->dst[0] = 7; break;
  case 0x2004: o->opclass = IC_OP_RETURN; o->src[0] = 1; break;
  case 0x3000: o->opclass = IC_OP_INT_DIV; break;
  default: o->valid = 0; return 0;
  }
  return 1;
}

static const ic_program_image img = {NULL, lookup, NULL};

static sig_skeleton skel(uint64_t pc, const uint8_t *bits, uint32_t n) {
  sig_skeleton s = {1000, pc, n, (uint8_t *)bits, 0};
  return s;
}

/* A built database of the n detailed samples d[0..n-1], in that order. */
static sig_db *db_of(const sig_detail *d, size_t n) {
  sig_db *db;
  ic_err err;
  cr_assert_eq(sig_db_create(&db, &err), IC_OK);
  sig_out o = sig_db_out(db);
  for (size_t k = 0; k < n; k++) cr_assert_eq(o.detail(o.ctx, &d[k], &err), IC_OK);
  cr_assert_eq(sig_db_build(db, &err), IC_OK);
  return db;
}

static sig_db *empty_db(void) { return db_of(NULL, 0); }

static const ic_edge *find(const ic_graph_rec *r, uint8_t kind, uint32_t dist) {
  for (int k = 0; k < r->nedges; k++)
    if (r->edge[k].kind == kind && (dist == 0 || r->edge[k].dist == dist)) return &r->edge[k];
  return NULL;
}

#define B1 SIG_B1
#define B2 SIG_B2

Test(stitch, walk_and_infer_without_samples) {
  sig_machine m = machine();
  sig_db *db = empty_db();
  /* two loop iterations (branch taken, then a mispredicted taken branch
     whose load missed the L2), then fall through into the call */
  const uint8_t bits[] = {0, B1, 0, B1, 0, B2, 0, B1 | B2, 0, B1 | B2, 0, 0, B1, 0, B1};
  const uint64_t pcs[] = {0x1000, 0x1004, 0x1008, 0x100c, 0x1000, 0x1004, 0x1008, 0x100c,
                          0x1000, 0x1004, 0x1008, 0x100c, 0x1010, 0x2000, 0x2004};
  uint32_t n = sizeof bits;
  sig_skeleton sk = skel(0x1000, bits, n);
  ic_graph_rec recs[sizeof bits];
  size_t built;
  ic_stitch_stats st = {0};
  ic_err err;
  cr_assert_eq(ic_stitch_fragment(db, &m, &img, &sk, recs, &built, &st, &err), IC_OK);
  cr_assert_eq(built, n);
  for (uint32_t k = 0; k < n; k++) cr_assert_eq(recs[k].pc, pcs[k], "position %u", k);
  cr_assert_eq(st.inferred, n);
  cr_assert_eq(st.stitched, 1);
  /* an L1 hit load: dl1 = l1d.latency only */
  const ic_edge *ep = find(&recs[1], IC_EDGE_EP, 0);
  cr_assert_eq(ic_edge_latency(ep, 0), 2);
  /* bit2 without bit1 on a load: an L2 miss, dmiss = l2 + mem */
  ep = find(&recs[5], IC_EDGE_EP, 0);
  cr_assert_eq(ic_edge_latency(ep, 0), 2 + 12 + 100);
  cr_assert_eq(ic_edge_latency(ep, IC_CATBIT(IC_CAT_DMISS)), 2);
  /* bit2 and bit1 on a load: an L2 hit */
  cr_assert_eq(ic_edge_latency(find(&recs[9], IC_EDGE_EP, 0), 0), 2 + 12);
  /* bit2 on a branch: a misprediction, the next instruction gets PD */
  const ic_edge *pd = find(&recs[8], IC_EDGE_PD, 0);
  cr_assert_not_null(pd);
  cr_assert_eq(pd->dist, 1);
  cr_assert_eq(ic_edge_latency(pd, 0), 3 + 9);
  cr_assert_null(find(&recs[4], IC_EDGE_PD, 0));
  /* register dependences rebuilt from the image: add x7 <- x6 (one edge for
     the two identical sources) from the load one back; ld from addi */
  int prs = 0;
  for (int k = 0; k < recs[2].nedges; k++) prs += recs[2].edge[k].kind == IC_EDGE_PR;
  cr_assert_eq(prs, 1);
  cr_assert_not_null(find(&recs[2], IC_EDGE_PR, 1));
  cr_assert_not_null(find(&recs[5], IC_EDGE_PR, 1));
  /* mul x7 <- x7 in the callee: from the add at position 10 */
  cr_assert_not_null(find(&recs[13], IC_EDGE_PR, 3));
  /* machine edges */
  cr_assert_eq(find(&recs[7], IC_EDGE_FBW, 0)->dist, 6);
  cr_assert_eq(find(&recs[7], IC_EDGE_CD, 0)->dist, 64);
  cr_assert_eq(find(&recs[7], IC_EDGE_CBW, 0)->dist, 6);
  cr_assert_eq(ic_edge_latency(find(&recs[7], IC_EDGE_DR, 0), 0), 2);
  cr_assert_eq(ic_edge_latency(find(&recs[13], IC_EDGE_EP, 0), 0), 3);
  /* the records are a graph the solver accepts */
  ic_solver *sv;
  const uint8_t cats[2] = {IC_CAT_DMISS, IC_CAT_BMISP};
  cr_assert_eq(ic_solver_create(&sv, cats, 2, &err), IC_OK);
  cr_assert_eq(ic_solver_feed(sv, recs, built, &err), IC_OK, "%s", err.msg);
  const uint64_t *t = ic_solver_times(sv);
  cr_assert_gt(t[0], t[1]); /* removing the L2 miss helps */
  cr_assert_gt(t[0], t[2]); /* and the misprediction */
  ic_solver_destroy(sv);
  sig_db_destroy(db);
}

Test(stitch, aborts) {
  sig_machine m = machine();
  sig_db *db = empty_db();
  ic_graph_rec recs[8];
  size_t built;
  ic_stitch_stats st = {0};
  ic_err err;
  /* bit1 on an add */
  const uint8_t b1[] = {B1, B1};
  sig_skeleton sk = skel(0x1000, b1, 2);
  cr_assert_eq(ic_stitch_fragment(db, &m, &img, &sk, recs, &built, &st, &err), IC_OK);
  cr_assert_eq(built, 0);
  cr_assert_eq(st.abort_why[IC_STITCH_ABORT_BITS], 1);
  /* a store or jump without bit1: the call at 0x1010 */
  const uint8_t b2[] = {0, 0};
  sk = skel(0x1010, b2, 2);
  cr_assert_eq(ic_stitch_fragment(db, &m, &img, &sk, recs, &built, &st, &err), IC_OK);
  cr_assert_eq(st.abort_why[IC_STITCH_ABORT_BITS], 2);
  /* a load with neither bit (an L2 miss that is not a miss) */
  const uint8_t b3[] = {0, 0};
  sk = skel(0x1004, b3, 2);
  cr_assert_eq(ic_stitch_fragment(db, &m, &img, &sk, recs, &built, &st, &err), IC_OK);
  cr_assert_eq(st.abort_why[IC_STITCH_ABORT_BITS], 3);
  /* a pc outside the code */
  sk = skel(0x9000, b2, 2);
  cr_assert_eq(ic_stitch_fragment(db, &m, &img, &sk, recs, &built, &st, &err), IC_OK);
  cr_assert_eq(st.abort_why[IC_STITCH_ABORT_PC], 1);
  /* a return with an empty stack and no sample: target unknown */
  const uint8_t b4[] = {0, B1, 0};
  sk = skel(0x2000, b4, 3);
  cr_assert_eq(ic_stitch_fragment(db, &m, &img, &sk, recs, &built, &st, &err), IC_OK);
  cr_assert_eq(st.abort_why[IC_STITCH_ABORT_TARGET], 1);
  /* but the last position needs no next pc */
  sk = skel(0x2000, b4, 2);
  cr_assert_eq(ic_stitch_fragment(db, &m, &img, &sk, recs, &built, &st, &err), IC_OK);
  cr_assert_eq(built, 2);
  cr_assert_eq(st.aborted, 5);
  cr_assert_eq(st.fragments, 6);
  cr_assert_eq(st.stitched, 1);
  sig_db_destroy(db);
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

Test(stitch, samples_give_targets_and_latencies) {
  sig_machine m = machine();
  ic_err err;
  /* the return at 0x2004 with an empty stack goes where its sample went;
     the indirect jump 0x1014 too. The mul's sample has a long issue wait. */
  sig_detail ret = sample(10, 0x2004, IC_OP_RETURN, 0x1014, 0);
  sig_detail ij = sample(11, 0x1014, IC_OP_IJUMP, 0x3000, 0);
  /* the skeleton below has bits 0,B1,B1,0 at offsets 0..3 of the mul:
     window positions 10..13 -> bits 22 and 24 of the signature word */
  const uint64_t mulsig = ((uint64_t)B1 << 22) | ((uint64_t)B1 << 24);
  sig_detail mul = sample(9, 0x2000, IC_OP_INT_MUL, 0x2004, mulsig);
  ic_edge *re = &mul.item[mul.nitems++];
  re->kind = IC_EDGE_RE;
  re->nparts = 1;
  re->part[0].cat = IC_CAT_NONE;
  re->part[0].cycles = 7;
  ic_edge *ep = &mul.item[mul.nitems++];
  ep->kind = IC_EDGE_EP;
  ep->nparts = 1;
  ep->part[0].cat = IC_CAT_LGALU;
  ep->part[0].cycles = 3;
  /* a second mul sample, nearer in time, with a signature that differs
     inside the known window */
  sig_detail mul2 = mul;
  mul2.seq = 1000;
  mul2.sig = mulsig ^ ((uint64_t)3 << 20);
  mul2.item[0].part[0].cycles = 1;
  const sig_detail samples[] = {ret, ij, mul, mul2};
  sig_db *db = db_of(samples, 4);
  const uint8_t bits[] = {0, B1, B1, 0};
  sig_skeleton sk = skel(0x2000, bits, 4);
  ic_graph_rec recs[4];
  size_t built;
  ic_stitch_stats st = {0};
  cr_assert_eq(ic_stitch_fragment(db, &m, &img, &sk, recs, &built, &st, &err), IC_OK);
  cr_assert_eq(built, 4);
  cr_assert_eq(recs[2].pc, 0x1014);
  cr_assert_eq(recs[3].pc, 0x3000);
  /* the mul took the sample whose signature matches, not the nearer one */
  cr_assert_eq(ic_edge_latency(find(&recs[0], IC_EDGE_RE, 0), 0), 7);
  cr_assert_eq(ic_edge_latency(find(&recs[0], IC_EDGE_EP, 0), IC_CATBIT(IC_CAT_LGALU)), 0);
  cr_assert_eq(st.inferred, 1); /* the div */
  cr_assert_eq(st.exact, 1);
  cr_assert_eq(st.approx, 2);
  sig_db_destroy(db);
}

static uint64_t dd_imiss(const ic_graph_rec *r) {
  const ic_edge *dd = find(r, IC_EDGE_DD, 0);
  cr_assert_not_null(dd);
  return ic_edge_latency(dd, 0) - ic_edge_latency(dd, IC_CATBIT(IC_CAT_IMISS));
}

/* Bit 2 at the first fetch from a line the path has not fetched before is
 * the I-cache miss, whatever the opcode (a load's data and a call's
 * prediction then count as without an event); elsewhere bit 2 of a load or
 * branch is its own miss or misprediction. The miss costs the sampled
 * mean. */
Test(stitch, icache_miss_at_first_fetch_of_a_line) {
  sig_machine m = machine();
  m.l1i_line = 4; /* one instruction per line: the first loop iteration is cold */
  ic_err err;
  sig_db *db;
  cr_assert_eq(sig_db_create(&db, &err), IC_OK);
  /* two samples of an instruction off the path with misses of 100 cycles
     (on DD) and 124 (on the PD after a misprediction; DD cut to 50) */
  sig_detail d;
  memset(&d, 0, sizeof d);
  d.pc = 0x3000;
  d.opclass = IC_OP_INT_DIV;
  d.nitems = 1;
  d.item[0].kind = IC_EDGE_DD;
  d.item[0].dist = 1;
  d.item[0].nparts = 1;
  d.item[0].part[0].cat = IC_CAT_IMISS;
  d.item[0].part[0].cycles = 100;
  sig_out o = sig_db_out(db);
  cr_assert_eq(o.detail(o.ctx, &d, &err), IC_OK);
  d.seq = 7;
  d.item[0].part[0].cycles = 50;
  d.nitems = 2;
  d.item[1] = d.item[0];
  d.item[1].kind = IC_EDGE_PD;
  d.item[1].flags = SIG_ITEM_SELF;
  d.item[1].nparts = 2;
  d.item[1].part[0].cat = IC_CAT_NONE;
  d.item[1].part[0].cycles = 12;
  d.item[1].part[1].cat = IC_CAT_IMISS;
  d.item[1].part[1].cycles = 124;
  cr_assert_eq(o.detail(o.ctx, &d, &err), IC_OK);
  cr_assert_eq(sig_db_build(db, &err), IC_OK);
  cr_assert_eq(sig_db_imiss_cycles(db), (100 + 124) / 2);
  const uint8_t bits[] = {B2, B1 | B2, 0, B1, 0, B1 | B2, 0, B1 | B2,
                          0,  B1,      0, 0,  B1 | B2, B2, B1};
  uint32_t n = sizeof bits;
  sig_skeleton sk = skel(0x1000, bits, n);
  ic_graph_rec recs[sizeof bits];
  size_t built;
  ic_stitch_stats st = {0};
  cr_assert_eq(ic_stitch_fragment(db, &m, &img, &sk, recs, &built, &st, &err), IC_OK);
  cr_assert_eq(built, n);
  cr_assert_eq(recs[12].pc, 0x1010);
  cr_assert_eq(recs[13].pc, 0x2000);
  uint64_t lat = (100 + 124) / 2;
  /* cold: the add, the load (an L1 hit), the call, the multiply */
  cr_assert_eq(dd_imiss(&recs[0]), lat);
  cr_assert_eq(dd_imiss(&recs[1]), lat);
  cr_assert_eq(ic_edge_latency(find(&recs[1], IC_EDGE_EP, 0), 0), 2);
  cr_assert_eq(dd_imiss(&recs[12]), lat);
  cr_assert_null(find(&recs[13], IC_EDGE_PD, 0)); /* the call was not mispredicted */
  cr_assert_eq(dd_imiss(&recs[13]), lat);
  /* warm: the load's bit 2 is an L2 hit, the branch's a misprediction */
  for (uint32_t k = 2; k < 12; k++) cr_assert_eq(dd_imiss(&recs[k]), 0, "position %u", k);
  cr_assert_eq(ic_edge_latency(find(&recs[5], IC_EDGE_EP, 0), 0), 2 + 12);
  cr_assert_not_null(find(&recs[8], IC_EDGE_PD, 0));
  /* without the line size every such bit 2 is the instruction's own event */
  m.l1i_line = 0;
  cr_assert_eq(ic_stitch_fragment(db, &m, &img, &sk, recs, &built, &st, &err), IC_OK);
  cr_assert_eq(dd_imiss(&recs[0]), lat);
  cr_assert_eq(dd_imiss(&recs[1]), 0);
  cr_assert_eq(ic_edge_latency(find(&recs[1], IC_EDGE_EP, 0), 0), 2 + 12);
  cr_assert_not_null(find(&recs[13], IC_EDGE_PD, 0));
  sig_db_destroy(db);
}

/* A return whose call precedes the fragment and that no sample gives a
 * target goes to the return site (the instruction after a call) the bits
 * fit from: here the only one, after the call at 0x1010. */
Test(stitch, return_without_call_goes_to_a_return_site) {
  sig_machine m = machine();
  ic_err err;
  sig_detail d;
  memset(&d, 0, sizeof d);
  d.pc = 0x3000; /* off the path: gives the sites' code range */
  d.opclass = IC_OP_INT_DIV;
  sig_db *db = db_of(&d, 1);
  ic_stitch_sites *sites;
  cr_assert_eq(ic_stitch_sites_create(&sites, db, &img, &err), IC_OK);
  cr_assert_eq(ic_stitch_sites_count(sites), 1);
  /* mul, return, then the indirect jump at the site (no sample of it) */
  const uint8_t bits[] = {0, B1, B1, 0};
  sig_skeleton sk = skel(0x2000, bits, sizeof bits);
  ic_graph_rec recs[sizeof bits];
  size_t built;
  ic_stitch_stats st = {0};
  cr_assert_eq(ic_stitch_fragment_sites(db, &m, &img, sites, &sk, 1, recs, &built, &st, &err),
               IC_OK);
  cr_assert_eq(built, 4);
  cr_assert_eq(recs[2].pc, 0x1014);
  cr_assert_eq(st.site_returns, 1);
  /* the jump at the site: the nearest code its one bit fits (the branch
     at 0x100c, not taken), as in unsampled_indirect_jump_goes_... */
  cr_assert_eq(recs[3].pc, 0x100c);
  cr_assert_eq(st.near_jumps, 1);
  cr_assert_eq(st.truncated, 0);
  /* without the sites the path ends at the return */
  ic_stitch_stats st2 = {0};
  cr_assert_eq(ic_stitch_fragment_prefix(db, &m, &img, &sk, 1, recs, &built, &st2, &err), IC_OK);
  cr_assert_eq(built, 2);
  cr_assert_eq(st2.site_returns, 0);
  /* bits that do not fit the site's code (bit 1 clear on the indirect
     jump): no site is taken */
  const uint8_t bad[] = {0, B1, 0, 0};
  sig_skeleton sk2 = skel(0x2000, bad, sizeof bad);
  ic_stitch_stats st3 = {0};
  cr_assert_eq(ic_stitch_fragment_sites(db, &m, &img, sites, &sk2, 1, recs, &built, &st3, &err),
               IC_OK);
  cr_assert_eq(built, 2);
  cr_assert_eq(st3.site_returns, 0);
  ic_stitch_sites_destroy(sites);
  sig_db_destroy(db);
}

/* A return whose call's site the bits after it do not fit (a longjmp: the
 * ret leaves a frame other than the one the call entered) goes where its
 * samples went, and the walk's call stack is dropped; a return that fits
 * its call's site goes there. */
Test(stitch, return_not_to_its_call_drops_the_stack) {
  sig_machine m = machine();
  ic_err err;
  sig_detail ret = sample(10, 0x2004, IC_OP_RETURN, 0x3000, 0);
  sig_db *db = db_of(&ret, 1);
  /* call, mul, ret, then bit 1 clear: not the indirect jump at the call's
     site 0x1014 (its bit 1 is always set), the div the sample went to */
  const uint8_t bits[] = {B1, 0, B1, 0};
  sig_skeleton sk = skel(0x1010, bits, sizeof bits);
  ic_graph_rec recs[sizeof bits];
  size_t built;
  ic_stitch_stats st = {0};
  cr_assert_eq(ic_stitch_fragment(db, &m, &img, &sk, recs, &built, &st, &err), IC_OK);
  cr_assert_eq(built, 4);
  cr_assert_eq(recs[3].pc, 0x3000);
  cr_assert_eq(st.unwound, 1);
  cr_assert_eq(st.aborted, 0);
  /* bit 1 set after the ret: the call's site fits, the sample is not asked */
  const uint8_t fits[] = {B1, 0, B1, B1};
  sig_skeleton sk2 = skel(0x1010, fits, sizeof fits);
  ic_stitch_stats st2 = {0};
  cr_assert_eq(ic_stitch_fragment(db, &m, &img, &sk2, recs, &built, &st2, &err), IC_OK);
  cr_assert_eq(built, 4);
  cr_assert_eq(recs[3].pc, 0x1014);
  cr_assert_eq(st2.unwound, 0);
  sig_db_destroy(db);
}

/* An indirect jump no sample shows goes to the instruction near it that
 * the bits after it fit furthest, when no other fits as far (a jump table
 * in the same function); with equal fits, to the nearest of them. */
Test(stitch, unsampled_indirect_jump_goes_to_the_code_the_bits_fit) {
  sig_machine m = machine();
  sig_db *db = empty_db();
  /* call, mul, ret (to 0x1014), the jump; then addi, ld, add, beq not
     taken, call: from 0x1000 only (0x1004: a load without bit 1 or 2;
     0x1008: the taken beq leads to a load without them; 0x100c: the
     ret after the call has bit 1 clear; 0x1010, 0x1014: bit 1 clear) */
  const uint8_t bits[] = {B1, 0, B1, B1, 0, B1, 0, 0, B1};
  sig_skeleton sk = skel(0x1010, bits, sizeof bits);
  ic_graph_rec recs[sizeof bits];
  size_t built;
  ic_stitch_stats st = {0};
  ic_err err;
  cr_assert_eq(ic_stitch_fragment_prefix(db, &m, &img, &sk, 1, recs, &built, &st, &err), IC_OK);
  cr_assert_eq(built, sizeof bits);
  cr_assert_eq(recs[4].pc, 0x1000);
  cr_assert_eq(recs[8].pc, 0x1010);
  cr_assert_eq(st.near_jumps, 1);
  cr_assert_eq(st.truncated, 0);
  /* bit 1 clear after the jump and nothing else known: 0x1000, 0x1008 and
     the branch at 0x100c (not taken) fit one instruction each, so
     near_target takes none; the wider search takes the nearest of them to
     the jump at 0x1014 */
  const uint8_t amb[] = {B1, 0, B1, B1, 0};
  sig_skeleton sk2 = skel(0x1010, amb, sizeof amb);
  ic_stitch_stats st2 = {0};
  cr_assert_eq(ic_stitch_fragment_prefix(db, &m, &img, &sk2, 1, recs, &built, &st2, &err), IC_OK);
  cr_assert_eq(built, 5);
  cr_assert_eq(recs[4].pc, 0x100c);
  cr_assert_eq(st2.near_jumps, 1);
  cr_assert_eq(st2.truncated, 0);
  sig_db_destroy(db);
}

static int has_bw_break(const ic_graph_rec *r) {
  const ic_edge *dd = find(r, IC_EDGE_DD, 0);
  for (int q = 0; dd && q < dd->nparts; q++)
    if (dd->part[q].cat == IC_CAT_BW) return 1;
  return 0;
}

/* Fetch breaks are placed by the path's fetch groups only where the front
 * end sets dispatch: behind a window filled by a missing load the breaks
 * hide (the model charges no bw where fetch waits on a full queue). */
Test(stitch, fetch_breaks_hide_behind_a_full_window) {
  sig_machine m = machine(); /* fetch_width 6, rob 64 */
  m.fetch_taken = 1;         /* each taken branch ends its group */
  sig_db *db = empty_db();
  enum { N = 4 * 40 };
  uint8_t hit[N], miss[N];
  for (int k = 0; k < N; k++) hit[k] = miss[k] = (k % 4 == 1 || k % 4 == 3) ? B1 : 0;
  miss[1] = B2; /* the first load misses the L2 (about 114 cycles) */
  ic_graph_rec recs[N];
  size_t built;
  ic_stitch_stats st = {0};
  ic_err err;
  sig_skeleton sk = skel(0x1000, hit, N);
  cr_assert_eq(ic_stitch_fragment(db, &m, &img, &sk, recs, &built, &st, &err), IC_OK);
  cr_assert_eq(built, N);
  int breaks_hit = 0;
  for (int k = 0; k < N; k++) {
    breaks_hit += has_bw_break(&recs[k]);
    /* every group after the first (ended by the taken branch at k % 4 == 3)
       starts with a break */
    cr_assert_eq(has_bw_break(&recs[k]), k > 0 && k % 4 == 0, "position %d", k);
  }
  sk = skel(0x1000, miss, N);
  cr_assert_eq(ic_stitch_fragment(db, &m, &img, &sk, recs, &built, &st, &err), IC_OK);
  /* the records carry their times: dispatch 64 after the load waits for
     its commit */
  cr_assert_geq(recs[65].t[IC_NODE_D], recs[1].t[IC_NODE_C]);
  cr_assert_gt(recs[1].t[IC_NODE_C], 100);
  int breaks_miss = 0;
  for (int k = 0; k < N; k++) breaks_miss += has_bw_break(&recs[k]);
  cr_assert_eq(has_bw_break(&recs[68]), 0); /* a group start, behind the window */
  cr_assert_eq(has_bw_break(&recs[72]), 0);
  cr_assert_lt(breaks_miss, breaks_hit);
  sig_db_destroy(db);
}

/* Sample d's EP item: an L1 hit of `cycles` (dl1). */
static void add_dl1_ep(sig_detail *d, uint32_t cycles) {
  ic_edge *ep = &d->item[d->nitems++];
  ep->kind = IC_EDGE_EP;
  ep->nparts = 1;
  ep->part[0].cat = IC_CAT_DL1;
  ep->part[0].cycles = cycles;
}

/* Stitches the loop skeleton bits[0..n) from 0x1000 (retire count 1000)
 * with db's samples into recs: every position built. */
static void stitch_loop(const sig_db *db, const sig_machine *m, const uint8_t *bits, uint32_t n,
                        ic_graph_rec *recs, ic_stitch_stats *st) {
  sig_skeleton sk = skel(0x1000, bits, n);
  size_t built;
  ic_err err;
  cr_assert_eq(ic_stitch_fragment(db, m, &img, &sk, recs, &built, st, &err), IC_OK);
  cr_assert_eq(built, n);
}

/* The skeleton bits of n / 4 iterations of the loop taken (B1 at the load
 * and at the branch), and the load's signature window in them (period 4). */
static uint64_t loop_bits(uint8_t *bits, int n) {
  for (int k = 0; k < n; k++) bits[k] = (k % 4 == 1 || k % 4 == 3) ? B1 : 0;
  uint64_t lsig = 0;
  for (int j = 0; j < SIG_WINDOW; j++) {
    int at = ((1 + j - SIG_HALF) % 4 + 4) % 4;
    if (at == 1 || at == 3) lsig |= (uint64_t)B1 << (2 * j);
  }
  return lsig;
}

/* What the bits do not show and varies by instance (here a load's memory
 * producer, one sample in 16) is not copied into a run of instances: each
 * takes one of the nearest samples of its signature, varying with its
 * retire count (sig_db_pick). With the nearest sample alone, the 8 loads
 * around the linked sample all got its link: a chain through memory that
 * every iteration follows. */
Test(stitch, instances_take_different_samples_of_a_pc) {
  sig_machine m = machine();
  enum { N = 4 * 100 };
  uint8_t bits[N];
  const uint64_t lsig = loop_bits(bits, N);
  /* 25 samples of the load, one every 8 iterations, at retire counts no
     position of the load has (no instance's own); two of them (j = 5, 21)
     depend on the previous iteration's (an AMO: it writes memory) */
  sig_detail ds[25];
  for (int j = 0; j < 25; j++) {
    ds[j] = sample(1003 + 32 * (uint64_t)j, 0x1004, IC_OP_LOAD, 0x1008, lsig);
    add_dl1_ep(&ds[j], 4);
    if (j % 16 == 5) {
      ic_edge *pr = &ds[j].item[ds[j].nitems++];
      pr->kind = IC_EDGE_PR;
      pr->flags = IC_EDGE_MEM;
      pr->dist = 4;
    }
  }
  sig_db *db = db_of(ds, 25);
  ic_graph_rec recs[N];
  ic_stitch_stats st = {0};
  stitch_loop(db, &m, bits, N, recs, &st);
  int linked = 0, run = 0, longest = 0;
  for (int k = 1; k < N; k += 4) {
    const ic_edge *pr = NULL;
    for (int q = 0; q < recs[k].nedges; q++)
      if (recs[k].edge[q].kind == IC_EDGE_PR && (recs[k].edge[q].flags & IC_EDGE_MEM))
        pr = &recs[k].edge[q];
    cr_assert_eq(ic_edge_latency(find(&recs[k], IC_EDGE_EP, 0), 0), 4, "position %d", k);
    if (pr) cr_assert_eq(pr->dist, 4);
    linked += pr != NULL;
    run = pr ? run + 1 : 0;
    if (run > longest) longest = run;
  }
  cr_assert_geq(linked, 1, "the link is still taken where it falls");
  cr_assert_leq(linked, 25, "%d of 100 loads linked", linked);
  cr_assert_leq(longest, 3, "%d consecutive loads linked", longest);
  sig_db_destroy(db);
}

/* A load's memory producer is taken only where the instruction at its
 * distance in the fragment writes memory (mem_fits): samples whose
 * producer is 2 back (the loop's branch here, from another path in the
 * run) give no link, and each load is counted in mem_dropped; 4 back (the
 * previous iteration's AMO) is taken. */
Test(stitch, memory_producers_must_write_memory) {
  sig_machine m = machine();
  enum { N = 4 * 40 };
  uint8_t bits[N];
  const uint64_t lsig = loop_bits(bits, N);
  for (uint32_t dist = 2; dist <= 4; dist += 2) {
    sig_detail ds[8];
    for (int j = 0; j < 8; j++) {
      ds[j] = sample(1003 + 32 * (uint64_t)j, 0x1004, IC_OP_LOAD, 0x1008, lsig);
      add_dl1_ep(&ds[j], 4);
      ic_edge *pr = &ds[j].item[ds[j].nitems++];
      pr->kind = IC_EDGE_PR;
      pr->flags = IC_EDGE_MEM;
      pr->dist = dist;
    }
    sig_db *db = db_of(ds, 8);
    ic_graph_rec recs[N];
    ic_stitch_stats st = {0};
    stitch_loop(db, &m, bits, N, recs, &st);
    int linked = 0;
    for (int k = 1; k < N; k += 4)
      for (int q = 0; q < recs[k].nedges; q++)
        if (recs[k].edge[q].kind == IC_EDGE_PR && (recs[k].edge[q].flags & IC_EDGE_MEM)) {
          cr_assert_eq(recs[k].edge[q].dist, dist);
          linked++;
        }
    /* the first load's producer lies before the fragment: kept as sampled */
    if (dist == 2) {
      cr_assert_eq(linked, 1, "%d loads linked to a branch", linked);
      cr_assert_eq(st.mem_dropped, N / 4 - 1);
    } else {
      cr_assert_eq(linked, N / 4);
      cr_assert_eq(st.mem_dropped, 0);
    }
    sig_db_destroy(db);
  }
}

/* A missing load's sample that waits for a line an earlier access brought
 * (PP) is taken only where the fragment has a miss at that distance: the
 * loop's load misses in iterations 0 and 1 of every 4; every sample waits
 * for the previous iteration's load, which fits iteration 1's miss but not
 * iteration 0's, the line's first miss (latency from the bits). */
Test(stitch, line_waits_fit_the_fragment_or_are_first_misses) {
  sig_machine m = machine();
  enum { N = 4 * 40 };
  uint8_t bits[N];
  for (int k = 0; k < N; k++) {
    bits[k] = (k % 4 == 1 || k % 4 == 3) ? B1 : 0;
    if (k % 4 == 1 && (k / 4) % 4 < 2) bits[k] |= B2;
  }
  sig_detail ds[32];
  for (int j = 0; j < 32; j++) {
    /* centre: a load that missed (its window otherwise as the skeleton's
       hits, so every miss matches it best) */
    uint64_t sig = (uint64_t)(B1 | B2) << (2 * SIG_HALF);
    ds[j] = sample(1002 + 8 * (uint64_t)j, 0x1004, IC_OP_LOAD, 0x1008, sig);
    add_dl1_ep(&ds[j], m.l1d_latency);
    ic_edge *pp = &ds[j].item[ds[j].nitems++];
    pp->kind = IC_EDGE_PP;
    pp->dist = 4;
  }
  sig_db *db = db_of(ds, 32);
  ic_graph_rec recs[N];
  ic_stitch_stats st = {0};
  stitch_loop(db, &m, bits, N, recs, &st);
  uint64_t firsts = 0;
  for (int k = 1; k < N; k += 4) {
    if (!(bits[k] & B2)) continue;
    const ic_edge *pp = find(&recs[k], IC_EDGE_PP, 0);
    const ic_edge *ep = find(&recs[k], IC_EDGE_EP, 0);
    cr_assert_not_null(ep);
    if ((k / 4) % 4 == 1) { /* the previous iteration's load missed: the wait fits */
      cr_assert_not_null(pp, "position %d", k);
      cr_assert_eq(pp->dist, 4);
      cr_assert_eq(ic_edge_latency(ep, 0), m.l1d_latency, "position %d", k);
    } else { /* the line's first miss */
      firsts++;
      cr_assert_null(pp, "position %d", k);
      cr_assert_eq(ic_edge_latency(ep, 0), (uint64_t)m.l1d_latency + m.l2_latency, "position %d", k);
      cr_assert_eq(ic_edge_latency(ep, 0) - ic_edge_latency(ep, IC_CATBIT(IC_CAT_DMISS)),
                   m.l2_latency, "position %d: dmiss", k);
    }
  }
  cr_assert_eq(firsts, 10);
  cr_assert_eq(st.first_misses, firsts);
  sig_db_destroy(db);
}

/* n detailed samples of the loop's load (0x1004) from instances outside
 * the fragment, each a miss (bit 2 at the centre): with re > 0 an RE dmiss
 * part of re cycles (a wait for an MSHR), an EP dmiss part of 200 cycles,
 * with edge > 0 an MSHR edge from the load that far back, and the MSHR
 * rule for k MSHRs. */
static void missing_load_samples(sig_detail *ds, int n, uint32_t re, uint32_t edge, int k) {
  for (int j = 0; j < n; j++) {
    uint64_t sig = (uint64_t)B2 << (2 * SIG_HALF);
    ds[j] = sample(100000 + 8 * (uint64_t)j, 0x1004, IC_OP_LOAD, 0x1008, sig); /* no instance here */
    if (re) {
      ic_edge *e = &ds[j].item[ds[j].nitems++];
      e->kind = IC_EDGE_RE;
      e->nparts = 1;
      e->part[0].cat = IC_CAT_DMISS;
      e->part[0].cycles = re;
    }
    ic_edge *ep = &ds[j].item[ds[j].nitems++];
    ep->kind = IC_EDGE_EP;
    ep->nparts = 1;
    ep->part[0].cat = IC_CAT_DMISS;
    ep->part[0].cycles = 200;
    if (edge) {
      ic_edge *ms = &ds[j].item[ds[j].nitems++];
      ms->kind = IC_EDGE_MSHR;
      ms->dist = edge;
    }
    ds[j].mshr_k = (uint8_t)k;
  }
}

/* MSHR edges: one pasted from another instance's sample would point at
 * whatever sits at its distance here (3 back from the load: the branch);
 * the stitcher drops it and builds the capacity edge from the fragment's
 * own misses instead, as the model does for a root miss: from one of the
 * last K (the samples' MSHR rule) root misses to take an MSHR by the
 * load's E (allocation order: by E), the first of those that completed by
 * then, so that it leaves the baseline's times as they are. */
Test(stitch, mshr_capacity_edges_come_from_the_fragments_misses) {
  sig_machine m = machine();
  enum { N = 4 * 40, K = 2 };
  uint8_t bits[N];
  for (int k = 0; k < N; k++) bits[k] = (k % 4 == 1) ? B2 : (k % 4 == 3) ? B1 : 0; /* every load misses L2 */
  sig_detail ds[16];
  missing_load_samples(ds, 16, 0, 3, K);
  sig_db *db = db_of(ds, 16);
  ic_graph_rec recs[N];
  ic_stitch_stats st = {0};
  stitch_loop(db, &m, bits, N, recs, &st);
  int built = 0;
  for (int k = 0; k < N; k++)
    for (int q = 0; q < recs[k].nedges; q++) {
      const ic_edge *e = &recs[k].edge[q];
      if (e->kind != IC_EDGE_MSHR) continue;
      cr_assert_neq(e->dist, 3u, "position %d: the pasted edge", k);
      const int j = k - (int)e->dist;
      const uint64_t ek = recs[k].t[IC_NODE_E], ej = recs[j].t[IC_NODE_E];
      cr_assert(k % 4 == 1 && j % 4 == 1, "position %d: from %d, both loads", k, j);
      cr_assert(e->dist <= 4 * 2 * K, "position %d: from %d, one of the last %d misses", k, j, 2 * K);
      cr_assert_leq(ej, ek);
      int later = 0; /* misses that took an MSHR after j and by E(k) */
      for (int m2 = j + 4; m2 < k; m2 += 4)
        later += recs[m2].t[IC_NODE_E] > ej && recs[m2].t[IC_NODE_E] <= ek;
      cr_assert_lt(later, K, "position %d: from %d, one of the last %d to take an MSHR", k, j, K);
      cr_assert_leq(recs[j].t[IC_NODE_P], ek, "position %d: %d completed", k, j);
      built++;
    }
  cr_assert_gt(built, N / 8, "capacity edges: %d", built);
  sig_db_destroy(db);
}

static void add_detail(sig_db *db, uint64_t pc, uint8_t op, uint64_t sig, const ic_edge *items,
                       int n) {
  sig_detail d;
  memset(&d, 0, sizeof d);
  d.pc = pc;
  d.opclass = op;
  d.sig = sig;
  d.nitems = (uint8_t)n;
  for (int k = 0; k < n; k++) d.item[k] = items[k];
  ic_err err;
  sig_out o = sig_db_out(db);
  cr_assert_eq(o.detail(o.ctx, &d, &err), IC_OK);
}

/* At a first fetch, bit 2 of a load is its own miss where a sample of the
 * load shows one (the line was fetched before the fragment), and no bit 2
 * is an I-cache miss but another instruction's when no sample of the
 * program had an I-cache miss. */
Test(stitch, first_fetch_bit2_is_own_event_where_samples_show_it) {
  sig_machine m = machine();
  m.l1i_line = 4;
  ic_err err;
  ic_edge ep;
  memset(&ep, 0, sizeof ep);
  ep.kind = IC_EDGE_EP;
  ep.nparts = 2;
  ep.part[0].cat = IC_CAT_DL1;
  ep.part[0].cycles = 2;
  ep.part[1].cat = IC_CAT_DMISS;
  ep.part[1].cycles = 12;
  ic_edge dd;
  memset(&dd, 0, sizeof dd);
  dd.kind = IC_EDGE_DD;
  dd.dist = 1;
  dd.nparts = 1;
  dd.part[0].cat = IC_CAT_IMISS;
  dd.part[0].cycles = 100;
  /* the load at 0x1004 missed in its sample (centre bits 1 and 2) */
  uint64_t own = (uint64_t)(SIG_B1 | SIG_B2) << (2 * SIG_HALF);
  const uint8_t bits[] = {0, B1 | B2, 0, B1 | B2, 0};
  sig_skeleton sk = skel(0x1000, bits, sizeof bits);
  ic_graph_rec recs[sizeof bits];
  size_t built;
  ic_stitch_stats st = {0};
  for (int with_imiss = 0; with_imiss < 2; with_imiss++) {
    sig_db *db;
    cr_assert_eq(sig_db_create(&db, &err), IC_OK);
    add_detail(db, 0x1004, IC_OP_LOAD, own, &ep, 1);
    if (with_imiss) add_detail(db, 0x3000, IC_OP_INT_DIV, 0, &dd, 1);
    cr_assert_eq(sig_db_build(db, &err), IC_OK);
    cr_assert_eq(ic_stitch_fragment(db, &m, &img, &sk, recs, &built, &st, &err), IC_OK);
    cr_assert_eq(built, sizeof bits);
    /* the load: its own L2 hit, no I-cache miss either way */
    cr_assert_eq(dd_imiss(&recs[1]), 0);
    cr_assert_eq(ic_edge_latency(find(&recs[1], IC_EDGE_EP, 0), 0), 2 + 12);
    /* the branch (no sample): a misprediction without sampled I-cache
       misses, the I-cache miss with them */
    cr_assert_eq(dd_imiss(&recs[3]), with_imiss ? 100 : 0, "with_imiss %d", with_imiss);
    cr_assert_eq(find(&recs[4], IC_EDGE_PD, 0) != NULL, !with_imiss, "with_imiss %d", with_imiss);
    sig_db_destroy(db);
  }
}

/* A fragment cut at an indirect target no sample shows stands for its
 * whole block (profiler.h): its t(S) is the prefix's, from its warm-up,
 * scaled by (n - W) / (built - W), and it counts n - W instructions; an
 * uncut fragment of the same loop counts as it is. 21 iterations of the
 * loop, the call, the callee and the return to the indirect jump (88
 * instructions), then bits that fit no code from any target. */
Test(stitch, profiler_prefix_stands_for_its_block) {
  sig_machine m = machine();
  enum { N = 300, W = 16 };
  static uint8_t cut[N];
  for (int i = 0; i < 20; i++) {
    cut[4 * i + 1] = B1; /* ld: an L1 hit */
    cut[4 * i + 3] = B1; /* beq taken */
  }
  cut[81] = B1;                           /* the last ld; beq falls through */
  cut[84] = B1, cut[86] = B1, cut[87] = B1; /* call, (mul), ret, jr */
  sig_db *db;
  ic_err err;
  cr_assert_eq(sig_db_create(&db, &err), IC_OK);
  sig_out o = sig_db_out(db);
  sig_skeleton a = {1000, 0x1000, N, cut, 0}, b = {5000, 0x1000, 88, cut, 0};
  cr_assert_eq(o.skeleton(o.ctx, &a, &err), IC_OK);
  cr_assert_eq(o.skeleton(o.ctx, &b, &err), IC_OK);
  cr_assert_eq(sig_db_build(db, &err), IC_OK);
  /* the prefix the stitcher keeps, and its time from the warm-up */
  ic_graph_rec recs[N];
  size_t built;
  ic_stitch_stats st = {0};
  cr_assert_eq(ic_stitch_fragment_prefix(db, &m, &img, &a, 1, recs, &built, &st, &err), IC_OK);
  cr_assert_eq(built, 88);
  cr_assert_eq(st.truncated, 1);
  const uint8_t cats[2] = {IC_CAT_DL1, IC_CAT_BW};
  ic_solver *sv;
  cr_assert_eq(ic_solver_create(&sv, cats, 2, &err), IC_OK);
  cr_assert_eq(ic_solver_feed(sv, recs, W, &err), IC_OK);
  double tw[4], tp[4];
  for (int s = 0; s < 4; s++) tw[s] = (double)ic_solver_times(sv)[s];
  cr_assert_eq(ic_solver_feed(sv, recs + W, built - W, &err), IC_OK);
  for (int s = 0; s < 4; s++) tp[s] = (double)ic_solver_times(sv)[s] - tw[s];
  ic_solver_destroy(sv);
  ic_profiler_opts po = {.cats = cats, .ncat = 2, .machine = m, .length = N, .warmup = W};
  double *t;
  uint64_t *lens, nf;
  cr_assert_eq(ic_profiler_fragment_times(&po, db, &img, &t, &lens, &nf, NULL, &err), IC_OK, "%s",
               err.msg);
  cr_assert_eq(nf, 2);
  cr_assert_eq(lens[0], N - W);
  const double w = (double)(N - W) / (double)(88 - W);
  for (int s = 0; s < 4; s++) cr_assert_float_eq(t[s], tp[s] * w, 1e-9, "subset %d", s);
  /* the whole loop (the same 88 instructions, not cut) counts as it is */
  cr_assert_eq(lens[1], 88 - W);
  for (int s = 0; s < 4; s++) cr_assert_float_eq(t[4 + s], tp[s], 1e-9, "subset %d", s);
  free(t);
  free(lens);
  sig_db_destroy(db);
}

/* The decode cache answers as its inner image, also for pcs that share an
 * entry (2^16 entries of 2-byte steps: pcs 2^17 apart) and for pcs outside
 * the code, and asks the inner image once per pc while it stays cached. */
static int counted_calls;
static int counted_lookup(void *ctx, uint64_t pc, ic_static_inst *o) {
  counted_calls++;
  return lookup(ctx, pc, o);
}

Test(stitch, decode_cache_answers_as_the_image) {
  const ic_program_image inner = {NULL, counted_lookup, NULL};
  ic_image_cache *c;
  ic_err err;
  cr_assert_eq(ic_image_cache_create(&c, &inner, &err), IC_OK);
  const ic_program_image im = ic_image_cache_image(c);
  const uint64_t pcs[] = {0x1000, 0x1004, 0x1010, 0x2004, 0x3000, 0x1002, 0x1000 + (1u << 17),
                          0x1000, 0x3000 + (1u << 17), 0x3000, 0x1004};
  for (int rep = 0; rep < 2; rep++)
    for (size_t k = 0; k < sizeof pcs / sizeof *pcs; k++) {
      ic_static_inst a, b;
      const int ra = lookup(NULL, pcs[k], &a), rb = im.lookup(im.ctx, pcs[k], &b);
      cr_assert_eq(ra, rb, "pc %llx", (unsigned long long)pcs[k]);
      cr_assert_eq(a.valid, b.valid);
      cr_assert_eq(a.opclass, b.opclass);
      cr_assert_eq(a.target, b.target);
      cr_assert_eq(a.dst[0], b.dst[0]);
    }
  /* the same pc twice in a row is decoded once */
  ic_static_inst s;
  const int before = counted_calls;
  im.lookup(im.ctx, 0x2000, &s);
  im.lookup(im.ctx, 0x2000, &s);
  cr_assert_eq(counted_calls, before + 1);
  cr_assert_eq(s.opclass, IC_OP_INT_MUL);
  ic_image_cache_destroy(c);
}

/* An indirect call no sample shows goes to the code pointer (an address the
 * program's data holds, ic_program_image.code_pointers) that the bits after
 * it fit furthest: here 0x2000 (mul, then ret: bit 1, back to the add at
 * 0x4004) rather than 0x3000 (div, then no code); without code pointers
 * the fragment is cut there. */
static int call_lookup(void *ctx, uint64_t pc, ic_static_inst *o) {
  if (pc != 0x4000 && pc != 0x4004) return lookup(ctx, pc, o);
  memset(o, 0, sizeof *o);
  memset(o->src, IC_REG_NONE, sizeof o->src);
  memset(o->dst, IC_REG_NONE, sizeof o->dst);
  o->size = 4;
  o->valid = 1;
  if (pc == 0x4000) {
    o->opclass = IC_OP_CALL; /* jalr ra, x7: no static target */
    o->src[0] = 7;
    o->dst[0] = 1;
  } else {
    o->opclass = IC_OP_INT_ALU; /* the return site */
  }
  return 1;
}

static size_t two_pointers(void *ctx, const uint64_t **out) {
  (void)ctx;
  static const uint64_t p[2] = {0x2000, 0x3000};
  *out = p;
  return 2;
}

Test(stitch, unsampled_indirect_call_goes_to_a_code_pointer) {
  sig_machine m = machine();
  sig_db *db = empty_db();
  const uint8_t bits[] = {B1, 0, B1, 0};
  sig_skeleton sk = skel(0x4000, bits, sizeof bits);
  ic_graph_rec recs[sizeof bits];
  size_t built;
  ic_err err;
  const ic_program_image with = {NULL, call_lookup, two_pointers};
  ic_stitch_stats st = {0};
  cr_assert_eq(ic_stitch_fragment_prefix(db, &m, &with, &sk, 1, recs, &built, &st, &err), IC_OK);
  cr_assert_eq(built, sizeof bits);
  cr_assert_eq(recs[1].pc, 0x2000);
  cr_assert_eq(recs[2].pc, 0x2004);
  cr_assert_eq(recs[3].pc, 0x4004); /* back from the call */
  cr_assert_eq(st.pointer_calls, 1);
  cr_assert_eq(st.truncated, 0);
  const ic_program_image without = {NULL, call_lookup, NULL};
  ic_stitch_stats st2 = {0};
  cr_assert_eq(ic_stitch_fragment_prefix(db, &m, &without, &sk, 1, recs, &built, &st2, &err),
               IC_OK);
  cr_assert_eq(built, 1);
  cr_assert_eq(st2.pointer_calls, 0);
  cr_assert_eq(st2.truncated, 1);
  sig_db_destroy(db);
}

/* A fragment of W instructions or fewer (the run's end) is solved whole:
 * not cut, it counts all of its instructions; cut, its prefix stands for
 * its n from no warm-up, s = n / n'. (Cut, it once stood for n - W < 0
 * instructions, an unsigned wrap capped at 8 times; not cut, it was left
 * out.) The loop of profiler_prefix_stands_for_its_block, W = 100. */
Test(stitch, profiler_short_fragment_is_solved_whole) {
  sig_machine m = machine();
  enum { W = 100 };
  static uint8_t cut[95];
  for (int i = 0; i < 20; i++) {
    cut[4 * i + 1] = B1;
    cut[4 * i + 3] = B1;
  }
  cut[81] = B1;
  cut[84] = B1, cut[86] = B1, cut[87] = B1;
  sig_db *db;
  ic_err err;
  cr_assert_eq(sig_db_create(&db, &err), IC_OK);
  sig_out o = sig_db_out(db);
  sig_skeleton whole = {1000, 0x1000, 88, cut, 0}, part = {5000, 0x1000, 95, cut, 0};
  cr_assert_eq(o.skeleton(o.ctx, &whole, &err), IC_OK);
  cr_assert_eq(o.skeleton(o.ctx, &part, &err), IC_OK);
  cr_assert_eq(sig_db_build(db, &err), IC_OK);
  ic_graph_rec recs[95];
  size_t built;
  ic_stitch_stats st = {0};
  cr_assert_eq(ic_stitch_fragment_prefix(db, &m, &img, &part, 1, recs, &built, &st, &err), IC_OK);
  cr_assert_eq(built, 88);
  const uint8_t cats[2] = {IC_CAT_DL1, IC_CAT_BW};
  ic_solver *sv;
  cr_assert_eq(ic_solver_create(&sv, cats, 2, &err), IC_OK);
  cr_assert_eq(ic_solver_feed(sv, recs, built, &err), IC_OK);
  double tp[4];
  for (int s = 0; s < 4; s++) tp[s] = (double)ic_solver_times(sv)[s];
  ic_solver_destroy(sv);
  ic_profiler_opts po = {.cats = cats, .ncat = 2, .machine = m, .length = 300, .warmup = W};
  double *t;
  uint64_t *lens, nf;
  cr_assert_eq(ic_profiler_fragment_times(&po, db, &img, &t, &lens, &nf, NULL, &err), IC_OK, "%s",
               err.msg);
  cr_assert_eq(nf, 2);
  cr_assert_eq(lens[0], 88);
  for (int s = 0; s < 4; s++) cr_assert_float_eq(t[s], tp[s], 1e-9, "subset %d", s);
  cr_assert_eq(lens[1], 95);
  for (int s = 0; s < 4; s++)
    cr_assert_float_eq(t[4 + s], tp[s] * 95.0 / 88.0, 1e-9, "subset %d", s);
  free(t);
  free(lens);
  sig_db_destroy(db);
}

/* An issue-slot delay is RE's bw part from E' on, the time E's other edges
 * and rules give: loads that miss, one MSHR (the rule), issue width 1. Each
 * load waits for the MSHR until the previous miss completes, and the add
 * that waited for that miss takes the cycle first (older): a slot delay of
 * a few cycles after a long MSHR wait. Measured from R instead, the bw part
 * held the MSHR wait too, and dmiss, which drops the rule, kept it. */
Test(stitch, issue_slot_wait_leaves_out_the_mshr_rules_wait) {
  sig_machine m = machine();
  m.issue_width = 1;
  enum { N = 4 * 40, K = 1 };
  uint8_t bits[N];
  for (int k = 0; k < N; k++) bits[k] = (k % 4 == 1) ? B2 : (k % 4 == 3) ? B1 : 0; /* every load misses */
  sig_detail ds[16];
  missing_load_samples(ds, 16, 0, 0, K);
  sig_db *db = db_of(ds, 16);
  ic_graph_rec recs[N];
  ic_stitch_stats st = {0};
  stitch_loop(db, &m, bits, N, recs, &st);
  int delayed = 0; /* loads the slot rule delayed after their MSHR wait */
  for (int k = 5; k < N; k += 4) {
    const ic_edge *re = find(&recs[k], IC_EDGE_RE, 0);
    cr_assert(re);
    uint64_t bw = 0;
    for (int q = 0; q < re->nparts; q++) bw += re->part[q].cat == IC_CAT_BW ? re->part[q].cycles : 0;
    const uint64_t e = recs[k].t[IC_NODE_E];
    cr_assert_geq(e, recs[k - 4].t[IC_NODE_P], "position %d: the one MSHR", k);
    /* the slots' delay: the loop's three other instructions, no more */
    cr_assert_leq(bw, 3, "position %d: bw %llu", k, (unsigned long long)bw);
    delayed += bw > 0;
  }
  cr_assert_gt(delayed, N / 8, "loads with a slot delay: %d", delayed);
  uint64_t *nt = malloc(sizeof *nt * N * IC_NODE_COUNT), t0, td;
  ic_err err;
  cr_assert_eq(ic_graph_eval(recs, N, 0, nt, &t0, &err), IC_OK);
  cr_assert_eq(ic_graph_eval(recs, N, IC_CATBIT(IC_CAT_DMISS), nt, &td, &err), IC_OK);
  cr_assert_gt(t0, (N / 4 - 1) * 200u, "baseline %llu: the misses one at a time", (unsigned long long)t0);
  cr_assert_lt(td, 4u * N, "dmiss %llu: no MSHR wait left", (unsigned long long)td);
  free(nt);
  sig_db_destroy(db);
}

/* A sample's wait for an MSHR that an earlier miss freed (its MSHR edge
 * from that miss, and the MSHR rule) is left to the fragment's rule; a wait
 * without that edge (a younger load held the MSHR) stays as measured. */
Test(stitch, mshr_waits_for_earlier_misses_come_from_the_rule) {
  sig_machine m = machine();
  enum { N = 4 * 20, K = 1 };
  uint8_t bits[N];
  for (int k = 0; k < N; k++) bits[k] = (k % 4 == 1) ? B2 : (k % 4 == 3) ? B1 : 0;
  for (int younger = 0; younger < 2; younger++) {
    sig_detail ds[8];
    missing_load_samples(ds, 8, 150, younger ? 0 : 4, K);
    sig_db *db = db_of(ds, 8);
    ic_graph_rec recs[N];
    ic_stitch_stats st = {0};
    stitch_loop(db, &m, bits, N, recs, &st);
    for (int k = 1; k < N; k += 4) {
      const ic_edge *re = find(&recs[k], IC_EDGE_RE, 0);
      cr_assert(re);
      cr_assert_eq(ic_edge_latency(re, 0), younger ? 150u : 0u, "younger %d, position %d", younger, k);
      if (k >= 5)
        cr_assert_geq(recs[k].t[IC_NODE_E], recs[k - 4].t[IC_NODE_P], "position %d: the one MSHR", k);
    }
    sig_db_destroy(db);
  }
}
