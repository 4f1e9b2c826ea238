/* test_sig.c: signature bits (Table VI) on hand-made records, the sampling
 * hook on a synthetic record stream, the sample file (round trip,
 * deterministic bytes, rejection of truncated, corrupted and wrong-version
 * files) and the sample database's best match. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sig.h"
#include "sig_db.h"
#include "sig_file.h"
#include "test_sig_util.h"

static sig_machine baseline_machine(void) { return t_sig_machine_baseline(); }

static ic_edge *add_edge(ic_graph_rec *r, uint8_t kind, uint32_t dist) {
  ic_edge *e = &r->edge[r->nedges++];
  memset(e, 0, sizeof *e);
  e->kind = kind;
  e->dist = dist;
  return e;
}
static void add_part(ic_edge *e, uint8_t cat, uint32_t cyc) {
  e->part[e->nparts].cat = cat;
  e->part[e->nparts].cycles = cyc;
  e->nparts++;
}

/* A plain record: DD, DR, RE, EP (given latency and cat), CC, PC. */
static void mk(ic_graph_rec *r, uint64_t seq, uint64_t pc, uint8_t op) {
  memset(r, 0, sizeof *r);
  r->seq = seq;
  r->pc = pc;
  r->opclass = op;
  add_edge(r, IC_EDGE_DD, 1);
  add_part(add_edge(r, IC_EDGE_DR, 0), IC_CAT_NONE, 2);
  add_edge(r, IC_EDGE_RE, 0);
  add_edge(r, IC_EDGE_EP, 0);
  add_edge(r, IC_EDGE_CC, 1);
  add_part(add_edge(r, IC_EDGE_PC, 0), IC_CAT_NONE, 1);
}
static ic_edge *edge_of(ic_graph_rec *r, uint8_t kind) {
  for (int k = 0; k < r->nedges; k++)
    if (r->edge[k].kind == kind) return &r->edge[k];
  return NULL;
}

/* Program image: every pc is 4 bytes except pcs with bit 1 set (2 bytes). */
static int img_lookup(void *ctx, uint64_t pc, ic_static_inst *out) {
  (void)ctx;
  memset(out, 0, sizeof *out);
  out->valid = 1;
  out->size = (pc & 2) ? 2 : 4;
  return 1;
}

Test(sig, table_vi_bits) {
  sig_machine m = baseline_machine();
  ic_program_image img = {NULL, img_lookup, NULL};
  ic_graph_rec r, n;
  /* one-cycle op, falls through */
  mk(&r, 0, 0x1000, IC_OP_INT_ALU);
  mk(&n, 1, 0x1004, IC_OP_INT_ALU);
  cr_assert_eq(sig_bits(&r, &n, &m, &img), 0);
  /* I-cache miss on its fetch */
  add_part(edge_of(&r, IC_EDGE_DD), IC_CAT_IMISS, 12);
  cr_assert_eq(sig_bits(&r, &n, &m, &img), SIG_B2);
  /* branch: taken iff next pc != pc + size (size from the image) */
  mk(&r, 0, 0x1000, IC_OP_BRANCH);
  mk(&n, 1, 0x1004, IC_OP_INT_ALU);
  cr_assert_eq(sig_bits(&r, &n, &m, &img), 0);
  n.pc = 0x2000;
  cr_assert_eq(sig_bits(&r, &n, &m, &img), SIG_B1);
  mk(&r, 0, 0x1002, IC_OP_BRANCH); /* a 2-byte branch */
  n.pc = 0x1004;
  cr_assert_eq(sig_bits(&r, &n, &m, &img), 0);
  n.pc = 0x1006;
  cr_assert_eq(sig_bits(&r, &n, &m, &img), SIG_B1);
  /* mispredicted: the next record has a PD edge */
  add_part(add_edge(&n, IC_EDGE_PD, 1), IC_CAT_NONE, 12);
  cr_assert_eq(sig_bits(&r, &n, &m, &img), SIG_B1 | SIG_B2);
  n.seq = 5; /* not the next instruction: its PD says nothing */
  cr_assert_eq(sig_bits(&r, &n, &m, &img), SIG_B1);
  /* jumps, calls, returns: always bit 1 */
  const uint8_t jumps[] = {IC_OP_JUMP, IC_OP_CALL, IC_OP_RETURN, IC_OP_IJUMP};
  for (int k = 0; k < 4; k++) {
    mk(&r, 0, 0x1000, jumps[k]);
    mk(&n, 1, 0x3000, IC_OP_INT_ALU);
    cr_assert_eq(sig_bits(&r, &n, &m, &img), SIG_B1);
  }
  /* loads: L1 hit; L1 miss L2 hit; at the L2-hit bound (l2 + tlb = 42);
     beyond it (L2 miss: bit 1 cleared); a wait on a line in flight (PP) */
  mk(&n, 1, 0x1004, IC_OP_INT_ALU);
  const uint32_t dm[] = {0, 12, 42, 43, 112};
  const unsigned want[] = {SIG_B1, SIG_B1 | SIG_B2, SIG_B1 | SIG_B2, SIG_B2, SIG_B2};
  for (int k = 0; k < 5; k++) {
    mk(&r, 0, 0x1000, IC_OP_LOAD);
    add_part(edge_of(&r, IC_EDGE_EP), IC_CAT_DL1, 2);
    if (dm[k]) add_part(edge_of(&r, IC_EDGE_EP), IC_CAT_DMISS, dm[k]);
    cr_assert_eq(sig_bits(&r, &n, &m, &img), want[k], "dmiss part %u", dm[k]);
  }
  mk(&r, 0, 0x1000, IC_OP_LOAD);
  add_part(edge_of(&r, IC_EDGE_EP), IC_CAT_DL1, 2);
  add_edge(&r, IC_EDGE_PP, 3);
  cr_assert_eq(sig_bits(&r, &n, &m, &img), SIG_B1 | SIG_B2);
  /* stores: bit 1; a DTLB miss sets bit 2 */
  mk(&r, 0, 0x1000, IC_OP_STORE);
  add_part(edge_of(&r, IC_EDGE_EP), IC_CAT_NONE, 1);
  cr_assert_eq(sig_bits(&r, &n, &m, &img), SIG_B1);
  add_part(edge_of(&r, IC_EDGE_EP), IC_CAT_DMISS, 30);
  cr_assert_eq(sig_bits(&r, &n, &m, &img), SIG_B1 | SIG_B2);
}

/* A synthetic stream: a loop of 8 instructions at 0x1000; a load at slot 2
   that misses every third time, a branch at slot 6 back to the start taken
   except in every fifth iteration (then slot 7, a jump back, runs), and
   the instruction after the branch charged a misprediction every fifth
   time. */
static void synth(ic_graph_rec *r, size_t n) {
  uint64_t pc = 0x1000;
  for (size_t i = 0; i < n; i++) {
    uint64_t slot = (pc - 0x1000) / 4;
    uint8_t op = slot == 2   ? IC_OP_LOAD
                 : slot == 6 ? IC_OP_BRANCH
                 : slot == 7 ? IC_OP_JUMP
                             : IC_OP_INT_ALU;
    mk(&r[i], i, pc, op);
    if (op == IC_OP_LOAD) {
      add_part(edge_of(&r[i], IC_EDGE_EP), IC_CAT_DL1, 2);
      if (i % 3 == 0) add_part(edge_of(&r[i], IC_EDGE_EP), IC_CAT_DMISS, 112);
      add_edge(&r[i], IC_EDGE_PR, 4)->flags = IC_EDGE_MEM;
    } else {
      add_part(edge_of(&r[i], IC_EDGE_EP), IC_CAT_SHALU, 1);
    }
    if (i > 0 && r[i - 1].opclass == IC_OP_BRANCH && (i / 7) % 5 == 0)
      add_part(add_edge(&r[i], IC_EDGE_PD, 1), IC_CAT_NONE, 12);
    if (i >= 6) add_part(add_edge(&r[i], IC_EDGE_FBW, 6), IC_CAT_BW, 1);
    if (op == IC_OP_BRANCH) pc = (i / 8) % 5 == 4 ? pc + 4 : 0x1000;
    else if (op == IC_OP_JUMP) pc = 0x1000;
    else pc += 4;
  }
}

typedef struct collect {
  sig_detail *d;
  size_t nd;
  sig_skeleton *s;
  size_t ns;
} collect;

static ic_status col_detail(void *ctx, const sig_detail *d, ic_err *err) {
  (void)err;
  collect *c = ctx;
  c->d = realloc(c->d, (c->nd + 1) * sizeof *c->d);
  c->d[c->nd++] = *d;
  return IC_OK;
}
static ic_status col_skel(void *ctx, const sig_skeleton *s, ic_err *err) {
  (void)err;
  collect *c = ctx;
  c->s = realloc(c->s, (c->ns + 1) * sizeof *c->s);
  c->s[c->ns] = *s;
  c->s[c->ns].bits = malloc(s->n);
  memcpy(c->s[c->ns].bits, s->bits, s->n);
  c->ns++;
  return IC_OK;
}
static void col_free(collect *c) {
  for (size_t i = 0; i < c->ns; i++) free(c->s[i].bits);
  free(c->s);
  free(c->d);
}

static void run_sampler(const ic_graph_rec *r, size_t n, uint64_t iv, uint64_t siv, uint32_t len,
                        uint64_t seed, size_t batch, collect *c, sig_sampler_stats *st) {
  sig_machine m = baseline_machine();
  ic_program_image img = {NULL, img_lookup, NULL};
  sig_sampler *s;
  ic_err err;
  memset(c, 0, sizeof *c);
  sig_out out = {c, col_detail, col_skel};
  sig_sampler_opts o = {iv, siv, len, seed};
  cr_assert_eq(sig_sampler_create(&s, &o, &m, &img, out, &err), IC_OK, "%s", err.msg);
  ic_graph_sink k = sig_sampler_sink(s, NULL);
  for (size_t i = 0; i < n; i += batch)
    cr_assert_eq(k.consume(k.ctx, r + i, i + batch <= n ? batch : n - i, &err), IC_OK);
  cr_assert_eq(sig_sampler_finish(s, &err), IC_OK, "%s", err.msg);
  sig_sampler_get_stats(s, st);
  sig_sampler_destroy(s);
}

Test(sig, sampler_every_instruction) {
  enum { N = 3000 };
  ic_graph_rec *r = malloc(N * sizeof *r);
  synth(r, N);
  sig_machine m = baseline_machine();
  ic_program_image img = {NULL, img_lookup, NULL};
  unsigned bits[N];
  for (size_t i = 0; i + 1 < N; i++) bits[i] = sig_bits(&r[i], &r[i + 1], &m, &img);
  collect c;
  sig_sampler_stats st;
  run_sampler(r, N, 1, 500, 300, 3, 37, &c, &st);
  cr_assert_eq(st.instructions, N);
  cr_assert_eq(c.nd, N - SIG_HALF - 1);
  cr_assert_eq(st.details, c.nd);
  for (size_t k = 0; k < c.nd; k++) {
    const sig_detail *d = &c.d[k];
    cr_assert_eq(d->seq, k);
    cr_assert_eq(d->pc, r[k].pc);
    cr_assert_eq(d->next_pc, r[k + 1].pc);
    uint64_t w = 0;
    for (int j = 0; j < SIG_WINDOW; j++) {
      int64_t q = (int64_t)k + j - SIG_HALF;
      if (q >= 0) w |= (uint64_t)bits[q] << (2 * j);
    }
    cr_assert_eq(d->sig, w, "sample %zu", k);
    /* the PD into the next instruction is an item of this sample */
    int has_pd = 0, has_mem = 0;
    for (int q = 0; q < d->nitems; q++) {
      has_pd |= d->item[q].kind == IC_EDGE_PD && d->item[q].flags == 0;
      has_mem |= d->item[q].kind == IC_EDGE_PR && d->item[q].dist == 4;
    }
    cr_assert_eq(has_pd, edge_of(&r[k + 1], IC_EDGE_PD) != NULL);
    cr_assert_eq(has_mem, r[k].opclass == IC_OP_LOAD);
    cr_assert_eq(d->present & SIG_HAS_FBW, k >= 6 ? SIG_HAS_FBW : 0);
  }
  cr_assert_gt(c.ns, 2);
  for (size_t k = 0; k < c.ns; k++) {
    /* the last may be cut short by the end of the run: the instructions
       whose bits are known (all but the run's last) */
    if (k + 1 < c.ns || c.s[k].seq + 300 < N) cr_assert_eq(c.s[k].n, 300);
    else cr_assert_eq(c.s[k].seq + c.s[k].n, N - 1);
    cr_assert_eq(c.s[k].start_pc, r[c.s[k].seq].pc);
    cr_assert_eq(c.s[k].flags, c.s[k].seq == 0 ? SIG_SK_RUN_START : 0);
    for (uint32_t j = 0; j < c.s[k].n; j++) cr_assert_eq(c.s[k].bits[j], bits[c.s[k].seq + j]);
    if (k) cr_assert_geq(c.s[k].seq, c.s[k - 1].seq + 300);
  }
  /* batching does not change anything */
  collect c2;
  sig_sampler_stats st2;
  run_sampler(r, N, 1, 500, 300, 3, 1000, &c2, &st2);
  cr_assert_eq(c2.nd, c.nd);
  cr_assert_eq(c2.ns, c.ns);
  cr_assert_eq(memcmp(c.d, c2.d, c.nd * sizeof *c.d), 0);
  col_free(&c);
  col_free(&c2);
  free(r);
}

Test(sig, sampler_interval_and_seed) {
  enum { N = 20000 };
  ic_graph_rec *r = malloc(N * sizeof *r);
  synth(r, N);
  collect a, b, c;
  sig_sampler_stats sa, sb, sc;
  run_sampler(r, N, 50, 3000, 200, 1, 64, &a, &sa);
  run_sampler(r, N, 50, 3000, 200, 1, 64, &b, &sb);
  run_sampler(r, N, 50, 3000, 200, 2, 64, &c, &sc);
  /* mean 50: about N/50 = 400 samples (uniform [1, 99]: sd of the count ~ 12) */
  cr_assert(a.nd > 300 && a.nd < 500, "%zu detailed samples", a.nd);
  cr_assert_eq(a.nd, b.nd);
  cr_assert_eq(memcmp(a.d, b.d, a.nd * sizeof *a.d), 0);
  int differ = a.nd != c.nd;
  for (size_t k = 0; !differ && k < a.nd; k++) differ = a.d[k].seq != c.d[k].seq;
  cr_assert(differ, "another seed gives the same sample positions");
  col_free(&a);
  col_free(&b);
  col_free(&c);
  free(r);
}

Test(sig, sampler_rejects_bad_options) {
  sig_machine m = baseline_machine();
  sig_sampler *s;
  ic_err err;
  sig_out out = {0};
  sig_sampler_opts o = {0, 10, 100, 1};
  cr_assert_eq(sig_sampler_create(&s, &o, &m, NULL, out, &err), IC_EINPUT);
  o.detail_interval = 1;
  o.length = 0;
  cr_assert_eq(sig_sampler_create(&s, &o, &m, NULL, out, &err), IC_EINPUT);
  o.length = SIG_MAX_LENGTH + 1;
  cr_assert_eq(sig_sampler_create(&s, &o, &m, NULL, out, &err), IC_EINPUT);
}

/* ---- the sample file ---- */

static char *argv_prog[] = {"/bin/prog", "arg one", NULL};
static char *overrides[] = {"core.rob=64", "l1d.latency=3"};

static void header(sig_file_header *h) {
  memset(h, 0, sizeof *h);
  h->version = SIG_FILE_VERSION;
  h->machine = baseline_machine();
  h->detail_interval = 1;
  h->signature_interval = 500;
  h->seed = 3;
  h->length = 300;
  h->elf_size = 1234;
  h->elf_hash = 0xabcdef;
  h->argc = 2;
  h->argv = argv_prog;
  h->config_yaml = "core:\n  rob: 64\n";
  h->program = "/opt/some dir/prog";
  h->noverrides = 2;
  h->overrides = overrides;
}

/* Writes the synthetic stream's samples to path; returns the file bytes. */
static uint8_t *write_file(const char *path, size_t n, size_t *len) {
  ic_graph_rec *r = malloc(n * sizeof *r);
  synth(r, n);
  collect c;
  sig_sampler_stats st;
  run_sampler(r, n, 3, 200, 100, 9, 64, &c, &st);
  sig_file_header h;
  header(&h);
  sig_writer *w;
  ic_err err;
  cr_assert_eq(sig_writer_open(&w, path, &h, &err), IC_OK, "%s", err.msg);
  sig_out o = sig_writer_out(w);
  /* interleave as the hook would: by completion order, here details then a skeleton */
  size_t ks = 0;
  for (size_t k = 0; k < c.nd; k++) {
    cr_assert_eq(o.detail(o.ctx, &c.d[k], &err), IC_OK);
    if (ks < c.ns && c.s[ks].seq + c.s[ks].n <= c.d[k].seq)
      cr_assert_eq(o.skeleton(o.ctx, &c.s[ks++], &err), IC_OK);
  }
  while (ks < c.ns) cr_assert_eq(o.skeleton(o.ctx, &c.s[ks++], &err), IC_OK);
  cr_assert_eq(sig_writer_close(w, n, &err), IC_OK, "%s", err.msg);
  col_free(&c);
  free(r);
  FILE *f = fopen(path, "rb");
  cr_assert_not_null(f);
  fseek(f, 0, SEEK_END);
  *len = (size_t)ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *buf = malloc(*len);
  cr_assert_eq(fread(buf, 1, *len, f), *len);
  fclose(f);
  return buf;
}

Test(sig, file_round_trip_and_deterministic) {
  char p1[512], p2[512];
  snprintf(p1, sizeof p1, "%s/h7_sig_a.bin", ICOST_BUILD_DIR);
  snprintf(p2, sizeof p2, "%s/h7_sig_b.bin", ICOST_BUILD_DIR);
  size_t l1, l2;
  uint8_t *a = write_file(p1, 4000, &l1);
  uint8_t *b = write_file(p2, 4000, &l2);
  cr_assert_eq(l1, l2);
  cr_assert_eq(memcmp(a, b, l1), 0, "two runs with one seed wrote different bytes");
  /* read back: the same samples */
  ic_graph_rec *r = malloc(4000 * sizeof *r);
  synth(r, 4000);
  collect c, back;
  sig_sampler_stats st;
  run_sampler(r, 4000, 3, 200, 100, 9, 64, &c, &st);
  memset(&back, 0, sizeof back);
  sig_file_header h;
  sig_file_totals tot;
  ic_err err;
  sig_out o = {&back, col_detail, col_skel};
  cr_assert_eq(sig_file_read(p1, &h, o, &tot, &err), IC_OK, "%s", err.msg);
  cr_assert_eq(tot.details, c.nd);
  cr_assert_eq(tot.skeletons, c.ns);
  cr_assert_eq(tot.instructions, 4000);
  cr_assert_eq(back.nd, c.nd);
  for (size_t k = 0; k < c.nd; k++) {
    const sig_detail *x = &c.d[k], *y = &back.d[k];
    cr_assert(x->seq == y->seq && x->pc == y->pc && x->next_pc == y->next_pc &&
              x->sig == y->sig && x->opclass == y->opclass && x->present == y->present &&
              x->nitems == y->nitems);
    for (int q = 0; q < x->nitems; q++) {
      cr_assert(x->item[q].kind == y->item[q].kind && x->item[q].dist == y->item[q].dist &&
                x->item[q].flags == y->item[q].flags && x->item[q].nparts == y->item[q].nparts);
      for (int p = 0; p < x->item[q].nparts; p++)
        cr_assert(x->item[q].part[p].cat == y->item[q].part[p].cat &&
                  x->item[q].part[p].cycles == y->item[q].part[p].cycles);
    }
  }
  cr_assert_eq(back.ns, c.ns);
  for (size_t k = 0; k < c.ns; k++) {
    cr_assert(c.s[k].seq == back.s[k].seq && c.s[k].start_pc == back.s[k].start_pc &&
              c.s[k].n == back.s[k].n);
    cr_assert_eq(memcmp(c.s[k].bits, back.s[k].bits, c.s[k].n), 0);
  }
  cr_assert_eq(h.argc, 2);
  cr_assert_str_eq(h.argv[1], "arg one");
  cr_assert_str_eq(h.config_yaml, "core:\n  rob: 64\n");
  cr_assert_eq(h.machine.mem_latency, 100);
  cr_assert_eq(h.elf_hash, 0xabcdef);
  cr_assert_str_eq(h.program, "/opt/some dir/prog");
  cr_assert_eq(h.noverrides, 2);
  cr_assert_str_eq(h.overrides[0], "core.rob=64");
  cr_assert_str_eq(h.overrides[1], "l1d.latency=3");
  sig_file_header_free(&h);
  col_free(&c);
  col_free(&back);
  free(r);
  free(a);
  free(b);
}

Test(sig, file_rejects_truncation_and_corruption, .timeout = 600) {
  char p[512];
  snprintf(p, sizeof p, "%s/h7_sig_small.bin", ICOST_BUILD_DIR);
  size_t len;
  uint8_t *buf = write_file(p, 400, &len);
  cr_assert_lt(len, 20000, "the small file has %zu bytes", len);
  sig_file_header h;
  ic_err err;
  sig_out none = {0};
  cr_assert_eq(sig_file_parse(buf, len, "small.bin", &h, none, NULL, &err), IC_OK, "%s", err.msg);
  sig_file_header_free(&h);
  /* the blocks are zstd frames: the first block's payload (after the
     24-byte prefix, the header payload and the 24-byte block header)
     starts with zstd's magic */
  uint32_t hl;
  memcpy(&hl, buf + 12, 4);
  cr_assert_lt(24 + (size_t)hl + 28, len);
  static const uint8_t zmagic[4] = {0x28, 0xb5, 0x2f, 0xfd};
  cr_assert_eq(memcmp(buf + 24 + hl + 24, zmagic, 4), 0, "a block is not a zstd frame");
  /* a corrupt frame whose checksum was made to match: one line, no crash */
  {
    uint8_t *z = malloc(len);
    memcpy(z, buf, len);
    uint32_t zl;
    memcpy(&zl, z + 24 + hl + 8, 4);
    for (uint32_t k = 4; k < zl; k++) z[24 + hl + 24 + k] ^= 0x5a;
    uint64_t sum = sig_fnv(SIG_FNV_INIT, z + 24 + hl + 24, zl);
    memcpy(z + 24 + hl + 16, &sum, 8);
    cr_assert_eq(sig_file_parse(z, len, "small.bin", &h, none, NULL, &err), IC_EINPUT);
    cr_assert(strncmp(err.msg, "small.bin: ", 11) == 0 && !strchr(err.msg, '\n'), "%s", err.msg);
    sig_file_header_free(&h);
    free(z);
  }
  /* every truncation */
  for (size_t cut = 0; cut < len; cut++) {
    ic_status st = sig_file_parse(buf, cut, "small.bin", &h, none, NULL, &err);
    sig_file_header_free(&h);
    cr_assert_eq(st, IC_EINPUT, "truncated at %zu accepted", cut);
    cr_assert(strncmp(err.msg, "small.bin: ", 11) == 0, "message does not name the file: %s",
              err.msg);
  }
  /* every single-byte corruption */
  uint8_t *c = malloc(len);
  for (size_t at = 0; at < len; at++) {
    for (int v = 0; v < 2; v++) {
      memcpy(c, buf, len);
      c[at] ^= v ? 0xff : 0x01;
      ic_status st = sig_file_parse(c, len, "small.bin", &h, none, NULL, &err);
      sig_file_header_free(&h);
      cr_assert_eq(st, IC_EINPUT, "byte %zu ^ %s accepted", at, v ? "0xff" : "0x01");
    }
  }
  /* trailing garbage */
  uint8_t *g = malloc(len + 1);
  memcpy(g, buf, len);
  g[len] = 0;
  cr_assert_eq(sig_file_parse(g, len + 1, "small.bin", &h, none, NULL, &err), IC_EINPUT);
  sig_file_header_free(&h);
  /* another version; versions 1 (before the MSHR edge), 2 (without
     l1i.line), 3 (before the IW edge), 4 (without the unit counts), 5
     (before the MSHR and IQ rules), 6 (uncompressed), 7 (without the
     overrides) and 8 (the rules as edges) say why */
  memcpy(c, buf, len);
  c[8] = 10;
  cr_assert_eq(sig_file_parse(c, len, "small.bin", &h, none, NULL, &err), IC_EINPUT);
  cr_assert(strstr(err.msg, "version 10") != NULL, "%s", err.msg);
  sig_file_header_free(&h);
  c[8] = 8;
  cr_assert_eq(sig_file_parse(c, len, "small.bin", &h, none, NULL, &err), IC_EINPUT);
  cr_assert(strstr(err.msg, "version 8") != NULL && strstr(err.msg, "fields of the record") != NULL &&
                !strchr(err.msg, '\n'),
            "%s", err.msg);
  sig_file_header_free(&h);
  c[8] = 7;
  cr_assert_eq(sig_file_parse(c, len, "small.bin", &h, none, NULL, &err), IC_EINPUT);
  cr_assert(strstr(err.msg, "version 7") != NULL && strstr(err.msg, "overrides") != NULL &&
                !strchr(err.msg, '\n'),
            "%s", err.msg);
  sig_file_header_free(&h);
  c[8] = 6;
  cr_assert_eq(sig_file_parse(c, len, "small.bin", &h, none, NULL, &err), IC_EINPUT);
  cr_assert(strstr(err.msg, "version 6") != NULL && strstr(err.msg, "uncompressed") != NULL &&
                !strchr(err.msg, '\n'),
            "%s", err.msg);
  sig_file_header_free(&h);
  c[8] = 5;
  cr_assert_eq(sig_file_parse(c, len, "small.bin", &h, none, NULL, &err), IC_EINPUT);
  cr_assert(strstr(err.msg, "version 5") != NULL && strstr(err.msg, "IQ rule") != NULL, "%s",
            err.msg);
  sig_file_header_free(&h);
  c[8] = 4;
  cr_assert_eq(sig_file_parse(c, len, "small.bin", &h, none, NULL, &err), IC_EINPUT);
  cr_assert(strstr(err.msg, "version 4") != NULL && strstr(err.msg, "unit counts") != NULL,
            "%s", err.msg);
  sig_file_header_free(&h);
  c[8] = 3;
  cr_assert_eq(sig_file_parse(c, len, "small.bin", &h, none, NULL, &err), IC_EINPUT);
  cr_assert(strstr(err.msg, "version 3") != NULL && strstr(err.msg, "IW") != NULL, "%s",
            err.msg);
  sig_file_header_free(&h);
  c[8] = 2;
  cr_assert_eq(sig_file_parse(c, len, "small.bin", &h, none, NULL, &err), IC_EINPUT);
  cr_assert(strstr(err.msg, "version 2") != NULL && strstr(err.msg, "line") != NULL, "%s",
            err.msg);
  sig_file_header_free(&h);
  c[8] = 1;
  cr_assert_eq(sig_file_parse(c, len, "small.bin", &h, none, NULL, &err), IC_EINPUT);
  cr_assert(strstr(err.msg, "version 1") != NULL && strstr(err.msg, "MSHR") != NULL, "%s",
            err.msg);
  sig_file_header_free(&h);
  /* a file whose graph had another number of edge kinds (the count follows
     the header's machine parameters; its checksum made to match) */
  memcpy(c, buf, len);
  {
    uint32_t hl;
    memcpy(&hl, c + 12, 4);
    size_t at = 24 + 4 + 4 * SIG_MACHINE_COUNT;
    cr_assert_eq(c[at], IC_EDGE_KIND_COUNT);
    c[at] = IC_EDGE_KIND_COUNT - 1;
    uint64_t sum = sig_fnv(SIG_FNV_INIT, c + 24, hl);
    memcpy(c + 16, &sum, 8);
  }
  cr_assert_eq(sig_file_parse(c, len, "small.bin", &h, none, NULL, &err), IC_EINPUT);
  cr_assert(strstr(err.msg, "edge kinds") != NULL, "%s", err.msg);
  sig_file_header_free(&h);
  /* a missing file */
  cr_assert_eq(sig_file_read(ICOST_BUILD_DIR "/h7_no_such_file", &h, none, NULL, &err), IC_EINPUT);
  cr_assert(strstr(err.msg, "h7_no_such_file") != NULL);
  free(g);
  free(c);
  free(buf);
}

Test(sig, writer_abort_leaves_nothing) {
  char p[512];
  snprintf(p, sizeof p, "%s/h7_sig_aborted.bin", ICOST_BUILD_DIR);
  remove(p);
  sig_file_header h;
  header(&h);
  sig_writer *w;
  ic_err err;
  cr_assert_eq(sig_writer_open(&w, p, &h, &err), IC_OK);
  sig_writer_abort(w);
  FILE *f = fopen(p, "rb");
  cr_assert_null(f, "an aborted write left %s", p);
  cr_assert_neq(sig_writer_open(&w, "/nonexistent-dir/x.bin", &h, &err), IC_OK);
  cr_assert(strstr(err.msg, "/nonexistent-dir/x.bin") != NULL, "%s", err.msg);
}

/* ---- the database ---- */

static sig_detail det(uint64_t seq, uint64_t pc, uint64_t sig) {
  sig_detail d;
  memset(&d, 0, sizeof d);
  d.seq = seq;
  d.pc = pc;
  d.sig = sig;
  return d;
}

Test(sig, database_best_match) {
  sig_db *db;
  ic_err err;
  cr_assert_eq(sig_db_create(&db, &err), IC_OK);
  sig_out o = sig_db_out(db);
  const uint64_t full = SIG_MASK42;
  sig_detail ds[] = {
      det(100, 0x10, 0x0),   det(200, 0x10, 0x3),  det(300, 0x10, 0x3),
      det(50, 0x10, 0xf),    det(400, 0x20, 0x0),  det(150, 0x10, 0x3),
  };
  for (size_t k = 0; k < sizeof ds / sizeof ds[0]; k++)
    cr_assert_eq(o.detail(o.ctx, &ds[k], &err), IC_OK);
  cr_assert_eq(sig_db_build(db, &err), IC_OK);
  cr_assert_eq(sig_db_pcs(db), 2);
  int same;
  sig_detail got;
  const sig_detail *d = &got;
  /* exact signature, nearest retire count wins among equals */
  cr_assert(sig_db_best(db, 0x10, 0x3, full, 260, &got, &same));
  cr_assert_eq(same, 42);
  cr_assert_eq(d->seq, 300);
  cr_assert(sig_db_best(db, 0x10, 0x3, full, 175, &got, &same));
  cr_assert_eq(d->seq, 150); /* 150 and 200 are 25 away: the lower wins */
  /* most identical bits beat nearness */
  cr_assert(sig_db_best(db, 0x10, 0x1, full, 100, &got, &same));
  cr_assert_eq(same, 41);
  cr_assert(d->sig == 0x0 || d->sig == 0x3);
  cr_assert_eq(d->seq, 100); /* 0x0 and 0x3 both differ in one bit: nearest */
  /* the mask: only bits 2..3 known */
  cr_assert(sig_db_best(db, 0x10, 0xc, 0xc, 0, &got, &same));
  cr_assert_eq(d->sig, 0xf);
  cr_assert_eq(same, 2);
  cr_assert_not(sig_db_best(db, 0x30, 0, full, 0, &got, NULL));
  cr_assert(sig_db_best(db, 0x20, 0x3ff, full, 0, &got, &same));
  cr_assert_eq(d->seq, 400);
  cr_assert_eq(same, 32);
  sig_db_destroy(db);
}

/* sig_db_keep_skeletons: k of n added, each with probability k/n (the
 * counts of 4000 seeded trials: 40 kept of 200 is 800 a position on
 * average; 5 standard deviations is about 127), in retire-count order, the
 * bits copied whole; the same seed keeps the same ones; k above n keeps
 * all; setting it after adding fails. */
Test(sig, database_reservoir_keeps_a_uniform_k) {
  enum { N = 200, K = 40, TRIALS = 4000 };
  static unsigned hits[N];
  uint8_t bits[7];
  ic_err err;
  uint64_t first_pick[K];
  for (int trial = 0; trial < TRIALS; trial++) {
    sig_db *db;
    cr_assert_eq(sig_db_create(&db, &err), IC_OK);
    cr_assert_eq(sig_db_keep_skeletons(db, K, (uint64_t)trial % 2000, &err), IC_OK);
    sig_out o = sig_db_out(db);
    for (uint64_t i = 0; i < N; i++) {
      for (int b = 0; b < 7; b++) bits[b] = (uint8_t)((i + (uint64_t)b) & 3);
      sig_skeleton sk = {i * 7, 0x1000 + i, 7, bits, 0};
      cr_assert_eq(o.skeleton(o.ctx, &sk, &err), IC_OK);
    }
    cr_assert_eq(sig_db_build(db, &err), IC_OK);
    cr_assert_eq(sig_db_skeletons(db), K);
    cr_assert_eq(sig_db_skeletons_seen(db), N);
    for (size_t j = 0; j < K; j++) {
      const sig_skeleton *sk = sig_db_skeleton(db, j);
      const uint64_t i = sk->seq / 7;
      if (j) cr_assert_gt(sk->seq, sig_db_skeleton(db, j - 1)->seq);
      cr_assert_eq(sk->start_pc, 0x1000 + i);
      cr_assert_eq(sk->n, 7);
      for (int b = 0; b < 7; b++) cr_assert_eq(sk->bits[b], (i + (uint64_t)b) & 3);
      hits[i]++;
      if (trial == 0) first_pick[j] = sk->seq;
      if (trial == 2000) cr_assert_eq(sk->seq, first_pick[j], "seed 0 again: another choice");
    }
    sig_db_destroy(db);
  }
  const double mean = (double)TRIALS * K / N, sd = sqrt(mean * (1.0 - (double)K / N));
  for (int i = 0; i < N; i++)
    cr_assert(fabs((double)hits[i] - mean) < 5 * sd, "position %d kept %u times (expected %.0f)", i,
              hits[i], mean);
  /* k above the number added: all of them */
  sig_db *db;
  cr_assert_eq(sig_db_create(&db, &err), IC_OK);
  cr_assert_eq(sig_db_keep_skeletons(db, 1000, 1, &err), IC_OK);
  sig_out o = sig_db_out(db);
  sig_skeleton sk = {5, 0x10, 7, bits, 0};
  cr_assert_eq(o.skeleton(o.ctx, &sk, &err), IC_OK);
  cr_assert_eq(sig_db_keep_skeletons(db, 3, 1, &err), IC_ERUN);
  cr_assert_eq(sig_db_build(db, &err), IC_OK);
  cr_assert_eq(sig_db_skeletons(db), 1);
  sig_db_destroy(db);
}

/* Adds n detailed samples (seq i, pc and items derived from i) to a
 * database that keeps at most k, seeded with seed. */
static sig_db *details_kept(uint64_t n, uint64_t k, uint64_t seed) {
  sig_db *db;
  ic_err err;
  cr_assert_eq(sig_db_create(&db, &err), IC_OK);
  cr_assert_eq(sig_db_keep_details(db, k, seed, &err), IC_OK);
  sig_out o = sig_db_out(db);
  for (uint64_t i = 0; i < n; i++) {
    sig_detail d = det(i, 0x1000 + 2 * (i % 7), i & 0xfff);
    d.nitems = (uint8_t)(1 + i % 3);
    for (int k2 = 0; k2 < d.nitems; k2++) {
      d.item[k2].kind = IC_EDGE_PR;
      d.item[k2].dist = (uint32_t)(i * 3 + (uint64_t)k2);
    }
    cr_assert_eq(o.detail(o.ctx, &d, &err), IC_OK);
    cr_assert_leq(sig_db_details(db), k);
  }
  return db;
}

/* sig_db_keep_details: 1000 added with room for 100 keep 100 distinct ones,
 * each whole (its items survive the replacements and the pool's
 * compaction); the same seed keeps the same ones, another seed others;
 * over 400 seeds each half of the run is kept as often (a uniform
 * reservoir, not the first or last ones); setting it after adding fails. */
Test(sig, database_keeps_a_uniform_reservoir_of_k_details) {
  ic_err err;
  sig_db *db = details_kept(1000, 100, 1);
  cr_assert_eq(sig_db_keep_details(db, 5, 1, &err), IC_ERUN);
  cr_assert_eq(sig_db_details(db), 100);
  uint8_t seen[1000] = {0};
  uint64_t sum1 = 0;
  for (size_t j = 0; j < 100; j++) {
    sig_detail got;
    sig_db_detail(db, j, &got);
    const uint64_t i = got.seq;
    cr_assert_lt(i, 1000);
    cr_assert_eq(seen[i], 0, "sample %llu kept twice", (unsigned long long)i);
    seen[i] = 1;
    sum1 += i;
    cr_assert_eq(got.pc, 0x1000 + 2 * (i % 7));
    cr_assert_eq(got.nitems, 1 + i % 3);
    for (int k = 0; k < got.nitems; k++) cr_assert_eq(got.item[k].dist, i * 3 + (uint64_t)k);
  }
  cr_assert_eq(sig_db_build(db, &err), IC_OK);
  sig_db_destroy(db);
  uint64_t sum_same = 0, sum_other = 0;
  db = details_kept(1000, 100, 1);
  for (size_t j = 0; j < 100; j++) {
    sig_detail got;
    sig_db_detail(db, j, &got);
    sum_same += got.seq;
  }
  sig_db_destroy(db);
  db = details_kept(1000, 100, 2);
  for (size_t j = 0; j < 100; j++) {
    sig_detail got;
    sig_db_detail(db, j, &got);
    sum_other += got.seq;
  }
  sig_db_destroy(db);
  cr_assert_eq(sum_same, sum1);
  cr_assert_neq(sum_other, sum1);
  uint64_t first = 0, second = 0;
  for (uint64_t seed = 0; seed < 400; seed++) {
    db = details_kept(1000, 100, seed);
    for (size_t j = 0; j < 100; j++) {
      sig_detail got;
      sig_db_detail(db, j, &got);
      if (got.seq < 500) first++;
      else second++;
    }
    sig_db_destroy(db);
  }
  /* 40000 kept: 20000 expected in each half, sd about 95 */
  cr_assert(first > 19400 && second > 19400, "first half %llu, second %llu",
            (unsigned long long)first, (unsigned long long)second);
}

/* The profiler's budget of detailed samples bounds their memory: ten
 * times as many samples added (a run ten times as long) take the same
 * bytes, within 10%. */
Test(sig, detail_memory_does_not_grow_with_run_length, .timeout = 120) {
  size_t bytes[2];
  for (int r = 0; r < 2; r++) {
    const uint64_t n = r ? 1500000 : 150000;
    sig_db *db;
    ic_err err;
    cr_assert_eq(sig_db_create(&db, &err), IC_OK);
    cr_assert_eq(sig_db_keep_details(db, 1 << 17, 7, &err), IC_OK);
    sig_out o = sig_db_out(db);
    for (uint64_t i = 0; i < n; i++) {
      sig_detail d = det(i, 0x1000 + 4 * (i % 997), i * 2654435761u);
      d.nitems = (uint8_t)(i % 4);
      for (int k = 0; k < d.nitems; k++) {
        d.item[k].kind = IC_EDGE_PR;
        d.item[k].dist = (uint32_t)(i % 50 + (uint64_t)k);
      }
      cr_assert_eq(o.detail(o.ctx, &d, &err), IC_OK);
    }
    cr_assert_eq(sig_db_details(db), 1 << 17);
    bytes[r] = sig_db_detail_bytes(db);
    sig_db_destroy(db);
  }
  cr_assert_leq(bytes[1], bytes[0] + bytes[0] / 10, "%zu bytes for 1.5M samples, %zu for 150k",
                bytes[1], bytes[0]);
}

static int even_hundreds(void *ctx, const sig_detail *d) {
  (void)ctx;
  return d->seq % 200 == 0;
}

static int nothing(void *ctx, const sig_detail *d) {
  (void)ctx;
  (void)d;
  return 0;
}

static int thousands(void *ctx, const sig_detail *d) {
  (void)ctx;
  return d->seq % 1000 == 0;
}

/* sig_db_pick_far: the nearest sample of the best group that fits, out to
 * `max` samples looked at; none of another signature; 0 past max. */
Test(sig, database_pick_far_finds_the_nearest_that_fits) {
  sig_db *db;
  ic_err err;
  cr_assert_eq(sig_db_create(&db, &err), IC_OK);
  sig_out o = sig_db_out(db);
  for (uint64_t k = 1; k <= 40; k++) {
    sig_detail d = det(100 * k, 0x10, 0x3);
    cr_assert_eq(o.detail(o.ctx, &d, &err), IC_OK);
  }
  sig_detail other = det(3000, 0x10, 0x0); /* fits, but not of the best signature */
  cr_assert_eq(o.detail(o.ctx, &other, &err), IC_OK);
  cr_assert_eq(sig_db_build(db, &err), IC_OK);
  sig_detail got;
  /* from 2450: 2000 and 3000 are 450 and 550 away; 3000 of signature 0x0
     is not looked at */
  cr_assert(sig_db_pick_far(db, 0x10, 0x3, SIG_MASK42, 0, 2450, thousands, NULL, 64, &got));
  cr_assert_eq(got.seq, 2000);
  cr_assert_eq(got.sig, 0x3);
  cr_assert(sig_db_pick_far(db, 0x10, 0x3, SIG_MASK42, 0, 2560, thousands, NULL, 64, &got));
  cr_assert_eq(got.seq, 3000);
  cr_assert_eq(got.sig, 0x3);
  /* 2450 looks at 2400, 2500, 2600, 2300, 2700, 2200, 2800, 2100, 2900,
     2000: the tenth */
  cr_assert_not(sig_db_pick_far(db, 0x10, 0x3, SIG_MASK42, 0, 2450, thousands, NULL, 9, &got));
  cr_assert(sig_db_pick_far(db, 0x10, 0x3, SIG_MASK42, 0, 2450, thousands, NULL, 10, &got));
  /* at the ends: from 50 only upwards */
  cr_assert(sig_db_pick_far(db, 0x10, 0x3, SIG_MASK42, 0, 50, thousands, NULL, 64, &got));
  cr_assert_eq(got.seq, 1000);
  cr_assert_not(sig_db_pick_far(db, 0x10, 0x3, SIG_MASK42, 0, 50, nothing, NULL, 1000, &got));
  cr_assert_not(sig_db_pick_far(db, 0x30, 0x3, SIG_MASK42, 0, 50, thousands, NULL, 64, &got));
  sig_db_destroy(db);
}

/* sig_db_pick: the instance's own sample where there is one, else one of
 * the SIG_DB_SPREAD samples of the best signature nearest the wanted retire
 * count, varying with it; the nearest rule alone gives one sample to every
 * instance over a stretch of retire counts. */
Test(sig, database_pick_spreads_over_the_nearest) {
  sig_db *db;
  ic_err err;
  cr_assert_eq(sig_db_create(&db, &err), IC_OK);
  sig_out o = sig_db_out(db);
  /* pc 0x10: 40 samples of signature 0x3 at retire counts 100..4000, and a
     worse-matching signature 0x0 near every wanted count below; pc 0x20:
     three samples */
  for (uint64_t k = 1; k <= 40; k++) {
    sig_detail d = det(100 * k, 0x10, 0x3);
    cr_assert_eq(o.detail(o.ctx, &d, &err), IC_OK);
  }
  for (uint64_t k = 0; k < 8; k++) {
    sig_detail d = det(2001 + 50 * k, 0x10, 0x0);
    cr_assert_eq(o.detail(o.ctx, &d, &err), IC_OK);
  }
  for (uint64_t k = 0; k < 3; k++) {
    sig_detail d = det(500 + k, 0x20, 0x1);
    cr_assert_eq(o.detail(o.ctx, &d, &err), IC_OK);
  }
  cr_assert_eq(sig_db_build(db, &err), IC_OK);
  sig_detail got, again;
  int same;
  /* the instance's own sample */
  cr_assert(sig_db_pick(db, 0x10, 0x3, SIG_MASK42, 0, 2000, NULL, NULL, &got, &same, NULL));
  cr_assert_eq(got.seq, 2000);
  cr_assert_eq(same, 42);
  int seen[41] = {0}, distinct = 0;
  for (uint64_t seq = 2001; seq < 2400; seq++) {
    if (seq % 100 == 0) continue;
    cr_assert(sig_db_pick(db, 0x10, 0x3, SIG_MASK42, 0, seq, NULL, NULL, &got, &same, NULL));
    cr_assert_eq(got.sig, 0x3, "seq %llu: a sample of the best signature", (unsigned long long)seq);
    cr_assert_eq(same, 42);
    /* among the 16 nearest: fewer than 16 samples are nearer than it */
    int nearer = 0;
    uint64_t dg = got.seq > seq ? got.seq - seq : seq - got.seq;
    for (uint64_t k = 1; k <= 40; k++) {
      uint64_t dk = 100 * k > seq ? 100 * k - seq : seq - 100 * k;
      nearer += dk < dg;
    }
    cr_assert_lt(nearer, SIG_DB_SPREAD, "seq %llu picked %llu", (unsigned long long)seq,
                 (unsigned long long)got.seq);
    cr_assert(sig_db_pick(db, 0x10, 0x3, SIG_MASK42, 0, seq, NULL, NULL, &again, NULL, NULL));
    cr_assert_eq(again.seq, got.seq, "deterministic");
    distinct += !seen[got.seq / 100]++;
  }
  /* the nearest rule gives 5 samples to these 395 instances */
  cr_assert_geq(distinct, 12, "%d distinct samples", distinct);
  /* a test of fit: the first accepted from the hashed one on; none
     accepted: the hashed one, *fit 0; the instance's own always */
  for (uint64_t seq = 2001; seq < 2400; seq += 7) {
    if (seq % 100 == 0) continue;
    int fit = -1;
    sig_detail any;
    cr_assert(sig_db_pick(db, 0x10, 0x3, SIG_MASK42, 0, seq, NULL, NULL, &any, NULL, &fit));
    cr_assert_eq(fit, 1);
    cr_assert(sig_db_pick(db, 0x10, 0x3, SIG_MASK42, 0, seq, even_hundreds, NULL, &got, NULL, &fit));
    cr_assert_eq(fit, 1);
    cr_assert_eq(got.seq % 200, 0, "seq %llu picked %llu", (unsigned long long)seq,
                 (unsigned long long)got.seq);
    cr_assert(got.seq == any.seq || any.seq % 200 != 0, "an accepted hashed pick is kept");
    cr_assert(sig_db_pick(db, 0x10, 0x3, SIG_MASK42, 0, seq, nothing, NULL, &got, NULL, &fit));
    cr_assert_eq(fit, 0);
    cr_assert_eq(got.seq, any.seq);
  }
  int fit = -1;
  cr_assert(sig_db_pick(db, 0x10, 0x3, SIG_MASK42, 0, 2100, nothing, NULL, &got, NULL, &fit));
  cr_assert_eq(got.seq, 2100);
  cr_assert_eq(fit, 1);
  /* a signature with fewer samples than the spread: one of them */
  for (uint64_t seq = 0; seq < 50; seq++) {
    cr_assert(sig_db_pick(db, 0x20, 0x1, SIG_MASK42, 0, seq, NULL, NULL, &got, NULL, NULL));
    cr_assert(got.seq >= 500 && got.seq <= 502);
  }
  cr_assert_not(sig_db_pick(db, 0x30, 0, SIG_MASK42, 0, 0, NULL, NULL, &got, NULL, NULL));
  sig_db_destroy(db);
}

Test(sig, database_best_match_centre_first) {
  /* pc 0x10: sample A agrees with the wanted window everywhere but the
     centre (the instruction's own bits); sample B has the wanted centre but
     differs in three neighbours' bits. By identical bits alone A wins (41
     against 39); with the centre ranked first B wins. */
  const uint64_t centre = (uint64_t)3 << (2 * SIG_HALF);
  const uint64_t want = ((uint64_t)SIG_B2 << (2 * SIG_HALF)) | 0x5;
  const uint64_t a = want ^ ((uint64_t)SIG_B2 << (2 * SIG_HALF)); /* centre 0 */
  const uint64_t b = want ^ ((uint64_t)1 << 0) ^ ((uint64_t)1 << 2) ^ ((uint64_t)1 << 40);
  sig_db *db;
  ic_err err;
  cr_assert_eq(sig_db_create(&db, &err), IC_OK);
  sig_out o = sig_db_out(db);
  sig_detail ds[] = {det(10, 0x10, a), det(20, 0x10, b)};
  for (size_t k = 0; k < 2; k++) cr_assert_eq(o.detail(o.ctx, &ds[k], &err), IC_OK);
  cr_assert_eq(sig_db_build(db, &err), IC_OK);
  sig_detail got;
  int same;
  cr_assert(sig_db_best(db, 0x10, want, SIG_MASK42, 0, &got, &same));
  cr_assert_eq(got.seq, 10);
  cr_assert_eq(same, 41);
  cr_assert(sig_db_best_first(db, 0x10, want, SIG_MASK42, centre, 0, &got, &same));
  cr_assert_eq(got.seq, 20);
  cr_assert_eq(same, 39);
  /* first = 0 is sig_db_best; a `first` outside the mask is ignored */
  cr_assert(sig_db_best_first(db, 0x10, want, SIG_MASK42, 0, 0, &got, &same));
  cr_assert_eq(got.seq, 10);
  cr_assert(sig_db_best_first(db, 0x10, want, SIG_MASK42 & ~centre, centre, 0, &got, &same));
  cr_assert_eq(got.seq, 10); /* without the centre in the mask: A has 40 of 40 */
  cr_assert_eq(same, 40);
  sig_db_destroy(db);
}
