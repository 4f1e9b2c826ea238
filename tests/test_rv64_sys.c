/* test_rv64_sys.c: system calls, memory management and determinism.
 *
 * A C program exercising brk/mmap/mremap/munmap/mprotect through malloc,
 * file I/O (open, read, write, lseek, pread, fstat, stat, file mmap),
 * readlink(/proc/self/exe), getcwd and uname is compiled at test time and
 * run under qemu-riscv64 (the oracle) and the emulator: the outputs must be
 * equal. Then determinism: two runs give the same record stream; the seed
 * changes AT_RANDOM and getrandom and nothing else. Skipped without the
 * cross compiler (and qemu for the comparison). */
#include <criterion/criterion.h>
#include <fcntl.h>

#include "rv.h"
#include "test_rv64_util.h"

static const char sys_prog[] =
    "#define _GNU_SOURCE\n"
    "#include <stdio.h>\n"
    "#include <stdlib.h>\n"
    "#include <string.h>\n"
    "#include <fcntl.h>\n"
    "#include <unistd.h>\n"
    "#include <sys/mman.h>\n"
    "#include <sys/stat.h>\n"
    "#include <sys/utsname.h>\n"
    "int main(int argc, char **argv) {\n"
    "  if (argc < 2) return 9;\n"
    "  unsigned long sum = 0;\n"
    "  char *small[1000];\n"
    "  for (int i = 0; i < 1000; i++) { small[i] = malloc(16 + i % 200); memset(small[i], i, 16); }\n"
    "  for (int i = 0; i < 1000; i += 2) free(small[i]);\n"
    "  char *big = malloc(5 << 20);\n"
    "  for (int i = 0; i < (5 << 20); i += 4096) big[i] = (char)i;\n"
    "  big = realloc(big, 40 << 20);\n"
    "  for (int i = 0; i < (40 << 20); i += 4096) sum += (unsigned char)big[i];\n"
    "  free(big);\n"
    "  for (int i = 1; i < 1000; i += 2) sum += (unsigned char)small[i][3];\n"
    "  printf(\"heap %lu\\n\", sum);\n"
    "  FILE *f = fopen(argv[1], \"w\");\n"
    "  for (int i = 0; i < 3000; i++) fprintf(f, \"line %d %g\\n\", i, i / 7.0);\n"
    "  fclose(f);\n"
    "  struct stat st;\n"
    "  if (stat(argv[1], &st)) return 3;\n"
    "  printf(\"size %ld reg %d\\n\", (long)st.st_size, S_ISREG(st.st_mode));\n"
    "  int fd = open(argv[1], O_RDONLY);\n"
    "  char buf[64];\n"
    "  long n = pread(fd, buf, 20, 100); buf[n] = 0;\n"
    "  printf(\"pread %ld [%s]\\n\", n, buf);\n"
    "  printf(\"lseek %ld\\n\", (long)lseek(fd, -30, SEEK_END));\n"
    "  n = read(fd, buf, 63); buf[n] = 0;\n"
    "  printf(\"read %ld [%s]\\n\", n, buf);\n"
    "  char *m = mmap(0, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);\n"
    "  if (m == MAP_FAILED) return 4;\n"
    "  printf(\"mmap [%.24s] [%.10s]\\n\", m + 5000, m + st.st_size - 10);\n"
    "  munmap(m, st.st_size);\n"
    "  fstat(fd, &st);\n"
    "  printf(\"fstat %ld\\n\", (long)st.st_size);\n"
    "  close(fd);\n"
    "  printf(\"bad fd %ld\\n\", (long)read(fd, buf, 1));\n"
    "  printf(\"missing %d\\n\", open(\"/nonexistent/x\", O_RDONLY));\n"
    "  char *a = mmap(0, 3 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);\n"
    "  a[0] = 1; a[8191] = 2;\n"
    "  printf(\"mprotect %d\\n\", mprotect(a, 4096, PROT_READ));\n"
    "  printf(\"anon %d %d %d\\n\", a[0], a[8191], a[12000]);\n"
    "  a = mremap(a + 4096, 2 * 4096, 300 * 4096, MREMAP_MAYMOVE);\n"
    "  printf(\"mremap %d %d\\n\", a[4095], a[299 * 4096]);\n"
    "  printf(\"munmap %d\\n\", munmap(a, 300 * 4096));\n"
    "  char exe[512]; n = readlink(\"/proc/self/exe\", exe, sizeof exe - 1); exe[n > 0 ? n : 0] = 0;\n"
    "  printf(\"exe %s\\n\", strrchr(exe, '/') ? strrchr(exe, '/') + 1 : exe);\n"
    "  char cwd[512]; printf(\"cwd %d\\n\", getcwd(cwd, sizeof cwd) != 0);\n"
    "  struct utsname u; uname(&u); printf(\"uname %s %s\\n\", u.sysname, u.machine);\n"
    "  unlink(argv[1]);\n"
    "  fprintf(stderr, \"to stderr\\n\");\n"
    "  return 5;\n"
    "}\n";

static const char rand_prog[] =
    "#include <stdio.h>\n"
    "#include <sys/auxv.h>\n"
    "#include <sys/random.h>\n"
    "#include <time.h>\n"
    "int main(void) {\n"
    "  const unsigned char *r = (const unsigned char *)getauxval(AT_RANDOM);\n"
    "  unsigned char g[16]; getrandom(g, 16, 0);\n"
    "  struct timespec ts; clock_gettime(CLOCK_MONOTONIC, &ts);\n"
    "  for (int i = 0; i < 16; i++) printf(\"%02x\", r[i]);\n"
    "  printf(\" \");\n"
    "  for (int i = 0; i < 16; i++) printf(\"%02x\", g[i]);\n"
    "  printf(\" %ld\\n\", ts.tv_nsec);\n"
    "  return 0;\n"
    "}\n";

/* Runs exe under the emulator; stdout goes to a temp file whose contents
   are returned (malloc'd). */
static char *run_emu(const char *exe, int argc, char **argv, uint64_t seed, int *code) {
  char out[128];
  t_tmp(out, sizeof out, "sys.out");
  int fd = open(out, O_RDWR | O_CREAT | O_TRUNC, 0600);
  int nul = open("/dev/null", O_WRONLY);
  cr_assert(fd >= 0 && nul >= 0);
  rv_options o;
  rv_options_default(&o);
  o.stdout_fd = fd;
  o.stderr_fd = nul;
  o.seed = seed;
  rv_proc *p;
  ic_err err;
  cr_assert_eq(rv_proc_load(&p, exe, argc, argv, &o, &err), IC_OK, "%s", err.msg);
  rv_proc_skip(p, 3000000000ull);
  const char *why;
  cr_assert_eq(rv_proc_state(p, code, &why), RV_EXITED, "%s", why);
  rv_proc_destroy(p);
  off_t len = lseek(fd, 0, SEEK_END);
  char *buf = malloc((size_t)len + 1);
  cr_assert_eq(pread(fd, buf, (size_t)len, 0), len);
  buf[len] = 0;
  close(fd);
  close(nul);
  unlink(out);
  return buf;
}

Test(rv64_sys, memory_and_file_syscalls_match_qemu, .timeout = 120) {
  if (!t_have("riscv64-linux-gnu-gcc") || !t_have("qemu-riscv64"))
    cr_skip_test("riscv64-linux-gnu-gcc or qemu-riscv64 not installed");
  char exe[128], data[128], cmd[512];
  t_tmp(exe, sizeof exe, "sysprog");
  t_tmp(data, sizeof data, "sysdata");
  cr_assert_eq(t_cross_compile(sys_prog, exe, NULL), 0, "cross compile failed");
  char *want;
  snprintf(cmd, sizeof cmd, "qemu-riscv64 %s %s 2>/dev/null", exe, data);
  cr_assert_eq(t_run_capture(cmd, &want), 5);
  int code;
  char *argv[] = {exe, data, NULL};
  char *got = run_emu(exe, 2, argv, 0, &code);
  cr_assert_eq(code, 5);
  cr_assert_str_eq(got, want);
  cr_assert(strstr(got, "heap "), "the program did not run: %s", got);
  free(want);
  free(got);
  unlink(exe);
}

static uint64_t record_hash(const char *exe, uint64_t *count) {
  int nul = open("/dev/null", O_WRONLY);
  rv_options o;
  rv_options_default(&o);
  o.stdout_fd = nul;
  rv_proc *p;
  ic_err err;
  char *argv[] = {(char *)exe, NULL};
  cr_assert_eq(rv_proc_load(&p, exe, 1, argv, &o, &err), IC_OK, "%s", err.msg);
  ic_inst_source src = rv_proc_source(p);
  ic_inst buf[1000];
  uint64_t h = 1469598103934665603ull, n = 0;
  size_t k;
  while ((k = src.fill(src.ctx, buf, 1000)) > 0) {
    for (size_t i = 0; i < k; i++) {
      const ic_inst *r = &buf[i];
      uint64_t v[4] = {r->pc, r->next_pc, r->mem_addr,
                       (uint64_t)r->opclass | (uint64_t)r->src[0] << 8 | (uint64_t)r->src[1] << 16 |
                           (uint64_t)r->src[2] << 24 | (uint64_t)r->dst[0] << 32 |
                           (uint64_t)r->mem_size << 40 | (uint64_t)r->size << 48};
      for (int j = 0; j < 4; j++) h = (h ^ v[j]) * 1099511628211ull;
    }
    n += k;
  }
  cr_assert_eq(n, rv_proc_icount(p));
  cr_assert_eq(rv_proc_state(p, NULL, NULL), RV_EXITED);
  rv_proc_destroy(p);
  close(nul);
  *count = n;
  return h;
}

Test(rv64_sys, runs_are_deterministic_and_seeded, .timeout = 60) {
  if (!t_have("riscv64-linux-gnu-gcc")) cr_skip_test("riscv64-linux-gnu-gcc not installed");
  char exe[128];
  t_tmp(exe, sizeof exe, "randprog");
  cr_assert_eq(t_cross_compile(rand_prog, exe, NULL), 0, "cross compile failed");
  uint64_t n1, n2;
  uint64_t h1 = record_hash(exe, &n1), h2 = record_hash(exe, &n2);
  cr_assert_eq(n1, n2);
  cr_assert_eq(h1, h2);
  cr_assert_gt(n1, 1000);
  int code;
  char *argv[] = {exe, NULL};
  char *a = run_emu(exe, 1, argv, 0, &code), *b = run_emu(exe, 1, argv, 0, &code),
       *c = run_emu(exe, 1, argv, 1, &code);
  cr_assert_str_eq(a, b);
  cr_assert_eq(strlen(a), strlen(c));
  cr_assert(strncmp(a, c, 32) != 0, "AT_RANDOM ignores the seed: %s / %s", a, c);
  cr_assert(strncmp(a + 33, c + 33, 32) != 0, "getrandom ignores the seed: %s / %s", a, c);
  cr_assert(strncmp(a, a + 33, 32) != 0, "AT_RANDOM and getrandom give the same bytes");
  free(a);
  free(b);
  free(c);
  unlink(exe);
}

/* A checkpoint (clone) taken mid-run continues with exactly the records and
   output the original produces, and the two do not disturb each other. */
Test(rv64_sys, clone_continues_with_identical_records, .timeout = 60) {
  if (!t_have("riscv64-linux-gnu-gcc")) cr_skip_test("riscv64-linux-gnu-gcc not installed");
  char exe[128];
  t_tmp(exe, sizeof exe, "cloneprog");
  cr_assert_eq(t_cross_compile("#include <stdio.h>\n#include <stdlib.h>\n"
                               "int main(void) { unsigned long s = 0; char *b = malloc(1 << 20);\n"
                               "for (int i = 0; i < (1 << 20); i++) b[i] = (char)(i * 7);\n"
                               "for (int r = 0; r < 5; r++) for (int i = 0; i < (1 << 20); i += 61) s += b[i] * r;\n"
                               "printf(\"%lu\\n\", s); return (int)(s & 63); }\n",
                               exe, NULL),
               0);
  int nul = open("/dev/null", O_WRONLY);
  rv_options o;
  rv_options_default(&o);
  o.stdout_fd = nul;
  rv_proc *p;
  ic_err err;
  char *argv[] = {exe, NULL};
  cr_assert_eq(rv_proc_load(&p, exe, 1, argv, &o, &err), IC_OK, "%s", err.msg);
  cr_assert_eq(rv_proc_skip(p, 300000), 300000);
  rv_proc *q = rv_proc_clone(p);
  cr_assert_not_null(q);
  ic_inst_source sp = rv_proc_source(p), sq = rv_proc_source(q);
  ic_inst bp[777], bq[777];
  uint64_t total = 0;
  for (;;) {
    size_t kp = sp.fill(sp.ctx, bp, 777), kq = sq.fill(sq.ctx, bq, 777);
    cr_assert_eq(kp, kq);
    if (kp == 0) break;
    cr_assert(memcmp(bp, bq, kp * sizeof bp[0]) == 0, "records differ after %llu",
              (unsigned long long)total);
    total += kp;
  }
  int c1, c2;
  cr_assert_eq(rv_proc_state(p, &c1, NULL), RV_EXITED);
  cr_assert_eq(rv_proc_state(q, &c2, NULL), RV_EXITED);
  cr_assert_eq(c1, c2);
  cr_assert_eq(rv_proc_icount(p), rv_proc_icount(q));
  cr_assert_gt(total, 1000000);
  rv_proc_destroy(q);
  rv_proc_destroy(p);
  close(nul);
  unlink(exe);
}

/* A clone has a file offset of its own: run to the end first, it must not
   move the original's position in a file both have open (multisim replays
   the same reads from one checkpoint many times). */
Test(rv64_sys, clone_has_its_own_file_offsets, .timeout = 60) {
  if (!t_have("riscv64-linux-gnu-gcc")) cr_skip_test("riscv64-linux-gnu-gcc not installed");
  char exe[128], data[128];
  t_tmp(exe, sizeof exe, "clonefile");
  t_tmp(data, sizeof data, "clonefile.dat");
  cr_assert_eq(t_cross_compile("#include <fcntl.h>\n#include <unistd.h>\n"
                               "int main(int argc, char **argv) { (void)argc;\n"
                               "int fd = open(argv[1], O_RDONLY); if (fd < 0) return 98;\n"
                               "unsigned char c; unsigned long s = 0, n = 0;\n"
                               "while (read(fd, &c, 1) == 1) { s += c * (n % 13); n++; }\n"
                               "return n == 65536 ? (int)(s % 97) : 99; }\n",
                               exe, NULL),
               0);
  FILE *f = fopen(data, "wb");
  cr_assert_not_null(f);
  for (int i = 0; i < 65536; i++) fputc((i * 31 + (i >> 7)) & 0xff, f);
  fclose(f);
  rv_options o;
  rv_options_default(&o);
  rv_proc *p;
  ic_err err;
  char *argv[] = {exe, data, NULL};
  cr_assert_eq(rv_proc_load(&p, exe, 2, argv, &o, &err), IC_OK, "%s", err.msg);
  /* well inside the read loop: start-up is far shorter, the loop far longer */
  cr_assert_eq(rv_proc_skip(p, 1000000), 1000000);
  rv_proc *q = rv_proc_clone(p);
  cr_assert_not_null(q);
  rv_proc_skip(q, 100000000);
  rv_proc_skip(p, 100000000);
  int c1, c2;
  cr_assert_eq(rv_proc_state(q, &c2, NULL), RV_EXITED);
  cr_assert_eq(rv_proc_state(p, &c1, NULL), RV_EXITED);
  cr_assert_lt(c1, 97, "original read %s", c1 == 99 ? "the wrong number of bytes" : "nothing");
  cr_assert_eq(c1, c2);
  cr_assert_eq(rv_proc_icount(p), rv_proc_icount(q));
  rv_proc_destroy(q);
  rv_proc_destroy(p);
  unlink(exe);
  unlink(data);
}
