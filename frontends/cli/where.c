/* where.c: opening a run's symbols for the reports (where.h). */
#include "where.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "champsim.h"
#include "rv.h"
#include "trace.h"

int cli_where_option(cli_where_opts *o, int id, const char *v, ic_err *err) {
  if (id == CLI_OPT_NO_SYMBOLS) {
    o->off = 1;
    return 0;
  }
  if (!v || !*v) {
    ic_fail(err, IC_EINPUT, "--symbols: missing ELF file name");
    return -1;
  }
  o->symbols = v;
  return 0;
}

ic_symbols *cli_where_open(const cli_where_opts *o, const cli_run_opts *ro, const cli_run *run,
                           const ic_slack_pc *tab, size_t n) {
  if (o->off) return NULL;
  const char *path = o->symbols;
  if (!path && ro->trace) return NULL; /* a trace holds no symbols */
  if (!path && run->workload.argc > 0) path = run->workload.argv[0];
  if (!path) return NULL;
  ic_symbols *s = NULL;
  ic_err err;
  if (ic_sym_open(&s, path, &err) != IC_OK) {
    fprintf(stderr, "icost: warning: %s; showing pcs only\n", err.msg);
    return NULL;
  }
  if (ic_sym_warning(s)) fprintf(stderr, "icost: warning: %s\n", ic_sym_warning(s));
  if (ic_sym_is_pie(s) && !ic_sym_has_functions(s) && ic_sym_has_lines(s)) {
    fprintf(stderr, "icost: warning: %s: position-independent and without a symbol table, so where it was "
                    "loaded is unknown; showing pcs only\n", path);
    ic_sym_close(s);
    return NULL;
  }
  if (ic_sym_is_pie(s) && ic_sym_has_functions(s)) {
    uint64_t *pcs = malloc((n ? n : 1) * sizeof *pcs);
    int placed = 0;
    if (pcs) {
      for (size_t i = 0; i < n; i++) pcs[i] = tab[i].pc;
      placed = ic_sym_guess_bias(s, pcs, n);
      free(pcs);
    }
    if (!placed) {
      fprintf(stderr, "icost: warning: %s: no executed pc starts one of its functions, so where it was "
                      "loaded is unknown; showing pcs only\n", path);
      ic_sym_close(s);
      return NULL;
    }
  }
  return s;
}

void cli_where_disasm(ic_program_image img, uint64_t pc, char *buf, size_t cap) {
  ic_static_inst si;
  memset(&si, 0, sizeof si);
  if (!img.lookup || !img.lookup(img.ctx, pc, &si) || !si.valid) {
    snprintf(buf, cap, "?");
    return;
  }
  if (ic_trace_image_disasm(img, pc, buf, cap) || ic_champsim_image_disasm(img, pc, buf, cap))
    return; /* a trace of another isa */
  rv_disasm(si.raw, pc, buf, cap);
}

void cli_where_emit(ic_emit *em, const ic_symbols *sym, uint64_t pc, const char *unknown) {
  ic_sym_loc loc;
  const int found = sym ? ic_sym_lookup(sym, pc, &loc) : 0;
  char where[256];
  ic_emit_str(em, NULL, found ? ic_sym_format(&loc, found, pc, 1, where, sizeof where) : unknown);
  if (found & IC_SYM_FUNCTION) {
    ic_emit_str(em, NULL, loc.function);
    ic_emit_u64(em, NULL, loc.offset);
  } else {
    ic_emit_null(em, NULL);
    ic_emit_null(em, NULL);
  }
  if (found & IC_SYM_LINE) {
    ic_emit_str(em, NULL, loc.file);
    ic_emit_u64(em, NULL, loc.line);
  } else {
    ic_emit_null(em, NULL);
    ic_emit_null(em, NULL);
  }
}

int cli_window_option(const char *v, uint64_t *out, ic_err *err) {
  const int n = cli_count_option("--window", v, out, err);
  if (n == 0 && (*out < IC_SLACK_MIN_WINDOW || *out > IC_SLACK_MAX_WINDOW)) {
    ic_fail(err, IC_EINPUT, "--window %s: must be between %u and %u instructions", v, IC_SLACK_MIN_WINDOW,
            IC_SLACK_MAX_WINDOW);
    return -1;
  }
  return n;
}
