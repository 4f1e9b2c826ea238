/* cli.h: the icost command's subcommands and shared helpers.
 *
 * main.c dispatches on the first argument; each subcommand lives in its own
 * cmd_*.c file, parses its own options and returns the process exit code:
 * 0 success, 1 a failed run, 2 bad usage or bad input (README, Options). */
#ifndef IC_CLI_H
#define IC_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "ic_err.h"

int cmd_emu(int argc, char **argv);      /* icost emu: run a program functionally */
int cmd_sim(int argc, char **argv);      /* icost sim: timing model statistics */
int cmd_icost(int argc, char **argv);    /* icost [options]: cost/icost breakdown */
int cmd_critical(int argc, char **argv); /* icost critical: slack and criticality */
int cmd_annotate(int argc, char **argv); /* icost annotate: critical cycles per function or line */
int cmd_graph(int argc, char **argv);    /* icost graph: export a graph window */
int cmd_validate(int argc, char **argv); /* icost validate: methods against multisim */
int cmd_profile(int argc, char **argv);  /* icost profile: write a sample file */
int cmd_analyze(int argc, char **argv);  /* icost analyze: stitch a sample file */
int cmd_record(int argc, char **argv);   /* icost record: write a trace file */
int cmd_sweep(int argc, char **argv);    /* icost sweep: design-space sweep */
int cmd_pipeview(int argc, char **argv); /* icost pipeview: a window as a Kanata log */

/* Prints "icost: <msg>" on stderr and returns `code`. */
int cli_fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prints the ic_err message of a failed library call; returns the exit code
 * that matches the status. */
int cli_fail_err(ic_status st, const ic_err *err);
/* The fragment methods: a note on stderr where win is among the ncat
 * categories cats and fragments of len instructions are shorter than the
 * default for a ROB of rob (ic_fragment_length_for): they see only part of
 * what win removes. */
void cli_note_fragments(const uint8_t *cats, int ncat, uint64_t len, uint32_t rob);
/* The default fragment length for a ROB of rob: 3 windows of win
 * (ic_fragment_length_for), but at most half a run of max timed
 * instructions where that half is at least IC_GRAPHFRAG_DEFAULT_LEN: the
 * blocks start at a random offset below their length, so a run of 2L - 1
 * holds one whole block, and a short run on a large machine gets fragments
 * instead of none. */
uint64_t cli_fragment_length(uint32_t rob, uint64_t max);

#endif
