/* cmd_profile.c: `icost profile` (run a program on the timing model with the
 * shotgun profiler's sampling hook and write a sample file) and `icost
 * analyze` (stitch a sample file offline and print the breakdown). The
 * pieces are signatures/ (hook, file, database) and engine/stitch.h,
 * engine/profiler.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "breakdown.h"
#include "cli.h"
#include "host.h"
#include "profiler.h"
#include "report.h"
#include "run.h"
#include "rv.h"
#include "trace.h"
#include "trace_run.h"
#include "sig.h"
#include "sig_db.h"
#include "sig_file.h"
#include "solver.h"

static const char profile_help[] =
    "usage: icost profile -o FILE [--sample-interval N] [--signature-interval N]\n"
    "                     [--signatures K] [--fragment-length L] [common options]\n"
    "                     [-- PROGRAM ARGS]\n"
    "\n"
    "Runs PROGRAM on the timing model as if it were hardware with the shotgun\n"
    "profiler's sampling hooks (paper Section 5.4) and writes the samples to FILE\n"
    "(complete or not at all: a file without a name in FILE's directory, fsynced\n"
    "and named FILE at the end; an error, SIGINT or SIGTERM leaves nothing).\n"
    "An AArch64 program is profiled from a recorded trace (icost record -o T --\n"
    "PROGRAM, then icost profile --trace T): analyze reads the program's code back,\n"
    "and of a program run through qemu only a trace holds it. x86-64 programs are\n"
    "refused: their micro-ops share a pc, which samples do not tell apart.\n"
    "\n"
    "  -o, --output FILE       the sample file to write\n"
    "  --sample-interval N     mean retired instructions between detailed samples\n"
    "                          (default 64; the interval is uniform in [1, 2N-1], so\n"
    "                          N = 1 samples every instruction)\n"
    "  --signature-interval N  mean instructions between signature samples, counted\n"
    "                          from the end of the previous one (default: with --max,\n"
    "                          set for about K samples, back to back (1) where fewer\n"
    "                          fit; without --max, 1: back to back over the whole run,\n"
    "                          K of them kept, below)\n"
    "  --signatures K          signature samples in the file (default 200). Without\n"
    "                          --max and --signature-interval, K of all those taken\n"
    "                          are kept, chosen uniformly at random as the run goes\n"
    "                          (reservoir sampling: K x L / 4 bytes of memory however\n"
    "                          long the run) and written at its end, so a short run\n"
    "                          gets K samples and its cold start as likely sampled as\n"
    "                          any part; with --max, the interval is set for about K;\n"
    "                          with --signature-interval and --signatures, K of those\n"
    "                          taken are kept as above; with --signature-interval\n"
    "                          alone, every one taken is written as it is taken\n"
    "  --fragment-length L     instructions per signature sample = fragment (default\n"
    "                          3 x win's idealized window, 60 x core.rob, at least\n"
    "                          2000: 3840 on the baseline machine; at most half\n"
    "                          of --max where that half is 2000 or more)\n"
    "  --seed S                (common option) seeds the guest and the sampling counters\n"
    "\n"
    "A detailed sample holds, for one tagged instruction: its pc, the latencies of\n"
    "its fetch gap, issue wait, execution and commit wait with the cause of each\n"
    "part, a misprediction's penalty, its memory-producer and cache-line-sharing\n"
    "producer distances, the next pc, and the 2 signature bits of the 10\n"
    "instructions before it, itself and the 10 after. A signature sample holds a\n"
    "start pc and the 2 bits of each of the next L instructions. Bit 1: taken\n"
    "branch or jump, or a load/store (0 when the load missed the L2); bit 2: an\n"
    "instruction-cache/ITLB miss, a data-cache/DTLB miss or a misprediction.\n"
    "The signature counter starts in its steady-state phase (the run's first\n"
    "instructions are as likely sampled as any: a sample may start at the first\n"
    "one, and is then analyzed without warm-up), and a signature sample cut short\n"
    "by the end of the run is kept with the instructions it has.\n"
    "\n"
    "stderr reports: detailed samples, signature samples (and how many were taken\n"
    "where K of them were kept), detailed samples dropped at the end of the run,\n"
    "timed instructions, file bytes, bytes per million instructions, and samples\n"
    "per second of wall time (model run included).\n"
    "\n"
    "Common options: --config F, --set KEY=VALUE, --skip N, --warm N, --max N,\n"
    "--seed S, --workload NAME, --guest-output (see `icost sim --help`).\n";

static const char analyze_help[] =
    "usage: icost analyze FILE [--categories LIST] [--program PROGRAM] [--fragments K]\n"
    "                     [--warmup W] [--seed S] [--format text|csv|yaml|json] [--show all]\n"
    "\n"
    "Stitches the signature samples of a sample file (icost profile) into fragments\n"
    "(paper Fig. 7), solves each fragment's dependence graph for every subset of the\n"
    "categories and prints the cost/interaction-cost breakdown.\n"
    "\n"
    "  --categories LIST  comma list (default: all eight, dl1,win,bw,bmisp,dmiss,\n"
    "                     shalu,lgalu,imiss)\n"
    "  --program PROGRAM  the ELF the samples came from (default: its absolute path\n"
    "                     recorded in FILE); its size and hash must match the recorded\n"
    "                     ones, or analyze stops with an error naming --program\n"
    "  --fragments K      stitch K signature samples chosen at random without\n"
    "                     replacement (default: all of them)\n"
    "  --warmup W         the first W instructions of each fragment are solved but\n"
    "                     not counted (default 4 x the recorded core.rob, at most\n"
    "                     half the fragment length; 0: none)\n"
    "  --seed S           seed of the fragment choice and the bootstrap (default 1)\n"
    "  --format F         text (default), csv, yaml or json: the same numbers; csv,\n"
    "                     yaml and json start with the profiled run's provenance\n"
    "                     (its program, argv, machine and --set overrides, from FILE)\n"
    "  --show all         list every interaction (default with more than 4 categories:\n"
    "                     pairs with the first category, the rest summed as `other`)\n"
    "\n"
    "Issue slots: a fragment's waits for an issue slot and its slot rule\n"
    "are its own (at most core.issue_width issues per cycle and fu.* per pool, oldest\n"
    "first), not the samples' (those were taken where the slots fell otherwise);\n"
    "only a sample of the very instance keeps its own.\n"
    "\n"
    "Samples: each instruction takes, of the samples of its pc whose signature\n"
    "matches best, its own instance's where there is one, else one of the 16 nearest\n"
    "in retire count, varying with its position (what the bits do not show, such as\n"
    "a load's memory producer, then varies from instance to instance as in the run);\n"
    "a sample that waits for a line an earlier access brought is taken only where the\n"
    "access at that distance in the fragment is a load that missed or a store.\n"
    "\n"
    "Numbers. For each stitched fragment f and subset S, t_f(S) is the critical path\n"
    "of its graph with S idealized (sources before the fragment at time 0) minus the\n"
    "commit time of its W-th instruction (the warm-up). Entries\n"
    "are icost of the summed times T(S) = sum_f t_f(S) in percent of T({}) (= sum of\n"
    "icost over fragments / sum of fragment times), base = T(all chosen) in percent;\n"
    "entries sum to 100. cycles = T(S) scaled by the run's timed instructions / the\n"
    "fragments' instructions (an estimate of the whole run). lo/hi: bootstrap 95%\n"
    "interval of each percent (1000 resamples of the fragments with replacement).\n"
    "Stitching counts: fragments = signature samples walked; stitched = completed;\n"
    "aborted = given up (pc outside the code, bits impossible for the opcode, or an\n"
    "indirect target with no detailed sample); per stitched instruction: exact = its\n"
    "best detailed sample matched every known bit of the 21-instruction window,\n"
    "approximate = some bit differed, inferred = no detailed sample for its pc\n"
    "(latencies from its bits and the machine's defaults); patched = its sample's own\n"
    "bits differed from the skeleton's and what they decide (a miss, a misprediction)\n"
    "was taken from the skeleton; redirected = indirect targets taken from another\n"
    "sample than the best because the bits that follow did not fit the code; cut =\n"
    "fragments kept up to an indirect target no sample gives (from 64 instructions\n"
    "on; the prefix stands for the whole fragment: its times are scaled to the\n"
    "fragment's length, by at most 8x); returns sent to a return site = returns\n"
    "whose call precedes the fragment and whose target no sample gives, taken to the\n"
    "one instruction after a call in the code that the bits fit furthest from;\n"
    "indirect jumps sent to nearby code = indirect jumps whose target no sample gives,\n"
    "taken to the instruction within 2 KB that the bits fit furthest from where only\n"
    "one does, else to the nearest of those within 16 KB that fit furthest (a jump\n"
    "table's case, an interpreter's handler); indirect calls sent to a code pointer =\n"
    "indirect calls whose target no sample gives, taken to the code address held in\n"
    "the program's data (an 8-byte word: function pointer tables, vtables) that the\n"
    "bits fit furthest from, the nearest of those that fit as far; line\n"
    "waits with no miss to wait for = instructions all of whose 16 nearest samples\n"
    "wait for a line where the fragment has no miss or store at that distance, taken\n"
    "as the line's first miss (the wait dropped; a missing load's latency from its\n"
    "bits); loads taken without memory producer = loads none of whose 16 nearest\n"
    "samples has a memory producer at a distance where the fragment has a store (or\n"
    "an AMO), or before the fragment.\n";

/* ---- profile ------------------------------------------------------------- */

/* The most signature samples --signatures keeps (each is up to
   SIG_MAX_LENGTH / 4 bytes in memory until the end of the run). */
#define PROFILE_MAX_SIGNATURES (UINT64_C(1) << 20)

typedef struct profile_opts {
  const char *out;
  uint64_t sample_interval, signature_interval, length, signatures;
} profile_opts;

/* Detailed samples to one sig_out (the file), signature samples to another
   (the reservoir written at the end). */
typedef struct split_out {
  sig_out det, sk;
} split_out;

static ic_status split_detail(void *ctx, const sig_detail *d, ic_err *err) {
  split_out *o = ctx;
  return o->det.detail(o->det.ctx, d, err);
}

static ic_status split_skeleton(void *ctx, const sig_skeleton *k, ic_err *err) {
  split_out *o = ctx;
  return o->sk.skeleton(o->sk.ctx, k, err);
}

enum { O_SAMPLE_INTERVAL = CLI_OPT_OWN, O_SIGNATURE_INTERVAL, O_FRAGMENT_LENGTH, O_SIGNATURES };

static const struct option profile_options[] = {
    {"output", required_argument, NULL, 'o'},
    {"sample-interval", required_argument, NULL, O_SAMPLE_INTERVAL},
    {"signature-interval", required_argument, NULL, O_SIGNATURE_INTERVAL},
    {"fragment-length", required_argument, NULL, O_FRAGMENT_LENGTH},
    {"signatures", required_argument, NULL, O_SIGNATURES},
    {NULL, 0, NULL, 0},
};

static int profile_option(void *ctx, int id, const char *name, const char *v, ic_err *err) {
  profile_opts *o = ctx;
  if (id == 'o') {
    o->out = v;
    return 0;
  }
  uint64_t *dst = id == O_SAMPLE_INTERVAL      ? &o->sample_interval
                  : id == O_SIGNATURE_INTERVAL ? &o->signature_interval
                  : id == O_FRAGMENT_LENGTH    ? &o->length
                                               : &o->signatures;
  const uint64_t hi = id == O_FRAGMENT_LENGTH ? SIG_MAX_LENGTH
                      : id == O_SIGNATURES    ? PROFILE_MAX_SIGNATURES
                                              : (UINT64_C(1) << 40);
  uint64_t n;
  if (cli_parse_count(v, &n) != 0 || n == 0 || n > hi) {
    ic_fail(err, IC_EINPUT, "%s '%s': expected a count from 1 to %llu", name, v, (unsigned long long)hi);
    return -1;
  }
  *dst = n;
  return 0;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void progress_insns(void *ctx, uint64_t n) {
  (void)ctx;
  fprintf(stderr, "\r%llu instructions", (unsigned long long)n);
}

int cmd_profile(int argc, char **argv) {
  static char name[] = "profile";
  argv[0] = name;
  profile_opts po = {NULL, IC_PROFILER_DEFAULT_DETAIL_INTERVAL, 0, 0, 0}; /* 0: set below */
  cli_run_opts ro;
  ic_err err;
  ic_status st = cli_run_parse(argc, argv, &ro, profile_options, profile_option, &po, &err);
  if (st != IC_OK) return cli_fail_err(st, &err);
  if (ro.help) {
    fputs(profile_help, stdout);
    return 0;
  }
  if (!po.out) return cli_fail(2, "profile: -o FILE is required");
  cli_run run;
  memset(&run, 0, sizeof run);
  if ((st = cli_run_setup(&ro, &run, &err)) != IC_OK) return cli_fail_err(st, &err);
  if ((st = cli_profiler_check(&run, &err)) == IC_OK && cli_trace_host_program(&run))
    /* analyze reads the code of the program the samples came from: an rv64
       ELF's or a trace's, not a host program's (its code is qemu's to load) */
    st = ic_fail(&err, IC_EINPUT,
                 "profile: %s runs through qemu, and analyze could not read its code back: record "
                 "it (icost record -o T -- PROGRAM ...) and profile the trace (icost profile --trace "
                 "T -o FILE), or use icost --method profiler",
                 run.workload.name);
  if (st != IC_OK) {
    cli_run_free(&run);
    return cli_fail_err(st, &err);
  }

  sig_file_header h;
  memset(&h, 0, sizeof h);
  sig_writer *w = NULL;
  sig_sampler *smp = NULL;
  sig_db *kept = NULL; /* the signature samples kept (--signatures), or NULL */
  char *yaml = NULL;
  size_t yaml_len = 0;
  if ((st = sig_machine_from_config(run.config, &h.machine, &err)) != IC_OK) goto fail;
  if (!po.length) po.length = cli_fragment_length(h.machine.rob, run.max); /* 3 windows of win */
  /* as `icost --method profiler`: with --max, an interval for about K
     signature samples; without, back to back and K kept */
  uint64_t keep = po.signatures;
  if (!po.signature_interval) {
    ic_profiler_opts sampling = {.length = (uint32_t)po.length};
    ic_profiler_set_sampling(&sampling, run.max, po.signatures);
    po.signature_interval = sampling.signature_interval;
    keep = sampling.fragments;
  }
  if ((st = sig_file_identity(run.workload.argv[0], &h.elf_size, &h.elf_hash, &err)) != IC_OK)
    goto fail;
  /* by absolute path, so that analyze finds it from any directory */
  if (!(h.program = realpath(run.workload.argv[0], NULL))) {
    st = ic_fail(&err, IC_EINPUT, "%s: cannot resolve its absolute path", run.workload.argv[0]);
    goto fail;
  }
  FILE *ys = open_memstream(&yaml, &yaml_len);
  if (!ys || ooo_config_write(run.config, ys) != IC_OK || fclose(ys) != 0) {
    st = ic_fail(&err, IC_ERUN, "profile: cannot format the machine config");
    goto fail;
  }
  h.version = SIG_FILE_VERSION;
  h.detail_interval = po.sample_interval;
  h.signature_interval = po.signature_interval;
  h.length = (uint32_t)po.length;
  h.seed = ro.seed;
  h.skip = run.skipped;
  h.warm = run.warm;
  h.max = run.max;
  h.argc = run.workload.argc;
  h.argv = run.workload.argv;
  h.config_yaml = yaml;
  h.noverrides = ro.nsets;
  h.overrides = (char **)ro.sets; /* the writer only reads them */
  if ((st = sig_writer_open(&w, po.out, &h, &err)) != IC_OK) goto fail;
  sig_sampler_opts so = {po.sample_interval, po.signature_interval, (uint32_t)po.length, ro.seed};
  ic_program_image img = cli_run_image(&run);
  split_out split = {sig_writer_out(w), sig_writer_out(w)};
  if (keep) { /* the reservoir: a sample database of signature samples alone */
    if ((st = sig_db_create(&kept, &err)) != IC_OK ||
        (st = sig_db_keep_skeletons(kept, keep, ro.seed, &err)) != IC_OK)
      goto fail;
    split.sk = sig_db_out(kept);
  }
  sig_out emit = {&split, split_detail, split_skeleton};
  if ((st = sig_sampler_create(&smp, &so, &h.machine, &img, emit, &err)) != IC_OK) goto fail;
  ic_graph_sink sink = sig_sampler_sink(smp, NULL);
  int tty = isatty(2);
  double t0 = now_s();
  ooo_stats os;
  st = cli_run_execute(&run, 0, &sink, tty ? progress_insns : NULL, NULL, &os, &err);
  double secs = now_s() - t0;
  if (tty) fputs("\r\033[K", stderr);
  if (st != IC_OK) goto fail;
  if ((st = sig_sampler_finish(smp, &err)) != IC_OK) goto fail;
  sig_sampler_stats ss;
  sig_sampler_get_stats(smp, &ss);
  uint64_t written = ss.skeletons;
  if (kept) { /* the K kept, in run order */
    if ((st = sig_db_build(kept, &err)) != IC_OK) goto fail;
    written = sig_db_skeletons(kept);
    sig_out fo = sig_writer_out(w);
    for (size_t k = 0; k < written; k++)
      if ((st = fo.skeleton(fo.ctx, sig_db_skeleton(kept, k), &err)) != IC_OK) goto fail;
  }
  st = sig_writer_close(w, ss.instructions, &err);
  w = NULL;
  if (st != IC_OK) goto fail;
  struct stat sb;
  uint64_t bytes = stat(po.out, &sb) == 0 ? (uint64_t)sb.st_size : 0;
  double samples = (double)(ss.details + ss.skeletons);
  char taken[80] = "";
  if (kept && written < ss.skeletons)
    snprintf(taken, sizeof taken, " (kept at random of %llu taken)",
             (unsigned long long)ss.skeletons);
  fprintf(stderr,
          "icost: profile: %llu detailed + %llu signature samples%s (%llu detailed dropped at the "
          "end) from %llu instructions; %s: %llu bytes (%.0f bytes per million instructions); "
          "%.0f samples/s over %.2f s\n",
          (unsigned long long)ss.details, (unsigned long long)written, taken,
          (unsigned long long)ss.dropped, (unsigned long long)ss.instructions, po.out,
          (unsigned long long)bytes,
          ss.instructions ? (double)bytes * 1e6 / (double)ss.instructions : 0.0,
          secs > 0 ? samples / secs : 0.0, secs);
  sig_sampler_destroy(smp);
  sig_db_destroy(kept);
  free(yaml);
  free(h.program);
  int rc = cli_run_finish(&run, 0);
  cli_run_free(&run);
  return rc;
fail:
  sig_writer_abort(w);
  sig_sampler_destroy(smp);
  sig_db_destroy(kept);
  free(yaml);
  free(h.program);
  cli_run_free(&run);
  return cli_fail_err(st, &err);
}

/* ---- analyze ------------------------------------------------------------- */

/* The provenance of an analysis: the profiled run's, from the sample
 * file's header (its program, argv, machine, --set overrides, seed, skip,
 * max). */
static void analyze_provenance(ic_emit *em, const char *prog, const sig_file_header *h) {
  char name[128] = "", hash[17] = "";
  const char *from = h->config_yaml ? strstr(h->config_yaml, "(resolved from ") : NULL;
  if (from) sscanf(from + 15, "%127[^)\n]", name);
  ooo_config *c = NULL;
  int fd = h->config_yaml ? memfd_create("icost-machine", MFD_CLOEXEC) : -1;
  if (fd >= 0) {
    size_t len = strlen(h->config_yaml);
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    ic_err ignored;
    if (write(fd, h->config_yaml, len) == (ssize_t)len && ooo_config_load(&c, path, &ignored) == IC_OK)
      snprintf(hash, sizeof hash, "%016llx", (unsigned long long)ooo_config_hash(c));
    ooo_config_destroy(c);
    close(fd);
  }
  ic_provenance p = {.version = cli_version(), .command = "analyze", .program = prog,
                     .argc = h->argc, .argv = h->argv, .machine = name[0] ? name : NULL,
                     .noverrides = h->noverrides, .overrides = (const char *const *)h->overrides,
                     .machine_hash = hash[0] ? hash : NULL, .seed = h->seed, .skip = h->skip,
                     .max = h->max, .has_max = h->max != 0};
  ic_emit_provenance(em, &p);
}

static void write_stitch(ic_emit *em, const char *file, const char *prog,
                         const sig_file_totals *tot, const ic_profiler_stats *ps) {
  const ic_stitch_stats *s = &ps->stitch;
  char line[2048];
  ic_emit_str(em, "file", file);
  ic_emit_str(em, "program", prog);
  ic_emit_str(em, "method", "profiler");
  ic_emit_u64(em, "instructions", tot->instructions);
  ic_emit_only(em, IC_EMIT_MACHINE);
  ic_emit_map_begin(em, "samples");
  ic_emit_u64(em, "detailed", tot->details);
  ic_emit_u64(em, "signature", tot->skeletons);
  ic_emit_map_end(em);
  ic_emit_map_begin(em, "stitching");
  const struct {
    const char *name;
    uint64_t v;
  } counts[] = {{"fragments", s->fragments},       {"stitched", s->stitched},
                {"aborted", s->aborted},           {"instructions", s->instructions},
                {"exact", s->exact},               {"approximate", s->approx},
                {"inferred", s->inferred},         {"patched", s->patched},
                {"redirected", s->redirected},     {"truncated", s->truncated},
                {"site_returns", s->site_returns}, {"unwound", s->unwound},
                {"near_jumps", s->near_jumps},     {"pointer_calls", s->pointer_calls},
                {"first_misses", s->first_misses}, {"mem_dropped", s->mem_dropped}};
  for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) ic_emit_u64(em, counts[k].name, counts[k].v);
  for (int k = 0; k < IC_STITCH_ABORT_COUNT; k++) {
    char key[64];
    snprintf(key, sizeof key, "aborted_%s", ic_stitch_abort_names[k]);
    ic_emit_u64(em, key, s->abort_why[k]);
  }
  ic_emit_map_end(em);
  ic_emit_only(em, IC_EMIT_ONLY(IC_EMIT_TEXT));
  snprintf(line, sizeof line, "%llu detailed, %llu signature", (unsigned long long)tot->details,
           (unsigned long long)tot->skeletons);
  ic_emit_str(em, "samples", line);
  int n = snprintf(line, sizeof line, "%llu walked, %llu stitched, %llu aborted",
                   (unsigned long long)s->fragments, (unsigned long long)s->stitched,
                   (unsigned long long)s->aborted);
  for (int k = 0; k < IC_STITCH_ABORT_COUNT && n < (int)sizeof line; k++)
    if (s->abort_why[k])
      n += snprintf(line + n, sizeof line - (size_t)n, " (%llu: %s)",
                    (unsigned long long)s->abort_why[k], ic_stitch_abort_help[k]);
  ic_emit_str(em, "fragments", line);
  double d = s->instructions ? (double)s->instructions : 1;
  char pct[4][32];
  snprintf(line, sizeof line,
           "%llu: %s%% exact, %s%% approximate, %s%% inferred; "
           "%s%% patched; %llu indirect targets redirected; %llu fragments cut at an "
           "unknown one; %llu returns sent to a return site; %llu returns not to their "
           "call (call stack dropped); %llu indirect jumps sent to nearby code; %llu "
           "indirect calls sent to a code pointer; %llu line "
           "waits with no miss to wait for (taken as first misses); %llu loads whose sampled "
           "memory producers all fall on no store (taken without one)",
           (unsigned long long)s->instructions,
           ic_emit_fmt_fixed(pct[0], sizeof pct[0], 100.0 * (double)s->exact / d, 1),
           ic_emit_fmt_fixed(pct[1], sizeof pct[1], 100.0 * (double)s->approx / d, 1),
           ic_emit_fmt_fixed(pct[2], sizeof pct[2], 100.0 * (double)s->inferred / d, 1),
           ic_emit_fmt_fixed(pct[3], sizeof pct[3], 100.0 * (double)s->patched / d, 1),
           (unsigned long long)s->redirected, (unsigned long long)s->truncated,
           (unsigned long long)s->site_returns, (unsigned long long)s->unwound,
           (unsigned long long)s->near_jumps, (unsigned long long)s->pointer_calls,
           (unsigned long long)s->first_misses, (unsigned long long)s->mem_dropped);
  ic_emit_str(em, "stitched_insts", line);
  ic_emit_only(em, IC_EMIT_ALL);
}

enum { A_CATEGORIES = CLI_OPT_OWN, A_PROGRAM, A_FRAGMENTS, A_SEED, A_FORMAT, A_SHOW, A_WARMUP };

static const struct option analyze_options[] = {
    {"categories", required_argument, NULL, A_CATEGORIES},
    {"program", required_argument, NULL, A_PROGRAM},
    {"fragments", required_argument, NULL, A_FRAGMENTS},
    {"seed", required_argument, NULL, A_SEED},
    {"format", required_argument, NULL, A_FORMAT},
    {"show", required_argument, NULL, A_SHOW},
    {"warmup", required_argument, NULL, A_WARMUP},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

typedef struct analyze_opts {
  const char *file, *cats, *program, *format, *show;
  uint64_t fragments, seed, warmup;
  int have_warmup, help;
} analyze_opts;

static int analyze_option(void *ctx, int id, const char *name, const char *v, ic_err *err) {
  analyze_opts *o = ctx;
  uint64_t n;
  switch (id) {
  case CLI_OPERAND:
    if (o->file) {
      ic_fail(err, IC_EINPUT, "analyze: more than one FILE ('%s', '%s')", o->file, v);
      return -1;
    }
    o->file = v;
    return 0;
  case 'h': o->help = 1; return 0;
  case A_CATEGORIES: o->cats = v; return 0;
  case A_PROGRAM: o->program = v; return 0;
  case A_FORMAT: o->format = v; return 0;
  case A_SHOW: o->show = v; return 0;
  case A_FRAGMENTS:
  case A_SEED:
    if (cli_parse_count(v, &n) != 0 || (id == A_FRAGMENTS && n == 0)) {
      ic_fail(err, IC_EINPUT, "%s '%s': expected a %s", name, v, id == A_FRAGMENTS ? "positive count" : "number");
      return -1;
    }
    *(id == A_FRAGMENTS ? &o->fragments : &o->seed) = n;
    return 0;
  default: /* A_WARMUP */
    if (cli_parse_count(v, &o->warmup) != 0 || o->warmup > UINT32_MAX) {
      ic_fail(err, IC_EINPUT, "--warmup '%s': expected a number", v);
      return -1;
    }
    o->have_warmup = 1;
    return 0;
  }
}

int cmd_analyze(int argc, char **argv) {
  analyze_opts ao = {.format = "text", .seed = 1};
  ic_err err;
  int end; /* no program: every word is an operand */
  ic_status st = cli_getopt(argc, argv, analyze_options, CLI_WORDS_OPERANDS, analyze_option, &ao, &end, &err);
  if (st != IC_OK) return cli_fail_err(st, &err);
  if (ao.help) {
    fputs(analyze_help, stdout);
    return 0;
  }
  const char *file = ao.file, *cats_s = ao.cats, *program = ao.program, *format = ao.format, *show = ao.show;
  const uint64_t fragments = ao.fragments, seed = ao.seed, warmup = ao.warmup;
  const int have_warmup = ao.have_warmup;
  if (!file) return cli_fail(2, "analyze: no sample FILE given (see icost analyze --help)");
  uint8_t cats[IC_SOLVER_MAX_CATS];
  int ncat = 0;
  if (cats_s) {
    if ((st = ic_parse_categories(cats_s, cats, &ncat, &err)) != IC_OK)
      return cli_fail(2, "--categories: %s", err.msg);
  } else {
    for (int c = 0; c < IC_CAT_COUNT; c++) cats[ncat++] = (uint8_t)c;
  }
  ic_emit_format fmt;
  if ((st = cli_format_parse("analyze", format, &fmt, &err)) != IC_OK) return cli_fail_err(st, &err);
  int show_all = 0;
  if (show) {
    if (strcmp(show, "all") != 0) return cli_fail(2, "--show '%s': only 'all' is known", show);
    show_all = 1;
  }
  sig_db *db = NULL;
  sig_file_header h;
  memset(&h, 0, sizeof h);
  sig_file_totals tot;
  rv_proc *p = NULL;
  ic_trace *trace = NULL;
  ic_breakdown b;
  memset(&b, 0, sizeof b);
  if ((st = sig_db_create(&db, &err)) != IC_OK) goto done;
  if ((st = sig_file_read(file, &h, sig_db_out(db), &tot, &err)) != IC_OK) goto done;
  if ((st = sig_db_build(db, &err)) != IC_OK) goto done;
  const char *prog = program ? program : h.program;
  uint64_t size, hash;
  if (!program && access(prog, R_OK) != 0) {
    st = ic_fail(&err, IC_EINPUT,
                 "%s: the program the samples came from, %s, is gone (%s): give it with --program PATH",
                 file, prog, strerror(errno));
    goto done;
  }
  if ((st = sig_file_identity(prog, &size, &hash, &err)) != IC_OK) goto done;
  if (size != h.elf_size || hash != h.elf_hash) {
    st = program ? ic_fail(&err, IC_EINPUT,
                           "%s: --program %s is not the program the samples came from (size %llu, "
                           "recorded %llu; hash differs: %s)",
                           file, prog, (unsigned long long)size, (unsigned long long)h.elf_size,
                           hash != h.elf_hash ? "yes" : "no")
                 : ic_fail(&err, IC_EINPUT,
                           "%s: the program the samples came from, %s, has changed since (size %llu, "
                           "recorded %llu): give the profiled one with --program PATH",
                           file, prog, (unsigned long long)size, (unsigned long long)h.elf_size);
    goto done;
  }
  ic_program_image img;
  if (ic_trace_is_trace(prog)) { /* samples of `profile --trace FILE`: its image */
    if ((st = ic_trace_open(&trace, prog, &err)) != IC_OK) goto done;
    if (ic_trace_isa(trace) == IC_ISA_X86_64) {
      st = ic_fail(&err, IC_EINPUT,
                   "%s: samples of an x86-64 program: the profiler does not follow x86-64 programs yet "
                   "(their micro-ops share a pc, and samples hold no micro-op index)",
                   file);
      goto done;
    }
    img = ic_trace_image(trace);
  } else if (ic_host_elf_isa(prog, NULL) == IC_ISA_X86_64 || ic_host_elf_isa(prog, NULL) == IC_ISA_AARCH64) {
    st = ic_fail(&err, IC_EINPUT,
                 "%s: %s runs through qemu and its code cannot be read back here: profile a "
                 "recorded trace of it (icost record, then icost profile --trace)",
                 file, prog);
    goto done;
  } else {
    rv_options opt;
    rv_options_default(&opt);
    char **pargv = h.argv;
    char *prog_argv0 = (char *)prog;
    char *saved = pargv[0];
    pargv[0] = prog_argv0;
    st = rv_proc_load(&p, prog, h.argc, pargv, &opt, &err);
    pargv[0] = saved;
    if (st != IC_OK) goto done;
    img = rv_proc_image(p);
  }
  ic_profiler_opts o = {0};
  o.cats = cats;
  o.ncat = ncat;
  o.machine = h.machine;
  o.length = h.length;
  o.fragments = fragments;
  o.seed = seed;
  o.warmup = (uint32_t)(have_warmup ? warmup : ic_fragment_warmup_for(h.machine.rob, h.length));
  uint8_t need[1u << IC_BREAKDOWN_MAX_CATS];
  ic_breakdown_needed(ncat, show_all, need);
  o.need = need;
  cli_note_fragments(cats, ncat, h.length, h.machine.rob);
  ic_profiler_stats ps;
  memset(&ps, 0, sizeof ps);
  st = ic_profiler_analyze(&o, db, &img, tot.instructions, &b, &ps, &err);
  if (st != IC_OK) goto done;
  char ci_warn[256];
  if (ic_breakdown_ci_warning(&b, ci_warn, sizeof ci_warn)) fprintf(stderr, "icost: %s\n", ci_warn);
  ic_emit *em;
  if ((st = ic_emit_open(&em, stdout, fmt, &err)) != IC_OK) goto done;
  analyze_provenance(em, prog, &h);
  write_stitch(em, file, prog, &tot, &ps);
  if ((st = ic_breakdown_emit(&b, em, show_all, 0, &err)) != IC_OK)
    ic_emit_abandon(em);
  else
    st = ic_emit_close(em, &err);
done:
  ic_breakdown_free(&b);
  rv_proc_destroy(p);
  ic_trace_close(trace);
  sig_file_header_free(&h);
  sig_db_destroy(db);
  if (st != IC_OK) return cli_fail_err(st, &err);
  return 0;
}
