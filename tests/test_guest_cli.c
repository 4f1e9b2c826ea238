/* test_guest_cli.c: guests as qemu-user runs them, and answers that do not
 * depend on where the program lies: an unknown system call is -ENOSYS and
 * the program goes on (listed once on stderr); a segfault exits 139 under
 * `icost emu` and under the timing commands, which print the partial report;
 * the same binary in directories of different path lengths gives the same
 * cycles; /dev/urandom follows --seed; /proc/self/maps is the guest's;
 * --guest-memory makes big allocations fail with ENOMEM; --guest-root
 * confines the guest's paths. One guest program, compiled at test time. */
#include <criterion/criterion.h>
#include <sys/stat.h>

#include "test_rv64_util.h"

static const char guest_src[] =
    "#include <errno.h>\n#include <fcntl.h>\n#include <stdio.h>\n#include <stdlib.h>\n"
    "#include <string.h>\n#include <unistd.h>\n#include <sys/syscall.h>\n"
    "int main(int argc, char **argv) {\n"
    "  const char *m = argc > 1 ? argv[1] : \"\";\n"
    "  if (!strcmp(m, \"nosys\")) {\n"
    "    long r = syscall(9999, 1, 2, 3);\n"
    "    printf(\"9999: %ld errno %d\\n\", r, errno);\n"
    "    r = syscall(9999);\n"
    "    printf(\"again: %ld errno %d\\n\", r, errno);\n"
    "    return 3;\n"
    "  }\n"
    "  if (!strcmp(m, \"segv\")) {\n"
    "    volatile long s = 0;\n"
    "    for (long i = 0; i < 20000; i++) s += i * i;\n"
    "    printf(\"before %ld\\n\", (long)s); fflush(stdout);\n"
    "    *(volatile int *)8 = 1;\n"
    "  }\n"
    "  if (!strcmp(m, \"rand\")) {\n"
    "    unsigned char b[16]; int fd = open(\"/dev/urandom\", O_RDONLY);\n"
    "    if (fd < 0 || read(fd, b, 16) != 16) return 9;\n"
    "    for (int i = 0; i < 16; i++) printf(\"%02x\", b[i]);\n"
    "    printf(\"\\n\"); return 0;\n"
    "  }\n"
    "  if (!strcmp(m, \"maps\")) {\n"
    "    char b[4096]; int fd = open(\"/proc/self/maps\", O_RDONLY);\n"
    "    ssize_t n = fd < 0 ? -1 : read(fd, b, sizeof b - 1);\n"
    "    if (n < 0) return 9;\n"
    "    b[n] = 0; fputs(b, stdout); return 0;\n"
    "  }\n"
    "  if (!strcmp(m, \"fork\")) { int r = fork(); printf(\"fork %d\\n\", r); return 0; }\n"
    "  if (!strcmp(m, \"mem\")) {\n"
    "    char *p = malloc(64 << 20);\n"
    "    printf(\"malloc %s\\n\", p ? \"ok\" : strerror(errno));\n"
    "    return 0;\n"
    "  }\n"
    "  if (!strcmp(m, \"open\")) {\n"
    "    int fd = open(argv[2], O_RDONLY);\n"
    "    printf(\"open %s\\n\", fd < 0 ? strerror(errno) : \"ok\");\n"
    "    return 0;\n"
    "  }\n"
    "  volatile long s = 0;\n"
    "  for (long i = 0; i < 30000; i++) s += (i * 7) ^ (s >> 3);\n"
    "  return (int)(s & 1);\n"
    "}\n";

static char exe[200];

static void setup(void) {
  if (!t_have("riscv64-linux-gnu-gcc")) cr_skip_test("riscv64-linux-gnu-gcc not installed");
  t_tmp(exe, sizeof exe, "guest");
  cr_assert_eq(t_cross_compile(guest_src, exe, NULL), 0, "cannot compile the guest");
}

static int run(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int run(char **out, const char *fmt, ...) {
  char cmd[2048];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(cmd, sizeof cmd, fmt, ap);
  va_end(ap);
  return t_run_capture(cmd, out);
}

static unsigned count(const char *s, const char *what) {
  unsigned n = 0;
  for (const char *p = s; (p = strstr(p, what)) != NULL; p += strlen(what)) n++;
  return n;
}

Test(guest_cli, unknown_syscall_as_qemu) {
  setup();
  char *q = NULL, *e, *err;
  int qrc = t_have("qemu-riscv64") ? run(&q, "qemu-riscv64 %s nosys 2>/dev/null", exe) : 3;
  int erc = run(&e, "%s emu -- %s nosys 2>/dev/null", ICOST_BINARY, exe);
  cr_assert_eq(erc, qrc);
  cr_assert_str_eq(e, "9999: -1 errno 38\nagain: -1 errno 38\n");
  if (q) cr_assert_str_eq(e, q);
  cr_assert_eq(run(&err, "%s emu -- %s nosys 2>&1 >/dev/null", ICOST_BINARY, exe), 3);
  cr_assert_eq(count(err, "unsupported system calls"), 1, "%s", err);
  cr_assert(strstr(err, "9999 (2 calls)"), "%s", err);
  free(err);
  /* a timing run: the calls are listed once, the run is timed as usual */
  cr_assert_eq(run(&err, "%s sim -- %s nosys 2>&1 >/dev/null", ICOST_BINARY, exe), 0);
  cr_assert_eq(count(err, "unsupported system calls"), 1, "%s", err);
  free(err);
  cr_assert_eq(run(&err, "%s emu -- %s fork 2>&1", ICOST_BINARY, exe), 0);
  cr_assert(strstr(err, "fork -1\n"), "%s", err);
  cr_assert(strstr(err, "220 [clone: threads and child processes are not supported] (1 call)"),
            "%s", err);
  free(q), free(e), free(err);
}

Test(guest_cli, segfault_exits_139_with_partial_report) {
  setup();
  char *out;
  if (t_have("qemu-riscv64")) {
    cr_assert_eq(run(&out, "qemu-riscv64 %s segv 2>/dev/null", exe), 139);
    free(out);
  }
  cr_assert_eq(run(&out, "%s emu -- %s segv 2>&1", ICOST_BINARY, exe), 139);
  cr_assert(strstr(out, "before "), "%s", out);
  cr_assert(strstr(out, "store to unmapped address 0x8"), "%s", out);
  free(out);
  cr_assert_eq(run(&out, "%s sim -- %s segv 2>/dev/null", ICOST_BINARY, exe), 139);
  cr_assert(strstr(out, "PARTIAL "), "%s", out);
  cr_assert(strstr(out, "signal 11 (SIGSEGV"), "%s", out);
  cr_assert(strstr(out, "cycles "), "%s", out);
  free(out);
  cr_assert_eq(run(&out, "%s --categories dl1,bmisp -- %s segv 2>&1", ICOST_BINARY, exe), 139);
  cr_assert(strstr(out, "PARTIAL "), "%s", out);
  cr_assert(strstr(out, "base"), "%s", out);
  cr_assert(strstr(out, "the report above is of the instructions timed before it"), "%s", out);
  free(out);
}

/* "cycles N" of `icost sim` on prog, run from cwd. */
static unsigned long long cycles_of(const char *cwd, const char *prog) {
  char *out;
  cr_assert_eq(run(&out, "cd %s && %s sim -- %s 2>/dev/null", cwd, ICOST_BINARY, prog), 0);
  const char *c = strstr(out, "\ncycles ");
  cr_assert_not_null(c, "%s", out);
  unsigned long long v = strtoull(c + 8 + strspn(c + 8, " "), NULL, 10);
  free(out);
  return v;
}

Test(guest_cli, cycles_do_not_depend_on_where_the_program_lies) {
  setup();
  char d1[300], d2[600], p1[700], p2[900], *out;
  snprintf(d1, sizeof d1, "%s.d", exe);
  snprintf(d2, sizeof d2, "%s.a_much_longer_directory_name_of_sixty_characters_or_so_here", exe);
  mkdir(d1, 0755), mkdir(d2, 0755);
  snprintf(p1, sizeof p1, "%s/prog", d1);
  snprintf(p2, sizeof p2, "%s/sub_dir_too/prog", d2);
  char sub[700];
  snprintf(sub, sizeof sub, "%s/sub_dir_too", d2);
  mkdir(sub, 0755);
  cr_assert_eq(run(&out, "cp %s %s && cp %s %s", exe, p1, exe, p2), 0);
  free(out);
  unsigned long long a = cycles_of("/tmp", p1), b = cycles_of("/tmp", p2);
  unsigned long long c = cycles_of(d1, "./prog"), d = cycles_of(sub, "prog");
  cr_assert_gt(a, 0);
  cr_assert_eq(a, b, "%llu cycles in %s, %llu in %s", a, p1, b, p2);
  cr_assert_eq(a, c);
  cr_assert_eq(a, d);
  run(&out, "rm -rf %s %s", d1, d2);
  free(out);
}

Test(guest_cli, urandom_follows_the_seed) {
  setup();
  char *a, *b, *c;
  cr_assert_eq(run(&a, "%s emu --seed 7 -- %s rand", ICOST_BINARY, exe), 0);
  cr_assert_eq(run(&b, "%s emu --seed 7 -- %s rand", ICOST_BINARY, exe), 0);
  cr_assert_eq(run(&c, "%s emu --seed 8 -- %s rand", ICOST_BINARY, exe), 0);
  cr_assert_eq(strlen(a), 33, "%s", a);
  cr_assert_str_eq(a, b);
  cr_assert_str_neq(a, c);
  free(a), free(b), free(c);
}

Test(guest_cli, proc_self_maps_is_the_guests) {
  setup();
  char *out;
  cr_assert_eq(run(&out, "%s emu -- %s maps", ICOST_BINARY, exe), 0);
  cr_assert(strstr(out, "[stack]"), "%s", out);
  cr_assert(strstr(out, "r-xp"), "%s", out);
  cr_assert(strstr(out, exe), "%s", out); /* the program's segments */
  cr_assert_null(strstr(out, "[vdso]"), "%s", out); /* none of icost's own mappings */
  cr_assert_null(strstr(out, "libc"), "%s", out);
  free(out);
}

Test(guest_cli, guest_memory_cap_is_enomem) {
  setup();
  char *out;
  cr_assert_eq(run(&out, "%s emu -- %s mem", ICOST_BINARY, exe), 0);
  cr_assert_str_eq(out, "malloc ok\n");
  free(out);
  cr_assert_eq(run(&out, "%s emu --guest-memory 32M -- %s mem", ICOST_BINARY, exe), 0);
  cr_assert_str_eq(out, "malloc Cannot allocate memory\n");
  free(out);
  cr_assert_eq(run(&out, "%s sim --guest-memory 32M --guest-output -- %s mem 2>/dev/null", ICOST_BINARY, exe), 0);
  cr_assert(strstr(out, "malloc Cannot allocate memory\n"), "%s", out);
  free(out);
  cr_assert_eq(run(&out, "%s emu --guest-memory 1M -- %s mem 2>&1", ICOST_BINARY, exe), 2);
  cr_assert(strstr(out, "guest memory cap"), "%s", out);
  free(out);
  cr_assert_eq(run(&out, "%s emu --guest-memory lots -- %s mem 2>&1", ICOST_BINARY, exe), 2);
  free(out);
}

Test(guest_cli, guest_root_confines_paths) {
  setup();
  char root[300], *out;
  snprintf(root, sizeof root, "%s.root", exe);
  cr_assert_eq(run(&out, "rm -rf %s && mkdir -p %s/d && echo x > %s/d/f && ln -s /etc/passwd %s/esc"
                   " && ln -s ../../.. %s/d/up", root, root, root, root, root), 0);
  free(out);
  const char *inside[] = {"/d/f", "d/f", "/d/up/d/f", "../../d/f"};
  const char *outside[] = {"/etc/passwd", "../../etc/passwd", "/esc", "/d/up/etc/passwd"};
  for (int i = 0; i < 4; i++) {
    cr_assert_eq(run(&out, "%s emu --guest-root %s -- %s open %s", ICOST_BINARY, root, exe, inside[i]), 0);
    cr_assert_str_eq(out, "open ok\n", "%s: %s", inside[i], out);
    free(out);
    cr_assert_eq(run(&out, "%s emu --guest-root %s -- %s open %s", ICOST_BINARY, root, exe, outside[i]), 0);
    cr_assert_str_eq(out, "open No such file or directory\n", "%s: %s", outside[i], out);
    free(out);
  }
  /* without a root the guest sees the host's files, as under qemu-user */
  cr_assert_eq(run(&out, "%s emu -- %s open /etc/passwd", ICOST_BINARY, exe), 0);
  cr_assert_str_eq(out, "open ok\n");
  free(out);
  cr_assert_eq(run(&out, "%s emu --guest-root %s/d/f -- %s 2>&1", ICOST_BINARY, root, exe), 2);
  cr_assert(strstr(out, "not a directory"), "%s", out);
  free(out);
  cr_assert_eq(run(&out, "%s sim --guest-root %s/nope -- %s 2>&1", ICOST_BINARY, root, exe), 2);
  free(out);
  run(&out, "rm -rf %s", root);
  free(out);
}
