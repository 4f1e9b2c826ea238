/* solver_layout.c: where the solver's vectors live and how lanes map to
 * subsets (solver_internal.h: "Representation", "Inert categories", "The
 * compact layout"): aligned allocation, the rings of node vectors and
 * their growth, the powerset layout of the categories that have acted
 * (set_layout) and the compact one of the needed subsets (set_compact),
 * relabel when a category first acts, and rebase, which keeps every
 * offset in int32 range. */
#include "solver_internal.h"

/* The ring of each node's vectors (R is read only by IW conditions,
 * through RING_R: plan_one). */
static const int8_t node_ring[IC_NODE_COUNT] = {RING_D, -1, RING_E, RING_P, RING_C};

/* ---- allocation ------------------------------------------------------- */

void *slv_vec_alloc_raw(size_t count, size_t size) {
  size_t bytes = count * size;
  bytes = (bytes + 63) & ~(size_t)63;
  if (bytes == 0) bytes = 64;
  return aligned_alloc(64, bytes);
}

void *slv_vec_alloc(size_t count, size_t size) {
  void *p = slv_vec_alloc_raw(count, size);
  if (p) memset(p, 0, count * size);
  return p;
}

/* Ring memory is not cleared: a slot is read only after it was written
 * (valid_lo and the window bound every source), so untouched pages of a
 * large window cost no resident memory. */
int slv_rings_alloc(int32_t *r[RING_COUNT], const uint64_t *w, uint32_t lanes) {
  int ok = 1;
  for (int k = 0; k < RING_COUNT; k++) ok = (r[k] = slv_vec_alloc_raw(w[k] * lanes, sizeof(int32_t))) && ok;
  if (ok) return 1;
  for (int k = 0; k < RING_COUNT; k++) free(r[k]);
  return 0;
}

/* Bytes of one instruction's slots in all rings. */
size_t slv_ring_bytes(const ic_solver *s) {
  size_t b = 0;
  for (int k = 0; k < RING_COUNT; k++) b += (size_t)s->lanes_padded * sizeof(int32_t);
  return b;
}

uint64_t slv_max_window(const ic_solver *s) {
  uint64_t m = 0;
  for (int k = 0; k < RING_COUNT; k++) m = s->w[k] > m ? s->w[k] : m;
  return m;
}

/* Lays the lanes out from the powerset layout set_layout just made
 * (logical lanes: lane_of, lanes_acted): in the compact one (with need) lane p
 * is logical lane lsub[p], the needed ones in order ({} first), padded to
 * LANES (LF_PAD, logical lane 0); lane_of and lanes_live become the compact
 * ones, and nothing may skip lanes by their bits (kinfo skipm, rule_off,
 * iq_off, mshr_off: 0; lane_flags says which rules a lane keeps). Both: bitm
 * (the bits of each lane's logical lane) and slotm. */
static void set_compact(ic_solver *s) {
  s->lane_flags = NULL;
  for (int r = 0; r < LR_COUNT; r++) s->nxt[r] = NULL;
  if (s->need) {
    uint32_t *const pidx = s->pidx;
    for (uint32_t l = 0; l < s->lanes_acted; l++) pidx[l] = UINT32_MAX;
    pidx[0] = 0;
    for (uint32_t x = 0; x < s->n; x++)
      if (s->need[x]) pidx[s->lane_of[x]] = 0;
    uint32_t k = 0;
    for (uint32_t l = 0; l < s->lanes_acted; l++)
      if (pidx[l] != UINT32_MAX) s->lsub[k] = l, pidx[l] = k++;
    const uint32_t lanes_live = (k + LANES - 1) / LANES * LANES;
    const int bw = s->pos[IC_CAT_BW], win = s->win_pos, dm = s->pos[IC_CAT_DMISS];
    for (uint32_t p = 0; p < lanes_live; p++) {
      const uint32_t l = p < k ? s->lsub[p] : 0;
      s->lsub[p] = l;
      s->lane_flags_buf[p] = (uint8_t)((p >= k ? LF_PAD : 0) | (bw >= 0 && (l >> bw & 1) ? LF_BW : 0) |
                            (win >= 0 && (l >> win & 1) ? LF_WIN : 0) |
                            (dm >= 0 && (l >> dm & 1) ? LF_DMISS : 0));
    }
    for (uint32_t x = 0; x < s->n; x++) {
      const uint32_t p = pidx[s->lane_of[x]];
      s->lane_of[x] = p == UINT32_MAX ? 0 : p; /* not needed: read as 0 */
    }
    s->lanes_live = lanes_live;
    s->lane_flags = s->lane_flags_buf;
    static const uint8_t rf[LR_COUNT] = {LF_BW, LF_WIN, LF_DMISS};
    for (int r = 0; r < LR_COUNT; r++) {
      uint16_t *nx = s->nxt_buf + (size_t)r * (s->lanes_padded + 1);
      nx[lanes_live] = (uint16_t)lanes_live;
      for (uint32_t p = lanes_live; p-- > 0;)
        nx[p] = s->lane_flags_buf[p] & (LF_PAD | rf[r]) ? nx[p + 1] : (uint16_t)p;
      s->nxt[r] = nx;
    }
    s->rule_off = s->iq_off = s->mshr_off = 0;
    for (int k2 = 0; k2 < IC_EDGE_KIND_COUNT; k2++) s->kinfo[k2].skipm = 0;
  }
  for (int b = 0; b < s->ncat; b++)
    for (uint32_t p = 0; p < s->lanes_padded; p++) {
      const uint32_t l = s->lane_flags ? (p < s->lanes_live ? s->lsub[p] : 0) : p;
      s->bitm[(size_t)b * s->lanes_padded + p] = (l >> b) & 1 ? -1 : 0;
    }
  for (uint32_t p = 0; p < s->lanes_padded; p++)
    s->slotm[p] = s->lane_flags ? (p < s->lanes_live && !(s->lane_flags[p] & (LF_PAD | LF_BW)) ? -1 : 0)
                         : (p & s->rule_off ? 0 : -1);
}

/* Lanes: bit k of a lane stands for a category, not necessarily cats[k].
 * Only the categories that have acted (s->acted) take the low bits [0,
 * nact); lanes [0, 2^nact) are the subsets of those, and the only ones
 * evaluated: a category that has not acted yet (inert: no latency part of
 * it with cycles in any record so far, no edge its idealization drops and
 * the edge does not keep, for win no CD edge) leaves every node time of a
 * subset with it equal to the one without it, so the subsets with inert
 * categories read the lane without them (lane_of) and the inert
 * categories take the bits above, [nact, ncat). When one acts (planning
 * sees it before the record is evaluated: plan_one), relabel copies every
 * live vector into the new layout, its lanes without the category doubled
 * onto those with it. Among the active categories, those whose
 * idealization removes an edge in some subsets (win for either half of
 * CD, bw, dmiss, bmisp, then any other category of an edge kind's drop
 * mask: imiss, which drops IW) take the highest bits, in that order, so
 * the subsets where such an edge is gone form whole blocks of lanes that
 * the kernels skip; the others keep the caller's order in the low bits.
 * IW is dropped by all of those: it lives only in the lowest block of
 * lanes, [0, 2^(categories chosen outside its mask)), or where an edge
 * keeps some (the model's mostly keep bmisp and imiss) in the lowest block
 * below the lowest bit still dropping it: the order puts the ones kept
 * most often lowest. Sets pos, win_pos, catpos, kinfo, lane_of, lanes_acted
 * and lanes_live from s->acted. */
void slv_set_layout(ic_solver *s) {
  const int ncat = s->ncat;
  uint8_t top[IC_CAT_COUNT];
  size_t ntop = 0;
  static const uint8_t first[] = {IC_CAT_WIN, IC_CAT_BW, IC_CAT_DMISS, IC_CAT_BMISP};
  ic_catmask seen = 0, drops = 0;
  for (size_t t = 0; t < sizeof first; t++) {
    top[ntop++] = first[t];
    seen |= IC_CATBIT(first[t]);
  }
  for (int k = 0; k < IC_EDGE_KIND_COUNT; k++) drops |= dg_edge_drop_mask((uint8_t)k);
  for (int c = 0; c < IC_CAT_COUNT; c++)
    if ((drops & ~seen) & IC_CATBIT(c)) top[ntop++] = (uint8_t)c;
  int8_t bit[IC_SOLVER_MAX_CATS];
  int nact = 0;
  for (int k = 0; k < ncat; k++) {
    bit[k] = -1;
    nact += (s->acted & IC_CATBIT(s->cats[k])) != 0;
  }
  int hi = nact, lo = 0, up = nact;
  for (size_t t = 0; t < ntop; t++)
    for (int k = 0; k < ncat; k++)
      if (s->cats[k] == top[t] && (s->acted & IC_CATBIT(top[t]))) bit[k] = (int8_t)--hi;
  for (int k = 0; k < ncat; k++)
    if (bit[k] < 0 && (s->acted & IC_CATBIT(s->cats[k]))) bit[k] = (int8_t)lo++;
  for (int k = 0; k < ncat; k++)
    if (bit[k] < 0) bit[k] = (int8_t)up++;
  memset(s->pos, -1, sizeof s->pos);
  for (int k = 0; k < ncat; k++) s->pos[s->cats[k]] = bit[k];
  s->win_pos = s->pos[IC_CAT_WIN];
  s->rule_off = s->pos[IC_CAT_BW] >= 0 && s->pos[IC_CAT_BW] < 31 ? 1u << s->pos[IC_CAT_BW] : 0;
  s->mshr_off = s->pos[IC_CAT_DMISS] >= 0 && s->pos[IC_CAT_DMISS] < 31 ? 1u << s->pos[IC_CAT_DMISS] : 0;
  s->iq_off = s->win_pos >= 0 && s->win_pos < 31 ? 1u << s->win_pos : 0;
  s->lanes_acted = 1u << nact;
  s->lanes_live = (s->lanes_acted + LANES - 1) / LANES * LANES;
  for (uint32_t x = 0; x < s->n; x++) {
    uint32_t lane = 0;
    for (int k = 0; k < ncat; k++)
      if ((x & (1u << k)) && (s->acted & IC_CATBIT(s->cats[k]))) lane |= 1u << bit[k];
    s->lane_of[x] = lane;
  }
  /* a scoped id's parts: its own position, else its base's; with both
   * chosen, the base's as the alias (idealized in the lanes of either) */
  for (int c = 0; c < 256; c++) {
    s->catalias[c] = 0;
    if (c == IC_CAT_NONE) {
      s->catpos[c] = 0;
    } else if (!ic_cat_valid((unsigned)c)) {
      s->catpos[c] = CP_BAD;
    } else if (c < IC_CAT_COUNT) {
      s->catpos[c] = (uint8_t)(s->pos[c] + 1);
    } else {
      const int own = s->pos[c], base = s->pos[ic_cat_base((unsigned)c)];
      s->catpos[c] = (uint8_t)((own >= 0 ? own : base) + 1);
      if (own >= 0 && base >= 0) s->catalias[c] = (uint8_t)(base + 1);
    }
  }
  for (int k = 0; k < IC_EDGE_KIND_COUNT; k++) {
    struct kind_info *ki = &s->kinfo[k];
    /* the lane bits of the chosen categories that drop this kind */
    ic_catmask dm = dg_edge_drop_mask((uint8_t)k);
    ki->dmask = 0;
    ki->ndc = 0;
    for (int c = 0; c < IC_CAT_COUNT; c++)
      if ((dm & IC_CATBIT(c)) && s->pos[c] >= 0) {
        ki->dmask |= 1u << s->pos[c];
        ki->dcat[ki->ndc] = (uint8_t)c;
        ki->dbit[ki->ndc++] = (uint8_t)s->pos[c];
      }
    ki->node = ic_edge_dst_node[k];
    ki->srcnode = ic_edge_src_node[k];
    ki->ring = node_ring[ki->srcnode];
    ki->bad0 = ki->srcnode >= ki->node;
    ki->badfar = ki->ring < 0 || (ki->srcnode == IC_NODE_E && k != IC_EDGE_IW && k != IC_EDGE_IQ);
    ki->eblock = k == IC_EDGE_IW; /* the E source of an earlier instruction */
    ki->two = k == IC_EDGE_CD && s->win_pos >= 0;
    /* one dropping lane bit: the kernels skip its blocks; several (IW, or a
     * kind not seen before): NEG in the latency vector where any is set */
    ki->drop = ki->dmask && !(ki->dmask & (ki->dmask - 1)) ? (int8_t)__builtin_ctz(ki->dmask) : -1;
    int kb = ki->two ? s->win_pos : ki->drop;
    ki->skipm = kb >= 0 && (1u << kb) >= 4 * LANES ? 1u << kb : 0;
    ki->acts = (dm | (k == IC_EDGE_CD ? IC_CATBIT(IC_CAT_WIN) : 0)) & s->chosen;
    ki->vdist = (uint8_t)ic_edge_dist_varies((unsigned)k);
  }
  set_compact(s);
}

/* Grows ring k's window to the smallest power of two above `need` (capped
 * at wmax), keeping the live entries of instructions [next-w, next-1]. */
ic_status slv_grow_window(ic_solver *s, int k, uint64_t need, ic_err *err) {
  uint64_t w = s->w[k], old = s->w[k];
  while (w <= need && w < s->wmax) w *= 2;
  if (w == old) return IC_OK;
  const uint32_t rw = s->rs;
  int32_t *r = slv_vec_alloc_raw(w * rw, sizeof(int32_t));
  if (!r)
    return ic_fail(err, IC_ERUN, "solver: out of memory growing the window to %llu instructions",
                   (unsigned long long)w);
  uint64_t lo = s->next - s->valid_lo[k] < old ? s->valid_lo[k] : s->next - old;
  for (uint64_t q = lo; q < s->next; q++) /* the evaluated lanes */
    memcpy(r + (q & (w - 1)) * rw, s->ring[k] + (q & (old - 1)) * rw, s->lanes_live * sizeof(int32_t));
  free(s->ring[k]);
  s->ring[k] = r;
  s->w[k] = w;
  s->valid_lo[k] = lo;
  s->ok_from = UINT64_MAX;
  s->st.window = slv_max_window(s);
  if (k == RING_C && s->last_c) s->last_c = r + ((s->next - 1) & (w - 1)) * rw;
  return IC_OK;
}

/* Brings every live offset down so that the largest one per subset is at
 * most REBASE_TO, raising the base by the same amount. */
static uint64_t live_lo(const ic_solver *s, int k) {
  return s->next - s->valid_lo[k] < s->w[k] ? s->valid_lo[k] : s->next - s->w[k];
}

void slv_rebase(ic_solver *s) {
  /* only the evaluated lanes: a lane x < lanes_acted stands for the n / lanes_acted
   * subsets that are x with inert categories added (clamps count for each) */
  const uint32_t lanes_live = s->lanes_live;
  const uint64_t copies = s->n / s->lanes_acted;
  int32_t *mx = s->scratch[1];
  slv_k_fill(mx, FLOOR, lanes_live);
  for (int k = 0; k < RING_COUNT; k++)
    for (uint64_t q = live_lo(s, k); q < s->next; q++) {
      const int32_t *v = s->ring[k] + (q & (s->w[k] - 1)) * s->rs;
      for (uint32_t x = 0; x < lanes_live; x++) mx[x] = v[x] > mx[x] ? v[x] : mx[x];
    }
  int32_t *delta = s->scratch[2];
  int64_t newmax = 0;
  for (uint32_t x = 0; x < lanes_live; x++) {
    delta[x] = mx[x] > REBASE_TO ? mx[x] - REBASE_TO : 0;
    s->base[x] += delta[x];
    int32_t z = s->zero[x] - delta[x];
    s->zero[x] = z < FLOOR ? FLOOR : z;
    int64_t m = mx[x] - delta[x];
    if (m > newmax) newmax = m;
  }
  for (int k = 0; k < RING_COUNT; k++)
    for (uint64_t q = live_lo(s, k); q < s->next; q++) {
      int32_t *v = s->ring[k] + (q & (s->w[k] - 1)) * s->rs;
      for (uint32_t x = 0; x < lanes_live; x++) {
        if (!delta[x]) continue;
        int64_t y = (int64_t)v[x] - delta[x];
        if (y < FLOOR) {
          if (v[x] > FLOOR && (s->lane_flags ? !(s->lane_flags[x] & LF_PAD) : x < s->lanes_acted)) s->st.clamped += copies;
          y = FLOOR;
        }
        v[x] = (int32_t)y;
      }
    }
  s->ubound = newmax;
  s->st.rebases++;
}

/* The lanes evaluated (lanes_live) once the categories `acted` have acted: in
 * the compact layout one per distinct needed subset without the others
 * (its logical lane), padded. */
static uint32_t lanes_live_for(const ic_solver *s, ic_catmask acted) {
  uint32_t k = 1u << __builtin_popcount(acted);
  if (s->need) {
    uint32_t pm = 0, seen[(1u << IC_SOLVER_MAX_CATS) / 32] = {0};
    for (int c = 0; c < s->ncat; c++)
      if (acted & IC_CATBIT(s->cats[c])) pm |= 1u << c;
    k = 0;
    for (uint32_t x = 0; x < s->n; x++) {
      const uint32_t y = x & pm;
      if ((x && !s->need[x]) || (seen[y / 32] >> (y % 32) & 1)) continue;
      seen[y / 32] |= 1u << (y % 32);
      k++;
    }
  }
  return (k + LANES - 1) / LANES * LANES;
}

/* Category set `acted` (a superset of s->acted) has acted: the new lane
 * layout (set_layout), with every live vector, base and zero copied into
 * it. A lane of the new layout takes the old lane of its subset without
 * the categories that were inert (equal to it so far, and every old lane
 * without them was evaluated). Plans and memos hold lane bits and latency
 * vectors of the old layout: the pipeline drains first, and the store and
 * the memos are cleared. Rare: once per category that acts, at most. */
ic_status slv_relabel(ic_solver *s, ic_catmask acted, ic_err *err) {
  slv_pipe_drain(s);
  /* rings of rows of lanes_live lanes (new ones when lanes_live grows), allocated
   * before anything changes */
  int32_t *nr[RING_COUNT];
  const uint32_t ors = s->rs, new_lanes_live = lanes_live_for(s, acted);
  if (new_lanes_live != ors && !slv_rings_alloc(nr, s->w, new_lanes_live))
    return ic_fail(err, IC_ERUN, "solver: out of memory laying out %u lanes", new_lanes_live);
  int8_t old[IC_SOLVER_MAX_CATS];
  const ic_catmask was = s->acted;
  for (int k = 0; k < s->ncat; k++) old[k] = s->pos[s->cats[k]];
  if (s->need) memcpy(s->opidx, s->pidx, s->lanes_acted * sizeof *s->opidx);
  s->acted = acted;
  slv_set_layout(s);
  const uint32_t lanes_live = s->lanes_live;
  for (uint32_t x = 0; x < lanes_live; x++) {
    /* lane x continues the lane of its logical lane without the categories
       that were inert (in the compact layout a needed one: the needed
       subsets without some categories are the lanes of the old layout);
       a padding lane takes lane 0's */
    const uint32_t lx = s->lane_flags ? s->lsub[x] : x;
    uint32_t o = 0;
    for (int k = 0; k < s->ncat; k++)
      if ((lx >> s->pos[s->cats[k]] & 1) && (was & IC_CATBIT(s->cats[k]))) o |= 1u << old[k];
    s->lmap[x] = !s->lane_flags ? o : s->lane_flags[x] & LF_PAD ? 0 : s->opidx[o];
  }
  int32_t *tmp = s->scratch[0];
  for (int k = 0; k < RING_COUNT; k++) {
    for (uint64_t q = live_lo(s, k); q < s->next; q++) {
      const int32_t *v = s->ring[k] + (q & (s->w[k] - 1)) * ors;
      for (uint32_t x = 0; x < lanes_live; x++) tmp[x] = v[s->lmap[x]];
      memcpy((lanes_live != ors ? nr[k] : s->ring[k]) + (q & (s->w[k] - 1)) * lanes_live, tmp,
             lanes_live * sizeof *tmp);
    }
    if (lanes_live != ors) {
      free(s->ring[k]);
      s->ring[k] = nr[k];
    }
  }
  s->rs = lanes_live;
  if (s->last_c) s->last_c = s->ring[RING_C] + ((s->next - 1) & (s->w[RING_C] - 1)) * lanes_live;
  for (uint32_t x = 0; x < lanes_live; x++) {
    tmp[x] = s->zero[s->lmap[x]];
    s->btmp[x] = s->base[s->lmap[x]];
  }
  memcpy(s->zero, tmp, lanes_live * sizeof *tmp);
  memcpy(s->base, s->btmp, lanes_live * sizeof *s->btmp);
  /* lstore_clear without counting a flush: the vectors are of the old layout */
  memset(s->lslot, 0, (size_t)2 * s->lcap * sizeof *s->lslot);
  s->lused = 0;
  s->mgen++;
  /* each lane's tables of the rules (slot counts, MSHR holders, IQ E's):
     lane x continues lane lmap[x]'s (a copy where several lanes continue
     one); one that cannot be copied is a violation */
#define RELABEL_TABLES(field, type, copy, release)                                       \
  do {                                                                                  \
    type *nt_ = calloc(s->lanes_padded, sizeof *nt_);                                             \
    if (!nt_) return ic_fail(err, IC_ERUN, "solver: out of memory laying out %u lanes", lanes_live); \
    for (uint32_t x = 0; x < lanes_live; x++)                                                  \
      if (copy(&nt_[x], &s->field[s->lmap[x]]) != 0) {                                  \
        if (!s->xs.viol) s->xs.first = s->next;                                         \
        s->xs.viol++;                                                                   \
        s->xs.oom++;                                                                    \
      }                                                                                 \
    for (uint32_t x = 0; x < s->lanes_padded; x++) release(&s->field[x]);                         \
    free(s->field);                                                                     \
    s->field = nt_;                                                                     \
  } while (0)
  RELABEL_TABLES(stab, ic_slot_tab, ic_slot_tab_copy, ic_slot_tab_free);
  RELABEL_TABLES(mtab, ic_mshr_tab, ic_mshr_tab_copy, ic_mshr_tab_free);
  RELABEL_TABLES(qtab, ic_iq_tab, ic_iq_tab_copy, ic_iq_tab_free);
#undef RELABEL_TABLES
  s->st.relabels++;
  return IC_OK;
}

