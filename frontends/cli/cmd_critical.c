/* cmd_critical.c: placeholder until the slack/criticality and graph export
 * commands are built. */
#include "cli.h"

int cmd_critical(int argc, char **argv) {
  (void)argc;
  (void)argv;
  return cli_fail(1, "critical: not implemented yet");
}

int cmd_graph(int argc, char **argv) {
  (void)argc;
  (void)argv;
  return cli_fail(1, "graph: not implemented yet");
}
