/* multisim.c: the multisim driver (multisim.h): 2^n idealized model runs
 * spread over worker threads, and the one-run graphfrag driver.
 *
 * Workers share nothing mutable but a next-subset counter, a stop flag and
 * the progress count, all under one mutex taken once per run (a run is
 * millions of instructions, so the lock is never contended in practice).
 * Each run writes only its own slot of the result arrays. */
#include "multisim.h"

#include "cpus.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int ic_multisim_jobs(int jobs) {
  return jobs > 0 ? jobs : ic_cpus_allowed();
}

typedef struct msim_job {
  const ic_multisim_opts *o;
  size_t nsub;
  size_t *run;  /* the subsets to run (o->need), nrun of them */
  size_t nrun;
  pthread_mutex_t lock;
  size_t next;  /* next of run[] to run */
  int stop;     /* a run failed: take no more work */
  int done;     /* finished runs, for progress */
  uint64_t *cycles, *insns;
  ic_status *status;
  ic_err *errs; /* per subset */
} msim_job;

static ic_catmask subset_catmask(const uint8_t *cats, int ncat, size_t subset) {
  ic_catmask m = 0;
  for (int k = 0; k < ncat; k++)
    if (subset & ((size_t)1 << k)) m |= IC_CATBIT(cats[k]);
  return m;
}

/* "{dl1,win}" for a subset mask over positions in cats. */
static void subset_name(const uint8_t *cats, int ncat, size_t subset, char *buf, size_t cap) {
  size_t len = 0;
  int first = 1;
  len += (size_t)snprintf(buf, cap, "{");
  for (int k = 0; k < ncat && len < cap; k++)
    if (subset & ((size_t)1 << k)) {
      len += (size_t)snprintf(buf + len, cap - len, "%s%s", first ? "" : ",",
                              ic_category_name(cats[k]));
      first = 0;
    }
  if (len < cap) snprintf(buf + len, cap - len, "}");
}

static void *msim_worker(void *arg) {
  msim_job *j = arg;
  const ic_multisim_opts *o = j->o;
  for (;;) {
    pthread_mutex_lock(&j->lock);
    size_t r = j->next;
    int stop = j->stop;
    if (!stop && r < j->nrun) j->next++;
    pthread_mutex_unlock(&j->lock);
    if (stop || r >= j->nrun) return NULL;
    const size_t s = j->run[r];
    ic_status st = o->run(o->run_ctx, subset_catmask(o->cats, o->ncat, s), NULL, &j->cycles[s],
                          &j->insns[s], &j->errs[s]);
    pthread_mutex_lock(&j->lock);
    j->status[s] = st;
    if (st != IC_OK) j->stop = 1;
    j->done++;
    if (o->progress) o->progress(o->progress_ctx, j->done, (int)j->nrun);
    pthread_mutex_unlock(&j->lock);
  }
}

ic_status ic_multisim_times(const ic_multisim_opts *o, double *t_subset, ic_err *err) {
  if (o->ncat < 1 || o->ncat > IC_BREAKDOWN_MAX_CATS)
    return ic_fail(err, IC_EINPUT, "multisim: %d categories (1 to %d allowed)", o->ncat,
                   IC_BREAKDOWN_MAX_CATS);
  for (int k = 0; k < o->ncat; k++)
    if (!ic_cat_valid(o->cats[k]))
      return ic_fail(err, IC_EINPUT, "multisim: category id %d out of range", o->cats[k]);
  if (!o->run) return ic_fail(err, IC_EINPUT, "multisim: no model run function");
  msim_job j;
  memset(&j, 0, sizeof j);
  j.o = o;
  j.nsub = (size_t)1 << o->ncat;
  j.cycles = calloc(j.nsub, sizeof *j.cycles);
  j.insns = calloc(j.nsub, sizeof *j.insns);
  j.status = calloc(j.nsub, sizeof *j.status);
  j.errs = calloc(j.nsub, sizeof *j.errs);
  j.run = calloc(j.nsub, sizeof *j.run);
  if (j.run)
    for (size_t s = 0; s < j.nsub; s++)
      if (s == 0 || !o->need || o->need[s]) j.run[j.nrun++] = s;
  int nthreads = ic_multisim_jobs(o->jobs);
  if ((size_t)nthreads > j.nrun) nthreads = (int)j.nrun;
  if (nthreads < 1) nthreads = 1;
  pthread_t *th = calloc((size_t)nthreads, sizeof *th);
  ic_status st = IC_OK;
  if (!j.cycles || !j.insns || !j.status || !j.errs || !j.run || !th) {
    st = ic_fail(err, IC_ERUN, "multisim: out of memory");
    goto out;
  }
  for (size_t s = 0; s < j.nsub; s++) j.status[s] = IC_OK;
  pthread_mutex_init(&j.lock, NULL);
  int started = 0;
  for (; started < nthreads; started++)
    if (pthread_create(&th[started], NULL, msim_worker, &j) != 0) break;
  if (started == 0) {
    msim_worker(&j); /* no thread could start: run them here */
  }
  for (int t = 0; t < started; t++) pthread_join(th[t], NULL);
  pthread_mutex_destroy(&j.lock);

  char name[160];
  for (size_t r = 0; r < j.nrun; r++) {
    const size_t s = j.run[r];
    if (j.status[s] != IC_OK) {
      subset_name(o->cats, o->ncat, s, name, sizeof name);
      st = ic_fail(err, j.status[s], "multisim run %s: %s", name, j.errs[s].msg);
      goto out;
    }
  }
  /* Every run must have timed the same interval, or t(S) compare different
     programs. */
  for (size_t r = 1; r < j.nrun; r++) {
    const size_t s = j.run[r];
    if (j.insns[s] != j.insns[0]) {
      subset_name(o->cats, o->ncat, s, name, sizeof name);
      st = ic_fail(err, IC_ERUN,
                   "multisim run %s: timed %llu instructions, the baseline run %llu", name,
                   (unsigned long long)j.insns[s], (unsigned long long)j.insns[0]);
      goto out;
    }
  }
  if (j.cycles[0] == 0) {
    st = ic_fail(err, IC_ERUN, "multisim: the baseline run timed no instruction");
    goto out;
  }
  for (size_t s = 0; s < j.nsub; s++) t_subset[s] = NAN;
  for (size_t r = 0; r < j.nrun; r++) t_subset[j.run[r]] = (double)j.cycles[j.run[r]];
out:
  free(j.run);
  free(j.cycles);
  free(j.insns);
  free(j.status);
  free(j.errs);
  free(th);
  return st;
}

ic_status ic_multisim_run(const ic_multisim_opts *o, ic_breakdown *out, ic_err *err) {
  memset(out, 0, sizeof *out);
  if (o->ncat < 1 || o->ncat > IC_BREAKDOWN_MAX_CATS)
    return ic_fail(err, IC_EINPUT, "multisim: %d categories (1 to %d allowed)", o->ncat,
                   IC_BREAKDOWN_MAX_CATS);
  double *t = malloc(((size_t)1 << o->ncat) * sizeof *t);
  if (!t) return ic_fail(err, IC_ERUN, "multisim: out of memory");
  ic_status st = ic_multisim_times(o, t, err);
  if (st == IC_OK) st = ic_breakdown_from_times(out, o->cats, o->ncat, t, err);
  free(t);
  return st;
}

ic_status ic_graphfrag_run(const ic_graphfrag_opts *o, ic_model_run_fn run, void *run_ctx,
                           ic_breakdown *out, ic_err *err) {
  memset(out, 0, sizeof *out);
  ic_graphfrag *g;
  ic_status st = ic_graphfrag_create(&g, o, err);
  if (st != IC_OK) return st;
  ic_graph_sink sink = ic_graphfrag_sink(g);
  uint64_t cycles, insns;
  st = run(run_ctx, 0, &sink, &cycles, &insns, err);
  if (st == IC_OK) st = ic_graphfrag_result(g, out, err);
  ic_graphfrag_destroy(g);
  return st;
}
