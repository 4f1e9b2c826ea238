/* cmd_record.c: `icost record`, write a program's instruction stream to a
 * trace file that every command then reads with --trace FILE. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "champsim.h"
#include "host.h"
#include "run.h"
#include "rv.h"
#include "trace.h"
#include "trace_run.h"

static void record_usage(FILE *f) {
  fputs(
      "usage: icost record [--format icost|champsim] -o FILE [--skip N] [--max N]\n"
      "                    [--seed S] [--guest-output] -- PROGRAM ARGS\n"
      "\n"
      "Runs PROGRAM (a static RV64GC Linux executable on icost's emulator, or an\n"
      "x86-64 or AArch64 Linux program under qemu-user with icost's plugin) and\n"
      "writes the instruction stream it commits (x86: micro-ops) to FILE, which\n"
      "every command reads instead of a program\n"
      "with --trace FILE: `icost --trace FILE`, `icost validate --trace FILE`, ...\n"
      "A trace replays the same stream on every run, so multisim's subsets and\n"
      "repeated commands see one execution.\n"
      "\n"
      "  -o, --output FILE  the trace to write (written completely or not at all)\n"
      "  --format F       the trace file's format (record writes no report, so not\n"
      "                   text, csv, yaml or json as elsewhere): icost (default):\n"
      "                   every field of every record (pc, size,\n"
      "                   next pc, op class, registers, memory address and size)\n"
      "                   and the program image the profiler's stitcher needs,\n"
      "                   zstd-compressed in checksummed blocks (frontends/trace/\n"
      "                   trace.h). champsim: ChampSim's 64-byte input_instr\n"
      "                   records, xz-compressed when FILE ends in .xz, gzip in\n"
      "                   .gz, else raw; no op class, access size or image (see\n"
      "                   `icost --help`, ChampSim traces)\n"
      "  --skip N         fast-forward N instructions first (not recorded)\n"
      "  --max N          record at most N instructions (default: to the end); for\n"
      "                   x86-64 and AArch64 programs N counts instructions, not\n"
      "                   micro-ops, and the image holds only the executed code\n"
      "  --seed S         guest seed (AT_RANDOM, getrandom)\n"
      "  --guest-output   let the program write to icost's stdout/stderr\n"
      "\n"
      "A program that faults is an error (exit 1) and leaves no FILE. On success\n"
      "one line on stderr gives the instructions, the bytes and bytes per\n"
      "instruction, and the recording speed.\n",
      f);
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct rec_opts {
  const char *out, *format;
} rec_opts;

static const struct option rec_options[] = {
    {"output", required_argument, NULL, 'o'},
    {"format", required_argument, NULL, CLI_OPT_OWN},
    {NULL, 0, NULL, 0},
};

static int rec_option(void *ctx, int id, const char *name, const char *v, ic_err *err) {
  rec_opts *ro = ctx;
  (void)name, (void)err;
  *(id == 'o' ? &ro->out : &ro->format) = v;
  return 0;
}

static int code_page(void *ctx, uint64_t addr, const uint8_t *page) {
  ic_err *err = ((void **)ctx)[1];
  return ic_trace_write_code(((void **)ctx)[0], addr, page, 4096, err) != IC_OK;
}

int cmd_record(int argc, char **argv) {
  cli_run_opts o;
  rec_opts ro = {0};
  ic_err err;
  ic_status st = cli_run_parse(argc, argv, &o, rec_options, rec_option, &ro, &err);
  if (st) return cli_fail_err(st, &err);
  if (o.help) {
    record_usage(stdout);
    return 0;
  }
  if (!ro.out) return cli_fail(2, "record: no output file (-o FILE)");
  if (!o.prog_argc) return cli_fail(2, "record: no program (-- PROGRAM ARGS)");
  if (o.trace || o.workload || o.config_path || o.nsets)
    return cli_fail(2, "record: takes a program only (no --trace, --workload, --config, --set)");
  int champsim = 0;
  if (ro.format) {
    if (strcmp(ro.format, "champsim") == 0) champsim = 1;
    else if (strcmp(ro.format, "icost") != 0)
      return cli_fail(2, "record: --format '%s': expected icost or champsim (the trace's format; record "
                      "writes no report)", ro.format);
  }
  const char *prog = o.prog_argv[0];
  uint32_t isa = ic_host_elf_isa(prog, NULL);
  if (isa == IC_ISA_X86_64 || isa == IC_ISA_AARCH64) {
    if (champsim) return cli_fail(2, "record: --format champsim is for RV64 programs");
    double h0 = now_s();
    uint64_t n = 0;
    st = cli_record_host(ro.out, o.prog_argc, o.prog_argv, isa, o.skip, o.max, o.guest_output,
                         o.seed, &n, &err);
    if (st) return cli_fail_err(st, &err);
    struct stat hb;
    double hs = now_s() - h0, bytes = stat(ro.out, &hb) == 0 ? (double)hb.st_size : 0;
    fprintf(stderr,
            "icost: record: %llu instructions through %s to %s: %.0f bytes (%.2f bytes per "
            "instruction), %.2f M instructions/s\n",
            (unsigned long long)n, isa == IC_ISA_X86_64 ? "qemu-x86_64" : "qemu-aarch64", ro.out,
            bytes, bytes / (double)n, hs > 0 ? (double)n / hs / 1e6 : 0.0);
    return 0;
  }
  rv_options opt;
  rv_options_default(&opt);
  opt.seed = o.seed;
  int null_fd = -1;
  if (!o.guest_output) {
    null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null_fd < 0) return cli_fail(1, "/dev/null: cannot open");
    opt.stdin_fd = opt.stdout_fd = opt.stderr_fd = null_fd;
  }
  rv_proc *p = NULL;
  ic_trace_writer *w = NULL;
  ic_champsim_writer *cw = NULL;
  ic_inst *buf = NULL;
  double t0 = now_s();
  if ((st = cli_guest_load(&p, o.prog_argc, o.prog_argv, &opt, &err))) goto out;
  uint64_t skipped = o.skip ? rv_proc_skip(p, o.skip) : 0;
  const char *why = "";
  if (rv_proc_state(p, NULL, &why) == RV_FAULT) {
    st = ic_fail(&err, IC_ERUN, "%s: %s", prog, why);
    goto out;
  }
  if (skipped < o.skip) {
    st = ic_fail(&err, IC_EINPUT, "%s: the program ended after %llu instructions, within --skip %llu",
                 prog, (unsigned long long)skipped, (unsigned long long)o.skip);
    goto out;
  }
  if (champsim) {
    if ((st = ic_champsim_writer_open(&cw, ro.out, &err))) goto out;
  } else {
    if ((st = ic_trace_writer_open(&w, ro.out, IC_ISA_RV64, &err))) goto out;
    void *ctx[2] = {w, &err};
    if (rv_proc_code_pages(p, code_page, ctx)) {
      st = IC_ERUN;
      goto out;
    }
    const uint64_t *ptrs;
    size_t np = rv_proc_code_pointers(p, &ptrs);
    if ((st = ic_trace_write_code_pointers(w, ptrs, np, &err))) goto out;
  }
  enum { BATCH = 4096 };
  buf = malloc(BATCH * sizeof *buf);
  if (!buf) {
    st = ic_fail(&err, IC_ERUN, "out of memory");
    goto out;
  }
  ic_inst_source src = rv_proc_source(p);
  const uint64_t max = o.max ? o.max : UINT64_MAX;
  uint64_t n = 0;
  while (n < max) {
    size_t want = max - n < BATCH ? (size_t)(max - n) : BATCH;
    size_t got = src.fill(src.ctx, buf, want);
    if (!got) break;
    st = champsim ? ic_champsim_write(cw, buf, got, &err) : ic_trace_write(w, buf, got, &err);
    if (st) goto out;
    n += got;
  }
  int code = 0;
  rv_state ps = rv_proc_state(p, &code, &why);
  if (ps == RV_FAULT) {
    st = ic_fail(&err, IC_ERUN, "%s: %s", prog, why);
    goto out;
  }
  if (n == 0) {
    st = ic_fail(&err, IC_EINPUT, "%s: no instructions to record after --skip", prog);
    goto out;
  }
  int end = ps == RV_EXITED ? IC_TRACE_END_EXIT : IC_TRACE_END_MAX;
  uint64_t bytes = 0;
  if (champsim) {
    st = ic_champsim_writer_close(cw, &err);
    cw = NULL;
  } else {
    bytes = ic_trace_writer_bytes(w);
    st = ic_trace_writer_close(w, end, code, prog, &err);
    w = NULL;
  }
  if (st) goto out;
  struct stat sb;
  if (stat(ro.out, &sb) == 0) bytes = (uint64_t)sb.st_size;
  double secs = now_s() - t0;
  fprintf(stderr,
          "icost: record: %llu instructions%s to %s: %llu bytes (%.2f bytes per instruction), "
          "%.1f M instructions/s\n",
          (unsigned long long)n, end == IC_TRACE_END_EXIT ? " (to the program's exit)" : "", ro.out,
          (unsigned long long)bytes, (double)bytes / (double)n,
          secs > 0 ? (double)n / secs / 1e6 : 0.0);
  if (end == IC_TRACE_END_EXIT && code != 0)
    fprintf(stderr, "icost: warning: %s exited with status %d\n", prog, code);
out:
  ic_trace_writer_abort(w);
  ic_champsim_writer_abort(cw);
  free(buf);
  rv_proc_destroy(p);
  if (null_fd >= 0) close(null_fd);
  if (st) return cli_fail_err(st, &err);
  return 0;
}
