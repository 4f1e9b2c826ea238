/* diff_sysx.c DIR: more file system calls, beyond the core set of
 * diff_sys.c: ftruncate, renameat, mkdirat, faccessat, fstatat, dup, dup3
 * (a shared file offset), fcntl flags, getcwd's success. Exits 0. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "diff_util.h"

static void say(const char *what, int64_t v) {
  du_str(what);
  du_putc(' ');
  du_dec(v);
  du_nl();
}

static int64_t res(int64_t r) { return r < 0 ? -errno : r; }

int main(int argc, char **argv) {
  if (argc != 2) {
    du_str("usage: diff_sysx DIR\n");
    du_flush();
    return 2;
  }
  int d = open(argv[1], O_RDONLY | O_DIRECTORY);
  say("open dir", d >= 0);
  int fd = openat(d, "t.txt", O_CREAT | O_TRUNC | O_RDWR, 0644);
  say("write", res(write(fd, "0123456789abcdef", 16)));
  say("ftruncate", res(ftruncate(fd, 6)));
  struct stat st;
  say("fstat", res(fstat(fd, &st)));
  say("size", (int64_t)st.st_size);
  say("ftruncate grow", res(ftruncate(fd, 9)));
  char buf[16] = {0};
  say("pread", res(pread(fd, buf, sizeof buf, 0)));
  say("hole byte", buf[7]);
  int e = dup(fd);
  say("dup", e > fd);
  say("lseek via dup", res(lseek(e, 2, SEEK_SET)));
  say("shared offset", res(lseek(fd, 0, SEEK_CUR)));
  say("dup3", res(dup3(fd, 40, O_CLOEXEC)));
  say("fcntl getfl rdwr", (res(fcntl(40, F_GETFL)) & O_ACCMODE) == O_RDWR);
  close(40);
  close(e);
  close(fd);
  say("renameat", res(renameat(d, "t.txt", d, "u.txt")));
  say("fstatat old", res(fstatat(d, "t.txt", &st, 0)));
  say("fstatat new", res(fstatat(d, "u.txt", &st, 0)));
  say("size", (int64_t)st.st_size);
  say("mkdirat", res(mkdirat(d, "sub", 0755)));
  say("mkdirat again", res(mkdirat(d, "sub", 0755)));
  say("faccessat", res(faccessat(d, "u.txt", R_OK | W_OK, 0)));
  say("faccessat missing", res(faccessat(d, "t.txt", F_OK, 0)));
  int s = openat(d, "sub/inner.txt", O_CREAT | O_WRONLY, 0600);
  say("write inner", res(write(s, "inner\n", 6)));
  close(s);
  char cwd[4096];
  say("getcwd", getcwd(cwd, sizeof cwd) != NULL);
  close(d);
  du_flush();
  return 0;
}
