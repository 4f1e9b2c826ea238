/* fuzz_cli.c: libFuzzer target for the command line: the options every
 * program-running command shares (cli_run_parse on getopt_long,
 * frontends/cli/run.h and opts.h), the
 * counts and sizes they take (10M, 512K), category lists and output
 * formats. The input is the argument vector, one argument per line
 * (argv[0] first: "icost" or a command's name). */
#include <stdint.h>

#include "breakdown.h"
#include "fuzz_util.h"
#include "run.h"
#include "solver.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 4096) return 0;
  char *text = malloc(size + 1);
  char *argv[256];
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = 0;
  int argc = 0;
  for (char *p = text; p && argc < 255;) {
    char *nl = strchr(p, '\n');
    if (nl) *nl = 0;
    argv[argc++] = p;
    p = nl ? nl + 1 : NULL;
  }
  argv[argc] = NULL;
  cli_run_opts o;
  ic_err err = {{0}};
  ic_status st = cli_run_parse(argc, argv, &o, NULL, NULL, NULL, &err);
  fz_check(st, &err);
  if (st == IC_OK) {
    if (o.nsets > CLI_RUN_MAX_SETS || o.prog_argc < 0 || o.prog_argc > argc) abort();
    for (int k = 0; k < o.prog_argc; k++)
      if (!o.prog_argv[k]) abort();
  }
  for (int i = 0; i < argc; i++) {
    uint64_t v;
    cli_parse_count(argv[i], &v);
    cli_parse_bytes(argv[i], &v);
    uint8_t cats[IC_SOLVER_MAX_CATS];
    int ncat = 0;
    err.msg[0] = 0;
    st = ic_parse_categories(argv[i], cats, &ncat, &err);
    fz_check(st, &err);
    if (st == IC_OK && (ncat < 1 || ncat > IC_SOLVER_MAX_CATS)) abort();
    ic_format f;
    err.msg[0] = 0;
    fz_check(ic_format_parse(argv[i], &f, &err), &err);
  }
  free(text);
  return 0;
}
