/* test_engine_emit.c: the report emitter (engine/emit.h): every format read
 * back with a standard reader (Python's csv, yaml and json), a name with
 * ':', ',', '#', quotes and spaces kept, numbers and -0.0, usage errors. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"
#include "test_cmd.h"

static const char *const weird = "/tmp/x/we:ird, name #1 \"q\"";

/* One small report: provenance, scalars, a list, a nested mapping, a table
 * with a nested column and an absent cell, a mapping table. */
static void write_report(ic_emit *e) {
  char *argv[] = {(char *)weird, "a b", "-x,y"};
  const char *sets[] = {"core.rob=128", "l1d.size=32K"};
  ic_provenance p = {.version = "1.2.3", .command = "icost", .program = weird, .argc = 3,
                     .argv = argv, .machine = "baseline", .noverrides = 2, .overrides = sets,
                     .machine_hash = "00ff", .seed = 7, .skip = 1000, .max = 0, .has_max = 0};
  ic_emit_provenance(e, &p);
  ic_emit_str(e, "workload", weird);
  ic_emit_u64(e, "cycles", 12345);
  ic_emit_str(e, "looks_numeric", "0x10074");
  ic_emit_str(e, "looks_bool", "yes");
  ic_emit_double(e, "zero", -0.0);
  ic_emit_double(e, "tenth", 0.1);
  ic_emit_double(e, "nan", NAN);
  ic_emit_list_begin(e, "categories");
  ic_emit_str(e, NULL, "dl1");
  ic_emit_str(e, NULL, "win");
  ic_emit_list_end(e);
  ic_emit_map_begin(e, "solver");
  ic_emit_u64(e, "window", 256);
  ic_emit_map_end(e);
  const ic_emit_col cols[] = {{"name", -1, 0}, {"set", -1, IC_EMIT_COL_NESTED},
                              {"cycles", 0, 0}, {"percent", 1, 0}, {"lo", 1, 0}};
  ic_emit_table_begin(e, "breakdown", cols, 5, 0);
  ic_emit_row_begin(e);
  ic_emit_str(e, NULL, "dl1+win");
  ic_emit_list_begin(e, NULL);
  ic_emit_str(e, NULL, "dl1");
  ic_emit_str(e, NULL, "win");
  ic_emit_list_end(e);
  ic_emit_double(e, NULL, 40);
  ic_emit_double(e, NULL, -0.04);
  ic_emit_double(e, NULL, 1.5);
  ic_emit_row_end(e);
  ic_emit_row_begin(e);
  ic_emit_str(e, NULL, weird);
  ic_emit_skip(e, NULL);
  ic_emit_double(e, NULL, 60);
  ic_emit_shown(e, NULL, 100.04, "100.0");
  ic_emit_row_end(e); /* lo absent */
  ic_emit_table_end(e);
  const ic_emit_col kv[] = {{"stat", -1, 0}, {"value", -1, 0}};
  ic_emit_table_begin(e, "events", kv, 2, IC_EMIT_TABLE_MAP);
  ic_emit_row_begin(e);
  ic_emit_str(e, NULL, "dl1_misses");
  ic_emit_u64(e, NULL, 9);
  ic_emit_row_end(e);
  ic_emit_table_end(e);
}

static char *render(ic_emit_format fmt, const char *path) {
  FILE *f = fopen(path, "w");
  cr_assert_not_null(f);
  ic_emit *e;
  ic_err err;
  cr_assert_eq(ic_emit_open(&e, f, fmt, &err), IC_OK);
  write_report(e);
  ic_status st = ic_emit_close(e, &err);
  cr_assert_eq(st, IC_OK, "%s", err.msg);
  fclose(f);
  f = fopen(path, "r");
  static char buf[1 << 14];
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = 0;
  fclose(f);
  return buf;
}

/* Runs a Python check on path; the script prints "ok" when every value
   read back is the one written. */
static void python_check(const char *path, const char *script) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "/usr/bin/python3 -c '%s' %s 2>&1", script, path);
  setenv("ICOST_TEST_WEIRD", weird, 1);
  int status;
  char *outp = run_cmd(cmd, &status);
  cr_assert_eq(status, 0, "python: %s", outp);
  cr_assert(strstr(outp, "ok") == outp, "python: %s", outp);
  free(outp);
}

#define PY_TREE_CHECKS                                                                     \
  "w = os.environ[\"ICOST_TEST_WEIRD\"]\n"                                                 \
  "p = d[\"provenance\"]\n"                                                                \
  "assert p[\"program\"] == w and p[\"argv\"] == [w, \"a b\", \"-x,y\"], p\n"              \
  "assert p[\"overrides\"] == [\"core.rob=128\", \"l1d.size=32K\"] and p[\"max\"] is None\n" \
  "assert p[\"version\"] == \"1.2.3\" and p[\"seed\"] == 7 and p[\"machine\"] == \"baseline\"\n" \
  "assert list(d)[0] == \"provenance\"\n"                                                  \
  "assert d[\"workload\"] == w and d[\"cycles\"] == 12345, d\n"                            \
  "assert d[\"looks_numeric\"] == \"0x10074\" and d[\"looks_bool\"] == \"yes\"\n"          \
  "assert d[\"zero\"] == 0 and str(d[\"zero\"]) in (\"0\", \"0.0\") and d[\"tenth\"] == 0.1\n" \
  "assert d[\"nan\"] is None and d[\"categories\"] == [\"dl1\", \"win\"]\n"                \
  "assert d[\"solver\"] == {\"window\": 256}\n"                                            \
  "b = d[\"breakdown\"]\n"                                                                 \
  "assert b[0] == {\"name\": \"dl1+win\", \"set\": [\"dl1\", \"win\"], \"cycles\": 40, \"percent\": -0.04, \"lo\": 1.5}, b\n" \
  "assert b[1] == {\"name\": w, \"cycles\": 60, \"percent\": 100.04}, b\n"                 \
  "assert d[\"events\"] == {\"dl1_misses\": 9}\n"                                          \
  "print(\"ok\")\n"

Test(emit, yaml_reads_back) {
  const char *path = "emit_test.yaml";
  render(IC_EMIT_YAML, path);
  python_check(path, "import os, sys, yaml\nd = yaml.safe_load(open(sys.argv[1]))\n" PY_TREE_CHECKS);
  if (!getenv("KEEP")) remove(path);
}

Test(emit, json_reads_back) {
  const char *path = "emit_test.json";
  render(IC_EMIT_JSON, path);
  python_check(path, "import os, sys, json\nd = json.load(open(sys.argv[1]))\n" PY_TREE_CHECKS);
  if (!getenv("KEEP")) remove(path);
}

Test(emit, csv_reads_back) {
  const char *path = "emit_test.csv";
  const char *s = render(IC_EMIT_CSV, path);
  cr_assert(strncmp(s, "#,provenance.version,1.2.3\n", 27) == 0, "%s", s);
  python_check(path,
               "import os, sys, csv\n"
               "w = os.environ[\"ICOST_TEST_WEIRD\"]\n"
               "rows = list(csv.reader(open(sys.argv[1], newline=\"\")))\n"
               "h = {r[1]: r[2:] for r in rows if r and r[0] == \"#\"}\n"
               "assert h[\"provenance.program\"] == [w] and h[\"provenance.argv\"] == [w, \"a b\", \"-x,y\"], h\n"
               "assert h[\"provenance.overrides\"] == [\"core.rob=128\", \"l1d.size=32K\"]\n"
               "assert h[\"workload\"] == [w] and h[\"cycles\"] == [\"12345\"] and h[\"zero\"] == [\"0\"]\n"
               "assert h[\"categories\"] == [\"dl1\", \"win\"] and h[\"solver.window\"] == [\"256\"]\n"
               "data = [r for r in rows if not r or r[0] != \"#\"]\n"
               "i = data.index([])\n"
               "t1, t2 = data[:i], data[i + 1:]\n"
               "assert t1 == [[\"name\", \"cycles\", \"percent\", \"lo\"], [\"dl1+win\", \"40\", \"-0.04\", \"1.5\"], [w, \"60\", \"100.04\", \"\"]], t1\n"
               "assert t2 == [[\"stat\", \"value\"], [\"dl1_misses\", \"9\"]], t2\n"
               "print(\"ok\")\n");
  if (!getenv("KEEP")) remove(path);
}

Test(emit, text_aligned) {
  const char *path = "emit_test.txt";
  const char *s = render(IC_EMIT_TEXT, path);
  cr_assert_null(strstr(s, "provenance"), "%s", s);
  cr_assert_null(strstr(s, "-0.0"), "%s", s);
  cr_assert_not_null(strstr(s, "cycles          12345\n"), "%s", s);
  cr_assert_not_null(strstr(s, "solver window   256\n"), "%s", s);
  cr_assert_not_null(strstr(s, "categories      dl1, win\n"), "%s", s);
  /* the numbers of a column end in one place; the shown text is used */
  const char *h = strstr(s, "\nname");
  cr_assert_not_null(h, "%s", s);
  const char *r1 = strstr(h, "\ndl1+win"), *r2 = strstr(h, "100.0");
  cr_assert(r1 && r2, "%s", s);
  const char *p1 = strstr(r1, "0.0 ");
  cr_assert_not_null(p1, "%s", s);
  const char *l2 = strrchr(r2 - 1 > h ? r2 - 1 : h, '\n');
  const char *l2s = r2;
  while (l2s > h && l2s[-1] != '\n') l2s--;
  cr_assert_eq((p1 + 3) - (r1 + 1), (r2 + 5) - l2s, "%s", s);
  (void)l2;
  if (!getenv("KEEP")) remove(path);
}

Test(emit, csv_quoting) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  ic_emit_csv_field(f, "plain");
  fputc(' ', f);
  ic_emit_csv_field(f, "a,b");
  fputc(' ', f);
  ic_emit_csv_field(f, "say \"hi\"");
  fputc(' ', f);
  ic_emit_csv_field(f, "line\nbreak");
  fputc(' ', f);
  ic_emit_csv_field(f, "#1");
  fclose(f);
  cr_assert_str_eq(buf, "plain \"a,b\" \"say \"\"hi\"\"\" \"line\nbreak\" \"#1\"");
  free(buf);
}

Test(emit, numbers) {
  char b[64];
  cr_assert_str_eq(ic_emit_fmt_fixed(b, sizeof b, -0.0, 1), "0.0");
  cr_assert_str_eq(ic_emit_fmt_fixed(b, sizeof b, -0.04, 1), "0.0");
  cr_assert_str_eq(ic_emit_fmt_fixed(b, sizeof b, -0.06, 1), "-0.1");
  cr_assert_str_eq(ic_emit_fmt_fixed(b, sizeof b, NAN, 1), "-");
  cr_assert_str_eq(ic_emit_fmt_double(b, sizeof b, -0.0), "0");
  cr_assert_str_eq(ic_emit_fmt_double(b, sizeof b, 0.1), "0.1");
  cr_assert_eq(strtod(ic_emit_fmt_double(b, sizeof b, 1.0 / 3), NULL), 1.0 / 3);
  cr_assert_str_eq(ic_emit_fmt_double(b, sizeof b, INFINITY), "null");
}

Test(emit, formats) {
  ic_emit_format f;
  ic_err err;
  cr_assert_eq(ic_emit_format_parse("json", &f, &err), IC_OK);
  cr_assert_eq(f, IC_EMIT_JSON);
  cr_assert_str_eq(ic_emit_format_name(f), "json");
  cr_assert_eq(ic_emit_format_parse("xml", &f, &err), IC_EINPUT);
  cr_assert_not_null(strstr(err.msg, "'xml'"));
}

/* A usage error is reported at close, by every format. */
Test(emit, misuse) {
  for (int fmt = 0; fmt < 4; fmt++) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ic_emit *e;
    ic_err err;
    cr_assert_eq(ic_emit_open(&e, f, (ic_emit_format)fmt, &err), IC_OK);
    ic_emit_u64(e, NULL, 1); /* no key in a mapping */
    cr_assert_eq(ic_emit_close(e, &err), IC_ERUN);
    cr_assert_not_null(strstr(err.msg, "without a key"), "%s", err.msg);
    fclose(f);
    free(buf);
  }
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  ic_emit *e;
  ic_err err;
  cr_assert_eq(ic_emit_open(&e, f, IC_EMIT_YAML, &err), IC_OK);
  ic_emit_u64(e, "a", 1);
  ic_provenance p = {0};
  ic_emit_provenance(e, &p); /* not first */
  cr_assert_eq(ic_emit_close(e, &err), IC_ERUN);
  fclose(f);
  free(buf);
}

/* A write error (a full device) fails the report. */
Test(emit, write_error) {
  FILE *f = fopen("/dev/full", "w");
  if (!f) cr_skip_test("no /dev/full");
  ic_emit *e;
  ic_err err;
  cr_assert_eq(ic_emit_open(&e, f, IC_EMIT_JSON, &err), IC_OK);
  ic_emit_u64(e, "a", 1);
  cr_assert_eq(ic_emit_close(e, &err), IC_ERUN);
  fclose(f);
}
