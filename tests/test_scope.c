/* test_scope.c: scoped categories (model/scope.h): parsing of category
 * lists, the tagging of graph records, the solver against the reference
 * pass on tagged random graphs (both lane layouts, every kernel), and end
 * to end on a program built for it: two functions, each missing in the
 * caches on its own array (compiled at test time with riscv64-linux-gnu-gcc
 * -O1 -g -static; skipped with a message without it). */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "scope.h"
#include "test_engine_graph_util.h"
#include "test_util.h"

#define SCOPED(slot, base) ((uint8_t)(IC_CAT_COUNT * ((slot) + 1) + (base)))

Test(scope, parses_ranges_into_ids) {
  static ic_scopes sc;
  uint8_t cats[12];
  int n = 0;
  ic_err err = {{0}};
  cr_assert_eq(ic_scopes_parse("dl1,dmiss@0x100-0x200,dmiss@0x300-0x400,bmisp@0x100-0x180,dmiss",
                               cats, &n, 12, &sc, NULL, NULL, &err),
               IC_OK, "%s", err.msg);
  cr_assert_eq(n, 5);
  cr_assert_eq(cats[0], IC_CAT_DL1);
  cr_assert_eq(cats[1], SCOPED(0, IC_CAT_DMISS));
  cr_assert_eq(cats[2], SCOPED(1, IC_CAT_DMISS));
  cr_assert_eq(cats[3], SCOPED(0, IC_CAT_BMISP));
  cr_assert_eq(cats[4], IC_CAT_DMISS);
  cr_assert_eq(sc.n, 3);
  cr_assert_eq(sc.s[0].r[0].lo, 0x100);
  cr_assert_eq(sc.s[0].r[0].hi, 0x200);
  ic_scopes_publish(&sc);
  cr_assert_str_eq(ic_category_name(cats[2]), "dmiss@0x300-0x400");
  cr_assert_str_eq(ic_category_name(IC_CAT_WIN), "win");
  /* the model's mask: the base of a chosen scope holding the pc */
  ic_catmask ideal = IC_CATBIT(cats[1]) | IC_CATBIT(IC_CAT_DL1);
  cr_assert_eq(ic_scopes_ideal_at(&sc, ideal, 0x180), IC_CATBIT(IC_CAT_DMISS) | IC_CATBIT(IC_CAT_DL1));
  cr_assert_eq(ic_scopes_ideal_at(&sc, ideal, 0x200), IC_CATBIT(IC_CAT_DL1));
  cr_assert_eq(ic_scopes_ideal_at(&sc, ideal, 0x300), IC_CATBIT(IC_CAT_DL1));
}

Test(scope, refuses_bad_lists_in_one_line) {
  static ic_scopes sc;
  static const struct {
    const char *list, *want;
  } bad[] = {
      {"win@0x10-0x20", "win cannot be scoped"},
      {"bw@0x10-0x20", "bw cannot be scoped"},
      {"dmisx@0x10-0x20", "unknown category 'dmisx'"},
      {"dmiss@0x20-0x10", "bad pc range"},
      {"dmiss@0x20", "bad pc range"},
      {"dmiss@0x20-", "bad pc range"},
      {"dmiss@0x20-0xzz", "bad pc range"},
      {"dmiss@", "nothing after '@'"},
      {"dmiss@hash_lookup", "no program"},
      {"dmiss@0x10-0x20,dmiss@0x10-0x20", "given twice"},
      {"dmiss@0x10-0x20,dmiss@0x18-0x30", "overlap at pc 0x18"},
      {"dmiss@0x0-0x1,dmiss@0x1-0x2,dmiss@0x2-0x3,dmiss@0x3-0x4", "at most 3 scopes of dmiss"},
      {"dl1,,dmiss", "empty item"},
  };
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    uint8_t cats[12];
    int n = 0;
    ic_err err = {{0}};
    cr_assert_eq(ic_scopes_parse(bad[k].list, cats, &n, 12, &sc, NULL, NULL, &err), IC_EINPUT,
                 "%s accepted", bad[k].list);
    cr_assert_not_null(strstr(err.msg, bad[k].want), "%s: %s", bad[k].list, err.msg);
    cr_assert_null(strchr(err.msg, '\n'), "%s", err.msg);
  }
  /* scopes of different bases may overlap */
  uint8_t cats[12];
  int n = 0;
  ic_err err = {{0}};
  cr_assert_eq(ic_scopes_parse("dmiss@0x10-0x20,dl1@0x10-0x20", cats, &n, 12, &sc, NULL, NULL, &err),
               IC_OK, "%s", err.msg);
}

/* Tagging: parts of the scope's base move to its id; sdrop names the
 * scoped dmiss of a load with a PP edge, and the scoped bmisp of the branch
 * before a record with a PD edge. */
Test(scope, tags_parts_and_drops) {
  static ic_scopes sc;
  uint8_t cats[12];
  int n = 0;
  ic_err err = {{0}};
  cr_assert_eq(ic_scopes_parse("dmiss@0x100-0x200,bmisp@0x80-0x90", cats, &n, 12, &sc, NULL,
                               NULL, &err),
               IC_OK, "%s", err.msg);
  tg g = {0};
  ic_graph_rec *r = tg_inst(&g);
  r->pc = 0x104;
  E2(r, IC_EDGE_EP, 0, 2, IC_CAT_DL1, 30, IC_CAT_DMISS);
  E0(r, IC_EDGE_PP, 3);
  E2(r, IC_EDGE_PD, 1, 5, NONE, 2, IC_CAT_IMISS);
  ic_scopes_tag(&sc, r, 0x84);
  cr_assert_eq(r->edge[0].part[0].cat, IC_CAT_DL1);
  cr_assert_eq(r->edge[0].part[1].cat, cats[0]);
  cr_assert_eq(r->edge[2].part[1].cat, IC_CAT_IMISS);
  cr_assert_eq(r->sdrop[0], cats[0]);
  cr_assert_eq(r->sdrop[1], cats[1]);
  ic_graph_rec *q = tg_inst(&g);
  q->pc = 0x300;
  E1(q, IC_EDGE_EP, 0, 30, IC_CAT_DMISS);
  ic_scopes_tag(&sc, q, 0x104);
  cr_assert_eq(q->edge[0].part[0].cat, IC_CAT_DMISS);
  cr_assert_eq(q->sdrop[0], 0);
  tg_free(&g);
}

/* Random graphs whose pcs repeat over a small loop, tagged for scopes of
 * every scopable base (and the MSHR rule on some loads): the solver equals
 * the reference for every subset, with base and scoped categories mixed,
 * in the powerset and the compact layout, with every kernel. */
static void check_scoped(uint64_t seed, const char *list, int compact) {
  static ic_scopes sc;
  uint8_t cats[12];
  int ncat = 0;
  ic_err err = {{0}};
  cr_assert_eq(ic_scopes_parse(list, cats, &ncat, 12, &sc, NULL, NULL, &err), IC_OK, "%s", err.msg);
  tg g = {0};
  tg_random(&g, 400, seed, 40, 8);
  uint64_t prev = 0;
  for (size_t i = 0; i < g.n; i++) {
    ic_graph_rec *r = &g.r[i];
    r->pc = 0x1000 + 4 * (i % 37);
    if (i % 5 == 2) r->mshr_k = 2;
    ic_scopes_tag(&sc, r, prev);
    prev = r->pc;
  }
  tg_stamp(&g);
  const uint32_t n = 1u << ncat;
  uint8_t *need = calloc(n, 1);
  for (uint32_t s = 0; s < n; s++) need[s] = __builtin_popcount(s) <= 1 || s == n - 1 || s % 3 == 0;
  for (int kern = 0; kern < T_KERNELS; kern++) {
    ic_solver *s = NULL;
    cr_assert_eq(ic_solver_create(&s, cats, ncat, &err), IC_OK, "%s", err.msg);
    t_use_kernel(s, kern);
    if (compact) cr_assert_eq(ic_solver_set_subsets(s, need, &err), IC_OK, "%s", err.msg);
    cr_assert_eq(ic_solver_feed(s, g.r, g.n, &err), IC_OK, "%s", err.msg);
    ic_solver_stats st;
    ic_solver_get_stats(s, &st);
    cr_assert_eq(st.violations, 0);
    const uint64_t *t = ic_solver_times(s);
    for (uint32_t sub = 0; sub < n; sub++) {
      if (compact && !need[sub]) continue;
      uint64_t ref = tg_ref(&g, ic_solver_subset_catmask(s, sub));
      cr_assert_eq(t[sub], ref, "%s seed %llu kernel %d subset %u: solver %llu reference %llu",
                   list, (unsigned long long)seed, kern, sub, (unsigned long long)t[sub],
                   (unsigned long long)ref);
    }
    ic_solver_destroy(s);
  }
  free(need);
  tg_free(&g);
}

Test(scope, solver_equals_reference_on_tagged_graphs) {
  static const char *const lists[] = {
      "dmiss@0x1000-0x1030,dmiss@0x1030-0x1060,bmisp@0x1010-0x1050",
      "dmiss,dmiss@0x1000-0x1030,bmisp,bmisp@0x1010-0x1050,win",
      "dl1@0x1008-0x1020,shalu@0x1000-0x1100,lgalu@0x1040-0x1050,imiss@0x1000-0x1010,dl1,bw",
      "dmiss@0x1000-0x1100,dmiss,shalu@0x1000-0x1004,bmisp@0x1000-0x1100,win,bw,imiss",
  };
  for (size_t k = 0; k < sizeof lists / sizeof lists[0]; k++)
    for (int compact = 0; compact < 2; compact++) check_scoped(11 + k, lists[k], compact);
}

/* A scope over every pc idealizes what its base does; one over no pc
 * nothing (the reference pass: the rule every evaluator follows). */
Test(scope, whole_and_empty_scopes) {
  static ic_scopes sc;
  uint8_t cats[12];
  int ncat = 0;
  ic_err err = {{0}};
  cr_assert_eq(ic_scopes_parse("dmiss@0x0-0xffffffffffffffff,bmisp@0x0-0xffffffffffffffff,"
                               "shalu@0x10-0x20",
                               cats, &ncat, 12, &sc, NULL, NULL, &err),
               IC_OK, "%s", err.msg);
  tg g = {0};
  tg_random(&g, 300, 5, 40, 8);
  uint64_t prev = 0;
  for (size_t i = 0; i < g.n; i++) {
    g.r[i].pc = 0x1000 + 4 * (i % 21);
    ic_scopes_tag(&sc, &g.r[i], prev);
    prev = g.r[i].pc;
  }
  const uint64_t t0 = tg_stamp(&g);
  cr_assert_eq(tg_ref(&g, IC_CATBIT(cats[0])), tg_ref(&g, IC_CATBIT(IC_CAT_DMISS)));
  cr_assert_eq(tg_ref(&g, IC_CATBIT(cats[1])), tg_ref(&g, IC_CATBIT(IC_CAT_BMISP)));
  cr_assert_lt(tg_ref(&g, IC_CATBIT(cats[0])), t0, "the graph must have misses to idealize");
  cr_assert_eq(tg_ref(&g, IC_CATBIT(cats[2])), t0);
  tg_free(&g);
}

/* ---- end to end ----------------------------------------------------------- */

/* Two pointer chases, each over its own 2 MB ring (twice the baseline's
 * L2): chase_a's loads miss only in its ring, chase_b's in the other. */
static const char two_chases_src[] =
    "#include <stdint.h>\n"
    "#include <stdlib.h>\n"
    "#define N (1u << 19)\n"
    "static uint32_t *ring(uint32_t a, uint32_t c) {\n"
    "  uint32_t *p = malloc(N * sizeof *p);\n"
    "  for (uint32_t i = 0; i < N; i++) p[i] = (a * i + c) & (N - 1);\n"
    "  return p;\n"
    "}\n"
    "__attribute__((noinline)) uint32_t chase_a(const uint32_t *p, uint32_t i, long n) {\n"
    "  for (long k = 0; k < n; k++) i = p[i];\n"
    "  return i;\n"
    "}\n"
    "__attribute__((noinline)) uint32_t chase_b(const uint32_t *p, uint32_t i, long n) {\n"
    "  for (long k = 0; k < n; k++) i = p[i] ^ 0u;\n"
    "  return i + 1;\n"
    "}\n"
    "int main(int argc, char **argv) {\n"
    "  long rounds = argc > 1 ? atol(argv[1]) : 100, len = argc > 2 ? atol(argv[2]) : 1000;\n"
    "  uint32_t *a = ring(2654435761u, 12345u), *b = ring(1103515245u, 777u);\n"
    "  uint32_t x = 0, y = 0;\n"
    "  for (long r = 0; r < rounds; r++) {\n"
    "    x = chase_a(a, x, len);\n"
    "    y = chase_b(b, y, len);\n"
    "  }\n"
    "  return (int)((x + y) & 1);\n"
    "}\n";

static const char *two_chases(void) {
  static char path[512];
  if (system("riscv64-linux-gnu-gcc --version >/dev/null 2>&1") != 0) {
    cr_skip_test("riscv64-linux-gnu-gcc not found: scoped end-to-end tests skipped");
    return NULL;
  }
  char csrc[512], cmd[1400];
  snprintf(csrc, sizeof csrc, "%s/scope_two_%d.c", ICOST_BUILD_DIR, (int)getpid());
  snprintf(path, sizeof path, "%s/scope_two_%d", ICOST_BUILD_DIR, (int)getpid());
  FILE *f = fopen(csrc, "w");
  cr_assert_not_null(f);
  fputs(two_chases_src, f);
  fclose(f);
  snprintf(cmd, sizeof cmd, "riscv64-linux-gnu-gcc -O1 -g -static -o %s %s 2>&1", path, csrc);
  cr_assert_eq(system(cmd), 0, "cross compile failed");
  unlink(csrc);
  return path;
}

/* The ring set-up (about 5M instructions) is skipped; the timed part
 * covers several calls of each function. */
#define RANGE "--skip 6M --warm 1M --max 60k"
#define ARGS "100000 1000"

typedef struct result {
  int status;
  char *out, *err;
} result;

static result icost(const char *args) {
  char cmd[2400], o[600], e[600];
  snprintf(o, sizeof o, "%s/scope_out.%d", ICOST_BUILD_DIR, (int)getpid());
  snprintf(e, sizeof e, "%s/scope_err.%d", ICOST_BUILD_DIR, (int)getpid());
  snprintf(cmd, sizeof cmd, "%s %s >%s 2>%s", ICOST_BINARY, args, o, e);
  int st = system(cmd);
  char *out = t_slurp(o, NULL), *err = t_slurp(e, NULL);
  result r = {WIFEXITED(st) ? WEXITSTATUS(st) : -1, out ? out : strdup(""), err ? err : strdup("")};
  unlink(o);
  unlink(e);
  return r;
}

/* `key` of the validate YAML entry whose set is exactly `set` (items
 * separated by ", "); NAN if absent. */
static double entry(const char *yaml, const char *set, const char *key) {
  char needle[400] = "- set:\n", item[96], k[96];
  for (const char *p = set; *p;) {
    const char *e = strstr(p, ", ");
    size_t len = e ? (size_t)(e - p) : strlen(p);
    snprintf(item, sizeof item, "    - %.*s\n", (int)len, p);
    strncat(needle, item, sizeof needle - strlen(needle) - 1);
    p = e ? e + 2 : p + len;
  }
  strncat(needle, "    ", sizeof needle - strlen(needle) - 1);
  const char *p = yaml;
  /* exactly these items: the next line is a key, not another item */
  while ((p = strstr(p, needle)) && p[strlen(needle)] == '-') p++;
  if (!p) return NAN;
  p += strlen(needle) - 5; /* the newline before the first key */
  snprintf(k, sizeof k, "\n    %s: ", key);
  const char *end = strstr(p, "- set:");
  const char *q = strstr(p, k);
  if (!q || (end && q > end)) return NAN;
  return atof(q + strlen(k));
}

/* The must-pass check. Tolerances, in points of execution time: 3 between
 * graph and multisim for each scoped category (the graph's error on this
 * miss-bound program, where the machine's MSHR and cache state couple the
 * two functions in ways the graph sees only through the baseline's edges);
 * 4 for dmiss@chase_a + dmiss@chase_b against dmiss (the two scopes'
 * interaction plus the few misses outside both, in the caller). */
Test(scope_cli, graph_agrees_with_multisim_on_two_functions, .timeout = 600) {
  const char *prog = two_chases();
  char args[2000];
  snprintf(args, sizeof args,
           "validate --methods graph,graphfrag --categories dmiss,dmiss@chase_a,dmiss@chase_b "
           "--fragments 20 --format yaml -j 2 " RANGE " -- %s " ARGS,
           prog);
  result r = icost(args);
  cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
  const double all_m = entry(r.out, "dmiss", "multisim"), all_g = entry(r.out, "dmiss", "graph");
  const double a_m = entry(r.out, "dmiss@chase_a", "multisim"), a_g = entry(r.out, "dmiss@chase_a", "graph");
  const double b_m = entry(r.out, "dmiss@chase_b", "multisim"), b_g = entry(r.out, "dmiss@chase_b", "graph");
  cr_assert(!isnan(all_m + all_g + a_m + a_g + b_m + b_g), "%s", r.out);
  cr_assert_gt(all_m, 50, "the program must be miss-bound: %s", r.out);
  cr_assert_gt(a_m, 15, "chase_a's misses must cost: %s", r.out);
  cr_assert_gt(b_m, 15, "chase_b's misses must cost: %s", r.out);
  cr_assert_lt(fabs(a_g - a_m), 3.0, "dmiss@chase_a: graph %.2f multisim %.2f", a_g, a_m);
  cr_assert_lt(fabs(b_g - b_m), 3.0, "dmiss@chase_b: graph %.2f multisim %.2f", b_g, b_m);
  cr_assert_lt(fabs(a_m + b_m - all_m), 4.0, "multisim: %.2f + %.2f vs %.2f", a_m, b_m, all_m);
  cr_assert_lt(fabs(a_g + b_g - all_g), 4.0, "graph: %.2f + %.2f vs %.2f", a_g, b_g, all_g);
  /* with dmiss itself chosen, a scope adds nothing (the union) */
  cr_assert_lt(fabs(entry(r.out, "dmiss, dmiss@chase_a", "graph") + a_g), 1e-6, "%s", r.out);
  cr_assert(!isnan(entry(r.out, "dmiss@chase_a", "graphfrag")), "%s", r.out);
  free(r.out);
  free(r.err);
}

/* In cycles: a scope over no executed pc costs 0 exactly, one over every
 * pc what its base costs, in the graph (and in the model). */
Test(scope_cli, empty_and_whole_scopes_exact, .timeout = 600) {
  const char *prog = two_chases();
  for (int m = 0; m < 2; m++) {
    char args[2000];
    snprintf(args, sizeof args,
             "--method %s --categories dmiss,dmiss@0x0-0xffffffffffffffff,bmisp@0x10-0x20 "
             "--show all --format csv -j 2 " RANGE " -- %s " ARGS,
             m ? "multisim" : "graph", prog);
    result r = icost(args);
    cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
    /* csv rows: set,percent,cycles */
    char row[3][200];
    const char *sets[3] = {"dmiss,", "dmiss@0x0-0xffffffffffffffff,", "bmisp@0x10-0x20,"};
    for (int k = 0; k < 3; k++) {
      const char *p = strstr(r.out, k == 1 ? "\ndmiss@0x0" : k == 0 ? "\ndmiss," : "\nbmisp@");
      cr_assert_not_null(p, "%s: no row %s in\n%s", m ? "multisim" : "graph", sets[k], r.out);
      const char *c = strchr(p + 1, ',');
      snprintf(row[k], sizeof row[k], "%.*s", (int)(strcspn(c + 1, "\n")), c + 1);
    }
    cr_assert_str_eq(row[0], row[1], "%s", r.out);
    const char *zero = strrchr(row[2], ',');
    cr_assert_not_null(zero, "%s", row[2]);
    cr_assert_eq(atof(zero + 1), 0.0, "bmisp over no pc: %s", row[2]);
    free(r.out);
    free(r.err);
  }
}

Test(scope_cli, usage_errors_are_one_line, .timeout = 300) {
  const char *prog = two_chases();
  static const struct {
    const char *cats, *want;
  } bad[] = {
      {"dmiss@no_such_function", "no_such_function"},
      {"dmiss@0x20-0x10", "bad pc range"},
      {"win@chase_a", "win cannot be scoped"},
      {"dmisx@chase_a", "unknown category"},
      {"dmiss@chase_a,dmiss@chase_a", "given twice"},
  };
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
    for (int v = 0; v < 2; v++) {
      char args[2000];
      snprintf(args, sizeof args, "%s --categories %s --skip 6M --max 1k -- %s " ARGS,
               v ? "validate" : "", bad[k].cats, prog);
      result r = icost(args);
      cr_assert_eq(r.status, 2, "%s: exit %d: %s", bad[k].cats, r.status, r.err);
      cr_assert_not_null(strstr(r.err, bad[k].want), "%s: %s", bad[k].cats, r.err);
      cr_assert_eq(strncmp(r.err, "icost: ", 7), 0, "%s", r.err);
      cr_assert_eq(strchr(r.err, '\n'), r.err + strlen(r.err) - 1, "one line: %s", r.err);
      free(r.out);
      free(r.err);
    }
  /* the methods without scopes say so */
  static const char *const refuse[] = {"--method profiler", "validate --methods graph,profiler"};
  for (int k = 0; k < 2; k++) {
    char args[2000];
    snprintf(args, sizeof args, "%s --categories dmiss@chase_a --skip 6M --max 1k -- %s " ARGS,
             refuse[k], prog);
    result r = icost(args);
    cr_assert_eq(r.status, 2, "%s: exit %d: %s", refuse[k], r.status, r.err);
    cr_assert_not_null(strstr(r.err, "scoped categories"), "%s", r.err);
    free(r.out);
    free(r.err);
  }
}
