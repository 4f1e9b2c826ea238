/* scope.h: scoped categories, `CATEGORY@WHERE`: a base category limited to
 * the events of the instructions whose pc lies in some ranges (a function,
 * source lines or a pc range, resolved to pc ranges by the caller).
 *
 * The event "of an instruction", per base category (the model idealizes it
 * for an instruction in the scope; the graph record of that instruction
 * carries its parts):
 *   dl1    the L1D hit latency of its own load
 *   dmiss  its own data access (load or store): an L1D and DTLB hit, which
 *          does not touch the caches, as under dmiss; in the graph its
 *          dmiss parts and its PP and MSHR edges and MSHR rule
 *   bmisp  its own prediction (a branch): predicted perfectly; in the
 *          graph the PD edge into the instruction after it
 *   shalu, lgalu  its own execution latency (0)
 *   imiss  its own fetch: the I-cache (and ITLB) access of the line it is the
 *          first instruction fetched from (the rest of the line then hits);
 *          in the graph the imiss parts of its DD and PD edges
 *   win, bw  machine-wide structures shared by all instructions (the
 *          window, the widths): no instruction owns them, they cannot be
 *          scoped.
 * A list may hold a base category and scopes of it (the union: a part of an
 * instruction in the scope is idealized by either), and up to IC_SCOPE_SLOTS
 * scopes of one base, which must not overlap (a part carries one tag).
 *
 * In a graph record (graph_rec.h) a scope is a category id of its own
 * (categories.h: IC_CAT_COUNT * (slot + 1) + base): ic_scopes_tag retags the
 * parts of base b of an instruction in a scope of b with the scope's id, and
 * names in the record's `sdrop` the scopes whose base's edge rules apply to
 * its edges (PD by the branch before it, PP and MSHR by its own access). */
#ifndef IC_SCOPE_H
#define IC_SCOPE_H

#include <stdint.h>

#include "categories.h"
#include "graph_rec.h"
#include "ic_err.h"

#define IC_SCOPE_MAX (IC_CAT_COUNT * IC_SCOPE_SLOTS)
#define IC_SCOPE_MAX_RANGES 64

typedef struct ic_pc_range {
  uint64_t lo, hi; /* [lo, hi) */
} ic_pc_range;

typedef struct ic_scope {
  uint8_t id;  /* its category id (ic_cat_is_scoped) */
  int nr;
  ic_pc_range r[IC_SCOPE_MAX_RANGES];
  char name[96]; /* as written: "dmiss@f" */
} ic_scope;

typedef struct ic_scopes {
  int n;
  ic_scope s[IC_SCOPE_MAX];
} ic_scopes;

/* Resolves the WHERE of a scope other than `0xLO-0xHI` (a function, FILE:LINE
 * or FILE:FIRST-LAST) to at most cap pc ranges; IC_EINPUT with a message
 * naming `where` when nothing matches. */
typedef ic_status (*ic_scope_resolve_fn)(void *ctx, const char *where, ic_pc_range *r, int *nr,
                                         int cap, ic_err *err);

/* Parses a comma-separated category list ("dl1,dmiss@f,bmisp@0x1000-0x1080")
 * into category ids cats[] (at most max) in the given order, the scopes'
 * ranges into *scopes (cleared first). `resolve` (may be NULL: then only
 * pc ranges) resolves names. IC_EINPUT, one line naming the item, for an
 * empty list or item, an unknown category, a duplicate, win or bw scoped,
 * a bad range, a name `resolve` does not find, more than IC_SCOPE_SLOTS
 * scopes of one base, overlapping scopes of one base, or more than max. */
ic_status ic_scopes_parse(const char *list, uint8_t *cats, int *ncat, int max, ic_scopes *scopes,
                          ic_scope_resolve_fn resolve, void *ctx, ic_err *err);

/* Makes the scopes' names the printed names of their ids (ic_category_name). */
void ic_scopes_publish(const ic_scopes *scopes);

/* The base categories whose events the model idealizes for an instruction
 * at pc: those of `ideal` (base ids) and the bases of the scoped ids of
 * `ideal` whose ranges hold pc. Time: O(ranges). */
ic_catmask ic_scopes_ideal_at(const ic_scopes *scopes, ic_catmask ideal, uint64_t pc);

/* Tags record r for the scopes (see above): prev_pc is the pc of the
 * record before it (its PD edge's branch; any value for the first). */
void ic_scopes_tag(const ic_scopes *scopes, ic_graph_rec *r, uint64_t prev_pc);

#endif
