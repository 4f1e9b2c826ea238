/* cmd_emu.c: `icost emu`, run a RISC-V program functionally, like
 * qemu-riscv64: the guest's stdin/stdout/stderr are icost's, and its exit
 * code becomes icost's. Also the place to measure the emulator's speed
 * (--stats, --records) and to dump the executed pc sequence (--trace-pc). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "ic_file.h"
#include "run.h"
#include "rv.h"

static void emu_usage(FILE *f) {
  fputs(
      "usage: icost emu [options] -- PROGRAM [ARGS]\n"
      "\n"
      "Runs the static RV64GC Linux executable PROGRAM on icost's emulator with\n"
      "icost's stdin, stdout and stderr; exits with the program's exit code.\n"
      "A guest fault prints `icost: PROGRAM: fault at pc 0x...: <reason> (bytes ..)`\n"
      "and exits 128 + the signal Linux would send, as a shell shows a killed\n"
      "process and as qemu-riscv64 exits: 139 (SIGSEGV) for a bad address, 132\n"
      "(SIGILL) for an illegal instruction, 133 (SIGTRAP) for ebreak, 135 (SIGBUS)\n"
      "for a misaligned atomic, 137 (SIGKILL) when the host has no memory left for\n"
      "the guest; a program killed by a signal it sent itself (abort) exits\n"
      "128+signal silently. A system call icost does not implement returns -ENOSYS\n"
      "and the program goes on, as under qemu-riscv64; the calls are listed once\n"
      "on stderr at the end. fork, clone (threads) and execve are among them: they\n"
      "fail in the guest, and the list says why. A file that is not a loadable\n"
      "executable exits 2.\n"
      "\n"
      GUEST_ENV_HELP
      "\n"
      "options:\n"
      "  --stats          print on stderr: instructions executed (retired guest\n"
      "                   instructions, the exiting ecall included), host wall\n"
      "                   seconds and host CPU seconds (user+system) of the run,\n"
      "                   and MIPS = instructions / CPU seconds / 1e6 (CPU time,\n"
      "                   so that a busy machine does not distort it)\n"
      "  --skip N         execute the first N instructions without tracing or\n"
      "                   records (fast-forward), then continue normally\n"
      "  --max N          stop after N instructions in total (said on stderr;\n"
      "                   exit code 0; absent: to the end, 0 is refused)\n"
      "  --seed S         seed of the guest's randomness (AT_RANDOM, getrandom);\n"
      "                   default 0. Time is virtual: 1 instruction = 1 ns\n"
      "  --trace-pc FILE  write the pc of every executed instruction after the\n"
      "                   skipped ones to FILE, one per line, as 16 lowercase hex\n"
      "                   digits without 0x. This is the second field of each\n"
      "                   `Trace 0: 0x... [xxxxxxxx/PC/...]` line printed by\n"
      "                   `qemu-riscv64 -singlestep -d exec,nochain`, so the two\n"
      "                   sequences can be compared line by line (qemu prints a\n"
      "                   line per executed translation block = one instruction\n"
      "                   with -singlestep)\n"
      "  --guest-memory N bytes the guest may map (suffix K, M, G: KiB, MiB, GiB;\n"
      "                   default 4G, what sysinfo reports); past it mmap and brk\n"
      "                   fail with ENOMEM, as past a real machine's memory\n"
      "  --guest-root DIR the guest's path lookups stay inside DIR: absolute paths\n"
      "                   start there, it is the working directory, and \"..\" and\n"
      "                   symlinks cannot leave it (PROGRAM itself is a host path)\n"
      "  --records        produce the timing model's per-instruction records and\n"
      "                   discard them (to measure the record-producing speed)\n"
      "  -h, --help       this text\n"
      "Counts (N, S) may end in k, M or G: 10^3, 10^6, 10^9 (`1M` = 1000000); sizes in\n"
      "bytes (--guest-memory) use K, M, G as KiB, MiB, GiB.\n",
      f);
}

static double now_sec(clockid_t clk) {
  struct timespec ts;
  clock_gettime(clk, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

enum { O_STATS = CLI_OPT_OWN, O_RECORDS, O_SKIP, O_MAX, O_SEED, O_MEM, O_ROOT, O_TRACE_PC };

static const struct option emu_options[] = {
    {"help", no_argument, NULL, 'h'},
    {"stats", no_argument, NULL, O_STATS},
    {"records", no_argument, NULL, O_RECORDS},
    {"skip", required_argument, NULL, O_SKIP},
    {"max", required_argument, NULL, O_MAX},
    {"seed", required_argument, NULL, O_SEED},
    {"guest-memory", required_argument, NULL, O_MEM},
    {"guest-root", required_argument, NULL, O_ROOT},
    {"trace-pc", required_argument, NULL, O_TRACE_PC},
    {NULL, 0, NULL, 0},
};

typedef struct emu_opts {
  int help, stats, records;
  uint64_t skip, max, seed, mem_limit;
  const char *trace_path, *root;
} emu_opts;

static int emu_option(void *ctx, int id, const char *name, const char *v, ic_err *err) {
  emu_opts *o = ctx;
  uint64_t n;
  switch (id) {
  case 'h': o->help = 1; return 0;
  case O_STATS: o->stats = 1; return 0;
  case O_RECORDS: o->records = 1; return 0;
  case O_ROOT: o->root = v; return 0;
  case O_TRACE_PC: o->trace_path = v; return 0;
  case O_MEM:
    if (cli_parse_bytes(v, &o->mem_limit) == 0) return 0;
    ic_fail(err, IC_EINPUT, "emu: --guest-memory needs a size in bytes (suffix K, M or G)");
    return -1;
  }
  if (cli_parse_count(v, &n) != 0) {
    ic_fail(err, IC_EINPUT, "emu: %s '%s' is not a count (digits, optional k/M/G)", name, v);
    return -1;
  }
  if (id == O_MAX && n == 0) {
    ic_fail(err, IC_EINPUT, "emu: --max 0: give a positive count (leave --max out to run to the end)");
    return -1;
  }
  *(id == O_SKIP ? &o->skip : id == O_MAX ? &o->max : &o->seed) = n;
  return 0;
}

int cmd_emu(int argc, char **argv) {
  emu_opts eo = {.max = UINT64_MAX, .mem_limit = RV_DEFAULT_MEM_LIMIT};
  ic_err err;
  int i;
  /* the first word is the program (as after `--`); its options are its own */
  ic_status st = cli_getopt(argc, argv, emu_options, CLI_WORDS_PROGRAM, emu_option, &eo, &i, &err);
  if (st != IC_OK) return cli_fail_err(st, &err);
  if (eo.help) {
    emu_usage(stdout);
    return 0;
  }
  if (i >= argc) return cli_fail(2, "emu: no program given (see icost emu --help)");
  const int stats = eo.stats, records = eo.records;
  const uint64_t seed = eo.seed, mem_limit = eo.mem_limit, max = eo.max;
  uint64_t skip = eo.skip;
  const char *trace_path = eo.trace_path, *root = eo.root;
  const char *prog = argv[i];

  rv_options opt;
  rv_options_default(&opt);
  opt.seed = seed;
  opt.mem_limit = mem_limit;
  opt.root = root;
  rv_proc *p;
  st = rv_proc_load(&p, prog, argc - i, argv + i, &opt, &err);
  if (st != IC_OK) return cli_fail_err(st, &err);

  FILE *trace = NULL;
  ic_outfile *trace_out = NULL; /* all or nothing: a full disk leaves no truncated trace */
  if (trace_path) {
    if ((st = ic_outfile_open(&trace_out, trace_path, &err)) != IC_OK) {
      rv_proc_destroy(p);
      return cli_fail_err(st, &err);
    }
    trace = ic_outfile_stream(trace_out);
  }

  double t0 = now_sec(CLOCK_MONOTONIC), c0 = now_sec(CLOCK_PROCESS_CPUTIME_ID);
  if (skip > max) skip = max;
  rv_proc_skip(p, skip);
  if (trace || records) {
    enum { BATCH = 4096 };
    static ic_inst buf[BATCH];
    ic_inst_source src = rv_proc_source(p);
    while (rv_proc_icount(p) < max) {
      uint64_t left = max - rv_proc_icount(p);
      size_t k = src.fill(src.ctx, buf, left < BATCH ? (size_t)left : BATCH);
      if (k == 0) break;
      if (trace)
        for (size_t j = 0; j < k; j++) fprintf(trace, "%016llx\n", (unsigned long long)buf[j].pc);
    }
  } else if (max > skip) {
    rv_proc_skip(p, max - skip);
  }
  double secs = now_sec(CLOCK_MONOTONIC) - t0, cpu = now_sec(CLOCK_PROCESS_CPUTIME_ID) - c0;

  int rc = 0;
  if (trace_out && (st = ic_outfile_commit(trace_out, &err)) != IC_OK) rc = cli_fail(1, "%s", err.msg);
  uint64_t n = rv_proc_icount(p);
  int code;
  const char *why;
  rv_state s = rv_proc_state(p, &code, &why);
  char nosys[400];
  if (rv_proc_nosys_summary(p, nosys, sizeof nosys))
    fprintf(stderr, "icost: %s: unsupported system calls, answered -ENOSYS: %s\n", prog, nosys);
  if (s == RV_EXITED) {
    if (!rc) rc = code;
  } else if (s == RV_FAULT) {
    int self, sig = rv_proc_signal(p, &self);
    if (!self) cli_fail(1, "%s: %s", prog, why);
    rc = 128 + sig;
  } else {
    fprintf(stderr, "icost: emu: stopped after %llu instructions (--max)\n", (unsigned long long)n);
  }
  if (stats)
    fprintf(stderr, "instructions: %llu\nseconds: %.3f\ncpu seconds: %.3f\nMIPS: %.1f\n",
            (unsigned long long)n, secs, cpu, cpu > 0 ? (double)n / cpu / 1e6 : 0.0);
  rv_proc_destroy(p);
  return rc;
}
