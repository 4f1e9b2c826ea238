/* solver.c: the streaming powerset solver (solver.h).
 *
 * Representation. Node times are int32 offsets from a per-subset int64 base:
 * time(node, S) = base[S] + off(node, S). A vector holds NP >= 2^ncat int32
 * (padded to a multiple of 8 so the kernels' inner loops have a fixed trip
 * count and vectorize at -O2; padding lanes compute harmless garbage that is
 * never reported). The D, P and C vectors of the last W instructions live in
 * three ring buffers indexed by seq & (W-1); R and E are only ever sources
 * inside their own instruction, so they live in scratch vectors.
 *
 * Range argument (why int32 is safe). Every stored offset is at most
 * `ubound`: time 0 has offset <= 0, and an instruction raises the largest
 * offset by at most the sum of its edge latencies (each <= 2^20 by
 * dg_check_rec, at most 16 edges), which is added to ubound. When ubound
 * passes 2^28 we rebase: per subset the largest live offset is brought down to
 * at most 2^27 and the base raised by the same amount; offsets pushed below
 * FLOOR = -2^29 are clamped there (counted; they are > 2^29 cycles older than
 * the newest node, so no path through them can matter in a real run). So
 * offsets stay in [-2^29, 2^28 + 2^24], src + lat never overflows, and a
 * dropped edge, given latency NEG = -2^30, yields less than FLOOR, below the
 * initial value of every node (time 0, clamped at FLOOR): max() ignores it
 * without a branch.
 *
 * Per edge the latency over subsets is lat[S] = L - sum of its parts whose
 * category is in S (a part of category c counts in the subsets NOT
 * containing c), built from per-position bit masks; an edge with no part in
 * a chosen category and no dropping category chosen uses a scalar latency.
 * The win rule makes CD two half-edges: C(i-w) for subsets without win and
 * C(i-20w) for subsets with it, each masked with NEG on the other half. */
#include "solver.h"

#include <stdlib.h>
#include <string.h>

#include "graph.h"

#define FLOOR (-(INT32_C(1) << 29))
#define NEG (-(INT32_C(1) << 30))
#define REBASE_AT (INT64_C(1) << 28)
#define REBASE_TO (INT32_C(1) << 27)
#define MIN_WINDOW 64u
#define INIT_WINDOW_BYTES ((size_t)16 << 20)
#define LANES 8

/* Hot kernels: built for AVX2 and for the baseline ISA, picked at load time. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define HOT __attribute__((target_clones("avx2", "default")))
#else
#define HOT
#endif

enum { RING_D, RING_P, RING_C, RING_COUNT };
static const int8_t node_ring[IC_NODE_COUNT] = {RING_D, -1, -1, RING_P, RING_C};

struct ic_solver {
  int ncat;
  uint8_t cats[IC_SOLVER_MAX_CATS];
  uint32_t n;       /* 2^ncat subsets */
  uint32_t np;      /* n padded to LANES */
  int8_t pos[256];  /* category id -> position in cats, or -1 */
  int win_pos;      /* position of win, or -1 */
  int32_t *bitm;    /* [ncat][np]: -1 where subset has bit k, else 0 */
  uint64_t w, wmax; /* window (power of two) and its cap */
  int32_t *ring[RING_COUNT]; /* [w][np] each */
  int32_t *scratch[4];       /* R, E, lat, lat2 */
  int64_t *base;             /* [np] */
  int32_t *zero;             /* [np]: offset of time 0, clamped at FLOOR */
  uint64_t *times;           /* [n] */
  int64_t ubound;            /* upper bound of every stored offset */
  int started;
  uint64_t seq0, next;
  uint64_t valid_lo;         /* oldest seq whose vectors the rings still hold */
  int32_t *last_c;           /* C vector of the last record, or NULL */
  ic_solver_stats st;
};

/* ---- kernels ---------------------------------------------------------- */

HOT static void k_max_add_scalar(int32_t *restrict acc, const int32_t *restrict src, int32_t lat,
                                 uint32_t np) {
  for (uint32_t s = 0; s < np; s += LANES)
    for (int j = 0; j < LANES; j++) {
      int32_t v = src[s + j] + lat;
      acc[s + j] = v > acc[s + j] ? v : acc[s + j];
    }
}

HOT static void k_max_add(int32_t *restrict acc, const int32_t *restrict src,
                          const int32_t *restrict lat, uint32_t np) {
  for (uint32_t s = 0; s < np; s += LANES)
    for (int j = 0; j < LANES; j++) {
      int32_t v = src[s + j] + lat[s + j];
      acc[s + j] = v > acc[s + j] ? v : acc[s + j];
    }
}

HOT static void k_fill(int32_t *restrict v, int32_t x, uint32_t np) {
  for (uint32_t s = 0; s < np; s += LANES)
    for (int j = 0; j < LANES; j++) v[s + j] = x;
}

/* lat[s] -= c where bit k of s is set (m = bit mask vector of k). */
HOT static void k_sub_masked(int32_t *restrict lat, const int32_t *restrict m, int32_t c,
                             uint32_t np) {
  for (uint32_t s = 0; s < np; s += LANES)
    for (int j = 0; j < LANES; j++) lat[s + j] -= c & m[s + j];
}

/* out[s] = NEG where (m[s] ^ inv) is set, else in[s]. */
HOT static void k_neg_masked(int32_t *out, const int32_t *in, const int32_t *restrict m,
                             int32_t inv, uint32_t np) {
  for (uint32_t s = 0; s < np; s += LANES)
    for (int j = 0; j < LANES; j++) {
      int32_t mm = m[s + j] ^ inv;
      out[s + j] = (in[s + j] & ~mm) | (NEG & mm);
    }
}

/* ---- allocation ------------------------------------------------------- */

static void *vec_alloc_raw(size_t count, size_t size) {
  size_t bytes = count * size;
  bytes = (bytes + 63) & ~(size_t)63;
  if (bytes == 0) bytes = 64;
  return aligned_alloc(64, bytes);
}

static void *vec_alloc(size_t count, size_t size) {
  void *p = vec_alloc_raw(count, size);
  if (p) memset(p, 0, count * size);
  return p;
}

/* Ring memory is not cleared: a slot is read only after it was written
 * (valid_lo and the window bound every source), so untouched pages of a
 * large window cost no resident memory. */
static int rings_alloc(int32_t *r[RING_COUNT], uint64_t w, uint32_t np) {
  for (int k = 0; k < RING_COUNT; k++) r[k] = vec_alloc_raw(w * np, sizeof(int32_t));
  if (r[0] && r[1] && r[2]) return 1;
  for (int k = 0; k < RING_COUNT; k++) free(r[k]);
  return 0;
}

ic_status ic_solver_create(ic_solver **out, const uint8_t *cats, int ncat, ic_err *err) {
  *out = NULL;
  if (ncat < 0 || ncat > IC_SOLVER_MAX_CATS)
    return ic_fail(err, IC_EINPUT, "solver: %d categories (at most %d)", ncat,
                   IC_SOLVER_MAX_CATS);
  ic_solver *s = calloc(1, sizeof *s);
  if (!s) return ic_fail(err, IC_ERUN, "solver: out of memory");
  memset(s->pos, -1, sizeof s->pos);
  s->ncat = ncat;
  s->win_pos = -1;
  for (int k = 0; k < ncat; k++) {
    if (cats[k] >= IC_CAT_COUNT) {
      free(s);
      return ic_fail(err, IC_EINPUT, "solver: unknown category id %u", cats[k]);
    }
    if (s->pos[cats[k]] >= 0) {
      free(s);
      return ic_fail(err, IC_EINPUT, "solver: category '%s' given twice",
                     ic_category_names[cats[k]]);
    }
    s->cats[k] = cats[k];
    s->pos[cats[k]] = (int8_t)k;
    if (cats[k] == IC_CAT_WIN) s->win_pos = k;
  }
  s->n = 1u << ncat;
  s->np = (s->n + LANES - 1) / LANES * LANES;
  size_t per_inst = (size_t)RING_COUNT * s->np * sizeof(int32_t);
  s->wmax = 1024;
  while ((s->wmax * 2) * per_inst <= IC_SOLVER_MAX_WINDOW_BYTES) s->wmax *= 2;
  s->w = 1024;
  while (s->w * 2 * per_inst <= INIT_WINDOW_BYTES) s->w *= 2;
  if (s->w > s->wmax) s->w = s->wmax;
  s->bitm = vec_alloc((size_t)(ncat ? ncat : 1) * s->np, sizeof(int32_t));
  s->base = vec_alloc(s->np, sizeof(int64_t));
  s->zero = vec_alloc(s->np, sizeof(int32_t));
  s->times = vec_alloc(s->n, sizeof(uint64_t));
  int ok = s->bitm && s->base && s->zero && s->times;
  for (int k = 0; k < 4; k++) ok = (s->scratch[k] = vec_alloc(s->np, sizeof(int32_t))) && ok;
  if (!ok || !rings_alloc(s->ring, s->w, s->np)) {
    ic_solver_destroy(s);
    return ic_fail(err, IC_ERUN, "solver: out of memory (%d categories)", ncat);
  }
  for (int k = 0; k < ncat; k++)
    for (uint32_t x = 0; x < s->np; x++) s->bitm[(size_t)k * s->np + x] = (x >> k) & 1 ? -1 : 0;
  ic_solver_reset(s);
  *out = s;
  return IC_OK;
}

void ic_solver_destroy(ic_solver *s) {
  if (!s) return;
  for (int k = 0; k < RING_COUNT; k++) free(s->ring[k]);
  for (int k = 0; k < 4; k++) free(s->scratch[k]);
  free(s->bitm);
  free(s->base);
  free(s->zero);
  free(s->times);
  free(s);
}

void ic_solver_reset(ic_solver *s) {
  s->started = 0;
  s->seq0 = s->next = s->valid_lo = 0;
  s->ubound = 0;
  s->last_c = NULL;
  memset(s->base, 0, s->np * sizeof *s->base);
  memset(s->zero, 0, s->np * sizeof *s->zero);
  memset(s->times, 0, s->n * sizeof *s->times);
  uint64_t w = s->w;
  memset(&s->st, 0, sizeof s->st);
  s->st.window = w;
}

/* Grows the window to the smallest power of two above `need` (capped at
 * wmax), keeping the live entries of instructions [next-w+1, next-1]. */
static ic_status grow_window(ic_solver *s, uint64_t need, ic_err *err) {
  uint64_t w = s->w;
  while (w <= need && w < s->wmax) w *= 2;
  if (w == s->w) return IC_OK;
  int32_t *r[RING_COUNT];
  if (!rings_alloc(r, w, s->np))
    return ic_fail(err, IC_ERUN, "solver: out of memory growing the window to %llu instructions",
                   (unsigned long long)w);
  uint64_t lo = s->next - s->valid_lo < s->w ? s->valid_lo : s->next - s->w;
  for (uint64_t q = lo; q < s->next; q++)
    for (int k = 0; k < RING_COUNT; k++)
      memcpy(r[k] + (q & (w - 1)) * s->np, s->ring[k] + (q & (s->w - 1)) * s->np,
             s->np * sizeof(int32_t));
  for (int k = 0; k < RING_COUNT; k++) {
    free(s->ring[k]);
    s->ring[k] = r[k];
  }
  s->w = w;
  s->valid_lo = lo;
  s->st.window = w;
  if (s->last_c) s->last_c = s->ring[RING_C] + ((s->next - 1) & (w - 1)) * s->np;
  return IC_OK;
}

/* Brings every live offset down so that the largest one per subset is at
 * most REBASE_TO, raising the base by the same amount. */
static void rebase(ic_solver *s) {
  uint64_t live = s->next - s->valid_lo < s->w ? s->next - s->valid_lo : s->w;
  int32_t *mx = s->scratch[2];
  k_fill(mx, FLOOR, s->np);
  for (uint64_t q = s->next - live; q < s->next; q++)
    for (int k = 0; k < RING_COUNT; k++) {
      const int32_t *v = s->ring[k] + (q & (s->w - 1)) * s->np;
      for (uint32_t x = 0; x < s->np; x++) mx[x] = v[x] > mx[x] ? v[x] : mx[x];
    }
  int32_t *delta = s->scratch[3];
  int64_t newmax = 0;
  for (uint32_t x = 0; x < s->np; x++) {
    delta[x] = mx[x] > REBASE_TO ? mx[x] - REBASE_TO : 0;
    s->base[x] += delta[x];
    int32_t z = s->zero[x] - delta[x];
    s->zero[x] = z < FLOOR ? FLOOR : z;
    int64_t m = mx[x] - delta[x];
    if (m > newmax) newmax = m;
  }
  for (uint64_t q = s->next - live; q < s->next; q++)
    for (int k = 0; k < RING_COUNT; k++) {
      int32_t *v = s->ring[k] + (q & (s->w - 1)) * s->np;
      for (uint32_t x = 0; x < s->np; x++) {
        if (!delta[x]) continue;
        int64_t y = (int64_t)v[x] - delta[x];
        if (y < FLOOR) {
          if (v[x] > FLOOR && x < s->n) s->st.clamped++;
          y = FLOOR;
        }
        v[x] = (int32_t)y;
      }
    }
  s->ubound = newmax;
  s->st.rebases++;
}

/* ---- the forward pass ------------------------------------------------- */

static ic_status feed_one(ic_solver *s, const ic_graph_rec *r, ic_err *err) {
  ic_status st = dg_check_rec(r, err);
  if (st != IC_OK) return st;
  if (!s->started) {
    s->started = 1;
    s->seq0 = s->next = s->valid_lo = r->seq;
  } else if (r->seq != s->next) {
    return ic_fail(err, IC_EINPUT, "graph record %llu follows record %llu (sequence gap)",
                   (unsigned long long)r->seq, (unsigned long long)(s->next - 1));
  }
  const uint64_t idx = r->seq - s->seq0; /* sources with dist > idx precede the first record */
  const uint32_t np = s->np;

  /* Window: grow on the first sight of a longer distance, even one reaching
   * before the first record, so that later edges of that length find their
   * sources (a win-idealized CD edge is seen at the first instruction). */
  uint64_t need = 0;
  for (int k = 0; k < r->nedges; k++) {
    const ic_edge *e = &r->edge[k];
    uint64_t d = e->dist;
    if (e->kind == IC_EDGE_CD && s->win_pos >= 0) d *= IC_WIN_FACTOR;
    if (d > need) need = d;
  }
  if (need >= s->w && s->w < s->wmax && (st = grow_window(s, need, err)) != IC_OK) return st;

  const uint64_t wm = s->w - 1;
  const uint64_t slot = r->seq & wm;
  int32_t *vec[IC_NODE_COUNT] = {
      s->ring[RING_D] + slot * np, s->scratch[0], s->scratch[1], s->ring[RING_P] + slot * np,
      s->ring[RING_C] + slot * np};
  int32_t *lat = s->scratch[2], *lat2 = s->scratch[3];
  int64_t grow = 0;

  for (int node = 0; node < IC_NODE_COUNT; node++) {
    int32_t *acc = vec[node];
    memcpy(acc, s->zero, np * sizeof(int32_t));
    for (int k = 0; k < r->nedges; k++) {
      const ic_edge *e = &r->edge[k];
      if (ic_edge_dst_node[e->kind] != node) continue;
      s->st.edges++;
      int32_t total = 0;
      int vecparts = 0;
      for (int p = 0; p < e->nparts; p++) {
        total += (int32_t)e->part[p].cycles;
        uint8_t c = e->part[p].cat;
        if (c != IC_CAT_NONE && s->pos[c] >= 0 && e->part[p].cycles) vecparts = 1;
      }
      grow += total;
      uint8_t dc = dg_edge_drop_cat(e->kind);
      int drop_pos = dc != IC_CAT_NONE ? s->pos[dc] : -1;
      int two = e->kind == IC_EDGE_CD && s->win_pos >= 0;
      int srcnode = ic_edge_src_node[e->kind];

      /* source vector(s): a = without win (or always), b = with win */
      const int32_t *src[2] = {s->zero, s->zero};
      for (int h = 0; h < 1 + two; h++) {
        uint64_t d = h ? (uint64_t)e->dist * IC_WIN_FACTOR : e->dist;
        if (d == 0)
          src[h] = vec[srcnode];
        else if (d > idx)
          src[h] = s->zero;
        else if (d > wm || r->seq - d < s->valid_lo) {
          src[h] = s->zero;
          s->st.out_of_window++;
        } else
          src[h] = s->ring[node_ring[srcnode]] + ((r->seq - d) & wm) * np;
      }

      if (!vecparts && drop_pos < 0 && !two) {
        k_max_add_scalar(acc, src[0], total, np);
        continue;
      }
      k_fill(lat, total, np);
      if (vecparts)
        for (int p = 0; p < e->nparts; p++) {
          uint8_t c = e->part[p].cat;
          if (c != IC_CAT_NONE && s->pos[c] >= 0 && e->part[p].cycles)
            k_sub_masked(lat, s->bitm + (size_t)s->pos[c] * np, (int32_t)e->part[p].cycles, np);
        }
      if (drop_pos >= 0) k_neg_masked(lat, lat, s->bitm + (size_t)drop_pos * np, 0, np);
      if (!two) {
        k_max_add(acc, src[0], lat, np);
      } else {
        const int32_t *wmask = s->bitm + (size_t)s->win_pos * np;
        k_neg_masked(lat2, lat, wmask, 0, np);  /* subsets without win */
        k_max_add(acc, src[0], lat2, np);
        k_neg_masked(lat2, lat, wmask, -1, np); /* subsets with win */
        k_max_add(acc, src[1], lat2, np);
      }
    }
  }

  /* Baseline invariant: subset 0 idealizes nothing. */
  for (int node = 0; node < IC_NODE_COUNT; node++)
    if ((uint64_t)(s->base[0] + vec[node][0]) != r->t[node]) {
      if (!s->st.violations) s->st.first_violation_seq = r->seq;
      s->st.violations++;
      break;
    }

  s->last_c = vec[IC_NODE_C];
  s->next = r->seq + 1;
  s->st.instructions++;
  s->ubound += grow;
  if (s->ubound > REBASE_AT) rebase(s);
  return IC_OK;
}

static void update_times(ic_solver *s) {
  if (!s->last_c) return;
  for (uint32_t x = 0; x < s->n; x++) s->times[x] = (uint64_t)(s->base[x] + s->last_c[x]);
}

ic_status ic_solver_feed(ic_solver *s, const ic_graph_rec *recs, size_t n, ic_err *err) {
  ic_status st = IC_OK;
  for (size_t i = 0; i < n && st == IC_OK; i++) st = feed_one(s, &recs[i], err);
  update_times(s);
  return st;
}

static ic_status sink_consume(void *ctx, const ic_graph_rec *recs, size_t n, ic_err *err) {
  return ic_solver_feed(ctx, recs, n, err);
}

ic_graph_sink ic_solver_sink(ic_solver *s) { return (ic_graph_sink){s, sink_consume}; }

const uint64_t *ic_solver_times(const ic_solver *s) { return s->times; }
int ic_solver_ncat(const ic_solver *s) { return s->ncat; }
uint64_t ic_solver_instructions(const ic_solver *s) { return s->st.instructions; }
uint64_t ic_solver_invariant_violations(const ic_solver *s) { return s->st.violations; }
void ic_solver_get_stats(const ic_solver *s, ic_solver_stats *out) { *out = s->st; }

void ic_solver_set_window_cap(ic_solver *s, uint64_t max_instructions) {
  uint64_t w = MIN_WINDOW, per_inst = (uint64_t)RING_COUNT * s->np * sizeof(int32_t);
  while (w * 2 <= max_instructions && w * 2 * per_inst <= IC_SOLVER_MAX_WINDOW_BYTES) w *= 2;
  s->wmax = w;
  if (s->w > w) {
    int32_t *r[RING_COUNT];
    if (!rings_alloc(r, w, s->np)) return; /* keep the larger window */
    for (int k = 0; k < RING_COUNT; k++) {
      free(s->ring[k]);
      s->ring[k] = r[k];
    }
    s->w = w;
    s->st.window = w;
    s->valid_lo = s->next; /* nothing older survives the shrink */
    s->last_c = NULL;
  }
}

ic_catmask ic_solver_subset_catmask(const ic_solver *s, uint32_t subset) {
  ic_catmask m = 0;
  for (int k = 0; k < s->ncat; k++)
    if (subset & (1u << k)) m |= IC_CATBIT(s->cats[k]);
  return m;
}

ic_status ic_parse_categories(const char *list, uint8_t *cats, int *ncat, ic_err *err) {
  *ncat = 0;
  if (!list || !*list) return ic_fail(err, IC_EINPUT, "categories: empty list");
  int n = 0;
  const char *p = list;
  for (;;) {
    const char *end = strchr(p, ',');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    if (len == 0)
      return ic_fail(err, IC_EINPUT, "categories '%s': empty item", list);
    char name[32];
    if (len >= sizeof name)
      return ic_fail(err, IC_EINPUT, "categories '%s': unknown category '%.*s'", list,
                     (int)len, p);
    memcpy(name, p, len);
    name[len] = 0;
    int c = ic_category_lookup(name);
    if (c < 0) {
      char known[160] = "";
      for (int k = 0; k < IC_CAT_COUNT; k++) {
        if (k) strcat(known, ",");
        strcat(known, ic_category_names[k]);
      }
      return ic_fail(err, IC_EINPUT, "categories '%s': unknown category '%s' (known: %s)", list,
                     name, known);
    }
    for (int k = 0; k < n; k++)
      if (cats[k] == c)
        return ic_fail(err, IC_EINPUT, "categories '%s': '%s' given twice", list, name);
    if (n == IC_SOLVER_MAX_CATS)
      return ic_fail(err, IC_EINPUT, "categories '%s': more than %d categories", list,
                     IC_SOLVER_MAX_CATS);
    cats[n++] = (uint8_t)c;
    if (!end) break;
    p = end + 1;
  }
  *ncat = n;
  return IC_OK;
}
