/* trace_run.c: runs on a trace file (see trace_run.h). */
#include "trace_run.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "champsim.h"
#include "host.h"
#include "trace.h"

typedef struct cli_trace {
  ic_trace *t;             /* an icost trace, or */
  ic_champsim_image *csim; /* a ChampSim trace's image */
  const char *path;
  char *tmp; /* a temporary trace of a host program, deleted at the end */
  ic_host *host; /* a host program streamed live (t is then its image only) */
  int live_used; /* the live stream was timed: it cannot be replayed */
} cli_trace;

ic_status cli_trace_setup(const cli_run_opts *o, cli_run *r, ic_err *err) {
  if (!o->trace) return ic_fail(err, IC_EINPUT, "--trace-format needs --trace FILE");
  if (o->prog_argc || o->workload)
    return ic_fail(err, IC_EINPUT, "--trace %s: give a trace or a program (-- PROGRAM, --workload), not both",
                   o->trace);
  int champsim = ic_champsim_is_name(o->trace);
  if (o->trace_format) {
    if (strcmp(o->trace_format, "champsim") == 0) champsim = 1;
    else if (strcmp(o->trace_format, "icost") == 0) champsim = 0;
    else return ic_fail(err, IC_EINPUT, "--trace-format '%s': expected icost or champsim", o->trace_format);
  }
  cli_trace *ct = calloc(1, sizeof *ct);
  if (!ct) return ic_fail(err, IC_ERUN, "out of memory");
  r->trace = ct;
  ct->path = o->trace;
  uint64_t n = 0;
  ic_status st = champsim ? ic_champsim_image_build(&ct->csim, o->trace, &n, err)
                          : ic_trace_open(&ct->t, o->trace, err);
  if (st) return st;
  char *argv[2] = {(char *)o->trace, NULL};
  if ((st = cli_workload_resolve(&r->workload, NULL, 1, argv, err))) return st;
  if (ct->t) n = ic_trace_count(ct->t);
  r->warm = o->warm < o->skip ? o->warm : o->skip;
  r->max = o->max;
  r->guest_output = o->guest_output;
  const uint64_t fast = o->skip - r->warm;
  if (fast > n)
    return ic_fail(err, IC_EINPUT, "%s: the trace ends after %llu instructions, within --skip %llu",
                   r->workload.name, (unsigned long long)n, (unsigned long long)o->skip);
  r->skipped = fast;
  return IC_OK;
}

int cli_trace_micro_ops(const cli_run *r) {
  const cli_trace *ct = r->trace;
  return ct && ct->t && ic_trace_isa(ct->t) == IC_ISA_X86_64;
}

int cli_trace_host_program(const cli_run *r) {
  const cli_trace *ct = r->trace;
  return ct && (ct->tmp || ct->host);
}

static int host_code(void *ctx, uint64_t addr, const uint8_t *bytes, size_t len);
static int image_code(void *ctx, uint64_t addr, const uint8_t *bytes, size_t len);

/* The run of a host program streamed live: the model takes the records as
   qemu makes them; at the end the code qemu translated becomes the run's
   image and qemu's verdict (a failure, the exit status) is read. */
static ic_status live_execute(const cli_run *r, ic_catmask ideal, const ic_graph_sink *sink,
                              cli_run_progress_fn progress, void *pctx, ooo_stats *stats,
                              ic_err *err) {
  cli_trace *ct = r->trace;
  if (ct->live_used) /* a command that needs the stream twice must not ask for it live */
    return ic_fail(err, IC_ERUN, "%s: a live run cannot be timed twice", r->workload.name);
  ct->live_used = 1;
  ooo_core *core = NULL;
  ic_status st = cli_core_run(r, ideal, sink, progress, pctx, ic_host_source(ct->host), &core, err);
  if (st) goto out;
  void *ctx[2] = {ct->t, err};
  err->msg[0] = 0;
  if (ic_host_code(ct->host, image_code, ctx)) {
    st = err->msg[0] ? IC_ERUN : ic_fail(err, IC_ERUN, "out of memory");
    goto out;
  }
  int exited = 0, code = 0;
  if ((st = ic_host_finish(ct->host, &exited, &code, err))) goto out;
  st = cli_core_finish(r, core, exited, code, stats, err);
out:
  ooo_destroy(core);
  return st;
}

ic_status cli_trace_execute(const cli_run *r, ic_catmask ideal, const ic_graph_sink *sink,
                            cli_run_progress_fn progress, void *pctx, ooo_stats *stats,
                            ic_err *err) {
  const cli_trace *ct = r->trace;
  if (ct->host) return live_execute(r, ideal, sink, progress, pctx, stats, err);
  ic_trace_cursor *c = NULL;
  ic_champsim_reader *cs = NULL;
  ooo_core *core = NULL;
  ic_status st;
  ic_inst_source src;
  if (ct->t) {
    if ((st = ic_trace_cursor_open(&c, ct->t, r->skipped, err))) return st;
    src = ic_trace_cursor_source(c);
  } else {
    if ((st = ic_champsim_open(&cs, ct->path, err))) return st;
    if (ic_champsim_skip(cs, r->skipped) < r->skipped && !ic_champsim_error(cs, err))
      st = ic_fail(err, IC_EINPUT, "%s: shorter than when it was opened (file changed?)", ct->path);
    if (st || (st = ic_champsim_error(cs, err))) goto out;
    src = ic_champsim_source(cs);
  }
  if ((st = cli_core_run(r, ideal, sink, progress, pctx, src, &core, err))) goto out;
  if ((st = c ? ic_trace_cursor_error(c, err) : ic_champsim_error(cs, err))) goto out;
  int code = 0;
  if (ct->t && ic_trace_end(ct->t, &code) == IC_TRACE_END_EXIT && code != 0 &&
      !atomic_exchange((_Atomic int *)&r->exit_noted, 1))
    fprintf(stderr, "icost: warning: %s: the recorded program exited with status %d (the numbers "
                    "are of that run)\n", r->workload.name, code);
  st = cli_core_finish(r, core, 0, 0, stats, err); /* its exit noted above, as recorded */
out:
  ooo_destroy(core);
  ic_trace_cursor_close(c);
  ic_champsim_close(cs);
  return st;
}

ic_program_image cli_trace_image(const cli_run *r) {
  const cli_trace *ct = r->trace;
  return ct->t ? ic_trace_image(ct->t) : ic_champsim_image_get(ct->csim);
}

void cli_trace_free(cli_run *r) {
  cli_trace *ct = r->trace;
  if (!ct) return;
  ic_host_destroy(ct->host);
  ic_trace_close(ct->t);
  ic_champsim_image_destroy(ct->csim);
  if (ct->tmp) unlink(ct->tmp);
  free(ct->tmp);
  free(ct);
  r->trace = NULL;
}

static int host_code(void *ctx, uint64_t addr, const uint8_t *bytes, size_t len) {
  void **c = ctx;
  return ic_trace_write_code(c[0], addr, bytes, len, c[1]) != IC_OK;
}

static int image_code(void *ctx, uint64_t addr, const uint8_t *bytes, size_t len) {
  void **c = ctx;
  return ic_trace_image_add(c[0], addr, bytes, len, c[1]) != IC_OK;
}

ic_status cli_record_host(const char *out, int argc, char **argv, uint32_t isa, uint64_t skip,
                          uint64_t max, int guest_output, uint64_t seed, uint64_t *n,
                          ic_err *err) {
  *n = 0;
  ic_host *h = NULL;
  ic_trace_writer *w = NULL;
  ic_inst *buf = NULL;
  ic_host_opts ho = {guest_output, seed};
  ic_status st = ic_host_start(&h, argv[0], argc, argv, isa, &ho, err);
  if (st) return st;
  int exited = 0, code = 0;
  uint64_t skipped = skip ? ic_host_skip(h, skip) : 0;
  if (skipped < skip) {
    if ((st = ic_host_finish(h, &exited, &code, err))) goto out;
    st = ic_fail(err, IC_EINPUT, "%s: the program ended after %llu instructions, within --skip %llu",
                 argv[0], (unsigned long long)skipped, (unsigned long long)skip);
    goto out;
  }
  if ((st = ic_trace_writer_open(&w, out, isa, err))) goto out;
  enum { BATCH = 4096 };
  if (!(buf = malloc(BATCH * sizeof *buf))) {
    st = ic_fail(err, IC_ERUN, "out of memory");
    goto out;
  }
  ic_inst_source src = ic_host_source(h);
  const uint64_t stop = max ? skip + max : UINT64_MAX;
  size_t got;
  /* whole instructions: stop at the first record of the one past --max */
  while (ic_host_instructions(h) < stop && (got = src.fill(src.ctx, buf, BATCH)) > 0)
    if ((st = ic_trace_write(w, buf, got, err))) goto out;
  *n = ic_host_instructions(h) - skipped;
  void *ctx[2] = {w, err};
  if (ic_host_code(h, host_code, ctx)) {
    st = IC_ERUN;
    goto out;
  }
  if ((st = ic_host_finish(h, &exited, &code, err))) goto out;
  if (!*n) {
    st = ic_fail(err, IC_EINPUT, "%s: no instructions to record after --skip", argv[0]);
    goto out;
  }
  st = ic_trace_writer_close(w, exited ? IC_TRACE_END_EXIT : IC_TRACE_END_MAX, code, argv[0], err);
  w = NULL;
out:
  ic_trace_writer_abort(w);
  ic_host_destroy(h);
  free(buf);
  return st;
}

/* A host program for a command that times it once: qemu starts now, the
   records before the warming part are read and dropped here (records, as
   --skip counts in the recorded trace the other commands replay), and
   cli_trace_execute times the rest as it comes. */
static ic_status live_setup(const cli_run_opts *o, cli_run *r, cli_trace *ct, uint32_t isa,
                            ic_err *err) {
  ic_status st = ic_trace_image_create(&ct->t, isa, r->workload.name, err);
  if (st) return st;
  ic_host_opts ho = {o->guest_output, o->seed};
  if ((st = ic_host_start(&ct->host, r->workload.argv[0], r->workload.argc, r->workload.argv, isa,
                          &ho, err)))
    return st;
  r->warm = o->warm < o->skip ? o->warm : o->skip;
  r->max = o->max;
  r->guest_output = o->guest_output;
  const uint64_t fast = o->skip - r->warm;
  ic_inst_source src = ic_host_source(ct->host);
  ic_inst buf[256];
  uint64_t dropped = 0;
  size_t got = 1;
  while (dropped < fast && got) {
    got = src.fill(src.ctx, buf, fast - dropped < 256 ? (size_t)(fast - dropped) : 256);
    dropped += got;
  }
  if (dropped < fast) {
    int exited = 0, code = 0;
    if ((st = ic_host_finish(ct->host, &exited, &code, err))) return st;
    return ic_fail(err, IC_EINPUT, "%s: the program ended after %llu instructions, within --skip %llu",
                   r->workload.name, (unsigned long long)dropped, (unsigned long long)o->skip);
  }
  r->skipped = fast;
  return IC_OK;
}

ic_status cli_host_setup(const cli_run_opts *o, cli_run *r, uint32_t isa, ic_err *err) {
  cli_trace *ct = calloc(1, sizeof *ct);
  if (!ct) return ic_fail(err, IC_ERUN, "out of memory");
  r->trace = ct;
  if (o->once) return live_setup(o, r, ct, isa, err);
  const char *dir = getenv("TMPDIR");
  size_t l = strlen(dir && *dir ? dir : "/tmp") + 40;
  if (!(ct->tmp = malloc(l))) return ic_fail(err, IC_ERUN, "out of memory");
  snprintf(ct->tmp, l, "%s/icost-host-XXXXXX", dir && *dir ? dir : "/tmp");
  int fd = mkstemp(ct->tmp);
  if (fd < 0) {
    free(ct->tmp);
    ct->tmp = NULL;
    return ic_fail(err, IC_ERUN, "cannot create a temporary trace: %s", strerror(errno));
  }
  close(fd);
  ct->path = ct->tmp;
  uint64_t n = 0;
  ic_status st = cli_record_host(ct->tmp, r->workload.argc, r->workload.argv, isa, 0,
                                 o->max ? o->skip + o->max : 0, o->guest_output, o->seed, &n,
                                 err);
  if (st) return st;
  if ((st = ic_trace_open(&ct->t, ct->tmp, err))) return st;
  r->warm = o->warm < o->skip ? o->warm : o->skip;
  r->max = o->max;
  r->guest_output = o->guest_output;
  const uint64_t fast = o->skip - r->warm;
  if (fast > ic_trace_count(ct->t))
    return ic_fail(err, IC_EINPUT, "%s: the program ended after %llu instructions, within --skip %llu",
                   r->workload.name, (unsigned long long)ic_trace_count(ct->t),
                   (unsigned long long)o->skip);
  r->skipped = fast;
  return IC_OK;
}
