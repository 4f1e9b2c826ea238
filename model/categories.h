/* categories.h: the event categories icost breaks execution time into.
 *
 * One row per category: enum suffix, CLI name, one-line meaning. The model's
 * idealization of each (multisim) and the graph's (edge parts tagged with the
 * category are zeroed; edges whose existence belongs to it are dropped or
 * stretched) are in ../shared/DESIGN.md; adding a category is one row here
 * plus its two idealizations. A set of categories is a bit mask. */
#ifndef IC_CATEGORIES_H
#define IC_CATEGORIES_H

#include <stddef.h>
#include <stdint.h>

#define IC_CATEGORY_LIST(X) \
  X(DL1, "dl1", "L1 data-cache access latency") \
  X(WIN, "win", "finite instruction window (ROB, issue queue, load/store queue)") \
  X(BW, "bw", "fetch, issue and commit bandwidth") \
  X(BMISP, "bmisp", "branch mispredictions") \
  X(DMISS, "dmiss", "data-cache (L1, L2) and DTLB misses") \
  X(SHALU, "shalu", "one-cycle integer operations") \
  X(LGALU, "lgalu", "multi-cycle integer and floating-point operations") \
  X(IMISS, "imiss", "instruction-cache and ITLB misses")

typedef enum ic_category {
#define IC_X(e, n, d) IC_CAT_##e,
  IC_CATEGORY_LIST(IC_X)
#undef IC_X
  IC_CAT_COUNT,
  IC_CAT_NONE = 0xff /* a latency part no category owns */
} ic_category;

_Static_assert(IC_CAT_COUNT <= 32, "category masks are 32-bit");

typedef uint32_t ic_catmask;
#define IC_CATBIT(c) ((ic_catmask)1u << (c))

/* Window enlargement factor of the `win` idealization (DESIGN.md). */
#define IC_WIN_FACTOR 20
/* Bandwidth enlargement factor of the `bw` idealization. */
#define IC_BW_FACTOR 20

extern const char *const ic_category_names[IC_CAT_COUNT];
extern const char *const ic_category_help[IC_CAT_COUNT];

/* Category id for a CLI name, or -1. */
int ic_category_lookup(const char *name);

/* An item of a comma list without the spaces and tabs around it
 * ("dl1, win": "win"): *p and *len are narrowed in place. */
static inline void ic_list_item_trim(const char **p, size_t *len) {
  while (*len && (**p == ' ' || **p == '\t')) ++*p, --*len;
  while (*len && ((*p)[*len - 1] == ' ' || (*p)[*len - 1] == '\t')) --*len;
}

#endif
