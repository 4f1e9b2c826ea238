/* cmd_icost.c: placeholder until the breakdown command is built. */
#include "cli.h"

int cmd_icost(int argc, char **argv) {
  (void)argc;
  (void)argv;
  return cli_fail(1, "breakdown: not implemented yet");
}
