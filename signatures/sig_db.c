/* sig_db.c: the sample database (sig_db.h).
 *
 * After build: ord[] holds sample indices sorted by (pc, sig, seq, index);
 * groups[] one entry per distinct (pc, sig) with its range in ord[];
 * pcs[] one entry per pc with its range in groups[]; a power-of-two open
 * addressing table maps pc -> pcs index. Samples are stored as a struct of
 * arrays (pc, signature, retire count: what matching reads) plus a packed
 * byte pool for the rest, about 100 bytes per sample instead of the 500 of
 * a sig_detail. */
#include "sig_db.h"

#include <stdlib.h>
#include <string.h>

#include "categories.h"

typedef struct sig_group {
  uint64_t sig;
  size_t lo, hi; /* range in ord */
} sig_group;

typedef struct sig_pc {
  uint64_t pc;
  size_t lo, hi; /* range in groups */
} sig_pc;

struct sig_db {
  /* detailed samples, struct of arrays; the rest of a sample (opclass,
     present, next pc, items) is packed into pool at off[i] */
  uint64_t *pc, *sig, *seq, *off;
  uint16_t *len; /* packed bytes of each at off[i] */
  size_t ndet, capdet;
  uint8_t *pool;
  size_t npool, cappool;
  size_t garbage; /* pool bytes of replaced samples (sig_db_keep_details) */
  sig_skeleton *sk;
  size_t nsk, capsk;
  uint64_t keep, seen, rng; /* sig_db_keep_skeletons: at most keep of seen; rng state */
  uint64_t dkeep, dseen, drng; /* sig_db_keep_details: at most dkeep of dseen; rng state */
  int built;
  size_t *ord;
  sig_group *groups;
  size_t ngroups;
  sig_pc *pcs;
  size_t npcs;
  uint32_t *table; /* pcs index + 1, 0 empty */
  size_t tmask;
  uint64_t imiss_sum, imiss_n; /* I-cache miss cycles of the samples that had one */
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
  free(db->pc);
  free(db->sig);
  free(db->seq);
  free(db->off);
  free(db->len);
  free(db->pool);
  free(db->ord);
  free(db->groups);
  free(db->pcs);
  free(db->table);
  free(db);
}

/* Packed layout: u8 opclass, u8 present, u8 nitems, u64 next pc (at 3:
   sig_db_targets reads it there), u8 slot_w, slot_p, mshr_k, then per
   item u8 kind, u8 flags, u8 keep, u8 nparts, u32 dist, then per part u8 cat, u32
   cycles (host byte order: the pool never leaves the process). */
#define PACK_MAX (6 + 8 + SIG_MAX_ITEMS * (8 + IC_MAX_PARTS * 5))

static size_t pack(const sig_detail *d, uint8_t *b) {
  size_t n = 0;
  b[n++] = d->opclass;
  b[n++] = d->present;
  b[n++] = d->nitems;
  memcpy(b + n, &d->next_pc, 8);
  n += 8;
  b[n++] = d->slot_w;
  b[n++] = d->slot_p;
  b[n++] = d->mshr_k;
  for (int k = 0; k < d->nitems; k++) {
    const ic_edge *e = &d->item[k];
    b[n++] = e->kind;
    b[n++] = e->flags;
    b[n++] = e->keep;
    b[n++] = e->nparts;
    memcpy(b + n, &e->dist, 4);
    n += 4;
    for (int q = 0; q < e->nparts; q++) {
      const uint32_t cy = e->part[q].cycles;
      b[n++] = (uint8_t)e->part[q].cat;
      memcpy(b + n, &cy, 4);
      n += 4;
    }
  }
  return n;
}

static void unpack(const sig_db *db, size_t i, sig_detail *d) {
  const uint8_t *b = db->pool + db->off[i];
  memset(d, 0, sizeof *d);
  d->pc = db->pc[i];
  d->sig = db->sig[i];
  d->seq = db->seq[i];
  size_t n = 0;
  d->opclass = b[n++];
  d->present = b[n++];
  d->nitems = b[n++];
  memcpy(&d->next_pc, b + n, 8);
  n += 8;
  d->slot_w = b[n++];
  d->slot_p = b[n++];
  d->mshr_k = b[n++];
  for (int k = 0; k < d->nitems; k++) {
    ic_edge *e = &d->item[k];
    e->kind = b[n++];
    e->flags = b[n++];
    e->keep = b[n++];
    e->nparts = b[n++];
    memcpy(&e->dist, b + n, 4);
    n += 4;
    for (int q = 0; q < e->nparts; q++) {
      uint32_t cy;
      const uint8_t cat = b[n++];
      memcpy(&cy, b + n, 4);
      n += 4;
      ic_part_set(&e->part[q], cy, cat);
    }
  }
}

static int grow(void **p, size_t elem, size_t cap) {
  void *q = realloc(*p, elem * cap);
  if (!q) return -1;
  *p = q;
  return 0;
}

static uint64_t mix64(uint64_t x);
static uint64_t rand_below(uint64_t *s, uint64_t n);

ic_status sig_db_keep_details(sig_db *db, uint64_t k, uint64_t seed, ic_err *err) {
  if (db->ndet || db->dseen) return ic_fail(err, IC_ERUN, "sample database: limit set after adding");
  db->dkeep = k;
  db->drng = mix64(seed ^ UINT64_C(0x6a09e667f3bcc909));
  return IC_OK;
}

/* Packs the live samples to the front of the pool, in pool order, so the
   bytes of replaced samples are reused; called when they are an eighth of
   the pool, so the pool stays within 9/8 of the live bytes. O(n log n). */
static int cmp_u64(const void *a, const void *b) {
  const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

static int compact_pool(sig_db *db) {
  /* (offset, index) in one word, sorted: offsets below 2^40, indices 2^24 */
  if (db->ndet >= (size_t)1 << 24 || db->npool >= (size_t)1 << 40) return -1;
  uint64_t *ord = malloc(db->ndet * sizeof *ord);
  if (!ord) return -1;
  for (size_t i = 0; i < db->ndet; i++) ord[i] = db->off[i] << 24 | i;
  qsort(ord, db->ndet, sizeof *ord, cmp_u64);
  size_t np = 0;
  for (size_t k = 0; k < db->ndet; k++) {
    const size_t i = (size_t)(ord[k] & ((1u << 24) - 1));
    memmove(db->pool + np, db->pool + db->off[i], db->len[i]);
    db->off[i] = np;
    np += db->len[i];
  }
  db->npool = np;
  db->garbage = 0;
  free(ord);
  return 0;
}

static ic_status db_detail(void *ctx, const sig_detail *d, ic_err *err) {
  sig_db *db = ctx;
  if (db->built) return ic_fail(err, IC_ERUN, "sample database: add after build");
  if (d->nitems > SIG_MAX_ITEMS) return ic_fail(err, IC_EINPUT, "sample database: bad sample");
  for (int k = 0; k < d->nitems; k++)
    if (d->item[k].nparts > IC_MAX_PARTS)
      return ic_fail(err, IC_EINPUT, "sample database: bad sample");
  size_t slot = db->ndet; /* where d goes: appended, or in place of a kept one */
  if (db->dkeep) { /* reservoir (Vitter's algorithm R): at most dkeep */
    const uint64_t i = db->dseen++;
    if (i >= db->dkeep) {
      const uint64_t r = rand_below(&db->drng, i + 1);
      if (r >= db->dkeep) return IC_OK;
      slot = (size_t)r;
      db->garbage += db->len[slot];
      if (db->garbage > db->npool / 8 && compact_pool(db))
        return ic_fail(err, IC_ERUN, "sample database: out of memory");
    }
  }
  if (slot == db->ndet && db->ndet == db->capdet) {
    size_t c = db->capdet ? 2 * db->capdet : 1024;
    if (db->dkeep && c > db->dkeep) c = db->dkeep > db->ndet ? (size_t)db->dkeep : db->ndet + 1;
    if (grow((void **)&db->pc, 8, c) || grow((void **)&db->sig, 8, c) ||
        grow((void **)&db->seq, 8, c) || grow((void **)&db->off, 8, c) ||
        grow((void **)&db->len, 2, c))
      return ic_fail(err, IC_ERUN, "sample database: out of memory");
    db->capdet = c;
  }
  if (db->npool + PACK_MAX > db->cappool) {
    size_t c = db->cappool ? 2 * db->cappool : 65536;
    while (c < db->npool + PACK_MAX) c *= 2;
    if (grow((void **)&db->pool, 1, c))
      return ic_fail(err, IC_ERUN, "sample database: out of memory");
    db->cappool = c;
  }
  /* an I-cache miss's cycles: the DD part (cut to the gap the instruction
     had) or the whole, on the PD the instruction had after a misprediction */
  uint64_t im = 0;
  for (int k = 0; k < d->nitems; k++) {
    const ic_edge *e = &d->item[k];
    if (e->kind != IC_EDGE_DD && !(e->kind == IC_EDGE_PD && e->flags == SIG_ITEM_SELF)) continue;
    uint64_t c = 0;
    for (int q = 0; q < e->nparts; q++)
      if (e->part[q].cat == IC_CAT_IMISS) c += e->part[q].cycles;
    if (c > im) im = c;
  }
  if (im) {
    db->imiss_sum += im;
    db->imiss_n++;
  }
  const size_t i = slot;
  if (slot == db->ndet) db->ndet++;
  db->pc[i] = d->pc;
  db->sig[i] = d->sig & SIG_MASK42;
  db->seq[i] = d->seq;
  db->off[i] = db->npool;
  db->len[i] = (uint16_t)pack(d, db->pool + db->npool);
  db->npool += db->len[i];
  return IC_OK;
}

ic_status sig_db_keep_skeletons(sig_db *db, uint64_t k, uint64_t seed, ic_err *err) {
  if (db->seen) return ic_fail(err, IC_ERUN, "sample database: reservoir set after adding");
  db->keep = k;
  db->rng = seed ^ UINT64_C(0x2545f4914f6cdd1d);
  return IC_OK;
}

/* splitmix64: mix64 of a counter stepping by its constant */
static uint64_t next_rand(uint64_t *s) {
  const uint64_t x = *s;
  *s += UINT64_C(0x9E3779B97F4A7C15);
  return mix64(x);
}

/* Uniform in [0, n), n >= 1 (rejection: no modulo bias). */
static uint64_t rand_below(uint64_t *s, uint64_t n) {
  const uint64_t lim = UINT64_MAX - UINT64_MAX % n;
  uint64_t r;
  do r = next_rand(s);
  while (r >= lim);
  return r % n;
}

static ic_status db_skeleton(void *ctx, const sig_skeleton *s, ic_err *err) {
  sig_db *db = ctx;
  if (db->built) return ic_fail(err, IC_ERUN, "sample database: add after build");
  const uint64_t i = db->seen++;
  if (db->keep && i >= db->keep) { /* the reservoir is full: replace one, or drop s */
    const uint64_t slot = rand_below(&db->rng, i + 1);
    if (slot >= db->keep) return IC_OK;
    sig_skeleton *k = &db->sk[slot];
    uint8_t *bits = realloc(k->bits, s->n ? s->n : 1);
    if (!bits) return ic_fail(err, IC_ERUN, "sample database: out of memory");
    *k = *s;
    k->bits = bits;
    memcpy(bits, s->bits, s->n);
    return IC_OK;
  }
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
  if (db->pc[a] != db->pc[b]) return db->pc[a] < db->pc[b] ? -1 : 1;
  if (db->sig[a] != db->sig[b]) return db->sig[a] < db->sig[b] ? -1 : 1;
  if (db->seq[a] != db->seq[b]) return db->seq[a] < db->seq[b] ? -1 : 1;
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

static int skeleton_seq_cmp(const void *a, const void *b) {
  const sig_skeleton *x = a, *y = b;
  return (x->seq > y->seq) - (x->seq < y->seq);
}

ic_status sig_db_build(sig_db *db, ic_err *err) {
  if (db->built) return IC_OK;
  if (db->keep) qsort(db->sk, db->nsk, sizeof *db->sk, skeleton_seq_cmp);
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
    size_t d = db->ord[i], p = i ? db->ord[i - 1] : 0;
    if (!i || db->pc[p] != db->pc[d]) np++, ng++;
    else if (db->sig[p] != db->sig[d]) ng++;
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
    size_t d = db->ord[i], p = i ? db->ord[i - 1] : 0;
    int newpc = !i || db->pc[p] != db->pc[d];
    if (newpc || db->sig[p] != db->sig[d]) {
      if (db->ngroups) db->groups[db->ngroups - 1].hi = i;
      db->groups[db->ngroups].sig = db->sig[d];
      db->groups[db->ngroups].lo = i;
      db->ngroups++;
    }
    if (newpc) {
      if (db->npcs) db->pcs[db->npcs - 1].hi = db->ngroups - 1;
      db->pcs[db->npcs].pc = db->pc[d];
      db->pcs[db->npcs].lo = db->ngroups - 1;
      size_t h = pc_hash(db->pc[d], db->tmask);
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

size_t sig_db_detail_bytes(const sig_db *db) { return db->capdet * (4 * 8 + 2) + db->cappool; }
size_t sig_db_skeletons(const sig_db *db) { return db->nsk; }

uint64_t sig_db_skeletons_seen(const sig_db *db) { return db->seen; }
size_t sig_db_pcs(const sig_db *db) { return db->npcs; }
const sig_skeleton *sig_db_skeleton(const sig_db *db, size_t i) { return &db->sk[i]; }
void sig_db_detail(const sig_db *db, size_t i, sig_detail *out) { unpack(db, i, out); }

static inline uint64_t absdiff(uint64_t a, uint64_t b) { return a > b ? a - b : b - a; }

/* Index in ord of the group's sample nearest seq (ties: lower seq first,
   which the sort order gives). */
static size_t nearest(const sig_db *db, const sig_group *g, uint64_t seq) {
  size_t lo = g->lo, hi = g->hi; /* first with seq >= want */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (db->seq[db->ord[mid]] < seq) lo = mid + 1;
    else hi = mid;
  }
  if (lo == g->hi) return g->hi - 1;
  if (lo == g->lo) return lo;
  uint64_t a = absdiff(db->seq[db->ord[lo - 1]], seq);
  uint64_t b = absdiff(db->seq[db->ord[lo]], seq);
  return a <= b ? lo - 1 : lo;
}

static int better(const sig_db *db, size_t a, size_t b, uint64_t seq) {
  uint64_t xs = db->seq[db->ord[a]], ys = db->seq[db->ord[b]];
  uint64_t dx = absdiff(xs, seq), dy = absdiff(ys, seq);
  if (dx != dy) return dx < dy;
  if (xs != ys) return xs < ys;
  return db->ord[a] < db->ord[b];
}

int sig_db_best(const sig_db *db, uint64_t pc, uint64_t want, uint64_t mask, uint64_t seq,
                sig_detail *out, int *same) {
  return sig_db_best_first(db, pc, want, mask, 0, seq, out, same);
}

static const sig_pc *find_pc(const sig_db *db, uint64_t pc) {
  if (!db->built || !db->npcs) return NULL;
  size_t h = pc_hash(pc, db->tmask);
  while (db->table[h]) {
    const sig_pc *c = &db->pcs[db->table[h] - 1];
    if (c->pc == pc) return c;
    h = (h + 1) & db->tmask;
  }
  return NULL;
}

size_t sig_db_targets(const sig_db *db, uint64_t pc, uint64_t want, uint64_t mask,
                      uint64_t first, uint64_t *out, size_t max) {
  const sig_pc *e = find_pc(db, pc);
  if (!e || !max) return 0;
  if (max > SIG_DB_MAX_TARGETS) max = SIG_DB_MAX_TARGETS;
  mask &= SIG_MASK42;
  first &= mask;
  int score[SIG_DB_MAX_TARGETS];
  size_t n = 0;
  for (size_t g = e->lo; g < e->hi; g++) {
    uint64_t agree = ~(db->groups[g].sig ^ want);
    int sc = __builtin_popcountll(agree & first) * 64 + __builtin_popcountll(agree & mask);
    size_t hi = db->groups[g].hi;
    if (hi - db->groups[g].lo > SIG_DB_TARGET_SCAN) hi = db->groups[g].lo + SIG_DB_TARGET_SCAN;
    for (size_t i = db->groups[g].lo; i < hi; i++) {
      uint64_t t;
      memcpy(&t, db->pool + db->off[db->ord[i]] + 3, 8);
      if (!t) continue;
      size_t k = 0;
      while (k < n && out[k] != t) k++;
      if (k < n) {
        if (sc > score[k]) score[k] = sc;
        continue;
      }
      if (n < max) {
        out[n] = t;
        score[n++] = sc;
        continue;
      }
      size_t low = 0; /* full: replace the lowest-scored if this one beats it */
      for (size_t q = 1; q < n; q++)
        if (score[q] < score[low]) low = q;
      if (sc > score[low]) {
        out[low] = t;
        score[low] = sc;
      }
    }
  }
  /* best first (insertion sort; equal scores keep the lower target first) */
  for (size_t i = 1; i < n; i++)
    for (size_t j = i; j > 0 && (score[j] > score[j - 1] ||
                                 (score[j] == score[j - 1] && out[j] < out[j - 1]));
         j--) {
      int ts = score[j];
      score[j] = score[j - 1];
      score[j - 1] = ts;
      uint64_t tt = out[j];
      out[j] = out[j - 1];
      out[j - 1] = tt;
    }
  return n;
}

/* The best match's index in ord and its group (as sig_db_best_first), or 0
   when the pc has no sample. */
static int best_index(const sig_db *db, uint64_t pc, uint64_t want, uint64_t mask, uint64_t first,
                      uint64_t seq, size_t *best_out, const sig_group **group, int *same) {
  const sig_pc *e = find_pc(db, pc);
  if (!e) return 0;
  mask &= SIG_MASK42;
  first &= mask;
  int best_score = -1, best_same = 0;
  size_t best = 0, best_g = e->lo;
  for (size_t g = e->lo; g < e->hi; g++) {
    uint64_t agree = ~(db->groups[g].sig ^ want);
    int s = __builtin_popcountll(agree & mask);
    /* agreement on `first` ranks before everything else (at most 42 bits) */
    int score = __builtin_popcountll(agree & first) * 64 + s;
    if (score < best_score) continue;
    size_t k = nearest(db, &db->groups[g], seq);
    if (score > best_score || better(db, k, best, seq)) {
      best_score = score;
      best_same = s;
      best = k;
      best_g = g;
    }
  }
  if (same) *same = best_same;
  *best_out = best;
  *group = &db->groups[best_g];
  return 1;
}

int sig_db_best_first(const sig_db *db, uint64_t pc, uint64_t want, uint64_t mask,
                      uint64_t first, uint64_t seq, sig_detail *out, int *same) {
  size_t best;
  const sig_group *g;
  if (!best_index(db, pc, want, mask, first, seq, &best, &g, same)) return 0;
  if (out) unpack(db, db->ord[best], out);
  return 1;
}

/* splitmix64's finalizer: a well-mixed 64-bit function of x */
static uint64_t mix64(uint64_t x) {
  x += UINT64_C(0x9E3779B97F4A7C15);
  x = (x ^ (x >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
  x = (x ^ (x >> 27)) * UINT64_C(0x94D049BB133111EB);
  return x ^ (x >> 31);
}

int sig_db_pick(const sig_db *db, uint64_t pc, uint64_t want, uint64_t mask, uint64_t first,
                uint64_t seq, sig_db_fits fits, void *ctx, sig_detail *out, int *same, int *fit) {
  size_t best;
  const sig_group *g;
  if (!best_index(db, pc, want, mask, first, seq, &best, &g, same)) return 0;
  sig_detail tmp, *d = out ? out : &tmp;
  if (fit) *fit = 1;
  if (db->seq[db->ord[best]] != seq) {
    /* the w samples of the group nearest seq are a run of its order (sorted
       by retire count) around the nearest one: start centred on it, then
       slide the run while the sample past one end is nearer than the one
       at the other end */
    const size_t n = g->hi - g->lo, w = n < SIG_DB_SPREAD ? n : SIG_DB_SPREAD;
    size_t lo = best - g->lo >= w / 2 ? best - w / 2 : g->lo;
    if (lo + w > g->hi) lo = g->hi - w;
    while (lo > g->lo && absdiff(db->seq[db->ord[lo - 1]], seq) < absdiff(db->seq[db->ord[lo + w - 1]], seq))
      lo--;
    while (lo + w < g->hi && absdiff(db->seq[db->ord[lo + w]], seq) < absdiff(db->seq[db->ord[lo]], seq))
      lo++;
    /* from the hashed one on, cyclically: the first that fits (without
       a test, the hashed one); none: the hashed one */
    const size_t h = (size_t)(mix64(seq) % w);
    for (size_t q = 0; q < w; q++) {
      unpack(db, db->ord[lo + (h + q) % w], d);
      if (!fits || fits(ctx, d)) return 1;
    }
    best = lo + h;
    if (fit) *fit = 0;
  }
  unpack(db, db->ord[best], d);
  return 1;
}

int sig_db_pick_far(const sig_db *db, uint64_t pc, uint64_t want, uint64_t mask, uint64_t first,
                    uint64_t seq, sig_db_fits fits, void *ctx, size_t max, sig_detail *out) {
  size_t best;
  const sig_group *g;
  if (!best_index(db, pc, want, mask, first, seq, &best, &g, NULL)) return 0;
  /* outward from the nearest: [lo, hi) looked at so far */
  size_t lo = best, hi = best;
  for (size_t q = 0; q < max && (lo > g->lo || hi < g->hi); q++) {
    size_t k;
    if (hi < g->hi && (lo == g->lo || absdiff(db->seq[db->ord[hi]], seq) <=
                                          absdiff(db->seq[db->ord[lo - 1]], seq)))
      k = hi++;
    else
      k = --lo;
    unpack(db, db->ord[k], out);
    if (fits(ctx, out)) return 1;
  }
  return 0;
}

uint32_t sig_db_imiss_cycles(const sig_db *db) {
  if (!db->imiss_n) return 0;
  return (uint32_t)((db->imiss_sum + db->imiss_n / 2) / db->imiss_n);
}

uint64_t sig_db_pc(const sig_db *db, size_t i) { return db->pcs[i].pc; }
