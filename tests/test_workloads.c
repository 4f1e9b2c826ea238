/* test_workloads.c: every `short` workload of bench/workloads/manifest runs
 * to completion under `icost emu` and gives what qemu-riscv64 gives (stdout,
 * stderr, exit code). The workload directory is $ICOST_WORKLOADS or
 * ICOST_SOURCE_DIR/build/workloads (made by bench/workloads/build.sh); a
 * workload that is not built there is skipped with a message. With
 * ICOST_TRACE_WORKLOADS=1 the executed pc sequences are compared too (slow:
 * qemu logs every instruction; off by default to keep the suite short). */
#include "diff/diff_run.h"

#include <criterion/parameterized.h>

/* the manifest parser of the icost executable */
#include "../frontends/cli/workload.c"

#define WL_MAX_ARGS 8
#define WL_ARG_LEN 512

/* Fixed-size, pointer-free: Criterion copies parameters between processes. */
typedef struct wl_param {
  char name[64];
  char error[WL_ARG_LEN]; /* the manifest could not be read: the test fails with this */
  int argc;
  char argv[WL_MAX_ARGS][WL_ARG_LEN];
} wl_param;

ParameterizedTestParameters(workloads, short_matches_qemu) {
  cli_workload *ws = NULL;
  size_t n = 0;
  ic_err err = {{0}};
  ic_status st = cli_workload_list(NULL, "short", &ws, &n, &err);
  size_t cnt = st == IC_OK && n > 0 ? n : 1;
  wl_param *ps = cr_malloc(cnt * sizeof *ps);
  memset(ps, 0, cnt * sizeof *ps);
  if (st != IC_OK) {
    snprintf(ps[0].name, sizeof ps[0].name, "(manifest)");
    snprintf(ps[0].error, sizeof ps[0].error, "%s", err.msg);
  } else if (n == 0) {
    snprintf(ps[0].name, sizeof ps[0].name, "(manifest)");
    snprintf(ps[0].error, sizeof ps[0].error, "%s: no workload tagged short",
             cli_workload_manifest_path());
  }
  for (size_t i = 0; st == IC_OK && i < n; i++) {
    snprintf(ps[i].name, sizeof ps[i].name, "%s", ws[i].name);
    if (ws[i].argc > WL_MAX_ARGS) {
      snprintf(ps[i].error, sizeof ps[i].error, "workload %s: more than %d arguments",
               ws[i].name, WL_MAX_ARGS);
      continue;
    }
    ps[i].argc = ws[i].argc;
    for (int a = 0; a < ws[i].argc; a++) {
      if (strlen(ws[i].argv[a]) >= WL_ARG_LEN)
        snprintf(ps[i].error, sizeof ps[i].error, "workload %s: argument too long", ws[i].name);
      snprintf(ps[i].argv[a], WL_ARG_LEN, "%s", ws[i].argv[a]);
    }
  }
  cli_workload_list_free(ws, n);
  return cr_make_param_array(wl_param, ps, cnt);
}

ParameterizedTest(wl_param *p, workloads, short_matches_qemu, .timeout = 300) {
  cr_assert(p->error[0] == '\0', "%s", p->error);
  char *qemu = dr_which("qemu-riscv64");
  if (!qemu) cr_skip_test("qemu-riscv64 not found: workload %s skipped", p->name);
  for (int a = 0; a < p->argc; a++) {
    /* the program and every input under the workload directory must exist */
    const char *arg = p->argv[a];
    if (a == 0 || strncmp(arg, cli_workload_dir(), strlen(cli_workload_dir())) == 0)
      if (access(arg, R_OK) != 0)
        cr_skip_test("workload %s not built (%s missing; run bash bench/workloads/build.sh %s)",
                     p->name, arg, cli_workload_dir());
  }
  char *args[WL_MAX_ARGS];
  for (int a = 1; a < p->argc; a++) args[a - 1] = p->argv[a];
  char cap[600];
  mkdir(ICOST_BUILD_DIR "/workload-runs", 0755);
  snprintf(cap, sizeof cap, ICOST_BUILD_DIR "/workload-runs/%s", p->name);
  cr_log_info("workload %s", p->name);
  int code = dr_compare_runs(qemu, p->argv[0], p->argc - 1, args, NULL, NULL, cap);
  cr_expect_eq(code, 0, "workload %s exits %d under both", p->name, code);
  const char *tr = getenv("ICOST_TRACE_WORKLOADS");
  if (tr && strcmp(tr, "1") == 0) {
    char trace[700];
    snprintf(trace, sizeof trace, "%s.trace", cap);
    dr_compare_traces(qemu, p->argv[0], p->argc - 1, args, NULL, NULL, trace);
  }
  free(qemu);
}
