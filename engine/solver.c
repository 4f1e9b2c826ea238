/* solver.c: the streaming powerset solver's public API (solver.h):
 * create, destroy and reset, the results (times, statistics, baseline
 * violations), the subsets to solve, the window cap, the kernel choice and
 * the category list parser. One streaming forward pass computes the
 * critical-path length of all 2^n subsets of the chosen categories at once;
 * how is solver_internal.h, and the work is in the other solver_*.c files
 * (planning, kernels, rules, layout, threads). */
#include "solver_internal.h"

/* Whether this CPU runs kernel k (the portable one: everywhere). */
static int kernel_runs(ic_solver_kernel k) {
#ifdef HAVE_AVX2_KERNEL
  __builtin_cpu_init();
  if (k == IC_KERNEL_AVX2) return __builtin_cpu_supports("avx2");
  if (k == IC_KERNEL_AVX512) return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("avx512f");
#endif
  return k == IC_KERNEL_PORTABLE;
}

static ic_solver_kernel best_kernel(void) {
  return kernel_runs(IC_KERNEL_AVX512) ? IC_KERNEL_AVX512
         : kernel_runs(IC_KERNEL_AVX2) ? IC_KERNEL_AVX2
                                       : IC_KERNEL_PORTABLE;
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
    if (!ic_cat_valid(cats[k])) {
      free(s);
      return ic_fail(err, IC_EINPUT, "solver: unknown category id %u", cats[k]);
    }
    if (s->pos[cats[k]] >= 0) {
      free(s);
      return ic_fail(err, IC_EINPUT, "solver: category '%s' given twice",
                     ic_category_name(cats[k]));
    }
    s->cats[k] = cats[k];
    s->pos[cats[k]] = (int8_t)k;
  }
  for (int k = 0; k < ncat; k++) s->chosen |= IC_CATBIT(cats[k]);
  s->n = 1u << ncat;
  s->lanes_padded = (s->n + LANES - 1) / LANES * LANES;
  s->kern = best_kernel();
  size_t per_inst = slv_ring_bytes(s);
  s->wmax = 1024;
  while ((s->wmax * 2) * per_inst <= IC_SOLVER_MAX_WINDOW_BYTES) s->wmax *= 2;
  /* D is a source only for short in-order edges (DD, FBW): a small ring.
   * E only for IW, up to a ROB back: E_WINDOW (an edge reaching farther
   * grows it, but finds its own source lost). */
  uint64_t w = 1024;
  /* the first window as before E and R had rings: from what D, P and C
   * take (E and R start at E_WINDOW) */
  const size_t dpc_inst = (size_t)3 * s->lanes_padded * sizeof(int32_t);
  while (w * 2 * dpc_inst <= INIT_WINDOW_BYTES) w *= 2;
  if (w > s->wmax) w = s->wmax;
  s->w[RING_D] = MIN_WINDOW;
  s->w[RING_P] = s->w[RING_C] = w;
  s->w[RING_E] = s->w[RING_R] = E_WINDOW < w ? E_WINDOW : w;
  s->ok_from = UINT64_MAX;
  s->lane_of = malloc(s->n * sizeof *s->lane_of);
  s->lmap = slv_vec_alloc(s->lanes_padded, sizeof *s->lmap);
  s->btmp = slv_vec_alloc(s->lanes_padded, sizeof *s->btmp);
  s->bitm = slv_vec_alloc((size_t)(ncat ? ncat : 1) * s->lanes_padded, sizeof(int32_t));
  s->orm = slv_vec_alloc(s->lanes_padded, sizeof(int32_t));
  s->base = slv_vec_alloc(s->lanes_padded, sizeof(int64_t));
  s->zero = slv_vec_alloc(s->lanes_padded, sizeof(int32_t));
  s->times = slv_vec_alloc(s->n, sizeof(uint64_t));
  int ok = s->lane_of && s->lmap && s->btmp && s->bitm && s->orm && s->base && s->zero && s->times;
  for (int k = 0; k < 3; k++) ok = (s->scratch[k] = slv_vec_alloc(s->lanes_padded, sizeof(int32_t))) && ok;
  ok = (s->slotm = slv_vec_alloc(s->lanes_padded, sizeof *s->slotm)) && ok;
  ok = (s->stab = calloc(s->lanes_padded, sizeof *s->stab)) && ok;
  ok = (s->mtab = calloc(s->lanes_padded, sizeof *s->mtab)) && ok;
  ok = (s->qtab = calloc(s->lanes_padded, sizeof *s->qtab)) && ok;
  s->lcap = MAX_LSTORE;
  while (s->lcap > MIN_LSTORE && (size_t)s->lcap * s->lanes_padded * sizeof(int32_t) > LSTORE_BYTES)
    s->lcap /= 2;
  ok = (s->lslot = calloc((size_t)2 * s->lcap, sizeof *s->lslot)) && ok;
  ok = (s->lvec = slv_vec_alloc_raw((size_t)s->lcap * s->lanes_padded, sizeof(int32_t))) && ok;
  ok = (s->one = slv_vec_alloc_raw(1, sizeof *s->one)) && ok;
  ok = (s->memo = calloc((size_t)MEMO_SETS * MEMO_WAYS, sizeof *s->memo)) && ok;
  ok = (s->mru = calloc(MEMO_SETS, 1)) && ok;
  s->mgen = 1;
  s->rs = LANES; /* set_layout below: nothing has acted, lanes_live = LANES */
  if (!ok || !slv_rings_alloc(s->ring, s->w, s->rs)) {
    for (int k = 0; k < RING_COUNT; k++) s->ring[k] = NULL;
    ic_solver_destroy(s);
    return ic_fail(err, IC_ERUN, "solver: out of memory (%d categories)", ncat);
  }
  slv_set_layout(s); /* nothing has acted yet */
  s->xs = (struct xenv){s->zero, s->base, s->kern, 0, 0, 0, s};
  s->split = s->lanes_padded;
  ic_solver_reset(s);
  ic_solver_set_threads(s, 0);
  *out = s;
  return IC_OK;
}

void ic_solver_destroy(ic_solver *s) {
  if (!s) return;
  slv_pipe_stop(s);
  for (int k = 0; k < RING_COUNT; k++) free(s->ring[k]);
  for (int k = 0; k < 3; k++) free(s->scratch[k]);
  if (s->stab)
    for (uint32_t x = 0; x < s->lanes_padded; x++) ic_slot_tab_free(&s->stab[x]);
  free(s->stab);
  if (s->mtab)
    for (uint32_t x = 0; x < s->lanes_padded; x++) ic_mshr_tab_free(&s->mtab[x]);
  free(s->mtab);
  if (s->qtab)
    for (uint32_t x = 0; x < s->lanes_padded; x++) ic_iq_tab_free(&s->qtab[x]);
  free(s->qtab);
  free(s->lslot);
  free(s->lvec);
  free(s->one);
  free(s->memo);
  free(s->mru);
  free(s->bitm);
  free(s->orm);
  free(s->need);
  free(s->pidx);
  free(s->opidx);
  free(s->lsub);
  free(s->lane_flags_buf);
  free(s->nxt_buf);
  free(s->slotm);
  free(s->lane_of);
  free(s->lmap);
  free(s->btmp);
  free(s->base);
  free(s->zero);
  free(s->times);
  free(s);
}

void ic_solver_reset(ic_solver *s) {
  slv_pipe_drain(s);
  s->started = 0;
  s->seq0 = s->next = 0;
  for (int k = 0; k < RING_COUNT; k++) s->valid_lo[k] = 0;
  s->ok_from = UINT64_MAX;
  s->ubound = 0;
  s->last_c = NULL;
  s->far_c = 0;
  memset(s->base, 0, s->lanes_padded * sizeof *s->base);
  memset(s->zero, 0, s->lanes_padded * sizeof *s->zero);
  for (uint32_t x = 0; x < s->lanes_padded; x++) ic_slot_tab_clear(&s->stab[x]);
  for (uint32_t x = 0; x < s->lanes_padded; x++) ic_mshr_tab_clear(&s->mtab[x]);
  for (uint32_t x = 0; x < s->lanes_padded; x++) ic_iq_tab_reset(&s->qtab[x], s->qtab[x].k);
  memset(s->times, 0, s->n * sizeof *s->times);
  memset(&s->st, 0, sizeof s->st);
  s->xs.viol = s->xs.first = s->xs.oom = 0;
  if (s->pipe) s->pipe->wx.viol = s->pipe->wx.first = s->pipe->wx.oom = 0;
  s->st.window = slv_max_window(s);
}

/* Results wait for the plans in flight; s->times is the solver's buffer
 * (not part of the const object), filled here. */
const uint64_t *ic_solver_times(const ic_solver *s) {
  slv_pipe_drain(s);
  if (s->last_c)
    for (uint32_t x = 0; x < s->n; x++) {
      uint32_t lane = s->lane_of[x];
      s->times[x] = s->need && !s->need[x] ? 0 : (uint64_t)(s->base[lane] + s->last_c[lane]);
    }
  return s->times;
}

ic_status ic_solver_set_subsets(ic_solver *s, const uint8_t *need, ic_err *err) {
  if (s->started)
    return ic_fail(err, IC_EINPUT, "solver: the subsets are set before the first record");
  slv_pipe_drain(s);
  uint32_t count = 0;
  for (uint32_t x = 0; need && x < s->n; x++) count += x == 0 || need[x];
  if (!need || count == s->n) { /* every subset: the powerset layout */
    free(s->need);
    s->need = NULL;
  } else {
    if (!s->need) {
      s->need = malloc(s->n);
      s->pidx = malloc(s->lanes_padded * sizeof *s->pidx);
      s->opidx = malloc(s->lanes_padded * sizeof *s->opidx);
      s->lsub = malloc(s->lanes_padded * sizeof *s->lsub);
      s->lane_flags_buf = malloc(s->lanes_padded);
      s->nxt_buf = malloc((size_t)LR_COUNT * (s->lanes_padded + 1) * sizeof *s->nxt_buf);
      if (!s->need || !s->pidx || !s->opidx || !s->lsub || !s->lane_flags_buf || !s->nxt_buf) {
        free(s->need), free(s->pidx), free(s->opidx), free(s->lsub), free(s->lane_flags_buf);
        free(s->nxt_buf);
        s->nxt_buf = NULL;
        s->need = s->lane_flags_buf = NULL;
        s->pidx = s->opidx = s->lsub = NULL;
        return ic_fail(err, IC_ERUN, "solver: out of memory");
      }
    }
    memcpy(s->need, need, s->n);
    s->need[0] = 1;
  }
  /* the lanes anew: rows of the new width (nothing is live before the
     first record), and no plan or latency vector of the old layout */
  slv_set_layout(s);
  if (s->rs != s->lanes_live) {
    int32_t *nr[RING_COUNT];
    if (!slv_rings_alloc(nr, s->w, s->lanes_live)) return ic_fail(err, IC_ERUN, "solver: out of memory");
    for (int k = 0; k < RING_COUNT; k++) {
      free(s->ring[k]);
      s->ring[k] = nr[k];
    }
    s->rs = s->lanes_live;
  }
  memset(s->lslot, 0, (size_t)2 * s->lcap * sizeof *s->lslot);
  s->lused = 0;
  s->mgen++;
  return IC_OK;
}

int ic_solver_ncat(const ic_solver *s) { return s->ncat; }
uint64_t ic_solver_instructions(const ic_solver *s) { return s->st.instructions; }

/* Baseline mismatches found by both evaluators (in seq order each). */
static void violations(const ic_solver *s, uint64_t *count, uint64_t *first) {
  slv_pipe_drain(s);
  *count = s->xs.viol;
  *first = s->xs.first;
  const struct pipe *p = s->pipe;
  if (p && p->wx.viol) {
    if (!*count || p->wx.first < *first) *first = p->wx.first;
    *count += p->wx.viol;
  }
}

uint64_t ic_solver_invariant_violations(const ic_solver *s) {
  uint64_t n, first;
  violations(s, &n, &first);
  return n;
}

void ic_solver_get_stats(const ic_solver *s, ic_solver_stats *out) {
  slv_pipe_drain(s);
  *out = s->st;
  violations(s, &out->violations, &out->first_violation_seq);
  out->inert = 0;
  for (int k = 0; k < s->ncat; k++)
    if (!(s->acted & IC_CATBIT(s->cats[k]))) out->inert |= 1u << k;
  out->threads = (uint32_t)ic_solver_threads(s);
}

void ic_solver_set_window_cap(ic_solver *s, uint64_t max_instructions) {
  slv_pipe_drain(s);
  uint64_t w = MIN_WINDOW, per_inst = slv_ring_bytes(s);
  while (w * 2 <= max_instructions && w * 2 * per_inst <= IC_SOLVER_MAX_WINDOW_BYTES) w *= 2;
  s->wmax = w;
  s->mgen++;
  for (int k = 0; k < RING_COUNT; k++) {
    if (s->w[k] <= w) continue;
    int32_t *r = slv_vec_alloc_raw(w * s->rs, sizeof(int32_t));
    if (!r) continue; /* keep the larger window */
    free(s->ring[k]);
    s->ring[k] = r;
    s->w[k] = w;
    s->valid_lo[k] = s->next; /* nothing older survives the shrink */
    s->ok_from = UINT64_MAX;
    if (k == RING_C) s->last_c = NULL;
  }
  s->st.window = slv_max_window(s);
}

int ic_solver_set_kernel(ic_solver *s, ic_solver_kernel k) {
  if (k == IC_KERNEL_AUTO) k = best_kernel();
  if (!kernel_runs(k)) return 0;
  slv_pipe_drain(s);
  s->kern = s->xs.kern = k;
  return 1;
}

ic_solver_kernel ic_solver_kernel_in_use(const ic_solver *s) { return s->kern; }

const char *ic_solver_kernel_name(ic_solver_kernel k) {
  static const char *const names[] = {"auto", "portable", "avx2", "avx512"};
  return (unsigned)k < sizeof names / sizeof names[0] ? names[k] : "?";
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
    ic_list_item_trim(&p, &len);
    if (len == 0)
      return ic_fail(err, IC_EINPUT, "categories '%s': empty item", list);
    if (memchr(p, '@', len))
      return ic_fail(err, IC_EINPUT,
                     "categories '%s': scoped categories (CATEGORY@WHERE) are supported by icost "
                     "and icost validate only",
                     list);
    char name[32];
    if (len >= sizeof name)
      return ic_fail(err, IC_EINPUT, "categories '%s': unknown category '%.*s'", list,
                     (int)len, p);
    memcpy(name, p, len);
    name[len] = 0;
    int c = ic_category_lookup(name);
    if (c < 0) {
      char known[160];
      return ic_fail(err, IC_EINPUT, "categories '%s': unknown category '%s' (known: %s)", list,
                     name, ic_category_known(known, sizeof known));
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

