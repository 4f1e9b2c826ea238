/* sweep_out.c: `icost sweep --out DIR --export csv|json` and `--plot
 * PLOTDIR`: the results store read back as one table, and its charts
 * (sweep_cli.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "sweep.h"
#include "sweep_cli.h"

int sweep_read_out(const char *dir, int fmt, const char *plotdir) {
  ic_sweep_table t;
  ic_err err;
  ic_status st = ic_sweep_table_load(&t, dir, &err);
  if (st != IC_OK) return cli_fail(2, "sweep: %s", err.msg);
  int rc = 0;
  if (fmt >= 0) {
    st = ic_sweep_export(&t, fmt, stdout, &err);
    if (st != IC_OK || fflush(stdout) != 0) rc = cli_fail(1, "sweep: cannot write the table");
  }
  if (rc == 0 && plotdir) rc = sweep_plot(&t, plotdir);
  ic_sweep_table_free(&t);
  return rc;
}

