/* record_pipe.h: graph records from the model's thread to a sink on a
 * thread of its own.
 *
 * The model and its graph hook run on the caller's thread; whatever
 * consumes the records (the solver, slack) runs beside it on another CPU,
 * so a graph run takes about the longer of the two instead of their sum.
 * The model builds its records in a batch of its own (in its CPU's cache);
 * the pipe packs them (graph_pack.h) into a ring the consumer thread
 * unpacks them from. The downstream sink sees the same records in the same
 * order as without the pipe (in batches of its own), so every result is
 * the same. */
#ifndef IC_RECORD_PIPE_H
#define IC_RECORD_PIPE_H

#include "graph_rec.h"
#include "ic_err.h"

typedef struct ic_record_pipe ic_record_pipe;

/* Creates a pipe feeding `down` (its consume is called on the pipe's
 * thread, one batch at a time, in order; its buffer is not used).
 * IC_ERUN when memory or the thread cannot be had. */
ic_status ic_record_pipe_create(ic_record_pipe **out, ic_graph_sink down, ic_err *err);

/* Frees the pipe after stopping its thread; batches handed over and not
 * yet consumed are consumed first. NULL is ignored. */
void ic_record_pipe_destroy(ic_record_pipe *p);

/* The sink to give the model (ctx = p): its consume packs the records
 * into the ring (waiting while the consumer is a whole ring behind) for the
 * pipe's thread. After down's consume has
 * failed, consume returns that error (the model then stops) and the
 * records are no longer passed on. Valid while p lives. */
ic_graph_sink ic_record_pipe_sink(ic_record_pipe *p);

/* Waits until every batch handed over has been consumed; then down's
 * results may be read on the caller's thread. Returns down's first error
 * (with its message), else IC_OK. The pipe may be fed again after. */
ic_status ic_record_pipe_finish(ic_record_pipe *p, ic_err *err);

/* Packed bytes per record handed over so far (0 before any): the size of
 * the record stream. */
double ic_record_pipe_bytes_per_record(const ic_record_pipe *p);

/* Whether a graph run with `cpus` CPUs should put its consumer on a pipe:
 * where there is a second CPU for it. */
int ic_record_pipe_worth(int cpus);

/* Runs run(ctx, sink, err) with `down` as its sink, through a pipe where
 * ic_record_pipe_worth(cpus), else directly; returns when down has
 * consumed every record. The run's error comes first, then down's. */
typedef ic_status (*ic_record_run_fn)(void *ctx, const ic_graph_sink *sink, ic_err *err);
ic_status ic_record_pipe_run(ic_graph_sink down, int cpus, ic_record_run_fn run, void *ctx,
                             ic_err *err);

#endif
