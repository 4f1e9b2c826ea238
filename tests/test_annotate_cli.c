/* test_annotate_cli.c: `icost critical` and `icost annotate` name the
 * function and source line of the code, end to end, on the guest of
 * tests/test_where_guest.h (built with DWARF, without it, and stripped),
 * on a trace file of it and on an x86-64 build run through qemu-user.
 *
 * What is known independently: the guest's only hot code is hot_loop, and
 * its random branch (the HOT line) mispredicts half the time, so it carries
 * most of the critical misprediction cycles; the per-function rows of
 * annotate must add up to the critical miss and misprediction cycles that
 * `icost critical` totals for the same run. Every format is read back with
 * Python's csv, yaml and json. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_cmd.h"
#include "test_where_guest.h"

#define ITER "20000"

/* Runs `icost ARGS` with stdout into a file of this process; returns the
 * exit status; *err gets stderr (caller frees) when err is non-NULL. */
static int icost(const char *args, const char *out, char **err) {
  char cmd[4096], e[600];
  snprintf(e, sizeof e, "%s/annotate_cli.%d.err", ICOST_BUILD_DIR, (int)getpid());
  snprintf(cmd, sizeof cmd, "%s %s >%s 2>%s", ICOST_BINARY, args, out, e);
  int st = system(cmd);
  if (err) {
    int s2;
    snprintf(cmd, sizeof cmd, "cat %s", e);
    *err = run_cmd(cmd, &s2);
  }
  remove(e);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static char *out_path(const char *tag) {
  static char p[4][600];
  static int k;
  char *s = p[k++ % 4];
  snprintf(s, sizeof p[0], "%s/annotate_cli.%d.%s", ICOST_BUILD_DIR, (int)getpid(), tag);
  return s;
}

/* Runs the python3 program src with argv[1] = file; its stdout. */
static char *py(const char *src, const char *file) {
  char script[600], cmd[1400];
  snprintf(script, sizeof script, "%s/annotate_cli.%d.py", ICOST_BUILD_DIR, (int)getpid());
  FILE *f = fopen(script, "w");
  cr_assert_not_null(f);
  fputs(src, f);
  fclose(f);
  snprintf(cmd, sizeof cmd, "python3 %s %s 2>&1", script, file);
  int st;
  char *o = run_cmd(cmd, &st);
  remove(script);
  cr_assert_eq(st, 0, "python3: %s", o);
  return o;
}

static void need_python(void) {
  if (system("python3 -c 'import yaml, csv, json' 2>/dev/null") != 0)
    cr_skip_test("python3 with yaml not found");
}

/* The first instruction of `critical --format yaml`: function, file, line. */
static const char py_critical_first[] =
    "import sys, yaml\n"
    "d = yaml.safe_load(open(sys.argv[1]))\n"
    "i = d['instructions'][0]\n"
    "print(i['function'], i.get('file'), i.get('line'), i.get('offset') is not None)\n";

Test(annotate_cli, critical_names_function_file_and_line) {
  const char *exe = where_rv_dwarf();
  if (!exe) cr_skip_test(WHERE_RV_CC " not found");
  need_python();
  char args[1024], want[700];
  char *out = out_path("crit.yaml");
  snprintf(args, sizeof args, "critical --top 3 --format yaml -- %s " ITER, exe);
  cr_assert_eq(icost(args, out, NULL), 0);
  char *got = py(py_critical_first, out);
  snprintf(want, sizeof want, "hot_loop %s/where_guest/" WHERE_SRC_NAME " %u True\n", ICOST_BUILD_DIR,
           where_line_of("/* HOT */"));
  cr_assert_str_eq(got, want);
  free(got);
  /* csv: the same in its columns; text: in its where column */
  out = out_path("crit.csv");
  snprintf(args, sizeof args, "critical --top 3 --format csv -- %s " ITER, exe);
  cr_assert_eq(icost(args, out, NULL), 0);
  got = py("import sys, csv\n"
           "recs = [x for x in csv.reader(open(sys.argv[1])) if x and x[0] != '#']\n"
           "r = [dict(zip(recs[0], x)) for x in recs[1:]]\n"
           "print(r[0]['function'], r[0]['file'].endswith('/" WHERE_SRC_NAME "'), r[0]['line'], r[-1]['rank'])\n",
           out);
  snprintf(want, sizeof want, "hot_loop True %u 3\n", where_line_of("/* HOT */"));
  cr_assert_str_eq(got, want);
  free(got);
  out = out_path("crit.txt");
  snprintf(args, sizeof args, "critical --top 3 -- %s " ITER, exe);
  cr_assert_eq(icost(args, out, NULL), 0);
  snprintf(args, sizeof args, "grep -c ' hot_loop+0x[0-9a-f]* " WHERE_SRC_NAME ":%u$' %s", where_line_of("/* HOT */"),
           out);
  int st;
  got = run_cmd(args, &st);
  cr_assert_eq(st, 0, "no hot_loop+OFFSET " WHERE_SRC_NAME " line in the text table");
  free(got);
  remove(out);
}

Test(annotate_cli, critical_without_dwarf_and_stripped) {
  const char *nodebug = where_rv_nodebug(), *stripped = where_rv_stripped();
  if (!nodebug || !stripped) cr_skip_test(WHERE_RV_CC " not found");
  need_python();
  char args[1024];
  char *out = out_path("crit.yaml");
  snprintf(args, sizeof args, "critical --top 3 --format yaml -- %s " ITER, nodebug);
  cr_assert_eq(icost(args, out, NULL), 0);
  char *got = py(py_critical_first, out);
  cr_assert_str_eq(got, "hot_loop None None True\n");
  free(got);
  snprintf(args, sizeof args, "critical --top 3 --format yaml -- %s " ITER, stripped);
  cr_assert_eq(icost(args, out, NULL), 0);
  got = py(py_critical_first, out);
  cr_assert_str_eq(got, "None None None False\n");
  free(got);
  remove(out);
}

/* annotate's rows (yaml, --top 0) against its totals and critical's. */
static const char py_annotate_sum[] =
    "import sys, yaml\n"
    "d = yaml.safe_load(open(sys.argv[1]))\n"
    "c = yaml.safe_load(open(sys.argv[1] + '.crit'))['totals']\n"
    "rows = d['functions'] if d['by'] == 'function' else d['lines']\n"
    "s = sum(r['critical'] for r in rows)\n"
    "assert s == sum(r['dmiss'] + r['bmisp'] for r in rows)\n"
    "assert len(rows) == d['rows'], (len(rows), d['rows'])\n"
    "assert sum(r['static'] for r in rows) == d['static_pcs']\n"
    "assert sum(r['count'] for r in rows) == d['instructions'] == c['instructions']\n"
    "assert d['cycles'] == c['cycles']\n"
    "assert [r['rank'] for r in rows] == list(range(1, len(rows) + 1))\n"
    "assert all(a['critical'] >= b['critical'] for a, b in zip(rows, rows[1:]))\n"
    "print(s == d['critical_cycles'] == c['crit_miss_cycles'] + c['crit_misp_cycles'],\n"
    "      sum(r['dmiss'] for r in rows) == c['crit_miss_cycles'], s > 0,\n"
    "      rows[0]['function'], rows[0]['file'], rows[0]['line'], len(d['disassembly']) > 0,\n"
    "      all(x['rank'] == 1 for x in d['disassembly']) if d['by'] == 'function' else '')\n";

static char *annotate_sums(const char *exe, const char *by) {
  char args[1024], crit[700];
  char *out = out_path("ann.yaml");
  snprintf(crit, sizeof crit, "%s.crit", out);
  snprintf(args, sizeof args, "annotate --by %s --top 0 --format yaml -- %s " ITER, by, exe);
  cr_assert_eq(icost(args, out, NULL), 0);
  snprintf(args, sizeof args, "critical --top 1 --format yaml -- %s " ITER, exe);
  cr_assert_eq(icost(args, crit, NULL), 0);
  char *got = py(py_annotate_sum, out);
  remove(out);
  remove(crit);
  return got;
}

Test(annotate_cli, functions_add_up_to_critical_totals) {
  const char *exe = where_rv_dwarf();
  if (!exe) cr_skip_test(WHERE_RV_CC " not found");
  need_python();
  char *got = annotate_sums(exe, "function");
  cr_assert_str_eq(got, "True True True hot_loop None None True True\n");
  free(got);
}

Test(annotate_cli, lines_add_up_and_find_the_hot_line) {
  const char *exe = where_rv_dwarf();
  if (!exe) cr_skip_test(WHERE_RV_CC " not found");
  need_python();
  char *got = annotate_sums(exe, "line"), want[700];
  snprintf(want, sizeof want, "True True True hot_loop %s/where_guest/" WHERE_SRC_NAME " %u True \n", ICOST_BUILD_DIR,
           where_line_of("/* HOT */"));
  cr_assert_str_eq(got, want);
  free(got);
}

Test(annotate_cli, stripped_rows_are_pcs) {
  const char *exe = where_rv_stripped();
  if (!exe) cr_skip_test(WHERE_RV_CC " not found");
  need_python();
  char *got = annotate_sums(exe, "function");
  cr_assert_str_eq(got, "True True True None None None True True\n");
  free(got);
  char *out = out_path("ann.json");
  char args[1024];
  snprintf(args, sizeof args, "annotate --top 2 --format json -- %s " ITER, exe);
  cr_assert_eq(icost(args, out, NULL), 0);
  got = py("import sys, json\n"
           "d = json.load(open(sys.argv[1]))\n"
           "r = d['functions'][0]\n"
           "print(r['where'] == r['pc'], r['pc'].startswith('0x'), r['static'])\n",
           out);
  cr_assert_str_eq(got, "True True 1\n");
  free(got);
  remove(out);
}

/* csv: the "#" records, then the tables split at empty records. */
static const char py_csv[] =
    "import sys, csv\n"
    "recs = list(csv.reader(open(sys.argv[1], newline='')))\n"
    "meta = {r[1]: r[2:] for r in recs if r and r[0] == '#'}\n"
    "tables, cur = [], []\n"
    "for r in recs:\n"
    "    if r and r[0] == '#': continue\n"
    "    if not r:\n"
    "        tables.append(cur); cur = []\n"
    "    else: cur.append(r)\n"
    "tables.append(cur)\n"
    "rows = [dict(zip(tables[0][0], r)) for r in tables[0][1:]]\n"
    "dis = [dict(zip(tables[1][0], r)) for r in tables[1][1:]]\n"
    "print(len(tables), meta['provenance.argv'][1:], rows[0]['function'],\n"
    "      sum(int(r['critical']) for r in rows) == int(meta['critical_cycles'][0]),\n"
    "      all(d['insn'] and d['insn'] != '?' for d in dis), {d['function'] for d in dis})\n";

Test(annotate_cli, csv_and_json_read_back) {
  const char *exe = where_rv_dwarf();
  if (!exe) cr_skip_test(WHERE_RV_CC " not found");
  need_python();
  char args[1024];
  char *out = out_path("ann.csv");
  snprintf(args, sizeof args, "annotate --top 0 --format csv -- %s " ITER, exe);
  cr_assert_eq(icost(args, out, NULL), 0);
  char *got = py(py_csv, out);
  cr_assert_str_eq(got, "2 ['" ITER "'] hot_loop True True {'hot_loop'}\n");
  free(got);
  out = out_path("ann.json");
  snprintf(args, sizeof args, "annotate --by line --top 3 --disasm 2 --format json -- %s " ITER, exe);
  cr_assert_eq(icost(args, out, NULL), 0);
  got = py("import sys, json\n"
           "d = json.load(open(sys.argv[1]))\n"
           "print(len(d['lines']), sorted({x['rank'] for x in d['disassembly']}), d['provenance']['command'])\n",
           out);
  cr_assert_str_eq(got, "3 [1, 2] annotate\n");
  free(got);
  remove(out);
}

/* A trace keeps no symbols: pcs, unless --symbols names the program. */
Test(annotate_cli, trace_with_and_without_symbols) {
  const char *exe = where_rv_dwarf();
  if (!exe) cr_skip_test(WHERE_RV_CC " not found");
  need_python();
  char args[1400], trace[600];
  snprintf(trace, sizeof trace, "%s/annotate_cli.%d.trace", ICOST_BUILD_DIR, (int)getpid());
  snprintf(args, sizeof args, "record -o %s -- %s " ITER, trace, exe);
  char *err;
  cr_assert_eq(icost(args, "/dev/null", &err), 0, "%s", err);
  free(err);
  char *out = out_path("ann.yaml");
  static const char first[] = "import sys, yaml\n"
                              "d = yaml.safe_load(open(sys.argv[1]))\n"
                              "print(d['functions'][0]['function'], d['symbols'])\n";
  snprintf(args, sizeof args, "annotate --format yaml --trace %s", trace);
  cr_assert_eq(icost(args, out, NULL), 0);
  char *got = py(first, out);
  cr_assert_str_eq(got, "None None\n");
  free(got);
  snprintf(args, sizeof args, "annotate --format yaml --trace %s --symbols %s", trace, exe);
  cr_assert_eq(icost(args, out, NULL), 0);
  got = py(first, out);
  char want[700];
  snprintf(want, sizeof want, "hot_loop %s\n", exe);
  cr_assert_str_eq(got, want);
  free(got);
  remove(out);
  remove(trace);
}

Test(annotate_cli, unreadable_symbols_warn_and_go_on) {
  const char *exe = where_rv_dwarf();
  if (!exe) cr_skip_test(WHERE_RV_CC " not found");
  char args[1400], *err;
  snprintf(args, sizeof args, "annotate --symbols /dev/null --max 5000 -- %s " ITER, exe);
  cr_assert_eq(icost(args, "/dev/null", &err), 0, "%s", err);
  cr_assert(strncmp(err, "icost: warning: /dev/null: not an ELF file", 42) == 0, "%s", err);
  cr_assert_eq(strchr(err, '\n'), err + strlen(err) - 1, "not one line: %s", err);
  free(err);
  static const char *bad[][2] = {
      {"annotate --by file", "--by 'file'"},
      {"annotate --format xml", "'xml'"},
      {"annotate --top many", "--top 'many'"},
      {"annotate --symbols", "--symbols needs a value"},
      {"critical --symbols", "--symbols needs a value"},
      {"critical --symbols=", "--symbols: missing ELF file name"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    cr_assert_eq(icost(bad[i][0], "/dev/null", &err), 2, "%s", bad[i][0]);
    cr_assert(strncmp(err, "icost: ", 7) == 0 && strstr(err, bad[i][1]), "%s: %s", bad[i][0], err);
    free(err);
  }
}

Test(annotate_cli, help_defines_every_column) {
  char *out = out_path("help");
  cr_assert_eq(icost("annotate --help", out, NULL), 0);
  int st;
  char cmd[700];
  snprintf(cmd, sizeof cmd, "cat %s", out);
  char *h = run_cmd(cmd, &st);
  static const char *words[] = {"--by function", "--by line", "--top", "--disasm", "--symbols", "--no-symbols",
                                "rank", "where", "static", "count", "crit_E_pct", "dmiss", "bmisp",
                                "critical", "cost_pct", "critical_cycles", "--format"};
  for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) cr_assert(strstr(h, words[i]), "no '%s'", words[i]);
  free(h);
  remove(out);
}

/* x86-64, position-independent, through qemu-user: placed by its pcs. The
 * dynamic loader's pcs (no symbols read for it) may hold more critical
 * cycles than the loop, which gcc may compile without a branch: the line of
 * most instructions is the loop's. */
Test(annotate_cli, x86_64_pie_through_qemu) {
  if (system("command -v qemu-x86_64 >/dev/null 2>&1") != 0) cr_skip_test("qemu-x86_64 not found");
  const char *exe = where_build("gcc", "-g -O1 -fPIE -pie", "hot_x86", NULL);
  if (!exe) cr_skip_test("gcc not found");
  need_python();
  char args[1024];
  char *out = out_path("ann.yaml");
  snprintf(args, sizeof args, "annotate --by line --top 0 --format yaml -- %s " ITER, exe);
  char *err;
  cr_assert_eq(icost(args, out, &err), 0, "%s", err);
  free(err);
  char *got = py("import sys, yaml\n"
                 "d = yaml.safe_load(open(sys.argv[1]))\n"
                 "r = max(d['lines'], key=lambda r: r['count'])\n"
                 "print(r['function'], r['file'].rsplit('/', 1)[-1], r['line'])\n",
                 out);
  char want[700];
  snprintf(want, sizeof want, "hot_loop " WHERE_SRC_NAME " ");
  cr_assert(strncmp(got, want, strlen(want)) == 0, "%s", got);
  unsigned line = (unsigned)strtoul(got + strlen(want), NULL, 10);
  cr_assert(line >= where_line_of("/* FIRST */") && line <= where_line_of("/* LAST */"), "%s", got);
  free(got);
  remove(out);
}
