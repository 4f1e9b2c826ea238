/* report.c: the provenance every report starts with, and icost's version
 * (report.h). */
#include "report.h"

#include <string.h>

#include "ic_version.h"

const char *cli_version(void) { return ICOST_VERSION; }

void cli_run_provenance(const cli_run_opts *o, const cli_run *r, const char *command,
                        ic_provenance *p, char hash[17]) {
  memset(p, 0, sizeof *p);
  p->version = cli_version();
  p->command = command;
  if (o->trace) {
    p->program = o->trace;
    p->trace = o->trace;
  } else if (o->prog_argc > 0) {
    p->program = o->prog_argv[0];
    p->argc = o->prog_argc;
    p->argv = o->prog_argv;
  } else {
    p->program = r->workload.argc ? r->workload.argv[0] : NULL;
    p->argc = r->workload.argc;
    p->argv = r->workload.argv;
    p->workload = r->workload.name;
  }
  if (r->config) {
    p->machine = ooo_config_name(r->config);
    snprintf(hash, 17, "%016llx", (unsigned long long)ooo_config_hash(r->config));
    p->machine_hash = hash;
  }
  p->config = o->config_path;
  p->noverrides = o->nsets;
  p->overrides = o->sets;
  p->seed = o->seed;
  p->skip = o->skip;
  p->max = o->max;
  p->has_max = o->max != 0;
}

ic_status cli_report_open(ic_emit **out, FILE *f, ic_emit_format fmt, const char *command,
                          const cli_run_opts *o, const cli_run *r, ic_err *err) {
  ic_status st = ic_emit_open(out, f, fmt, err);
  if (st != IC_OK) return st;
  ic_provenance p;
  char hash[17];
  cli_run_provenance(o, r, command, &p, hash);
  ic_emit_provenance(*out, &p);
  return IC_OK;
}

void cli_report_partial(ic_emit *em, const cli_run *r) {
  const char *why = cli_run_partial(r);
  if (!why) return;
  ic_emit_only(em, IC_EMIT_MACHINE);
  ic_emit_str(em, "partial", why);
  ic_emit_only(em, IC_EMIT_ONLY(IC_EMIT_TEXT));
  ic_emit_str(em, "PARTIAL", why);
  ic_emit_only(em, IC_EMIT_ALL);
}

ic_status cli_format_parse(const char *command, const char *value, ic_emit_format *out,
                           ic_err *err) {
  if (ic_emit_format_parse(value, out, err) == IC_OK) return IC_OK;
  return ic_fail(err, IC_EINPUT, "%s%s--format '%s': expected text, csv, yaml or json",
                 strcmp(command, "icost") ? command : "", strcmp(command, "icost") ? ": " : "",
                 value ? value : "");
}
