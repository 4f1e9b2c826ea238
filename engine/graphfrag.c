/* graphfrag.c: the streaming window sampler behind the graphfrag breakdown
 * (graphfrag.h; the method is defined in multisim.h).
 *
 * The run is cut into blocks of L instructions starting at a random offset
 * off in [0, L), and the lead [0, off) before them is a block of its own
 * (where off > 0). Block b is item b of a reservoir sample of size K
 * (Vitter's algorithm R): blocks 0..K-1 fill the slots, block b >= K
 * replaces slot j when a uniform j in [0, b] is < K. A chosen block is fed
 * to the one window solver (reset at its first record, so its sources
 * before the window have time 0) and its t(S) vector is written to the slot
 * when the block is complete, or by ic_graphfrag_result for the block the
 * run ended in, with the instructions it has. The lead starts at the run's
 * first instruction, whose graph has nothing before it either: it is
 * solved exactly, with no warm-up, and counts all its off instructions
 * (lens). Leaving it out left
 * out the start of a short run, often its slowest part (a cold start):
 * graphfrag's mean error against multisim over the short suite (8
 * categories, runs from the start) fell from 9.0% to 4.5%, on
 * stencil.short (0.2M instructions) from 26.6% to 11.9%. The end of a run
 * is often code run once too (exit, output): leaving out the block cut
 * short by it put graphfrag's error on stream.short on configs/modern.yaml
 * at 17.7% (imiss 12.6% against 17.6%); counting it, 2.8-3.6% (3 seeds). */
#include "graphfrag.h"

#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solver.h"
#include "categories.h"
#include "validate.h"

struct ic_graphfrag {
  uint8_t cats[IC_BREAKDOWN_MAX_CATS];
  int ncat;
  size_t nsub;
  uint64_t len, k, seed;
  uint64_t warm;     /* W: uncounted instructions at the start of a window */
  uint64_t *tw;      /* [nsub]: the times after the W-th record of the window */
  int bootstrap;
  gsl_rng *rng;
  ic_solver *solver;
  uint64_t off;      /* first block starts here */
  uint64_t seen;     /* records consumed = next expected seq */
  uint64_t blocks;   /* blocks started so far (b of the next one) */
  int in_window;     /* the current block was chosen and is being fed */
  uint64_t slot;     /* its slot */
  uint64_t wstart;   /* its first seq */
  uint64_t filled;   /* slots holding a complete window (ic_graphfrag_result adds
                        the block the run ended in) */
  uint64_t wlen;     /* the current block's length: L, or off for the lead */
  uint64_t wwarm;    /* ... and its warm-up: W, or 0 for the lead */
  double *t;         /* [k][nsub] */
  uint64_t *lens;    /* [k]: each slot's counted instructions */
  uint8_t *need;     /* [nsub]: the subsets solved (opts.need), or NULL: all */
};

static void gf_free(ic_graphfrag *g) {
  if (!g) return;
  if (g->rng) gsl_rng_free(g->rng);
  if (g->solver) ic_solver_destroy(g->solver);
  free(g->t);
  free(g->lens);
  free(g->tw);
  free(g->need);
  free(g);
}

void ic_graphfrag_destroy(ic_graphfrag *g) { gf_free(g); }

ic_status ic_graphfrag_create(ic_graphfrag **out, const ic_graphfrag_opts *o, ic_err *err) {
  *out = NULL;
  if (o->ncat < 1 || o->ncat > IC_BREAKDOWN_MAX_CATS)
    return ic_fail(err, IC_EINPUT, "graphfrag: %d categories (1 to %d allowed)", o->ncat,
                   IC_BREAKDOWN_MAX_CATS);
  uint64_t len = o->length ? o->length : IC_GRAPHFRAG_DEFAULT_LEN;
  uint64_t k = o->fragments ? o->fragments : IC_GRAPHFRAG_DEFAULT_FRAGMENTS;
  if (k > 1000000)
    return ic_fail(err, IC_EINPUT, "graphfrag: %llu fragments (at most 1000000)",
                   (unsigned long long)k);
  if (len > ((uint64_t)1 << 31))
    return ic_fail(err, IC_EINPUT, "graphfrag: fragment length %llu too large",
                   (unsigned long long)len);
  if (o->warmup >= len)
    return ic_fail(err, IC_EINPUT, "graphfrag: warm-up %llu not below the fragment length %llu",
                   (unsigned long long)o->warmup, (unsigned long long)len);
  ic_graphfrag *g = calloc(1, sizeof *g);
  if (!g) return ic_fail(err, IC_ERUN, "graphfrag: out of memory");
  memcpy(g->cats, o->cats, (size_t)o->ncat);
  g->ncat = o->ncat;
  g->nsub = (size_t)1 << o->ncat;
  g->len = len;
  g->k = k;
  g->seed = o->seed;
  g->warm = o->warmup;
  g->bootstrap = o->bootstrap == 0 ? IC_GRAPHFRAG_BOOTSTRAP : o->bootstrap;
  ic_status st = ic_solver_create(&g->solver, o->cats, o->ncat, err);
  if (st == IC_OK) st = ic_solver_set_subsets(g->solver, o->need, err);
  if (st == IC_OK && o->need && !(g->need = malloc(g->nsub))) st = ic_fail(err, IC_ERUN, "graphfrag: out of memory");
  if (st != IC_OK) {
    gf_free(g);
    return st;
  }
  if (g->need) memcpy(g->need, o->need, g->nsub);
  g->rng = gsl_rng_alloc(gsl_rng_mt19937);
  g->t = malloc(k * g->nsub * sizeof *g->t);
  g->lens = malloc(k * sizeof *g->lens);
  g->tw = calloc(g->nsub, sizeof *g->tw);
  if (!g->rng || !g->t || !g->lens || !g->tw) {
    gf_free(g);
    return ic_fail(err, IC_ERUN, "graphfrag: out of memory");
  }
  gsl_rng_set(g->rng, (unsigned long)g->seed);
  g->off = gsl_rng_uniform_int(g->rng, (unsigned long)len);
  *out = g;
  return IC_OK;
}

/* Uniform integer in [0, n). gsl_rng_uniform_int stops the process for n
   beyond the generator's range (2^32 for MT19937), so larger n go through a
   double (2^53 resolution, far beyond any block count). */
static uint64_t gf_uniform(gsl_rng *rng, uint64_t n) {
  if (n <= gsl_rng_max(rng)) return gsl_rng_uniform_int(rng, (unsigned long)n);
  uint64_t v = (uint64_t)(gsl_rng_uniform(rng) * (double)n);
  return v < n ? v : n - 1;
}

/* Decides whether the block starting at seq `pos` (`len` long, `warm` of
   them not counted) is sampled. */
static void gf_block_start(ic_graphfrag *g, uint64_t pos, uint64_t len, uint64_t warm) {
  uint64_t b = g->blocks++;
  uint64_t slot = b;
  if (b >= g->k) {
    slot = gf_uniform(g->rng, b + 1);
    if (slot >= g->k) return;
  }
  g->in_window = 1;
  g->slot = slot;
  g->wstart = pos;
  g->wlen = len;
  g->wwarm = warm;
  ic_solver_reset(g->solver);
}

/* The block, if any, that starts at seq pos: the lead at 0 (where off > 0),
   then every L from off. */
static void gf_maybe_start(ic_graphfrag *g, uint64_t pos) {
  if (pos == 0 && g->off > 0) gf_block_start(g, 0, g->off, 0);
  else if (pos >= g->off && (pos - g->off) % g->len == 0) gf_block_start(g, pos, g->len, g->warm);
}

static ic_status gf_consume(void *ctx, const ic_graph_rec *recs, size_t n, ic_err *err) {
  ic_graphfrag *g = ctx;
  size_t i = 0;
  while (i < n) {
    if (recs[i].seq != g->seen)
      return ic_fail(err, IC_EINPUT, "graphfrag: record seq %llu, expected %llu",
                     (unsigned long long)recs[i].seq, (unsigned long long)g->seen);
    uint64_t pos = g->seen;
    if (!g->in_window) {
      gf_maybe_start(g, pos);
      if (!g->in_window) {
        /* skip ahead to the next block start within this batch */
        uint64_t next = pos < g->off ? g->off : pos + (g->len - (pos - g->off) % g->len);
        uint64_t adv = next - pos;
        if (adv > n - i) adv = n - i;
        for (uint64_t a = 1; a < adv; a++)
          if (recs[i + a].seq != pos + a)
            return ic_fail(err, IC_EINPUT, "graphfrag: record seq %llu, expected %llu",
                           (unsigned long long)recs[i + a].seq,
                           (unsigned long long)(pos + a));
        i += adv;
        g->seen += adv;
        continue;
      }
    }
    /* feed up to the end of the window */
    uint64_t wend = g->wstart + g->wlen;
    uint64_t wmid = g->wstart + g->wwarm; /* end of the warm-up */
    uint64_t stop = pos < wmid ? wmid : wend;
    uint64_t take = stop - pos;
    if (take > n - i) take = n - i;
    ic_status st = ic_solver_feed(g->solver, recs + i, (size_t)take, err);
    if (st != IC_OK) return st;
    i += take;
    g->seen += take;
    if (g->wwarm && g->seen == wmid)
      memcpy(g->tw, ic_solver_times(g->solver), g->nsub * sizeof *g->tw);
    if (g->seen == wend) {
      const uint64_t *t = ic_solver_times(g->solver);
      double *dst = g->t + g->slot * g->nsub;
      for (size_t s = 0; s < g->nsub; s++) dst[s] = (double)(t[s] - (g->wwarm ? g->tw[s] : 0));
      g->lens[g->slot] = g->wlen - g->wwarm;
      if (g->slot >= g->filled) g->filled = g->slot + 1;
      g->in_window = 0;
    }
  }
  return IC_OK;
}

ic_graph_sink ic_graphfrag_sink(ic_graphfrag *g) {
  ic_graph_sink s = {.ctx = g, .consume = gf_consume};
  return s;
}

uint64_t ic_fragment_length_for(uint32_t rob) {
  uint64_t len = (uint64_t)IC_FRAG_LENGTH_WINDOWS * IC_WIN_FACTOR * rob;
  if (len < IC_GRAPHFRAG_DEFAULT_LEN) len = IC_GRAPHFRAG_DEFAULT_LEN;
  return len > 1000000 ? 1000000 : len;
}

uint64_t ic_fragment_warmup_for(uint32_t rob, uint64_t length) {
  uint64_t len = length ? length : IC_GRAPHFRAG_DEFAULT_LEN;
  uint64_t w = (uint64_t)IC_FRAG_WARMUP_ROBS * rob;
  return w > len / 2 ? len / 2 : w;
}

uint64_t ic_graphfrag_windows(const ic_graphfrag *g) {
  /* with the block the run ends in, where it was chosen and takes a new slot */
  return g->in_window && g->seen > g->wstart && g->slot >= g->filled ? g->slot + 1 : g->filled;
}
uint64_t ic_graphfrag_instructions(const ic_graphfrag *g) { return g->seen; }
uint64_t ic_graphfrag_offset(const ic_graphfrag *g) { return g->off; }

/* Sum of the t vectors of windows idx[0..m) into sum[nsub]. */
void ic_fragments_sum(const double *t, size_t nsub, const uint64_t *idx, uint64_t m, double *sum) {
  memset(sum, 0, nsub * sizeof *sum);
  for (uint64_t f = 0; f < m; f++) {
    const double *v = t + (idx ? idx[f] : f) * nsub;
    for (size_t s = 0; s < nsub; s++) sum[s] += v[s];
  }
}

ic_status ic_fragments_bootstrap(const double *t, uint64_t m, int ncat, int nb, uint64_t seed,
                                 ic_breakdown *out, ic_err *err) {
  size_t nsub = (size_t)1 << ncat;
  ic_status st = IC_OK;
  double *pcts = malloc((size_t)nb * nsub * sizeof *pcts);
  double *col = malloc((size_t)nb * sizeof *col);
  double *pct = malloc(nsub * sizeof *pct);
  double *sum = malloc(nsub * sizeof *sum);
  uint64_t *idx = malloc(m * sizeof *idx);
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  out->lo = malloc(nsub * sizeof *out->lo);
  out->hi = malloc(nsub * sizeof *out->hi);
  out->ci_fragments = m;
  if (!pcts || !col || !pct || !sum || !idx || !rng || !out->lo || !out->hi) {
    st = ic_fail(err, IC_ERUN, "bootstrap: out of memory");
    goto done;
  }
  /* a fixed seed derived from the caller's, so the interval does not depend
     on how the records were batched */
  gsl_rng_set(rng, (unsigned long)(seed ^ UINT64_C(0x9e3779b97f4a7c15)));
  for (int b = 0; b < nb; b++) {
    for (uint64_t f = 0; f < m; f++) idx[f] = gf_uniform(rng, m);
    ic_fragments_sum(t, nsub, idx, m, sum);
    st = ic_validate_pct_from_times(sum, ncat, pct, err);
    if (st != IC_OK) goto done;
    for (size_t s = 0; s < nsub; s++) pcts[(size_t)b * nsub + s] = pct[s];
  }
  for (size_t s = 0; s < nsub; s++) {
    for (int b = 0; b < nb; b++) col[b] = pcts[(size_t)b * nsub + s];
    gsl_sort(col, 1, (size_t)nb);
    out->lo[s] = gsl_stats_quantile_from_sorted_data(col, 1, (size_t)nb, 0.025);
    out->hi[s] = gsl_stats_quantile_from_sorted_data(col, 1, (size_t)nb, 0.975);
  }
done:
  if (rng) gsl_rng_free(rng);
  free(pcts);
  free(col);
  free(pct);
  free(sum);
  free(idx);
  return st;
}

ic_status ic_graphfrag_result(const ic_graphfrag *g, ic_breakdown *out, ic_err *err) {
  memset(out, 0, sizeof *out);
  uint64_t m = g->filled;
  size_t nsub = g->nsub;
  /* The block the run ended in, where it was chosen: its slot holds it, with
     the instructions it has (the end of a run, like its start, is often
     code run once, cold: stream.short on configs/modern.yaml ends in 554
     instructions taking 2% of its cycles, 8109, mostly I-cache misses). Its
     warm-up is W where it has more than W instructions, else none: it is
     then solved from an empty machine, the backlog it would have found not
     counted. */
  const uint64_t tail = g->in_window ? g->seen - g->wstart : 0;
  double *t = g->t;
  uint64_t *lens = g->lens;
  if (tail) {
    const uint64_t m2 = g->slot >= m ? g->slot + 1 : m;
    t = malloc(m2 * nsub * sizeof *t);
    lens = malloc(m2 * sizeof *lens);
    if (!t || !lens) {
      free(t);
      free(lens);
      return ic_fail(err, IC_ERUN, "graphfrag: out of memory");
    }
    memcpy(t, g->t, m * nsub * sizeof *t);
    memcpy(lens, g->lens, m * sizeof *lens);
    const uint64_t *now = ic_solver_times(g->solver);
    const int warm = g->wwarm && tail > g->wwarm;
    for (size_t s = 0; s < nsub; s++)
      t[g->slot * nsub + s] = (double)(now[s] - (warm ? g->tw[s] : 0));
    lens[g->slot] = tail - (warm ? g->wwarm : 0);
    m = m2;
  }
  if (m == 0)
    return ic_fail(err, IC_ERUN, "graphfrag: the run holds no instruction");
  double *sum = malloc(nsub * sizeof *sum);
  if (!sum) {
    if (tail) free(t), free(lens);
    return ic_fail(err, IC_ERUN, "graphfrag: out of memory");
  }
  ic_fragments_sum(t, nsub, NULL, m, sum);
  uint64_t counted = 0;
  for (uint64_t f = 0; f < m; f++) counted += lens[f];
  double scale = (double)g->seen / (double)counted;
  for (size_t s = 0; s < nsub; s++) sum[s] *= scale;
  ic_breakdown_unneeded_nan(sum, g->ncat, g->need);
  ic_status st = ic_breakdown_from_times(out, g->cats, g->ncat, sum, err);
  if (st == IC_OK && g->bootstrap >= 0) {
    st = ic_fragments_bootstrap(t, m, g->ncat, g->bootstrap, g->seed, out, err);
    if (st != IC_OK) ic_breakdown_free(out);
  }
  free(sum);
  if (tail) free(t), free(lens);
  return st;
}
