/* scope.c: parsing of category lists with scoped categories, the model's
 * per-instruction idealization mask, and the tagging of graph records
 * (scope.h). */
#include "scope.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int in_scope(const ic_scope *s, uint64_t pc) {
  for (int k = 0; k < s->nr; k++)
    if (pc >= s->r[k].lo && pc < s->r[k].hi) return 1;
  return 0;
}

/* `0xLO-0xHI`: 1 and the range [lo, hi) if `where` has that form (both
 * hexadecimal with 0x), 0 if it has not; -1 for a malformed or empty one. */
static int parse_pc_range(const char *where, ic_pc_range *r) {
  if (strncmp(where, "0x", 2) != 0 && strncmp(where, "0X", 2) != 0) return 0;
  const char *dash = strchr(where, '-');
  if (!dash) return -1;
  char *end;
  errno = 0;
  unsigned long long lo = strtoull(where, &end, 16);
  if (errno || end != dash) return -1;
  const char *h = dash + 1;
  if (strncmp(h, "0x", 2) != 0 && strncmp(h, "0X", 2) != 0) return -1;
  unsigned long long hi = strtoull(h, &end, 16);
  if (errno || *end || end == h + 2 || hi <= lo) return -1;
  r->lo = lo;
  r->hi = hi;
  return 1;
}

static int overlap(const ic_scope *a, const ic_scope *b, uint64_t *at) {
  for (int i = 0; i < a->nr; i++)
    for (int j = 0; j < b->nr; j++)
      if (a->r[i].lo < b->r[j].hi && b->r[j].lo < a->r[i].hi) {
        *at = a->r[i].lo > b->r[j].lo ? a->r[i].lo : b->r[j].lo;
        return 1;
      }
  return 0;
}

static ic_status parse_item(const char *item, uint8_t *cats, int n, int max, ic_scopes *sc,
                            ic_scope_resolve_fn resolve, void *ctx, ic_err *err) {
  const char *at = strchr(item, '@');
  char base[32];
  size_t bl = at ? (size_t)(at - item) : strlen(item);
  int c = -1;
  if (bl < sizeof base) {
    memcpy(base, item, bl);
    base[bl] = 0;
    c = ic_category_lookup(base);
  }
  if (c < 0) {
    char known[160];
    return ic_fail(err, IC_EINPUT, "'%s': unknown category '%.*s' (known: %s)", item,
                   (int)(bl < 31 ? bl : 31), item, ic_category_known(known, sizeof known));
  }
  if (n == max)
    return ic_fail(err, IC_EINPUT, "'%s': more than %d categories", item, max);
  if (!at) {
    for (int k = 0; k < n; k++)
      if (cats[k] == c) return ic_fail(err, IC_EINPUT, "'%s' given twice", item);
    cats[n] = (uint8_t)c;
    return IC_OK;
  }
  if (c == IC_CAT_WIN)
    return ic_fail(err, IC_EINPUT,
                   "'%s': win cannot be scoped: the window (ROB, IQ, LSQ) is shared by every "
                   "instruction, no instruction owns its events",
                   item);
  if (c == IC_CAT_BW)
    return ic_fail(err, IC_EINPUT,
                   "'%s': bw cannot be scoped: fetch, issue and commit bandwidth is shared by "
                   "every instruction, no instruction owns its events",
                   item);
  const char *where = at + 1;
  if (!*where) return ic_fail(err, IC_EINPUT, "'%s': nothing after '@'", item);
  if (strlen(item) >= sizeof sc->s[0].name)
    return ic_fail(err, IC_EINPUT, "'%.40s...': scoped category name too long", item);
  int slot = 0;
  for (int k = 0; k < sc->n; k++) {
    if (strcmp(sc->s[k].name, item) == 0) return ic_fail(err, IC_EINPUT, "'%s' given twice", item);
    slot += ic_cat_base(sc->s[k].id) == (unsigned)c;
  }
  if (slot == IC_SCOPE_SLOTS)
    return ic_fail(err, IC_EINPUT, "'%s': at most %d scopes of %s in one list", item,
                   IC_SCOPE_SLOTS, base);
  ic_scope *s = &sc->s[sc->n];
  memset(s, 0, sizeof *s);
  s->id = (uint8_t)(IC_CAT_COUNT * (slot + 1) + c);
  snprintf(s->name, sizeof s->name, "%s", item);
  int f = parse_pc_range(where, &s->r[0]);
  if (f < 0)
    return ic_fail(err, IC_EINPUT, "'%s': bad pc range '%s' (expected 0xLO-0xHI with LO < HI)",
                   item, where);
  if (f > 0) {
    s->nr = 1;
  } else {
    if (!resolve)
      return ic_fail(err, IC_EINPUT, "'%s': no program to look '%s' up in (give a pc range "
                                     "0xLO-0xHI)",
                     item, where);
    ic_err e2;
    if (resolve(ctx, where, s->r, &s->nr, IC_SCOPE_MAX_RANGES, &e2) != IC_OK)
      return ic_fail(err, IC_EINPUT, "'%s': %s", item, e2.msg);
  }
  for (int k = 0; k < sc->n; k++) {
    uint64_t pc;
    if (ic_cat_base(sc->s[k].id) == (unsigned)c && overlap(&sc->s[k], s, &pc))
      return ic_fail(err, IC_EINPUT,
                     "'%s' and '%s' overlap at pc 0x%llx: scopes of one category must not "
                     "overlap",
                     sc->s[k].name, item, (unsigned long long)pc);
  }
  sc->n++;
  cats[n] = s->id;
  return IC_OK;
}

ic_status ic_scopes_parse(const char *list, uint8_t *cats, int *ncat, int max, ic_scopes *scopes,
                          ic_scope_resolve_fn resolve, void *ctx, ic_err *err) {
  *ncat = 0;
  scopes->n = 0;
  if (!list || !*list) return ic_fail(err, IC_EINPUT, "categories: empty list");
  int n = 0;
  const char *p = list;
  for (;;) {
    const char *end = strchr(p, ',');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    if (len == 0) return ic_fail(err, IC_EINPUT, "categories '%s': empty item", list);
    char item[256];
    if (len >= sizeof item)
      return ic_fail(err, IC_EINPUT, "categories '%s': item too long", list);
    memcpy(item, p, len);
    item[len] = 0;
    ic_status st = parse_item(item, cats, n, max, scopes, resolve, ctx, err);
    if (st != IC_OK) return st;
    n++;
    if (!end) break;
    p = end + 1;
  }
  *ncat = n;
  return IC_OK;
}

void ic_scopes_publish(const ic_scopes *scopes) {
  for (int k = 0; k < scopes->n; k++) ic_category_name_set(scopes->s[k].id, scopes->s[k].name);
}

ic_catmask ic_scopes_ideal_at(const ic_scopes *scopes, ic_catmask ideal, uint64_t pc) {
  ic_catmask m = ideal & 0xffu;
  for (int k = 0; k < scopes->n; k++) {
    const ic_scope *s = &scopes->s[k];
    if ((ideal >> s->id) & 1u && in_scope(s, pc)) m |= IC_CATBIT(ic_cat_base(s->id));
  }
  return m;
}

void ic_scopes_tag(const ic_scopes *scopes, ic_graph_rec *r, uint64_t prev_pc) {
  uint8_t own[IC_CAT_COUNT] = {0}, branch = 0;
  int any = 0;
  for (int k = 0; k < scopes->n; k++) {
    const ic_scope *s = &scopes->s[k];
    const unsigned b = ic_cat_base(s->id);
    if (in_scope(s, r->pc)) own[b] = s->id, any = 1;
    if (b == IC_CAT_BMISP && in_scope(s, prev_pc)) branch = s->id;
  }
  if (!any && !branch) return;
  int pd = 0, dm = r->mshr_k != 0;
  for (int k = 0; k < r->nedges && k < IC_MAX_EDGES; k++) {
    ic_edge *e = &r->edge[k];
    pd |= e->kind == IC_EDGE_PD;
    dm |= e->kind == IC_EDGE_PP || e->kind == IC_EDGE_MSHR;
    for (int p = 0; p < e->nparts && p < IC_MAX_PARTS; p++) {
      const unsigned c = e->part[p].cat;
      if (c < IC_CAT_COUNT && own[c]) e->part[p].cat = own[c];
    }
  }
  int n = 0;
  if (dm && own[IC_CAT_DMISS]) r->sdrop[n++] = own[IC_CAT_DMISS];
  if (pd && branch) r->sdrop[n++] = branch;
}
