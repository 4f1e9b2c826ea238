/* fuzz_manifest.c: libFuzzer target for the workload manifest
 * (frontends/cli/workload.h): the input is a manifest file; listing every
 * entry, the short ones, and resolving the default and a named one must
 * each succeed or fail with a message. */
#include <stdint.h>

#include "fuzz_util.h"
#include "workload.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char path[256];
  fz_write("manifest", data, size, path, sizeof path);
  static const char *const tags[] = {NULL, "short", "full", "default"};
  for (size_t t = 0; t < sizeof tags / sizeof tags[0]; t++) {
    cli_workload *ws = NULL;
    size_t n = 0;
    ic_err err = {{0}};
    ic_status st = cli_workload_list(path, tags[t], &ws, &n, &err);
    fz_check(st, &err);
    if (st == IC_OK)
      for (size_t i = 0; i < n; i++)
        if (ws[i].argc < 1 || !ws[i].argv[0] || ws[i].argv[ws[i].argc] || !ws[i].name) abort();
    cli_workload_list_free(ws, n);
  }
  static const char *const names[] = {NULL, "mix", "a"};
  for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
    cli_workload w;
    memset(&w, 0, sizeof w);
    ic_err err = {{0}};
    ic_status st = cli_workload_resolve_from(&w, path, "/w", names[k], 0, NULL, &err);
    fz_check(st, &err);
    if (st == IC_OK && (w.argc < 1 || !w.argv[0] || w.argv[w.argc])) abort();
    cli_workload_free(&w);
  }
  return 0;
}
