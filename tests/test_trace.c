/* test_trace.c: icost trace files and ChampSim traces (frontends/trace).
 *
 * Library level: a random stream written and read back field by field, from
 * the start and from seeks; corrupting any byte or truncating at any length
 * is an error with one line, never a record (a small fuzz without
 * libFuzzer); the ChampSim writer and reader agree on what the format
 * carries; an image-only trace (a live host run's) reads as a recorded
 * one. Command level: a trace recorded from an RV64 program gives the
 * same numbers as the live run for every method; bad trace files get one
 * line and exit 2; textbook timings (dependent adds, pointer chase, random
 * branches) through both trace formats. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "champsim.h"
#include "test_guests.h"
#include "test_util.h"
#include "trace.h"

static uint64_t rng(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

static char *tmp_path(const char *name) {
  static char b[64][600];
  static int slot;
  char *p = b[slot++ % 64];
  snprintf(p, 600, "%s/h27_%d_%s", ICOST_BUILD_DIR, (int)getpid(), name);
  return p;
}

/* A random stream of valid records, with pc continuity most of the time. */
static ic_inst *random_stream(size_t n, uint64_t seed) {
  ic_inst *v = calloc(n, sizeof *v);
  uint64_t s = seed, pc = 0x400000, mem = 0x7fff0000;
  for (size_t k = 0; k < n; k++) {
    ic_inst *in = &v[k];
    in->pc = pc;
    in->size = (uint8_t)(1 + rng(&s) % 15);
    in->opclass = (uint8_t)(rng(&s) % IC_OP_COUNT);
    for (int j = 0; j < IC_MAX_SRC; j++)
      in->src[j] = rng(&s) % 4 == 0 ? IC_REG_NONE : (uint8_t)(rng(&s) % IC_REG_COUNT);
    in->dst[0] = rng(&s) % 3 == 0 ? IC_REG_NONE : (uint8_t)(rng(&s) % IC_REG_COUNT);
    if (in->opclass == IC_OP_LOAD || in->opclass == IC_OP_STORE) {
      in->mem_size = (uint8_t)(1u << rng(&s) % 4);
      mem += rng(&s) % 5 == 0 ? (rng(&s) % (1u << 30)) - (1u << 29) : 8;
      in->mem_addr = mem;
      in->is_mem_rmw = rng(&s) % 7 == 0;
    }
    int jump = rng(&s) % 6 == 0;
    in->next_pc = jump ? in->pc + (rng(&s) % 100000) - 50000 + 1 : in->pc + in->size;
    if (jump && in->next_pc == in->pc + in->size) in->next_pc += 2;
    pc = rng(&s) % 97 == 0 ? in->next_pc + 64 : in->next_pc; /* a gap now and then */
  }
  return v;
}

static void assert_same(const ic_inst *a, const ic_inst *b, size_t k) {
  cr_assert(a->pc == b->pc && a->next_pc == b->next_pc && a->mem_addr == b->mem_addr &&
                a->size == b->size && a->opclass == b->opclass && a->mem_size == b->mem_size &&
                a->is_mem_rmw == b->is_mem_rmw && !memcmp(a->src, b->src, IC_MAX_SRC) &&
                a->dst[0] == b->dst[0],
            "record %zu differs: pc %llx/%llx next %llx/%llx op %u/%u size %u/%u mem %llx/%llx "
            "%u/%u rmw %u/%u src %u,%u,%u/%u,%u,%u dst %u/%u",
            k, (unsigned long long)a->pc, (unsigned long long)b->pc,
            (unsigned long long)a->next_pc, (unsigned long long)b->next_pc, a->opclass,
            b->opclass, a->size, b->size, (unsigned long long)a->mem_addr,
            (unsigned long long)b->mem_addr, a->mem_size, b->mem_size, a->is_mem_rmw,
            b->is_mem_rmw, a->src[0], a->src[1], a->src[2], b->src[0], b->src[1], b->src[2],
            a->dst[0], b->dst[0]);
}

static void write_trace(const char *path, const ic_inst *v, size_t n) {
  ic_err err;
  ic_trace_writer *w;
  cr_assert_eq(ic_trace_writer_open(&w, path, IC_ISA_RV64, &err), IC_OK, "%s", err.msg);
  uint8_t code[256];
  for (int k = 0; k < 256; k++) code[k] = (uint8_t)(k * 7);
  cr_assert_eq(ic_trace_write_code(w, 0x10000, code, sizeof code, &err), IC_OK, "%s", err.msg);
  uint64_t ptrs[2] = {0x10000, 0x10040};
  cr_assert_eq(ic_trace_write_code_pointers(w, ptrs, 2, &err), IC_OK, "%s", err.msg);
  for (size_t k = 0; k < n; k += 1000)
    cr_assert_eq(ic_trace_write(w, v + k, n - k < 1000 ? n - k : 1000, &err), IC_OK, "%s", err.msg);
  cr_assert_eq(ic_trace_writer_close(w, IC_TRACE_END_EXIT, 3, "prog", &err), IC_OK, "%s", err.msg);
}

/* Reads the whole trace at path from start; IC_OK and every record equal to
   v[start..], or the error (one line in *err). */
static ic_status read_trace(const char *path, const ic_inst *v, size_t n, uint64_t start,
                            ic_err *err) {
  ic_trace *t;
  ic_status st = ic_trace_open(&t, path, err);
  if (st) return st;
  ic_trace_cursor *c;
  if ((st = ic_trace_cursor_open(&c, t, start, err))) {
    ic_trace_close(t);
    return st;
  }
  ic_inst_source src = ic_trace_cursor_source(c);
  ic_inst buf[777];
  size_t k = start, got;
  while ((got = src.fill(src.ctx, buf, 777)) > 0) {
    for (size_t j = 0; j < got; j++) {
      cr_assert_lt(k + j, n);
      if (v) assert_same(&buf[j], &v[k + j], k + j);
    }
    k += got;
  }
  st = ic_trace_cursor_error(c, err);
  if (!st && v) cr_assert_eq(k, n, "read %zu of %zu records", k, n);
  ic_trace_cursor_close(c);
  ic_trace_close(t);
  return st;
}

Test(trace, random_stream_round_trip_and_seek) {
  const size_t n = 150000; /* 3 blocks */
  ic_inst *v = random_stream(n, 11);
  char *path = tmp_path("rt.trc");
  write_trace(path, v, n);
  ic_err err;
  cr_assert_eq(read_trace(path, v, n, 0, &err), IC_OK, "%s", err.msg);
  const uint64_t seeks[] = {1, 65535, 65536, 65537, 100000, n - 1, n};
  for (size_t k = 0; k < sizeof seeks / sizeof seeks[0]; k++)
    cr_assert_eq(read_trace(path, v, n, seeks[k], &err), IC_OK, "seek %llu: %s",
                 (unsigned long long)seeks[k], err.msg);
  ic_trace *t;
  cr_assert_eq(ic_trace_open(&t, path, &err), IC_OK);
  cr_assert_eq(ic_trace_count(t), n);
  int code;
  cr_assert_eq(ic_trace_end(t, &code), IC_TRACE_END_EXIT);
  cr_assert_eq(code, 3);
  cr_assert_str_eq(ic_trace_name(t), "prog");
  /* the image: code bytes decode as RV64 where they are, nothing elsewhere */
  ic_program_image im = ic_trace_image(t);
  ic_static_inst si;
  im.lookup(im.ctx, 0x10000 + 256, &si);
  cr_assert_eq(si.valid, 0);
  const uint64_t *ptrs;
  cr_assert_eq(im.code_pointers(im.ctx, &ptrs), 2);
  cr_assert_eq(ptrs[1], 0x10040);
  ic_trace_close(t);
  /* the writer refuses records the reader would refuse */
  ic_trace_writer *w;
  cr_assert_eq(ic_trace_writer_open(&w, path, IC_ISA_RV64, &err), IC_OK);
  ic_inst bad = v[0];
  bad.opclass = IC_OP_COUNT;
  cr_assert_neq(ic_trace_write(w, &bad, 1, &err), IC_OK);
  ic_trace_writer_abort(w);
  cr_assert_eq(ic_trace_open(&t, path, &err), IC_OK, "the aborted writer replaced the file");
  ic_trace_close(t);
  unlink(path);
  free(v);
}

/* A one-line message that names the file. */
static void assert_one_line(const ic_err *err, const char *path) {
  cr_assert(strchr(err->msg, '\n') == NULL, "message spans lines: %s", err->msg);
  cr_assert(strncmp(err->msg, path, strlen(path)) == 0, "message does not name %s: %s", path,
            err->msg);
}

/* The image of a live host run (no records): what is added is looked up
   and disassembled as a recorded trace's image is; runs out of order are
   refused. */
Test(trace, image_only_for_a_live_run) {
  ic_trace *t;
  ic_err err;
  cr_assert_eq(ic_trace_image_create(&t, IC_ISA_X86_64, "live", &err), IC_OK, "%s", err.msg);
  cr_expect_eq(ic_trace_count(t), 0);
  ic_program_image im = ic_trace_image(t);
  ic_static_inst si;
  cr_expect_eq(im.lookup(im.ctx, 0x1000, &si), 0, "nothing added yet");
  const uint8_t code[] = {0x48, 0x01, 0xc0, 0xc3}; /* add rax, rax; ret */
  cr_assert_eq(ic_trace_image_add(t, 0x1000, code, sizeof code, &err), IC_OK, "%s", err.msg);
  const uint8_t jmp[] = {0xeb, 0x10}; /* jmp +0x10 */
  cr_assert_eq(ic_trace_image_add(t, 0x2000, jmp, sizeof jmp, &err), IC_OK, "%s", err.msg);
  cr_assert_eq(im.lookup(im.ctx, 0x1000, &si), 1);
  cr_expect_eq(si.size, 3);
  cr_expect_eq(si.opclass, IC_OP_INT_ALU);
  cr_assert_eq(im.lookup(im.ctx, 0x1003, &si), 1);
  cr_expect_eq(si.opclass, IC_OP_RETURN);
  cr_assert_eq(im.lookup(im.ctx, 0x2000, &si), 1);
  cr_expect_eq(si.target, 0x2012);
  cr_expect_eq(im.lookup(im.ctx, 0x1800, &si), 0, "a pc between the runs");
  char text[64];
  cr_assert_eq(ic_trace_image_disasm(im, 0x1000, text, sizeof text), 1);
  cr_expect_str_eq(text, "add rax, rax");
  /* before the last run or overlapping it: refused, the image unchanged */
  cr_expect_eq(ic_trace_image_add(t, 0x1004, code, sizeof code, &err), IC_ERUN);
  cr_expect(strstr(err.msg, "out of order") != NULL, "%s", err.msg);
  cr_expect_eq(ic_trace_image_add(t, 0x2001, code, sizeof code, &err), IC_ERUN);
  cr_expect_eq(im.lookup(im.ctx, 0x1004, &si), 0);
  ic_trace_close(t);
}

Test(trace, corrupt_and_truncated_files_are_errors, .timeout = 120) {
  const size_t n = 70000; /* 2 blocks */
  ic_inst *v = random_stream(n, 5);
  char *path = tmp_path("good.trc"), *bad = tmp_path("bad.trc");
  write_trace(path, v, n);
  size_t len = 0;
  char *bytes = t_slurp(path, &len);
  cr_assert_not_null(bytes);
  uint64_t s = 99;
  ic_err err;
  /* every byte of the headers, then random bytes of the frames */
  for (int round = 0; round < 400; round++) {
    size_t off = round < 120 ? (size_t)round : (size_t)(rng(&s) % len);
    uint8_t flip = (uint8_t)(1 + rng(&s) % 255);
    bytes[off] ^= (char)flip;
    FILE *f = fopen(bad, "wb");
    cr_assert_eq(fwrite(bytes, 1, len, f), len);
    fclose(f);
    bytes[off] ^= (char)flip;
    ic_status st = read_trace(bad, NULL, n, 0, &err);
    cr_assert_eq(st, IC_EINPUT, "byte %zu ^ 0x%x went unnoticed", off, flip);
    assert_one_line(&err, bad);
  }
  for (int round = 0; round < 200; round++) {
    size_t cut = round < 100 ? (size_t)round : (size_t)(rng(&s) % len);
    FILE *f = fopen(bad, "wb");
    cr_assert_eq(fwrite(bytes, 1, cut, f), cut);
    fclose(f);
    ic_status st = read_trace(bad, NULL, n, 0, &err);
    cr_assert_eq(st, IC_EINPUT, "cut at %zu of %zu went unnoticed", cut, len);
    assert_one_line(&err, bad);
  }
  /* trailing garbage */
  FILE *f = fopen(bad, "wb");
  fwrite(bytes, 1, len, f);
  fputc('x', f);
  fclose(f);
  cr_assert_eq(read_trace(bad, NULL, n, 0, &err), IC_EINPUT);
  unlink(bad);
  unlink(path);
  free(bytes);
  free(v);
}

/* ---- ChampSim ------------------------------------------------------------ */

/* A stream the ChampSim format carries exactly: one-cycle ops, 8-byte loads
   and stores, the branch kinds with the registers they are inferred from. */
static ic_inst *champsim_stream(size_t n, uint64_t seed) {
  static const uint8_t regs[] = {1, 3, 4, 5, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 20, 30, 40};
  const size_t nr = sizeof regs;
  ic_inst *v = calloc(n, sizeof *v);
  uint64_t s = seed, pc = 0x400000;
  for (size_t k = 0; k < n; k++) {
    ic_inst *in = &v[k];
    in->pc = pc;
    in->size = 4;
    for (int j = 0; j < IC_MAX_SRC; j++) in->src[j] = IC_REG_NONE;
    in->dst[0] = IC_REG_NONE;
    unsigned kind = (unsigned)(rng(&s) % 10);
    in->next_pc = pc + 4;
    if (kind < 5) {
      in->opclass = kind < 3 ? IC_OP_INT_ALU : kind == 3 ? IC_OP_LOAD : IC_OP_STORE;
      in->src[0] = regs[rng(&s) % nr];
      if (rng(&s) & 1) in->src[1] = regs[rng(&s) % nr];
      if (in->src[1] == in->src[0]) in->src[1] = IC_REG_NONE;
      if (in->opclass != IC_OP_STORE) in->dst[0] = regs[rng(&s) % nr];
      if (in->opclass != IC_OP_INT_ALU) {
        in->mem_size = 8;
        in->mem_addr = 0x10000000 + 8 * (rng(&s) % 100000);
      }
    } else {
      static const uint8_t kinds[] = {IC_OP_BRANCH, IC_OP_BRANCH, IC_OP_JUMP, IC_OP_CALL,
                                      IC_OP_RETURN};
      in->opclass = kinds[kind - 5];
      int taken = in->opclass != IC_OP_BRANCH || (rng(&s) & 1);
      if (taken) in->next_pc = pc + 4 + 4 * (rng(&s) % 1000);
      if (in->opclass == IC_OP_CALL || in->opclass == IC_OP_RETURN)
        in->src[0] = in->dst[0] = IC_CS_REG_SP; /* they read and write the stack pointer */
      if (in->opclass == IC_OP_BRANCH) in->src[0] = IC_CS_REG_FLAGS; /* and this the flags */
    }
    pc = in->next_pc;
  }
  /* the last record's next pc is not in the format: ip + size */
  v[n - 1].next_pc = v[n - 1].pc + v[n - 1].size;
  return v;
}

/* Reads a whole ChampSim trace into out[0..n-1]. */
static void champsim_read_all(const char *path, ic_inst *out, size_t n) {
  ic_err err;
  ic_champsim_reader *r;
  cr_assert_eq(ic_champsim_open(&r, path, &err), IC_OK, "%s", err.msg);
  ic_inst_source src = ic_champsim_source(r);
  size_t k = 0, got;
  while ((got = src.fill(src.ctx, out + k, n - k < 1000 ? n - k : 1000)) > 0) k += got;
  cr_assert_eq(ic_champsim_error(r, &err), IC_OK, "%s", err.msg);
  cr_assert_eq(k, n, "read %zu of %zu records", k, n);
  cr_assert_eq(src.fill(src.ctx, out, 1), 0);
  ic_champsim_close(r);
}

Test(champsim, write_read_round_trip) {
  const size_t n = 50000;
  ic_inst *v = champsim_stream(n, 3), *got = calloc(n, sizeof *got);
  const char *names[] = {"rt.champsimtrace", "rt.champsimtrace.xz", "rt.champsimtrace.gz"};
  for (int f = 0; f < 3; f++) {
    char *path = tmp_path(names[f]);
    ic_err err;
    ic_champsim_writer *w;
    cr_assert_eq(ic_champsim_writer_open(&w, path, &err), IC_OK, "%s", err.msg);
    cr_assert_eq(ic_champsim_write(w, v, n, &err), IC_OK, "%s", err.msg);
    cr_assert_eq(ic_champsim_writer_close(w, &err), IC_OK, "%s", err.msg);
    memset(got, 0, n * sizeof *got);
    champsim_read_all(path, got, n);
    for (size_t k = 0; k < n; k++) assert_same(&got[k], &v[k], k);
    /* the image knows every executed pc, with its kind */
    ic_champsim_image *im;
    uint64_t count;
    cr_assert_eq(ic_champsim_image_build(&im, path, &count, &err), IC_OK, "%s", err.msg);
    cr_assert_eq(count, n);
    ic_program_image pi = ic_champsim_image_get(im);
    ic_static_inst si;
    cr_assert_eq(pi.lookup(pi.ctx, v[n / 2].pc, &si), 1);
    cr_assert_eq(pi.lookup(pi.ctx, 0x10, &si), 0);
    ic_champsim_image_destroy(im);
    unlink(path);
  }
  free(v);
  free(got);
}

Test(champsim, dropped_destination_carries_the_dependence) {
  /* ChampSim "add rax, rbx" writes rax (10) and flags (25); the following
     "jcc" reads flags: it must depend on the add through rax */
  uint8_t rec[3][64];
  memset(rec, 0, sizeof rec);
  for (int k = 0; k < 3; k++)
    for (int b = 0; b < 8; b++) rec[k][b] = (uint8_t)((uint64_t)(0x1000 + 4 * k) >> 8 * b);
  rec[0][10] = 10, rec[0][11] = 25, rec[0][12] = 10, rec[0][13] = 7;     /* add rax, rbx */
  rec[1][8] = 1, rec[1][10] = 26, rec[1][12] = 26, rec[1][13] = 25;      /* jcc, not taken */
  rec[2][10] = 10, rec[2][12] = 3;                                       /* mov rax, rdi */
  char *path = tmp_path("dep.champsimtrace");
  FILE *f = fopen(path, "wb");
  fwrite(rec, 1, sizeof rec, f);
  fclose(f);
  ic_inst got[3];
  champsim_read_all(path, got, 3);
  cr_assert_eq(got[0].opclass, IC_OP_INT_ALU);
  cr_assert_eq(got[0].dst[0], 10);
  cr_assert_eq(got[1].opclass, IC_OP_BRANCH);
  cr_assert_eq(got[1].src[0], 10, "jcc reads the flags through rax: %u", got[1].src[0]);
  cr_assert_eq(got[1].src[1], IC_REG_NONE);
  cr_assert_eq(got[1].next_pc, 0x1008, "%llx", (unsigned long long)got[1].next_pc);
  unlink(path);
}

/* ---- the command line ---------------------------------------------------- */

typedef struct result {
  int status;
  char *out, *err;
} result;

static result icost(const char *args) {
  char cmd[4096];
  char *o = tmp_path("out"), *e = tmp_path("err");
  snprintf(cmd, sizeof cmd, "%s %s >%s 2>%s", ICOST_BINARY, args, o, e);
  int st = system(cmd);
  char *ob = t_slurp(o, NULL), *eb = t_slurp(e, NULL);
  result r = {WIFEXITED(st) ? WEXITSTATUS(st) : -1, ob ? ob : strdup(""), eb ? eb : strdup("")};
  unlink(o);
  unlink(e);
  return r;
}

static void result_free(result *r) {
  free(r->out);
  free(r->err);
}

static char *compile(const char *name, const char *src) {
  static char out[512];
  if (system("riscv64-linux-gnu-gcc --version >/dev/null 2>&1") != 0) {
    cr_skip_test("riscv64-linux-gnu-gcc not found: trace CLI tests skipped");
    return NULL;
  }
  char csrc[600], cmd[1400];
  snprintf(csrc, sizeof csrc, "%s/h27_%s.c", ICOST_BUILD_DIR, name);
  snprintf(out, sizeof out, "%s/h27_%s", ICOST_BUILD_DIR, name);
  FILE *f = fopen(csrc, "w");
  cr_assert_not_null(f);
  fputs(src, f);
  fclose(f);
  snprintf(cmd, sizeof cmd, "riscv64-linux-gnu-gcc -O2 -static -o %s %s 2>&1", out, csrc);
  cr_assert_eq(system(cmd), 0, "cross compile of %s failed", name);
  return out;
}

Test(trace_cli, recorded_trace_gives_the_live_numbers_for_every_method, .timeout = 300) {
  char *prog = compile("branch", t_guest_random_branch);
  char *trc = tmp_path("branch.trc"), args[2048];
  snprintf(args, sizeof args, "record -o %s -- %s 30000", trc, prog);
  result r = icost(args);
  cr_assert_eq(r.status, 0, "%s", r.err);
  cr_assert(strstr(r.err, "bytes per instruction"), "%s", r.err);
  result_free(&r);
  const char *methods[] = {"graph", "multisim", "graphfrag --fragments 20 --frag-length 1000",
                           "profiler --fragments 20 --frag-length 1000"};
  const char *common = "--format csv --categories dl1,win,bmisp --skip 20k --warm 10k --max 60k";
  for (int m = 0; m < 4; m++) {
    snprintf(args, sizeof args, "--method %s %s -- %s 30000", methods[m], common, prog);
    result live = icost(args);
    snprintf(args, sizeof args, "--method %s %s --trace %s", methods[m], common, trc);
    result tr = icost(args);
    cr_assert_eq(live.status, 0, "%s", live.err);
    cr_assert_eq(tr.status, 0, "%s", tr.err);
    cr_assert(strstr(live.out, "bmisp,"), "%s", live.out);
    /* the same report but for what names the input (a program, a trace) */
    t_drop_provenance(tr.out);
    t_drop_provenance(live.out);
    cr_assert_str_eq(tr.out, live.out, "--method %s: trace\n%s\nlive\n%s", methods[m], tr.out,
                     live.out);
    result_free(&live);
    result_free(&tr);
  }
  /* critical and sim too */
  const char *cmds[] = {"sim", "critical"};
  for (int m = 0; m < 2; m++) {
    snprintf(args, sizeof args, "%s --skip 20k --max 40k -- %s 30000", cmds[m], prog);
    result live = icost(args);
    /* a trace keeps no symbols: critical's functions and lines come from
     * the recorded program */
    snprintf(args, sizeof args, "%s --skip 20k --max 40k --trace %s%s%s", cmds[m], trc, m ? " --symbols " : "",
             m ? prog : "");
    result tr = icost(args);
    cr_assert_eq(tr.status, 0, "%s", tr.err);
    /* the first line names the workload */
    const char *a = strstr(live.out, "\nconfig"), *b = strstr(tr.out, "\nconfig");
    if (a && b) cr_assert_str_eq(b, a);
    else cr_assert_str_eq(tr.out, live.out);
    result_free(&live);
    result_free(&tr);
  }
  /* a --skip past the end is an error, not an empty run */
  snprintf(args, sizeof args, "sim --skip 10M --trace %s", trc);
  r = icost(args);
  cr_assert_eq(r.status, 2, "%s", r.err);
  cr_assert(strstr(r.err, "within --skip"), "%s", r.err);
  result_free(&r);
  unlink(trc);
}

Test(trace_cli, bad_files_get_one_line) {
  char *prog = compile("branch_bad", t_guest_random_branch);
  char *trc = tmp_path("b.trc"), args[2048];
  snprintf(args, sizeof args, "record -o %s --max 5000 -- %s 30000", trc, prog);
  result r = icost(args);
  cr_assert_eq(r.status, 0, "%s", r.err);
  result_free(&r);
  size_t len = 0;
  char *bytes = t_slurp(trc, &len);
  char *bad = tmp_path("bad.trc");
  char *cs = tmp_path("bad.champsimtrace.xz"), *csg = tmp_path("bad.champsimtrace.gz");
  char *csr = tmp_path("bad.champsimtrace");
  struct {
    const char *what, *file, *fmt, *expect;
  } cases[] = {
      {"truncated", bad, "", "truncated"},
      {"corrupted", bad, "", "checksum"},
      {"an ELF", prog, "", "not an icost trace"},
      {"missing", "/nonexistent/x.trc", "", "cannot open"},
      {"icost as champsim", trc, "--trace-format champsim", "not a ChampSim"},
      {"truncated xz", cs, "", "truncated"},
      {"corrupted gz", csg, "", "gzip"},
      {"raw, not 64-byte records", csr, "", "truncated"},
      {"bad --trace-format", trc, "--trace-format pin", "expected icost or champsim"},
  };
  for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
    FILE *f;
    if (k == 0 || k == 1) {
      f = fopen(bad, "wb");
      if (k == 0) fwrite(bytes, 1, len / 2, f);
      else {
        bytes[len / 2] ^= 0x40;
        fwrite(bytes, 1, len, f);
        bytes[len / 2] ^= 0x40;
      }
      fclose(f);
    }
    if (k == 5 || k == 6) { /* a real ChampSim trace, cut or bent */
      char *good = k == 5 ? tmp_path("g.champsimtrace.xz") : tmp_path("g.champsimtrace.gz");
      snprintf(args, sizeof args, "record --format champsim -o %s --max 20000 -- %s 30000", good, prog);
      r = icost(args);
      cr_assert_eq(r.status, 0, "%s", r.err);
      result_free(&r);
      size_t gl = 0;
      char *g = t_slurp(good, &gl);
      f = fopen(cases[k].file, "wb");
      if (k == 5) fwrite(g, 1, gl - 40, f);
      else {
        g[gl - 6] ^= 0x11; /* the crc32 of the gzip trailer */
        fwrite(g, 1, gl, f);
      }
      fclose(f);
      free(g);
      unlink(good);
    }
    if (k == 7) {
      f = fopen(csr, "wb");
      for (int j = 0; j < 100; j++) fputc(0, f);
      fclose(f);
    }
    snprintf(args, sizeof args, "sim %s --trace %s", cases[k].fmt, cases[k].file);
    r = icost(args);
    cr_assert_eq(r.status, 2, "%s: exit %d: %s", cases[k].what, r.status, r.err);
    cr_assert(strncmp(r.err, "icost: ", 7) == 0 && strchr(r.err, '\n') == r.err + strlen(r.err) - 1,
              "%s: not one line: %s", cases[k].what, r.err);
    cr_assert(strstr(r.err, cases[k].expect), "%s: %s", cases[k].what, r.err);
    result_free(&r);
  }
  /* a trace and a program together */
  snprintf(args, sizeof args, "sim --trace %s -- %s", trc, prog);
  r = icost(args);
  cr_assert_eq(r.status, 2, "%s", r.err);
  result_free(&r);
  unlink(bad), unlink(cs), unlink(csg), unlink(csr), unlink(trc);
  free(bytes);
}

/* ---- textbook timings through each trace format -------------------------- */

static double stat_of(const char *out, const char *key) {
  const char *p = strstr(out, key);
  return p ? atof(p + strlen(key)) : NAN;
}

/* Writes v as an icost trace and a ChampSim trace; runs `icost sim` on
   both; out[0], out[1] are their outputs. */
static void sim_both(const ic_inst *v, size_t n, const char *name, result out[2]) {
  char *a = tmp_path("tb.trc"), *b = tmp_path("tb.champsimtrace.gz"), args[1200];
  write_trace(a, v, n);
  ic_err err;
  ic_champsim_writer *w;
  cr_assert_eq(ic_champsim_writer_open(&w, b, &err), IC_OK);
  cr_assert_eq(ic_champsim_write(w, v, n, &err), IC_OK);
  cr_assert_eq(ic_champsim_writer_close(w, &err), IC_OK);
  const char *files[2] = {a, b};
  for (int k = 0; k < 2; k++) {
    snprintf(args, sizeof args, "sim --skip %zu --warm %zu --trace %s", n / 4, n / 4, files[k]);
    out[k] = icost(args);
    cr_assert_eq(out[k].status, 0, "%s %s: %s", name, files[k], out[k].err);
  }
  unlink(a), unlink(b);
}

/* A loop of `body` records, the last a taken branch back; gen fills the
   others. */
static ic_inst *loop(size_t n, size_t body, void (*gen)(ic_inst *, size_t, uint64_t *),
                     uint64_t seed) {
  ic_inst *v = calloc(n, sizeof *v);
  uint64_t s = seed;
  for (size_t k = 0; k < n; k++) {
    ic_inst *in = &v[k];
    size_t slot = k % body;
    in->pc = 0x10000 + 4 * slot;
    in->size = 4;
    in->next_pc = in->pc + 4;
    for (int j = 0; j < IC_MAX_SRC; j++) in->src[j] = IC_REG_NONE;
    in->dst[0] = IC_REG_NONE;
    if (slot == body - 1) {
      in->opclass = IC_OP_BRANCH;
      in->next_pc = 0x10000;
    } else {
      in->opclass = IC_OP_INT_ALU;
      gen(in, slot, &s);
    }
  }
  return v;
}

static void g_add(ic_inst *in, size_t slot, uint64_t *s) {
  (void)slot, (void)s;
  in->src[0] = 3, in->dst[0] = 3;
}

static void g_chase(ic_inst *in, size_t slot, uint64_t *s) {
  (void)slot;
  in->opclass = IC_OP_LOAD;
  in->src[0] = 3, in->dst[0] = 3;
  in->mem_size = 8;
  in->mem_addr = 0x10000000 + 64 * (rng(s) % (1u << 20)); /* 64 MB of lines */
}

Test(trace_cli, textbook_timings_through_both_formats, .timeout = 120) {
  result r[2];
  const size_t n = 200000;
  ic_inst *v = loop(n, 17, g_add, 1);
  sim_both(v, n, "add chain", r);
  for (int k = 0; k < 2; k++) {
    double per = stat_of(r[k].out, "cycles") / (stat_of(r[k].out, "instructions") * 16 / 17);
    cr_expect(per > 0.95 && per < 1.15, "format %d: %.3f cycles per dependent add", k, per);
    result_free(&r[k]);
  }
  free(v);
  const size_t nc = 16000;
  v = loop(nc, 2, g_chase, 7);
  sim_both(v, nc, "chase", r);
  for (int k = 0; k < 2; k++) {
    double per = stat_of(r[k].out, "cycles") / (stat_of(r[k].out, "instructions") / 2);
    /* memory + L2 + L1 latency, plus a DTLB miss at most */
    cr_expect(per > 114 * 0.98 && per < 144 * 1.02, "format %d: %.1f cycles per hop", k, per);
    result_free(&r[k]);
  }
  free(v);
  /* random branches: a loop of 33, 16 of them random branches over an add */
  ic_inst *w = calloc(n, sizeof *w);
  size_t m = 0;
  uint64_t s = 9;
  while (m < n) {
    for (size_t slot = 0; slot < 33 && m < n; slot++) {
      ic_inst in;
      memset(&in, 0, sizeof in);
      in.pc = 0x10000 + 4 * slot;
      in.size = 4;
      in.next_pc = in.pc + 4;
      for (int j = 0; j < IC_MAX_SRC; j++) in.src[j] = IC_REG_NONE;
      in.dst[0] = IC_REG_NONE;
      in.opclass = IC_OP_INT_ALU;
      if (slot == 32) {
        in.opclass = IC_OP_BRANCH;
        in.next_pc = 0x10000;
      } else if (slot % 2 == 1) {
        in.opclass = IC_OP_BRANCH;
        if (rng(&s) & 1) in.next_pc = in.pc + 8;
      } else {
        in.src[0] = 4, in.dst[0] = 4;
      }
      w[m++] = in;
      if (in.next_pc == in.pc + 8) slot++; /* skips the next add */
    }
  }
  sim_both(w, n, "random branches", r);
  uint64_t random = 0;
  for (size_t k = n / 4; k < n; k++) random += w[k].opclass == IC_OP_BRANCH && w[k].pc != 0x10000 + 4 * 32;
  for (int k = 0; k < 2; k++) {
    double rate = stat_of(r[k].out, "branch_mispredictions") / (double)random;
    cr_expect(rate > 0.4 && rate < 0.6, "format %d: %.3f of the random branches mispredicted", k, rate);
    result_free(&r[k]);
  }
  free(w);
}
