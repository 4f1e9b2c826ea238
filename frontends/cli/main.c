/* main.c: the icost command's entry point; dispatches to subcommands. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>
#include <stdio.h>
#include <string.h>

#include "categories.h"
#include "cli.h"
#include "graphfrag.h"
#include "report.h"

int cli_fail(int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fputs("icost: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  return code;
}

void cli_note_fragments(const uint8_t *cats, int ncat, uint64_t len, uint32_t rob) {
  const uint64_t full = ic_fragment_length_for(rob);
  for (int k = 0; k < ncat; k++)
    if (cats[k] == IC_CAT_WIN && len < full) {
      fprintf(stderr,
              "icost: note: fragments of %llu instructions are shorter than 3 windows of win "
              "(%llu on this machine): they see only part of what win removes\n",
              (unsigned long long)len, (unsigned long long)full);
      return;
    }
}

uint64_t cli_fragment_length(uint32_t rob, uint64_t max) {
  const uint64_t len = ic_fragment_length_for(rob), half = max / 2;
  return half >= IC_GRAPHFRAG_DEFAULT_LEN && len > half ? half : len;
}

int cli_fail_err(ic_status st, const ic_err *err) {
  return cli_fail(st == IC_EINPUT ? 2 : 1, "%s", err->msg);
}

static void usage(FILE *f) {
  fputs("usage: icost [options] [-- PROGRAM ARGS]   cost and interaction-cost breakdown\n"
        "       icost emu [--stats] [--skip N] [--max N] -- PROGRAM [ARGS]\n"
        "       icost sim [options] [-- PROGRAM ARGS]       timing-model statistics\n"
        "       icost critical [options] [-- PROGRAM ARGS]  slack and criticality\n"
        "       icost annotate [--by function|line] [options] [-- PROGRAM ARGS]\n"
        "                                                   critical cycles per function or line\n"
        "       icost graph --from N --count M [options]    export a graph window\n"
        "       icost validate [options] [-- PROGRAM ARGS]  every method against multisim\n"
        "       icost profile -o FILE [options] [-- PROGRAM ARGS]  collect profiler samples\n"
        "       icost analyze FILE [options]                stitch samples, breakdown\n"
        "       icost record -o FILE [options] -- PROGRAM ARGS  write a trace file\n"
        "       icost COMMAND [options] --trace FILE        any command on a trace file\n"
        "       icost sweep --vary KEY=V1,V2 ... --out DIR  design-space sweep\n"
        "\n"
        "       icost --version                             one line: icost's version\n"
        "\n"
        "Run `icost COMMAND --help` for the options and the meaning of every number.\n"
        "Options read as GNU getopt_long reads them: --opt VALUE or --opt=VALUE, -j N or\n"
        "-jN; long names in full (no abbreviations); `--` ends the options and what\n"
        "follows is the program and its arguments.\n",
        f);
}

struct subcommand {
  const char *name;
  int (*fn)(int, char **);
};

static const struct subcommand subcommands[] = {
    {"emu", cmd_emu},           {"sim", cmd_sim},         {"critical", cmd_critical},
    {"graph", cmd_graph},       {"validate", cmd_validate}, {"profile", cmd_profile},
    {"analyze", cmd_analyze},   {"annotate", cmd_annotate},
    {"record", cmd_record},
    {"sweep", cmd_sweep},
    {"pipeview", cmd_pipeview},
};

/* At exit, as GNU tools do: output that could not be written (a full disk,
 * /dev/full, a closed pipe) is a failed run, exit 1, whatever the command
 * returned. */
static void close_stdout(void) {
  int bad = ferror(stdout) != 0;
  if (fclose(stdout) != 0) bad = 1;
  if (bad) {
    fprintf(stderr, "icost: stdout: write error: %s\n", strerror(errno ? errno : EIO));
    _exit(1);
  }
}

int main(int argc, char **argv) {
  atexit(close_stdout);
  if (argc >= 2 && strcmp(argv[1], "help") == 0) {
    usage(stdout);
    return 0;
  }
  if (argc >= 2 && strcmp(argv[1], "--version") == 0) {
    printf("icost %s\n", cli_version());
    return 0;
  }
  if (argc >= 2 && argv[1][0] != '-') {
    for (size_t i = 0; i < sizeof subcommands / sizeof subcommands[0]; i++)
      if (strcmp(argv[1], subcommands[i].name) == 0) return subcommands[i].fn(argc - 1, argv + 1);
    return cli_fail(2, "unknown command '%s' (`icost help` lists the commands)", argv[1]);
  }
  return cmd_icost(argc, argv);
}
