/* test_model_graph.c: the graph hook. Records replayed by the checker must
 * reproduce every stamp exactly, no edge may demand more than its
 * destination's stamp, and the last commit must equal the simulated cycle
 * count: on synthetic streams for every shipped config and idealization,
 * and on real RISC-V programs run by the emulator. Also checks that the
 * edges say what happened (PD per misprediction, CD at the ROB size, PP for
 * loads that share a missing line, memory PR for forwarded loads). */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rv.h"
#include "test_model_synth.h"

typedef struct counting {
  ooo_graph_check *chk;
  ic_graph_sink inner;
  uint64_t kinds[IC_EDGE_KIND_COUNT];
  uint64_t mem_pr, mem_pr_far, pp_dmiss, cd_wrong_dist, fbw_wrong_dist, records;
  uint64_t waits, waits_on_rule; /* records with E > R; of those, RE without parts */
  uint32_t rob, fw;
  uint64_t part_cycles[IC_CAT_COUNT + 1];
} counting;

static ic_status count_consume(void *ctx, const ic_graph_rec *r, size_t n, ic_err *err) {
  counting *c = ctx;
  for (size_t i = 0; i < n; i++) {
    c->records++;
    const int wait = r[i].t[IC_NODE_E] > r[i].t[IC_NODE_R];
    c->waits += wait;
    for (int k = 0; k < r[i].nedges; k++) {
      const ic_edge *e = &r[i].edge[k];
      c->kinds[e->kind]++;
      if (wait && e->kind == IC_EDGE_RE && e->nparts == 0) c->waits_on_rule++;
      if (e->kind == IC_EDGE_PR && (e->flags & IC_EDGE_MEM)) {
        c->mem_pr++;
        c->mem_pr_far += e->dist > c->rob;
      }
      if (e->kind == IC_EDGE_CD && e->dist != c->rob) c->cd_wrong_dist++;
      if (e->kind == IC_EDGE_PP && e->nparts == 1 && e->part[0].cat == IC_CAT_DMISS) c->pp_dmiss++;
      if (e->kind == IC_EDGE_FBW && e->dist != c->fw) c->fbw_wrong_dist++;
      for (int p = 0; p < e->nparts; p++)
        c->part_cycles[e->part[p].cat == IC_CAT_NONE ? IC_CAT_COUNT : e->part[p].cat] += e->part[p].cycles;
    }
  }
  return c->inner.consume(c->inner.ctx, r, n, err);
}

static void counting_init(counting *c, const ooo_config *cfg, ic_catmask ideal) {
  memset(c, 0, sizeof *c);
  c->chk = ooo_graph_check_create();
  cr_assert(c->chk);
  c->inner = ooo_graph_check_sink(c->chk);
  c->rob = ooo_config_rob(cfg) * ((ideal & IC_CATBIT(IC_CAT_WIN)) ? IC_WIN_FACTOR : 1);
  c->fw = ooo_config_fetch_width(cfg) * ((ideal & IC_CATBIT(IC_CAT_BW)) ? IC_BW_FACTOR : 1);
}

/* Runs v on cfg with the checker; asserts the invariant. */
static void check_stream(const ooo_config *cfg, const char *what, ic_catmask ideal, const ic_inst *v,
                         size_t n, size_t warm, counting *cnt) {
  counting local;
  if (!cnt) cnt = &local;
  counting_init(cnt, cfg, ideal);
  ic_graph_sink sink = {.ctx = cnt, .consume = count_consume};
  ooo_stats s;
  ic_err err;
  ic_status st = run_stream(cfg, ideal, v, n, warm, &sink, &s, &err);
  cr_assert_eq(st, IC_OK, "%s (%s, ideal 0x%x): %s", what, ooo_config_name(cfg), ideal, err.msg);
  cr_expect_eq(ooo_graph_check_count(cnt->chk), s.instructions, "%s: records %llu != instructions %llu",
               what, (unsigned long long)ooo_graph_check_count(cnt->chk),
               (unsigned long long)s.instructions);
  cr_expect_eq(ooo_graph_check_last_commit(cnt->chk), s.cycles, "%s (%s, ideal 0x%x): last C %llu != cycles %llu",
               what, ooo_config_name(cfg), ideal,
               (unsigned long long)ooo_graph_check_last_commit(cnt->chk), (unsigned long long)s.cycles);
  cr_expect_eq(cnt->cd_wrong_dist, 0);
  cr_expect_eq(cnt->fbw_wrong_dist, 0);
  /* every delay has a recorded cause (an edge or a tagged part) */
  cr_expect_eq(s.graph_unattributed, 0, "%s (%s, ideal 0x%x): %llu unattributed cycles", what,
               ooo_config_name(cfg), ideal, (unsigned long long)s.graph_unattributed);
  ooo_graph_check_destroy(cnt->chk);
}

static int config_files(char names[][512], int max) {
  DIR *d = opendir(ICOST_SOURCE_DIR "/configs");
  cr_assert(d);
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) && n < max) {
    size_t l = strlen(e->d_name);
    if (l > 5 && strcmp(e->d_name + l - 5, ".yaml") == 0)
      snprintf(names[n++], 512, ICOST_SOURCE_DIR "/configs/%s", e->d_name);
  }
  closedir(d);
  cr_assert(n >= 5, "expected the shipped configs");
  return n;
}

/* independent loads walking lines, 8 per line: the first misses, the
 * others hit the pending line */
static void g_lines(ic_inst *in, size_t j, void *st) {
  uint64_t *k = st;
  (void)j;
  *in = mk(IC_OP_LOAD, (uint8_t)(5 + *k % 8), 4, IC_REG_NONE);
  in->mem_size = 8;
  in->mem_addr = 0x60000000 + 8 * (*k)++;
}
/* store then load of the same word */
static void g_fwd(ic_inst *in, size_t j, void *st) {
  uint64_t *k = st;
  if (j % 2 == 0) {
    *in = mk(IC_OP_STORE, IC_REG_NONE, 4, 6);
    in->mem_addr = 0x70000000 + 8 * (*k % 64);
  } else {
    *in = mk(IC_OP_LOAD, 6, 4, IC_REG_NONE);
    in->mem_addr = 0x70000000 + 8 * ((*k)++ % 64);
  }
  in->mem_size = 8;
}

/* 48-instruction iterations: a store to word k % 16, a load of word
 * (k - 2) % 16 (last written 96 instructions back, by a store that has
 * committed when the load dispatches: it reads the cache), then adds */
static void g_farfwd(ic_inst *in, size_t j, void *st) {
  uint64_t *k = st;
  if (j == 0) {
    *in = mk(IC_OP_STORE, IC_REG_NONE, 4, 6);
    in->mem_addr = 0x70010000 + 8 * (*k % 16);
  } else if (j == 1) {
    *in = mk(IC_OP_LOAD, 6, 4, IC_REG_NONE);
    in->mem_addr = 0x70010000 + 8 * (((*k)++ + 14) % 16);
  } else {
    *in = mk(IC_OP_INT_ALU, (uint8_t)(7 + j % 8), IC_REG_NONE, IC_REG_NONE);
  }
  in->mem_size = (uint8_t)(j < 2 ? 8 : 0);
}

/* 80-instruction iterations: a store to a new line (it misses when it
 * commits), adds, and a load of another word of the previous iteration's
 * line, dispatched after that store committed: the line is in flight */
static void g_stfill(ic_inst *in, size_t j, void *st) {
  uint64_t *k = st;
  if (j == 0) {
    *in = mk(IC_OP_STORE, IC_REG_NONE, 4, 6);
    in->mem_addr = 0x50000000 + 64 * ++*k;
    in->mem_size = 8;
  } else if (j == 1) {
    *in = mk(IC_OP_LOAD, 6, 4, IC_REG_NONE);
    in->mem_addr = 0x50000000 + 64 * (*k - 1) + 8;
    in->mem_size = 8;
  } else {
    *in = mk(IC_OP_INT_ALU, (uint8_t)(7 + j % 8), IC_REG_NONE, IC_REG_NONE);
  }
}

/* A stream of independent loads is bound by the load/store units (3 of 6
 * issue slots on the baseline): the waits for a port live on the slot rule
 * (graph_rec.h: RE without parts, the IW edge of the pool in the slot
 * form), and the records replay to the stamps with the rule applied
 * (ooo_graph_check). */
Test(model_graph, port_waits_live_on_the_slot_rule) {
  ooo_config *cfg;
  ic_err err;
  cr_assert_eq(ooo_config_load(&cfg, NULL, &err), IC_OK);
  uint64_t k = 0;
  size_t n = 6000;
  ic_inst *v = make_loop(n, 12, g_lines, &k);
  counting c;
  check_stream(cfg, "lines", 0, v, n, 0, &c);
  cr_assert_gt(c.waits, n / 4, "only %llu waits", (unsigned long long)c.waits);
  cr_assert_gt(c.waits_on_rule, c.waits * 9 / 10, "%llu of %llu waits on the rule",
               (unsigned long long)c.waits_on_rule, (unsigned long long)c.waits);
  free(v);
  ooo_config_destroy(cfg);
}

/* The three synthetic streams the config tests run: a mix, a pointer
 * chase, random branches. */
typedef struct streams {
  ic_inst *mix, *chase, *br;
  size_t n;
} streams;

static streams make_streams(size_t n, uint64_t seed) {
  streams s = {.n = n};
  s.mix = make_loop(n, 47, g_mix, &seed);
  chase_st cs = {3, 1u << 16};
  s.chase = make_loop(n / 2, 15, g_chase, &cs);
  uint64_t rs = 9;
  s.br = make_loop(n, 15, g_randbr, &rs);
  return s;
}

static void check_streams(const ooo_config *cfg, const char *what, ic_catmask m, const streams *s) {
  char name[96];
  snprintf(name, sizeof name, "%s mix", what);
  check_stream(cfg, name, m, s->mix, s->n, 500, NULL);
  snprintf(name, sizeof name, "%s chase", what);
  check_stream(cfg, name, m, s->chase, s->n / 2, 0, NULL);
  snprintf(name, sizeof name, "%s randbr", what);
  check_stream(cfg, name, m, s->br, s->n, 0, NULL);
}

static void free_streams(streams *s) {
  free(s->mix);
  free(s->chase);
  free(s->br);
}

/* every config, with nothing and everything idealized; each single
 * idealization on the baseline */
Test(model_graph, synthetic_streams_every_config_and_idealization) {
  char names[32][512];
  int nc = config_files(names, 32);
  streams st = make_streams(4000, 5);
  for (int f = 0; f < nc; f++) {
    ooo_config *cfg;
    ic_err err;
    cr_assert_eq(ooo_config_load(&cfg, names[f], &err), IC_OK, "%s", err.msg);
    for (int k = -1; k <= IC_CAT_COUNT; k++) {
      if (k >= 0 && k < IC_CAT_COUNT && strstr(names[f], "/baseline.yaml") == NULL) continue;
      ic_catmask m = k < 0 ? 0 : k == IC_CAT_COUNT ? (1u << IC_CAT_COUNT) - 1 : IC_CATBIT(k);
      check_streams(cfg, strrchr(names[f], '/') + 1, m, &st);
    }
    ooo_config_destroy(cfg);
  }
  free_streams(&st);
}

/* 24 random machines (random_machine), each with nothing idealized,
 * everything idealized and one category drawn from the seed */
Test(model_graph, synthetic_streams_random_machines) {
  uint64_t ms = 2026;
  streams st = make_streams(3000, 11);
  for (int f = 0; f < 24; f++) {
    ooo_config *cfg;
    ic_err err;
    cr_assert_eq(ooo_config_load(&cfg, NULL, &err), IC_OK, "%s", err.msg);
    random_machine(cfg, &ms);
    const ic_catmask masks[3] = {0, (1u << IC_CAT_COUNT) - 1, IC_CATBIT(lcg(&ms) % IC_CAT_COUNT)};
    char what[64];
    snprintf(what, sizeof what, "machine %d", f);
    for (int k = 0; k < 3; k++) check_streams(cfg, what, masks[k], &st);
    ooo_config_destroy(cfg);
  }
  free_streams(&st);
}

Test(model_graph, edges_say_what_happened) {
  ooo_config *cfg;
  ic_err err;
  cr_assert_eq(ooo_config_load(&cfg, NULL, &err), IC_OK);
  counting c;
  /* one PD edge per mispredicted branch (none after the last instruction) */
  uint64_t rs = 9;
  size_t n = 16000;
  ic_inst *v = make_loop(n, 15, g_randbr, &rs);
  ooo_stats s;
  cr_assert_eq(run_stream(cfg, 0, v, n, 0, NULL, &s, &err), IC_OK);
  check_stream(cfg, "randbr", 0, v, n, 0, &c);
  cr_expect(c.kinds[IC_EDGE_PD] + 1 >= s.branch_mispredictions && c.kinds[IC_EDGE_PD] <= s.branch_mispredictions,
            "PD edges %llu, mispredictions %llu", (unsigned long long)c.kinds[IC_EDGE_PD],
            (unsigned long long)s.branch_mispredictions);
  cr_expect(c.part_cycles[IC_CAT_BMISP] == 0, "no part is tagged bmisp: PD edges are dropped instead");
  check_stream(cfg, "randbr", IC_CATBIT(IC_CAT_BMISP), v, n, 0, &c);
  cr_expect_eq(c.kinds[IC_EDGE_PD], 0);
  free(v);
  /* PP edges for loads on a line another load is fetching */
  uint64_t k = 0;
  n = 8000;
  v = make_loop(n, 15, g_lines, &k);
  check_stream(cfg, "lines", 0, v, n, 0, &c);
  cr_expect(c.kinds[IC_EDGE_PP] > n / 2, "PP edges %llu", (unsigned long long)c.kinds[IC_EDGE_PP]);
  cr_expect(c.part_cycles[IC_CAT_DMISS] > 0);
  cr_expect(c.part_cycles[IC_CAT_DL1] > 0);
  free(v);
  /* memory PR edges for store -> load */
  k = 0;
  v = make_loop(n, 16, g_fwd, &k);
  check_stream(cfg, "fwd", 0, v, n, 0, &c);
  cr_expect(c.mem_pr >= n * 7 / 16, "memory PR edges %llu", (unsigned long long)c.mem_pr);
  free(v);
  /* ... and for a load of a word a committed store wrote (a larger window
   * would forward it): one per iteration but the first two */
  k = 0;
  v = make_loop(n, 48, g_farfwd, &k);
  check_stream(cfg, "farfwd", 0, v, n, 0, &c);
  cr_expect(c.mem_pr_far + 3 >= n / 49 && c.mem_pr <= n / 49 + 1, "far memory PR edges %llu of %llu, %zu iterations",
            (unsigned long long)c.mem_pr_far, (unsigned long long)c.mem_pr, n / 49);
  check_stream(cfg, "farfwd", IC_CATBIT(IC_CAT_WIN), v, n, 0, &c);
  cr_expect(c.mem_pr + 3 >= n / 49, "forwarded with the larger window: %llu", (unsigned long long)c.mem_pr);
  free(v);
  /* a load of a line a store's miss at commit is filling waits on a PP
     edge from the store, with the rest of the fill as a dmiss part */
  k = 0;
  v = make_loop(n, 80, g_stfill, &k);
  check_stream(cfg, "stfill", 0, v, n, 0, &c);
  cr_expect(c.pp_dmiss + 3 >= n / 81, "PP edges from stores %llu, %zu iterations", (unsigned long long)c.pp_dmiss,
            n / 81);
  free(v);
  /* a long dependent chain fills the ROB: CD edges at the ROB size */
  n = 8000;
  v = make_loop(n, 15, g_mul, NULL);
  check_stream(cfg, "mul", 0, v, n, 0, &c);
  cr_expect(c.kinds[IC_EDGE_CD] > n / 2);
  cr_expect(c.kinds[IC_EDGE_FBW] > n / 2);
  cr_expect(c.kinds[IC_EDGE_CBW] > n / 2);
  cr_expect(c.part_cycles[IC_CAT_LGALU] >= 3 * (n * 15 / 16) - 3);
  free(v);
  ooo_config_destroy(cfg);
}

/* ---- real programs ------------------------------------------------------- */

static const char prog_src[] =
    "#include <stdio.h>\n#include <stdlib.h>\n"
    "int main(int argc, char **argv) {\n"
    "  int n = argc > 1 ? atoi(argv[1]) : 20000;\n"
    "  unsigned *a = malloc(n * sizeof *a); double *d = malloc(n * sizeof *d);\n"
    "  unsigned s = 1;\n"
    "  for (int i = 0; i < n; i++) { s = s * 1103515245u + 12345u; a[i] = (s >> 8) % n; d[i] = s * 1e-9; }\n"
    "  unsigned long sum = 0; unsigned j = 0; double f = 0;\n"
    "  for (int k = 0; k < 4 * n; k++) { j = a[j]; sum += j; if (j & 1) sum ^= k; else sum /= 3;\n"
    "    f += d[j] * 1.5 / (1.0 + d[k % n]); }\n"
    "  printf(\"%lu %f\\n\", sum, f);\n"
    "  return 0;\n}\n";

/* Builds the test program with the cross compiler (once per build dir). */
static const char *test_program(void) {
  static char exe[512];
  snprintf(exe, sizeof exe, ICOST_BUILD_DIR "/test_model_graph_prog");
  struct stat stt;
  if (stat(exe, &stt) == 0) return exe;
  char src[600], cmd[2400];
  snprintf(src, sizeof src, "%s.c", exe);
  FILE *f = fopen(src, "w");
  cr_assert(f);
  fputs(prog_src, f);
  fclose(f);
  snprintf(cmd, sizeof cmd, "riscv64-linux-gnu-gcc -O2 -static -o %s.tmp %s 2>/dev/null && mv %s.tmp %s",
           exe, src, exe, exe);
  if (system(cmd) != 0) return NULL;
  return exe;
}

/* ideal_on_first: also every single idealization on the first config */
static void check_program(const char *path, char *const *argv, int argc, uint64_t skip, uint64_t max,
                          int ideal_on_first) {
  char names[32][512];
  int nc = config_files(names, 32);
  for (int f = 0; f < nc; f++) {
    ooo_config *cfg;
    ic_err err;
    cr_assert_eq(ooo_config_load(&cfg, names[f], &err), IC_OK, "%s", err.msg);
    uint64_t base_cycles = 0;
    for (int k = -1; k < IC_CAT_COUNT; k++) {
      ic_catmask m = k < 0 ? 0 : IC_CATBIT(k);
      if (k >= 0 && (f != 0 || !ideal_on_first)) continue; /* keeps this short */
      rv_options o;
      rv_options_default(&o);
      FILE *null = fopen("/dev/null", "w");
      o.stdout_fd = o.stderr_fd = fileno(null);
      rv_proc *p;
      cr_assert_eq(rv_proc_load(&p, path, argc, argv, &o, &err), IC_OK, "%s", err.msg);
      rv_proc_skip(p, skip);
      ooo_core *core;
      cr_assert_eq(ooo_create(&core, cfg, m, &err), IC_OK);
      counting c;
      counting_init(&c, cfg, m);
      ic_graph_sink sink = {.ctx = &c, .consume = count_consume};
      ooo_set_graph_sink(core, sink);
      ic_inst_source src = rv_proc_source(p);
      uint64_t done;
      cr_assert_eq(ooo_warm(core, src, 10000, &done, &err), IC_OK);
      ic_status st = ooo_run(core, src, max, &err);
      cr_assert_eq(st, IC_OK, "%s on %s ideal 0x%x: %s", path, names[f], m, err.msg);
      const ooo_stats *s = ooo_get_stats(core);
      cr_expect(s->instructions > 1000);
      /* an idealization never makes the run slower, within 3%: on this
       * divide-bound program, finishing other work earlier can change which
       * divide takes an unpipelined divider first (oldest-first among the
       * ready, no lookahead), measured up to +1.9% with shalu on l1d4 */
      if (k < 0) base_cycles = s->cycles;
      else cr_expect(s->cycles <= base_cycles * 1.03, "%s on %s: ideal %s %llu cycles > baseline %llu", path,
                     names[f], ic_category_names[k], (unsigned long long)s->cycles,
                     (unsigned long long)base_cycles);
      cr_expect_eq(ooo_graph_check_count(c.chk), s->instructions);
      cr_expect_eq(ooo_graph_check_last_commit(c.chk), s->cycles, "%s on %s ideal 0x%x: %llu != %llu",
                   path, names[f], m, (unsigned long long)ooo_graph_check_last_commit(c.chk),
                   (unsigned long long)s->cycles);
      cr_expect_eq(rv_proc_state(p, NULL, NULL) == RV_FAULT, 0);
      ooo_graph_check_destroy(c.chk);
      ooo_destroy(core);
      rv_proc_destroy(p);
      fclose(null);
    }
    ooo_config_destroy(cfg);
  }
}

Test(model_graph, real_program_every_config) {
  const char *exe = test_program();
  if (!exe) cr_skip_test("riscv64-linux-gnu-gcc cannot build the test program");
  char *argv[] = {(char *)exe, "20000", NULL};
  check_program(exe, argv, 2, 30000, 30000, 1);
}

/* The short workloads of the suite, when they have been built. */
Test(model_graph, suite_short_workloads) {
  const char *dir = getenv("ICOST_WORKLOADS");
  char path[512];
  const char *names[][3] = {{"chase", "16384", "100000"}, {"branchy", "60000", NULL},
                            {"depchain", "100000", NULL}, {"mix", "1", NULL}};
  int ran = 0;
  for (int k = 0; k < 4; k++) {
    snprintf(path, sizeof path, "%s/%s", dir ? dir : ICOST_SOURCE_DIR "/build/workloads", names[k][0]);
    struct stat st;
    if (stat(path, &st) != 0) continue;
    char *argv[] = {path, (char *)names[k][1], (char *)names[k][2], NULL};
    check_program(path, argv, names[k][2] ? 3 : 2, 10000, 15000, 0);
    ran++;
  }
  if (!ran) cr_skip_test("workload suite not built (bash bench/workloads/build.sh)");
}
