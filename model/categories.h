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

/* Category ids. 0 .. IC_CAT_COUNT-1 are the base categories above; a scoped
 * category (`dmiss@f`, model/scope.h: the base's events of the instructions
 * in some pc ranges only) has the id IC_CAT_COUNT * (slot + 1) + base, slot
 * 0 .. IC_SCOPE_SLOTS-1, so that every id fits a 32-bit ic_catmask and its
 * base is id % IC_CAT_COUNT everywhere without a table. A latency part
 * tagged with a scoped id is idealized under a mask holding that id or its
 * base (ic_cat_idealized). */
#define IC_SCOPE_SLOTS 3
#define IC_CAT_IDS (IC_CAT_COUNT * (IC_SCOPE_SLOTS + 1))
_Static_assert(IC_CAT_COUNT == 8 && IC_CAT_IDS <= 32, "category ids fit a 32-bit mask");

static inline unsigned ic_cat_base(unsigned id) { return id % IC_CAT_COUNT; }
static inline int ic_cat_is_scoped(unsigned id) { return id >= IC_CAT_COUNT && id < IC_CAT_IDS; }
/* Can base category c be scoped? win and bw are machine-wide structures
 * (the window, the widths), not events of instructions: no. */
static inline int ic_cat_scopable(unsigned c) {
  return c < IC_CAT_COUNT && c != IC_CAT_WIN && c != IC_CAT_BW;
}
/* A valid id: a base category or a scoped one of a scopable base. */
static inline int ic_cat_valid(unsigned id) {
  return id < IC_CAT_COUNT || (ic_cat_is_scoped(id) && ic_cat_scopable(ic_cat_base(id)));
}
/* Is a part tagged `cat` (an id or IC_CAT_NONE) idealized under `ideal`? */
static inline int ic_cat_idealized(ic_catmask ideal, unsigned cat) {
  return cat < IC_CAT_IDS && ((ideal >> cat) & 1u) | ((ideal >> ic_cat_base(cat)) & 1u);
}
/* The base categories of the ids in mask m (scoped ids give their base). */
static inline ic_catmask ic_cat_bases(ic_catmask m) {
  ic_catmask b = 0;
  for (int k = 0; k <= IC_SCOPE_SLOTS; k++) b |= (m >> (k * IC_CAT_COUNT)) & 0xffu;
  return b;
}

/* The name of category id `id` as reports print it: a base category's, or
 * a scoped one's as the user wrote it (ic_scopes_publish, model/scope.h);
 * "?" for an id with no name. */
const char *ic_category_name(unsigned id);
/* Sets the printed name of scoped id `id` (ic_scopes_publish). */
void ic_category_name_set(unsigned id, const char *name);

/* Category id for a CLI name, or -1. */
int ic_category_lookup(const char *name);

/* The CLI names, comma-separated ("dl1,win,..."), for an unknown-category
 * message; cut at cap - 1 bytes. */
const char *ic_category_known(char *buf, size_t cap);

/* An item of a comma list without the spaces and tabs around it
 * ("dl1, win": "win"): *p and *len are narrowed in place. */
static inline void ic_list_item_trim(const char **p, size_t *len) {
  while (*len && (**p == ' ' || **p == '\t')) ++*p, --*len;
  while (*len && ((*p)[*len - 1] == ' ' || (*p)[*len - 1] == '\t')) --*len;
}

#endif
