/* test_multisim_model.c: multisim against the graph on the real model and
 * emulator, on single-bottleneck programs compiled at test time
 * (riscv64-linux-gnu-gcc -static; skipped with a message without it).
 *
 *   - chase: a pointer chase over 4 MB of 64-byte nodes (4x the L2), one
 *     dependent miss per hop: dmiss dominates;
 *   - branch: a loop on a pseudo-random bit, about half the branches
 *     mispredict: bmisp dominates.
 *
 * Stated tolerance: the dominant category's icost agrees within 3
 * percentage points of execution time between multisim and graph (and
 * graphfrag within 5, being a sample), and the paper's Table IX metric over
 * the 2^3 - 1 entries stays under 10% (the paper's graph: ~8% on SPEC).
 * Multisim runs from one checkpoint (load and skip once, rv_proc_clone per
 * run, re-warm each core on its clone), on two threads. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ooo.h"
#include "rv.h"
#include "validate.h"

#include "test_guests.h"
#include "test_util.h"

static const char chase_src[] =
    "#include <stdint.h>\n"
    "#include <stdlib.h>\n"
    "#define NODES (1u << 16) /* 64-byte nodes: 4 MB */\n"
    "struct node { struct node *next; uint64_t pad[7]; };\n"
    "static struct node nodes[NODES];\n"
    "int main(int argc, char **argv) {\n"
    "  long hops = argc > 1 ? atol(argv[1]) : 1000;\n"
    "  /* one cycle in a scrambled order (an odd multiplier is a bijection\n"
    "     modulo a power of two): every hop goes to a far line and page */\n"
    "  for (uint32_t i = 0; i < NODES; i++) {\n"
    "    uint32_t a = (i * 40503u) & (NODES - 1), b = ((i + 1) * 40503u) & (NODES - 1);\n"
    "    nodes[a].next = &nodes[b];\n"
    "  }\n"
    "  struct node *p = &nodes[0];\n"
    "  for (long h = 0; h < hops; h++) p = p->next;\n"
    "  return (int)(((uintptr_t)p >> 6) & 1);\n"
    "}\n";

/* Compiles src into ICOST_BUILD_DIR/h6_<name> (path in out); skips the
   test without a cross compiler. */
static void compile(const char *name, const char *src, char *out, size_t cap) {
  if (system("riscv64-linux-gnu-gcc --version >/dev/null 2>&1") != 0)
    cr_skip_test("riscv64-linux-gnu-gcc not found: model multisim tests skipped");
  snprintf(out, cap, "%s/h6_%s", ICOST_BUILD_DIR, name);
  cr_assert(t_cross_build(out, src, NULL), "cross compile of %s failed", name);
}

/* The shared checkpoint and how to run from it. */
typedef struct rvrun {
  rv_proc *ckpt;
  ooo_config *cfg;
  uint64_t warm, max;
} rvrun;

static ic_status rv_run(void *ctx, ic_catmask ideal, const ic_graph_sink *sink, uint64_t *cycles,
                        uint64_t *insns, ic_err *err) {
  const rvrun *r = ctx;
  rv_proc *p = rv_proc_clone(r->ckpt);
  if (!p) return ic_fail(err, IC_ERUN, "out of memory cloning the checkpoint");
  ooo_core *c;
  ic_status st = ooo_create(&c, r->cfg, ideal, err);
  if (st != IC_OK) {
    rv_proc_destroy(p);
    return st;
  }
  if (sink) ooo_set_graph_sink(c, *sink);
  uint64_t done;
  st = ooo_warm(c, rv_proc_source(p), r->warm, &done, err);
  if (st == IC_OK) st = ooo_run(c, rv_proc_source(p), r->max, err);
  const char *why;
  if (st == IC_OK && rv_proc_state(p, NULL, &why) == RV_FAULT)
    st = ic_fail(err, IC_ERUN, "%s", why);
  if (st == IC_OK) {
    *cycles = ooo_get_stats(c)->cycles;
    *insns = ooo_get_stats(c)->instructions;
  }
  ooo_destroy(c);
  rv_proc_destroy(p);
  return st;
}

static void setup(rvrun *r, const char *prog, const char *arg, uint64_t skip, uint64_t warm,
                  uint64_t max) {
  ic_err err;
  rv_options o;
  rv_options_default(&o);
  o.stdout_fd = o.stderr_fd = -1;
  char *argv[3] = {(char *)prog, (char *)arg, NULL};
  cr_assert_eq(rv_proc_load(&r->ckpt, prog, 2, argv, &o, &err), IC_OK, "%s", err.msg);
  cr_assert_eq(rv_proc_skip(r->ckpt, skip), skip, "program shorter than the skip");
  cr_assert_eq(ooo_config_load(&r->cfg, NULL, &err), IC_OK, "%s", err.msg);
  r->warm = warm;
  r->max = max;
}

static void teardown(rvrun *r) {
  rv_proc_destroy(r->ckpt);
  ooo_config_destroy(r->cfg);
}

/* multisim, graph and graphfrag percent vectors of one program. */
static ic_validate_report *validate(rvrun *r, const uint8_t *cats, int ncat, uint64_t fraglen,
                                    uint64_t nfrag) {
  const char *methods[3] = {"multisim", "graph", "graphfrag"};
  ic_validate_report *rep;
  ic_err err;
  cr_assert_eq(ic_validate_report_create(&rep, cats, ncat, methods, 3, &err), IC_OK);
  ic_validate_run_opts vo = {.cats = cats, .ncat = ncat, .run = rv_run, .run_ctx = r, .jobs = 2};
  vo.frag.length = fraglen;
  vo.frag.fragments = nfrag;
  vo.frag.seed = 5;
  cr_assert_eq(ic_validate_workload(rep, "prog", &vo, &err), IC_OK, "%s", err.msg);
  return rep;
}

static void print_report(ic_validate_report *rep) {
  ic_err err;
  ic_validate_report_write(rep, stderr, IC_VALIDATE_TEXT, 1, &err);
}

/* The stated tolerances, for the dominant category at mask 1. */
static void check_agreement(ic_validate_report *rep, double dominant_min) {
  const double *ms = ic_validate_report_pct(rep, 0, 0), *gr = ic_validate_report_pct(rep, 0, 1),
               *gf = ic_validate_report_pct(rep, 0, 2);
  if (!(ms[1] > dominant_min) || !(fabs(gr[1] - ms[1]) < 3.0) || !(fabs(gf[1] - ms[1]) < 5.0))
    print_report(rep);
  cr_assert_gt(ms[1], dominant_min, "the bottleneck must dominate: %.1f%%", ms[1]);
  cr_assert_lt(fabs(gr[1] - ms[1]), 3.0, "graph %.1f%% vs multisim %.1f%%", gr[1], ms[1]);
  cr_assert_lt(fabs(gf[1] - ms[1]), 5.0, "graphfrag %.1f%% vs multisim %.1f%%", gf[1], ms[1]);
  const ic_validate_score *sg = ic_validate_report_score(rep, 0, 1);
  cr_assert_lt(sg->mean_error_percent, 10.0);
  cr_assert_eq(sg->sign_mismatches, 0);
}

Test(multisim_model, chase_is_dmiss) {
  char prog[600];
  compile("chase", chase_src, prog, sizeof prog);
  rvrun r;
  /* set-up writes 64K nodes (~0.4M instructions), then ~4 per hop */
  setup(&r, prog, "400000", 800000, 200000, 40000);
  const uint8_t cats[3] = {IC_CAT_DMISS, IC_CAT_DL1, IC_CAT_BMISP};
  ic_validate_report *rep = validate(&r, cats, 3, 2000, 200);
  check_agreement(rep, 50);
  ic_validate_report_destroy(rep);
  teardown(&r);
}

Test(multisim_model, branch_is_bmisp) {
  char prog[600];
  compile("branch", t_guest_random_branch, prog, sizeof prog);
  rvrun r;
  setup(&r, prog, "100000", 20000, 10000, 60000);
  const uint8_t cats[3] = {IC_CAT_BMISP, IC_CAT_SHALU, IC_CAT_DL1};
  ic_validate_report *rep = validate(&r, cats, 3, 2000, 200);
  check_agreement(rep, 30);
  ic_validate_report_destroy(rep);
  teardown(&r);
}

/* A guest that runs a short loop, then an illegal instruction (the
   all-zero word is illegal in RISC-V). */
static const char fault_src[] =
    "int main(void) {\n"
    "  volatile long s = 0;\n"
    "  for (long i = 0; i < 20000; i++) s += i;\n"
    "  __asm__ volatile(\".4byte 0\");\n"
    "  return (int)s;\n"
    "}\n";

Test(multisim_model, guest_fault_names_the_subset) {
  char prog[600];
  compile("fault", fault_src, prog, sizeof prog);
  rvrun r;
  setup(&r, prog, "x", 1000, 0, 0);
  const uint8_t cats[2] = {IC_CAT_DL1, IC_CAT_BMISP};
  ic_multisim_opts o = {.cats = cats, .ncat = 2, .run = rv_run, .run_ctx = &r, .jobs = 2};
  ic_breakdown b;
  ic_err err;
  cr_assert_eq(ic_multisim_run(&o, &b, &err), IC_ERUN);
  /* every run faults; the lowest failing subset, {}, is the one named */
  cr_assert(strncmp(err.msg, "multisim run {}: fault at pc 0x", 31) == 0, "%s", err.msg);
  cr_assert(strstr(err.msg, "illegal instruction"), "%s", err.msg);
  cr_assert_null(b.icost);
  teardown(&r);
}
