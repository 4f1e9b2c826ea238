/* record_pipe.c: the record pipe (record_pipe.h).
 *
 * One producer (the model's thread), one consumer (the pipe's thread), a
 * ring of SLOTS slots of packed records (graph_pack.h). `head` counts the
 * slots handed over, `tail` those consumed; the producer fills only slot
 * head % SLOTS and only while head - tail < SLOTS, the consumer reads only
 * slots below head. Either side that must wait spins a little (the other
 * side is usually a few microseconds away on its own CPU), then sleeps on a
 * condition variable; the other side signals it after moving its counter
 * when it sees the sleeper's flag (both the counter and the flag are
 * sequentially consistent, so a wake-up is never lost).
 *
 * Records travel packed because the bytes that cross from one CPU's cache
 * to the other's are what the pipe costs: built in place in a shared ring,
 * 448 bytes a record made the model's own stores wait on the consumer's
 * CPU, and copying them over took longer than solving them (bench/README.md,
 * the record pipe). For the same reason the producer packs into a staging
 * buffer of its own and writes a slot a whole line at a time with
 * non-temporal stores, which do not fetch the line from the consumer's CPU
 * first. */
#include "record_pipe.h"

#include "graph_pack.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* A slot holds up to SLOT_RECS records in SLOT_BYTES (about 60 bytes a
 * record packed: a slot is closed early when the next record might not fit
 * in it); the consumer unpacks DEC_RECS at a time into memory of its own
 * and passes them on. A sleeping consumer is woken for WAKE_AT slots (each
 * wake-up buys a stretch of work), a sleeping producer once half the ring
 * is free. */
#define SLOT_BYTES 8192u
#define SLOT_RECS 128u
#define SLOTS 32u
#define DEC_RECS 16u
#define WAKE_AT 4u
#define SPIN 512

struct slot {
  uint32_t n, bytes; /* records and bytes handed over */
  _Alignas(64) uint8_t data[SLOT_BYTES];
};

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
  struct slot *slots;              /* [SLOTS] */
  /* the producer's: the slot it fills (valid while open) and the packing
   * state of the stream */
  _Alignas(64) struct slot *cur;
  int open;
  ic_rec_pack_state pk;
  uint64_t packed_bytes, packed_recs;
  /* records are packed here and leave in whole lines (put_lines) */
  _Alignas(64) uint8_t stage[64 + IC_REC_PACK_MAX + 16];
  uint32_t slen;
  /* the consumer's */
  _Alignas(64) ic_rec_pack_state uk;
  ic_graph_rec *dec;               /* [DEC_RECS] */
  uint64_t shapes[DEC_RECS];       /* their shape ids (graph_pack.h) */
  const ic_edge *edges[DEC_RECS];  /* their edges where not in dec (ic_rec_unpack_lazy) */
  uint64_t tag;                    /* the batch's (ic_rec_unpack_lazy) */
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
    const struct slot *sl = &p->slots[t % SLOTS];
    if (!atomic_load_explicit(&p->failed, memory_order_relaxed)) {
      ic_status s = IC_OK;
      size_t at = 0;
      for (uint32_t done = 0; done < sl->n && s == IC_OK;) {
        uint32_t k = 0;
        const int lazy = p->down.consume_shaped != NULL;
        p->tag++;
        for (; k < DEC_RECS && done + k < sl->n; k++) {
          const size_t used = lazy ? ic_rec_unpack_lazy(&p->uk, sl->data + at, sl->bytes - at, &p->dec[k],
                                                        &p->edges[k], p->tag)
                                   : ic_rec_unpack(&p->uk, sl->data + at, sl->bytes - at, &p->dec[k]);
          if (used == IC_REC_UNPACK_AGAIN) break; /* after this batch (k > 0: see graph_pack.h) */
          if (!used) {
            s = ic_fail(&p->err, IC_ERUN, "record pipe: a packed record past its slot's end");
            break;
          }
          at += used;
          p->shapes[k] = p->uk.shape;
        }
        if (s == IC_OK)
          s = lazy ? p->down.consume_shaped(p->down.ctx, p->dec, p->shapes, p->edges, k, &p->err)
                   : p->down.consume(p->down.ctx, p->dec, k, &p->err);
        done += k;
      }
      if (s != IC_OK) {
        p->status = s;
        atomic_store(&p->failed, 1);
      }
    }
    atomic_store(&p->tail, ++t);
    if (atomic_load(&p->psleep) && t >= atomic_load(&p->pwant)) signal_other(p);
  }
}

/* Copies whole lines (bytes a multiple of 64, dst 64-aligned) into a slot
 * with non-temporal stores: the slot's lines were last read on the
 * consumer's CPU, and ordinary stores would first fetch each of them back. */
static void put_lines(uint8_t *dst, const uint8_t *src, uint32_t bytes) {
#if defined(__SSE2__)
  for (uint32_t o = 0; o < bytes; o += 16)
    _mm_stream_si128((__m128i *)(void *)(dst + o), _mm_load_si128((const __m128i *)(const void *)(src + o)));
#else
  memcpy(dst, src, bytes);
#endif
}

/* Hands the open slot over. */
static void publish(ic_record_pipe *p) {
  if (!p->open) return;
  memcpy(p->cur->data + p->cur->bytes, p->stage, p->slen);
  p->cur->bytes += p->slen;
  p->slen = 0;
#if defined(__SSE2__)
  _mm_sfence(); /* the streamed lines before the slot is handed over */
#endif
  p->open = 0;
  atomic_store(&p->head, atomic_load_explicit(&p->head, memory_order_relaxed) + 1);
  wake_consumer(p, 0);
}

static ic_status pipe_consume(void *ctx, const ic_graph_rec *recs, size_t n, ic_err *err) {
  ic_record_pipe *p = ctx;
  if (atomic_load(&p->failed)) return ic_fail(err, p->status, "%s", p->err.msg);
  for (size_t i = 0; i < n; i++) {
    if (!p->open) {
      const uint64_t h = atomic_load_explicit(&p->head, memory_order_relaxed);
      if (h - atomic_load(&p->tail) >= SLOTS) {
        wake_consumer(p, 1);
        wait_tail(p, h - SLOTS / 2);
      }
      p->cur = &p->slots[h % SLOTS];
      p->cur->n = p->cur->bytes = 0;
      p->open = 1;
    }
    struct slot *sl = p->cur;
    if (i + 2 < n) ic_rec_pack_prefetch(&p->pk, recs[i + 2].pc, recs[i + 2].nedges);
    const size_t b = ic_rec_pack(&p->pk, &recs[i], p->stage + p->slen);
    p->slen += (uint32_t)b;
    const uint32_t lines = p->slen & ~63u;
    if (lines) {
      put_lines(sl->data + sl->bytes, p->stage, lines);
      sl->bytes += lines;
      p->slen -= lines;
      memcpy(p->stage, p->stage + lines, p->slen); /* the rest, under 64 bytes, to the front */
    }
    sl->n++;
    p->packed_bytes += b;
    p->packed_recs++;
    if (sl->n == SLOT_RECS || SLOT_BYTES - sl->bytes - p->slen < IC_REC_PACK_MAX) publish(p);
  }
  return IC_OK;
}

ic_graph_sink ic_record_pipe_sink(ic_record_pipe *p) {
  return (ic_graph_sink){.ctx = p, .consume = pipe_consume};
}

double ic_record_pipe_bytes_per_record(const ic_record_pipe *p) {
  return p->packed_recs ? (double)p->packed_bytes / (double)p->packed_recs : 0.0;
}

ic_status ic_record_pipe_finish(ic_record_pipe *p, ic_err *err) {
  publish(p);
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
  int pki = ic_rec_pack_init(&p->pk), uki = ic_rec_pack_init(&p->uk);
  p->slots = aligned_alloc(64, (size_t)SLOTS * sizeof *p->slots);
  p->dec = calloc(DEC_RECS, sizeof *p->dec);
  int mi = 0, ci = 0;
  if (pki == 0 && uki == 0 && p->slots && p->dec && (mi = pthread_mutex_init(&p->m, NULL) == 0) &&
      (ci = pthread_cond_init(&p->cv, NULL) == 0) && pthread_create(&p->th, NULL, consumer, p) == 0) {
    *out = p;
    return IC_OK;
  }
  if (ci) pthread_cond_destroy(&p->cv);
  if (mi) pthread_mutex_destroy(&p->m);
  free(p->slots);
  free(p->dec);
  ic_rec_pack_free(&p->pk);
  ic_rec_pack_free(&p->uk);
  free(p);
  return ic_fail(err, IC_ERUN, "cannot start the record pipe's thread");
}

void ic_record_pipe_destroy(ic_record_pipe *p) {
  if (!p) return;
  publish(p);
  pthread_mutex_lock(&p->m);
  atomic_store(&p->stop, 1);
  pthread_cond_broadcast(&p->cv);
  pthread_mutex_unlock(&p->m);
  pthread_join(p->th, NULL);
  pthread_cond_destroy(&p->cv);
  pthread_mutex_destroy(&p->m);
  free(p->slots);
  free(p->dec);
  ic_rec_pack_free(&p->pk);
  ic_rec_pack_free(&p->uk);
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
