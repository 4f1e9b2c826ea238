/* categories.c: name and help tables of the event categories. */
#include "categories.h"

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
