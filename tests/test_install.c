/* test_install.c: `cmake --install` of the build into a temporary prefix
 * gives bin/icost, lib/icost/icost-qemu-plugin.so, the configs under
 * share/icost/configs and the man page man1/icost.1; the installed icost,
 * run from another directory, resolves a user's config in /tmp that says
 * `base: NAME` against the installed configs. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_cmd.h"

static int exists(const char *dir, const char *rel) {
  char p[600];
  struct stat st;
  snprintf(p, sizeof p, "%s/%s", dir, rel);
  return stat(p, &st) == 0 && st.st_size > 0;
}

Test(install, prefix_layout_and_base_from_anywhere) {
  char pre[] = "/tmp/icost_install_XXXXXX";
  cr_assert(mkdtemp(pre));
  char cmd[2048];
  int st;
  snprintf(cmd, sizeof cmd, "cmake --install %s --prefix %s >/dev/null 2>&1", ICOST_BUILD_DIR, pre);
  free(run_cmd(cmd, &st));
  cr_assert_eq(st, 0, "%s", cmd);
  cr_assert(exists(pre, "bin/icost"));
  cr_assert(exists(pre, "lib/icost/icost-qemu-plugin.so"));
  cr_assert(exists(pre, "share/icost/configs/baseline.yaml"));
  cr_assert(exists(pre, "share/icost/configs/narrow.yaml"));
  cr_assert(exists(pre, "share/man/man1/icost.1"));
  char man[700];
  snprintf(man, sizeof man, "grep -q '^\\.TH ICOST' %s/share/man/man1/icost.1", pre);
  cr_assert_eq(system(man), 0, "not a man page");

  /* a machine only the installed share dir holds, and the built-in name */
  snprintf(cmd, sizeof cmd,
           "cp %s/share/icost/configs/narrow.yaml %s/share/icost/configs/only_installed.yaml && "
           "printf 'base: only_installed.yaml\\ncore:\\n  rob: 77\\n' > %s/a.yaml && "
           "printf 'base: baseline.yaml\\ncore:\\n  rob: 99\\n' > %s/b.yaml",
           pre, pre, pre, pre);
  cr_assert_eq(system(cmd), 0);
  snprintf(cmd, sizeof cmd, "cd / && %s/bin/icost sim --config %s/a.yaml --print-config 2>&1", pre, pre);
  char *out = run_cmd(cmd, &st);
  cr_assert_eq(st, 0, "%s", out);
  cr_assert(strstr(out, "rob: 77"), "%s", out);
  /* narrow.yaml's own keys came through the installed base */
  snprintf(cmd, sizeof cmd, "cd / && %s/bin/icost sim --config %s/share/icost/configs/narrow.yaml --print-config",
           pre, pre);
  char *want = run_cmd(cmd, &st);
  cr_assert_eq(st, 0);
  const char *iq = strstr(want, "  iq: ");
  cr_assert(iq);
  char iqline[64];
  snprintf(iqline, sizeof iqline, "%.*s", (int)strcspn(iq, "#\n"), iq);
  cr_assert(strstr(out, iqline), "want %s from narrow.yaml in %s", iqline, out);
  free(out);
  free(want);
  snprintf(cmd, sizeof cmd, "cd / && %s/bin/icost sim --config %s/b.yaml --print-config 2>&1", pre, pre);
  out = run_cmd(cmd, &st);
  cr_assert_eq(st, 0, "%s", out);
  cr_assert(strstr(out, "rob: 99"), "%s", out);
  free(out);
  /* a name found nowhere: one line naming the file and the base */
  snprintf(cmd, sizeof cmd,
           "printf 'base: no_such_machine.yaml\\n' > %s/c.yaml && cd / && %s/bin/icost sim --config %s/c.yaml 2>&1",
           pre, pre, pre);
  out = run_cmd(cmd, &st);
  cr_assert_eq(st, 2, "%s", out);
  cr_assert(strstr(out, "c.yaml:1:7: base file") && strstr(out, "no_such_machine.yaml"), "%s", out);
  cr_assert_eq(strchr(out, '\n'), out + strlen(out) - 1, "one line: %s", out);
  free(out);
  snprintf(cmd, sizeof cmd, "rm -rf %s", pre);
  cr_assert_eq(system(cmd), 0);
}
