/* cmd_sim.c: placeholder until the subcommand is built. */
#include "cli.h"

int cmd_sim(int argc, char **argv) {
  (void)argc;
  (void)argv;
  return cli_fail(1, "sim: not implemented yet");
}
