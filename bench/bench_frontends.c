/* bench_frontends.c: one frontend alone, its instruction stream drained
 * into a buffer and dropped, for bench/bench_frontends.sh.
 *
 *   bench_frontends [--max N] rv64 -- PROGRAM ARGS   icost's RV64 emulator
 *   bench_frontends [--max N] host -- PROGRAM ARGS   qemu-user + plugin + Capstone
 *   bench_frontends [--max N] trace FILE             an icost trace file
 *   bench_frontends [--max N] champsim FILE          a ChampSim trace
 *
 * Prints one line: "records R cpu_s C wall_s W", R the ic_inst records
 * read (at most N: the first batch past it is counted whole), C the CPU
 * seconds (user + system) of this process and of the children it waited
 * for (qemu), W the wall seconds. The records go through the same
 * ic_inst_source the timing model pulls, in batches of 4096 as the model
 * asks for them; nothing else runs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "champsim.h"
#include "host.h"
#include "rv.h"
#include "trace.h"

static double cpu_seconds(void) {
  struct rusage self, kids;
  getrusage(RUSAGE_SELF, &self);
  getrusage(RUSAGE_CHILDREN, &kids);
  const struct timeval t[4] = {self.ru_utime, self.ru_stime, kids.ru_utime, kids.ru_stime};
  double s = 0;
  for (int k = 0; k < 4; k++) s += (double)t[k].tv_sec + (double)t[k].tv_usec * 1e-6;
  return s;
}

static double wall_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t drain(ic_inst_source src, uint64_t max) {
  enum { BATCH = 4096 };
  static ic_inst buf[BATCH];
  uint64_t n = 0;
  size_t got;
  while (n < max && (got = src.fill(src.ctx, buf, BATCH)) > 0) n += got;
  return n;
}

static int usage(void) {
  fputs("usage: bench_frontends [--max N] rv64|host -- PROGRAM ARGS\n"
        "       bench_frontends [--max N] trace|champsim FILE\n", stderr);
  return 2;
}

int main(int argc, char **argv) {
  uint64_t max = UINT64_MAX;
  int i = 1;
  if (i + 1 < argc && strcmp(argv[i], "--max") == 0) {
    max = strtoull(argv[i + 1], NULL, 10);
    i += 2;
  }
  if (i + 1 >= argc) return usage();
  const char *mode = argv[i++];
  const int prog = !strcmp(mode, "rv64") || !strcmp(mode, "host");
  if (prog && (strcmp(argv[i], "--") != 0 || ++i >= argc)) return usage();
  ic_err err;
  ic_status st = IC_OK;
  uint64_t n = 0;
  const double c0 = cpu_seconds(), w0 = wall_seconds();
  if (!strcmp(mode, "rv64")) {
    rv_options o;
    rv_options_default(&o);
    FILE *nul = fopen("/dev/null", "r+");
    if (!nul) return 1;
    o.stdin_fd = o.stdout_fd = o.stderr_fd = fileno(nul);
    rv_proc *p = NULL;
    if ((st = rv_proc_load(&p, argv[i], argc - i, argv + i, &o, &err)) == IC_OK)
      n = drain(rv_proc_source(p), max);
    rv_proc_destroy(p);
    fclose(nul);
  } else if (!strcmp(mode, "host")) {
    const uint32_t isa = ic_host_elf_isa(argv[i], NULL);
    ic_host_opts o = {0, 0};
    ic_host *h = NULL;
    if ((st = ic_host_start(&h, argv[i], argc - i, argv + i, isa, &o, &err)) == IC_OK) {
      n = drain(ic_host_source(h), max);
      int exited, code;
      st = ic_host_finish(h, &exited, &code, &err);
    }
    ic_host_destroy(h);
  } else if (!strcmp(mode, "trace")) {
    ic_trace *t = NULL;
    ic_trace_cursor *c = NULL;
    if ((st = ic_trace_open(&t, argv[i], &err)) == IC_OK &&
        (st = ic_trace_cursor_open(&c, t, 0, &err)) == IC_OK) {
      n = drain(ic_trace_cursor_source(c), max);
      st = ic_trace_cursor_error(c, &err);
    }
    ic_trace_cursor_close(c);
    ic_trace_close(t);
  } else if (!strcmp(mode, "champsim")) {
    ic_champsim_reader *r = NULL;
    if ((st = ic_champsim_open(&r, argv[i], &err)) == IC_OK) {
      n = drain(ic_champsim_source(r), max);
      st = ic_champsim_error(r, &err);
    }
    ic_champsim_close(r);
  } else {
    return usage();
  }
  if (st != IC_OK) {
    fprintf(stderr, "bench_frontends: %s\n", err.msg);
    return 1;
  }
  printf("records %llu cpu_s %.3f wall_s %.3f\n", (unsigned long long)n, cpu_seconds() - c0,
         wall_seconds() - w0);
  return 0;
}
