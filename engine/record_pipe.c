/* record_pipe.c: the record pipe (record_pipe.h).
 *
 * One producer (the model's thread), one consumer (the pipe's thread), a
 * ring of SLOTS batches of BATCH records each. `head` counts the batches
 * handed over, `tail` those consumed; the producer writes only slot
 * head % SLOTS and only while head - tail < SLOTS, the consumer reads only
 * slots below head. Either side that must wait spins a little (the other
 * side is usually a few microseconds away on its own CPU), then sleeps on a
 * condition variable; the other side signals it after moving its counter
 * when it sees the sleeper's flag (both the counter and the flag are
 * sequentially consistent, so a wake-up is never lost). */
#include "record_pipe.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* 32 records (14 KB) a batch: few hand-overs, and a batch still fits the
 * consumer's L1/L2 while it is read; 64 batches of slack between the two,
 * so neither waits for the other's short stalls. A sleeping consumer is
 * woken for WAKE_AT batches (each wake-up buys a stretch of work), a
 * sleeping producer once half the ring is free. */
#define BATCH 32u
#define SLOTS 64u
#define WAKE_AT 8u
#define SPIN 512

struct ic_record_pipe {
  _Alignas(64) _Atomic uint64_t head;
  _Alignas(64) _Atomic uint64_t tail;
  _Alignas(64) _Atomic int csleep; /* the consumer sleeps (waits for head) */
  _Atomic int psleep;              /* the producer sleeps (waits for tail >= pwant) */
  _Atomic uint64_t pwant;
  _Atomic int stop;
  _Atomic int failed;              /* down's consume failed: err holds why */
  ic_status status;                /* of that failure (written before failed) */
  ic_err err;
  ic_graph_sink down;
  ic_graph_rec *recs;              /* SLOTS * BATCH */
  uint32_t n[SLOTS];               /* records in each slot handed over */
  pthread_t th;
  pthread_mutex_t m;
  pthread_cond_t cv;
};

static inline void pause_cpu(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

static void signal_other(ic_record_pipe *p) {
  pthread_mutex_lock(&p->m);
  pthread_cond_broadcast(&p->cv);
  pthread_mutex_unlock(&p->m);
}

/* Wakes a sleeping consumer where `force` or WAKE_AT batches wait. */
static void wake_consumer(ic_record_pipe *p, int force) {
  if (atomic_load(&p->csleep) &&
      (force || atomic_load(&p->head) - atomic_load_explicit(&p->tail, memory_order_relaxed) >= WAKE_AT))
    signal_other(p);
}

/* The producer waits until `want` batches have been consumed. */
static void wait_tail(ic_record_pipe *p, uint64_t want) {
  for (int spin = 0; spin < SPIN; spin++) {
    if (atomic_load(&p->tail) >= want) return;
    pause_cpu();
  }
  pthread_mutex_lock(&p->m);
  atomic_store(&p->pwant, want);
  atomic_store(&p->psleep, 1);
  while (atomic_load(&p->tail) < want) pthread_cond_wait(&p->cv, &p->m);
  atomic_store(&p->psleep, 0);
  pthread_mutex_unlock(&p->m);
}

static void *consumer(void *arg) {
  ic_record_pipe *p = arg;
  uint64_t t = atomic_load(&p->tail);
  for (;;) {
    for (int spin = 0; spin < SPIN && atomic_load(&p->head) == t; spin++) pause_cpu();
    if (atomic_load(&p->head) == t) {
      pthread_mutex_lock(&p->m);
      atomic_store(&p->csleep, 1);
      while (atomic_load(&p->head) == t && !atomic_load(&p->stop)) pthread_cond_wait(&p->cv, &p->m);
      atomic_store(&p->csleep, 0);
      pthread_mutex_unlock(&p->m);
      if (atomic_load(&p->head) == t) return NULL; /* stopped, nothing left */
    }
    const uint32_t k = (uint32_t)(t % SLOTS);
    if (!atomic_load_explicit(&p->failed, memory_order_relaxed)) {
      ic_status s = p->down.consume(p->down.ctx, p->recs + (size_t)k * BATCH, p->n[k], &p->err);
      if (s != IC_OK) {
        p->status = s;
        atomic_store(&p->failed, 1);
      }
    }
    atomic_store(&p->tail, ++t);
    if (atomic_load(&p->psleep) && t >= atomic_load(&p->pwant)) signal_other(p);
  }
}

static ic_graph_rec *pipe_buffer(void *ctx, size_t *cap) {
  ic_record_pipe *p = ctx;
  const uint64_t h = atomic_load_explicit(&p->head, memory_order_relaxed);
  if (h - atomic_load(&p->tail) >= SLOTS) {
    wake_consumer(p, 1);
    wait_tail(p, h - SLOTS / 2);
  }
  *cap = BATCH;
  return p->recs + (size_t)(h % SLOTS) * BATCH;
}

static ic_status pipe_consume(void *ctx, const ic_graph_rec *recs, size_t n, ic_err *err) {
  ic_record_pipe *p = ctx;
  const uint64_t h = atomic_load_explicit(&p->head, memory_order_relaxed);
  if (atomic_load(&p->failed)) return ic_fail(err, p->status, "%s", p->err.msg);
  if (n == 0) return IC_OK;
  if (n > BATCH || recs != p->recs + (size_t)(h % SLOTS) * BATCH)
    return ic_fail(err, IC_ERUN, "record pipe: a batch not built in the pipe's buffer");
  p->n[h % SLOTS] = (uint32_t)n;
  atomic_store(&p->head, h + 1);
  wake_consumer(p, 0);
  return IC_OK;
}

ic_graph_sink ic_record_pipe_sink(ic_record_pipe *p) {
  return (ic_graph_sink){.ctx = p, .consume = pipe_consume, .buffer = pipe_buffer};
}

ic_status ic_record_pipe_finish(ic_record_pipe *p, ic_err *err) {
  wake_consumer(p, 1);
  wait_tail(p, atomic_load_explicit(&p->head, memory_order_relaxed));
  if (atomic_load(&p->failed)) return ic_fail(err, p->status, "%s", p->err.msg);
  return IC_OK;
}

int ic_record_pipe_worth(int cpus) { return cpus >= 2; }

ic_status ic_record_pipe_create(ic_record_pipe **out, ic_graph_sink down, ic_err *err) {
  *out = NULL;
  ic_record_pipe *p = aligned_alloc(64, sizeof *p);
  if (!p) return ic_fail(err, IC_ERUN, "out of memory for the record pipe");
  memset(p, 0, sizeof *p);
  atomic_init(&p->head, 0);
  atomic_init(&p->tail, 0);
  atomic_init(&p->csleep, 0);
  atomic_init(&p->psleep, 0);
  atomic_init(&p->pwant, 0);
  atomic_init(&p->stop, 0);
  atomic_init(&p->failed, 0);
  p->down = down;
  p->recs = calloc((size_t)SLOTS * BATCH, sizeof *p->recs);
  int mi = 0, ci = 0;
  if (p->recs && (mi = pthread_mutex_init(&p->m, NULL) == 0) && (ci = pthread_cond_init(&p->cv, NULL) == 0) &&
      pthread_create(&p->th, NULL, consumer, p) == 0) {
    *out = p;
    return IC_OK;
  }
  if (ci) pthread_cond_destroy(&p->cv);
  if (mi) pthread_mutex_destroy(&p->m);
  free(p->recs);
  free(p);
  return ic_fail(err, IC_ERUN, "cannot start the record pipe's thread");
}

void ic_record_pipe_destroy(ic_record_pipe *p) {
  if (!p) return;
  pthread_mutex_lock(&p->m);
  atomic_store(&p->stop, 1);
  pthread_cond_broadcast(&p->cv);
  pthread_mutex_unlock(&p->m);
  pthread_join(p->th, NULL);
  pthread_cond_destroy(&p->cv);
  pthread_mutex_destroy(&p->m);
  free(p->recs);
  free(p);
}

ic_status ic_record_pipe_run(ic_graph_sink down, int cpus, ic_record_run_fn run, void *ctx,
                             ic_err *err) {
  if (!ic_record_pipe_worth(cpus)) return run(ctx, &down, err);
  ic_record_pipe *p;
  ic_status st = ic_record_pipe_create(&p, down, err);
  if (st != IC_OK) return st;
  ic_graph_sink sink = ic_record_pipe_sink(p);
  st = run(ctx, &sink, err);
  ic_status fst = ic_record_pipe_finish(p, st == IC_OK ? err : NULL);
  ic_record_pipe_destroy(p);
  return st != IC_OK ? st : fst;
}
