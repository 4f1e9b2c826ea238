/* sweep_out.c: `icost sweep --out DIR --export csv|json` and `--plot
 * PLOTDIR`: the results store read back as one table, and its charts
 * (sweep_cli.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "report.h"
#include "sweep.h"
#include "sweep_cli.h"

/* The export's own provenance: the store holds runs of many programs,
   machines and overrides, so those are null here and each run carries its
   own. */
static ic_status export_table(const ic_sweep_table *t, ic_emit_format fmt, ic_err *err) {
  ic_emit *em;
  ic_status st = ic_emit_open(&em, stdout, fmt, err);
  if (st != IC_OK) return st;
  if (fmt != IC_EMIT_CSV) {
    const ic_provenance p = {.version = cli_version(), .command = "sweep"};
    ic_emit_provenance(em, &p);
  }
  if ((st = ic_sweep_export(t, em, err)) != IC_OK) {
    ic_emit_abandon(em);
    return st;
  }
  return ic_emit_close(em, err);
}

int sweep_read_out(const char *dir, int fmt, const char *plotdir) {
  ic_sweep_table t;
  ic_err err;
  ic_status st = ic_sweep_table_load(&t, dir, &err);
  if (st != IC_OK) return cli_fail(2, "sweep: %s", err.msg);
  int rc = 0;
  if (fmt >= 0 && (st = export_table(&t, (ic_emit_format)fmt, &err)) != IC_OK)
    rc = cli_fail(1, "sweep: cannot write the table: %s", err.msg);
  if (rc == 0 && plotdir) rc = sweep_plot(&t, plotdir);
  ic_sweep_table_free(&t);
  return rc;
}
