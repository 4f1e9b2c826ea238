/* cmd_emu.c: placeholder until the subcommand is built. */
#include "cli.h"

int cmd_emu(int argc, char **argv) {
  (void)argc;
  (void)argv;
  return cli_fail(1, "emu: not implemented yet");
}
