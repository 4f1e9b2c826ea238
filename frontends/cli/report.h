/* report.h: a command's report opened on the emitter (engine/emit.h) with
 * the run's provenance, and icost's version. */
#ifndef IC_CLI_REPORT_H
#define IC_CLI_REPORT_H

#include <stdio.h>

#include "emit.h"
#include "run.h"

/* icost's version: the project's, with `git describe` where it was built
 * from a git checkout ("0.1.0 (git ccba9e0-dirty)"). */
const char *cli_version(void);

/* The provenance of a set-up run; the strings point into o, r and buf (16
 * bytes for the machine hash), valid while they are. command names the
 * subcommand ("icost", "sim", ...). */
void cli_run_provenance(const cli_run_opts *o, const cli_run *r, const char *command,
                        ic_provenance *p, char hash[17]);

/* Opens a report of format fmt on f and writes the run's provenance. */
ic_status cli_report_open(ic_emit **out, FILE *f, ic_emit_format fmt, const char *command,
                          const cli_run_opts *o, const cli_run *r, ic_err *err);

/* A partial run's line (cli_run_partial), if any: `partial` in csv, yaml
 * and json, a PARTIAL line in text. */
void cli_report_partial(ic_emit *em, const cli_run *r);

/* --format's value: text, csv, yaml or json; IC_EINPUT naming the
 * command and the four. */
ic_status cli_format_parse(const char *command, const char *value, ic_emit_format *out,
                           ic_err *err);

#endif
