/* test_rv64_elf.c: the ELF loader accepts what it should and rejects every
 * malformed or unsupported file with IC_EINPUT and a one-line reason that
 * names the file, never crashing (these tests also run under ASan/UBSan). */
#include <criterion/criterion.h>

#include "rv.h"
#include "test_rv64_util.h"


static ic_status load_bytes(const uint8_t *b, size_t n, rv_proc **out, ic_err *err,
                            char *path, size_t cap) {
  t_tmp(path, cap, "elf");
  cr_assert_eq(t_write_file(path, b, n), 0);
  char *argv[] = {path, NULL};
  ic_status st = rv_proc_load(out, path, 1, argv, NULL, err);
  unlink(path);
  return st;
}

/* Loads b; expects IC_EINPUT and a message with the path and `want`. */
static void expect_reject(const uint8_t *b, size_t n, const char *want) {
  rv_proc *p = (rv_proc *)0x1;
  ic_err err = {{0}};
  char path[128];
  ic_status st = load_bytes(b, n, &p, &err, path, sizeof path);
  cr_assert_eq(st, IC_EINPUT, "accepted, expected: %s", want);
  cr_assert_null(p);
  cr_assert(strstr(err.msg, path) == err.msg, "message does not start with the path: %s", err.msg);
  cr_assert(strchr(err.msg, '\n') == NULL, "message is not one line: %s", err.msg);
  if (want) cr_assert(strstr(err.msg, want), "message \"%s\" lacks \"%s\"", err.msg, want);
}

/* li a0,7; li a7,93; ecall */
static uint8_t *mini(size_t *n) {
  const uint32_t exit7[] = {LI(10, 7), LI(17, 93), ECALL};
  return t_elf_image(exit7, sizeof exit7, "data", 4, n);
}

Test(rv64_elf, minimal_executable_runs) {
  size_t n;
  uint8_t *b = mini(&n);
  rv_proc *p;
  ic_err err;
  char path[128];
  cr_assert_eq(load_bytes(b, n, &p, &err, path, sizeof path), IC_OK, "%s", err.msg);
  rv_proc_skip(p, 100);
  int code;
  cr_assert_eq(rv_proc_state(p, &code, NULL), RV_EXITED);
  cr_assert_eq(code, 7);
  cr_assert_eq(rv_proc_icount(p), 3);
  rv_proc_destroy(p);
  free(b);
}

Test(rv64_elf, header_fields_are_checked) {
  size_t n;
  uint8_t *b = mini(&n), *c = malloc(n);
#define MUT(stmt, want)      \
  do {                       \
    memcpy(c, b, n);         \
    stmt;                    \
    expect_reject(c, n, want); \
  } while (0)
  MUT(c[0] = 0x7e, "not an ELF file");
  MUT(c[4] = 1, "not a 64-bit ELF");
  MUT(c[5] = 2, "not a little-endian");
  MUT(c[6] = 0, "ELF version");
  MUT(put16(c + 18, 62), "not a RISC-V executable (machine 62)");
  MUT(put16(c + 16, 1), "not an executable (ELF type 1)");
  MUT(put16(c + 16, 4), "not an executable (ELF type 4)");
  MUT(put32(c + 48, 0x8 | 0x1), "RV32E/RV64E");
  MUT(put16(c + 54, 32), "program header entry size");
  MUT(put16(c + 56, 0), "program header count 0");
  MUT(put16(c + 56, 0xffff), "program header count");
  MUT(put64(c + 32, 0xfffffffffffffff0ull), "program headers lie outside the file");
  MUT(put64(c + 32, n - 60), "program headers lie outside the file");
  MUT(put32(c + 64, 3), "dynamically linked");                       /* PT_INTERP */
  MUT((put32(c + 64, 0), put32(c + 64 + 56, 0)), "no loadable segment"); /* all PT_NULL */
  MUT(put64(c + 64 + 32, 0x10000), "file size exceeds memory size");
  MUT(put64(c + 64 + 8, n), "outside the file");                       /* offset past EOF */
  MUT(put64(c + 64 + 8, 0xffffffffffffff00ull), "outside the file");
  MUT(put64(c + 64 + 40, 1ull << 40), "absurd size");
  MUT(put64(c + 64 + 56 + 16, T_CODE_VA), "overlap");                  /* data onto code */
  MUT(put64(c + 64 + 16, 0xfffffffffffff000ull), "out of range");
  MUT(put64(c + 24, T_DATA_VA), "entry point");                         /* entry in data */
  MUT(put64(c + 24, 0x5000000), "entry point");
#undef MUT
  free(b);
  free(c);
}

Test(rv64_elf, short_files_and_non_files) {
  size_t n;
  uint8_t *b = mini(&n);
  expect_reject(b, 0, "not an ELF file");
  expect_reject(b, 3, "not an ELF file");
  expect_reject(b, 40, "truncated ELF header");
  free(b);
  rv_proc *p;
  ic_err err;
  char *argv[] = {"x", NULL};
  cr_assert_eq(rv_proc_load(&p, "/nonexistent/icost-test", 1, argv, NULL, &err), IC_EINPUT);
  cr_assert(strstr(err.msg, "/nonexistent/icost-test: cannot open"), "%s", err.msg);
  cr_assert_eq(rv_proc_load(&p, "/tmp", 1, argv, NULL, &err), IC_EINPUT);
  cr_assert(strstr(err.msg, "/tmp: is a directory"), "%s", err.msg);
}

/* Every truncation of a real static executable before the end of its last
   loadable segment is rejected; from there on the file still loads. */
static void truncations(const uint8_t *b, size_t n, size_t step) {
  uint64_t phoff, need = 64;
  uint16_t phnum;
  memcpy(&phoff, b + 32, 8);
  memcpy(&phnum, b + 56, 2);
  if (phoff + 56ull * phnum > need) need = phoff + 56ull * phnum;
  for (unsigned i = 0; i < phnum; i++) {
    uint32_t type;
    uint64_t off, filesz;
    memcpy(&type, b + phoff + 56 * i, 4);
    memcpy(&off, b + phoff + 56 * i + 8, 8);
    memcpy(&filesz, b + phoff + 56 * i + 32, 8);
    if (type == 1 && filesz && off + filesz > need) need = off + filesz;
  }
  cr_assert_leq(need, n);
  for (size_t len = 0; len <= n; len += (len < 512 ? 1 : step)) {
    rv_proc *p;
    ic_err err;
    char path[128];
    ic_status st = load_bytes(b, len, &p, &err, path, sizeof path);
    if (len < need) {
      cr_assert_eq(st, IC_EINPUT, "truncated at %zu of %llu accepted", len, (unsigned long long)need);
      cr_assert(err.msg[0] != 0);
    } else {
      cr_assert_eq(st, IC_OK, "truncated at %zu (>= %llu) rejected: %s", len,
                   (unsigned long long)need, err.msg);
      rv_proc_destroy(p);
    }
  }
}

Test(rv64_elf, truncated_minimal_executable) {
  size_t n;
  uint8_t *b = mini(&n);
  truncations(b, n, 7);
  free(b);
}

static uint8_t *read_all(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  cr_assert_not_null(f);
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  fseek(f, 0, SEEK_SET);
  uint8_t *b = malloc((size_t)len);
  cr_assert_eq(fread(b, 1, (size_t)len, f), (size_t)len);
  fclose(f);
  *n = (size_t)len;
  return b;
}

static const char hello_src[] =
    "#include <stdio.h>\nint main(int c, char **v) { printf(\"hi %d\\n\", c); return 3; }\n";

Test(rv64_elf, truncated_static_glibc_executable, .timeout = 120) {
  if (!t_have("riscv64-linux-gnu-gcc")) cr_skip_test("riscv64-linux-gnu-gcc not installed");
  char exe[128];
  t_tmp(exe, sizeof exe, "hello");
  cr_assert_eq(t_cross_compile(hello_src, exe, NULL), 0);
  size_t n;
  uint8_t *b = read_all(exe, &n);
  unlink(exe);
  truncations(b, n, 997);
  free(b);
}

Test(rv64_elf, dynamic_executable_is_rejected) {
  if (!t_have("riscv64-linux-gnu-gcc")) cr_skip_test("riscv64-linux-gnu-gcc not installed");
  char exe[128], src[160], cmd[512];
  t_tmp(exe, sizeof exe, "dyn");
  snprintf(src, sizeof src, "%s.c", exe);
  cr_assert_eq(t_write_file(src, hello_src, strlen(hello_src)), 0);
  snprintf(cmd, sizeof cmd, "riscv64-linux-gnu-gcc -O2 -o %s %s 2>/dev/null", exe, src);
  int rc = system(cmd);
  unlink(src);
  if (rc != 0) cr_skip_test("cannot link a dynamic riscv64 executable here");
  size_t n;
  uint8_t *b = read_all(exe, &n);
  unlink(exe);
  expect_reject(b, n, "dynamically linked (has PT_INTERP)");
  free(b);
}

Test(rv64_elf, static_pie_loads_and_runs) {
  if (!t_have("riscv64-linux-gnu-gcc")) cr_skip_test("riscv64-linux-gnu-gcc not installed");
  char exe[128], out[128];
  t_tmp(exe, sizeof exe, "pie");
  t_tmp(out, sizeof out, "pie.out");
  if (t_cross_compile(hello_src, exe, "-static-pie -fPIE") != 0)
    cr_skip_test("the cross compiler cannot link -static-pie");
  FILE *o = fopen(out, "w+");
  rv_options opt;
  rv_options_default(&opt);
  opt.stdout_fd = fileno(o);
  rv_proc *p;
  ic_err err;
  char *argv[] = {exe, "a", NULL};
  cr_assert_eq(rv_proc_load(&p, exe, 2, argv, &opt, &err), IC_OK, "%s", err.msg);
  unlink(exe);
  rv_proc_skip(p, 10000000);
  int code;
  const char *why;
  cr_assert_eq(rv_proc_state(p, &code, &why), RV_EXITED, "%s", why);
  cr_assert_eq(code, 3);
  rv_proc_destroy(p);
  char buf[64] = {0};
  rewind(o);
  cr_assert_not_null(fgets(buf, sizeof buf, o));
  cr_assert_str_eq(buf, "hi 2\n");
  fclose(o);
  unlink(out);
}

/* Random corruption of the headers: every outcome is a clean load or a
   clean IC_EINPUT; what loads also runs a little without crashing. */
Test(rv64_elf, random_header_corruption, .timeout = 120) {
  size_t n;
  uint8_t *b = mini(&n), *c = malloc(n);
  uint64_t s = 0x1234567;
  for (int iter = 0; iter < 400; iter++) {
    memcpy(c, b, n);
    int flips = 1 + iter % 4;
    for (int k = 0; k < flips; k++) {
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      size_t at = (size_t)(s >> 33) % (64 + 2 * 56);
      c[at] ^= (uint8_t)(1u << ((s >> 20) & 7));
      if ((s >> 40) % 3 == 0) c[at] = (uint8_t)(s >> 48);
    }
    rv_proc *p;
    ic_err err;
    char path[128];
    ic_status st = load_bytes(c, n, &p, &err, path, sizeof path);
    cr_assert(st == IC_OK || st == IC_EINPUT, "status %d", (int)st);
    if (st == IC_OK) {
      rv_proc_skip(p, 1000);
      rv_proc_destroy(p);
    } else {
      cr_assert(err.msg[0] != 0);
    }
  }
  free(b);
  free(c);
}

/* The image's code pointers: the functions a static table of function
 * pointers holds, main (whose address _start forms with auipc + addi), and
 * none that is not an instruction of the executable segment; sorted and
 * distinct; a clone has its own copy. Symbol addresses from nm. */
static const char fptr_src[] =
    "static int f1(int x) { return x + 1; }\n"
    "static int f2(int x) { return x * 3; }\n"
    "int (*const tab[2])(int) = {f1, f2};\n"
    "int main(int c, char **v) { (void)v; return tab[c & 1](c) & 7; }\n";

static uint64_t sym_addr(const char *exe, const char *name) {
  char cmd[512];
  snprintf(cmd, sizeof cmd, "riscv64-linux-gnu-nm %s | awk '$3 == \"%s\" {print $1}'", exe, name);
  FILE *f = popen(cmd, "r");
  cr_assert_not_null(f);
  unsigned long long a = 0;
  if (fscanf(f, "%llx", &a) != 1) a = 0;
  pclose(f);
  return a;
}

static int has_addr(const uint64_t *v, size_t n, uint64_t a) {
  for (size_t i = 0; i < n; i++)
    if (v[i] == a) return 1;
  return 0;
}

Test(rv64_elf, code_pointers_hold_function_pointers_and_main, .timeout = 120) {
  if (!t_have("riscv64-linux-gnu-gcc") || !t_have("riscv64-linux-gnu-nm"))
    cr_skip_test("riscv64 binutils not installed");
  char exe[128];
  t_tmp(exe, sizeof exe, "fptr");
  cr_assert_eq(t_cross_compile(fptr_src, exe, "-O1"), 0);
  const uint64_t f1 = sym_addr(exe, "f1"), f2 = sym_addr(exe, "f2"), m = sym_addr(exe, "main");
  cr_assert(f1 && f2 && m, "nm found f1 %llx f2 %llx main %llx", (unsigned long long)f1,
            (unsigned long long)f2, (unsigned long long)m);
  rv_proc *p;
  ic_err err;
  char *argv[] = {exe, NULL};
  cr_assert_eq(rv_proc_load(&p, exe, 1, argv, NULL, &err), IC_OK, "%s", err.msg);
  unlink(exe);
  ic_program_image im = rv_proc_image(p);
  cr_assert_not_null(im.code_pointers);
  const uint64_t *v;
  const size_t n = im.code_pointers(im.ctx, &v);
  cr_assert_gt(n, 3);
  cr_assert(has_addr(v, n, f1) && has_addr(v, n, f2), "the table's functions are missing");
  cr_assert(has_addr(v, n, m), "main is missing");
  for (size_t i = 0; i < n; i++) {
    if (i) cr_assert_gt(v[i], v[i - 1], "not ascending at %zu", i);
    cr_assert_eq(v[i] & 1, 0);
  }
  rv_proc *q = rv_proc_clone(p);
  cr_assert_not_null(q);
  rv_proc_destroy(p);
  ic_program_image iq = rv_proc_image(q);
  const uint64_t *w;
  cr_assert_eq(iq.code_pointers(iq.ctx, &w), n);
  cr_assert(has_addr(w, n, m));
  rv_proc_destroy(q);
}
