/* solver_kernels.c: evaluating a plan (solver_internal.h): the node
 * kernels, portable and AVX2 / AVX-512 (chosen at run time:
 * ic_solver_set_kernel), the IW block entries (k_block), and exec_plan,
 * which runs them over a range of lanes with the rules (solver_rules.h) in
 * their fixed places and checks the baseline lane against the record. The
 * hot loop of the solver: its only file with target attributes.
 *
 * E and IW. E(k) of an earlier instruction is the source of IW edges only
 * (issue slots), and IW is dropped by every one of the high-bit categories
 * unless the edge keeps some (ic_edge.keep; dg_edge_dropped says): an edge
 * lives only in the lanes with none of its dropping bits set, all below
 * hi = 2^(the highest lane bit that does not drop it, + 1): [0, 8) of 256
 * with the 8 standard categories and nothing kept. E vectors live in a
 * fourth ring (whole: which lanes a later edge keeps is not known ahead),
 * but IW edges are "block" entries evaluated after E's other edges over
 * lanes [0, hi) alone (k_block), with one latency where every lane there
 * keeps them, else a latency vector that is NEG in the lanes dropping them.
 * An IW edge holds only in the lanes where R(k) <= E'(i), E's time from its
 * other edges (graph_rec.h): R vectors live in a fifth ring with E's
 * window, and each block entry is followed by one whose source is R(k),
 * which k_block compares with E before the block entries. */
#include "solver_internal.h"
#include "solver_rules.h"

/* ---- kernels ---------------------------------------------------------- */

/* Where a node's block entries (IW: struct plan_form) start, after its
 * vector, scalar and conditional ones. */
static inline int block_entries(const struct plan_form *f, int node) {
  return f->bound[node][3];
}

/* One node's arrival vector from all its in-edges in a single pass, over
 * lanes [lo, hi) (multiples of 32, or of 8 below 32 lanes):
 *   acc[s] = max(zero[s], max over vector edges e of src[e][s] + lat[e][s],
 *                         max over scalar edges e of src[e][s] + l[e])
 * over the edges not skipped at s (struct pe). All vectors are 32-byte
 * aligned and lanes_padded is a multiple of 8.
 *
 * Every source vector is >= zero lane by lane (a node starts at zero or
 * above; rebase lowers and clamps both alike), and a scalar edge's latency
 * is >= 0: a node with a scalar edge starts from it instead of from zero. */
static void k_node_generic(int32_t *acc, const int32_t *zero, const struct plan *pl, int node,
                           uint32_t lo, uint32_t hi) {
  const struct plan_form *f = pl->form;
  const int32_t *const *src = pl->src;
  const int vb = f->bound[node][0], sb = f->bound[node][1], ce = f->bound[node][3], s0 = sb < f->bound[node][2];
  for (uint32_t s = lo; s < hi; s += LANES) {
    v8si x;
    if (s0)
      x = LD(src[sb] + s) + SPLAT(f->l[sb]);
    else
      x = LD(zero + s);
    for (int j = vb; j < sb; j++)
      if ((s & f->skipm[j]) != f->skipv[j]) x = VMAX(x, LD(src[j] + s) + LD(f->lat[j] + s));
    for (int j = sb + s0; j < ce; j++)
      if ((s & f->skipm[j]) != f->skipv[j]) x = VMAX(x, LD(src[j] + s) + SPLAT(f->l[j]));
    ST(acc + s, x);
  }
}

#ifdef HAVE_AVX2_KERNEL
/* The same with AVX2 intrinsics, 64 or 32 subsets per block held in
 * registers, so each edge costs one or two loads, one add and one max per 8
 * subsets. A block of 64 (32) lanes starts at a multiple of 64 (32), so a
 * skip bit >= its size is the same in all its lanes. */
#define AVX_LD(p) _mm256_load_si256((const __m256i *)(const void *)(p))
#define AVX_STEP(v, a, l) v = _mm256_max_epi32(v, _mm256_add_epi32(AVX_LD(a), l))
#define AVX_ST(p, v) _mm256_store_si256((__m256i *)(void *)(p), v)
/* One block of V_W * K lanes at s (V_W lanes a register, K registers: 8,
 * 4, 3 or 2 with AVX2, 4, 2 or 1 with AVX-512; x0..x7 the accumulators,
 * those past K unused): start, the vector entries (a vector entry whose
 * skip bit is below the block size is computed in every block: NEG where
 * gone), the scalar entries (never skipped: no test), the conditional ones
 * (skip bits of at least the block size), store. The V_ names are the
 * instruction set's type and operations, defined before each kernel that
 * expands the block, so the AVX2 and AVX-512 kernels share this one text. */
#define V_REGS(K, OP) \
  do { \
    OP(0); \
    if ((K) >= 2) OP(1); \
    if ((K) >= 3) OP(2); \
    if ((K) >= 4) OP(3); \
    if ((K) == 8) { OP(4); OP(5); OP(6); OP(7); } \
  } while (0)
#define V_BLOCK(K, s) \
  do { \
    V_T x0, x1 = l0, x2 = l0, x3 = l0, x4 = l0, x5 = l0, x6 = l0, x7 = l0; \
    if (i1) \
      V_REGS(K, V_INITV_R); \
    else \
      V_REGS(K, V_INITS_R); \
    for (int j = vb; j != ve; j++) { \
      if (f->skipm[j] >= V_W * (K) && ((s) & f->skipm[j]) == f->skipv[j]) continue; \
      const int32_t *a = src[j] + (s), *b = f->lat[j] + (s); \
      V_REGS(K, V_VSTEP_R); \
    } \
    for (int j = sb; j != se; j++) { \
      const int32_t *a = src[j] + (s); \
      const V_T l = V_SET1(f->l[j]); \
      V_REGS(K, V_SSTEP_R); \
    } \
    for (int j = se; j != ce; j++) { \
      if (((s) & f->skipm[j]) == f->skipv[j]) continue; \
      const int32_t *a = src[j] + (s); \
      const V_T l = V_SET1(f->l[j]); \
      V_REGS(K, V_SSTEP_R); \
    } \
    V_REGS(K, V_ST_R); \
  } while (0)
#define V_STEP(v, a, l) v = V_MAX(v, V_ADD(V_LD(a), l))
#define V_INITS_R(j) x##j = V_ADD(V_LD(i0 + (s) + V_W * (j)), l0)
#define V_INITV_R(j) x##j = V_ADD(V_LD(iv + (s) + V_W * (j)), V_LD(i1 + (s) + V_W * (j)))
#define V_VSTEP_R(j) V_STEP(x##j, a + V_W * (j), V_LD(b + V_W * (j)))
#define V_SSTEP_R(j) V_STEP(x##j, a + V_W * (j), l)
#define V_ST_R(j) V_ST(acc + s + V_W * (j), x##j)
/* the AVX2 kernel's */
#define V_T __m256i
#define V_W 8u
#define V_LD(p) AVX_LD(p)
#define V_ST(p, v) AVX_ST(p, v)
#define V_ADD _mm256_add_epi32
#define V_MAX _mm256_max_epi32
#define V_SET1 _mm256_set1_epi32
__attribute__((target("avx2"), always_inline)) static inline void k_node_avx2(int32_t *acc, const int32_t *zero,
                                                        const struct plan *pl, int node,
                                                        uint32_t lo, uint32_t hi) {
  const struct plan_form *f = pl->form;
  /* the node's entries are j in [v, ce), with sources src[j] */
  const int32_t *const *const src = pl->src;
  const int v = f->bound[node][0], c = f->bound[node][1], se = f->bound[node][2], s0 = se > c;
  /* with no scalar entry, a vector entry with no NEG lane starts the node
   * (its source is >= time 0 and its latencies >= 0) */
  const int v0 = !s0 && f->vf[node];
  const __m256i l0 = _mm256_set1_epi32(s0 ? f->l[c] : 0);
  /* the start: src + l0 (time 0: zero + 0), or src + lat */
  const int32_t *i0 = s0 ? src[c] : zero, *i1 = v0 ? f->lat[v] : NULL;
  /* the start with a vector entry (iv: i0 where there is none), kept apart
   * from i0 so the compiler folds each start's load into its add */
  const int32_t *iv = v0 ? src[v] : i0;
  const int vb = v + v0, ve = c, sb = c + s0, ce = f->bound[node][3];
  /* Blocks of 64 where every conditional edge skips whole blocks of 64,
   * else of 32 (every skip bit is >= 32), else of 8; [lo, hi) is cut into
   * whole blocks when both ends are multiples of the block size (always,
   * but for a two-thread split), so each loop has no other test. */
  if (f->cond_skip_min[node] >= 8 * LANES && !((lo | hi) & (8 * LANES - 1))) {
    for (size_t s = lo; s < hi; s += 8 * LANES) V_BLOCK(8, s);
    return;
  }
  if (!((lo | hi) & (4 * LANES - 1))) {
    for (size_t s = lo; s < hi; s += 4 * LANES) V_BLOCK(4, s);
    return;
  }
  /* the compact layout (no entry skips a lane) in 16 or 24 lanes: one
     block of two or three registers */
  if (pl->compact && hi - lo == 2 * LANES) {
    const size_t s = lo; /* the name the step macros read */
    V_BLOCK(2, s);
    return;
  }
  if (pl->compact && hi - lo == 3 * LANES) {
    const size_t s = lo;
    V_BLOCK(3, s);
    return;
  }
  for (size_t s = lo; s < hi; s += LANES) {
    __m256i x = _mm256_add_epi32(AVX_LD(iv + s), i1 ? AVX_LD(i1 + s) : l0);
    for (int j = vb; j != ve; j++)
      if ((s & f->skipm[j]) != f->skipv[j]) AVX_STEP(x, src[j] + s, AVX_LD(f->lat[j] + s));
    for (int j = sb; j != se; j++) AVX_STEP(x, src[j] + s, _mm256_set1_epi32(f->l[j]));
    for (int j = se; j != ce; j++)
      if ((s & f->skipm[j]) != f->skipv[j]) AVX_STEP(x, src[j] + s, _mm256_set1_epi32(f->l[j]));
    AVX_ST(acc + s, x);
  }
}

/* k_node_avx2 over one register of lanes [s, s + 8) (three categories or
 * fewer, or as many evaluated): the same entries in the same order, without
 * the setup of the blocks. A vector entry that starts k_node_avx2's node
 * (vf) is >= time 0 lane by lane, so max(zero, it) is it. */
__attribute__((target("avx2"), always_inline)) static inline void k_node8_avx2(int32_t *acc, const int32_t *zero,
                                                                               const struct plan *pl, int node,
                                                                               uint32_t s) {
  const struct plan_form *f = pl->form;
  const int32_t *const *const src = pl->src;
  const int vb = f->bound[node][0], sb = f->bound[node][1], cb = f->bound[node][2], ce = f->bound[node][3];
  __m256i x = sb < cb ? _mm256_add_epi32(AVX_LD(src[sb] + s), _mm256_set1_epi32(f->l[sb])) : AVX_LD(zero + s);
  for (int j = vb; j < sb; j++)
    if ((s & f->skipm[j]) != f->skipv[j]) AVX_STEP(x, src[j] + s, AVX_LD(f->lat[j] + s));
  for (int j = sb + (sb < cb); j < cb; j++) AVX_STEP(x, src[j] + s, _mm256_set1_epi32(f->l[j]));
  for (int j = cb; j < ce; j++)
    if ((s & f->skipm[j]) != f->skipv[j]) AVX_STEP(x, src[j] + s, _mm256_set1_epi32(f->l[j]));
  AVX_ST(acc + s, x);
}

/* k_block (below) with AVX2. */
__attribute__((target("avx2"), always_inline)) static inline void k_block_avx2(int32_t *acc, const struct plan_form *f,
                                                         const int32_t *const *src, int b, int ni, uint32_t lo, uint32_t hi) {
  for (uint32_t s = lo; s < hi; s += LANES) {
    __m256i x = AVX_LD(acc + s), r = x;
    for (int e = b; e + 1 < b + ni; e += 2)
      if (s < f->skipm[e]) {
        __m256i c = _mm256_add_epi32(AVX_LD(src[e] + s), f->lat[e] ? AVX_LD(f->lat[e] + s)
                                                                    : _mm256_set1_epi32(f->l[e]));
        __m256i later = _mm256_cmpgt_epi32(AVX_LD(src[e + 1] + s), r);
        x = _mm256_max_epi32(x, _mm256_blendv_epi8(c, x, later));
      }
    AVX_ST(acc + s, x);
  }
}

/* The five nodes of a plan over lanes [lo, hi) (one call: the kernels are
 * inlined into it, so their setup is not paid five times). */
__attribute__((target("avx2"))) static int k_nodes_avx2(const struct plan *pl, const int32_t *zero,
                                                        uint32_t lo, uint32_t hi, struct xenv *x) {
  int slots = 0;
  const uint32_t bhi = hi < pl->form->bhi ? hi : pl->form->bhi;
  for (int node = 0; node < IC_NODE_COUNT; node++) {
    if (hi - lo == LANES) k_node8_avx2(pl->out[node], zero, pl, node, lo);
    else k_node_avx2(pl->out[node], zero, pl, node, lo, hi);
    if (node == IC_NODE_D && pl->iq) slv_k_iq(pl->out[node], lo, hi, pl, x);
    if (node == IC_NODE_E) { /* IW edges, then the MSHR rule and the slot rule */
      if (pl->form->ni[node] && lo < bhi) {
        const int b = block_entries(pl->form, node);
        k_block_avx2(pl->out[node], pl->form, pl->src, b, pl->form->ni[node], lo, bhi);
      }
      if (pl->f.mk) slv_k_mshr(pl->out[node], lo, hi, pl, x);
      slots = k_slots(pl->out[node], lo, hi, pl, x);
    }
  }
  return slots;
}

/* The same with AVX-512 (16 lanes a register): blocks of 64 lanes in four
 * registers where every conditional edge skips whole blocks of 64, else of
 * 32 in two (the AVX2 kernel's blocks, so the same entries are skipped in
 * the same lanes), and the compact layout's 16 lanes in one; fewer or
 * other lanes go to the AVX2 kernel. The adds and maxima are the same
 * 32-bit operations lane by lane, so every answer is the AVX2 kernel's. */
#undef V_T
#undef V_W
#undef V_LD
#undef V_ST
#undef V_ADD
#undef V_MAX
#undef V_SET1
#define V_T __m512i
#define V_W 16u
#define V_LD(p) _mm512_loadu_si512((const void *)(p))
#define V_ST(p, v) _mm512_storeu_si512((void *)(p), v)
#define V_ADD _mm512_add_epi32
#define V_MAX _mm512_max_epi32
#define V_SET1 _mm512_set1_epi32
__attribute__((target("avx512f"), always_inline)) static inline int k_node_avx512(int32_t *acc,
                                                                                  const int32_t *zero,
                                                                                  const struct plan *pl,
                                                                                  int node, uint32_t lo,
                                                                                  uint32_t hi) {
  const struct plan_form *f = pl->form; /* as k_node_avx2 */
  const int32_t *const *const src = pl->src;
  const int v = f->bound[node][0], c = f->bound[node][1], se = f->bound[node][2], s0 = se > c;
  const int v0 = !s0 && f->vf[node];
  const __m512i l0 = _mm512_set1_epi32(s0 ? f->l[c] : 0);
  const int32_t *i0 = s0 ? src[c] : zero, *i1 = v0 ? f->lat[v] : NULL;
  const int32_t *iv = v0 ? src[v] : i0;
  const int vb = v + v0, ve = c, sb = c + s0, ce = f->bound[node][3];
  if (f->cond_skip_min[node] >= 8 * LANES && !((lo | hi) & (8 * LANES - 1))) {
    for (size_t s = lo; s < hi; s += 8 * LANES) V_BLOCK(4, s);
    return 1;
  }
  if (!((lo | hi) & (4 * LANES - 1))) {
    for (size_t s = lo; s < hi; s += 4 * LANES) V_BLOCK(2, s);
    return 1;
  }
  if (pl->compact && hi - lo == 2 * LANES) {
    const size_t s = lo;
    V_BLOCK(1, s);
    return 1;
  }
  return 0;
}

/* k_nodes_avx2 with the AVX-512 node kernel where it takes the lanes. */
__attribute__((target("avx512f,avx2"))) static int k_nodes_avx512(const struct plan *pl, const int32_t *zero,
                                                                  uint32_t lo, uint32_t hi, struct xenv *x) {
  int slots = 0;
  const uint32_t bhi = hi < pl->form->bhi ? hi : pl->form->bhi;
  for (int node = 0; node < IC_NODE_COUNT; node++) {
    if (hi - lo == LANES) k_node8_avx2(pl->out[node], zero, pl, node, lo);
    else if (!k_node_avx512(pl->out[node], zero, pl, node, lo, hi)) k_node_avx2(pl->out[node], zero, pl, node, lo, hi);
    if (node == IC_NODE_D && pl->iq) slv_k_iq(pl->out[node], lo, hi, pl, x);
    if (node == IC_NODE_E) { /* IW edges, then the MSHR rule and the slot rule */
      if (pl->form->ni[node] && lo < bhi) {
        const int b = block_entries(pl->form, node);
        k_block_avx2(pl->out[node], pl->form, pl->src, b, pl->form->ni[node], lo, bhi);
      }
      if (pl->f.mk) slv_k_mshr(pl->out[node], lo, hi, pl, x);
      slots = k_slots(pl->out[node], lo, hi, pl, x);
    }
  }
  return slots;
}
#endif

/* ---- evaluating plans ------------------------------------------------- */

/* The block edges of node E (E sources, IW) over lanes [lo, hi) (hi <=
 * bhi), in pairs: an edge, then the R vector of its source instruction.
 * acc[s] = max(acc[s], src[e][s] + lat[e][s] or l[e]) for the edges with
 * s < their skipm (their block) and where their source was ready by
 * acc[s] as the node's other edges left it: the IW condition (graph_rec.h). */
static void k_block(int32_t *acc, const struct plan_form *f, const int32_t *const *src, int b, int ni,
                    uint32_t lo, uint32_t hi) {
  for (uint32_t s = lo; s < hi; s += LANES) {
    v8si x = LD(acc + s), r = x;
    for (int e = b; e + 1 < b + ni; e += 2)
      if (s < f->skipm[e]) {
        v8si c = LD(src[e] + s) + (f->lat[e] ? LD(f->lat[e] + s) : SPLAT(f->l[e]));
        v8si later = LD(src[e + 1] + s) > r; /* -1 where the source was ready later */
        x = VMAX(x, (later & x) | (~later & c));
      }
    ST(acc + s, x);
  }
}

/* Computes lanes [lo, hi) of the five vectors of a planned instruction
 * and, with lane 0, compares subset {} with the record's stamps (through
 * exec_plan, below). In
 * two-thread mode the worker runs it for lanes [0, split) and the planning
 * thread for [split, lanes_padded): each touches only its lanes of every vector
 * (rings and scratch) and counts in its own xenv, and what the
 * planner changes only while the pipeline is drained (base, zero, the
 * rings' places) is only read. */
static void exec_range(struct xenv *x, const struct plan *pl, uint32_t lo, uint32_t hi) {
  int slots = 0; /* k_slots kept the slot counts */
#ifdef HAVE_AVX2_KERNEL
  if (x->kern == IC_KERNEL_AVX512)
    slots = k_nodes_avx512(pl, x->zero, lo, hi, x);
  else if (x->kern == IC_KERNEL_AVX2)
    slots = k_nodes_avx2(pl, x->zero, lo, hi, x);
  else
#endif
  {
    const uint32_t bhi = hi < pl->form->bhi ? hi : pl->form->bhi;
    for (int node = 0; node < IC_NODE_COUNT; node++) {
      k_node_generic(pl->out[node], x->zero, pl, node, lo, hi);
      if (node == IC_NODE_D && pl->iq) slv_k_iq(pl->out[node], lo, hi, pl, x);
      if (node == IC_NODE_E) { /* IW edges, then the MSHR rule and the slot rule */
        if (pl->form->ni[node] && lo < bhi) {
          const int b = block_entries(pl->form, node);
          k_block(pl->out[node], pl->form, pl->src, b, pl->form->ni[node], lo, bhi);
        }
        if (pl->f.mk) slv_k_mshr(pl->out[node], lo, hi, pl, x);
        slots = k_slots(pl->out[node], lo, hi, pl, x);
      }
    }
  }

  if (!slots) slv_slots_note(x, pl, lo, hi);
  if (pl->f.mk) slv_mshr_note(x, pl, lo, hi);
  if (pl->iq) slv_iq_note(x, pl, lo, hi);

  /* Baseline invariant: subset 0 idealizes nothing (one test for the five
   * nodes: the bits where any differs). */
  if (lo == 0 && hi > 0) {
    const uint64_t b0 = (uint64_t)x->base[0];
    uint64_t diff = 0;
#pragma GCC unroll 5
    for (int node = 0; node < IC_NODE_COUNT; node++) diff |= (b0 + (uint64_t)(int64_t)pl->out[node][0]) ^ pl->t[node];
    if (diff) {
      if (!x->viol) x->first = pl->seq;
      x->viol++;
    }
  }

  /* The next instructions' ring slots are cold (last written a window
   * ago): fetch them ahead so their stores do not wait for memory; and the
   * far source of a win-idealized CD edge, a window back (only the win
   * lanes when they form the upper half). */
  const size_t from = lo * sizeof(int32_t), to = hi * sizeof(int32_t);
  /* PF_AHEAD rows on from this instruction's, in address arithmetic: past
   * the ring's end (once a window) the fetch is of no use, and harmless */
  const uintptr_t ahead = (uintptr_t)PF_AHEAD * pl->lanes_live * sizeof(int32_t);
  const char *pf_p = (const char *)((uintptr_t)pl->out[IC_NODE_P] + ahead),
             *pf_c = (const char *)((uintptr_t)pl->out[IC_NODE_C] + ahead);
  for (size_t off = from; off < to; off += 64) {
    __builtin_prefetch(pf_p + off, 1, 3);
    __builtin_prefetch(pf_c + off, 1, 3);
  }
  if (pl->pf_far)
    for (size_t off = from > pl->pf_from ? from : pl->pf_from; off < to; off += 64)
      __builtin_prefetch(pl->pf_far + off, 0, 3);
}

/* exec_range over lanes [lo, hi) but those of inert categories. */
void slv_exec_plan(struct xenv *x, const struct plan *pl, uint32_t lo, uint32_t hi) {
  if (hi > pl->lanes_live) hi = pl->lanes_live; /* the lanes of inert categories are not evaluated */
  if (lo > hi) lo = hi;
  exec_range(x, pl, lo, hi);
}

/* exec_plan over the 32-lane blocks of lanes [0, lanes_live) of even index
 * (half 0) or odd (half 1): the interleaved split (ic_solver_set_split).
 * Lanes of a category's subsets lie in runs of a power of two, so each
 * thread gets about half of every kind of lane: a split at one lane count
 * gave one thread most of the lanes whose rule tables are large (win
 * without bw). */
void slv_exec_blocks(struct xenv *x, const struct plan *pl, int half) {
  for (uint32_t b = 32u * (uint32_t)half; b < pl->lanes_live; b += 64) slv_exec_plan(x, pl, b, b + 32);
}

void slv_k_fill(int32_t *v, int32_t x, uint32_t lanes) {
  for (uint32_t s = 0; s < lanes; s += LANES) ST(v + s, SPLAT(x));
}

/* lat[s] -= c where bit k of s is set (m = bit mask vector of k). */
void slv_k_sub_masked(int32_t *lat, const int32_t *m, int32_t c, uint32_t lanes) {
  for (uint32_t s = 0; s < lanes; s += LANES) ST(lat + s, LD(lat + s) - (SPLAT(c) & LD(m + s)));
}

/* lat[s] = NEG where (m[s] ^ inv) is set. */
void slv_k_neg_masked(int32_t *lat, const int32_t *m, int32_t inv, uint32_t lanes) {
  for (uint32_t s = 0; s < lanes; s += LANES) {
    v8si mm = LD(m + s) ^ SPLAT(inv);
    ST(lat + s, (LD(lat + s) & ~mm) | (SPLAT(NEG) & mm));
  }
}
