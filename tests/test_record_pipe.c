/* test_record_pipe.c: the record pipe (engine/record_pipe.h).
 *
 *   - the sink downstream gets every record, in order and field for field
 *     (records of every shape, packed on the way: graph_pack.h), while
 *     either side stalls now and then (the producer then waits for room,
 *     the consumer sleeps);
 *   - a failing downstream stops the producer with its error and message,
 *     and finish returns them;
 *   - with one CPU ic_record_pipe_run hands the run the sink itself;
 *   - a sink with shape ids gets repeats lazily (their edges in the
 *     pipe's table), and each made whole is the record sent. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "graph_pack.h"
#include "rec_same.h"
#include "record_pipe.h"

typedef struct seen {
  uint64_t next;      /* the seq expected next */
  size_t batches;
  uint32_t sizes[4096];
  uint64_t fail_at;   /* fail on the batch holding this seq (UINT64_MAX: never) */
  unsigned rng;
} seen;

static void nap(unsigned us) {
  struct timespec ts = {0, (long)us * 1000};
  nanosleep(&ts, NULL);
}

static ic_status down_consume(void *ctx, const ic_graph_rec *recs, size_t n, ic_err *err) {
  seen *s = ctx;
  for (size_t k = 0; k < n; k++) {
    ic_graph_rec want;
    t_rec_for(s->next, &want);
    if (recs[k].seq == s->next && !t_rec_same(&recs[k], &want))
      return ic_fail(err, IC_ERUN, "record %llu changed on the way", (unsigned long long)s->next);
    if (recs[k].seq != s->next) return ic_fail(err, IC_ERUN, "seq %llu, expected %llu",
                                               (unsigned long long)recs[k].seq, (unsigned long long)s->next);
    if (recs[k].seq >= s->fail_at) return ic_fail(err, IC_EINPUT, "downstream refused seq %llu",
                                                  (unsigned long long)recs[k].seq);
    s->next++;
  }
  if (s->batches < 4096) s->sizes[s->batches] = (uint32_t)n;
  s->batches++;
  if (rand_r(&s->rng) % 64 == 0) nap(200); /* the producer fills the ring */
  return IC_OK;
}

/* Produces n records (t_rec_for) the way the model does: in a batch of its
 * own, handed over in batches of 1..40; returns the first error of consume. */
static ic_status produce(ic_graph_sink sink, uint64_t n, uint32_t *sizes, size_t *nb, ic_err *err) {
  enum { CAP = 40 };
  static _Thread_local ic_graph_rec buf[CAP];
  uint64_t seq = 0;
  unsigned rng = 7;
  *nb = 0;
  while (seq < n) {
    size_t want = 1 + (size_t)(rand_r(&rng) % CAP), k = 0;
    for (; k < want && seq < n; k++) t_rec_for(seq++, &buf[k]);
    if (*nb < 4096) sizes[*nb] = (uint32_t)k;
    ++*nb;
    ic_status st = sink.consume(sink.ctx, buf, k, err);
    if (st != IC_OK) return st;
    if (rand_r(&rng) % 64 == 0) nap(300); /* the consumer runs dry and sleeps */
  }
  return IC_OK;
}

Test(record_pipe, every_record_in_order_and_unchanged) {
  seen s = {.fail_at = UINT64_MAX, .rng = 3};
  ic_record_pipe *p;
  ic_err err;
  cr_assert_eq(ic_record_pipe_create(&p, (ic_graph_sink){.ctx = &s, .consume = down_consume}, &err), IC_OK);
  static uint32_t sizes[4096];
  size_t nb;
  cr_assert_eq(produce(ic_record_pipe_sink(p), 40000, sizes, &nb, &err), IC_OK, "%s", err.msg);
  cr_assert_eq(ic_record_pipe_finish(p, &err), IC_OK, "%s", err.msg);
  cr_assert_eq(s.next, 40000);
  cr_assert_gt(ic_record_pipe_bytes_per_record(p), 0.0);
  /* fed again after finish */
  ic_graph_sink sink = ic_record_pipe_sink(p);
  ic_graph_rec b;
  t_rec_for(40000, &b);
  cr_assert_eq(sink.consume(sink.ctx, &b, 1, &err), IC_OK);
  cr_assert_eq(ic_record_pipe_finish(p, &err), IC_OK);
  cr_assert_eq(s.next, 40001);
  ic_record_pipe_destroy(p);
}

Test(record_pipe, a_failing_sink_stops_the_producer_with_its_error) {
  seen s = {.fail_at = 5000, .rng = 5};
  ic_record_pipe *p;
  ic_err err;
  cr_assert_eq(ic_record_pipe_create(&p, (ic_graph_sink){.ctx = &s, .consume = down_consume}, &err), IC_OK);
  static uint32_t sizes[4096];
  size_t nb;
  ic_status st = produce(ic_record_pipe_sink(p), 1000000, sizes, &nb, &err);
  cr_assert_eq(st, IC_EINPUT);
  cr_assert_str_eq(err.msg, "downstream refused seq 5000");
  ic_err ferr;
  cr_assert_eq(ic_record_pipe_finish(p, &ferr), IC_EINPUT);
  cr_assert_str_eq(ferr.msg, "downstream refused seq 5000");
  cr_assert_eq(s.next, 5000, "nothing passed on after the failure");
  ic_record_pipe_destroy(p);
}

typedef struct direct {
  void *want_ctx;
  int called;
} direct;

static ic_status direct_run(void *ctx, const ic_graph_sink *sink, ic_err *err) {
  (void)err;
  direct *d = ctx;
  d->called = 1;
  cr_assert_eq(sink->ctx, d->want_ctx, "one CPU: the sink itself, no pipe");
  return IC_OK;
}

static ic_status piped_run(void *ctx, const ic_graph_sink *sink, ic_err *err) {
  direct *d = ctx;
  d->called = 1;
  cr_assert_neq(sink->ctx, d->want_ctx, "two CPUs: through a pipe");
  static uint32_t sizes[4096];
  size_t nb;
  return produce(*sink, 1000, sizes, &nb, err);
}

Test(record_pipe, run_goes_through_a_pipe_only_with_a_second_cpu) {
  seen s = {.fail_at = UINT64_MAX, .rng = 9};
  ic_graph_sink down = {.ctx = &s, .consume = down_consume};
  direct d = {&s, 0};
  ic_err err;
  cr_assert_eq(ic_record_pipe_run(down, 1, direct_run, &d, &err), IC_OK);
  cr_assert(d.called);
  d.called = 0;
  cr_assert_eq(ic_record_pipe_run(down, 2, piped_run, &d, &err), IC_OK, "%s", err.msg);
  cr_assert(d.called);
  cr_assert_eq(s.next, 1000, "finished before it returned");
}

/* A shaped sink: checks each record, made whole where it came lazily,
 * against t_rec_rep. */
typedef struct shaped_seen {
  uint64_t next;
  uint64_t lazy;
} shaped_seen;

static ic_status shaped_consume(void *ctx, const ic_graph_rec *recs, const uint64_t *shapes,
                                const ic_edge *const *edges, size_t n, ic_err *err) {
  shaped_seen *s = ctx;
  (void)shapes;
  for (size_t k = 0; k < n; k++, s->next++) {
    ic_graph_rec want, got;
    t_rec_rep(s->next, &want);
    if (edges && edges[k]) {
      ic_rec_whole(&got, &recs[k], edges[k]);
      s->lazy++;
    } else {
      got = recs[k];
    }
    if (!t_rec_same(&got, &want))
      return ic_fail(err, IC_ERUN, "record %llu changed on the way", (unsigned long long)s->next);
  }
  return IC_OK;
}

static ic_status unshaped_consume(void *ctx, const ic_graph_rec *recs, size_t n, ic_err *err) {
  return shaped_consume(ctx, recs, NULL, NULL, n, err);
}

Test(record_pipe, a_shaped_sink_gets_repeats_lazily_and_whole) {
  enum { N = 40000, CAP = 24 };
  shaped_seen s = {0, 0};
  ic_record_pipe *p;
  ic_err err;
  cr_assert_eq(ic_record_pipe_create(&p,
                                     (ic_graph_sink){.ctx = &s, .consume = unshaped_consume,
                                                     .consume_shaped = shaped_consume},
                                     &err),
               IC_OK);
  ic_graph_sink sink = ic_record_pipe_sink(p);
  static ic_graph_rec buf[CAP];
  for (uint64_t seq = 0; seq < N;) {
    size_t k = 0;
    for (; k < CAP && seq < N; k++) t_rec_rep(seq++, &buf[k]);
    cr_assert_eq(sink.consume(sink.ctx, buf, k, &err), IC_OK, "%s", err.msg);
  }
  cr_assert_eq(ic_record_pipe_finish(p, &err), IC_OK, "%s", err.msg);
  cr_assert_eq(s.next, N);
  cr_assert_gt(s.lazy, N / 3);
  ic_record_pipe_destroy(p);
}
