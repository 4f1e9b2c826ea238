/* test_config.c: machine config loading: the shipped files, the built-in
 * baseline, base inheritance, --set, YAML round trip, and every kind of
 * malformed file with its file:line:column message. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ooo.h"

#define CFG_DIR ICOST_SOURCE_DIR "/configs/"
#define TMP_DIR ICOST_BUILD_DIR "/test_config_tmp"

/* Resolved config as YAML text, without the first (comment) line. */
static char *dump(const ooo_config *c) {
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  cr_assert(f);
  cr_assert_eq(ooo_config_write(c, f), IC_OK);
  fclose(f);
  char *nl = strchr(buf, '\n');
  char *out = strdup(nl ? nl + 1 : buf);
  free(buf);
  return out;
}

static ooo_config *load_ok(const char *path) {
  ooo_config *c = NULL;
  ic_err err;
  ic_status st = ooo_config_load(&c, path, &err);
  cr_assert_eq(st, IC_OK, "%s: %s", path ? path : "(baseline)", err.msg);
  return c;
}

static int64_t get(const ooo_config *c, const char *k) {
  int64_t v;
  ic_err err;
  cr_assert_eq(ooo_config_get(c, k, &v, &err), IC_OK, "%s", err.msg);
  return v;
}

static void write_file(const char *name, const char *text) {
  mkdir(TMP_DIR, 0777);
  char path[512];
  snprintf(path, sizeof path, TMP_DIR "/%s", name);
  FILE *f = fopen(path, "w");
  cr_assert(f, "cannot write %s", path);
  fputs(text, f);
  fclose(f);
}

/* Loads TMP_DIR/name, expects IC_EINPUT and a message equal to
 * TMP_DIR/<expect>. */
static void load_fails(const char *name, const char *expect) {
  char path[512];
  snprintf(path, sizeof path, TMP_DIR "/%s", name);
  ooo_config *c = (ooo_config *)1;
  ic_err err = {{0}};
  ic_status st = ooo_config_load(&c, path, &err);
  cr_assert_eq(st, IC_EINPUT, "%s loaded", name);
  cr_expect_null(c);
  char want[700];
  snprintf(want, sizeof want, TMP_DIR "/%s", expect);
  cr_expect(strncmp(err.msg, want, strlen(want)) == 0, "message '%s', expected to start '%s'",
            err.msg, want);
}

Test(config, baseline_file_equals_builtin) {
  ooo_config *a = load_ok(NULL), *b = load_ok(CFG_DIR "baseline.yaml");
  char *da = dump(a), *db = dump(b);
  cr_expect_str_eq(da, db);
  cr_expect_eq(ooo_config_rob(a), 64);
  cr_expect_eq(ooo_config_issue_width(a), 6);
  cr_expect_eq(get(a, "l2.size"), 1 << 20);
  cr_expect_eq(get(a, "bpred.btb_entries"), 4096);
  free(da);
  free(db);
  ooo_config_destroy(a);
  ooo_config_destroy(b);
}

Test(config, shipped_variants_override_the_baseline) {
  ooo_config *base = load_ok(NULL);
  ooo_config *l = load_ok(CFG_DIR "l1d4.yaml"), *w = load_ok(CFG_DIR "wakeup2.yaml"),
             *b = load_ok(CFG_DIR "bmisp15.yaml"), *m = load_ok(CFG_DIR "modern.yaml");
  cr_expect_eq(get(l, "l1d.latency"), 4);
  cr_expect_eq(get(l, "core.rob"), get(base, "core.rob"));
  cr_expect_eq(get(w, "core.wakeup"), 2);
  cr_expect_eq(get(b, "core.recovery"), get(base, "core.recovery") + 15);
  cr_expect_eq(ooo_config_rob(m), 256);
  cr_expect_eq(ooo_config_fetch_width(m), 8);
  ooo_config *all[] = {base, l, w, b, m};
  for (int k = 0; k < 5; k++) ooo_config_destroy(all[k]);
}

Test(config, written_yaml_loads_back_identically) {
  const char *files[] = {"baseline.yaml", "l1d4.yaml", "wakeup2.yaml", "bmisp15.yaml", "modern.yaml"};
  mkdir(TMP_DIR, 0777);
  for (int k = 0; k < 5; k++) {
    char path[512];
    snprintf(path, sizeof path, CFG_DIR "%s", files[k]);
    ooo_config *c = load_ok(path);
    ic_err err;
    cr_assert_eq(ooo_config_set(c, "core.iq=40", &err), IC_OK, "%s", err.msg);
    char out[512];
    snprintf(out, sizeof out, TMP_DIR "/roundtrip_%s", files[k]);
    FILE *f = fopen(out, "w");
    cr_assert(f);
    ooo_config_write(c, f);
    fclose(f);
    ooo_config *d = load_ok(out);
    char *a = dump(c), *b = dump(d);
    cr_expect_str_eq(a, b, "%s does not round-trip", files[k]);
    cr_expect_eq(get(d, "core.iq"), 40);
    free(a);
    free(b);
    ooo_config_destroy(c);
    ooo_config_destroy(d);
  }
}

Test(config, flat_and_nested_keys_are_the_same) {
  write_file("nested.yaml", "core:\n  rob: 128\nl1d:\n  latency: 3\n");
  write_file("flat.yaml", "core.rob: 128\nl1d.latency: 3\n");
  ooo_config *a = load_ok(TMP_DIR "/nested.yaml"), *b = load_ok(TMP_DIR "/flat.yaml");
  char *da = dump(a), *db = dump(b);
  cr_expect_str_eq(da, db);
  cr_expect_eq(get(a, "core.rob"), 128);
  cr_expect_eq(get(a, "l1d.latency"), 3);
  free(da);
  free(db);
  ooo_config_destroy(a);
  ooo_config_destroy(b);
}

Test(config, suffixes) {
  write_file("suffix.yaml", "l2:\n  size: 2M\nl1d.size: 64K\n");
  ooo_config *c = load_ok(TMP_DIR "/suffix.yaml");
  cr_expect_eq(get(c, "l2.size"), 2 << 20);
  cr_expect_eq(get(c, "l1d.size"), 64 << 10);
  ooo_config_destroy(c);
}

Test(config, malformed_files_name_line_and_column) {
  write_file("unknown.yaml", "core:\n  rob: 64\n  robb: 3\n");
  load_fails("unknown.yaml", "unknown.yaml:3:3: unknown key 'core.robb'");
  write_file("negative.yaml", "l1d:\n  size: -32768\n");
  load_fails("negative.yaml", "negative.yaml:2:9: l1d.size '-32768' must not be negative");
  write_file("word.yaml", "core:\n  rob: lots\n");
  load_fails("word.yaml", "word.yaml:2:8: core.rob 'lots' must be a non-negative integer");
  write_file("zero.yaml", "core.rob: 0\n");
  load_fails("zero.yaml", "zero.yaml:1:11: core.rob = 0 is out of range");
  /* 48 KB / (2 ways x 64 B) = 384 sets */
  write_file("sets.yaml", "l1d:\n  size: 48K\n");
  char rel[600];
  snprintf(rel, sizeof rel, "%s", "sets.yaml:2:9: L1D: 49152 bytes / (2 ways x 64) = 384 sets is not a power of two");
  load_fails("sets.yaml", rel);
  write_file("line.yaml", "l1d.line: 96\n");
  load_fails("line.yaml", "line.yaml:1:11: l1d.line = 96 must be a power of two");
  write_file("nobase.yaml", "# comment\nbase: does_not_exist.yaml\n");
  load_fails("nobase.yaml", "nobase.yaml:2:7: base file");
  write_file("cycle_a.yaml", "base: cycle_b.yaml\ncore.rob: 8\n");
  write_file("cycle_b.yaml", "core.iq: 8\nbase: cycle_a.yaml\n");
  load_fails("cycle_a.yaml", "cycle_b.yaml:2:7: base cycle");
  write_file("self.yaml", "base: self.yaml\n");
  load_fails("self.yaml", "self.yaml:1:7: base cycle");
  write_file("list.yaml", "core:\n  rob: [1, 2]\n");
  load_fails("list.yaml", "list.yaml:2:8: core.rob: lists are not allowed");
  write_file("syntax.yaml", "core:\n  rob: 64\n iq: 3\n");
  load_fails("syntax.yaml", "syntax.yaml:");
  /* a base's own error is reported in the base */
  write_file("bad_base.yaml", "base: unknown.yaml\n");
  load_fails("bad_base.yaml", "unknown.yaml:3:3: unknown key");
}

Test(config, missing_file) {
  ooo_config *c;
  ic_err err;
  cr_assert_eq(ooo_config_load(&c, TMP_DIR "/no_such_file.yaml", &err), IC_EINPUT);
  cr_expect(strstr(err.msg, "no_such_file.yaml: cannot open") != NULL, "%s", err.msg);
}

Test(config, set_overrides_and_rejects) {
  ooo_config *c = load_ok(NULL);
  ic_err err;
  cr_assert_eq(ooo_config_set(c, "core.rob=128", &err), IC_OK, "%s", err.msg);
  cr_expect_eq(ooo_config_rob(c), 128);
  cr_expect_eq(ooo_config_set(c, "core.robb=1", &err), IC_EINPUT);
  cr_expect_str_eq(err.msg, "--set core.robb=1: unknown key 'core.robb'");
  cr_expect_eq(ooo_config_set(c, "core.rob", &err), IC_EINPUT);
  cr_expect_eq(ooo_config_set(c, "core.rob=-4", &err), IC_EINPUT);
  cr_expect_eq(ooo_config_set(c, "l1d.ways=3", &err), IC_EINPUT);
  cr_expect(strstr(err.msg, "not a power of two") != NULL, "%s", err.msg);
  /* a rejected value leaves the old one */
  cr_expect_eq(get(c, "l1d.ways"), 2);
  cr_expect_eq(ooo_config_rob(c), 128);
  ooo_config *d = ooo_config_clone(c);
  cr_assert_eq(ooo_config_set(d, "core.rob=32", &err), IC_OK);
  cr_expect_eq(ooo_config_rob(c), 128);
  cr_expect_eq(ooo_config_rob(d), 32);
  ooo_config_destroy(c);
  ooo_config_destroy(d);
}
