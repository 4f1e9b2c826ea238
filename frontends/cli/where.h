/* where.h: the functions and source lines of a run's pcs for the reports of
 * `icost critical` and `icost annotate` (frontends/symbols/symbols.h).
 *
 * The symbols come from the program's ELF file, or from --symbols FILE (a
 * trace file keeps no symbols: name the recorded program's ELF file; or a
 * separate debug file), never from a trace by itself; --no-symbols turns
 * them off. What cannot be read is one warning line on stderr and the report
 * goes on with what there is (functions without lines, or bare pcs). */
#ifndef IC_CLI_WHERE_H
#define IC_CLI_WHERE_H

#include <stddef.h>
#include <stdint.h>

#include "emit.h"
#include "run.h"
#include "slack.h"
#include "symbols.h"

typedef struct cli_where_opts {
  const char *symbols; /* --symbols FILE, or NULL: the program */
  int off;             /* --no-symbols */
} cli_where_opts;

/* The help lines of the two options. */
#define CLI_WHERE_HELP                                                                  \
  "  --symbols FILE functions and source lines from the ELF file FILE (default: the\n"   \
  "                 program's own; for --trace, the recorded program; or a separate\n"  \
  "                 debug file). Functions come from the symbol table, file:line\n"     \
  "                 from DWARF (build with -g); what the file lacks is left out and a\n" \
  "                 pc then stands for itself\n"                                        \
  "  --no-symbols   report pcs only\n"

/* The two options' ids and table entries (opts.h), and the callback's part
 * for them: 0, or -1 with *err for a bad value. */
enum { CLI_OPT_SYMBOLS = CLI_OPT_COMMON - 2, CLI_OPT_NO_SYMBOLS = CLI_OPT_COMMON - 1 };
#define CLI_WHERE_OPTIONS                                  \
  {"symbols", required_argument, NULL, CLI_OPT_SYMBOLS}, \
  {"no-symbols", no_argument, NULL, CLI_OPT_NO_SYMBOLS}
int cli_where_option(cli_where_opts *o, int id, const char *value, ic_err *err);

/* The symbols of the run (NULL: none, or off), placed at the load address
 * the executed pcs of tab (n entries) show for a position-independent
 * program. Warnings go to stderr. Close with ic_sym_close. */
ic_symbols *cli_where_open(const cli_where_opts *o, const cli_run_opts *ro, const cli_run *run,
                           const ic_slack_pc *tab, size_t n);

/* --window W of the slack commands (critical, annotate): a count within
 * the slack window's limits; 0, or -1 with *err saying why. */
int cli_window_option(const char *v, uint64_t *out, ic_err *err);

/* The disassembly of the instruction at pc in img ("?" where there is none):
 * RISC-V, or the trace's own isa (x86-64, AArch64, ChampSim). */
void cli_where_disasm(ic_program_image img, uint64_t pc, char *buf, size_t cap);

/* A report row's location cells for pc (sym may be NULL): the formatted
 * location (function+offset file:line as far as known, else `unknown`),
 * then function, offset, file and line, null where unknown. */
void cli_where_emit(ic_emit *em, const ic_symbols *sym, uint64_t pc, const char *unknown);

#endif
