/* categories.c: name and help tables of the event categories. */
#include "categories.h"

#include <stdio.h>
#include <string.h>

const char *const ic_category_names[IC_CAT_COUNT] = {
#define IC_X(e, n, d) n,
  IC_CATEGORY_LIST(IC_X)
#undef IC_X
};

const char *const ic_category_help[IC_CAT_COUNT] = {
#define IC_X(e, n, d) d,
  IC_CATEGORY_LIST(IC_X)
#undef IC_X
};

int ic_category_lookup(const char *name) {
  for (int c = 0; c < IC_CAT_COUNT; c++)
    if (strcmp(name, ic_category_names[c]) == 0) return c;
  return -1;
}

const char *ic_category_known(char *buf, size_t cap) {
  size_t at = 0;
  if (cap) buf[0] = 0;
  for (int k = 0; k < IC_CAT_COUNT && at + 1 < cap; k++) {
    int n = snprintf(buf + at, cap - at, "%s%s", k ? "," : "", ic_category_names[k]);
    if (n < 0) break;
    at += (size_t)n;
  }
  return buf;
}

/* Names of the scoped ids, for printing only: set once by the command line
 * (ic_scopes_publish) before any run reads them; no computation reads
 * them, so two runs with different scopes in one process differ only in
 * the row names they would print. */
static char scoped_names[IC_CAT_IDS][96];

void ic_category_name_set(unsigned id, const char *name) {
  if (!ic_cat_is_scoped(id)) return;
  snprintf(scoped_names[id], sizeof scoped_names[id], "%s", name);
}

const char *ic_category_name(unsigned id) {
  if (id < IC_CAT_COUNT) return ic_category_names[id];
  if (ic_cat_is_scoped(id) && scoped_names[id][0]) return scoped_names[id];
  return "?";
}
