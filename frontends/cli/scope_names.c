/* scope_names.c: the category lists of the timing commands, with scoped
 * categories (model/scope.h) whose functions and source lines are looked
 * up in the program (frontends/symbols). */
#include <stdlib.h>

#include "run.h"
#include "symbols.h"

struct resolver {
  const char *program;
  ic_symbols *sym; /* opened at the first name, NULL before */
};

/* The one place names become pc ranges (ic_scope_resolve_fn). */
static ic_status resolve_where(void *ctx, const char *where, ic_pc_range *r, int *nr, int cap,
                               ic_err *err) {
  struct resolver *rs = ctx;
  *nr = 0;
  if (!rs->sym) {
    if (!rs->program)
      return ic_fail(err, IC_EINPUT, "no program to look '%s' up in (give a pc range 0xLO-0xHI)",
                     where);
    ic_status st = ic_sym_open(&rs->sym, rs->program, err);
    if (st != IC_OK) return st;
  }
  ic_sym_range *out = NULL;
  size_t n = 0;
  ic_status st = ic_sym_where(rs->sym, where, &out, &n, err);
  if (st != IC_OK) return st;
  if (n > (size_t)cap) {
    free(out);
    return ic_fail(err, IC_EINPUT, "'%s' is %zu pc ranges (at most %d)", where, n, cap);
  }
  for (size_t k = 0; k < n; k++) r[k] = (ic_pc_range){out[k].lo, out[k].hi};
  *nr = (int)n;
  free(out);
  return IC_OK;
}

ic_status cli_categories(const char *program, const char *list, uint8_t *cats, int *ncat,
                         int max, ic_scopes *scopes, ic_err *err) {
  struct resolver rs = {program, NULL};
  ic_status st = ic_scopes_parse(list, cats, ncat, max, scopes, resolve_where, &rs, err);
  if (rs.sym) ic_sym_close(rs.sym);
  if (st == IC_OK) ic_scopes_publish(scopes);
  return st;
}
