/* solver.c: the streaming powerset solver (solver.h).
 *
 * Representation. Node times are int32 offsets from a per-subset int64 base:
 * time(node, S) = base[S] + off(node, S). A vector holds NP >= 2^ncat int32,
 * one lane per subset; lane bit k stands for a category, in an order where
 * win, bw, bmisp and dmiss take the highest bits (lane_of maps the caller's
 * subset masks to lanes), so the subsets without one half of a CD edge or
 * without a dropped edge form whole blocks of lanes the kernels skip
 * (padded to a multiple of 8 so the kernels' inner loops have a fixed trip
 * count and vectorize at -O2; padding lanes compute harmless garbage that is
 * never reported). The D, P and C vectors of recent instructions live in
 * three ring buffers indexed by seq & (W-1), each with its own window W (D
 * only feeds short in-order edges, so its ring stays small; P and C grow with
 * the distances seen); R and E are only ever sources inside their own
 * instruction, so they live in scratch vectors.
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
 * C(i-20w) for subsets with it, each masked with NEG on the other half.
 * Latency vectors are cached by edge shape (a run has few shapes). Where the
 * lane bit of win (for CD) or of the dropping category is at least 32, the
 * kernels skip the blocks of lanes where the edge is gone; a dropped edge
 * whose other parts are in no chosen category, and a CD half without parts
 * in chosen categories, then have one latency in the lanes they are
 * computed in: they are "conditional scalar" edges, which are exact only
 * because of the skipping (their lanes are not NEG-masked).
 *
 * Per instruction: one pass over its edges checks them, resolves their
 * sources and latencies (per-kind and per-category tables built at create
 * keep it short; if the instruction makes a ring grow, the pass runs again
 * on the grown ring); then each node's vector is computed in one fused pass
 * over the subsets (k_node: AVX2 with 64 or 32 subsets in registers where
 * the CPU has it, portable vector code otherwise), starting from a scalar edge
 * rather than time 0 where the node has one, and lane 0 (subset {}) is
 * compared with the record's stamps. */
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

enum { RING_D, RING_P, RING_C, RING_COUNT };

/* What an edge's latency vector depends on: its total, the cycles of its
 * parts in chosen categories (by position), the position whose subsets drop
 * it, and for a win-split CD edge which half it is (1: subsets without win,
 * 2: with win). Most edges of a run share a few shapes, so the vectors are
 * cached instead of rebuilt per edge. The key is three words built in
 * registers (byte-wise building then word-wise comparing stalls on store
 * forwarding):
 *   a = total | (drop + 1) << 24 | half << 29 | nvp << 32 | used << 40
 *   b, c = two parts each: cycles | position << 24, part 2k in the low half */
#define LCACHE 256
struct lat_key {
  uint64_t a, b, c;
};
static inline int lk_nvp(const struct lat_key *k) { return (int)((k->a >> 32) & 7); }
static inline uint32_t lk_part(const struct lat_key *k, int p) {
  uint64_t w = p < 2 ? k->b : k->c;
  return (uint32_t)(p & 1 ? w >> 32 : w);
}

static const int8_t node_ring[IC_NODE_COUNT] = {RING_D, -1, -1, RING_P, RING_C};

/* Per edge kind, what feed_one needs (graph_rec.h, graph.h), with the
 * positions of this solver's categories. */
struct kind_info {
  uint8_t node, srcnode;
  int8_t ring;    /* ring of the source node (-1: R, E) */
  uint8_t bad0;   /* dist 0 is malformed: the source node is not before the destination */
  uint8_t badfar; /* dist > 0 is malformed: R and E are not read across instructions */
  uint8_t two;    /* CD with win chosen: two half-edges */
  int8_t drop;    /* lane bit whose subsets drop the edge, or -1 */
  uint32_t skipm; /* 1 << the bit of drop (or of win for two) if >= 4 * LANES, else 0 */
};

/* catpos[category id]: position + 1 of a chosen category (CP_POS bits), 0
 * for IC_CAT_NONE or a category not chosen, CP_BAD for an unknown id. */
#define CP_POS 0x7f
#define CP_BAD 0x80

struct ic_solver {
  int ncat;
  uint8_t cats[IC_SOLVER_MAX_CATS];
  uint32_t n;       /* 2^ncat subsets */
  uint32_t np;      /* n padded to LANES */
  int8_t pos[256];  /* category id -> its lane bit (see lane_of), or -1 */
  uint8_t catpos[256];
  struct kind_info kinfo[IC_EDGE_KIND_COUNT];
  int win_pos;      /* lane bit of win, or -1 */
  uint32_t *lane_of; /* [n]: the lane of the caller's subset mask */
  int32_t *bitm;    /* [ncat][np]: -1 where subset has bit k, else 0 */
  uint64_t w[RING_COUNT];    /* window of each ring (power of two) */
  uint64_t wmax;             /* cap of every ring's window */
  int32_t *ring[RING_COUNT]; /* [w][np] each */
  int32_t *scratch[4];       /* R, E, and two for rebase */
  /* Latency vectors by edge shape (lat_key): direct-mapped, LCACHE slots. */
  struct lat_key *lkey;
  uint64_t *lstamp;          /* [LCACHE]: instruction that last used the slot, + 1 */
  int32_t *lvec;             /* [LCACHE][np] */
  int32_t *lpool;            /* [2 * IC_MAX_EDGES][np]: when a slot is busy */
  int npool;                 /* pool vectors used by the current instruction */
  int avx2;                  /* the CPU runs k_node_avx2 */
  int64_t *base;             /* [np] */
  int32_t *zero;             /* [np]: offset of time 0, clamped at FLOOR */
  uint64_t *times;           /* [n] */
  int64_t ubound;            /* upper bound of every stored offset */
  int started;
  uint64_t seq0, next;
  uint64_t valid_lo[RING_COUNT]; /* oldest seq whose vectors each ring still holds */
  int32_t *last_c;           /* C vector of the last record, or NULL */
  uint64_t far_c;            /* distance of the last win-half CD source (0: none) */
  ic_solver_stats st;
};

/* ---- kernels ---------------------------------------------------------- */

/* Eight subsets at a time with GCC/Clang vector extensions, so the kernels
 * are SIMD at -O2 whatever the auto-vectorizer decides. Macros, not
 * functions, so no 32-byte vector crosses a call boundary. */
typedef int32_t v8si __attribute__((vector_size(4 * LANES), may_alias));
#define LD(p) (*(const v8si *)(const void *)(p))
#define ST(p, v) (*(v8si *)(void *)(p) = (v))
#define VMAX(a, b) __extension__({ v8si a_ = (a), b_ = (b), m_ = a_ > b_; (a_ & m_) | (b_ & ~m_); })
#define SPLAT(x) ((v8si){(x), (x), (x), (x), (x), (x), (x), (x)})

/* One node's arrival vector from all its in-edges in a single pass:
 *   acc[s] = max(zero[s], max over vector edges e of src[e][s] + lat[e][s],
 *                         max over scalar edges e of ssrc[e][s] + slat[e])
 * (a scalar edge has the same latency in every subset). All vectors are
 * 32-byte aligned and np is a multiple of 8. */
typedef struct node_edges {
  int nv, ns, nc;
  uint32_t cskipmin; /* smallest cskipm (UINT32_MAX if nc == 0) */
  const int32_t *src[2 * IC_MAX_EDGES], *lat[2 * IC_MAX_EDGES];
  /* lat[e] is NEG (the edge is gone) in every lane x with (x & skipm[e]) ==
   * skipv[e]; skipm is a bit >= 4 * LANES, so a block of 8 or 32 lanes
   * starting at s has it all set or all clear, and is skipped when
   * (s & skipm) == skipv (skipm = 0, skipv = 1: never). */
  uint32_t skipm[2 * IC_MAX_EDGES], skipv[2 * IC_MAX_EDGES];
  /* Scalar edges: the same latency in every lane. */
  const int32_t *ssrc[IC_MAX_EDGES];
  int32_t slat[IC_MAX_EDGES];
  /* Conditional scalar edges: the same latency in every lane they are not
   * skipped in (skipped lanes as above: a dropped edge, or a CD half). */
  const int32_t *csrc[2 * IC_MAX_EDGES];
  int32_t clat[2 * IC_MAX_EDGES];
  uint32_t cskipm[2 * IC_MAX_EDGES], cskipv[2 * IC_MAX_EDGES];
} node_edges;

/* Every source vector is >= zero lane by lane (a node starts at zero or
 * above; rebase lowers and clamps both alike), and a scalar edge's latency
 * is >= 0: a node with a scalar edge starts from it instead of from zero. */
static void k_node_generic(int32_t *acc, const int32_t *zero, const node_edges *ne, uint32_t np) {
  const int s0 = ne->ns > 0;
  for (uint32_t s = 0; s < np; s += LANES) {
    v8si v;
    if (s0)
      v = LD(ne->ssrc[0] + s) + SPLAT(ne->slat[0]);
    else
      v = LD(zero + s);
    for (int e = 0; e < ne->nv; e++)
      if ((s & ne->skipm[e]) != ne->skipv[e])
        v = VMAX(v, LD(ne->src[e] + s) + LD(ne->lat[e] + s));
    for (int e = s0; e < ne->ns; e++) v = VMAX(v, LD(ne->ssrc[e] + s) + SPLAT(ne->slat[e]));
    for (int e = 0; e < ne->nc; e++)
      if ((s & ne->cskipm[e]) != ne->cskipv[e])
        v = VMAX(v, LD(ne->csrc[e] + s) + SPLAT(ne->clat[e]));
    ST(acc + s, v);
  }
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define HAVE_AVX2_KERNEL 1
/* The same with AVX2 intrinsics, 32 subsets per block held in registers, so
 * each edge costs one or two loads, one add and one max per 8 subsets. */
#define AVX_LD(p) _mm256_load_si256((const __m256i *)(const void *)(p))
#define AVX_STEP(v, a, l) v = _mm256_max_epi32(v, _mm256_add_epi32(AVX_LD(a), l))
#define AVX_INIT(s) (s0 ? _mm256_add_epi32(AVX_LD(ne->ssrc[0] + (s)), l0) : AVX_LD(zero + (s)))
__attribute__((target("avx2"))) static void k_node_avx2(int32_t *acc, const int32_t *zero,
                                                        const node_edges *ne, uint32_t np) {
  const int s0 = ne->ns > 0;
  const __m256i l0 = _mm256_set1_epi32(s0 ? ne->slat[0] : 0);
  uint32_t s = 0;
  /* 64 subsets at a time while every conditional edge skips whole blocks of
   * 64 (a vector edge that does not is computed in all of them: NEG) */
  if (ne->cskipmin >= 8 * LANES)
    for (; s + 8 * LANES <= np; s += 8 * LANES) {
      __m256i x0 = AVX_INIT(s), x1 = AVX_INIT(s + 8), x2 = AVX_INIT(s + 16),
              x3 = AVX_INIT(s + 24), x4 = AVX_INIT(s + 32), x5 = AVX_INIT(s + 40),
              x6 = AVX_INIT(s + 48), x7 = AVX_INIT(s + 56);
      for (int e = 0; e < ne->nv; e++) {
        if (ne->skipm[e] >= 8 * LANES && (s & ne->skipm[e]) == ne->skipv[e]) continue;
        const int32_t *a = ne->src[e] + s, *b = ne->lat[e] + s;
        AVX_STEP(x0, a, AVX_LD(b));
        AVX_STEP(x1, a + 8, AVX_LD(b + 8));
        AVX_STEP(x2, a + 16, AVX_LD(b + 16));
        AVX_STEP(x3, a + 24, AVX_LD(b + 24));
        AVX_STEP(x4, a + 32, AVX_LD(b + 32));
        AVX_STEP(x5, a + 40, AVX_LD(b + 40));
        AVX_STEP(x6, a + 48, AVX_LD(b + 48));
        AVX_STEP(x7, a + 56, AVX_LD(b + 56));
      }
      for (int e = s0; e < ne->ns + ne->nc; e++) {
        const int c = e >= ne->ns;
        const int32_t *a;
        int32_t l32;
        if (c) {
          int k = e - ne->ns;
          if ((s & ne->cskipm[k]) == ne->cskipv[k]) continue;
          a = ne->csrc[k] + s;
          l32 = ne->clat[k];
        } else {
          a = ne->ssrc[e] + s;
          l32 = ne->slat[e];
        }
        __m256i l = _mm256_set1_epi32(l32);
        AVX_STEP(x0, a, l);
        AVX_STEP(x1, a + 8, l);
        AVX_STEP(x2, a + 16, l);
        AVX_STEP(x3, a + 24, l);
        AVX_STEP(x4, a + 32, l);
        AVX_STEP(x5, a + 40, l);
        AVX_STEP(x6, a + 48, l);
        AVX_STEP(x7, a + 56, l);
      }
      _mm256_store_si256((__m256i *)(void *)(acc + s), x0);
      _mm256_store_si256((__m256i *)(void *)(acc + s + 8), x1);
      _mm256_store_si256((__m256i *)(void *)(acc + s + 16), x2);
      _mm256_store_si256((__m256i *)(void *)(acc + s + 24), x3);
      _mm256_store_si256((__m256i *)(void *)(acc + s + 32), x4);
      _mm256_store_si256((__m256i *)(void *)(acc + s + 40), x5);
      _mm256_store_si256((__m256i *)(void *)(acc + s + 48), x6);
      _mm256_store_si256((__m256i *)(void *)(acc + s + 56), x7);
    }
  for (; s + 4 * LANES <= np; s += 4 * LANES) {
    __m256i x0 = AVX_INIT(s), x1 = AVX_INIT(s + 8), x2 = AVX_INIT(s + 16), x3 = AVX_INIT(s + 24);
    for (int e = 0; e < ne->nv; e++) {
      if ((s & ne->skipm[e]) == ne->skipv[e]) continue;
      const int32_t *a = ne->src[e] + s, *b = ne->lat[e] + s;
      AVX_STEP(x0, a, AVX_LD(b));
      AVX_STEP(x1, a + 8, AVX_LD(b + 8));
      AVX_STEP(x2, a + 16, AVX_LD(b + 16));
      AVX_STEP(x3, a + 24, AVX_LD(b + 24));
    }
    for (int e = s0; e < ne->ns; e++) {
      const int32_t *a = ne->ssrc[e] + s;
      __m256i l = _mm256_set1_epi32(ne->slat[e]);
      AVX_STEP(x0, a, l);
      AVX_STEP(x1, a + 8, l);
      AVX_STEP(x2, a + 16, l);
      AVX_STEP(x3, a + 24, l);
    }
    for (int e = 0; e < ne->nc; e++) {
      if ((s & ne->cskipm[e]) == ne->cskipv[e]) continue;
      const int32_t *a = ne->csrc[e] + s;
      __m256i l = _mm256_set1_epi32(ne->clat[e]);
      AVX_STEP(x0, a, l);
      AVX_STEP(x1, a + 8, l);
      AVX_STEP(x2, a + 16, l);
      AVX_STEP(x3, a + 24, l);
    }
    _mm256_store_si256((__m256i *)(void *)(acc + s), x0);
    _mm256_store_si256((__m256i *)(void *)(acc + s + 8), x1);
    _mm256_store_si256((__m256i *)(void *)(acc + s + 16), x2);
    _mm256_store_si256((__m256i *)(void *)(acc + s + 24), x3);
  }
  for (; s < np; s += LANES) {
    __m256i v = AVX_INIT(s);
    for (int e = 0; e < ne->nv; e++)
      if ((s & ne->skipm[e]) != ne->skipv[e])
        AVX_STEP(v, ne->src[e] + s, AVX_LD(ne->lat[e] + s));
    for (int e = s0; e < ne->ns; e++) AVX_STEP(v, ne->ssrc[e] + s, _mm256_set1_epi32(ne->slat[e]));
    for (int e = 0; e < ne->nc; e++)
      if ((s & ne->cskipm[e]) != ne->cskipv[e])
        AVX_STEP(v, ne->csrc[e] + s, _mm256_set1_epi32(ne->clat[e]));
    _mm256_store_si256((__m256i *)(void *)(acc + s), v);
  }
}
#endif

static void k_fill(int32_t *v, int32_t x, uint32_t np) {
  for (uint32_t s = 0; s < np; s += LANES) ST(v + s, SPLAT(x));
}

/* lat[s] -= c where bit k of s is set (m = bit mask vector of k). */
static void k_sub_masked(int32_t *lat, const int32_t *m, int32_t c, uint32_t np) {
  for (uint32_t s = 0; s < np; s += LANES) ST(lat + s, LD(lat + s) - (SPLAT(c) & LD(m + s)));
}

/* lat[s] = NEG where (m[s] ^ inv) is set. */
static void k_neg_masked(int32_t *lat, const int32_t *m, int32_t inv, uint32_t np) {
  for (uint32_t s = 0; s < np; s += LANES) {
    v8si mm = LD(m + s) ^ SPLAT(inv);
    ST(lat + s, (LD(lat + s) & ~mm) | (SPLAT(NEG) & mm));
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
static int rings_alloc(int32_t *r[RING_COUNT], const uint64_t *w, uint32_t np) {
  for (int k = 0; k < RING_COUNT; k++) r[k] = vec_alloc_raw(w[k] * np, sizeof(int32_t));
  if (r[0] && r[1] && r[2]) return 1;
  for (int k = 0; k < RING_COUNT; k++) free(r[k]);
  return 0;
}

static uint64_t max_window(const ic_solver *s) {
  uint64_t m = 0;
  for (int k = 0; k < RING_COUNT; k++) m = s->w[k] > m ? s->w[k] : m;
  return m;
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
  }
  /* Lanes: bit k of a lane stands for a category, not necessarily cats[k].
   * The categories whose idealization removes an edge in some subsets (win
   * for either half of CD, bw, bmisp, dmiss) take the highest bits, so the
   * subsets where such an edge is gone form whole blocks of lanes that the
   * kernels skip; the others keep the caller's order in the low bits. */
  {
    static const uint8_t top[] = {IC_CAT_WIN, IC_CAT_BW, IC_CAT_BMISP, IC_CAT_DMISS};
    int8_t bit[IC_SOLVER_MAX_CATS];
    int hi = ncat, lo = 0;
    for (int k = 0; k < ncat; k++) bit[k] = -1;
    for (size_t t = 0; t < sizeof top; t++)
      if (s->pos[top[t]] >= 0) bit[s->pos[top[t]]] = (int8_t)--hi;
    for (int k = 0; k < ncat; k++)
      if (bit[k] < 0) bit[k] = (int8_t)lo++;
    for (int k = 0; k < ncat; k++) s->pos[cats[k]] = bit[k];
    s->win_pos = s->pos[IC_CAT_WIN];
  }
  for (int c = 0; c < 256; c++)
    s->catpos[c] = c == IC_CAT_NONE ? 0 : c >= IC_CAT_COUNT ? CP_BAD : (uint8_t)(s->pos[c] + 1);
  for (int k = 0; k < IC_EDGE_KIND_COUNT; k++) {
    struct kind_info *ki = &s->kinfo[k];
    uint8_t dc = dg_edge_drop_cat((uint8_t)k);
    ki->node = ic_edge_dst_node[k];
    ki->srcnode = ic_edge_src_node[k];
    ki->ring = node_ring[ki->srcnode];
    ki->bad0 = ki->srcnode >= ki->node;
    ki->badfar = ki->ring < 0;
    ki->two = k == IC_EDGE_CD && s->win_pos >= 0;
    ki->drop = dc != IC_CAT_NONE ? s->pos[dc] : -1;
    int kb = ki->two ? s->win_pos : ki->drop;
    ki->skipm = kb >= 0 && (1u << kb) >= 4 * LANES ? 1u << kb : 0;
  }
  s->n = 1u << ncat;
#ifdef HAVE_AVX2_KERNEL
  __builtin_cpu_init();
  s->avx2 = __builtin_cpu_supports("avx2");
#endif
  s->np = (s->n + LANES - 1) / LANES * LANES;
  size_t per_inst = (size_t)RING_COUNT * s->np * sizeof(int32_t);
  s->wmax = 1024;
  while ((s->wmax * 2) * per_inst <= IC_SOLVER_MAX_WINDOW_BYTES) s->wmax *= 2;
  /* D is a source only for short in-order edges (DD, FBW): a small ring. */
  uint64_t w = 1024;
  while (w * 2 * per_inst <= INIT_WINDOW_BYTES) w *= 2;
  if (w > s->wmax) w = s->wmax;
  s->w[RING_D] = MIN_WINDOW;
  s->w[RING_P] = s->w[RING_C] = w;
  s->lane_of = malloc(s->n * sizeof *s->lane_of);
  if (s->lane_of)
    for (uint32_t x = 0; x < s->n; x++) {
      uint32_t lane = 0;
      for (int k = 0; k < ncat; k++)
        if (x & (1u << k)) lane |= 1u << s->pos[cats[k]];
      s->lane_of[x] = lane;
    }
  s->bitm = vec_alloc((size_t)(ncat ? ncat : 1) * s->np, sizeof(int32_t));
  s->base = vec_alloc(s->np, sizeof(int64_t));
  s->zero = vec_alloc(s->np, sizeof(int32_t));
  s->times = vec_alloc(s->n, sizeof(uint64_t));
  int ok = s->lane_of && s->bitm && s->base && s->zero && s->times;
  for (int k = 0; k < 4; k++) ok = (s->scratch[k] = vec_alloc(s->np, sizeof(int32_t))) && ok;
  ok = (s->lkey = calloc(LCACHE, sizeof *s->lkey)) && ok;
  ok = (s->lstamp = calloc(LCACHE, sizeof *s->lstamp)) && ok;
  ok = (s->lvec = vec_alloc((size_t)LCACHE * s->np, sizeof(int32_t))) && ok;
  ok = (s->lpool = vec_alloc((size_t)2 * IC_MAX_EDGES * s->np, sizeof(int32_t))) && ok;
  if (!ok || !rings_alloc(s->ring, s->w, s->np)) {
    for (int k = 0; k < RING_COUNT; k++) s->ring[k] = NULL;
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
  free(s->lkey);
  free(s->lstamp);
  free(s->lvec);
  free(s->lpool);
  free(s->bitm);
  free(s->lane_of);
  free(s->base);
  free(s->zero);
  free(s->times);
  free(s);
}

void ic_solver_reset(ic_solver *s) {
  s->started = 0;
  s->seq0 = s->next = 0;
  for (int k = 0; k < RING_COUNT; k++) s->valid_lo[k] = 0;
  s->ubound = 0;
  s->last_c = NULL;
  s->far_c = 0;
  memset(s->base, 0, s->np * sizeof *s->base);
  memset(s->zero, 0, s->np * sizeof *s->zero);
  memset(s->times, 0, s->n * sizeof *s->times);
  memset(s->lstamp, 0, LCACHE * sizeof *s->lstamp);
  memset(&s->st, 0, sizeof s->st);
  s->st.window = max_window(s);
}

/* Grows ring k's window to the smallest power of two above `need` (capped
 * at wmax), keeping the live entries of instructions [next-w, next-1]. */
static ic_status grow_window(ic_solver *s, int k, uint64_t need, ic_err *err) {
  uint64_t w = s->w[k], old = s->w[k];
  while (w <= need && w < s->wmax) w *= 2;
  if (w == old) return IC_OK;
  int32_t *r = vec_alloc_raw(w * s->np, sizeof(int32_t));
  if (!r)
    return ic_fail(err, IC_ERUN, "solver: out of memory growing the window to %llu instructions",
                   (unsigned long long)w);
  uint64_t lo = s->next - s->valid_lo[k] < old ? s->valid_lo[k] : s->next - old;
  for (uint64_t q = lo; q < s->next; q++)
    memcpy(r + (q & (w - 1)) * s->np, s->ring[k] + (q & (old - 1)) * s->np,
           s->np * sizeof(int32_t));
  free(s->ring[k]);
  s->ring[k] = r;
  s->w[k] = w;
  s->valid_lo[k] = lo;
  s->st.window = max_window(s);
  if (k == RING_C && s->last_c) s->last_c = r + ((s->next - 1) & (w - 1)) * s->np;
  return IC_OK;
}

/* Brings every live offset down so that the largest one per subset is at
 * most REBASE_TO, raising the base by the same amount. */
static uint64_t live_lo(const ic_solver *s, int k) {
  return s->next - s->valid_lo[k] < s->w[k] ? s->valid_lo[k] : s->next - s->w[k];
}

static void rebase(ic_solver *s) {
  int32_t *mx = s->scratch[2];
  k_fill(mx, FLOOR, s->np);
  for (int k = 0; k < RING_COUNT; k++)
    for (uint64_t q = live_lo(s, k); q < s->next; q++) {
      const int32_t *v = s->ring[k] + (q & (s->w[k] - 1)) * s->np;
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
  for (int k = 0; k < RING_COUNT; k++)
    for (uint64_t q = live_lo(s, k); q < s->next; q++) {
      int32_t *v = s->ring[k] + (q & (s->w[k] - 1)) * s->np;
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

/* The latency vector of an edge shape, from the cache or built into it. A
 * slot already used by the current instruction is not overwritten (its
 * vector is still referenced): the vector is built in the pool instead. */
static const int32_t *lat_vector(ic_solver *s, const struct lat_key *k) {
  uint64_t x = (k->a * 0x9E3779B97F4A7C15ull) ^ (k->b * 0xC2B2AE3D27D4EB4Full) ^
               (k->c * 0x165667B19E3779F9ull);
  uint32_t h = (uint32_t)(x >> 56) & (LCACHE - 1);
  struct lat_key *slot = &s->lkey[h];
  int32_t *v = s->lvec + (size_t)h * s->np;
  uint64_t now = s->st.instructions + 1;
  if (slot->a == k->a && slot->b == k->b && slot->c == k->c) {
    s->lstamp[h] = now;
    return v;
  }
  if (s->lstamp[h] == now) {
    v = s->lpool + (size_t)s->npool++ * s->np;
  } else {
    *slot = *k;
    s->lstamp[h] = now;
  }
  int total = (int)(k->a & 0xffffff), drop = (int)((k->a >> 24) & 31) - 1,
      half = (int)((k->a >> 29) & 3);
  k_fill(v, total, s->np);
  for (int p = 0; p < lk_nvp(k); p++) {
    uint32_t w = lk_part(k, p);
    k_sub_masked(v, s->bitm + (size_t)(w >> 24) * s->np, (int32_t)(w & 0xffffff), s->np);
  }
  if (drop >= 0) k_neg_masked(v, s->bitm + (size_t)drop * s->np, 0, s->np);
  if (half) k_neg_masked(v, s->bitm + (size_t)s->win_pos * s->np, half == 1 ? 0 : -1, s->np);
  return v;
}

/* The source vector of an edge at distance d (> 0) from node kind `ring`:
 * the ring slot, or the time-0 vector for a source before the first record
 * or one that left the window (counted in *oow). Notes in need[] the
 * distance the window must hold. */
static inline const int32_t *ring_source(const ic_solver *s, int ring, uint64_t d, uint64_t seq,
                                         uint64_t idx, uint64_t *need, uint64_t *oow) {
  if (d > need[ring]) need[ring] = d;
  if (d > idx) return s->zero;
  if (d >= s->w[ring] || seq - d < s->valid_lo[ring]) {
    (*oow)++;
    return s->zero;
  }
  return s->ring[ring] + ((seq - d) & (s->w[ring] - 1)) * s->np;
}

static ic_status malformed(const ic_graph_rec *r, ic_err *err) {
  ic_status st = dg_check_rec(r, err);
  return st != IC_OK ? st
                     : ic_fail(err, IC_EINPUT, "graph record %llu: malformed",
                               (unsigned long long)r->seq);
}

static ic_status feed_one(ic_solver *s, const ic_graph_rec *r, ic_err *err) {
  ic_status st;
  if (!s->started) {
    s->started = 1;
    s->seq0 = s->next = r->seq;
    for (int k = 0; k < RING_COUNT; k++) s->valid_lo[k] = r->seq;
  } else if (r->seq != s->next) {
    return ic_fail(err, IC_EINPUT, "graph record %llu follows record %llu (sequence gap)",
                   (unsigned long long)r->seq, (unsigned long long)(s->next - 1));
  }
  const uint64_t seq = r->seq;
  const uint64_t idx = seq - s->seq0; /* sources with dist > idx precede the first record */
  const uint32_t np = s->np;
  const int nedges = r->nedges;
  if (nedges > IC_MAX_EDGES) return malformed(r, err);

  /* One pass over the edges: the checks of dg_check_rec (which, on failure,
   * says what is wrong), each edge's source vector and latency (a scalar, or
   * a vector by shape from the cache), grouped by destination node. Windows
   * grow on the first sight of a longer distance, even one reaching before
   * the first record, so that later edges of that length find their sources
   * (a win-idealized CD edge is seen at the first instruction): when this
   * instruction asks for a growth, the ring grows and the pass runs again on
   * the grown rings (at most once: a ring grows past the distance or to its
   * cap). */
  int32_t *vec[IC_NODE_COUNT];
  node_edges ne[IC_NODE_COUNT];
  uint64_t oow;
  int64_t grow;
  for (;;) {
    uint64_t need[RING_COUNT] = {0};
    oow = 0;
    grow = 0;
    vec[IC_NODE_D] = s->ring[RING_D] + (seq & (s->w[RING_D] - 1)) * np;
    vec[IC_NODE_R] = s->scratch[0];
    vec[IC_NODE_E] = s->scratch[1];
    vec[IC_NODE_P] = s->ring[RING_P] + (seq & (s->w[RING_P] - 1)) * np;
    vec[IC_NODE_C] = s->ring[RING_C] + (seq & (s->w[RING_C] - 1)) * np;
    for (int k = 0; k < IC_NODE_COUNT; k++) {
      ne[k].nv = ne[k].ns = ne[k].nc = 0;
      ne[k].cskipmin = UINT32_MAX;
    }
    s->npool = 0;
    for (int k = 0; k < nedges; k++) {
      const ic_edge *e = &r->edge[k];
      if (e->kind >= IC_EDGE_KIND_COUNT || e->nparts > IC_MAX_PARTS) return malformed(r, err);
      const struct kind_info *ki = &s->kinfo[e->kind];
      const uint64_t dist = e->dist;
      if (dist == 0 ? ki->bad0 : ki->badfar) return malformed(r, err);
      uint64_t total = 0, parts[IC_MAX_PARTS] = {0};
      unsigned nvp = 0, flags = 0, pbits = 0;
      for (int p = 0; p < e->nparts; p++) {
        uint32_t c = e->part[p].cycles;
        uint8_t cp = s->catpos[e->part[p].cat];
        total += c;
        flags |= cp;
        if (c && (cp & CP_POS)) {
          unsigned bit = (cp & CP_POS) - 1u;
          parts[nvp++] = c | (uint64_t)bit << 24;
          pbits |= 1u << bit;
        }
      }
      if ((flags & CP_BAD) || total > IC_GRAPH_MAX_EDGE_LAT) return malformed(r, err);
      grow += (int64_t)total;
      node_edges *nd = &ne[ki->node];
      const int32_t *src =
          dist == 0 ? vec[ki->srcnode] : ring_source(s, ki->ring, dist, seq, idx, need, &oow);
      if (!nvp && ki->drop < 0 && !ki->two) { /* the same in every subset */
        nd->ssrc[nd->ns] = src;
        nd->slat[nd->ns++] = (int32_t)total;
        continue;
      }
      /* A dropped edge whose parts in chosen categories are all of the
       * dropping one has its total in every subset that keeps it; so has
       * either half of an untagged CD edge: where the kernels skip the
       * subsets without it (skipm), it is a scalar edge. */
      if (ki->skipm && (ki->two ? !pbits : !(pbits & ~(1u << ki->drop)))) {
        if (ki->two) {
          s->far_c = dist * IC_WIN_FACTOR;
          nd->csrc[nd->nc] =
              ring_source(s, ki->ring, dist * IC_WIN_FACTOR, seq, idx, need, &oow);
          nd->clat[nd->nc] = (int32_t)total;
          nd->cskipm[nd->nc] = ki->skipm;
          nd->cskipv[nd->nc++] = 0;
        }
        nd->csrc[nd->nc] = src;
        nd->clat[nd->nc] = (int32_t)total;
        nd->cskipm[nd->nc] = ki->skipm;
        nd->cskipv[nd->nc++] = ki->skipm;
        if (ki->skipm < nd->cskipmin) nd->cskipmin = ki->skipm;
        continue;
      }
      struct lat_key key = {total | (uint64_t)(ki->drop + 1) << 24 | (uint64_t)nvp << 32 | 1ull << 40,
                            parts[0] | parts[1] << 32, parts[2] | parts[3] << 32};
      uint32_t skipm = ki->skipm;
      if (ki->two) { /* the win rule: C(i-w) without win, C(i-20w) with it */
        struct lat_key kw = key;
        kw.a |= (uint64_t)2 << 29;
        key.a |= (uint64_t)1 << 29;
        s->far_c = dist * IC_WIN_FACTOR;
        nd->src[nd->nv] = ring_source(s, ki->ring, dist * IC_WIN_FACTOR, seq, idx, need, &oow);
        nd->skipm[nd->nv] = skipm;
        nd->skipv[nd->nv] = skipm ? 0 : 1;
        nd->lat[nd->nv++] = lat_vector(s, &kw);
      }
      nd->src[nd->nv] = src;
      nd->skipm[nd->nv] = skipm;
      nd->skipv[nd->nv] = skipm ? skipm : 1;
      nd->lat[nd->nv++] = lat_vector(s, &key);
    }
    int grew = 0;
    for (int k = 0; k < RING_COUNT; k++)
      if (need[k] >= s->w[k] && s->w[k] < s->wmax) {
        if ((st = grow_window(s, k, need[k], err)) != IC_OK) return st;
        grew = 1;
      }
    if (!grew) break;
  }
  s->st.out_of_window += oow;
  s->st.edges += (uint64_t)nedges;
#ifdef HAVE_AVX2_KERNEL
  if (s->avx2) {
    for (int node = 0; node < IC_NODE_COUNT; node++)
      k_node_avx2(vec[node], s->zero, &ne[node], np);
  } else
#endif
    for (int node = 0; node < IC_NODE_COUNT; node++)
      k_node_generic(vec[node], s->zero, &ne[node], np);

  /* Baseline invariant: subset 0 idealizes nothing. */
  for (int node = 0; node < IC_NODE_COUNT; node++)
    if ((uint64_t)(s->base[0] + vec[node][0]) != r->t[node]) {
      if (!s->st.violations) s->st.first_violation_seq = seq;
      s->st.violations++;
      break;
    }

  /* The next instructions' ring slots are cold (last written a window
   * ago): fetch them ahead so their stores do not wait for memory. */
  {
    uint64_t ahead = seq + 4;
    const char *pp = (const char *)(s->ring[RING_P] + (ahead & (s->w[RING_P] - 1)) * np);
    const char *pc = (const char *)(s->ring[RING_C] + (ahead & (s->w[RING_C] - 1)) * np);
    for (size_t off = 0; off < np * sizeof(int32_t); off += 64) {
      __builtin_prefetch(pp + off, 1, 3);
      __builtin_prefetch(pc + off, 1, 3);
    }
    /* and the far source of a win-idealized CD edge, a window back (only
     * the win lanes when they form the upper half) */
    if (s->far_c && s->far_c < s->w[RING_C]) {
      const char *pf = (const char *)(s->ring[RING_C] + ((ahead - s->far_c) & (s->w[RING_C] - 1)) * np);
      size_t from = s->kinfo[IC_EDGE_CD].skipm ? np / 2 * sizeof(int32_t) : 0;
      for (size_t off = from; off < np * sizeof(int32_t); off += 64) __builtin_prefetch(pf + off, 0, 3);
    }
  }
  s->last_c = vec[IC_NODE_C];
  s->next = seq + 1;
  s->st.instructions++;
  s->ubound += grow;
  if (s->ubound > REBASE_AT) rebase(s);
  return IC_OK;
}

static void update_times(ic_solver *s) {
  if (!s->last_c) return;
  for (uint32_t x = 0; x < s->n; x++) {
    uint32_t lane = s->lane_of[x];
    s->times[x] = (uint64_t)(s->base[lane] + s->last_c[lane]);
  }
}

ic_status ic_solver_feed(ic_solver *s, const ic_graph_rec *recs, size_t n, ic_err *err) {
  ic_status st = IC_OK;
  for (size_t i = 0; i < n && st == IC_OK; i++) {
    if (i + 2 < n) /* records streamed from a large array: fetch ahead */
      for (size_t off = 0; off < sizeof *recs; off += 64)
        __builtin_prefetch((const char *)&recs[i + 2] + off, 0, 3);
    st = feed_one(s, &recs[i], err);
  }
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
  for (int k = 0; k < RING_COUNT; k++) {
    if (s->w[k] <= w) continue;
    int32_t *r = vec_alloc_raw(w * s->np, sizeof(int32_t));
    if (!r) continue; /* keep the larger window */
    free(s->ring[k]);
    s->ring[k] = r;
    s->w[k] = w;
    s->valid_lo[k] = s->next; /* nothing older survives the shrink */
    if (k == RING_C) s->last_c = NULL;
  }
  s->st.window = max_window(s);
}

void ic_solver_force_generic(ic_solver *s, int on) {
#ifdef HAVE_AVX2_KERNEL
  if (on)
    s->avx2 = 0;
  else
    s->avx2 = __builtin_cpu_supports("avx2");
#else
  (void)s;
  (void)on;
#endif
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
