/* solver_plan.c: planning, the caller's side of the solver. plan_one
 * checks a record and resolves every edge's source vector and latency into
 * a plan (struct plan) the kernels evaluate with no decision left;
 * latency vectors come from a store by edge shape (lat_vector), and a memo
 * by pc replays the plan of an earlier record with the same edges.
 * ic_solver_feed runs plan, evaluate (or queue: solver_threads.c) and
 * rebase per record; the graph sink feeds it.
 *
 * Planning makes one pass over a record's edges (per-kind and per-category
 * tables built at create keep it short; if the instruction makes a ring
 * grow, the pass runs again on the grown ring). Most records repeat an
 * earlier record of the same pc, but for the distances of their PR, PP,
 * FU, IBW, MSHR and IW edges (the producer, the earlier miss and the issue
 * order change from instance to instance) and for bytes past nparts, which
 * the model does not clear: a memo by pc keeps that record's entries and a
 * mask of the bytes a record must repeat (memo_mask), so only the source
 * vectors are looked up again, those edges' by the new record's distances
 * (each within its ring's window, else the full pass grows it). A pc's
 * records come in a few variants (a stall residual on DD or not, other RE
 * waits, an IW edge or not): the memos form sets of MEMO_WAYS by pc. Where
 * the records come with shape ids (the record pipe's: graph_pack.h), a
 * memo keeps the id of the records it repeats and a record of that id
 * skips the byte comparison. */
#include "solver_internal.h"

#include "graph_pack.h"
#include "ooo.h"

/* Empties the latency-vector store (no plan in flight may point into it). */
static void lstore_clear(ic_solver *s) {
  memset(s->lslot, 0, (size_t)2 * s->lcap * sizeof *s->lslot);
  s->lused = 0;
  s->st.lat_flushes++;
  s->mgen++;
}
/* The latency vector of an edge shape, from the store or built into it;
 * NULL when the store is full (the caller drains, clears and plans again). */
static const int32_t *lat_vector(ic_solver *s, const struct lat_key *k) {
  uint64_t x = (k->a * 0x9E3779B97F4A7C15ull) ^ (k->b * 0xC2B2AE3D27D4EB4Full) ^
               (k->c * 0x165667B19E3779F9ull);
  const uint32_t mask = 2 * s->lcap - 1;
  uint32_t h = (uint32_t)(x >> 40) & mask;
  struct lslot *slot;
  for (;; h = (h + 1) & mask) {
    slot = &s->lslot[h];
    if (!slot->idx) break;
    if (slot->k.a == k->a && slot->k.b == k->b && slot->k.c == k->c)
      return s->lvec + (size_t)(slot->idx - 1) * s->lanes_padded;
  }
  if (s->lused == s->lcap) return NULL;
  int32_t *v = s->lvec + (size_t)s->lused * s->lanes_padded;
  slot->k = *k;
  slot->idx = ++s->lused;
  int total = (int)(k->a & 0xffffff), drop = (int)((k->a >> 24) & 31) - 1,
      half = (int)((k->a >> 29) & 3);
  slv_k_fill(v, total, s->lanes_padded);
  for (int p = 0; p < lk_nvp(k); p++) {
    /* a part's byte: its lane bit, and in the high nibble an alias's + 1 */
    uint32_t w = lk_part(k, p), bit = (w >> 24) & 15, alias = w >> 28;
    const int32_t *m = s->bitm + (size_t)bit * s->lanes_padded;
    if (alias) {
      const int32_t *a = s->bitm + (size_t)(alias - 1) * s->lanes_padded;
      for (uint32_t q = 0; q < s->lanes_padded; q++) s->orm[q] = m[q] | a[q];
      m = s->orm;
    }
    slv_k_sub_masked(v, m, (int32_t)(w & 0xffffff), s->lanes_padded);
  }
  if (drop >= 0) slv_k_neg_masked(v, s->bitm + (size_t)drop * s->lanes_padded, 0, s->lanes_padded);
  for (uint32_t dm = (uint32_t)(k->a >> 44) & 0xfff; dm; dm &= dm - 1)
    slv_k_neg_masked(v, s->bitm + (size_t)__builtin_ctz(dm) * s->lanes_padded, 0, s->lanes_padded);
  if (half) slv_k_neg_masked(v, s->bitm + (size_t)s->win_pos * s->lanes_padded, half == 1 ? 0 : -1, s->lanes_padded);
  return v;
}

static ic_status malformed(const ic_graph_rec *r, ic_err *err) {
  ic_status st = dg_check_rec(r, err);
  return st != IC_OK ? st
                     : ic_fail(err, IC_EINPUT, "graph record %llu: malformed",
                               (unsigned long long)r->seq);
}

/* Entry classes of a node in a plan (struct plan). */
/* Entry classes in plan order; PE_FULL: vector entries with no NEG lane
 * (nothing drops them, not a CD half), counted in nv and placed first. */
enum { PE_FULL, PE_VEC, PE_SCALAR, PE_COND, PE_BLOCK, PE_CLASSES };

/* The source vector of an entry: this instruction's node, the ring slot, or
 * the time-0 vector for a source before the first record or one that left
 * the window (counted in *oow). */
static inline const int32_t *resolve_source(const ic_solver *s, const struct plan *pl,
                                            const struct msrc *m, uint64_t seq, uint64_t idx,
                                            uint64_t *oow) {
  const uint64_t d = m->dist;
  if (!d) return pl->out[m->srcnode];
  if (d > idx) return s->zero;
  const int ring = m->ring;
  if (d >= s->w[ring] || seq - d < s->valid_lo[ring]) {
    (*oow)++;
    return s->zero;
  }
  return s->ring[ring] + ((seq - d) & (s->w[ring] - 1)) * s->rs;
}

/* A record's sdrop and rules' counts (slot_w, slot_p, mshr_k) in one word,
 * for the memo's comparison. */
_Static_assert(offsetof(ic_graph_rec, slot_p) == offsetof(ic_graph_rec, slot_w) + 1 &&
                   offsetof(ic_graph_rec, mshr_k) == offsetof(ic_graph_rec, slot_w) + 2,
               "rec_key: slot_w, slot_p, mshr_k are consecutive bytes");
static inline uint64_t rec_key(const ic_graph_rec *r) {
  uint16_t sd;
  uint32_t rules;
  memcpy(&sd, r->sdrop, sizeof sd);
  memcpy(&rules, &r->slot_w, sizeof rules);
  return sd | (uint64_t)(rules & 0xffffff) << 16;
}

static inline uint32_t memo_set(uint64_t pc) {
  return (uint32_t)((pc >> 1) * 0x9E3779B97F4A7C15ull >> 54) & (MEMO_SETS - 1);
}

/* Do edges a and b (n each; a planned) mean the same but for the
 * distances of PR, PP, FU, IBW, MSHR and IW edges, each of b's within its
 * ring's window (or its cap) and not 0? Compared field by field: the bytes
 * of parts past nparts (and padding) are not part of a record's meaning,
 * and the model need not clear them. Those distances change from one
 * dynamic instance to the next (the producer, the earlier miss, the issue
 * order do); the plan's entries do not. */
_Static_assert(offsetof(ic_edge, dist) == 4 && offsetof(ic_edge, part) == 8 && sizeof(ic_lat_part) == 4,
               "memo_mask: an edge is kind, nparts, flags, keep, dist, then parts of one "
               "word (cycles and cat)");
/* Which bytes of m's edges a record must repeat to reuse its plan: kind,
 * nparts, flags, keep, dist (not of the kinds with kind_info.vdist) and
 * the cycles and category of the parts below nparts. */
static void memo_mask(const ic_solver *s, struct memo *m) {
  memset(m->emask, 0, sizeof m->emask);
  m->nvd = 0;
  for (int k = 0; k < m->nedges; k++) {
    uint8_t *b = m->emask + (size_t)k * sizeof(ic_edge);
    const ic_edge *e = &m->edge[k];
    memset(b, 0xff, offsetof(ic_edge, dist));
    if (s->kinfo[e->kind].vdist) {
      m->vring[m->nvd] = s->kinfo[e->kind].ring;
      m->vd[m->nvd++] = (uint8_t)k;
    } else
      memset(b + offsetof(ic_edge, dist), 0xff, sizeof e->dist);
    for (int p = 0; p < e->nparts && p < IC_MAX_PARTS; p++)
      memset(b + offsetof(ic_edge, part) + (size_t)p * sizeof(ic_lat_part), 0xff, sizeof(ic_lat_part));
  }
}

#ifdef HAVE_AVX2_KERNEL
__attribute__((target("avx2"))) static int masked_equal_avx2(const void *a, const void *b,
                                                             const uint8_t *mask, size_t bytes) {
  __m256i acc = _mm256_setzero_si256();
  for (size_t o = 0; o < bytes; o += 32)
    acc = _mm256_or_si256(
        acc, _mm256_and_si256(_mm256_xor_si256(_mm256_loadu_si256((const __m256i *)(const void *)((const char *)a + o)),
                                                _mm256_loadu_si256((const __m256i *)(const void *)((const char *)b + o))),
                              _mm256_loadu_si256((const __m256i *)(const void *)(mask + o))));
  return _mm256_testz_si256(acc, acc);
}
#endif

/* Is each distance memo m ignores of record r within its ring's window (or
 * its cap: else the ring grows first) and not 0 (malformed: the full pass
 * says so)? */
static int dists_fit(const ic_solver *s, const struct memo *m, const ic_graph_rec *r) {
  for (int k = 0; k < m->nvd; k++) {
    const uint32_t d = r->edge[m->vd[k]].dist;
    const int ring = m->vring[k];
    if (d == 0 || (d >= s->w[ring] && s->w[ring] < s->wmax)) return 0;
  }
  return 1;
}

/* Does record r repeat memo m's edges (memo_mask)? (Its distances are
 * checked after: dists_fit.) */
static int same_edges(const ic_solver *s, const struct memo *m, const ic_graph_rec *r) {
  const size_t bytes = ((size_t)m->nedges * sizeof(ic_edge) + 31) / 32 * 32;
#ifdef HAVE_AVX2_KERNEL
  if (s->kern != IC_KERNEL_PORTABLE) {
    if (!masked_equal_avx2(m->edge, r->edge, m->emask, bytes)) return 0;
  } else
#endif
  {
    for (size_t o = 0; o < bytes; o += 8) {
      uint64_t x, y, k;
      memcpy(&x, (const char *)m->edge + o, 8);
      memcpy(&y, (const char *)r->edge + o, 8);
      memcpy(&k, m->emask + o, 8);
      if ((x ^ y) & k) return 0;
    }
  }
  return 1;
}

/* Lists m's entries by how a memo hit finds their sources once every ring
 * holds its whole window (struct memo: self, fix, var, fast). */
static void memo_sources(const ic_solver *s, struct memo *m) {
  uint8_t at[RING_COUNT] = {0};
  int fast = 1;
  m->nvar = m->nself = 0;
  memset(m->nfix, 0, sizeof m->nfix);
  for (int k = 0; k < m->nent; k++) {
    const struct msrc *ms = &m->src[k];
    const int ring = ms->ring;
    if (!ms->dist && !ms->var) {
      m->self[m->nself++] = (struct mself){(uint8_t)k, ms->srcnode};
    } else if (ring < 0 || (ms->var && s->kinfo[m->edge[ms->edge].kind].ring < 0)) {
      fast = 0;
    } else if (ms->var) {
      m->var[m->nvar++] = (struct mvar){(uint8_t)k, ms->edge, (uint8_t)ring,
                                        (uint8_t)s->kinfo[m->edge[ms->edge].kind].ring};
    } else {
      m->nfix[ring]++;
      if (ms->dist >= s->w[ring] || ms->dist > UINT32_MAX) fast = 0;
    }
  }
  for (int ring = 1; ring < RING_COUNT; ring++) at[ring] = (uint8_t)(at[ring - 1] + m->nfix[ring - 1]);
  for (int k = 0; k < m->nent; k++) {
    const struct msrc *ms = &m->src[k];
    if (ms->dist && !ms->var && ms->ring >= 0) m->fix[at[ms->ring]++] = (struct mfix){(uint32_t)ms->dist, (uint32_t)k};
  }
  m->fast = (uint8_t)fast;
}

/* The destination vectors of instruction seq. */
static inline void plan_outputs(const ic_solver *s, struct plan *pl, uint64_t seq) {
  const size_t rs = s->rs;
  pl->out[IC_NODE_D] = s->ring[RING_D] + (seq & (s->w[RING_D] - 1)) * rs;
  pl->out[IC_NODE_R] = s->ring[RING_R] + (seq & (s->w[RING_R] - 1)) * rs;
  pl->out[IC_NODE_E] = s->ring[RING_E] + (seq & (s->w[RING_E] - 1)) * rs;
  pl->out[IC_NODE_P] = s->ring[RING_P] + (seq & (s->w[RING_P] - 1)) * rs;
  pl->out[IC_NODE_C] = s->ring[RING_C] + (seq & (s->w[RING_C] - 1)) * rs;
}

/* r, whose edges are at *lazy where that is not NULL
 * (ic_graph_sink.consume_shaped), whole: made in *buf, and *lazy cleared.
 * Called before anything past a record's varying dists is read. */
static inline const ic_graph_rec *made_whole(ic_graph_rec *buf, const ic_graph_rec *r, const ic_edge **lazy) {
  if (!*lazy) return r;
  ic_rec_whole(buf, r, *lazy);
  *lazy = NULL;
  return buf;
}

/* Plans record r into *pl: checks it, resolves every edge's source vector
 * and latency, and advances the planner's state (seq, stats, rebase bound).
 * set: memo_set(r->pc). Vectors are not touched, except that a ring growth or a full
 * latency-vector store drains the pipeline first. */
static ic_status plan_one(ic_solver *s, const ic_graph_rec *r, uint64_t shape, const ic_edge *lazy,
                          uint32_t set, struct plan *pl, ic_err *err) {
  ic_graph_rec whole; /* r made whole (made_whole), where it came lazily */
  ic_status st;
  if (!s->started) {
    s->started = 1;
    s->seq0 = s->next = r->seq;
    for (int k = 0; k < RING_COUNT; k++) s->valid_lo[k] = r->seq;
    s->ok_from = UINT64_MAX;
  } else if (r->seq != s->next) {
    return ic_fail(err, IC_EINPUT, "graph record %llu follows record %llu (sequence gap)",
                   (unsigned long long)r->seq, (unsigned long long)(s->next - 1));
  }
  const uint64_t seq = r->seq;
  const uint64_t idx = seq - s->seq0; /* sources with dist > idx precede the first record */
  pl->pool = (uint8_t)ooo_pool_of(r->opclass); /* the slot rule's pool count */
  pl->iq = r->iq;
  const int nedges = r->nedges;
  if (nedges > IC_MAX_EDGES || r->iq > IC_IQ_RULE_MAX || r->slot_w > IC_SLOT_RULE_MAX ||
      r->slot_p > IC_SLOT_RULE_MAX || r->mshr_k > IC_MSHR_RULE_MAX) {
    r = made_whole(&whole, r, &lazy);
    return malformed(r, err);
  }
  uint64_t oow = 0;
  int64_t grow;
  struct memo *const ways = s->memo + (size_t)set * MEMO_WAYS, *m = NULL;
  const uint64_t rkey = rec_key(r);
  plan_outputs(s, pl, seq);
  /* A record of the memo's shape id has its edges but for the distances
   * that vary (the memo's vd), so only those are looked at; another of the
   * same edges takes the memo and its id. */
  for (uint32_t w = 0; w < MEMO_WAYS; w++) {
    struct memo *c = &ways[(s->mru[set] + w) & (MEMO_WAYS - 1)];
    if (c->pc != r->pc || c->gen != s->mgen || c->rkey != rkey) continue;
    if (shape && c->shape == shape) {
      m = c;
      break;
    }
    r = made_whole(&whole, r, &lazy);
    if (c->nedges == nedges && same_edges(s, c, r)) {
      if (shape) c->shape = shape;
      m = c;
      break;
    }
  }

  if (m) {
    /* The same edges as a record already planned (and checked), but for
     * the distances the memo ignores (the entries are the same; their
     * sources are looked up by the record's distances) if they fit
     * (dists_fit; else no memo does: those of the same edges have the
     * same distances to check, and the full pass grows the ring). */
    const size_t rs = s->rs;
    if (seq >= s->ok_from && m->fast) {
      /* every ring full, and every fixed distance inside its window: no
       * test but for the distances the record gives (dists_fit's, by
       * entry: every edge it checks has one) */
      for (const struct mvar *v = m->var, *ve = v + m->nvar; v != ve; v++) {
        const uint64_t d = r->edge[v->edge].dist, mask = s->okw[v->ring], wf = s->w[v->fring];
        if (d == 0 || (d >= wf && wf < s->wmax)) goto full;
        const int32_t *src = s->ring[v->ring] + ((seq - d) & mask) * rs;
        if (d > mask) {
          src = s->zero;
          oow += d <= idx;
        }
        pl->src[v->entry] = src;
      }
      for (const struct mself *v = m->self, *ve = v + m->nself; v != ve; v++) pl->src[v->entry] = pl->out[v->node];
      const struct mfix *f = m->fix;
      for (int ring = 0; ring < RING_COUNT; ring++) {
        const int32_t *const base = s->ring[ring];
        const uint64_t mask = s->okw[ring];
        for (const struct mfix *fe = f + m->nfix[ring]; f != fe; f++)
          pl->src[f->entry] = base + ((seq - f->dist) & mask) * rs;
      }
    } else {
      if (!dists_fit(s, m, r)) goto full;
      /* resolve_source with each ring's bounds taken once: a source d
       * back is in the ring if 0 < d <= ok[ring]; once every ring is full
       * since its last change (ok_from), that is d < w */
      uint64_t okb[RING_COUNT];
      const uint64_t *ok = s->okw;
      if (seq < s->ok_from) {
        int full = 1;
        for (int k = 0; k < RING_COUNT; k++) {
          uint64_t o = idx < s->w[k] - 1 ? idx : s->w[k] - 1;
          okb[k] = seq - s->valid_lo[k] < o ? seq - s->valid_lo[k] : o;
          full &= okb[k] == s->w[k] - 1;
        }
        if (full) {
          s->ok_from = seq;
          memcpy(s->okw, okb, sizeof okb);
        }
        ok = okb;
      }
      for (int k = 0; k < m->nent; k++) {
        const struct msrc *ms = &m->src[k];
        const uint64_t d = ms->var ? r->edge[ms->edge].dist : ms->dist;
        const int ring = ms->ring;
        const int32_t *src;
        if (!d) {
          src = pl->out[ms->srcnode];
        } else if (d <= ok[ring]) {
          src = s->ring[ring] + ((seq - d) & (s->w[ring] - 1)) * rs;
        } else {
          src = s->zero;
          oow += d <= idx;
        }
        pl->src[k] = src;
      }
    }
    m->use = ++s->mclock;
    s->mru[set] = (uint8_t)(m - ways);
    pl->f = m->f;
    pl->form = &m->form;
    grow = m->grow;
    if (m->far_c) s->far_c = m->far_c;
    s->st.memo_hits++;
    goto planned;
  full:
    m = NULL;
    oow = 0;
  }

  r = made_whole(&whole, r, &lazy);
  /* One pass over the edges: the checks of dg_check_rec (which, on failure,
   * says what is wrong), where each edge's source is and its latency (a
   * scalar, or a vector by shape from the store), grouped by destination
   * node and class. Windows grow on the first sight of a longer distance,
   * even one reaching before the first record, so that later edges of that
   * length find their sources (a win-idealized CD edge is seen at the first
   * instruction): when this instruction asks for a growth, or fills the
   * store, the pipeline drains, the ring grows (the store is cleared) and
   * the pass runs again (a ring grows past the distance or to its cap, and
   * an empty store holds every vector of one instruction, so this ends). */
  struct pe tmp[IC_NODE_COUNT][PE_CLASSES][2 * IC_MAX_EDGES];
  struct msrc tsrc[IC_NODE_COUNT][PE_CLASSES][2 * IC_MAX_EDGES];
  uint8_t cnt[IC_NODE_COUNT][PE_CLASSES];
  uint64_t far_c;
  uint32_t bhi, cond_skip_min[IC_NODE_COUNT];
  int mk, mskip;
#define ADD_ENTRY(node, cls, pe_, d_, ki_)                                         \
  do {                                                                             \
    int n_ = cnt[node][cls]++;                                                     \
    tmp[node][cls][n_] = (pe_);                                                    \
    tsrc[node][cls][n_] = (struct msrc){(d_), (ki_)->srcnode, (ki_)->ring, (uint8_t)k,   \
                                        (ki_)->vdist && (d_) == dist};                  \
  } while (0)
  for (;;) {
    uint64_t need[RING_COUNT] = {0};
    int full = 0;
    mk = mskip = 0;
    ic_catmask acts = 0; /* categories this record makes act (set_layout) */
    grow = 0;
    far_c = 0;
    bhi = 0;
    memset(cnt, 0, sizeof cnt);
    for (int k = 0; k < IC_NODE_COUNT; k++) cond_skip_min[k] = UINT32_MAX;
    for (int k = 0; k < nedges; k++) {
      const ic_edge *e = &r->edge[k];
      if (e->kind >= IC_EDGE_KIND_COUNT || e->nparts > IC_MAX_PARTS) return malformed(r, err);
      const struct kind_info *ki = &s->kinfo[e->kind];
      const uint64_t dist = e->dist;
      if (dist == 0 ? ki->bad0 : ki->badfar) return malformed(r, err);
      if (e->keep & ~dg_edge_drop_mask(e->kind)) return malformed(r, err);
      if ((e->kind == IC_EDGE_IW || e->kind == IC_EDGE_MSHR) && e->flags) return malformed(r, err);
      acts |= ki->acts & ~(ic_catmask)e->keep;
      uint64_t total = 0, parts[IC_MAX_PARTS] = {0};
      unsigned nvp = 0, flags = 0, pbits = 0;
      for (int p = 0; p < e->nparts; p++) {
        uint32_t c = e->part[p].cycles;
        uint8_t cp = s->catpos[e->part[p].cat];
        total += c;
        flags |= cp;
        if (c && (cp & CP_POS)) {
          const unsigned cat = e->part[p].cat, alias = s->catalias[cat];
          acts |= IC_CATBIT(cat) | IC_CATBIT(ic_cat_base(cat));
          unsigned bit = (cp & CP_POS) - 1u;
          parts[nvp++] = c | (uint64_t)(bit | alias << 4) << 24;
          pbits |= 1u << bit;
          if (alias) pbits |= 1u << (alias - 1);
        }
      }
      if ((flags & CP_BAD) || total > IC_GRAPH_MAX_EDGE_LAT) return malformed(r, err);
      grow += (int64_t)total;
      const int node = ki->node;
      if (dist && dist > need[ki->ring]) need[ki->ring] = dist; /* dist > 0: ring >= 0 */
      const uint64_t far = ki->two ? dist * IC_WIN_FACTOR : 0;
      if (far) {
        far_c = far;
        if (far > need[ki->ring]) need[ki->ring] = far;
      }
      /* The lane bits whose subsets drop this edge: its kind's, less those
       * of categories the edge keeps (ic_edge.keep, IW only). */
      uint32_t dmask = ki->dmask, skipm = ki->skipm;
      int drop = ki->drop;
      for (int c = 0; c < ki->ndc; c++)
        if (!dg_edge_dropped(e, IC_CATBIT(ki->dcat[c]))) dmask &= ~(1u << ki->dbit[c]);
      if (dmask != ki->dmask) { /* kept somewhere: NEG where the rest is set */
        drop = -1;
        skipm = 0;
      }
      /* the record's scoped drops (sdrop): their lanes drop it too */
      if (r->sdrop[0] | r->sdrop[1])
        for (int j = 0; j < 2; j++) {
          const unsigned id = r->sdrop[j];
          if (!id || s->pos[id] < 0 ||
              !(dg_edge_drop_mask(e->kind) & ~(ic_catmask)e->keep & IC_CATBIT(ic_cat_base(id))))
            continue;
          acts |= IC_CATBIT(id);
          if (dmask & (1u << s->pos[id])) continue;
          dmask |= 1u << s->pos[id];
          drop = -1;
          skipm = 0;
        }
      if (ki->eblock) {
        /* An E source (IW): computed only in the lanes [0, hi) above which
         * every lane bit drops it (a multiple of LANES). One latency there
         * when its parts in chosen categories are all of dropping ones
         * (counted wherever it lives) and no lane below hi drops it; else a
         * vector, NEG in the lanes that drop it. */
        uint32_t hi = s->lanes_acted;
        while (hi > 1 && (dmask & (hi >> 1))) hi >>= 1;
        if (hi < LANES) hi = LANES;
        if (s->lane_flags) hi = s->lanes_live; /* compact: lanes of any subset, everywhere */
        if (hi > bhi) bhi = hi;
        if (s->lane_flags ? !pbits && !dmask : !(pbits & ~dmask) && !(dmask & (hi - 1))) {
          ADD_ENTRY(node, PE_BLOCK, ((struct pe){NULL, (int32_t)total, hi, 0}), dist, ki);
        } else {
          struct lat_key kb = {total | (uint64_t)nvp << 32 | 1ull << 40 | (uint64_t)dmask << 44,
                               parts[0] | parts[1] << 32, parts[2] | parts[3] << 32};
          const int32_t *lb = lat_vector(s, &kb);
          full |= !lb;
          ADD_ENTRY(node, PE_BLOCK, ((struct pe){lb, 0, hi, 0}), dist, ki);
        }
        /* its condition: R of the same source instruction, in the entry
         * right after it (k_block reads them in pairs) */
        {
          int n_ = cnt[node][PE_BLOCK]++;
          tmp[node][PE_BLOCK][n_] = (struct pe){NULL, 0, hi, 0};
          tsrc[node][PE_BLOCK][n_] = (struct msrc){dist, IC_NODE_R, RING_R, (uint8_t)k, 1};
          if (dist > need[RING_R]) need[RING_R] = dist;
        }
        continue;
      }
      if (!nvp && !dmask && !ki->two) { /* the same in every subset */
        ADD_ENTRY(node, PE_SCALAR, ((struct pe){NULL, (int32_t)total, 0, 1}), dist, ki);
        continue;
      }
      /* A dropped edge whose parts in chosen categories are all of the
       * dropping one has its total in every subset that keeps it; so has
       * either half of an untagged CD edge: where the kernels skip the
       * subsets without it (skipm), it is a scalar edge. */
      if (skipm && (ki->two ? !pbits : !(pbits & ~(1u << drop)))) {
        if (far)
          ADD_ENTRY(node, PE_COND, ((struct pe){NULL, (int32_t)total, skipm, 0}), far, ki);
        ADD_ENTRY(node, PE_COND, ((struct pe){NULL, (int32_t)total, skipm, skipm}), dist,
                  ki);
        if (skipm < cond_skip_min[node]) cond_skip_min[node] = skipm;
        continue;
      }
      /* dropped by several chosen categories: NEG where any is set */
      const uint64_t multi = drop < 0 ? (uint64_t)dmask << 44 : 0;
      struct lat_key key = {total | (uint64_t)(drop + 1) << 24 | (uint64_t)nvp << 32 |
                                1ull << 40 | multi,
                            parts[0] | parts[1] << 32, parts[2] | parts[3] << 32};
      if (far) { /* the win rule: C(i-w) without win, C(i-20w) with it */
        struct lat_key kw = key;
        kw.a |= (uint64_t)2 << 29;
        key.a |= (uint64_t)1 << 29;
        const int32_t *lw = lat_vector(s, &kw);
        full |= !lw;
        ADD_ENTRY(node, PE_VEC, ((struct pe){lw, 0, skipm, skipm ? 0 : 1}), far, ki);
      }
      const int32_t *lv = lat_vector(s, &key);
      full |= !lv;
      ADD_ENTRY(node, !dmask && !far ? PE_FULL : PE_VEC,
                ((struct pe){lv, 0, skipm, skipm ? skipm : 1}), dist, ki);
    }
    int again = 0;
    /* the rules (graph_rec.h) and the categories that drop them: the IQ
       rule's win, the slot rule's bw, the MSHR rule's dmiss and a scoped
       dmiss of the load (mskip: its lane bit + 1) */
    if (r->iq) acts |= IC_CATBIT(IC_CAT_WIN);
    if (r->slot_w | r->slot_p) acts |= s->kinfo[IC_EDGE_IW].acts & IC_CATBIT(IC_CAT_BW);
    mk = r->mshr_k;
    if (mk) {
      acts |= s->kinfo[IC_EDGE_MSHR].acts;
      for (int j = 0; j < 2; j++)
        if (r->sdrop[j] && ic_cat_base(r->sdrop[j]) == IC_CAT_DMISS && s->pos[r->sdrop[j]] >= 0) {
          mskip = s->pos[r->sdrop[j]] + 1;
          acts |= IC_CATBIT(r->sdrop[j]);
        }
    }
    acts &= s->chosen & ~s->acted;
    if (acts) { /* new lanes to evaluate (clears the store) */
      if ((st = slv_relabel(s, s->acted | acts, err)) != IC_OK) return st;
      again = 1;
    } else if (full) {
      slv_pipe_drain(s);
      lstore_clear(s);
      again = 1;
    }
    for (int k = 0; k < RING_COUNT; k++)
      if (need[k] >= s->w[k] && s->w[k] < s->wmax) {
        slv_pipe_drain(s);
        if ((st = slv_grow_window(s, k, need[k], err)) != IC_OK) return st;
        again = 1;
      }
    if (!again) break;
    plan_outputs(s, pl, seq);
  }
#undef ADD_ENTRY
  if (far_c) s->far_c = far_c;

  /* the memo to replace: an invalid one, else the least recently used */
  m = ways;
  for (uint32_t w = 0; w < MEMO_WAYS; w++) {
    if (ways[w].gen != s->mgen) {
      m = &ways[w];
      break;
    }
    if (ways[w].use < m->use) m = &ways[w];
  }
  /* plans in the pipeline may still read its entries */
  if (m->busy) slv_pipe_wait(s, m->busy);
  m->use = ++s->mclock;
  s->mru[set] = (uint8_t)(m - ways);

  /* The plan (per node its vector, scalar and conditional entries), and
   * the memo of it for this pc. */
  m->pc = r->pc;
  m->gen = s->mgen;
  m->shape = shape;
  m->far_c = far_c;
  m->grow = grow;
  m->nedges = (uint8_t)nedges;
  struct plan_form *form = &m->form;
  form->bhi = bhi;
  memcpy(form->cond_skip_min, cond_skip_min, sizeof cond_skip_min);
  pl->form = form;
  pl->f.mk = (uint8_t)mk;
  pl->f.sw = r->slot_w;
  pl->f.sp = r->slot_p;
  pl->f.mskip = (uint8_t)mskip;
  m->rkey = rkey;
  memcpy(m->edge, r->edge, (size_t)nedges * sizeof(ic_edge));
  memo_mask(s, m);
  uint8_t off = 0;
  for (int node = 0; node < IC_NODE_COUNT; node++) {
    form->vf[node] = cnt[node][PE_FULL] > 0;
    form->ni[node] = cnt[node][PE_BLOCK];
    form->bound[node][0] = off;
    form->bound[node][1] = (uint8_t)(off + cnt[node][PE_FULL] + cnt[node][PE_VEC]);
    form->bound[node][2] = (uint8_t)(form->bound[node][1] + cnt[node][PE_SCALAR]);
    form->bound[node][3] = (uint8_t)(form->bound[node][2] + cnt[node][PE_COND]);
    for (int c = 0; c < PE_CLASSES; c++)
      for (int k = 0; k < cnt[node][c]; k++, off++) {
        form->lat[off] = tmp[node][c][k].lat;
        form->l[off] = tmp[node][c][k].l;
        form->skipm[off] = tmp[node][c][k].skipm;
        form->skipv[off] = tmp[node][c][k].skipv;
        m->src[off] = tsrc[node][c][k];
        pl->src[off] = resolve_source(s, pl, &m->src[off], seq, idx, &oow);
      }
  }
  m->nent = off;
  m->f = pl->f;
  memo_sources(s, m);

planned:
  if (s->pipe && pl != s->one) m->busy = s->pipe->planned + 1;
  pl->seq = seq;
  pl->lanes_live = s->lanes_live;
  pl->compact = s->lane_flags != NULL;
  memcpy(pl->t, r->t, sizeof pl->t);
  const uint32_t rs = s->rs;
  pl->pf_far = s->far_c && s->far_c < s->w[RING_C]
                   ? (const char *)(s->ring[RING_C] +
                                    ((seq + PF_AHEAD - s->far_c) & (s->w[RING_C] - 1)) * rs)
                   : NULL;
  pl->pf_from = s->kinfo[IC_EDGE_CD].skipm ? s->lanes_acted / 2 * (uint32_t)sizeof(int32_t) : 0;

  s->st.out_of_window += oow;
  s->st.edges += (uint64_t)nedges;
  s->last_c = pl->out[IC_NODE_C];
  s->next = seq + 1;
  s->st.instructions++;
  s->ubound += grow;
  return IC_OK;
}

/* ic_solver_feed, with the records' shape ids where known (shapes may be
 * NULL: none). */
static ic_status feed(ic_solver *s, const ic_graph_rec *recs, const uint64_t *shapes,
                      const ic_edge *const *edges, size_t n, ic_err *err) {
  ic_status st = IC_OK;
  /* memo_set of records i, i + 1 (each hashed once) */
  uint32_t set0 = n ? memo_set(recs[0].pc) : 0, set1 = n > 1 ? memo_set(recs[1].pc) : 0;
  for (size_t i = 0; i < n; i++) {
    /* Fetch ahead: the memo the plan of record i + 2 most likely comes
     * from (its first line), and for record i + 1 that memo's sources and
     * form (the lines most memos use: its first line came a record ago)
     * and, without a
     * shape id, its edges and mask for the comparison. Records streamed
     * from a large array (no shape ids: the record pipe's come from a
     * small buffer of its own, just written) are fetched two ahead. */
    uint32_t set2 = 0;
    if (i + 2 < n) {
      const uint32_t set = set2 = memo_set(recs[i + 2].pc);
      __builtin_prefetch(&s->memo[(size_t)set * MEMO_WAYS + s->mru[set]], 0, 3);
      if (!shapes)
        for (size_t off = 0; off < sizeof *recs; off += 64)
          __builtin_prefetch((const char *)&recs[i + 2] + off, 0, 3);
    }
    if (i + 1 < n) {
      const uint32_t set = set1;
      const struct memo *m = &s->memo[(size_t)set * MEMO_WAYS + s->mru[set]];
      if (!shapes || !shapes[i + 1]) {
        const size_t eb = (recs[i + 1].nedges < IC_MAX_EDGES ? recs[i + 1].nedges : IC_MAX_EDGES) * sizeof(ic_edge);
        for (size_t off = 0; off < eb; off += 64) {
          __builtin_prefetch((const char *)m->edge + off, 0, 3);
          __builtin_prefetch((const char *)m->emask + off, 0, 3);
        }
      }
      /* the lines most memos use: two of fixed sources, and of the form
       * its header and the first entries of each field */
      const char *fx = (const char *)m->fix;
      __builtin_prefetch(fx, 0, 3);
      __builtin_prefetch(fx + 64, 0, 3);
      __builtin_prefetch(&m->form, 0, 3);
      __builtin_prefetch(&m->form.lat[0], 0, 3);
      __builtin_prefetch(&m->form.lat[8], 0, 3);
      __builtin_prefetch(&m->form.l[0], 0, 3);
      __builtin_prefetch(&m->form.skipm[0], 0, 3);
      __builtin_prefetch(&m->form.skipv[0], 0, 3);
    }
    struct plan *pl = slv_plan_slot(s);
    if ((st = plan_one(s, &recs[i], shapes ? shapes[i] : 0, edges ? edges[i] : NULL, set0, pl, err)) != IC_OK)
      break;
    set0 = set1;
    set1 = set2;
    slv_plan_done(s, pl);
    if (s->pipe && !s->split_fixed) slv_adapt_split(s);
    if (s->ubound > REBASE_AT) {
      slv_pipe_drain(s);
      slv_rebase(s);
    }
  }
  if (s->pipe) slv_pipe_publish(s->pipe, 0);
  /* this thread's lanes (the worker's count as violations, read at the end) */
  if (st == IC_OK && s->xs.oom) st = ic_fail(err, IC_ERUN, "solver: out of memory (slot counts, MSHR holders, IQ rule)");
  return st;
}

ic_status ic_solver_feed(ic_solver *s, const ic_graph_rec *recs, size_t n, ic_err *err) {
  return feed(s, recs, NULL, NULL, n, err);
}

static ic_status sink_consume(void *ctx, const ic_graph_rec *recs, size_t n, ic_err *err) {
  return feed(ctx, recs, NULL, NULL, n, err);
}

static ic_status sink_consume_shaped(void *ctx, const ic_graph_rec *recs, const uint64_t *shapes,
                                     const ic_edge *const *edges, size_t n, ic_err *err) {
  return feed(ctx, recs, shapes, edges, n, err);
}

ic_graph_sink ic_solver_sink(ic_solver *s) {
  return (ic_graph_sink){.ctx = s, .consume = sink_consume, .consume_shaped = sink_consume_shaped};
}
