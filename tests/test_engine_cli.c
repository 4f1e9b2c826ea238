/* test_engine_cli.c: the `icost` breakdown command end to end.
 *
 *   - usage errors (categories, method, format, show): one line, exit 2;
 *   - the baseline invariant on the real model: for every short workload of
 *     the manifest and every machine in configs/, the recorded graph's
 *     critical path equals the simulated cycles and no record's node times
 *     differ from the model's stamps;
 *   - the graph agrees with the model's own idealization where the graph is
 *     exact by construction: a loop whose only bottleneck is mispredicted
 *     branches, cost(bmisp) from the graph vs t - t(bmisp) from `icost sim
 *     --ideal bmisp` (two model runs);
 *   - the breakdown's percents sum to 100 and its cycles to t.
 * Real runs need riscv64-linux-gnu-gcc (programs are compiled at test time
 * into the build directory); without it those tests are skipped. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_guests.h"
#include "test_cmd.h"

/* Runs icost with args; stderr goes to stdout so messages can be checked. */
static char *icost(const char *args, int *status) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "%s %s 2>&1", ICOST_BINARY, args);
  return run_cmd(cmd, status);
}

static void expect_usage_error(const char *args, const char *msg) {
  int st;
  char *out = icost(args, &st);
  cr_expect_eq(st, 2, "%s: exit %d: %s", args, st, out);
  cr_expect(strstr(out, msg) != NULL, "%s: '%s' not in: %s", args, msg, out);
  cr_expect(strncmp(out, "icost: ", 7) == 0, "%s: %s", args, out);
  cr_expect(strchr(out, '\n') == out + strlen(out) - 1, "one line: %s", out);
  free(out);
}

Test(icost_cli, usage_errors) {
  expect_usage_error("--categories dl1,nosuch", "unknown category 'nosuch'");
  expect_usage_error("--categories ''", "empty list");
  expect_usage_error("--categories dl1,,win", "empty item");
  expect_usage_error("--kernel sse9 --max 1000", "--kernel 'sse9': expected auto, portable, avx2 or avx512");
  expect_usage_error("--categories win,dl1,win", "'win' given twice");
  expect_usage_error("--categories dl1,win,bw,bmisp,dmiss,shalu,lgalu,imiss,dl1,win,bw,bmisp,dmiss",
                     "given twice");
  expect_usage_error("--method nosuch", "--method 'nosuch'");
  expect_usage_error("--format xml", "expected text, csv, yaml or json");
  expect_usage_error("--show some", "--show 'some'");
  expect_usage_error("--categories", "needs a value");
  expect_usage_error("--fragments 0", "positive");
}

Test(icost_cli, help_defines_every_number) {
  int st;
  char *out = icost("--help", &st);
  cr_assert_eq(st, 0);
  const char *words[] = {"cycles", "critical_path", "instructions", "percent", "base", "other",
                         "icost(U)", "cost({c})", "--categories", "--method", "imiss"};
  for (size_t k = 0; k < sizeof words / sizeof words[0]; k++)
    cr_expect(strstr(out, words[k]) != NULL, "--help lacks %s", words[k]);
  free(out);
}

/* ---- real runs -------------------------------------------------------- */

static void need_cross_compiler(void) {
  if (system("riscv64-linux-gnu-gcc --version >/dev/null 2>&1") != 0)
    cr_skip_test("riscv64-linux-gnu-gcc not found: model runs skipped");
}

/* Value of a top-level "key: N" line of YAML output (or "  key: N" when
 * indent is 2). */
static double yaml_num(const char *y, const char *key, int indent) {
  char pat[128];
  snprintf(pat, sizeof pat, "\n%*s%s: ", indent, "", key);
  const char *p = strstr(y, pat);
  if (!p && indent == 0 && strncmp(y, pat + 1, strlen(pat + 1)) == 0) p = y - 1;
  cr_assert_not_null(p, "no '%s' in:\n%s", key, y);
  return strtod(p + strlen(pat), NULL);
}

/* The end of the top-level entry starting at p: the next line that starts
 * a top-level key, or the end of y. */
static const char *yaml_entry_end(const char *p) {
  for (const char *q = strchr(p + 1, '\n'); q; q = strchr(q + 1, '\n'))
    if (q[1] >= 'a' && q[1] <= 'z') return q;
  return p + strlen(p);
}

/* Sums percent and cycles over the breakdown entries of YAML output (a
 * block list of mappings: "- name: N", "  cycles: C", "  percent: P"). */
static void yaml_sums(const char *y, double *pct, double *cyc, int *n) {
  *pct = *cyc = 0;
  *n = 0;
  const char *p = strstr(y, "\nbreakdown:\n");
  cr_assert_not_null(p, "%s", y);
  const char *end = yaml_entry_end(p + 1);
  for (; (p = strstr(p, "\n- name: ")) && p < end;) {
    const char *c = strstr(p, "\n  cycles: "), *q = strstr(p, "\n  percent: ");
    cr_assert(c && q);
    *cyc += strtod(c + 11, NULL);
    *pct += strtod(q + 12, NULL);
    (*n)++;
    p++;
  }
}

/* Cycles of the breakdown entry named `name` in YAML output. */
static double yaml_entry_cycles(const char *y, const char *name) {
  char pat[128];
  snprintf(pat, sizeof pat, "\n- name: %s\n", name);
  const char *p = strstr(y, pat);
  cr_assert_not_null(p, "no entry %s", name);
  const char *c = strstr(p, "\n  cycles: ");
  cr_assert_not_null(c);
  return strtod(c + 11, NULL);
}

/* The short workloads are built into BUILD/h4_workloads from the suite's
 * sources (a program = src/NAME.c + src/kernels.c) unless already there. */
static const char *workload_dir(void) {
  static char dir[1024];
  snprintf(dir, sizeof dir, "%s/h4_workloads", ICOST_BUILD_DIR);
  const char *progs[] = {"chase", "stream", "branchy", "depchain", "stencil", "mix"};
  char cmd[16384];
  snprintf(cmd, sizeof cmd, "mkdir -p %s", dir);
  cr_assert_eq(system(cmd), 0);
  for (size_t k = 0; k < sizeof progs / sizeof progs[0]; k++) {
    snprintf(cmd, sizeof cmd,
             "test -x %s/%s || riscv64-linux-gnu-gcc -O2 -static -o %s/%s.tmp "
             "%s/bench/workloads/src/%s.c %s/bench/workloads/src/kernels.c -lm && "
             "{ test -x %s/%s || mv %s/%s.tmp %s/%s; }",
             dir, progs[k], dir, progs[k], ICOST_SOURCE_DIR, progs[k], ICOST_SOURCE_DIR, dir,
             progs[k], dir, progs[k], dir, progs[k]);
    cr_assert_eq(system(cmd), 0, "building workload %s failed", progs[k]);
  }
  return dir;
}

/* Every short workload of the manifest on every config: the graph's
 * critical path equals the simulated cycles, zero mismatching records. The
 * programs come from the suite's directory ($ICOST_WORKLOADS, else
 * SOURCE/build/workloads, made by bench/workloads/build.sh) when built there;
 * the suite's own kernels are otherwise compiled here; a workload that is
 * in neither place (bzip2, gzip, lua need the full suite build) is skipped
 * with a note. */
Test(icost_cli, baseline_invariant_on_short_workloads_and_configs, .timeout = 300) {
  need_cross_compiler();
  const char *own = workload_dir();
  char suite[1024];
  const char *env = getenv("ICOST_WORKLOADS");
  snprintf(suite, sizeof suite, "%s", env && *env ? env : ICOST_SOURCE_DIR "/build/workloads");
  char path[1024];
  snprintf(path, sizeof path, "%s/bench/workloads/manifest", ICOST_SOURCE_DIR);
  FILE *m = fopen(path, "r");
  cr_assert_not_null(m);
  char line[1024], names[32][64], dirs[32][1024];
  int nw = 0, skipped = 0;
  while (fgets(line, sizeof line, m) && nw < 32) {
    char name[64], tags[128], cmd0[512];
    if (sscanf(line, "%63s %127s %511s", name, tags, cmd0) != 3 || name[0] == '#') continue;
    int is_short = 0;
    char *save = NULL;
    for (char *t = strtok_r(tags, ",", &save); t; t = strtok_r(NULL, ",", &save))
      if (!strcmp(t, "short")) is_short = 1;
    if (!is_short) continue;
    const char *prog = strncmp(cmd0, "{W}/", 4) == 0 ? cmd0 + 4 : cmd0;
    char p1[1600], p2[1600];
    snprintf(p1, sizeof p1, "%s/%s", suite, prog);
    snprintf(p2, sizeof p2, "%s/%s", own, prog);
    if (access(p1, X_OK) == 0)
      snprintf(dirs[nw], sizeof dirs[nw], "%s", suite);
    else if (access(p2, X_OK) == 0)
      snprintf(dirs[nw], sizeof dirs[nw], "%s", own);
    else {
      fprintf(stderr, "note: %s skipped (%s not built; bash bench/workloads/build.sh)\n", name,
              prog);
      skipped++;
      continue;
    }
    strcpy(names[nw++], name);
  }
  fclose(m);
  cr_assert_geq(nw, 6, "the suite's own kernels must run (%d skipped)", skipped);
  char cmd[8192];
  snprintf(cmd, sizeof cmd, "ls %s/configs/*.yaml", ICOST_SOURCE_DIR);
  int st;
  char *configs = run_cmd(cmd, &st);
  cr_assert_eq(st, 0);
  int runs = 0;
  char *save = NULL;
  for (char *cfg = strtok_r(configs, "\n", &save); cfg; cfg = strtok_r(NULL, "\n", &save))
    for (int w = 0; w < nw; w++) {
      snprintf(cmd, sizeof cmd,
               "ICOST_WORKLOADS=%.1000s %s --config %.1000s --workload %.60s --skip 20000 --warm 10000 "
               "--max 25000 --categories dl1,win,bw,bmisp,dmiss --show all --format yaml 2>&1",
               dirs[w], ICOST_BINARY, cfg, names[w]);
      char *y = run_cmd(cmd, &st);
      cr_assert_eq(st, 0, "%s on %s: exit %d: %s", names[w], cfg, st, y);
      double cycles = yaml_num(y, "cycles", 0), cp = yaml_num(y, "critical_path", 0);
      cr_expect_eq(cycles, cp, "%s on %s: critical path %.0f != cycles %.0f", names[w], cfg, cp,
                   cycles);
      cr_expect_eq(yaml_num(y, "baseline_mismatches", 2), 0, "%s on %s: mismatching records",
                   names[w], cfg);
      cr_expect_gt(yaml_num(y, "instructions", 0), 0);
      double pct, cyc;
      int n;
      yaml_sums(y, &pct, &cyc, &n);
      cr_expect_eq(n, 32, "2^5 entries (show: every subset with base)");
      cr_expect_float_eq(pct, 100.0, 1e-9, "%s on %s: percents sum to %.12f", names[w], cfg, pct);
      cr_expect_eq(cyc, cycles, "%s on %s: entry cycles sum to %.0f of %.0f", names[w], cfg, cyc,
                   cycles);
      free(y);
      runs++;
    }
  cr_assert_geq(runs, 5 * 6);
  free(configs);
}

/* A loop whose only bottleneck is a random branch: the graph's cost(bmisp)
 * (dropping PD edges) against the model rerun with perfect prediction.
 * Stated tolerance: within 3% of t (the graph does not model every effect
 * of wrong-path-free refetch exactly, e.g. fetch-queue occupancy). */
Test(icost_cli, graph_bmisp_agrees_with_model_idealization, .timeout = 120) {
  need_cross_compiler();
  char src[1024], prog[1024], cmd[4096];
  snprintf(src, sizeof src, "%s/h4_bmisp.c", ICOST_BUILD_DIR);
  snprintf(prog, sizeof prog, "%s/h4_bmisp", ICOST_BUILD_DIR);
  FILE *f = fopen(src, "w");
  cr_assert_not_null(f);
  fputs(t_guest_random_branch, f);
  fclose(f);
  snprintf(cmd, sizeof cmd, "riscv64-linux-gnu-gcc -O2 -static -o %s %s", prog, src);
  cr_assert_eq(system(cmd), 0);
  int st;
  snprintf(cmd, sizeof cmd,
           "%s --categories bmisp,dmiss --skip 20000 --max 100000 --format yaml -- %s 30000 2>&1",
           ICOST_BINARY, prog);
  char *g = run_cmd(cmd, &st);
  cr_assert_eq(st, 0, "%s", g);
  snprintf(cmd, sizeof cmd,
           "%s sim --ideal bmisp --skip 20000 --max 100000 --format yaml -- %s 30000 2>&1",
           ICOST_BINARY, prog);
  char *s = run_cmd(cmd, &st);
  cr_assert_eq(st, 0, "%s", s);
  double t = yaml_num(g, "cycles", 0), t_ideal = yaml_num(s, "cycles", 0);
  double cost_graph = yaml_entry_cycles(g, "bmisp");
  double cost_model = t - t_ideal;
  cr_assert_gt(cost_model, 0.3 * t, "mispredictions must dominate: %.0f of %.0f", cost_model, t);
  fprintf(stderr, "bmisp loop: t %.0f, graph cost(bmisp) %.0f, model t - t(bmisp) %.0f\n", t,
          cost_graph, cost_model);
  cr_expect_lt(fabs(cost_graph - cost_model), 0.03 * t,
               "graph cost(bmisp) %.0f vs model %.0f (t %.0f)", cost_graph, cost_model, t);
  cr_expect_eq(yaml_num(g, "baseline_mismatches", 2), 0);
  free(g);
  free(s);
}

/* With more than four categories the table is solved (graph) or simulated
 * (multisim) from the subsets it shows alone (ic_breakdown_needed): the
 * same singletons, pairs with the first category and base as with --show
 * all, and `other` equal to the sum of the interactions --show all lists
 * beyond those. */
Test(icost_cli, shown_subsets_alone_give_the_same_table, .timeout = 300) {
  need_cross_compiler();
  const char *dir = workload_dir();
  static const char *const cats[] = {"win", "dl1", "bmisp", "dmiss", "shalu", "bw"};
  static const char *const methods[] = {"graph", "multisim"};
  for (size_t m = 0; m < 2; m++) {
    char args[2048];
    int st;
    const char *fmt = "--method %s --categories win,dl1,bmisp,dmiss,shalu,bw --max 30000 "
                      "--format yaml %s -- %s/mix 1";
    snprintf(args, sizeof args, fmt, methods[m], "", dir);
    char *some = icost(args, &st);
    cr_assert_eq(st, 0, "%s", some);
    snprintf(args, sizeof args, fmt, methods[m], "--show all", dir);
    char *all = icost(args, &st);
    cr_assert_eq(st, 0, "%s", all);
    double pct, total_all, listed = 0;
    int n;
    yaml_sums(all, &pct, &total_all, &n);
    cr_assert_eq(n, 64, "%s: every subset and base", methods[m]);
    for (int k = 0; k < 6; k++) {
      char name[64];
      for (int pair = 0; pair < 2; pair++) {
        if (pair && k == 0) continue;
        snprintf(name, sizeof name, "%s%s%s", pair ? "win+" : "", pair ? "" : cats[k],
                 pair ? cats[k] : "");
        const double c = yaml_entry_cycles(some, name);
        cr_assert_eq(c, yaml_entry_cycles(all, name), "%s, %s", methods[m], name);
        listed += c;
      }
    }
    cr_assert_eq(yaml_entry_cycles(some, "base"), yaml_entry_cycles(all, "base"), "%s", methods[m]);
    const double other = total_all - listed - yaml_entry_cycles(all, "base");
    cr_assert_float_eq(yaml_entry_cycles(some, "other"), other, 1e-6, "%s", methods[m]);
    free(some);
    free(all);
  }
}

/* The graph run's threads (-j: the model alone; the model and the solver
 * on a record pipe; and the solver's own worker beside them) and the
 * solver's kernels (each one this CPU runs) give the same table, every
 * subset, to the cycle. */
Test(icost_cli, every_thread_layout_and_kernel_gives_the_same_times, .timeout = 300) {
  need_cross_compiler();
  const char *dir = workload_dir();
  /* the third: scoped categories, whose drops (ic_graph_rec.sdrop) travel
     in the record pipe's packed records like every other field */
  static const char *const cats[] = {"dl1,win,bmisp", "dl1,win,bw,bmisp,dmiss,shalu,lgalu,imiss",
                                     "dmiss@0x0-0xffffffffffffffff,bmisp@0x0-0xffffffffffffffff,win"};
  __builtin_cpu_init();
  const struct {
    int j;
    const char *kernel;
    int runs;
  } modes[] = {{1, "auto", 1}, {2, "auto", 1}, {3, "auto", 1}, {2, "portable", 1},
               {2, "avx2", __builtin_cpu_supports("avx2")},
               {2, "avx512", __builtin_cpu_supports("avx2") && __builtin_cpu_supports("avx512f")}};
  for (size_t c = 0; c < sizeof cats / sizeof cats[0]; c++) {
    char *first = NULL;
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
      if (!modes[m].runs) continue;
      char args[2048];
      int st;
      snprintf(args, sizeof args, "-j %d --kernel %s --categories %s --show all --format csv --max 60000 -- %s/mix 1",
               modes[m].j, modes[m].kernel, cats[c], dir);
      char *out = icost(args, &st);
      cr_assert_eq(st, 0, "%s: %s", args, out);
      cr_assert(strstr(out, "base,") != NULL, "%s: %s", args, out);
      if (!first) first = out;
      else {
        cr_expect_str_eq(out, first, "%s against the first", args);
        free(out);
      }
    }
    free(first);
  }
}
