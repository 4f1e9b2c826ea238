/* sig_db.c: the sample database (sig_db.h).
 *
 * After build: ord[] holds sample indices sorted by (pc, sig, seq, index);
 * groups[] one entry per distinct (pc, sig) with its range in ord[];
 * pcs[] one entry per pc with its range in groups[]; a power-of-two open
 * addressing table maps pc -> pcs index. */
#include "sig_db.h"

#include <stdlib.h>
#include <string.h>

typedef struct sig_group {
  uint64_t sig;
  size_t lo, hi; /* range in ord */
} sig_group;

typedef struct sig_pc {
  uint64_t pc;
  size_t lo, hi; /* range in groups */
} sig_pc;

struct sig_db {
  sig_detail *det;
  size_t ndet, capdet;
  sig_skeleton *sk;
  size_t nsk, capsk;
  int built;
  size_t *ord;
  sig_group *groups;
  size_t ngroups;
  sig_pc *pcs;
  size_t npcs;
  uint32_t *table; /* pcs index + 1, 0 empty */
  size_t tmask;
};

ic_status sig_db_create(sig_db **out, ic_err *err) {
  *out = calloc(1, sizeof **out);
  if (!*out) return ic_fail(err, IC_ERUN, "sample database: out of memory");
  return IC_OK;
}

void sig_db_destroy(sig_db *db) {
  if (!db) return;
  for (size_t i = 0; i < db->nsk; i++) free(db->sk[i].bits);
  free(db->sk);
  free(db->det);
  free(db->ord);
  free(db->groups);
  free(db->pcs);
  free(db->table);
  free(db);
}

static ic_status db_detail(void *ctx, const sig_detail *d, ic_err *err) {
  sig_db *db = ctx;
  if (db->built) return ic_fail(err, IC_ERUN, "sample database: add after build");
  if (db->ndet == db->capdet) {
    size_t c = db->capdet ? 2 * db->capdet : 1024;
    sig_detail *p = realloc(db->det, c * sizeof *p);
    if (!p) return ic_fail(err, IC_ERUN, "sample database: out of memory");
    db->det = p;
    db->capdet = c;
  }
  db->det[db->ndet++] = *d;
  return IC_OK;
}

static ic_status db_skeleton(void *ctx, const sig_skeleton *s, ic_err *err) {
  sig_db *db = ctx;
  if (db->built) return ic_fail(err, IC_ERUN, "sample database: add after build");
  if (db->nsk == db->capsk) {
    size_t c = db->capsk ? 2 * db->capsk : 64;
    sig_skeleton *p = realloc(db->sk, c * sizeof *p);
    if (!p) return ic_fail(err, IC_ERUN, "sample database: out of memory");
    db->sk = p;
    db->capsk = c;
  }
  sig_skeleton *k = &db->sk[db->nsk];
  *k = *s;
  k->bits = malloc(s->n ? s->n : 1);
  if (!k->bits) return ic_fail(err, IC_ERUN, "sample database: out of memory");
  memcpy(k->bits, s->bits, s->n);
  db->nsk++;
  return IC_OK;
}

sig_out sig_db_out(sig_db *db) {
  sig_out o = {db, db_detail, db_skeleton};
  return o;
}

/* qsort_r is not in C11; a merge sort on indices with the db passed along. */
static int cmp_idx(const sig_db *db, size_t a, size_t b) {
  const sig_detail *x = &db->det[a], *y = &db->det[b];
  if (x->pc != y->pc) return x->pc < y->pc ? -1 : 1;
  if (x->sig != y->sig) return x->sig < y->sig ? -1 : 1;
  if (x->seq != y->seq) return x->seq < y->seq ? -1 : 1;
  return a < b ? -1 : a > b;
}

static void msort(const sig_db *db, size_t *a, size_t *tmp, size_t n) {
  if (n < 2) return;
  size_t h = n / 2;
  msort(db, a, tmp, h);
  msort(db, a + h, tmp, n - h);
  size_t i = 0, j = h, k = 0;
  while (i < h && j < n) tmp[k++] = cmp_idx(db, a[i], a[j]) <= 0 ? a[i++] : a[j++];
  while (i < h) tmp[k++] = a[i++];
  while (j < n) tmp[k++] = a[j++];
  memcpy(a, tmp, n * sizeof *a);
}

static inline size_t pc_hash(uint64_t pc, size_t mask) {
  return (size_t)((pc * UINT64_C(0x9E3779B97F4A7C15)) >> 20) & mask;
}

ic_status sig_db_build(sig_db *db, ic_err *err) {
  if (db->built) return IC_OK;
  size_t n = db->ndet;
  db->ord = malloc((n ? n : 1) * sizeof *db->ord);
  size_t *tmp = malloc((n ? n : 1) * sizeof *tmp);
  if (!db->ord || !tmp) {
    free(tmp);
    return ic_fail(err, IC_ERUN, "sample database: out of memory");
  }
  for (size_t i = 0; i < n; i++) db->ord[i] = i;
  msort(db, db->ord, tmp, n);
  free(tmp);
  size_t ng = 0, np = 0;
  for (size_t i = 0; i < n; i++) {
    const sig_detail *d = &db->det[db->ord[i]];
    const sig_detail *p = i ? &db->det[db->ord[i - 1]] : NULL;
    if (!p || p->pc != d->pc) np++, ng++;
    else if (p->sig != d->sig) ng++;
  }
  db->groups = malloc((ng ? ng : 1) * sizeof *db->groups);
  db->pcs = malloc((np ? np : 1) * sizeof *db->pcs);
  size_t ts = 16;
  while (ts < 2 * np) ts <<= 1;
  db->table = calloc(ts, sizeof *db->table);
  if (!db->groups || !db->pcs || !db->table)
    return ic_fail(err, IC_ERUN, "sample database: out of memory");
  if (np >= UINT32_MAX) return ic_fail(err, IC_ERUN, "sample database: too many pcs");
  db->tmask = ts - 1;
  for (size_t i = 0; i < n; i++) {
    const sig_detail *d = &db->det[db->ord[i]];
    const sig_detail *p = i ? &db->det[db->ord[i - 1]] : NULL;
    int newpc = !p || p->pc != d->pc;
    if (newpc || p->sig != d->sig) {
      if (db->ngroups) db->groups[db->ngroups - 1].hi = i;
      db->groups[db->ngroups].sig = d->sig;
      db->groups[db->ngroups].lo = i;
      db->ngroups++;
    }
    if (newpc) {
      if (db->npcs) db->pcs[db->npcs - 1].hi = db->ngroups - 1;
      db->pcs[db->npcs].pc = d->pc;
      db->pcs[db->npcs].lo = db->ngroups - 1;
      size_t h = pc_hash(d->pc, db->tmask);
      while (db->table[h]) h = (h + 1) & db->tmask;
      db->table[h] = (uint32_t)(db->npcs + 1);
      db->npcs++;
    }
  }
  if (db->ngroups) db->groups[db->ngroups - 1].hi = n;
  if (db->npcs) db->pcs[db->npcs - 1].hi = db->ngroups;
  db->built = 1;
  return IC_OK;
}

size_t sig_db_details(const sig_db *db) { return db->ndet; }
size_t sig_db_skeletons(const sig_db *db) { return db->nsk; }
size_t sig_db_pcs(const sig_db *db) { return db->npcs; }
const sig_skeleton *sig_db_skeleton(const sig_db *db, size_t i) { return &db->sk[i]; }
const sig_detail *sig_db_detail(const sig_db *db, size_t i) { return &db->det[i]; }

static inline uint64_t absdiff(uint64_t a, uint64_t b) { return a > b ? a - b : b - a; }

/* Index in ord of the group's sample nearest seq (ties: lower seq first,
   which the sort order gives). */
static size_t nearest(const sig_db *db, const sig_group *g, uint64_t seq) {
  size_t lo = g->lo, hi = g->hi; /* first with seq >= want */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (db->det[db->ord[mid]].seq < seq) lo = mid + 1;
    else hi = mid;
  }
  if (lo == g->hi) return g->hi - 1;
  if (lo == g->lo) return lo;
  uint64_t a = absdiff(db->det[db->ord[lo - 1]].seq, seq);
  uint64_t b = absdiff(db->det[db->ord[lo]].seq, seq);
  return a <= b ? lo - 1 : lo;
}

static int better(const sig_db *db, size_t a, size_t b, uint64_t seq) {
  const sig_detail *x = &db->det[db->ord[a]], *y = &db->det[db->ord[b]];
  uint64_t dx = absdiff(x->seq, seq), dy = absdiff(y->seq, seq);
  if (dx != dy) return dx < dy;
  if (x->seq != y->seq) return x->seq < y->seq;
  return db->ord[a] < db->ord[b];
}

const sig_detail *sig_db_best(const sig_db *db, uint64_t pc, uint64_t want, uint64_t mask,
                              uint64_t seq, int *same) {
  if (!db->built || !db->npcs) return NULL;
  size_t h = pc_hash(pc, db->tmask);
  const sig_pc *e = NULL;
  while (db->table[h]) {
    const sig_pc *c = &db->pcs[db->table[h] - 1];
    if (c->pc == pc) {
      e = c;
      break;
    }
    h = (h + 1) & db->tmask;
  }
  if (!e) return NULL;
  mask &= SIG_MASK42;
  int best_same = -1;
  size_t best = 0;
  for (size_t g = e->lo; g < e->hi; g++) {
    int s = __builtin_popcountll(~(db->groups[g].sig ^ want) & mask);
    if (s < best_same) continue;
    size_t k = nearest(db, &db->groups[g], seq);
    if (s > best_same || better(db, k, best, seq)) {
      best_same = s;
      best = k;
    }
  }
  if (same) *same = best_same;
  return &db->det[db->ord[best]];
}
