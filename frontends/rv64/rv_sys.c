/* rv_sys.c: Linux system calls (riscv64, asm-generic numbers) for static
 * glibc programs, and guest faults.
 *
 * Every guest pointer is checked (-EFAULT). Guest file descriptors map onto
 * host ones through p->fds; guest 0/1/2 are the caller's fds and are never
 * closed on the host. Time, randomness and ids are virtual: the clock is one
 * nanosecond per executed instruction from a fixed epoch, getrandom draws
 * from a seeded generator, pid/tid are fixed. So the same program, arguments
 * and input give the same instruction stream; /dev/urandom and /dev/random
 * read the same seeded stream as getrandom, and /proc/self/maps lists the
 * guest's own mappings. A call not handled here is answered -ENOSYS, as
 * qemu-user answers it, and counted (rv_proc_nosys_summary). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <linux/openat2.h>
#include <unistd.h>

#include "rv_internal.h"

#define RV_PID 1000
#define RV_UID 1000
#define RV_MAX_IO (1u << 24) /* bytes moved by one read/write call at most */

void rv_fault(rv_proc *p, int sig, const char *fmt, ...) {
  char reason[200], bytes[40] = "no bytes";
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(reason, sizeof reason, fmt, ap);
  va_end(ap);
  uint8_t b[4];
  if (rv_mem_peek(p, p->pc, b, 2, 0) == 0) {
    if ((b[0] & 3) == 3 && rv_mem_peek(p, p->pc + 2, b + 2, 2, 0) == 0)
      snprintf(bytes, sizeof bytes, "bytes %02x %02x %02x %02x", b[0], b[1], b[2], b[3]);
    else
      snprintf(bytes, sizeof bytes, "bytes %02x %02x", b[0], b[1]);
  }
  snprintf(p->why, sizeof p->why, "fault at pc 0x%llx: %s (%s)", (unsigned long long)p->pc,
           reason, bytes);
  p->state = RV_FAULT;
  p->term_sig = sig;
  p->self_kill = 0;
}

/* The guest ends as a process killed by sig that it sent itself. */
static void killed(rv_proc *p, int sig) {
  const char *name = sig < 32 ? sigabbrev_np(sig) : NULL;
  snprintf(p->why, sizeof p->why, "killed by signal %d (SIG%s) that it sent itself", sig,
           name ? name : "RT");
  p->state = RV_FAULT;
  p->term_sig = sig;
  p->self_kill = 1;
}

void rv_fds_close(rv_proc *p) {
  for (int i = 0; i < RV_MAX_FDS; i++) {
    if (p->fds[i].host >= 0 && p->fds[i].owned) close(p->fds[i].host);
    p->fds[i].host = -1;
  }
}

/* A copy of host fd h for a cloned process. A regular file or directory is
   reopened through /proc/self/fd and positioned at h's offset, so the copy
   has an offset of its own: a clone replaying the same reads (multisim) must
   not move the original's position. Pipes, ttys and sockets have no offset
   to keep apart and are duplicated. */
static int fd_copy(int h) {
  struct stat st;
  if (fstat(h, &st) == 0 && (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))) {
    int fl = fcntl(h, F_GETFL);
    off_t off = lseek(h, 0, SEEK_CUR);
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", h);
    if (fl >= 0 && off >= 0) {
      int nh = open(path, (fl & ~(O_CREAT | O_EXCL | O_TRUNC)) | O_CLOEXEC);
      if (nh >= 0) {
        if (nh < 3) { /* keep host 0..2 free, as F_DUPFD with 3 would */
          int moved = fcntl(nh, F_DUPFD_CLOEXEC, 3);
          close(nh);
          nh = moved;
        }
        if (nh >= 0 && lseek(nh, off, SEEK_SET) == off) return nh;
        if (nh >= 0) close(nh);
      }
    }
  }
  return fcntl(h, F_DUPFD_CLOEXEC, 3);
}

int rv_fds_dup_from(rv_proc *dst, const rv_proc *src) {
  for (int i = 0; i < RV_MAX_FDS; i++) {
    dst->fds[i] = src->fds[i];
    if (src->fds[i].host >= 0 && src->fds[i].owned) {
      dst->fds[i].host = fd_copy(src->fds[i].host);
      if (dst->fds[i].host < 0) return -1;
    }
  }
  return 0;
}

static int host_fd(const rv_proc *p, uint64_t fd) {
  return fd < RV_MAX_FDS ? p->fds[fd].host : -1;
}

static int64_t fd_alloc(rv_proc *p, int host, int min) {
  for (int i = min; i < RV_MAX_FDS; i++)
    if (p->fds[i].host < 0) {
      p->fds[i].host = host;
      p->fds[i].owned = 1;
      p->fds[i].kind = RV_FD_HOST;
      return i;
    }
  close(host);
  return -EMFILE;
}

/* Host iovecs for guest [addr, addr+len) with prot on every page. */
static int64_t guest_iov(rv_proc *p, uint64_t addr, uint64_t len, uint32_t prot,
                         struct iovec *iov, int max, int *niov) {
  int n = 0;
  while (len && n < max) {
    uint64_t k = RV_PAGE_SIZE - (addr & RV_PAGE_MASK);
    if (k > len) k = len;
    uint8_t *h = rv_mem_host(p, addr, prot);
    if (!h) return p->host_oom ? -ENOMEM : -EFAULT;
    if (prot & RV_PROT_W) {
      const rv_pte *e = rv_mem_pte(p, addr >> RV_PAGE_BITS);
      if (e->prot & RV_PROT_X) rv_dcache_invalidate(p, addr, k);
    }
    iov[n].iov_base = h;
    iov[n].iov_len = k;
    n++, addr += k, len -= k;
  }
  *niov = n;
  return 0;
}

#define IOV_PAGES 1024

/* read/write/pread/pwrite on one guest buffer. */
static int64_t do_io(rv_proc *p, uint64_t fd, uint64_t buf, uint64_t len, int is_write,
                     int64_t off) {
  int h = host_fd(p, fd);
  if (h < 0) return -EBADF;
  if (len == 0) return 0;
  if (len > RV_MAX_IO) len = RV_MAX_IO;
  struct iovec iov[IOV_PAGES];
  int n;
  int64_t r = guest_iov(p, buf, len, is_write ? RV_PROT_R : RV_PROT_W, iov, IOV_PAGES, &n);
  if (r) return r;
  if (!is_write && p->fds[fd].kind == RV_FD_RANDOM) { /* the seeded stream, as getrandom */
    uint64_t got = 0;
    for (int i = 0; i < n; i++)
      for (size_t o = 0; o < iov[i].iov_len; o += 8) {
        uint64_t v = rv_rand_next(&p->rand_ctr);
        size_t k = iov[i].iov_len - o < 8 ? iov[i].iov_len - o : 8;
        memcpy((uint8_t *)iov[i].iov_base + o, &v, k);
        got += k;
      }
    return (int64_t)got;
  }
  ssize_t k;
  if (off < 0) k = is_write ? writev(h, iov, n) : readv(h, iov, n);
  else k = is_write ? pwritev(h, iov, n, off) : preadv(h, iov, n, off);
  return k < 0 ? -errno : k;
}

static int64_t do_iov(rv_proc *p, uint64_t fd, uint64_t giov, uint64_t cnt, int is_write) {
  if (cnt > 1024) return -EINVAL;
  int64_t total = 0;
  for (uint64_t i = 0; i < cnt; i++) {
    uint64_t e[2];
    if (rv_mem_read(p, giov + 16 * i, e, 16)) return total ? total : -EFAULT;
    if (e[1] == 0) continue;
    int64_t r = do_io(p, fd, e[0], e[1], is_write, -1);
    if (r < 0) return total ? total : r;
    total += r;
    if ((uint64_t)r < e[1]) break;
  }
  return total;
}

static int64_t put_stat(rv_proc *p, uint64_t addr, const struct stat *st) {
  uint8_t b[128];
  memset(b, 0, sizeof b);
  uint64_t v;
#define PUT(off, T, val) (v = (uint64_t)(val), memcpy(b + (off), &(T){(T)v}, sizeof(T)))
  PUT(0, uint64_t, st->st_dev);
  PUT(8, uint64_t, st->st_ino);
  PUT(16, uint32_t, st->st_mode);
  PUT(20, uint32_t, st->st_nlink);
  PUT(24, uint32_t, st->st_uid);
  PUT(28, uint32_t, st->st_gid);
  PUT(32, uint64_t, st->st_rdev);
  PUT(48, int64_t, st->st_size);
  PUT(56, int32_t, st->st_blksize);
  PUT(64, int64_t, st->st_blocks);
  PUT(72, int64_t, st->st_atim.tv_sec);
  PUT(80, uint64_t, st->st_atim.tv_nsec);
  PUT(88, int64_t, st->st_mtim.tv_sec);
  PUT(96, uint64_t, st->st_mtim.tv_nsec);
  PUT(104, int64_t, st->st_ctim.tv_sec);
  PUT(112, uint64_t, st->st_ctim.tv_nsec);
#undef PUT
  return rv_mem_write(p, addr, b, sizeof b) ? -EFAULT : 0;
}

static int64_t get_path(rv_proc *p, uint64_t addr, char *buf, size_t cap) {
  int r = rv_mem_read_str(p, addr, buf, cap);
  return r == -1 ? -EFAULT : r == -2 ? -ENAMETOOLONG : 0;
}

static int dirfd_host(const rv_proc *p, int64_t dirfd) {
  if ((int32_t)dirfd == -100) return AT_FDCWD;
  return host_fd(p, (uint64_t)dirfd);
}

/* ---- path lookups, confined to --guest-root where one is given ----
 * Without a root, a guest path is looked up as the host would (dirfd and
 * path as given). With one, every lookup goes through openat2 with
 * RESOLVE_IN_ROOT from the root (absolute paths and the guest's working
 * directory, which is the root) or from the guest's directory fd: "..",
 * absolute paths and symlinks cannot leave it. An operation then works on
 * what the lookup found: the object itself (as /proc/self/fd/N, or the fd
 * with AT_EMPTY_PATH where the last symlink must not be followed), or the
 * parent directory and the last name (creating, removing, renaming). */
enum { LK_FOLLOW, LK_NOFOLLOW, LK_PARENT };

typedef struct lookup {
  int dirfd;        /* host dirfd for the operation (AT_FDCWD allowed) */
  const char *name; /* host path relative to it */
  int at_flags;     /* AT_EMPTY_PATH where name is "" */
  int tmp;          /* an fd of the lookup's own to close, or -1 */
  char buf[4096];
} lookup;

static int in_root(int base, const char *path, uint64_t flags, uint64_t mode) {
  struct open_how how;
  memset(&how, 0, sizeof how);
  how.flags = flags | O_CLOEXEC;
  how.mode = flags & (O_CREAT | __O_TMPFILE) ? mode & 07777 : 0;
  how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
  return (int)syscall(SYS_openat2, base, path, &how, sizeof how);
}

/* The host dirfd a confined lookup of path starts from. */
static int root_base(const rv_proc *p, int64_t dirfd, const char *path) {
  if (path[0] == '/' || (int32_t)dirfd == -100) return p->root_fd;
  return host_fd(p, (uint64_t)dirfd);
}

static int64_t lookup_at(rv_proc *p, int64_t dirfd, const char *path, int how, lookup *l) {
  l->tmp = -1;
  l->at_flags = 0;
  if (p->root_fd < 0) {
    l->dirfd = dirfd_host(p, dirfd);
    l->name = path;
    return l->dirfd < 0 && l->dirfd != AT_FDCWD ? -EBADF : 0;
  }
  int base = root_base(p, dirfd, path);
  if (base < 0) return -EBADF;
  if (!*path) return -ENOENT;
  if (how == LK_PARENT) {
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/') n--;
    if (n >= sizeof l->buf) return -ENAMETOOLONG;
    memcpy(l->buf, path, n);
    l->buf[n] = 0;
    char *slash = strrchr(l->buf, '/');
    const char *dir = ".";
    if (slash) {
      *slash = 0;
      dir = slash == l->buf ? "/" : l->buf;
      l->name = slash + 1;
    } else {
      l->name = l->buf;
    }
    if (!*l->name || strcmp(l->name, ".") == 0 || strcmp(l->name, "..") == 0) return -EINVAL;
    l->tmp = in_root(base, dir, O_PATH | O_DIRECTORY, 0);
    if (l->tmp < 0) return -errno;
    l->dirfd = l->tmp;
    return 0;
  }
  l->tmp = in_root(base, path, O_PATH | (how == LK_NOFOLLOW ? O_NOFOLLOW : 0), 0);
  if (l->tmp < 0) return -errno;
  if (how == LK_NOFOLLOW) {
    l->dirfd = l->tmp;
    l->name = "";
    l->at_flags = AT_EMPTY_PATH;
  } else {
    snprintf(l->buf, sizeof l->buf, "/proc/self/fd/%d", l->tmp);
    l->dirfd = AT_FDCWD;
    l->name = l->buf;
  }
  return 0;
}

static void lookup_done(lookup *l) {
  if (l->tmp >= 0) close(l->tmp);
  l->tmp = -1;
}

static uint64_t page_up(uint64_t v) { return (v + RV_PAGE_MASK) & ~RV_PAGE_MASK; }

/* A free range of len bytes for mmap, top-down from mmap_next. */
static uint64_t find_free(rv_proc *p, uint64_t len) {
  uint64_t a = p->mmap_next;
  while (a > len + (1ull << 20)) {
    if (rv_mem_range_free(p, a - len, len)) return a - len;
    a -= len > RV_PAGE_SIZE * 16 ? len : RV_PAGE_SIZE * 16;
    a &= ~RV_PAGE_MASK;
  }
  return 0;
}

static int64_t sys_mmap(rv_proc *p, uint64_t addr, uint64_t len, uint64_t prot, uint64_t flags,
                        int64_t fd, uint64_t off) {
  enum { M_SHARED = 1, M_PRIVATE = 2, M_FIXED = 0x10, M_ANON = 0x20, M_NOREPLACE = 0x100000 };
  if (len == 0 || (off & RV_PAGE_MASK) || (prot & ~7ull)) return -EINVAL;
  if (!(flags & (M_SHARED | M_PRIVATE))) return -EINVAL;
  len = page_up(len);
  if (len == 0 || len > RV_VA_LIMIT / 2) return -ENOMEM;
  int h = -1;
  if (!(flags & M_ANON)) {
    h = host_fd(p, (uint64_t)fd);
    if (h < 0) return -EBADF;
    if ((flags & M_SHARED) && (prot & 2)) return -EACCES; /* writes would not reach the file */
  }
  uint64_t a;
  if (flags & (M_FIXED | M_NOREPLACE)) {
    if ((addr & RV_PAGE_MASK) || addr + len > RV_VA_LIMIT || addr + len < addr) return -EINVAL;
    if ((flags & M_NOREPLACE) && !(flags & M_FIXED) && !rv_mem_range_free(p, addr, len))
      return -EEXIST;
    a = addr;
  } else if (addr && !(addr & RV_PAGE_MASK) && rv_mem_range_free(p, addr, len)) {
    a = addr;
  } else {
    a = find_free(p, len);
    if (!a) return -ENOMEM;
    if (a < p->mmap_next) p->mmap_next = a;
  }
  if (rv_mem_map(p, a, len, (uint32_t)prot)) return -ENOMEM;
  if (h >= 0) {
    /* A private copy of the file's bytes; past the end reads as zeros. */
    uint8_t buf[RV_PAGE_SIZE];
    for (uint64_t o = 0; o < len; o += RV_PAGE_SIZE) {
      ssize_t k = pread(h, buf, RV_PAGE_SIZE, (off_t)(off + o));
      if (k < 0) {
        int e = errno;
        rv_mem_unmap(p, a, len);
        return -e;
      }
      if (k == 0) break;
      rv_mem_poke(p, a + o, buf, (uint64_t)k);
    }
  }
  return (int64_t)a;
}

static int64_t sys_mremap(rv_proc *p, uint64_t old, uint64_t olen, uint64_t nlen, uint64_t flags) {
  if ((old & RV_PAGE_MASK) || nlen == 0 || (flags & ~3ull)) return -EINVAL;
  if (flags & 2) return -EINVAL; /* MREMAP_FIXED: not supported */
  olen = page_up(olen);
  nlen = page_up(nlen);
  if (olen == 0 || !rv_mem_range_mapped(p, old, olen)) return -EFAULT;
  if (nlen <= olen) {
    rv_mem_unmap(p, old + nlen, olen - nlen);
    return (int64_t)old;
  }
  uint32_t prot = rv_mem_pte(p, old >> RV_PAGE_BITS)->prot & 7;
  if (rv_mem_range_free(p, old + olen, nlen - olen)) {
    if (rv_mem_map(p, old + olen, nlen - olen, prot)) return -ENOMEM;
    return (int64_t)old;
  }
  if (!(flags & 1)) return -ENOMEM;
  uint64_t a = find_free(p, nlen);
  if (!a) return -ENOMEM;
  if (a < p->mmap_next) p->mmap_next = a;
  if (rv_mem_map(p, a, nlen, prot)) return -ENOMEM;
  rv_mem_move(p, old, a, olen);
  return (int64_t)a;
}

static int64_t sys_brk(rv_proc *p, uint64_t want) {
  if (want < p->brk_start) return (int64_t)p->brk_cur;
  uint64_t cur = page_up(p->brk_cur), nw = page_up(want);
  if (nw > cur) {
    if (nw > p->mmap_next || !rv_mem_range_free(p, cur, nw - cur)) return (int64_t)p->brk_cur;
    if (rv_mem_map(p, cur, nw - cur, RV_PROT_R | RV_PROT_W)) return (int64_t)p->brk_cur;
  } else if (nw < cur) {
    rv_mem_unmap(p, nw, cur - nw);
  }
  p->brk_cur = want;
  return (int64_t)want;
}

static int64_t put_time(rv_proc *p, uint64_t addr, uint64_t sec, uint64_t sub) {
  uint64_t t[2] = {sec, sub};
  return rv_mem_write(p, addr, t, 16) ? -EFAULT : 0;
}

static int64_t sys_ioctl(rv_proc *p, uint64_t fd, uint64_t req, uint64_t arg) {
  int h = host_fd(p, fd);
  if (h < 0) return -EBADF;
  if (req == 0x5401 /* TCGETS */ || req == 0x5413 /* TIOCGWINSZ */) {
    if (!isatty(h)) return -ENOTTY;
    uint8_t buf[64];
    memset(buf, 0, sizeof buf);
    if (ioctl(h, (unsigned long)req, buf) < 0) return -errno;
    return rv_mem_write(p, arg, buf, req == 0x5401 ? 36 : 8) ? -EFAULT : 0;
  }
  return -ENOTTY;
}

/* /proc/self/maps of the guest: its mappings as Linux prints them, in an
   anonymous host file the guest reads like any other. */
static int maps_file(rv_proc *p) {
  int h = memfd_create("icost-maps", MFD_CLOEXEC);
  if (h < 0) return -1;
  FILE *f = fdopen(dup(h), "w");
  if (!f) {
    close(h);
    errno = ENOMEM;
    return -1;
  }
  uint64_t start = 0, prot = 0;
  const uint64_t stack_lo = p->stack_top - (8ull << 20);
  const uint64_t heap_lo = page_up(p->brk_start), heap_hi = page_up(p->brk_cur);
  for (uint64_t vpn = 0;; vpn++) {
    const rv_pte *e = vpn < (RV_VA_LIMIT >> RV_PAGE_BITS) ? rv_mem_pte(p, vpn) : NULL;
    uint32_t pr = e ? e->prot & 7 : 0;
    int mapped = e && e->prot;
    uint64_t a = vpn << RV_PAGE_BITS;
    if (prot && (!mapped || pr != (prot & 7))) { /* a run ends at a */
      const char *name = "";
      if (start >= stack_lo && a <= p->stack_top) name = "[stack]";
      else if (start >= heap_lo && a <= heap_hi) name = "[heap]";
      else if (a <= heap_lo && p->exe_path) name = p->exe_path;
      fprintf(f, "%08llx-%08llx %c%c%cp 00000000 00:00 0%s%s\n", (unsigned long long)start,
              (unsigned long long)a, prot & RV_PROT_R ? 'r' : '-', prot & RV_PROT_W ? 'w' : '-',
              prot & RV_PROT_X ? 'x' : '-', *name ? "          " : "", name);
      prot = 0;
    }
    if (!mapped) {
      if (vpn >= (RV_VA_LIMIT >> RV_PAGE_BITS)) break;
      if (!e) { /* skip the rest of an absent leaf or mid table */
        uint64_t span = p->radix[vpn >> (2 * RV_RADIX_BITS)] ? RV_RADIX_SIZE
                                                              : (uint64_t)RV_RADIX_SIZE * RV_RADIX_SIZE;
        uint64_t next = (vpn | (span - 1)) + 1;
        if (next >= (RV_VA_LIMIT >> RV_PAGE_BITS)) break;
        vpn = next - 1;
      }
      continue;
    }
    if (!prot) start = a, prot = pr | 8;
  }
  if (fclose(f) != 0 || lseek(h, 0, SEEK_SET) != 0) {
    close(h);
    errno = EIO;
    return -1;
  }
  return h;
}

const char *rv_syscall_note(uint64_t nr) {
  switch (nr) {
  case 220: case 435: return "clone: threads and child processes are not supported";
  case 221: case 281: return "execve: running another program is not supported";
  case 260: return "wait4: child processes are not supported";
  case 198: case 199: case 200: case 201: case 202: case 203: case 242:
    return "sockets are not supported";
  default: return "";
  }
}

/* An unsupported call: counted, and answered -ENOSYS as qemu-user does. */
static int64_t nosys(rv_proc *p, uint64_t nr) {
  unsigned i = 0;
  while (i < p->n_nosys && p->nosys[i].nr != nr) i++;
  if (i < p->n_nosys) p->nosys[i].count++;
  else if (i < RV_MAX_NOSYS) p->nosys[p->n_nosys++] = (rv_nosys){nr, 1};
  else p->nosys_other++;
  return -ENOSYS;
}

size_t rv_proc_nosys_summary(const rv_proc *p, char *buf, size_t cap) {
  size_t len = 0;
  if (cap) buf[0] = 0;
  if (!p->n_nosys) return 0;
  for (unsigned i = 0; i < p->n_nosys && len < cap; i++) {
    const char *note = rv_syscall_note(p->nosys[i].nr);
    int k = snprintf(buf + len, cap - len, "%s%llu%s%s%s (%llu call%s)", i ? ", " : "",
                     (unsigned long long)p->nosys[i].nr, *note ? " [" : "", note, *note ? "]" : "",
                     (unsigned long long)p->nosys[i].count, p->nosys[i].count == 1 ? "" : "s");
    if (k < 0) break;
    len += (size_t)k;
  }
  if (p->nosys_other && len < cap)
    len += (size_t)snprintf(buf + len, cap - len, ", %llu more calls of other numbers",
                            (unsigned long long)p->nosys_other);
  return p->n_nosys;
}

void rv_syscall(rv_proc *p) {
  uint64_t *x = p->x;
  uint64_t nr = x[17], a0 = x[10], a1 = x[11], a2 = x[12], a3 = x[13], a4 = x[14], a5 = x[15];
  int64_t r;
  char path[4096], path2[4096];
  switch (nr) {
  case 93:  /* exit */
  case 94:  /* exit_group */
    p->state = RV_EXITED;
    p->exit_code = (int)(a0 & 0xff);
    return;
  case 63: r = do_io(p, a0, a1, a2, 0, -1); break;                 /* read */
  case 64: r = do_io(p, a0, a1, a2, 1, -1); break;                 /* write */
  case 65: r = do_iov(p, a0, a1, a2, 0); break;                    /* readv */
  case 66: r = do_iov(p, a0, a1, a2, 1); break;                    /* writev */
  case 67: r = (int64_t)a3 < 0 ? -EINVAL : do_io(p, a0, a1, a2, 0, (int64_t)a3); break; /* pread64 */
  case 68: r = (int64_t)a3 < 0 ? -EINVAL : do_io(p, a0, a1, a2, 1, (int64_t)a3); break; /* pwrite64 */
  case 56: { /* openat */
    int d = dirfd_host(p, (int64_t)a0);
    if ((r = get_path(p, a1, path, sizeof path))) break;
    if (d < 0 && d != AT_FDCWD) { r = -EBADF; break; }
    if (strcmp(path, "/proc/self/maps") == 0 || strcmp(path, "/proc/1000/maps") == 0) {
      int h = maps_file(p);
      r = h < 0 ? -errno : fd_alloc(p, h, 0);
      break;
    }
    int rnd = strcmp(path, "/dev/urandom") == 0 || strcmp(path, "/dev/random") == 0;
    int h = p->root_fd < 0 || rnd
                ? openat(rnd ? AT_FDCWD : d, path, (int)(a2 & 037777777) | O_CLOEXEC, (mode_t)a3)
                : in_root(root_base(p, (int64_t)a0, path), path, a2 & 037777777, a3);
    r = h < 0 ? -errno : fd_alloc(p, h, 0);
    if (r >= 0 && rnd) p->fds[r].kind = RV_FD_RANDOM;
    break;
  }
  case 57: /* close */
    if (host_fd(p, a0) < 0) { r = -EBADF; break; }
    if (p->fds[a0].owned) close(p->fds[a0].host);
    p->fds[a0].host = -1;
    p->fds[a0].owned = 0;
    r = 0;
    break;
  case 23: /* dup */
  case 24: { /* dup3 */
    int h = host_fd(p, a0);
    if (h < 0) { r = -EBADF; break; }
    if (nr == 24 && (a1 >= RV_MAX_FDS || a1 == a0)) { r = -EINVAL; break; }
    int nh = fcntl(h, F_DUPFD_CLOEXEC, 3);
    if (nh < 0) { r = -errno; break; }
    uint8_t kind = p->fds[a0].kind;
    if (nr == 23) {
      r = fd_alloc(p, nh, 0);
      if (r >= 0) p->fds[r].kind = kind;
      break;
    }
    if (p->fds[a1].host >= 0 && p->fds[a1].owned) close(p->fds[a1].host);
    p->fds[a1].host = nh;
    p->fds[a1].owned = 1;
    p->fds[a1].kind = kind;
    r = (int64_t)a1;
    break;
  }
  case 25: { /* fcntl */
    int h = host_fd(p, a0);
    if (h < 0) { r = -EBADF; break; }
    switch (a1) {
    case 0: case 1030: { /* F_DUPFD, F_DUPFD_CLOEXEC */
      int nh = fcntl(h, F_DUPFD_CLOEXEC, 3);
      r = nh < 0 ? -errno : fd_alloc(p, nh, (int)(a2 < RV_MAX_FDS ? a2 : RV_MAX_FDS));
      if (r >= 0) p->fds[r].kind = p->fds[a0].kind;
      break;
    }
    case 1: r = 0; break;           /* F_GETFD */
    case 2: r = 0; break;           /* F_SETFD */
    case 3: r = fcntl(h, F_GETFL); if (r < 0) r = -errno; break;
    case 4: r = fcntl(h, F_SETFL, (int)a2); if (r < 0) r = -errno; break;
    default: r = -EINVAL; break;
    }
    break;
  }
  case 62: { /* lseek */
    int h = host_fd(p, a0);
    if (h < 0) { r = -EBADF; break; }
    off_t o = lseek(h, (off_t)a1, (int)a2);
    r = o < 0 ? -errno : (int64_t)o;
    break;
  }
  case 80: { /* fstat */
    struct stat st;
    int h = host_fd(p, a0);
    if (h < 0) { r = -EBADF; break; }
    r = fstat(h, &st) ? -errno : put_stat(p, a1, &st);
    break;
  }
  case 79: { /* newfstatat */
    struct stat st;
    lookup l;
    if ((r = get_path(p, a1, path, sizeof path))) break;
    if (!*path && (a3 & AT_EMPTY_PATH)) { /* fstat of dirfd */
      int h = host_fd(p, a0);
      r = h < 0 ? -EBADF : fstat(h, &st) ? -errno : put_stat(p, a2, &st);
      break;
    }
    if ((r = lookup_at(p, (int64_t)a0, path, a3 & AT_SYMLINK_NOFOLLOW ? LK_NOFOLLOW : LK_FOLLOW, &l)))
      break;
    r = fstatat(l.dirfd, l.name, &st, (int)(a3 & AT_SYMLINK_NOFOLLOW) | l.at_flags) ? -errno
                                                                                  : put_stat(p, a2, &st);
    lookup_done(&l);
    break;
  }
  case 291: { /* statx */
    struct statx sx;
    lookup l;
    if ((r = get_path(p, a1, path, sizeof path))) break;
    if (!*path && (a2 & AT_EMPTY_PATH)) { /* of dirfd itself */
      l.dirfd = host_fd(p, a0), l.name = "", l.at_flags = AT_EMPTY_PATH, l.tmp = -1;
      if (l.dirfd < 0) { r = -EBADF; break; }
    } else if ((r = lookup_at(p, (int64_t)a0, path,
                              a2 & AT_SYMLINK_NOFOLLOW ? LK_NOFOLLOW : LK_FOLLOW, &l))) {
      break;
    }
    int k = statx(l.dirfd, l.name, (int)(a2 & AT_SYMLINK_NOFOLLOW) | l.at_flags, (unsigned)a3, &sx);
    int e = errno;
    lookup_done(&l);
    if (k) {
      r = -e;
      break;
    }
    r = rv_mem_write(p, a4, &sx, sizeof sx) ? -EFAULT : 0;
    break;
  }
  case 78: { /* readlinkat */
    if ((r = get_path(p, a1, path, sizeof path))) break;
    ssize_t k;
    if (strcmp(path, "/proc/self/exe") == 0) {
      k = (ssize_t)strlen(p->exe_path);
      if ((uint64_t)k > a3) k = (ssize_t)a3;
      memcpy(path2, p->exe_path, (size_t)k < sizeof path2 ? (size_t)k : sizeof path2);
    } else {
      lookup l;
      if ((r = lookup_at(p, (int64_t)a0, path, LK_NOFOLLOW, &l))) break;
      k = readlinkat(l.dirfd, l.name, path2, a3 < sizeof path2 ? a3 : sizeof path2);
      int e = errno;
      lookup_done(&l);
      if (k < 0) { r = -e; break; }
    }
    r = rv_mem_write(p, a2, path2, (uint64_t)k) ? -EFAULT : k;
    break;
  }
  case 17: { /* getcwd */
    if (p->root_fd >= 0) strcpy(path, "/"); /* the guest's working directory is its root */
    else if (!getcwd(path, sizeof path)) { r = -errno; break; }
    size_t l = strlen(path) + 1;
    if (l > a1) { r = -ERANGE; break; }
    r = rv_mem_write(p, a0, path, l) ? -EFAULT : (int64_t)l;
    break;
  }
  case 48: case 439: { /* faccessat, faccessat2 */
    lookup l;
    if ((r = get_path(p, a1, path, sizeof path))) break;
    if ((r = lookup_at(p, (int64_t)a0, path, LK_FOLLOW, &l))) break;
    r = faccessat(l.dirfd, l.name, (int)a2, 0) ? -errno : 0;
    lookup_done(&l);
    break;
  }
  case 35: case 34: { /* unlinkat, mkdirat */
    lookup l;
    if ((r = get_path(p, a1, path, sizeof path))) break;
    if ((r = lookup_at(p, (int64_t)a0, path, LK_PARENT, &l))) break;
    r = (nr == 35 ? unlinkat(l.dirfd, l.name, (int)(a2 & AT_REMOVEDIR))
                  : mkdirat(l.dirfd, l.name, (mode_t)a2)) ? -errno : 0;
    lookup_done(&l);
    break;
  }
  case 46: { /* ftruncate */
    int h = host_fd(p, a0);
    r = h < 0 ? -EBADF : ftruncate(h, (off_t)a1) ? -errno : 0;
    break;
  }
  case 45: /* truncate */
    if ((r = get_path(p, a0, path, sizeof path))) break;
    {
      lookup l;
      if ((r = lookup_at(p, -100, path, LK_FOLLOW, &l))) break;
      r = truncate(l.name, (off_t)a1) ? -errno : 0;
      lookup_done(&l);
    }
    break;
  case 82: case 83: { /* fsync, fdatasync */
    int h = host_fd(p, a0);
    r = h < 0 ? -EBADF : (nr == 82 ? fsync(h) : fdatasync(h)) ? -errno : 0;
    break;
  }
  case 38: case 276: { /* renameat, renameat2 */
    lookup l1, l2;
    if ((r = get_path(p, a1, path, sizeof path)) || (r = get_path(p, a3, path2, sizeof path2))) break;
    if ((r = lookup_at(p, (int64_t)a0, path, LK_PARENT, &l1))) break;
    if ((r = lookup_at(p, (int64_t)a2, path2, LK_PARENT, &l2))) {
      lookup_done(&l1);
      break;
    }
    if (nr == 276 && a4) r = renameat2(l1.dirfd, l1.name, l2.dirfd, l2.name, (unsigned)a4) ? -errno : 0;
    else r = renameat(l1.dirfd, l1.name, l2.dirfd, l2.name) ? -errno : 0;
    lookup_done(&l1);
    lookup_done(&l2);
    break;
  }
  case 52: { /* fchmod */
    int h = host_fd(p, a0);
    r = h < 0 ? -EBADF : fchmod(h, (mode_t)a1) ? -errno : 0;
    break;
  }
  case 53: { /* fchmodat */
    lookup l;
    if ((r = get_path(p, a1, path, sizeof path))) break;
    if ((r = lookup_at(p, (int64_t)a0, path, LK_FOLLOW, &l))) break;
    r = fchmodat(l.dirfd, l.name, (mode_t)a2, 0) ? -errno : 0;
    lookup_done(&l);
    break;
  }
  case 59: { /* pipe2 */
    int hp[2];
    if (pipe2(hp, O_CLOEXEC | (int)(a1 & O_NONBLOCK))) { r = -errno; break; }
    int64_t g0 = fd_alloc(p, hp[0], 0);
    if (g0 < 0) { close(hp[1]); r = g0; break; }
    int64_t g1 = fd_alloc(p, hp[1], 0);
    if (g1 < 0) { close(p->fds[g0].host); p->fds[g0].host = -1; r = g1; break; }
    int32_t g[2] = {(int32_t)g0, (int32_t)g1};
    r = rv_mem_write(p, a0, g, 8) ? -EFAULT : 0;
    break;
  }
  case 61: { /* getdents64: the record layout is the same on every Linux */
    int h = host_fd(p, a0);
    if (h < 0) { r = -EBADF; break; }
    char *buf = malloc(a2 < 65536 ? (a2 ? a2 : 1) : 65536);
    if (!buf) { r = -ENOMEM; break; }
    long k = syscall(SYS_getdents64, h, buf, a2 < 65536 ? a2 : 65536);
    r = k < 0 ? -errno : rv_mem_write(p, a1, buf, (uint64_t)k) ? -EFAULT : k;
    free(buf);
    break;
  }
  case 29: r = sys_ioctl(p, a0, a1, a2); break;
  case 214: r = sys_brk(p, a0); break;
  case 222: r = sys_mmap(p, a0, a1, a2, a3, (int64_t)a4, a5); break;
  case 215: /* munmap */
    if ((a0 & RV_PAGE_MASK) || a1 == 0 || a0 + a1 > RV_VA_LIMIT) { r = -EINVAL; break; }
    rv_mem_unmap(p, a0, page_up(a1));
    r = 0;
    break;
  case 226: /* mprotect */
    if ((a0 & RV_PAGE_MASK) || (a2 & ~7ull) || a0 + a1 > RV_VA_LIMIT) { r = -EINVAL; break; }
    r = rv_mem_protect(p, a0, page_up(a1), (uint32_t)a2) ? -ENOMEM : 0;
    break;
  case 216: r = sys_mremap(p, a0, a1, a2, a3); break;
  case 233: /* madvise: only MADV_DONTNEED has an effect (private pages read as zeros) */
    if (a0 & RV_PAGE_MASK) { r = -EINVAL; break; }
    if (a2 == 4 && a1 && a0 + a1 <= RV_VA_LIMIT) rv_mem_discard(p, a0, page_up(a1));
    r = 0;
    break;
  case 113: { /* clock_gettime */
    uint64_t ns = p->icount;
    uint64_t sec = ns / 1000000000u + (a0 == 0 || a0 == 5 || a0 == 8 ? RV_EPOCH_SEC : 0);
    r = put_time(p, a1, sec, ns % 1000000000u);
    break;
  }
  case 114: r = a1 ? put_time(p, a1, 0, 1) : 0; break; /* clock_getres */
  case 169: /* gettimeofday */
    r = a0 ? put_time(p, a0, RV_EPOCH_SEC + p->icount / 1000000000u,
                      (p->icount % 1000000000u) / 1000)
           : 0;
    break;
  case 101: case 115: r = 0; break; /* nanosleep, clock_nanosleep: virtual time does not wait */
  case 124: r = 0; break;          /* sched_yield */
  case 278: { /* getrandom */
    uint64_t len = a1 > RV_MAX_IO ? RV_MAX_IO : a1;
    r = (int64_t)len;
    for (uint64_t o = 0; o < len; o += 8) {
      uint64_t v = rv_rand_next(&p->rand_ctr);
      if (rv_mem_write(p, a0 + o, &v, len - o < 8 ? len - o : 8)) { r = -EFAULT; break; }
    }
    break;
  }
  case 160: { /* uname */
    char u[6][65];
    memset(u, 0, sizeof u);
    strcpy(u[0], "Linux");
    strcpy(u[1], "icost");
    strcpy(u[2], "6.1.0");
    strcpy(u[3], "#1 SMP");
    strcpy(u[4], "riscv64");
    strcpy(u[5], "(none)");
    r = rv_mem_write(p, a0, u, sizeof u) ? -EFAULT : 0;
    break;
  }
  case 172: case 178: r = RV_PID; break;       /* getpid, gettid */
  case 173: r = RV_PID - 1; break;             /* getppid */
  case 174: case 175: case 176: case 177: r = RV_UID; break;
  case 96: r = RV_PID; break;                  /* set_tid_address */
  case 99: r = -ENOSYS; break; /* set_robust_list: as qemu-riscv64 answers, so traces match */
  case 98: r = (a1 & 127) == 1 ? 0 : -EAGAIN; break; /* futex: wake nobody, never wait */
  case 166: r = 022; break;                    /* umask */
  case 163: case 261: { /* getrlimit, prlimit64 */
    uint64_t res = nr == 163 ? a0 : a1, old = nr == 163 ? a1 : a3;
    if (nr == 261 && a0 != 0 && a0 != RV_PID) { r = -ESRCH; break; }
    uint64_t lim[2] = {~0ull, ~0ull};
    if (res == 3) lim[0] = 8u << 20;                   /* RLIMIT_STACK */
    else if (res == 7) lim[0] = lim[1] = RV_MAX_FDS;   /* RLIMIT_NOFILE */
    r = old && rv_mem_write(p, old, lim, 16) ? -EFAULT : 0;
    break;
  }
  case 134: /* rt_sigaction */
    if (a0 == 0 || a0 > 64 || a3 != 8) { r = -EINVAL; break; }
    if (a2 && rv_mem_write(p, a2, p->sigact[a0], 24)) { r = -EFAULT; break; }
    if (a1 && rv_mem_read(p, a1, p->sigact[a0], 24)) { r = -EFAULT; break; }
    r = 0;
    break;
  case 135: { /* rt_sigprocmask */
    uint64_t set = 0, old = p->sigmask;
    if (a3 != 8) { r = -EINVAL; break; }
    if (a1 && rv_mem_read(p, a1, &set, 8)) { r = -EFAULT; break; }
    if (a1) {
      if (a0 == 0) p->sigmask |= set;
      else if (a0 == 1) p->sigmask &= ~set;
      else if (a0 == 2) p->sigmask = set;
      else { r = -EINVAL; break; }
    }
    r = a2 && rv_mem_write(p, a2, &old, 8) ? -EFAULT : 0;
    break;
  }
  case 129: case 131: { /* kill, tgkill: only to ourselves; the default action ends the run */
    uint64_t sig = nr == 129 ? a1 : a2;
    if (sig == 0) { r = 0; break; }
    if (sig > 64) { r = -EINVAL; break; }
    killed(p, (int)sig);
    return;
  }
  case 179: { /* sysinfo: one process; total memory = the --guest-memory cap */
    uint8_t b[112];
    uint64_t v;
    memset(b, 0, sizeof b);
    v = p->icount / 1000000000u, memcpy(b, &v, 8);
    v = p->pages_limit ? p->pages_limit * RV_PAGE_SIZE : 4ull << 30, memcpy(b + 32, &v, 8);
    v = v > p->pages_mapped * RV_PAGE_SIZE ? v - p->pages_mapped * RV_PAGE_SIZE : 0;
    memcpy(b + 40, &v, 8);
    b[80] = 1;
    b[104] = 1;
    r = rv_mem_write(p, a0, b, sizeof b) ? -EFAULT : 0;
    break;
  }
  case 123: { /* sched_getaffinity: one cpu */
    uint64_t m = 1;
    if (a1 < 8) { r = -EINVAL; break; }
    r = rv_mem_write(p, a2, &m, 8) ? -EFAULT : 8;
    break;
  }
  case 165: { /* getrusage: user time = virtual time, the rest zero */
    uint64_t b[18];
    memset(b, 0, sizeof b);
    b[0] = p->icount / 1000000000u;
    b[1] = (p->icount % 1000000000u) / 1000;
    r = rv_mem_write(p, a1, b, sizeof b) ? -EFAULT : 0;
    break;
  }
  case 153: { /* times: in clock ticks of 100 Hz */
    uint64_t t[4] = {p->icount / 10000000u, 0, 0, 0};
    r = a0 && rv_mem_write(p, a0, t, sizeof t) ? -EFAULT : (int64_t)(p->icount / 10000000u);
    break;
  }
  case 258: case 293: r = -ENOSYS; break; /* riscv_hwprobe, rseq */
  default: r = nosys(p, nr); break;
  }
  x[10] = (uint64_t)r;
}
