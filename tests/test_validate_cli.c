/* test_validate_cli.c: `icost validate` end to end: the report's shape in
 * YAML and text over one program and a suite manifest, a faulting guest, and
 * usage errors. The programs are compiled at test time with
 * riscv64-linux-gnu-gcc -static (skipped with a message without it). How
 * close the methods come on single-bottleneck programs is
 * tests/test_multisim_model.c. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <yaml.h>

#include "test_guests.h"
#include "test_util.h"

/* Runs one instruction loop, then an illegal instruction (the all-zero
   word is defined illegal in RISC-V). */
static const char fault_src[] =
    "int main(void) {\n"
    "  volatile long s = 0;\n"
    "  for (long i = 0; i < 20000; i++) s += i;\n"
    "  __asm__ volatile(\".4byte 0\");\n"
    "  return (int)s;\n"
    "}\n";

/* Compiles src into ICOST_BUILD_DIR/h6_<name>; returns the path or NULL
   (and skips the test) without a cross compiler. */
static char *compile(const char *name, const char *src) {
  static char path[4][512];
  static int slot;
  char *out = path[slot++ % 4];
  if (system("riscv64-linux-gnu-gcc --version >/dev/null 2>&1") != 0) {
    cr_skip_test("riscv64-linux-gnu-gcc not found: validate CLI tests skipped");
    return NULL;
  }
  snprintf(out, 512, "%s/h6_%s", ICOST_BUILD_DIR, name);
  cr_assert(t_cross_build(out, src, NULL), "cross compile of %s failed", name);
  return out;
}

typedef struct result {
  int status;
  char *out, *err;
} result;

/* The file's text; "" if it is missing. */
static char *slurp(const char *path) {
  char *b = t_slurp(path, NULL);
  return b ? b : strdup("");
}

static result run_icost(const char *args) {
  char cmd[2048], o[600], e[600];
  snprintf(o, sizeof o, "%s/h6_out.%d", ICOST_BUILD_DIR, (int)getpid());
  snprintf(e, sizeof e, "%s/h6_err.%d", ICOST_BUILD_DIR, (int)getpid());
  snprintf(cmd, sizeof cmd, "%s validate %s >%s 2>%s", ICOST_BINARY, args, o, e);
  int st = system(cmd);
  result r = {WIFEXITED(st) ? WEXITSTATUS(st) : -1, slurp(o), slurp(e)};
  unlink(o);
  unlink(e);
  return r;
}

/* The value of `key` inside the entry whose set is exactly `set` (e.g.
   "dmiss") of the first workload of a validate YAML report; NAN if absent. */
static double entry_value(const char *yaml, const char *set, const char *key) {
  char needle[128];
  snprintf(needle, sizeof needle, "- set:\n    - %s\n    ", set);
  const char *p = yaml;
  /* the set's only item: the next line is a key, not another item */
  while ((p = strstr(p, needle)) && p[strlen(needle)] == '-') p++;
  if (!p) return NAN;
  p += strlen(needle) - 5; /* the newline before the first key */
  char k[96];
  snprintf(k, sizeof k, "\n    %s: ", key);
  const char *end = strstr(p, "- set:");
  const char *q = strstr(p, k);
  if (!q || (end && q > end)) return NAN;
  return atof(q + strlen(k));
}

/* The document must parse as YAML. */
static void assert_yaml(const char *doc) {
  yaml_parser_t p;
  yaml_document_t d;
  yaml_parser_initialize(&p);
  yaml_parser_set_input_string(&p, (const unsigned char *)doc, strlen(doc));
  int ok = yaml_parser_load(&p, &d);
  cr_assert(ok, "report is not YAML: %s", doc);
  yaml_document_delete(&d);
  yaml_parser_delete(&p);
}

static double method_mean_error(const char *yaml, const char *method) {
  char k[128];
  snprintf(k, sizeof k, "\n  %s:\n    mean_error_percent: ", method);
  const char *q = strstr(yaml, k);
  return q ? atof(q + strlen(k)) : NAN;
}

Test(validate_cli, branch_yaml_report) {
  char *prog = compile("branch_yaml", t_guest_random_branch);
  char args[1024];
  snprintf(args, sizeof args,
           "--categories bmisp,shalu,dl1 --methods graph,graphfrag --fragments 20 "
           "--frag-length 1000 -j 2 --skip 20k --warm 10k --max 60k --format yaml -- %s "
           "100000",
           prog);
  result r = run_icost(args);
  cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
  assert_yaml(r.out);
  double ms = entry_value(r.out, "bmisp", "multisim"), gr = entry_value(r.out, "bmisp", "graph");
  cr_assert_gt(ms, 30, "bmisp must dominate the random branch: %.1f%%\n%s", ms, r.out);
  cr_assert_lt(fabs(gr - ms), 3.0, "bmisp: graph %.1f%% vs multisim %.1f%%", gr, ms);
  cr_assert_lt(method_mean_error(r.out, "graph"), 10.0, "%s", r.out);
  /* graphfrag is there, with its interval */
  cr_assert(strstr(r.out, "graphfrag_ci:\n    - "), "%s", r.out);
  free(r.out);
  free(r.err);
}

/* validate's graphfrag column is `icost --method graphfrag` with the same
   options, length and warm-up included (default 60 ROBs and 4 ROBs, or
   --frag-length and --frag-warmup). */
Test(validate_cli, graphfrag_column_matches_icost) {
  char *prog = compile("branch_gf", t_guest_random_branch);
  const char *opts[] = {"--frag-length 1000", "--frag-length 1000 --frag-warmup 0",
                        "--frag-length 1000 --frag-warmup 300", ""};
  const char *shape[] = {"length: 1000\n  warmup: 256\n", "length: 1000\n  warmup: 0\n",
                         "length: 1000\n  warmup: 300\n", "length: 3840\n  warmup: 256\n"};
  for (int k = 0; k < 4; k++) {
    char args[1400], cmd[4096], path[600];
    snprintf(args, sizeof args,
             "--categories bmisp,shalu --fragments 20 --skip 20k --warm 10k "
             "--max 60k %s --format yaml",
             opts[k]);
    char vargs[1600];
    snprintf(vargs, sizeof vargs, "--methods graphfrag -j 2 %s -- %s 100000", args, prog);
    result r = run_icost(vargs);
    cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
    double v = entry_value(r.out, "bmisp", "graphfrag");
    snprintf(path, sizeof path, "%s/h6_gf.%d", ICOST_BUILD_DIR, (int)getpid());
    snprintf(cmd, sizeof cmd, "%s --method graphfrag %s -- %s 100000 >%s 2>&1", ICOST_BINARY,
             args, prog, path);
    int rc = system(cmd);
    char *y = slurp(path);
    unlink(path);
    cr_assert_eq(rc, 0, "%s: %s", cmd, y);
    /* the baseline machine: ROB 64 */
    char want[200];
    snprintf(want, sizeof want, "fragments:\n  %s", shape[k]);
    cr_assert_not_null(strstr(y, want), "%s: want %s in\n%s", opts[k], want, y);
    const char *q = strstr(y, "- name: bmisp\n");
    cr_assert_not_null(q, "%s", y);
    q = strstr(q, "percent: ");
    cr_assert_not_null(q, "%s", y);
    double w = atof(q + strlen("percent: "));
    cr_assert(fabs(v - w) < 1e-3, "%s: validate graphfrag %.4f vs icost %.4f", opts[k], v, w);
    free(y);
    free(r.out);
    free(r.err);
  }
}

/* Fragments shorter than 3 windows of win with win chosen: a note on
   stderr, once; none at the default length or without win. */
Test(validate_cli, short_fragments_with_win_get_a_note) {
  char *prog = compile("branch_gf", t_guest_random_branch);
  const char *cats[] = {"win,bw", "win,bw", "bw,bmisp"};
  const char *len[] = {"--frag-length 1000", "", "--frag-length 1000"};
  for (int k = 0; k < 3; k++) {
    char args[1600];
    snprintf(args, sizeof args,
             "--methods graphfrag -j 2 --categories %s --fragments 10 %s --skip 20k --warm 10k "
             "--max 40k -- %s 100000",
             cats[k], len[k], prog);
    result r = run_icost(args);
    cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
    const char *note = strstr(r.err, "note: fragments of 1000 instructions are shorter than 3 "
                                     "windows of win (3840 on this machine)");
    if (k == 0) {
      cr_assert_not_null(note, "%s", r.err);
      cr_assert_null(strstr(note + 1, "note: fragments"), "once: %s", r.err);
    } else {
      cr_assert_null(strstr(r.err, "note: fragments"), "%s: %s", cats[k], r.err);
    }
    free(r.out);
    free(r.err);
  }
}

/* A run shorter than two default fragments of a large machine (ROB 512:
 * 30720) gets fragments of half its length, with the note where win is
 * chosen; before, graphfrag failed with "holds no complete window". */
Test(validate_cli, a_short_run_on_a_large_machine_gets_shorter_fragments) {
  char *prog = compile("branch_gf", t_guest_random_branch);
  const char *cats[] = {"win,bw", "bw,bmisp"};
  for (int k = 0; k < 2; k++) {
    char args[1600];
    snprintf(args, sizeof args,
             "--methods graphfrag,profiler --set core.rob=512 --categories %s --skip 20k --warm 10k "
             "--max 20k --format yaml -- %s 100000",
             cats[k], prog);
    result r = run_icost(args);
    cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
    cr_assert_not_null(strstr(r.out, "mean_error_percent"), "%s", r.out);
    const char *note = strstr(r.err, "note: fragments of 10000 instructions are shorter than 3 "
                                     "windows of win (30720 on this machine)");
    if (k == 0) cr_assert_not_null(note, "%s", r.err);
    else cr_assert_null(note, "%s", r.err);
    free(r.out);
    free(r.err);
  }
}

Test(validate_cli, suite_manifest_text) {
  char *prog = compile("branch_suite", t_guest_random_branch);
  char manifest[600], args[1400];
  snprintf(manifest, sizeof manifest, "%s/h6_manifest", ICOST_BUILD_DIR);
  FILE *f = fopen(manifest, "w");
  cr_assert_not_null(f);
  fprintf(f, "# two runs of the branch loop\nbr.a full %s 30000\nbr.b full,short %s 40000\n"
             "br.c short %s 50000\n", prog, prog, prog);
  fclose(f);
  snprintf(args, sizeof args,
           "--suite %s --categories bmisp,shalu --methods graph -j 2 --skip 10k --warm 5k "
           "--max 20k", manifest);
  result r = run_icost(args);
  cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
  cr_assert(strstr(r.out, "workload br.a:"), "%s", r.out);
  cr_assert(strstr(r.out, "workload br.b:"), "%s", r.out);
  cr_assert(!strstr(r.out, "workload br.c:"), "only `full` entries by default");
  cr_assert(strstr(r.out, "mean error against multisim in percent"), "%s", r.out);
  cr_assert(strstr(r.out, "multisim->graph"), "%s", r.out);
  cr_assert(strstr(r.out, "     br.a     br.b     mean\n"), "%s", r.out);
  free(r.out);
  free(r.err);
  snprintf(args, sizeof args,
           "--suite %s --suite-tag short --categories bmisp --methods graph -j 1 --skip 10k "
           "--warm 5k --max 10k --format csv", manifest);
  r = run_icost(args);
  cr_assert_eq(r.status, 0, "exit %d: %s", r.status, r.err);
  cr_assert(strstr(r.out, "\nbr.c,bmisp,graph,"), "%s", r.out);
  cr_assert(!strstr(r.out, "\nbr.a,"), "%s", r.out);
  free(r.out);
  free(r.err);
  snprintf(args, sizeof args, "--suite %s --suite-tag nosuch", manifest);
  r = run_icost(args);
  cr_assert_eq(r.status, 2);
  cr_assert(strstr(r.err, "icost: ") && strstr(r.err, "'nosuch'"), "%s", r.err);
  free(r.out);
  free(r.err);
}

Test(validate_cli, faulting_guest_names_the_subset) {
  char *prog = compile("fault", fault_src);
  char args[1024];
  snprintf(args, sizeof args, "--categories dl1,bmisp --methods graph -j 2 --warm 0 -- %s", prog);
  result r = run_icost(args);
  cr_assert_eq(r.status, 1, "exit %d: %s", r.status, r.err);
  cr_assert(strstr(r.err, "icost: multisim run {}: "), "%s", r.err);
  cr_assert(strstr(r.err, "illegal instruction"), "%s", r.err);
  cr_assert_eq(strchr(r.err, '\n'), strrchr(r.err, '\n'), "one line: %s", r.err);
  cr_assert_str_eq(r.out, "", "no partial table");
  free(r.out);
  free(r.err);
}

Test(validate_cli, usage_errors) {
  result r = run_icost("--methods graph,nosuch");
  cr_assert_eq(r.status, 2);
  cr_assert(strstr(r.err, "icost: --methods: unknown method 'nosuch'"), "%s", r.err);
  cr_assert(strstr(r.err, "(known: multisim, graph, graphfrag, profiler)"), "%s", r.err);
  free(r.out);
  free(r.err);
  r = run_icost("--categories dl1,dl1");
  cr_assert_eq(r.status, 2);
  cr_assert(strstr(r.err, "twice"), "%s", r.err);
  free(r.out);
  free(r.err);
  r = run_icost("--fragments 0");
  cr_assert_eq(r.status, 2);
  free(r.out);
  free(r.err);
  r = run_icost("--suite-tag short -- /bin/true");
  cr_assert_eq(r.status, 2);
  cr_assert(strstr(r.err, "give no program"), "%s", r.err);
  free(r.out);
  free(r.err);
  r = run_icost("--help");
  cr_assert_eq(r.status, 0);
  cr_assert(strstr(r.out, "mean error"));
  free(r.out);
  free(r.err);
}
