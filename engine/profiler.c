/* profiler.c: the shotgun profiler breakdown (profiler.h): collection
 * through the sampling hook, fragment choice, stitching, solving and the
 * bootstrap interval. */
#include "profiler.h"

#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <stdlib.h>
#include <string.h>

#include "solver.h"
#include "validate.h"

static uint64_t uniform(gsl_rng *rng, uint64_t n) {
  if (n <= gsl_rng_max(rng)) return gsl_rng_uniform_int(rng, (unsigned long)n);
  uint64_t v = (uint64_t)(gsl_rng_uniform(rng) * (double)n);
  return v < n ? v : n - 1;
}

static ic_status check_opts(const ic_profiler_opts *o, ic_err *err) {
  if (o->ncat < 1 || o->ncat > IC_BREAKDOWN_MAX_CATS)
    return ic_fail(err, IC_EINPUT, "profiler: %d categories (1 to %d allowed)", o->ncat,
                   IC_BREAKDOWN_MAX_CATS);
  uint32_t len = o->length ? o->length : SIG_DEFAULT_LENGTH;
  if (o->warmup >= len)
    return ic_fail(err, IC_EINPUT, "profiler: warm-up %u not below the fragment length %u",
                   o->warmup, len);
  return IC_OK;
}

ic_status ic_profiler_fragment_times(const ic_profiler_opts *o, const sig_db *db,
                                     const ic_program_image *img, double **times,
                                     uint64_t **lens, uint64_t *nfrag, ic_stitch_stats *sst,
                                     ic_err *err) {
  *times = NULL;
  *lens = NULL;
  *nfrag = 0;
  ic_status st = check_opts(o, err);
  if (st != IC_OK) return st;
  size_t nsk = sig_db_skeletons(db);
  uint64_t k = o->fragments && o->fragments < nsk ? o->fragments : nsk;
  size_t nsub = (size_t)1 << o->ncat;
  size_t *pick = malloc((nsk ? nsk : 1) * sizeof *pick);
  double *t = malloc((k ? k : 1) * nsub * sizeof *t);
  uint64_t *l = malloc((k ? k : 1) * sizeof *l);
  ic_graph_rec *recs = NULL;
  size_t cap = 0;
  ic_solver *solver = NULL;
  ic_stitch_sites *sites = NULL;
  ic_image_cache *icache = NULL; /* decodes img once per pc */
  gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
  if (!pick || !t || !l || !rng) {
    st = ic_fail(err, IC_ERUN, "profiler: out of memory");
    goto done;
  }
  /* K of the skeletons without replacement (partial Fisher-Yates), then in
     file order so the result does not depend on the draw order */
  gsl_rng_set(rng, (unsigned long)(o->seed ^ UINT64_C(0x5bd1e9955bd1e995)));
  for (size_t i = 0; i < nsk; i++) pick[i] = i;
  if (k < nsk) {
    for (uint64_t i = 0; i < k; i++) {
      size_t j = i + (size_t)uniform(rng, nsk - i);
      size_t x = pick[i];
      pick[i] = pick[j];
      pick[j] = x;
    }
    gsl_sort_ulong((unsigned long *)pick, 1, (size_t)k);
  }
  size_t warm_all = o->warmup;
  if ((st = ic_solver_create(&solver, o->cats, o->ncat, err)) != IC_OK) goto done;
  if ((st = ic_solver_set_subsets(solver, o->need, err)) != IC_OK) goto done;
  if ((st = ic_image_cache_create(&icache, img, err)) != IC_OK) goto done;
  const ic_program_image cimg = ic_image_cache_image(icache);
  img = &cimg;
  if ((st = ic_stitch_sites_create(&sites, db, img, err)) != IC_OK) goto done;
  ic_stitch_stats stats = {0};
  uint64_t m = 0;
  for (uint64_t i = 0; i < k; i++) {
    const sig_skeleton *sk = sig_db_skeleton(db, pick[i]);
    if (sk->n > cap) {
      free(recs);
      cap = sk->n;
      recs = malloc(cap * sizeof *recs);
      if (!recs) {
        st = ic_fail(err, IC_ERUN, "profiler: out of memory");
        goto done;
      }
    }
    size_t built;
    /* a fragment from the run's first instruction has nothing before it
       (its graph is the model's): no warm-up */
    size_t warm = (sk->flags & SIG_SK_RUN_START) ? 0 : warm_all;
    /* a prefix (a fragment cut at an unknown indirect target) is kept from
       IC_PROFILER_MIN_PREFIX instructions on, or the whole fragment when it
       is shorter (cut by the run's end) */
    uint32_t keep = sk->n < IC_PROFILER_MIN_PREFIX ? sk->n : IC_PROFILER_MIN_PREFIX;
    if ((st = ic_stitch_fragment_sites(db, &o->machine, img, sites, sk, keep, recs, &built, &stats,
                                        err)) != IC_OK)
      goto done;
    if (!built) continue;
    /* A prefix stands for its block (profiler.h): the skeleton is a sample
       of sk->n instructions of the run, and where the walk stopped is code
       with an indirect jump no detailed sample saw: cold code, run once,
       and slow (I-cache and data misses, a cold predictor). Counting only
       the prefix left most of that out. Its counted part's times are
       scaled to the block's counted length, by at most
       IC_PROFILER_PREFIX_SCALE; a prefix no longer than the warm-up keeps
       half of itself as warm-up. */
    if (sk->n <= warm) warm = 0; /* the run's end, shorter than W: solved whole */
    const size_t bwarm = warm; /* the block's */
    if (built < sk->n && built <= warm) warm = built / 2;
    if (built <= warm) continue;
    double wgt = 1.0;
    if (built < sk->n) {
      wgt = (double)(sk->n - bwarm) / (double)(built - warm);
      if (wgt > IC_PROFILER_PREFIX_SCALE) wgt = IC_PROFILER_PREFIX_SCALE;
    }
    ic_solver_reset(solver);
    double *tf = t + m * nsub;
    memset(tf, 0, nsub * sizeof *tf);
    if (warm) {
      if ((st = ic_solver_feed(solver, recs, warm, err)) != IC_OK) goto done;
      const uint64_t *tw = ic_solver_times(solver);
      for (size_t s = 0; s < nsub; s++) tf[s] = -(double)tw[s];
    }
    if ((st = ic_solver_feed(solver, recs + warm, built - warm, err)) != IC_OK) goto done;
    const uint64_t *ts = ic_solver_times(solver);
    for (size_t s = 0; s < nsub; s++) tf[s] = (tf[s] + (double)ts[s]) * wgt;
    l[m] = (uint64_t)((double)(built - warm) * wgt + 0.5);
    m++;
  }
  if (sst) ic_stitch_stats_add(sst, &stats);
  *times = t;
  *lens = l;
  *nfrag = m;
  t = NULL;
  l = NULL;
done:
  ic_stitch_sites_destroy(sites);
  ic_image_cache_destroy(icache);
  if (rng) gsl_rng_free(rng);
  if (solver) ic_solver_destroy(solver);
  free(recs);
  free(pick);
  free(t);
  free(l);
  return st;
}

ic_status ic_profiler_analyze(const ic_profiler_opts *o, const sig_db *db,
                              const ic_program_image *img, uint64_t run_instructions,
                              ic_breakdown *out, ic_profiler_stats *pst, ic_err *err) {
  memset(out, 0, sizeof *out);
  double *t;
  uint64_t *lens, m;
  ic_stitch_stats sst = {0};
  ic_status st = ic_profiler_fragment_times(o, db, img, &t, &lens, &m, &sst, err);
  if (st != IC_OK) return st;
  uint64_t flen = 0;
  for (uint64_t f = 0; f < m; f++) flen += lens[f];
  if (pst) {
    ic_stitch_stats_add(&pst->stitch, &sst);
    pst->fragment_instructions += flen;
    if (run_instructions) pst->instructions = run_instructions;
  }
  if (m == 0) {
    free(t);
    free(lens);
    if (sig_db_skeletons(db) == 0)
      return ic_fail(err, IC_ERUN,
                     "profiler: no signature sample (the run is shorter than the fragment "
                     "length plus the signature interval?)");
    if (sst.stitched)
      return ic_fail(err, IC_ERUN,
                     "profiler: no stitched fragment is longer than the warm-up (%u "
                     "instructions)",
                     o->warmup);
    return ic_fail(err, IC_ERUN,
                   "profiler: all %llu fragments aborted in stitching (%llu: %s; %llu: %s; "
                   "%llu: %s)",
                   (unsigned long long)sst.fragments,
                   (unsigned long long)sst.abort_why[IC_STITCH_ABORT_PC],
                   ic_stitch_abort_help[IC_STITCH_ABORT_PC],
                   (unsigned long long)sst.abort_why[IC_STITCH_ABORT_BITS],
                   ic_stitch_abort_help[IC_STITCH_ABORT_BITS],
                   (unsigned long long)sst.abort_why[IC_STITCH_ABORT_TARGET],
                   ic_stitch_abort_help[IC_STITCH_ABORT_TARGET]);
  }
  size_t nsub = (size_t)1 << o->ncat;
  double *sum = malloc(nsub * sizeof *sum);
  int nb = o->bootstrap == 0 ? IC_PROFILER_BOOTSTRAP : o->bootstrap;
  if (!sum) {
    st = ic_fail(err, IC_ERUN, "profiler: out of memory");
    goto done;
  }
  ic_fragments_sum(t, nsub, NULL, m, sum);
  double scale = run_instructions ? (double)run_instructions / (double)flen : 1.0;
  for (size_t s = 0; s < nsub; s++) sum[s] *= scale;
  ic_breakdown_unneeded_nan(sum, o->ncat, o->need);
  st = ic_breakdown_from_times(out, o->cats, o->ncat, sum, err);
  if (st == IC_OK && nb >= 0) st = ic_fragments_bootstrap(t, m, o->ncat, nb, o->seed, out, err);
done:
  if (st != IC_OK) ic_breakdown_free(out);
  free(sum);
  free(t);
  free(lens);
  return st;
}

ic_status ic_profiler_run(const ic_profiler_opts *o, ic_model_run_fn run, void *run_ctx,
                          const ic_program_image *img, ic_breakdown *out, ic_profiler_stats *pst,
                          ic_err *err) {
  memset(out, 0, sizeof *out);
  ic_status st = check_opts(o, err);
  if (st != IC_OK) return st;
  sig_sampler_opts so = {
      o->detail_interval ? o->detail_interval : IC_PROFILER_DEFAULT_DETAIL_INTERVAL,
      o->signature_interval ? o->signature_interval : IC_PROFILER_DEFAULT_SIGNATURE_INTERVAL,
      o->length ? o->length : SIG_DEFAULT_LENGTH, o->seed};
  sig_db *db = NULL;
  sig_sampler *smp = NULL;
  if ((st = sig_db_create(&db, err)) != IC_OK) return st;
  /* o->fragments chosen while the run goes: memory for that many; and at
     most IC_PROFILER_MAX_DETAILS detailed samples */
  if ((st = sig_db_keep_skeletons(db, o->fragments, o->seed, err)) != IC_OK ||
      (st = sig_db_keep_details(db, IC_PROFILER_MAX_DETAILS, o->seed, err)) != IC_OK)
    goto done;
  if ((st = sig_sampler_create(&smp, &so, &o->machine, img, sig_db_out(db), err)) != IC_OK)
    goto done;
  ic_graph_sink sink = sig_sampler_sink(smp, NULL);
  uint64_t cycles = 0, insns = 0;
  if ((st = run(run_ctx, 0, &sink, &cycles, &insns, err)) != IC_OK) goto done;
  if ((st = sig_sampler_finish(smp, err)) != IC_OK) goto done;
  if ((st = sig_db_build(db, err)) != IC_OK) goto done;
  ic_profiler_stats local = {0};
  sig_sampler_get_stats(smp, &local.sampler);
  st = ic_profiler_analyze(o, db, img, insns, out, &local, err);
  if (pst) *pst = local;
done:
  sig_sampler_destroy(smp);
  sig_db_destroy(db);
  return st;
}

uint64_t ic_profiler_signature_interval_for(uint64_t max, uint64_t fragments, uint32_t length) {
  uint64_t L = length ? length : SIG_DEFAULT_LENGTH;
  if (!fragments) return 0;
  if (!max) return 1; /* back to back; the collection keeps `fragments` (ic_profiler_opts) */
  /* more fragments than fit: back to back, as many as the run holds */
  if (max / fragments <= L) return 1;
  return max / fragments - L;
}

void ic_profiler_set_sampling(ic_profiler_opts *o, uint64_t max, uint64_t fragments) {
  const uint64_t k = fragments ? fragments : IC_GRAPHFRAG_DEFAULT_FRAGMENTS;
  o->signature_interval = ic_profiler_signature_interval_for(max, k, o->length);
  o->fragments = max ? 0 : k;
}
