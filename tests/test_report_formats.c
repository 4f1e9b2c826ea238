/* test_report_formats.c: every format of every reporting command read back
 * by a standard reader (Python's csv, yaml and json), with the provenance
 * naming a program whose path holds ':', ',', '#' and spaces exactly as it
 * was given, the --set overrides and the machine's hash; and the
 * conventions every command shares (--version, -h, --max 0, a program given
 * without `--`, getopt_long's forms and one-line usage errors). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <json-c/json.h>

#include "test_cmd.h"
#include "test_util.h"

#define WEIRD_DIR ICOST_BUILD_DIR "/report formats"
#define WEIRD WEIRD_DIR "/we:ird, name #1"

/* A small static RISC-V program at WEIRD (built once). */
static const char *weird_program(void) {
  struct stat st;
  if (stat(WEIRD, &st) == 0) return WEIRD;
  if (system("riscv64-linux-gnu-gcc --version >/dev/null 2>&1") != 0) return NULL;
  char cmd[2048];
  snprintf(cmd, sizeof cmd,
           "mkdir -p '%s' && printf '%%s\\n' '#include <stdio.h>' 'int main(int c, char **v) {"
           " long s = 0; for (long i = 0; i < 30000; i++) s += (i * c) %% 7 ? i : -i;"
           " printf(\"%%ld\\\\n\", s); return 0; }' > '%s/prog.c' && "
           "riscv64-linux-gnu-gcc -O2 -static -o '%s.tmp' '%s/prog.c' && mv '%s.tmp' '%s'",
           WEIRD_DIR, WEIRD_DIR, WEIRD, WEIRD_DIR, WEIRD, WEIRD);
  if (system(cmd) != 0) return NULL;
  return WEIRD;
}

/* The Python check of one report: the provenance names WEIRD (program and
   argv[0]), lists the overrides and has a machine hash; every record or
   key parses. argv[1] is the file, argv[2] its format. */
static const char check_py[] =
    "import csv, json, os, sys, yaml\n"
    "path, fmt = sys.argv[1], sys.argv[2]\n"
    "want = os.environ['WEIRD']\n"
    "sets = [x for x in os.environ['SETS'].split(',') if x]\n"
    "maxi = int(os.environ['MAXI'])\n"
    "if fmt == 'csv':\n"
    "    rows = list(csv.reader(open(path, newline='')))\n"
    "    head = {r[1]: r[2:] for r in rows if r and r[0] == '#'}\n"
    "    data = [r for r in rows if r and r[0] != '#']\n"
    "    assert data, 'no table'\n"
    "    assert head['provenance.program'] == [want], head\n"
    "    assert head['provenance.argv'][0] == want, head\n"
    "    assert head['provenance.overrides'] == sets, head\n"
    "    assert len(head['provenance.machine_hash'][0]) == 16, head\n"
    "else:\n"
    "    d = yaml.safe_load(open(path)) if fmt == 'yaml' else json.load(open(path))\n"
    "    assert list(d)[0] == 'provenance', list(d)\n"
    "    p = d['provenance']\n"
    "    assert p['program'] == want and p['argv'][0] == want, p\n"
    "    assert p['overrides'] == sets, p\n"
    "    assert len(p['machine_hash']) == 16 and p['version'] and p['machine'], p\n"
    "    assert p['max'] == maxi and p['skip'] == 0, p\n"
    "print('ok')\n";

/* sets: the overrides the report must list (comma separated), max its --max. */
static void check_report_of(const char *what, const char *path, const char *fmt, const char *sets,
                            const char *max) {
  char cmd[8192];
  setenv("WEIRD", WEIRD, 1);
  setenv("SETS", sets, 1);
  setenv("MAXI", max, 1);
  snprintf(cmd, sizeof cmd, "/usr/bin/python3 - '%s' %s 2>&1 <<'EOF'\n%sEOF\n", path, fmt, check_py);
  int st;
  char *out = run_cmd(cmd, &st);
  cr_expect(st == 0 && strncmp(out, "ok", 2) == 0, "%s --format %s: %s", what, fmt, out);
  free(out);
}

static void check_report(const char *what, const char *path, const char *fmt) {
  check_report_of(what, path, fmt, "core.rob=96,l1d.latency=3", "20000");
}

Test(report_formats, every_command_and_format_reads_back, .timeout = 600) {
  if (system("/usr/bin/python3 -c 'import yaml, csv, json' 2>/dev/null") != 0)
    cr_skip_test("python3 with yaml not found");
  const char *prog = weird_program();
  if (!prog) cr_skip_test("riscv64-linux-gnu-gcc cannot build the test program");
  static const char *const cmds[] = {
      "--categories dl1,win",
      "sim",
      "critical --top 5",
      "validate --categories dl1,win --methods graph",
      "annotate --top 5",
      "graph --from 100 --count 20",
  };
  static const char *const fmts[] = {"csv", "yaml", "json", "text"};
  const char *path = ICOST_BUILD_DIR "/test_report_formats.out";
  for (size_t c = 0; c < sizeof cmds / sizeof cmds[0]; c++)
    for (size_t f = 0; f < sizeof fmts / sizeof fmts[0]; f++) {
      if (strncmp(cmds[c], "graph", 5) == 0 && strcmp(fmts[f], "text") == 0) continue; /* graphml, dot */
      char cmd[4096];
      snprintf(cmd, sizeof cmd,
               "%s %s --set core.rob=96 --set=l1d.latency=3 --max 20k --format %s -- '%s' 3 "
               "> '%s' 2>&1",
               ICOST_BINARY, cmds[c], fmts[f], prog, path);
      int st = system(cmd);
      cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "%s --format %s failed", cmds[c], fmts[f]);
      if (strcmp(fmts[f], "text") != 0) check_report(cmds[c], path, fmts[f]);
      else {
        int rs;
        char cat[1024];
        snprintf(cat, sizeof cat, "cat '%s'", path);
        char *text = run_cmd(cat, &rs);
        cr_expect_null(strstr(text, "-0.0 "), "%s: %s", cmds[c], text);
        cr_expect_null(strstr(text, "provenance"), "%s: %s", cmds[c], text);
        free(text);
      }
    }
  remove(path);
}

/* analyze's reports name the profiled program and list the --set overrides
 * of the profiled run (both stored in the sample file) and parse; the
 * machine hash is of the machine the samples were taken on. FILE may come
 * after the options. */
Test(report_formats, analyze_reads_back, .timeout = 300) {
  if (system("/usr/bin/python3 -c 'import yaml, csv, json' 2>/dev/null") != 0)
    cr_skip_test("python3 with yaml not found");
  const char *prog = weird_program();
  if (!prog) cr_skip_test("riscv64-linux-gnu-gcc cannot build the test program");
  const char *samples = ICOST_BUILD_DIR "/test_report_formats.samples";
  const char *path = ICOST_BUILD_DIR "/test_report_formats.analyze";
  char cmd[4096];
  snprintf(cmd, sizeof cmd,
           "%s profile -o '%s' --set core.rob=96 --set=l1d.latency=3 --max 200k -- '%s' 3 > /dev/null 2>&1",
           ICOST_BINARY, samples, prog);
  int st = system(cmd);
  cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "profile failed");
  static const char *const fmts[] = {"csv", "yaml", "json"};
  for (size_t f = 0; f < 3; f++) {
    snprintf(cmd, sizeof cmd, "%s analyze %s'%s' --categories dmiss,bmisp --format=%s > '%s' 2>&1", ICOST_BINARY,
             f == 1 ? "--seed=2 " : "", samples, fmts[f], path);
    st = system(cmd);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "analyze --format %s failed", fmts[f]);
    check_report_of("analyze", path, fmts[f], "core.rob=96,l1d.latency=3", "200000");
  }
  remove(samples);
  remove(path);
}

/* A program given without `--` is refused with the fix in the message. */
Test(report_formats, program_without_dashes) {
  int st;
  char *out = run_cmd(ICOST_BINARY " sim /bin/true 2>&1", &st);
  cr_assert_eq(st, 2, "%s", out);
  cr_assert(strstr(out, "did you mean `-- /bin/true`?"), "%s", out);
  free(out);
}

Test(report_formats, version_and_help) {
  int st;
  char *out = run_cmd(ICOST_BINARY " --version", &st);
  cr_assert_eq(st, 0);
  cr_assert(strncmp(out, "icost ", 6) == 0 && strchr(out, '\n') == out + strlen(out) - 1, "%s", out);
  free(out);
  static const char *const cmds[] = {"", "sim", "critical", "graph", "validate", "emu",
                                     "profile", "analyze", "record", "sweep"};
  for (size_t c = 0; c < sizeof cmds / sizeof cmds[0]; c++) {
    char cmd[256];
    snprintf(cmd, sizeof cmd, "%s %s -h 2>&1", ICOST_BINARY, cmds[c]);
    char *h = run_cmd(cmd, &st);
    cr_expect_eq(st, 0, "%s -h: %s", cmds[c], h);
    snprintf(cmd, sizeof cmd, "%s %s --help 2>&1", ICOST_BINARY, cmds[c]);
    char *help = run_cmd(cmd, &st);
    cr_expect_eq(st, 0, "%s --help", cmds[c]);
    cr_expect_str_eq(h, help, "%s: -h and --help differ", cmds[c]);
    free(h);
    free(help);
  }
}

/* --max 0 is refused (absent means to the end), in every command that
   takes it, emu's count suffixes included. */
Test(report_formats, max_zero_refused) {
  static const char *const cmds[] = {"", "sim", "critical", "emu"};
  for (size_t c = 0; c < sizeof cmds / sizeof cmds[0]; c++) {
    char cmd[256];
    int st;
    snprintf(cmd, sizeof cmd, "%s %s --max 0 -- /bin/true 2>&1", ICOST_BINARY, cmds[c]);
    char *out = run_cmd(cmd, &st);
    cr_expect_eq(st, 2, "%s: %s", cmds[c], out);
    cr_expect(strstr(out, "--max 0"), "%s: %s", cmds[c], out);
    free(out);
  }
}

/* A key given twice in a machine file (a scalar key or a section) or in a
   sweep file is a one-line error naming the file and the key. */
Test(report_formats, duplicate_yaml_keys_refused) {
  static const struct {
    const char *text, *cmd, *key;
  } cases[] = {
      {"core:\n  rob: 64\n  rob: 32\n", "sim --print-config --config", "core.rob given twice"},
      {"core:\n  rob: 64\ncore:\n  iq: 32\n", "sim --print-config --config", "core given twice"},
      {"axes:\n  core.rob: [32, 64]\n  core.rob: [16]\n", "sweep --out " ICOST_BUILD_DIR
       "/test_report_formats_sweep --file", "core.rob given twice"},
  };
  const char *path = ICOST_BUILD_DIR "/test_report_formats_dup.yaml";
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(cases[k].text, f);
    fclose(f);
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s %s %s 2>&1", ICOST_BINARY, cases[k].cmd, path);
    int st;
    char *out = run_cmd(cmd, &st);
    cr_expect_eq(st, 2, "%s: %s", cases[k].text, out);
    cr_expect(strstr(out, path) && strstr(out, cases[k].key), "%s: %s", cases[k].text, out);
    cr_expect(strchr(out, '\n') == out + strlen(out) - 1, "one line: %s", out);
    free(out);
  }
  remove(path);
}

/* A bootstrap interval from 2 fragments is printed with a warning (stderr,
   the text report, and ci_warning in yaml); from many, without. */
Test(report_formats, ci_from_few_fragments_warns, .timeout = 300) {
  const char *prog = weird_program();
  if (!prog) cr_skip_test("riscv64-linux-gnu-gcc cannot build the test program");
  for (int few = 1; few >= 0; few--) {
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "%s --method graphfrag --fragments %d --frag-length 2000 --categories dl1,win "
             "--max 100k --format yaml -- '%s' 3 2>&1",
             ICOST_BINARY, few ? 2 : 40, prog);
    int st;
    char *out = run_cmd(cmd, &st);
    cr_assert_eq(st, 0, "%s", out);
    cr_assert(strstr(out, "\nci_fragments: "), "%s", out);
    if (few) {
      cr_expect(strstr(out, "icost: warning: the 95% CI is a bootstrap over only 2 fragments"), "%s", out);
      cr_expect(strstr(out, "\nci_warning: "), "%s", out);
    } else {
      cr_expect_null(strstr(out, "warning: the 95% CI"), "%s", out);
    }
    free(out);
  }
}

/* The same in validate: an interval from 2 fragments is marked in the
   table, said on stderr and in yaml (METHOD_ci_warning); from 40, not. */
Test(report_formats, validate_ci_from_few_fragments_warns, .timeout = 300) {
  const char *prog = weird_program();
  if (!prog) cr_skip_test("riscv64-linux-gnu-gcc cannot build the test program");
  for (int few = 1; few >= 0; few--)
    for (int yaml = 0; yaml < 2; yaml++) {
      char cmd[2048];
      snprintf(cmd, sizeof cmd,
               "%s validate --methods graphfrag --fragments %d --frag-length 2000 --categories dl1,win "
               "--max 100k --format %s -- '%s' 3 2>&1",
               ICOST_BINARY, few ? 2 : 40, yaml ? "yaml" : "text", prog);
      int st;
      char *out = run_cmd(cmd, &st);
      cr_assert_eq(st, 0, "%s", out);
      const char *warn = "graphfrag: the 95% CI is a bootstrap over only 2 fragments";
      if (few) {
        cr_expect(strstr(out, "icost: warning: ") && strstr(out, warn), "%s", out);
        if (yaml)
          cr_expect(strstr(out, "graphfrag_ci_warning: ") && strstr(out, "graphfrag_ci_fragments: 2\n"), "%s",
                    out);
        else
          cr_expect(strstr(out, "95% CI (!)") && strstr(out, "(!) graphfrag: the 95% CI"), "%s", out);
      } else {
        cr_expect_null(strstr(out, "bootstrap over only"), "%s", out);
        cr_expect_null(strstr(out, "(!)"), "%s", out);
        if (yaml) cr_expect(strstr(out, "graphfrag_ci_fragments: "), "%s", out);
      }
      free(out);
    }
}

/* validate's profiler column and `icost --method profiler` print the same
   cycles for the same run (the t the percents are of). */
Test(report_formats, profiler_cycles_agree_with_validate, .timeout = 300) {
  const char *prog = weird_program();
  if (!prog) cr_skip_test("riscv64-linux-gnu-gcc cannot build the test program");
  const char *opts = "--categories dl1,win --max 100k --frag-length 2000 --fragments 20";
  char cmd[2048];
  snprintf(cmd, sizeof cmd,
           "a=$(%s --method profiler %s --format json -- '%s' 3 2>/dev/null) && "
           "b=$(%s validate --methods profiler %s --format json -- '%s' 3 2>/dev/null) && "
           "/usr/bin/python3 -c 'import json, sys; a = json.loads(sys.argv[1]); "
           "b = json.loads(sys.argv[2]); x = a[\"cycles\"]; "
           "y = b[\"workloads\"][0][\"cycles\"][\"profiler\"]; "
           "print(\"ok\" if x == round(y) and a[\"run_cycles\"] > 0 else \"%%s %%s\" %% (x, y))' "
           "\"$a\" \"$b\" 2>&1",
           ICOST_BINARY, opts, prog, ICOST_BINARY, opts, prog);
  int st;
  char *out = run_cmd(cmd, &st);
  cr_assert(st == 0 && strncmp(out, "ok", 2) == 0, "%s", out);
  free(out);
}

/* The output of `icost ARGS` (stdout; exit status 0 asserted). */
static char *icost_ok(const char *args) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "%s %s 2>/dev/null", ICOST_BINARY, args);
  int st;
  char *out = run_cmd(cmd, &st);
  cr_assert_eq(st, 0, "icost %s: exit %d: %s", args, st, out);
  return out;
}

static json_object *json_at(json_object *o, const char *key) {
  json_object *v = NULL;
  cr_assert(json_object_object_get_ex(o, key, &v), "no '%s' in %s", key, json_object_to_json_string(o));
  return v;
}

/* validate's wall seconds per workload (they differ from run to run) */
static void drop_seconds(json_object *j) {
  json_object *w;
  if (!json_object_object_get_ex(j, "workloads", &w)) return;
  for (size_t i = 0; i < json_object_array_length(w); i++)
    json_object_object_del(json_object_array_get_idx(w, i), "seconds");
}

/* getopt_long's forms: --opt=VALUE, -jN, --jobs=N give the report that
 * --opt VALUE and -j N give, and the values are the ones given. */
Test(report_formats, option_forms_agree, .timeout = 300) {
  const char *prog = weird_program();
  if (!prog) cr_skip_test("riscv64-linux-gnu-gcc cannot build the test program");
  static const struct {
    const char *joined, *apart;
    const char *max, *list, *list_key; /* provenance max; a list the report repeats */
  } cases[] = {
      {"-j1 --categories=dl1,win --max=20k --format=json", "-j 1 --categories dl1,win --max 20k --format json",
       "20000", "categories", NULL},
      {"critical --top=3 --max=15k --format=json", "critical --top 3 --max 15k --format json", "15000",
       "instructions", "top"},
      {"validate --jobs=1 --methods=graph --categories=dmiss --max=10k --format=json",
       "validate -j 1 --methods graph --categories dmiss --max 10k --format json", "10000", NULL, NULL},
      {"annotate --by=line --top=2 --max=12k --format=json", "annotate --by line --top 2 --max 12k --format json",
       "12000", NULL, NULL},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    char a[2048], b[2048];
    snprintf(a, sizeof a, "%s -- '%s' 3", cases[k].joined, prog);
    snprintf(b, sizeof b, "%s -- '%s' 3", cases[k].apart, prog);
    char *oa = icost_ok(a), *ob = icost_ok(b);
    json_object *j = json_tokener_parse(oa), *jb = json_tokener_parse(ob);
    cr_assert(j && jb, "%s: not json: %s", a, j ? ob : oa);
    drop_seconds(j);
    drop_seconds(jb);
    cr_expect(json_object_equal(j, jb), "%s and %s differ: %s\n%s", cases[k].joined, cases[k].apart, oa, ob);
    json_object_put(jb);
    json_object *pv = json_at(j, "provenance");
    cr_expect_str_eq(json_object_get_string(json_at(pv, "max")), cases[k].max, "%s", a);
    if (cases[k].list && !cases[k].list_key) { /* the categories given */
      json_object *l = json_at(j, cases[k].list);
      cr_expect_eq(json_object_array_length(l), 2, "%s", a);
      cr_expect_str_eq(json_object_get_string(json_object_array_get_idx(l, 1)), "win", "%s", a);
    } else if (cases[k].list) { /* --top 3: at most 3 rows */
      size_t n = json_object_array_length(json_at(j, cases[k].list));
      cr_expect(n >= 1 && n <= 3, "%s: %zu rows", a, n);
    }
    json_object_put(j);
    free(oa);
    free(ob);
  }
  /* --set=KEY=VALUE */
  char *c = icost_ok("sim --print-config --set=core.rob=77 --set core.iq=33");
  cr_expect(strstr(c, "\n  rob: 77") && strstr(c, "\n  iq: 33"), "%s", c);
  free(c);
}

/* Usage errors are one line on stderr and exit 2: an unknown option names
 * the command's --help (and the option a unique prefix stands for), a
 * missing value, a value for an option that takes none. */
Test(report_formats, usage_errors_are_one_line) {
  static const struct {
    const char *args, *want;
  } cases[] = {
      {"sim --bogus -- /bin/true", "sim: unknown option '--bogus' (see icost sim --help)"},
      {"--bogus=1", "icost: unknown option '--bogus' (see icost --help)"},
      {"critical --form json", "unknown option '--form' (did you mean --format?"},
      {"annotate -x", "annotate: unknown option '-x'"},
      {"critical --top", "critical: --top needs a value"},
      {"-j", "icost: -j needs a value"},
      {"validate --jobs", "validate: --jobs needs a value"},
      {"pipeview -o", "pipeview: -o needs a value"},
      {"sim --print-config=yes", "sim: --print-config takes no value"},
      {"analyze --format", "analyze: --format needs a value"},
      {"analyze --bogus x.samples", "analyze: unknown option '--bogus'"},
      {"emu --stats=1 -- x", "emu: --stats takes no value"},
      {"sweep --vary", "sweep: --vary needs a value"},
      {"record --output", "record: --output needs a value"},
      {"graph --from=x --count 1", "--from 'x'"},
      {"-jx", "-j 'x'"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s %s 2>&1 >/dev/null", ICOST_BINARY, cases[k].args);
    int st;
    char *out = run_cmd(cmd, &st);
    cr_expect_eq(st, 2, "%s: exit %d: %s", cases[k].args, st, out);
    cr_expect(strstr(out, cases[k].want), "%s: '%s' not in: %s", cases[k].args, cases[k].want, out);
    cr_expect(strncmp(out, "icost: ", 7) == 0 && strchr(out, '\n') == out + strlen(out) - 1,
              "%s: not one line: %s", cases[k].args, out);
    free(out);
  }
}

/* What follows `--` is the program's, options included: icost does not read
 * them (--max 0 would be refused), the guest gets them. emu takes the first
 * word as the program, and the words after it are the program's too. */
Test(report_formats, options_after_dashes_go_to_the_program, .timeout = 120) {
  const char *echo = ICOST_BUILD_DIR "/test_report_formats_echo";
  if (!t_cross_build(echo,
                     "#include <stdio.h>\n"
                     "int main(int c, char **v) { for (int i = 1; i < c; i++) puts(v[i]); return 0; }\n",
                     NULL))
    cr_skip_test("riscv64-linux-gnu-gcc cannot build the test program");
  static const char *const cmds[] = {"sim --guest-output --max=50k --", "emu --", "emu"};
  for (size_t k = 0; k < sizeof cmds / sizeof cmds[0]; k++) {
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s %s '%s' --max 0 --bogus -j --stats -- -h 2>&1", ICOST_BINARY, cmds[k], echo);
    int st;
    char *out = run_cmd(cmd, &st);
    cr_expect_eq(st, 0, "%s: %s", cmds[k], out);
    cr_expect(strstr(out, "--max\n0\n--bogus\n-j\n--stats\n--\n-h\n"), "%s: %s", cmds[k], out);
    cr_expect_null(strstr(out, "instructions: "), "%s: emu read --stats: %s", cmds[k], out);
    free(out);
  }
}
