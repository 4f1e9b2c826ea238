/* test_workload_manifest.c: the workload manifest parser and program
 * resolution of frontends/cli/workload.c, on temporary manifests (good and
 * malformed) and on the project's own manifest. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* workload.c belongs to the icost executable, not the library: test it by
 * compiling it into this test. */
#include "../frontends/cli/workload.c"

static char tmpdir[] = "/tmp/icost-wl-XXXXXX";
static char manifest[256];

static void setup(void) {
  cr_assert_not_null(mkdtemp(tmpdir));
  snprintf(manifest, sizeof manifest, "%s/manifest", tmpdir);
}

static void teardown(void) {
  unlink(manifest);
  rmdir(tmpdir);
}

static void write_manifest(const char *text, size_t len) {
  FILE *f = fopen(manifest, "wb");
  cr_assert_not_null(f);
  cr_assert_eq(fwrite(text, 1, len, f), len);
  fclose(f);
}
#define WRITE(s) write_manifest((s), sizeof(s) - 1)

static const char good[] =
    "# workloads for the test\n"
    "\n"
    "alpha   full      {W}/alpha 1000   # trailing comment\n"
    "alpha.short\tshort\t{W}/alpha 10\n"
    "beta    default,full  {W}/beta -c {W}/in.{W}\n"
    "gamma   -         /bin/true\n"
    "   \t  \n"
    "gamma.s short,full /bin/echo a#b\n";

TestSuite(workload_manifest, .init = setup, .fini = teardown);

Test(workload_manifest, list_by_tag_replaces_W) {
  WRITE(good);
  setenv("ICOST_WORKLOADS", "/wd", 1);
  cli_workload *ws;
  size_t n;
  ic_err err = {{0}};
  cr_assert_eq(cli_workload_list(manifest, "short", &ws, &n, &err), IC_OK, "%s", err.msg);
  cr_assert_eq(n, 2);
  cr_assert_str_eq(ws[0].name, "alpha.short");
  cr_assert_eq(ws[0].argc, 2);
  cr_assert_str_eq(ws[0].argv[0], "/wd/alpha");
  cr_assert_str_eq(ws[0].argv[1], "10");
  cr_assert_null(ws[0].argv[2]);
  cr_assert_str_eq(ws[1].name, "gamma.s");
  cr_assert_eq(ws[1].argc, 2);
  cr_assert_str_eq(ws[1].argv[1], "a#b"); /* '#' inside a token is not a comment */
  cli_workload_list_free(ws, n);

  cr_assert_eq(cli_workload_list(manifest, "full", &ws, &n, &err), IC_OK, "%s", err.msg);
  cr_assert_eq(n, 3);
  cr_assert_str_eq(ws[1].name, "beta");
  cr_assert_eq(ws[1].argc, 3);
  cr_assert_str_eq(ws[1].argv[2], "/wd/in./wd");
  cli_workload_list_free(ws, n);

  cr_assert_eq(cli_workload_list(manifest, NULL, &ws, &n, &err), IC_OK, "%s", err.msg);
  cr_assert_eq(n, 5); /* untagged gamma too */
  cr_assert_str_eq(ws[3].name, "gamma");
  cli_workload_list_free(ws, n);
}

Test(workload_manifest, resolve_default_name_and_args) {
  WRITE(good);
  cli_workload w;
  ic_err err = {{0}};
  cr_assert_eq(cli_workload_resolve_from(&w, manifest, "/x", NULL, 0, NULL, &err), IC_OK, "%s",
               err.msg);
  cr_assert_str_eq(w.name, "beta");
  cr_assert_str_eq(w.argv[0], "/x/beta");
  cr_assert_str_eq(w.argv[2], "/x/in./x");
  cr_assert_null(w.argv[3]);
  cli_workload_free(&w);

  cr_assert_eq(cli_workload_resolve_from(&w, manifest, "/x", "alpha.short", 0, NULL, &err),
               IC_OK, "%s", err.msg);
  cr_assert_str_eq(w.argv[0], "/x/alpha");
  cli_workload_free(&w);

  char *args[] = {"/some/dir/prog", "{W}", "b", NULL};
  cr_assert_eq(cli_workload_resolve_from(&w, manifest, "/x", "alpha", 3, args, &err), IC_OK);
  cr_assert_str_eq(w.name, "prog");
  cr_assert_eq(w.argc, 3);
  cr_assert_str_eq(w.argv[1], "{W}"); /* given programs are taken literally */
  cr_assert_null(w.argv[3]);
  cli_workload_free(&w);
  cli_workload_free(&w); /* a freed workload may be freed again */
}

Test(workload_manifest, unknown_name_lists_known) {
  WRITE(good);
  cli_workload w;
  ic_err err = {{0}};
  cr_assert_eq(cli_workload_resolve_from(&w, manifest, "/x", "delta", 0, NULL, &err), IC_EINPUT);
  cr_assert_not_null(strstr(err.msg, manifest));
  cr_assert_not_null(strstr(err.msg, "'delta'"), "%s", err.msg);
  cr_assert_not_null(strstr(err.msg, "alpha.short"), "%s", err.msg);
}

Test(workload_manifest, no_default) {
  WRITE("a full /bin/true\n");
  cli_workload w;
  ic_err err = {{0}};
  cr_assert_eq(cli_workload_resolve_from(&w, manifest, "/x", NULL, 0, NULL, &err), IC_EINPUT);
  cr_assert_not_null(strstr(err.msg, "default"), "%s", err.msg);
  cr_assert_null(w.argv);
}

Test(workload_manifest, bad_tag_argument) {
  WRITE(good);
  cli_workload *ws;
  size_t n;
  ic_err err = {{0}};
  cr_assert_eq(cli_workload_list(manifest, "medium", &ws, &n, &err), IC_EINPUT);
  cr_assert_not_null(strstr(err.msg, "medium"), "%s", err.msg);
  cr_assert_eq(cli_workload_list(manifest, "short,full", &ws, &n, &err), IC_EINPUT);
}

Test(workload_manifest, missing_file) {
  cli_workload *ws;
  size_t n;
  ic_err err = {{0}};
  cr_assert_eq(cli_workload_list(manifest, NULL, &ws, &n, &err), IC_EINPUT);
  cr_assert_not_null(strstr(err.msg, manifest), "%s", err.msg);
  cr_assert_not_null(strstr(err.msg, "No such file"), "%s", err.msg);
}

/* Each malformed manifest must fail, naming the file, the line and a word
 * of the reason. */
static void expect_bad(const char *text, size_t len, int line, const char *why) {
  write_manifest(text, len);
  cli_workload *ws = NULL;
  size_t n = 0;
  ic_err err = {{0}};
  cr_assert_eq(cli_workload_list(manifest, NULL, &ws, &n, &err), IC_EINPUT, "accepted: %s", text);
  cr_assert_null(ws);
  char where[300];
  snprintf(where, sizeof where, "%s:%d:", manifest, line);
  cr_assert_not_null(strstr(err.msg, where), "'%s' lacks '%s'", err.msg, where);
  cr_assert_not_null(strstr(err.msg, why), "'%s' lacks '%s'", err.msg, why);
  /* resolving by name fails the same way, even for a good entry */
  cli_workload w;
  ic_err err2 = {{0}};
  cr_assert_eq(cli_workload_resolve_from(&w, manifest, "/x", "ok", 0, NULL, &err2), IC_EINPUT);
  cr_assert_str_eq(err.msg, err2.msg);
}
#define BAD(s, line, why) expect_bad((s), sizeof(s) - 1, (line), (why))

Test(workload_manifest, malformed_lines) {
  BAD("ok full /bin/true\nlonely\n", 2, "expected NAME TAGS");
  BAD("ok full /bin/true\nnocmd short\n", 2, "no command");
  BAD("ok full /bin/true\nx  short  # comment hides the command\n", 2, "no command");
  BAD("ok full /bin/true\nx medium /bin/true\n", 2, "unknown tag 'medium'");
  BAD("ok full /bin/true\nx short,,full /bin/true\n", 2, "unknown tag ''");
  BAD("ok full /bin/true\nx short, /bin/true\n", 2, "unknown tag ''");
  BAD("ok full /bin/true\nx -,short /bin/true\n", 2, "unknown tag '-'");
  BAD("ok full /bin/true\nx Short /bin/true\n", 2, "unknown tag 'Short'");
  BAD("ok full /bin/true\n\n\nok short /bin/false\n", 4, "already defined at line 1");
  BAD("ok default /bin/true\nb default /bin/true\n", 2, "second default");
  BAD("ok full /bin/true\nb/c full /bin/true\n", 2, "bad workload name");
  BAD("ok full /bin/true\nx full /bin/tr\0ue\n", 2, "NUL byte");
}

Test(workload_manifest, resolve_checks_program_is_built) {
  setenv("ICOST_WORKLOADS", tmpdir, 1); /* nothing built here */
  cli_workload w;
  ic_err err = {{0}};
  ic_status st = cli_workload_resolve(&w, NULL, 0, NULL, &err);
  cr_assert_eq(st, IC_EINPUT);
  cr_assert_not_null(strstr(err.msg, tmpdir), "%s", err.msg);
  cr_assert_not_null(strstr(err.msg, "build.sh"), "%s", err.msg);
  cr_assert_null(w.argv);
}

/* The project's manifest: well formed, exactly one default entry, and every
 * workload with a `full` entry NAME has a `short` entry NAME.short. */
Test(workload_manifest, project_manifest_is_complete) {
  setenv("ICOST_WORKLOADS", "/wd", 1);
  cli_workload *full, *shrt, *dflt;
  size_t nf, ns, nd;
  ic_err err = {{0}};
  cr_assert_eq(cli_workload_list(NULL, "full", &full, &nf, &err), IC_OK, "%s", err.msg);
  cr_assert_eq(cli_workload_list(NULL, "short", &shrt, &ns, &err), IC_OK, "%s", err.msg);
  cr_assert_eq(cli_workload_list(NULL, "default", &dflt, &nd, &err), IC_OK, "%s", err.msg);
  cr_assert_eq(nd, 1);
  cr_assert_geq(nf, 6);
  for (size_t i = 0; i < nf; i++) {
    char want[128];
    snprintf(want, sizeof want, "%s.short", full[i].name);
    int found = 0;
    for (size_t j = 0; j < ns; j++) found |= strcmp(shrt[j].name, want) == 0;
    cr_expect(found, "full workload %s has no short entry %s", full[i].name, want);
    cr_expect_eq(strncmp(full[i].argv[0], "/wd/", 4), 0, "%s runs a program outside {W}",
                 full[i].name);
  }
  cli_workload_list_free(full, nf);
  cli_workload_list_free(shrt, ns);
  cli_workload_list_free(dflt, nd);
}
