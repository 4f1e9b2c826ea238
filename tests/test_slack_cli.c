/* test_slack_cli.c: `icost critical` and `icost graph` end to end on a small
 * RISC-V program built with riscv64-linux-gnu-gcc -static (skipped with a
 * message without it): a pointer chase through a random cyclic permutation
 * (each load needs the previous one) with a branch on the loaded value.
 *
 * What is checked and why it is known independently: the chase loads form
 * a serial dependence chain that every iteration waits for, so their
 * execute nodes are critical almost always; per-pc rows add up to the
 * totals; the critical-path length equals the cycles `icost sim` reports
 * for the same run (a run without the graph hook); the exported graph's
 * longest paths (igraph, topological order) reproduce the model's stamps. */
#include <criterion/criterion.h>
#include <igraph.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export.h"
#include "graph_rec.h"
#include "test_igraph_util.h"

static const char *prog_src =
    "#include <stdlib.h>\n"
    "int main(int argc, char **argv) {\n"
    "  int n = atoi(argv[1]), steps = atoi(argv[2]);\n"
    "  int *next = malloc(sizeof(int) * n);\n"
    "  for (int i = 0; i < n; i++) next[i] = i;\n"
    "  unsigned x = 12345;\n"
    "  for (int i = n - 1; i > 0; i--) {\n"
    "    x = x * 1103515245 + 12345; int j = (x >> 8) % i;\n"
    "    int t = next[i]; next[i] = next[j]; next[j] = t; }\n"
    "  int p = 0; long sum = 0;\n"
    "  for (int s = 0; s < steps; s++) {\n"
    "    p = next[p];\n"
    "    if ((p * 2654435761u) >> 31) sum += p; else sum -= 3; }\n"
    "  return (int)(sum & 1);\n"
    "}\n";

static const char *program(void) {
  static char exe[512];
  snprintf(exe, sizeof exe, ICOST_BUILD_DIR "/test_slack_cli_prog");
  struct stat st;
  if (stat(exe, &st) == 0) return exe;
  char src[600], cmd[2400];
  snprintf(src, sizeof src, "%s.%d.c", exe, (int)getpid()); /* tests build it in parallel */
  FILE *f = fopen(src, "w");
  cr_assert(f);
  fputs(prog_src, f);
  fclose(f);
  snprintf(cmd, sizeof cmd, "riscv64-linux-gnu-gcc -O2 -static -o %s.tmp%d %s 2>/dev/null && mv %s.tmp%d %s",
           exe, (int)getpid(), src, exe, (int)getpid(), exe);
  const int ok = system(cmd) == 0;
  remove(src);
  return ok ? exe : NULL;
}

/* Runs `icost ARGS` with stdout and stderr into files of this process
 * (Criterion runs the tests in parallel processes: shared names let one
 * test read another's output); returns the exit code and the text of each
 * (caller frees). */
static int run(const char *args, char **out, char **err) {
  char cmd[4096], o[600], e[600];
  snprintf(o, sizeof o, ICOST_BUILD_DIR "/test_slack_cli.%d.out", (int)getpid());
  snprintf(e, sizeof e, ICOST_BUILD_DIR "/test_slack_cli.%d.err", (int)getpid());
  snprintf(cmd, sizeof cmd, "%s %s >%s 2>%s", ICOST_BINARY, args, o, e);
  int rc = system(cmd);
  const char *files[2] = {o, e};
  char **dst[2] = {out, err};
  for (int k = 0; k < 2; k++) {
    if (!dst[k]) continue;
    FILE *f = fopen(files[k], "r");
    cr_assert(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    *dst[k] = calloc((size_t)n + 1, 1);
    cr_assert_eq(fread(*dst[k], 1, (size_t)n, f), (size_t)n);
    fclose(f);
  }
  remove(o);
  remove(e);
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static uint64_t yaml_u64(const char *text, const char *key) {
  const char *p = strstr(text, key);
  cr_assert(p, "no %s in\n%s", key, text);
  return strtoull(p + strlen(key), NULL, 10);
}

#define STEPS 3000 /* chase steps: instances of the chase load */
#define PROG_ARGS "16384 3000"

Test(slack_cli, help_defines_every_column) {
  char *out;
  cr_assert_eq(run("critical --help", &out, NULL), 0);
  static const char *words[] = {"pc ",  "insn", "count", "crit_D .. crit_C", "mean_slack", "miss_cycles",
                                "crit_miss_cycles", "mispredicts", "crit_misp_cycles", "cost_pct",
                                "--window", "--top", "--format"};
  for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) cr_assert(strstr(out, words[i]), "no '%s'", words[i]);
  free(out);
  cr_assert_eq(run("graph --help", &out, NULL), 0);
  cr_assert(strstr(out, "--from") && strstr(out, "--ideal") && strstr(out, "start"));
  for (int k = 0; k < IC_EDGE_KIND_COUNT; k++) {
    char kind[16];
    snprintf(kind, sizeof kind, " %s", ic_edge_names[k]);
    cr_assert(strstr(out, kind), "graph --help does not name the %s edge", ic_edge_names[k]);
  }
  free(out);
}

Test(slack_cli, bad_options_are_one_line_errors) {
  static const char *bad[][2] = {
      {"critical --window 1", "--window 1"},
      {"critical --format xml", "'xml'"},
      {"critical --top lots", "--top 'lots'"},
      {"graph --from 0", "--count M are required"},
      {"graph --from 0 --count 0", "--count 0"},
      {"graph --from 0 --count 5 --ideal dmiss,nope", "'nope'"},
      {"graph --from 0 --count 5 --ideal dmiss,dmiss", "twice"},
      {"graph --from 0 --count 5 --run-ideal win,nope", "--run-ideal: unknown category 'nope'"},
      {"graph --from 0 --count 5 --format svg", "'svg'"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char *err;
    cr_assert_eq(run(bad[i][0], NULL, &err), 2, "%s", bad[i][0]);
    cr_assert(strncmp(err, "icost: ", 7) == 0 && strstr(err, bad[i][1]), "%s: %s", bad[i][0], err);
    cr_assert_eq(strchr(err, '\n'), err + strlen(err) - 1, "%s: not one line: %s", bad[i][0], err);
    free(err);
  }
}

Test(slack_cli, critical_csv_adds_up_and_finds_the_chase) {
  const char *exe = program();
  if (!exe) cr_skip_test("riscv64-linux-gnu-gcc cannot build the test program");
  char args[1024], *out, *err;
  snprintf(args, sizeof args, "critical --top 0 --format csv -- %s " PROG_ARGS, exe);
  cr_assert_eq(run(args, &out, &err), 0, "%s", err);
  uint64_t sum_count = 0, sum_miss = 0, sum_misp = 0, tot_count = 0, tot_miss = 0, tot_misp = 0;
  int rows = 0, chase_rank = 0, header = 0;
  double chase_e = 0;
  char *save;
  for (char *line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    /* "#" records: the provenance and the totals */
    uint64_t v;
    if (sscanf(line, "#,totals.instructions,%" SCNu64, &v) == 1) tot_count = v;
    if (sscanf(line, "#,totals.crit_miss_cycles,%" SCNu64, &v) == 1) tot_miss = v;
    if (sscanf(line, "#,totals.crit_misp_cycles,%" SCNu64, &v) == 1) tot_misp = v;
    if (line[0] == '#') continue;
    if (!header) {
      cr_assert(strncmp(line, "rank,pc,insn,count,crit_D", 25) == 0, "%s", line);
      header = 1;
      continue;
    }
    /* the insn field is quoted when it holds a comma: split around it */
    char *f1 = strchr(line, ','), *f2 = f1 ? strchr(f1 + 1, ',') : NULL;
    cr_assert(f2, "%s", line);
    char *insn = f2 + 1, *rest;
    if (*insn == '"') {
      char *q2 = strchr(insn + 1, '"');
      cr_assert(q2, "%s", line);
      rest = q2 + 1;
    } else
      rest = strchr(insn, ',');
    cr_assert(rest, "%s", line);
    uint64_t count, miss, cmiss, misp, cmisp;
    double d, r, e, p, c, slack, cost;
    cr_assert_eq(sscanf(rest, ",%" SCNu64 ",%lf,%lf,%lf,%lf,%lf,%lf,%" SCNu64 ",%" SCNu64 ",%" SCNu64 ",%" SCNu64 ",%lf",
                        &count, &d, &r, &e, &p, &c, &slack, &miss, &cmiss, &misp, &cmisp, &cost),
                 12, "%s", line);
    cr_assert(cmiss <= miss && e >= 0 && e <= 1 && d <= 1 && c <= 1, "%s", line);
    rows++;
    sum_count += count;
    sum_miss += cmiss;
    sum_misp += cmisp;
    if (!chase_rank && strncmp(insn, "\"lw ", 4) == 0 && count == STEPS) {
      chase_rank = rows;
      chase_e = e;
    }
  }
  cr_assert_gt(rows, 10);
  cr_assert_eq(sum_count, tot_count);
  cr_assert_eq(sum_miss, tot_miss);
  cr_assert_eq(sum_misp, tot_misp);
  cr_assert(chase_rank >= 1 && chase_rank <= 3, "the chase load (%d instances) is ranked %d", STEPS, chase_rank);
  cr_assert_geq(chase_e, 0.9, "the chase load's execute node is critical only %.3f of the time", chase_e);
  free(out);
  free(err);
}

Test(slack_cli, critical_path_length_equals_sim_cycles) {
  const char *exe = program();
  if (!exe) cr_skip_test("riscv64-linux-gnu-gcc cannot build the test program");
  char args[1024], *crit, *sim, *err;
  snprintf(args, sizeof args, "critical --window 512 --format yaml -- %s " PROG_ARGS, exe);
  cr_assert_eq(run(args, &crit, &err), 0, "%s", err);
  free(err);
  snprintf(args, sizeof args, "sim --format yaml -- %s " PROG_ARGS, exe);
  cr_assert_eq(run(args, &sim, &err), 0, "%s", err);
  free(err);
  cr_assert_eq(yaml_u64(crit, "\n  cycles: "), yaml_u64(sim, "cycles: "));
  cr_assert_eq(yaml_u64(crit, "\n  instructions: "), yaml_u64(sim, "instructions: "));
  cr_assert_eq(yaml_u64(crit, "stamp_mismatches: "), 0);
  cr_assert_eq(yaml_u64(crit, "window: "), 512);
  /* the same run's graph with misses idealized: shorter, no miss cycles left */
  char *ideal;
  snprintf(args, sizeof args, "critical --ideal dmiss --format yaml -- %s " PROG_ARGS, exe);
  cr_assert_eq(run(args, &ideal, &err), 0, "%s", err);
  free(err);
  cr_assert(strstr(ideal, "\nideal:\n- dmiss\n"), "%s", ideal);
  const char *totals = strstr(ideal, "\ntotals:\n");
  cr_assert(totals, "%s", ideal);
  cr_assert_lt(yaml_u64(totals, "\n  cycles: "), yaml_u64(sim, "cycles: "));
  cr_assert_eq(yaml_u64(totals, "\n  miss_cycles: "), 0);
  free(ideal);
  free(crit);
  free(sim);
}

Test(slack_cli, graph_export_reproduces_stamps) {
  const char *exe = program();
  if (!exe) cr_skip_test("riscv64-linux-gnu-gcc cannot build the test program");
  static const struct { unsigned from, count; } win[] = {{0, 600}, {2500, 400}, {9000, 300}};
  char path[600], args[2048], *err;
  snprintf(path, sizeof path, ICOST_BUILD_DIR "/test_slack_cli.graphml");
  ic_export_igraph_init();
  for (size_t w = 0; w < sizeof win / sizeof win[0]; w++) {
    remove(path);
    snprintf(args, sizeof args, "graph --from %u --count %u -o %s -- %s " PROG_ARGS, win[w].from, win[w].count,
             path, exe);
    cr_assert_eq(run(args, NULL, &err), 0, "%s", err);
    free(err);
    FILE *f = fopen(path, "r");
    cr_assert(f);
    igraph_t g;
    cr_assert_eq(igraph_read_graph_graphml(&g, f, 0), IGRAPH_SUCCESS);
    fclose(f);
    cr_assert_eq(igraph_vcount(&g), 5 * (igraph_integer_t)win[w].count + 1);
    cr_assert_eq(GAN(&g, "first_seq"), win[w].from);
    double *a = t_igraph_longest(&g);
    for (igraph_integer_t v = 0; v < 5 * (igraph_integer_t)win[w].count; v++) {
      double t = VAN(&g, "t", v);
      if (win[w].from == 0)
        cr_assert_eq(a[v], t, "%s: longest path %.0f, stamp %.0f", VAS(&g, "name", v), a[v], t);
      else
        cr_assert_leq(a[v], t, "%s", VAS(&g, "name", v));
    }
    free(a);
    igraph_destroy(&g);
  }
  /* an idealized export is never longer than the baseline one */
  snprintf(args, sizeof args, "graph --from 0 --count 600 --ideal dmiss,bmisp,dl1 -o %s -- %s " PROG_ARGS, path,
           exe);
  cr_assert_eq(run(args, NULL, &err), 0, "%s", err);
  free(err);
  FILE *f = fopen(path, "r");
  igraph_t g;
  cr_assert_eq(igraph_read_graph_graphml(&g, f, 0), IGRAPH_SUCCESS);
  fclose(f);
  double *a = t_igraph_longest(&g);
  igraph_integer_t last_c = 5 * 599 + 4;
  cr_assert_lt(a[last_c], VAN(&g, "t", last_c), "idealizing misses and mispredictions saves nothing");
  cr_assert_str_eq(GAS(&g, "ideal"), "dl1,bmisp,dmiss");
  double base_last = VAN(&g, "t", last_c);
  free(a);
  igraph_destroy(&g);
  /* --run-ideal: the graph of the run on the machine with misses
     idealized, whose own longest paths reproduce its stamps, earlier than
     the baseline machine's */
  snprintf(args, sizeof args, "graph --from 0 --count 600 --run-ideal dmiss -o %s -- %s " PROG_ARGS, path, exe);
  cr_assert_eq(run(args, NULL, &err), 0, "%s", err);
  free(err);
  f = fopen(path, "r");
  cr_assert_eq(igraph_read_graph_graphml(&g, f, 0), IGRAPH_SUCCESS);
  fclose(f);
  a = t_igraph_longest(&g);
  for (igraph_integer_t v = 0; v < 5 * 600; v++)
    cr_assert_eq(a[v], VAN(&g, "t", v), "%s: longest path %.0f, stamp %.0f", VAS(&g, "name", v), a[v],
                 VAN(&g, "t", v));
  cr_assert_lt(VAN(&g, "t", last_c), base_last, "the chase is no faster without misses");
  free(a);
  igraph_destroy(&g);
  remove(path);
}

Test(slack_cli, graph_output_all_or_nothing) {
  const char *exe = program();
  if (!exe) cr_skip_test("riscv64-linux-gnu-gcc cannot build the test program");
  char args[2048], *out, *err;
  snprintf(args, sizeof args, "graph --from 0 --count 5 -o /nonexistent_icost_dir/x.graphml -- %s " PROG_ARGS, exe);
  cr_assert_eq(run(args, NULL, &err), 2);
  cr_assert(strstr(err, "/nonexistent_icost_dir/x.graphml: cannot create"), "%s", err);
  free(err);
  /* past the end of the run: an error, and nothing on stdout */
  snprintf(args, sizeof args, "graph --from 100000000 --count 5 --format dot -- %s 64 10", exe);
  cr_assert_eq(run(args, &out, &err), 2);
  cr_assert(strstr(err, "before instruction 100000000"), "%s", err);
  cr_assert_eq(out[0], 0);
  free(out);
  free(err);
  snprintf(args, sizeof args, "graph --from 3 --count 4 --format dot -- %s 64 10", exe);
  cr_assert_eq(run(args, &out, &err), 0, "%s", err);
  cr_assert(strstr(out, "digraph") && strstr(out, "    D3 [") && strstr(out, "    C6 [") && !strstr(out, "    D7 ["),
            "%s", out);
  free(out);
  free(err);
}

/* The suite's short workloads, when built (bash bench/workloads/build.sh):
 * the critical-path length of `critical` equals `sim`'s cycles with no
 * stamp mismatch, and exported windows from the start reproduce the stamps
 * while later ones stay below them. */
Test(slack_cli, suite_short_workloads) {
  const char *dir = getenv("ICOST_WORKLOADS");
  static const char *names[][2] = {{"chase.short", "chase"}, {"branchy.short", "branchy"}, {"mix.short", "mix"}};
  char path[600], args[2048], gpath[600], *crit, *sim, *err;
  snprintf(gpath, sizeof gpath, ICOST_BUILD_DIR "/test_slack_cli_suite.graphml");
  int ran = 0;
  ic_export_igraph_init();
  for (size_t w = 0; w < sizeof names / sizeof names[0]; w++) {
    snprintf(path, sizeof path, "%s/%s", dir ? dir : ICOST_SOURCE_DIR "/build/workloads", names[w][1]);
    struct stat st;
    if (stat(path, &st) != 0) continue;
    ran++;
    snprintf(args, sizeof args, "critical --max 60000 --format yaml --workload %s", names[w][0]);
    cr_assert_eq(run(args, &crit, &err), 0, "%s: %s", names[w][0], err);
    free(err);
    snprintf(args, sizeof args, "sim --max 60000 --format yaml --workload %s", names[w][0]);
    cr_assert_eq(run(args, &sim, &err), 0, "%s: %s", names[w][0], err);
    free(err);
    cr_assert_eq(yaml_u64(crit, "\n  cycles: "), yaml_u64(sim, "cycles: "), "%s", names[w][0]);
    cr_assert_eq(yaml_u64(crit, "stamp_mismatches: "), 0, "%s", names[w][0]);
    free(crit);
    free(sim);
    static const unsigned from[] = {0, 40000};
    for (size_t f = 0; f < sizeof from / sizeof from[0]; f++) {
      remove(gpath);
      snprintf(args, sizeof args, "graph --from %u --count 1000 -o %s --workload %s", from[f], gpath, names[w][0]);
      cr_assert_eq(run(args, NULL, &err), 0, "%s: %s", names[w][0], err);
      free(err);
      FILE *fp = fopen(gpath, "r");
      cr_assert(fp);
      igraph_t g;
      cr_assert_eq(igraph_read_graph_graphml(&g, fp, 0), IGRAPH_SUCCESS);
      fclose(fp);
      double *a = t_igraph_longest(&g);
      for (igraph_integer_t v = 0; v < 5 * 1000; v++) {
        double t = VAN(&g, "t", v);
        if (from[f] == 0) cr_assert_eq(a[v], t, "%s: %s", names[w][0], VAS(&g, "name", v));
        else cr_assert_leq(a[v], t, "%s: %s", names[w][0], VAS(&g, "name", v));
      }
      free(a);
      igraph_destroy(&g);
    }
  }
  remove(gpath);
  if (!ran) cr_skip_test("workload suite not built (bash bench/workloads/build.sh)");
}
