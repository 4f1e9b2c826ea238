/* diff_sys.c DIR: Linux system calls as a static program makes them:
 * files in DIR (open/openat, read, write, lseek, pread, pwrite, fstat,
 * readv, writev, unlink, errors), memory (brk, mmap,
 * munmap, mremap, mprotect), and the calls whose values legitimately differ
 * between runs, of which only what must agree is printed: clock_gettime
 * (monotonic and well-formed), getrandom (its length), uname (sysname and
 * machine). Writes to stdout and stderr through write and writev; exits 3. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include <time.h>

#include "diff_util.h"

static char path_buf[512];

static const char *in_dir(const char *dir, const char *name) {
  size_t d = strlen(dir), n = strlen(name);
  if (d + n + 2 > sizeof path_buf) {
    du_str("path too long\n");
    du_flush();
    exit(1);
  }
  memcpy(path_buf, dir, d);
  path_buf[d] = '/';
  memcpy(path_buf + d + 1, name, n + 1);
  return path_buf;
}

static void say(const char *what, int64_t v) {
  du_str(what);
  du_putc(' ');
  du_dec(v);
  du_nl();
}

/* a call's result, or -errno */
static int64_t res(int64_t r) { return r < 0 ? -errno : r; }

static void files(const char *dir) {
  char buf[64];
  int fd = open(in_dir(dir, "a.txt"), O_CREAT | O_TRUNC | O_RDWR, 0640);
  say("open", fd >= 0);
  say("write", res(write(fd, "hello, differential world\n", 26)));
  say("lseek cur", res(lseek(fd, 0, SEEK_CUR)));
  say("lseek set", res(lseek(fd, 7, SEEK_SET)));
  ssize_t n = read(fd, buf, 12);
  say("read", n);
  if (n > 0) {
    du_str("data ");
    for (ssize_t i = 0; i < n; i++) du_putc(buf[i]);
    du_nl();
  }
  say("pread", res(pread(fd, buf, 5, 0)));
  buf[5] = 0;
  du_str(buf);
  du_nl();
  say("pwrite", res(pwrite(fd, "HELLO", 5, 0)));
  say("lseek after pread/pwrite", res(lseek(fd, 0, SEEK_CUR)));
  say("lseek end", res(lseek(fd, -3, SEEK_END)));
  say("lseek bad whence", res(lseek(fd, 0, 99)));
  struct iovec iov[3] = {{"one ", 4}, {"", 0}, {"two three\n", 10}};
  say("writev", res(writev(fd, iov, 3)));
  struct stat st;
  say("fstat", res(fstat(fd, &st)));
  say("size", (int64_t)st.st_size);
  say("regular", S_ISREG(st.st_mode));
  say("perm", (int64_t)(st.st_mode & 0777));
  char a[4], b[8], c[100];
  struct iovec rv[3] = {{a, sizeof a}, {b, sizeof b}, {c, sizeof c}};
  lseek(fd, 0, SEEK_SET);
  ssize_t got = readv(fd, rv, 3);
  say("readv", got);
  du_str("readv data ");
  for (int i = 0; i < 4; i++) du_putc(a[i]);
  du_putc('|');
  for (int i = 0; i < 8; i++) du_putc(b[i]);
  du_putc('|');
  for (ssize_t i = 0; i < got - 12 && i < 100; i++) du_putc(c[i]);
  du_nl();
  say("read at eof", res(read(fd, buf, sizeof buf)));
  say("close", res(close(fd)));
  say("close again", res(close(fd)));
  say("read bad fd", res(read(fd, buf, 1)));

  /* a second file through openat, appended to, renamed; a third removed */
  int d = open(dir, O_RDONLY | O_DIRECTORY);
  say("open dir", d >= 0);
  int f2 = openat(d, "b.bin", O_CREAT | O_WRONLY | O_TRUNC, 0600);
  for (int k = 0; k < 4; k++) {
    for (int i = 0; i < 64; i++) buf[i] = (char)(k * 64 + i);
    say("write block", res(write(f2, buf, 64)));
  }
  close(f2);
  f2 = openat(d, "b.bin", O_WRONLY | O_APPEND);
  say("append", res(write(f2, "tail", 4)));
  say("lseek append", res(lseek(f2, 0, SEEK_CUR)));
  close(f2);
  int f3 = openat(d, "gone.txt", O_CREAT | O_WRONLY, 0600);
  close(f3);
  say("unlink", res(unlinkat(d, "gone.txt", 0)));
  say("unlink missing", res(unlinkat(d, "gone.txt", 0)));
  say("open missing", res(openat(d, "gone.txt", O_RDONLY)));
  say("open excl", res(openat(d, "b.bin", O_CREAT | O_EXCL | O_WRONLY, 0600)));
  say("read dir", res(read(d, buf, 1)));
  close(d);
}

static void memory(void) {
  /* brk: the raw system call, as malloc uses it */
  uint64_t b0 = (uint64_t)syscall(SYS_brk, 0);
  uint64_t b1 = (uint64_t)syscall(SYS_brk, b0 + 3 * 4096);
  say("brk grows", b1 == b0 + 3 * 4096);
  memset((void *)b0, 0x5a, 3 * 4096);
  say("brk memory", ((unsigned char *)b0)[3 * 4096 - 1]);
  uint64_t b2 = (uint64_t)syscall(SYS_brk, b0);
  say("brk shrinks", b2 == b0);

  size_t len = 5 * 4096;
  unsigned char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  say("mmap", m != MAP_FAILED);
  say("mmap zero", m[len - 1]);
  for (size_t i = 0; i < len; i++) m[i] = (unsigned char)(i * 7);
  unsigned char *g = mremap(m, len, 64 * 4096, MREMAP_MAYMOVE);
  say("mremap", g != MAP_FAILED);
  uint64_t sum = 0;
  for (size_t i = 0; i < len; i += 61) sum += g[i];
  say("mremap keeps", (int64_t)sum);
  say("mremap new zero", g[64 * 4096 - 1]);
  say("mprotect", res(mprotect(g, 4096, PROT_READ)));
  say("munmap", res(munmap(g, 64 * 4096)));
  say("munmap unaligned", res(munmap(g + 1, 4096)));
  say("mmap bad", res((int64_t)(intptr_t)mmap(NULL, 0, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
                                               -1, 0)));
  /* malloc of large and small blocks (brk and mmap underneath) */
  uint64_t total = 0;
  for (int i = 1; i <= 20; i++) {
    size_t sz = (size_t)i * i * 997; /* up to 400 KB: past the mmap threshold */
    unsigned char *p = malloc(sz);
    if (!p) break;
    p[0] = (unsigned char)i;
    p[sz - 1] = (unsigned char)(i + 1);
    total += p[0] + p[sz - 1];
    free(p);
  }
  say("malloc", (int64_t)total);
  char *big = malloc(1 << 22);
  say("malloc big", big != NULL);
  if (big) big[(1 << 22) - 1] = 1;
  free(big);
}

static void misc(void) {
  struct timespec t0, t1, r;
  int a = clock_gettime(CLOCK_MONOTONIC, &t0), b = clock_gettime(CLOCK_MONOTONIC, &t1);
  say("clock monotonic", a == 0 && b == 0 &&
                             (t1.tv_sec > t0.tv_sec ||
                              (t1.tv_sec == t0.tv_sec && t1.tv_nsec >= t0.tv_nsec)) &&
                             t0.tv_nsec >= 0 && t0.tv_nsec < 1000000000);
  a = clock_gettime(CLOCK_REALTIME, &t0);
  say("clock realtime", a == 0 && t0.tv_sec > 1600000000 && t0.tv_nsec < 1000000000);
  say("clock_getres", clock_getres(CLOCK_MONOTONIC, &r) == 0 && r.tv_sec == 0);
  unsigned char rnd[16];
  say("getrandom", res(getrandom(rnd, sizeof rnd, 0)));
  struct utsname u;
  say("uname", res(uname(&u)));
  du_str("sysname ");
  du_str(u.sysname);
  du_str(" machine ");
  du_str(u.machine);
  du_nl();
}

int main(int argc, char **argv) {
  if (argc != 2) {
    du_str("usage: diff_sys DIR\n");
    du_flush();
    return 2;
  }
  files(argv[1]);
  memory();
  misc();
  du_flush();
  static const char err[] = "diff_sys: done\n";
  struct iovec iov[2] = {{(void *)err, 10}, {(void *)(err + 10), sizeof err - 11}};
  writev(2, iov, 2);
  return 3;
}
