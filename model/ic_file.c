/* ic_file.c: regular-file input and all-or-nothing output files (see
 * ic_file.h). */
#define _GNU_SOURCE
#include "ic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

ic_status ic_file_open_regular(FILE **out, const char *path, ic_err *err) {
  *out = NULL;
  /* O_NONBLOCK: opening a FIFO must not wait for a writer */
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    if (errno == EISDIR) return ic_fail(err, IC_EINPUT, "%s: is a directory", path);
    return ic_fail(err, IC_EINPUT, "%s: cannot open: %s", path, strerror(errno));
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    int dir = S_ISDIR(st.st_mode);
    close(fd);
    return ic_fail(err, IC_EINPUT, "%s: %s", path, dir ? "is a directory" : "not a regular file");
  }
  int fl = fcntl(fd, F_GETFL);
  if (fl >= 0) fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
  FILE *f = fdopen(fd, "rb");
  if (!f) {
    close(fd);
    return ic_fail(err, IC_ERUN, "%s: out of memory", path);
  }
  *out = f;
  return IC_OK;
}

/* ---- the temp names a signal must remove ------------------------------
 * A fixed table, since a signal handler may neither allocate nor lock:
 * a slot's name is written before it is marked live, and the handler only
 * reads live slots and calls unlink, which is async-signal-safe. */
#define IC_TMP_SLOTS 64
static char tmp_names[IC_TMP_SLOTS][4096];
static atomic_int tmp_live[IC_TMP_SLOTS];
static pthread_mutex_t tmp_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t handler_once = PTHREAD_ONCE_INIT;
static const int cleanup_signals[] = {SIGINT, SIGTERM, SIGHUP};

static void on_signal(int sig) {
  for (int i = 0; i < IC_TMP_SLOTS; i++)
    if (atomic_load(&tmp_live[i])) unlink(tmp_names[i]);
  signal(sig, SIG_DFL);
  raise(sig);
}

static void install_handler(void) {
  for (size_t k = 0; k < sizeof cleanup_signals / sizeof cleanup_signals[0]; k++) {
    struct sigaction old, sa;
    if (sigaction(cleanup_signals[k], NULL, &old) != 0 || old.sa_handler != SIG_DFL) continue;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t j = 0; j < sizeof cleanup_signals / sizeof cleanup_signals[0]; j++)
      sigaddset(&sa.sa_mask, cleanup_signals[j]);
    sigaction(cleanup_signals[k], &sa, NULL);
  }
}

/* Marks name for removal on a signal; the slot, or -1 when the table is
   full or the name too long (then a signal may leave it). */
static int tmp_register(const char *name) {
  if (strlen(name) >= sizeof tmp_names[0]) return -1;
  int slot = -1;
  pthread_mutex_lock(&tmp_lock);
  for (int i = 0; i < IC_TMP_SLOTS && slot < 0; i++)
    if (!atomic_load(&tmp_live[i])) {
      strcpy(tmp_names[i], name);
      atomic_store(&tmp_live[i], 1);
      slot = i;
    }
  pthread_mutex_unlock(&tmp_lock);
  return slot;
}

static void tmp_unregister(int slot) {
  if (slot >= 0) atomic_store(&tmp_live[slot], 0);
}

/* ---- output files ------------------------------------------------------- */

struct ic_outfile {
  FILE *f;
  int fd;
  int unnamed;  /* O_TMPFILE: no name until commit */
  int direct;   /* path is a device or FIFO: written in place, never replaced */
  int slot;     /* tmp_register slot of tmp, or -1 */
  char *path;   /* the target */
  char *dir;    /* its directory */
  char *tmp;    /* the temp name (named mode, or at commit) */
};

static void outfile_free(ic_outfile *o) {
  tmp_unregister(o->slot);
  free(o->path);
  free(o->dir);
  free(o->tmp);
  free(o);
}

/* A fresh temp name ".NAME.tmp.PID.K" beside o->path, created with O_EXCL
   (mode 0666 & ~umask, as the target would get) unless link_from >= 0:
   then the unnamed file is linked there. Registered for signal cleanup
   before it exists. Returns the fd (or 0 after a link), -1 with errno. */
static int temp_name(ic_outfile *o, int link_from) {
  const char *base = strrchr(o->path, '/');
  base = base ? base + 1 : o->path;
  size_t cap = strlen(o->dir) + strlen(base) + 48;
  free(o->tmp);
  if (!(o->tmp = malloc(cap))) {
    errno = ENOMEM;
    return -1;
  }
  for (int k = 0; k < 1000; k++) {
    snprintf(o->tmp, cap, "%s/.%s.tmp.%ld.%d", o->dir, base, (long)getpid(), k);
    tmp_unregister(o->slot);
    o->slot = tmp_register(o->tmp);
    int r;
    if (link_from >= 0) {
      char proc[64];
      snprintf(proc, sizeof proc, "/proc/self/fd/%d", link_from);
      r = linkat(AT_FDCWD, proc, AT_FDCWD, o->tmp, AT_SYMLINK_FOLLOW);
    } else {
      r = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    }
    if (r >= 0) return r;
    tmp_unregister(o->slot);
    o->slot = -1;
    if (errno != EEXIST) return -1;
  }
  errno = EEXIST;
  return -1;
}

ic_status ic_outfile_open(ic_outfile **out, const char *path, ic_err *err) {
  *out = NULL;
  pthread_once(&handler_once, install_handler);
  ic_outfile *o = calloc(1, sizeof *o);
  if (!o) return ic_fail(err, IC_ERUN, "%s: out of memory", path);
  o->slot = -1;
  o->fd = -1;
  /* through a symlink to the file it names, which is what gets replaced */
  char real[4096];
  struct stat st;
  int link = lstat(path, &st) == 0 && S_ISLNK(st.st_mode) && realpath(path, real);
  o->path = strdup(link ? real : path);
  o->dir = strdup(link ? real : path);
  if (!o->path || !o->dir) {
    outfile_free(o);
    return ic_fail(err, IC_ERUN, "%s: out of memory", path);
  }
  char *slash = strrchr(o->dir, '/');
  if (!slash) strcpy(o->dir, ".");
  else if (slash == o->dir) o->dir[1] = 0;
  else *slash = 0;
  if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
    outfile_free(o);
    return ic_fail(err, IC_EINPUT, "%s: is a directory", path);
  }
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) { /* /dev/null, /dev/stdout, a FIFO */
    o->direct = 1;
    o->fd = open(path, O_WRONLY | O_CLOEXEC);
    if (o->fd < 0 || !(o->f = fdopen(o->fd, "wb"))) {
      ic_status st2 = ic_fail(err, IC_EINPUT, "%s: cannot open: %s", path, strerror(errno));
      if (o->fd >= 0) close(o->fd);
      outfile_free(o);
      return st2;
    }
    *out = o;
    return IC_OK;
  }
  o->fd = open(o->dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
  o->unnamed = o->fd >= 0;
  if (o->fd < 0 && (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL))
    o->fd = temp_name(o, -1); /* no O_TMPFILE on this file system */
  if (o->fd < 0) {
    ic_status st2 = ic_fail(err, IC_EINPUT, "%s: cannot create: %s", path, strerror(errno));
    outfile_free(o);
    return st2;
  }
  if (!(o->f = fdopen(o->fd, "wb"))) {
    close(o->fd);
    if (!o->unnamed) unlink(o->tmp);
    outfile_free(o);
    return ic_fail(err, IC_ERUN, "%s: out of memory", path);
  }
  *out = o;
  return IC_OK;
}

FILE *ic_outfile_stream(ic_outfile *o) { return o->f; }

void ic_outfile_abort(ic_outfile *o) {
  if (!o) return;
  if (o->f) fclose(o->f);
  if (o->tmp) unlink(o->tmp);
  outfile_free(o);
}

ic_status ic_outfile_commit(ic_outfile *o, ic_err *err) {
  ic_status st = IC_OK;
  if (o->direct) {
    int bad = fflush(o->f) != 0 || ferror(o->f);
    int e = errno;
    if (fclose(o->f) != 0 && !bad) bad = 1, e = errno;
    if (bad) st = ic_fail(err, IC_ERUN, "%s: write error: %s", o->path, strerror(e ? e : EIO));
    outfile_free(o);
    return st;
  }
  if (fflush(o->f) != 0 || ferror(o->f) || fsync(o->fd) != 0)
    st = ic_fail(err, IC_ERUN, "%s: write error: %s", o->path, strerror(errno ? errno : EIO));
  if (st == IC_OK && o->unnamed && temp_name(o, o->fd) < 0)
    st = ic_fail(err, IC_ERUN, "%s: cannot create: %s", o->path, strerror(errno));
  if (st == IC_OK && rename(o->tmp, o->path) != 0)
    st = ic_fail(err, IC_ERUN, "%s: cannot write: %s", o->path, strerror(errno));
  if (st != IC_OK) {
    ic_outfile_abort(o);
    return st;
  }
  free(o->tmp); /* renamed: nothing to remove any more */
  o->tmp = NULL;
  int rc = fclose(o->f);
  o->f = NULL;
  int dfd = open(o->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    fsync(dfd); /* the new name survives a crash */
    close(dfd);
  }
  if (rc != 0) st = ic_fail(err, IC_ERUN, "%s: write error: %s", o->path, strerror(errno));
  outfile_free(o);
  return st;
}
