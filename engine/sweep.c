/* sweep.c: sweep axes, points, shards, job keys, the results store (one
 * record per job, written atomically) and reading it back as one table
 * (sweep.h). */
#define _GNU_SOURCE
#include "sweep.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <yaml.h>

#include "emit.h"
#include "ooo.h"

/* ---- axes -------------------------------------------------------------- */

static int parse_i64(const char *s, const char *end, int64_t *out) {
  if (s == end || (size_t)(end - s) > 20) return -1;
  char buf[24];
  memcpy(buf, s, (size_t)(end - s));
  buf[end - s] = 0;
  if (!(buf[0] == '-' || (buf[0] >= '0' && buf[0] <= '9'))) return -1;
  errno = 0;
  char *e;
  long long v = strtoll(buf, &e, 10);
  if (errno || *e) return -1;
  *out = v;
  return 0;
}

static ic_status axis_add(ic_sweep_axis *a, const char *v, size_t len, ic_err *err) {
  for (int k = 0; k < a->nvalues; k++)
    if (strlen(a->values[k]) == len && !memcmp(a->values[k], v, len))
      return ic_fail(err, IC_EINPUT, "--vary %s: value '%.*s' given twice", a->key, (int)len, v);
  if (a->nvalues == IC_SWEEP_MAX_VALUES)
    return ic_fail(err, IC_EINPUT, "--vary %s: more than %d values", a->key, IC_SWEEP_MAX_VALUES);
  char **nv = realloc(a->values, (size_t)(a->nvalues + 1) * sizeof *nv);
  if (!nv) return ic_fail(err, IC_ERUN, "out of memory");
  a->values = nv;
  if (!(a->values[a->nvalues] = strndup(v, len))) return ic_fail(err, IC_ERUN, "out of memory");
  a->nvalues++;
  return IC_OK;
}

/* One item: a value, or LO..HI[:STEP|*F]. */
static ic_status axis_item(ic_sweep_axis *a, const char *s, const char *end, ic_err *err) {
  const char *dots = NULL;
  for (const char *p = s; p + 1 < end; p++)
    if (p[0] == '.' && p[1] == '.') {
      dots = p;
      break;
    }
  if (!dots) return axis_add(a, s, (size_t)(end - s), err);
  const char *hi_end = end, *step_s = NULL;
  char op = 0;
  for (const char *p = dots + 2; p < end; p++)
    if (*p == ':' || *p == '*') {
      op = *p;
      hi_end = p;
      step_s = p + 1;
      break;
    }
  int64_t lo, hi, step = 1;
  if (parse_i64(s, dots, &lo) || parse_i64(dots + 2, hi_end, &hi) ||
      (step_s && parse_i64(step_s, end, &step)))
    return ic_fail(err, IC_EINPUT,
                   "--vary %s: range '%.*s': expected LO..HI, LO..HI:STEP or LO..HI*FACTOR of "
                   "integers",
                   a->key, (int)(end - s), s);
  if (lo > hi)
    return ic_fail(err, IC_EINPUT, "--vary %s: range '%.*s' is empty (LO > HI)", a->key,
                   (int)(end - s), s);
  if (op == '*' ? (step < 2 || lo < 1) : step < 1)
    return ic_fail(err, IC_EINPUT, "--vary %s: range '%.*s': %s", a->key, (int)(end - s), s,
                   op == '*' ? "a geometric range needs LO >= 1 and FACTOR >= 2"
                             : "STEP must be at least 1");
  for (int64_t v = lo; v <= hi;) {
    char buf[24];
    int n = snprintf(buf, sizeof buf, "%" PRId64, v);
    ic_status st = axis_add(a, buf, (size_t)n, err);
    if (st != IC_OK) return st;
    if (op == '*') {
      if (v > hi / step) break;
      v *= step;
    } else {
      if (v > hi - step) break;
      v += step;
    }
  }
  return IC_OK;
}

ic_status ic_sweep_axis_parse(const char *arg, ic_sweep_axis *a, ic_err *err) {
  memset(a, 0, sizeof *a);
  const char *eq = strchr(arg, '=');
  if (!eq || eq == arg)
    return ic_fail(err, IC_EINPUT, "--vary '%s': expected KEY=V1,V2,... (e.g. core.rob=32,64)",
                   arg);
  if ((size_t)(eq - arg) >= sizeof a->key)
    return ic_fail(err, IC_EINPUT, "--vary '%s': key too long", arg);
  memcpy(a->key, arg, (size_t)(eq - arg));
  const char *s = eq + 1;
  if (!*s) return ic_fail(err, IC_EINPUT, "--vary %s: empty axis (no values)", a->key);
  ic_status st = IC_OK;
  for (;;) {
    const char *c = strchr(s, ',');
    const char *end = c ? c : s + strlen(s);
    if (end == s) {
      st = ic_fail(err, IC_EINPUT, "--vary %s: empty item in '%s'", a->key, eq + 1);
      break;
    }
    if ((st = axis_item(a, s, end, err)) != IC_OK) break;
    if (!c) break;
    s = c + 1;
  }
  if (st != IC_OK) ic_sweep_axis_free(a);
  return st;
}

void ic_sweep_axis_free(ic_sweep_axis *a) {
  for (int k = 0; k < a->nvalues; k++) free(a->values[k]);
  free(a->values);
  a->values = NULL;
  a->nvalues = 0;
}

/* ---- points, keys ------------------------------------------------------ */

size_t ic_sweep_points(const ic_sweep_spec *s) {
  size_t n = 1;
  for (int k = 0; k < s->naxes; k++) {
    if (s->axes[k].nvalues == 0) return 0;
    if (n > IC_SWEEP_MAX_JOBS) return n; /* ic_sweep_check reports it */
    n *= (size_t)s->axes[k].nvalues;
  }
  return n;
}

size_t ic_sweep_jobs(const ic_sweep_spec *s) {
  return ic_sweep_points(s) * (size_t)s->nworkloads;
}

const char *ic_sweep_value(const ic_sweep_spec *s, size_t point, int axis) {
  for (int k = s->naxes - 1; k > axis; k--) point /= (size_t)s->axes[k].nvalues;
  return s->axes[axis].values[point % (size_t)s->axes[axis].nvalues];
}

int ic_sweep_overrides(const ic_sweep_spec *s, size_t point, char **out, int cap) {
  int n = 0;
  for (int k = 0; k < s->nsets && n < cap; k++) out[n++] = strdup(s->sets[k]);
  for (int k = 0; k < s->naxes && n < cap; k++) {
    char *v = NULL;
    if (asprintf(&v, "%s=%s", s->axes[k].key, ic_sweep_value(s, point, k)) < 0) v = NULL;
    out[n++] = v;
  }
  return n;
}

static int key_of(const char *set, const char *key) {
  size_t l = strlen(key);
  return !strncmp(set, key, l) && set[l] == '=';
}

ic_status ic_sweep_check(const ic_sweep_spec *s, ic_err *err) {
  if (s->naxes < 1) return ic_fail(err, IC_EINPUT, "sweep: no --vary axis");
  if (s->naxes > IC_SWEEP_MAX_AXES)
    return ic_fail(err, IC_EINPUT, "sweep: more than %d axes", IC_SWEEP_MAX_AXES);
  if (s->nworkloads < 1) return ic_fail(err, IC_EINPUT, "sweep: no workload");
  for (int k = 0; k < s->naxes; k++) {
    if (s->axes[k].nvalues < 1)
      return ic_fail(err, IC_EINPUT, "--vary %s: empty axis (no values)", s->axes[k].key);
    for (int j = 0; j < k; j++)
      if (!strcmp(s->axes[j].key, s->axes[k].key))
        return ic_fail(err, IC_EINPUT, "--vary %s: key swept twice", s->axes[k].key);
    for (int j = 0; j < s->nsets; j++)
      if (key_of(s->sets[j], s->axes[k].key))
        return ic_fail(err, IC_EINPUT, "--vary %s: key also fixed by --set %s", s->axes[k].key,
                       s->sets[j]);
  }
  size_t pts = ic_sweep_points(s);
  if (pts > IC_SWEEP_MAX_JOBS || pts * (size_t)s->nworkloads > IC_SWEEP_MAX_JOBS)
    return ic_fail(err, IC_EINPUT, "sweep: more than %d runs", IC_SWEEP_MAX_JOBS);
  ooo_config *base;
  ic_status st = ooo_config_load(&base, s->config_path, err);
  if (st != IC_OK) return st;
  for (int k = 0; k < s->nsets && st == IC_OK; k++) {
    ic_err e2;
    if ((st = ooo_config_set(base, s->sets[k], &e2)) != IC_OK)
      ic_fail(err, st, "--set %s: %s", s->sets[k], e2.msg);
  }
  /* every key range is checked on its own, so each value on the fixed
     machine stands for every point that has it */
  for (int k = 0; k < s->naxes && st == IC_OK; k++)
    for (int v = 0; v < s->axes[k].nvalues && st == IC_OK; v++) {
      ooo_config *c = ooo_config_clone(base);
      if (!c) {
        st = ic_fail(err, IC_ERUN, "out of memory");
        break;
      }
      char kv[256];
      snprintf(kv, sizeof kv, "%s=%s", s->axes[k].key, s->axes[k].values[v]);
      ic_err e2;
      if ((st = ooo_config_set(c, kv, &e2)) != IC_OK)
        ic_fail(err, st, "--vary %s: %s", s->axes[k].key, e2.msg);
      ooo_config_destroy(c);
    }
  ooo_config_destroy(base);
  return st;
}

typedef struct fnv {
  uint64_t h;
} fnv;

static void fnv_add(fnv *f, const void *p, size_t n) {
  const unsigned char *b = p;
  for (size_t i = 0; i < n; i++) {
    f->h ^= b[i];
    f->h *= 0x100000001b3ull;
  }
}

/* a string and a separator, so that ("ab","c") and ("a","bc") differ */
static void fnv_str(fnv *f, const char *s) { fnv_add(f, s ? s : "", (s ? strlen(s) : 0) + 1); }

static void fnv_u64(fnv *f, uint64_t v) {
  char buf[24];
  snprintf(buf, sizeof buf, "%" PRIu64, v);
  fnv_str(f, buf);
}

void ic_sweep_key(const ic_sweep_spec *s, size_t job, char out[17]) {
  size_t point = job / (size_t)s->nworkloads, wl = job % (size_t)s->nworkloads;
  fnv f = {0xcbf29ce484222325ull};
  fnv_str(&f, "icost sweep record 1");
  fnv_str(&f, s->config_path ? s->config_path : "(baseline)");
  for (int k = 0; k < s->nsets; k++) fnv_str(&f, s->sets[k]);
  fnv_str(&f, "point");
  for (int k = 0; k < s->naxes; k++) {
    fnv_str(&f, s->axes[k].key);
    fnv_str(&f, ic_sweep_value(s, point, k));
  }
  const ic_sweep_workload *w = &s->workloads[wl];
  fnv_str(&f, w->name);
  for (int k = 0; k < w->argc; k++) fnv_str(&f, w->argv[k]);
  fnv_u64(&f, w->program_hash);
  fnv_str(&f, s->categories ? s->categories : "(default)");
  fnv_str(&f, s->method);
  fnv_u64(&f, s->skip);
  fnv_u64(&f, s->warm);
  fnv_u64(&f, s->max);
  fnv_u64(&f, s->seed);
  fnv_u64(&f, (uint64_t)s->shapley);
  snprintf(out, 17, "%016" PRIx64, f.h);
}

ic_status ic_sweep_hash_file(const char *path, uint64_t *out, ic_err *err) {
  FILE *fp = fopen(path, "rb");
  if (!fp) return ic_fail(err, IC_EINPUT, "%s: %s", path, strerror(errno));
  fnv f = {0xcbf29ce484222325ull};
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, fp)) > 0) fnv_add(&f, buf, n);
  int bad = ferror(fp);
  fclose(fp);
  if (bad) return ic_fail(err, IC_EINPUT, "%s: read error", path);
  *out = f.h;
  return IC_OK;
}

/* ---- writing records --------------------------------------------------- */

/* A YAML double-quoted scalar (also valid JSON). */
static void put_quoted(FILE *f, const char *s) {
  fputc('"', f);
  for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
    if (*p == '"' || *p == '\\') fprintf(f, "\\%c", *p);
    else if (*p < 0x20) fprintf(f, "\\u%04x", *p);
    else fputc(*p, f);
  }
  fputc('"', f);
}

static int all_digits(const char *s) {
  if (*s == '-') s++;
  if (!*s) return 0;
  for (; *s; s++)
    if (*s < '0' || *s > '9') return 0;
  return 1;
}

/* The record's header: everything but the run's output and `run`. */
static ic_status write_header(const ic_sweep_spec *s, size_t job, const char *key, FILE *f,
                              ic_err *err) {
  size_t point = job / (size_t)s->nworkloads, wl = job % (size_t)s->nworkloads;
  const ic_sweep_workload *w = &s->workloads[wl];
  fprintf(f, "sweep_record: 1\nkey: \"%s\"\npoint:\n", key);
  for (int k = 0; k < s->naxes; k++) {
    const char *v = ic_sweep_value(s, point, k);
    fprintf(f, "  %s: ", s->axes[k].key);
    if (all_digits(v)) fputs(v, f);
    else put_quoted(f, v);
    fputc('\n', f);
  }
  fputs("sweep_provenance:\n  icost_version: ", f);
  put_quoted(f, s->version);
  fputs("\n  config: ", f);
  put_quoted(f, s->config_path ? s->config_path : "baseline");
  fputs("\n  overrides: [", f);
  char *ov[IC_SWEEP_MAX_AXES + 256];
  int nov = ic_sweep_overrides(s, point, ov, (int)(sizeof ov / sizeof ov[0]));
  for (int k = 0; k < nov; k++) {
    fputs(k ? ", " : "", f);
    put_quoted(f, ov[k]);
  }
  fputs("]\n  machine:\n", f);
  /* the resolved machine: ooo_config_write's YAML, indented */
  ooo_config *c = NULL;
  ic_status st = ooo_config_load(&c, s->config_path, err);
  for (int k = 0; k < nov && st == IC_OK; k++) st = ooo_config_set(c, ov[k], err);
  for (int k = 0; k < nov; k++) free(ov[k]);
  if (st != IC_OK) {
    ooo_config_destroy(c);
    return st;
  }
  char *mbuf = NULL;
  size_t mlen = 0;
  FILE *m = open_memstream(&mbuf, &mlen);
  if (!m) {
    ooo_config_destroy(c);
    return ic_fail(err, IC_ERUN, "out of memory");
  }
  ooo_config_write(c, m);
  fclose(m);
  ooo_config_destroy(c);
  for (char *line = mbuf, *nl; line && *line; line = nl ? nl + 1 : NULL) {
    nl = strchr(line, '\n');
    fprintf(f, "    %.*s\n", nl ? (int)(nl - line) : (int)strlen(line), line);
  }
  free(mbuf);
  fputs("  workload: ", f);
  put_quoted(f, w->name);
  fputs("\n  argv: [", f);
  for (int k = 0; k < w->argc; k++) {
    fputs(k ? ", " : "", f);
    put_quoted(f, w->argv[k]);
  }
  fprintf(f, "]\n  program_hash: \"fnv1a64:%016" PRIx64 "\"\n  categories: ", w->program_hash);
  put_quoted(f, s->categories ? s->categories : "default");
  fprintf(f,
          "\n  method: %s\n  skip: %" PRIu64 "\n  warm: %" PRIu64 "\n  max: %" PRIu64
          "\n  seed: %" PRIu64 "\n  shapley: %s\n",
          s->method, s->skip, s->warm, s->max, s->seed, s->shapley ? "true" : "false");
  return IC_OK;
}

static int write_all(int fd, const char *p, size_t n) {
  while (n) {
    ssize_t w = write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

typedef struct sweep_state {
  const ic_sweep_spec *s;
  const ic_sweep_run_opts *o;
  size_t *todo, ntodo;
  atomic_size_t next;
  pthread_mutex_t lock;
  size_t done, failed;
  double start;
  char first_error[512];
  atomic_uint tmp_counter;
} sweep_state;

/* One job: header, the run's output, `run`, fsync, rename. */
static ic_status run_job(sweep_state *ss, size_t job, ic_err *err) {
  const ic_sweep_spec *s = ss->s;
  char key[17], final[4096], tmp[4200], host[256] = "unknown";
  ic_sweep_key(s, job, key);
  gethostname(host, sizeof host - 1);
  host[sizeof host - 1] = 0;
  snprintf(final, sizeof final, "%s/%s.yaml", ss->o->dir, key);
  snprintf(tmp, sizeof tmp, "%s/.tmp-%s-%s-%ld-%u", ss->o->dir, key, host, (long)getpid(),
           atomic_fetch_add(&ss->tmp_counter, 1));
  int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return ic_fail(err, IC_ERUN, "%s: %s", tmp, strerror(errno));
  char *hbuf = NULL;
  size_t hlen = 0;
  FILE *h = open_memstream(&hbuf, &hlen);
  ic_status st = h ? IC_OK : ic_fail(err, IC_ERUN, "out of memory");
  if (st == IC_OK) {
    st = write_header(s, job, key, h, err);
    fclose(h);
  }
  if (st == IC_OK && write_all(fd, hbuf, hlen) != 0)
    st = ic_fail(err, IC_ERUN, "%s: %s", tmp, strerror(errno));
  free(hbuf);
  time_t started = time(NULL);
  double t0 = now_seconds();
  if (st == IC_OK)
    st = ss->o->run(ss->o->run_ctx, s, job / (size_t)s->nworkloads, job % (size_t)s->nworkloads,
                    fd, err);
  if (st == IC_OK) {
    char tail[512], stamp[64];
    struct tm tmv;
    gmtime_r(&started, &tmv);
    strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tmv);
    int n = snprintf(tail, sizeof tail, "run:\n  host: \"%s\"\n  pid: %ld\n  started: \"%s\"\n  seconds: %.3f\n",
                     host, (long)getpid(), stamp, now_seconds() - t0);
    if (write_all(fd, tail, (size_t)n) != 0 || fsync(fd) != 0)
      st = ic_fail(err, IC_ERUN, "%s: %s", tmp, strerror(errno));
  }
  if (close(fd) != 0 && st == IC_OK) st = ic_fail(err, IC_ERUN, "%s: %s", tmp, strerror(errno));
  if (st == IC_OK && rename(tmp, final) != 0)
    st = ic_fail(err, IC_ERUN, "%s: %s", final, strerror(errno));
  if (st != IC_OK) {
    unlink(tmp);
    return st;
  }
  /* the rename itself is durable only once the directory is */
  int dfd = open(ss->o->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    fsync(dfd);
    close(dfd);
  }
  return IC_OK;
}

static void *worker(void *arg) {
  sweep_state *ss = arg;
  for (;;) {
    size_t i = atomic_fetch_add(&ss->next, 1);
    if (i >= ss->ntodo) break;
    ic_err err = {{0}};
    ic_status st = run_job(ss, ss->todo[i], &err);
    pthread_mutex_lock(&ss->lock);
    if (st == IC_OK) ss->done++;
    else {
      if (ss->failed++ == 0) snprintf(ss->first_error, sizeof ss->first_error, "%s", err.msg);
    }
    if (ss->o->progress) {
      size_t fin = ss->done + ss->failed;
      double el = now_seconds() - ss->start;
      double left = fin ? el / (double)fin * (double)(ss->ntodo - fin) : NAN;
      ss->o->progress(ss->o->progress_ctx, fin, ss->ntodo, ss->failed, left);
    }
    pthread_mutex_unlock(&ss->lock);
  }
  return NULL;
}

static ic_status mkdirs(const char *dir, ic_err *err) {
  char path[4096];
  if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path)
    return ic_fail(err, IC_EINPUT, "%s: path too long", dir);
  for (char *p = path + 1;; p++) {
    if (*p == '/' || *p == 0) {
      char c = *p;
      *p = 0;
      if (mkdir(path, 0755) != 0 && errno != EEXIST)
        return ic_fail(err, IC_EINPUT, "%s: %s", path, strerror(errno));
      *p = c;
      if (!c) break;
    }
  }
  struct stat sb;
  if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
    return ic_fail(err, IC_EINPUT, "%s: not a directory", dir);
  return IC_OK;
}

/* Removes the temporaries of runs that died with their sweep on this host
 * (.tmp-KEY-HOST-PID-N whose PID is gone); other hosts' are left alone,
 * as their writers may still be running. */
static void remove_dead_temporaries(const char *dir) {
  char host[256] = "unknown";
  gethostname(host, sizeof host - 1);
  host[sizeof host - 1] = 0;
  DIR *dp = opendir(dir);
  if (!dp) return;
  struct dirent *de;
  while ((de = readdir(dp))) {
    const char *n = de->d_name;
    if (strncmp(n, ".tmp-", 5) != 0 || strlen(n) < 5 + 17) continue;
    const char *h = n + 5 + 17; /* after the 16-digit key and its '-' */
    size_t hl = strlen(host);
    if (strncmp(h, host, hl) != 0 || h[hl] != '-') continue;
    char *end;
    long pid = strtol(h + hl + 1, &end, 10);
    if (*end != '-' || pid <= 0) continue;
    if (kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, n);
    unlink(path);
  }
  closedir(dp);
}

ic_status ic_sweep_run(const ic_sweep_spec *s, const ic_sweep_run_opts *o, ic_sweep_summary *sum,
                       ic_err *err) {
  memset(sum, 0, sizeof *sum);
  ic_status st = mkdirs(o->dir, err);
  if (st != IC_OK) return st;
  remove_dead_temporaries(o->dir);
  const size_t jobs = ic_sweep_jobs(s);
  const int nsh = o->nshards > 0 ? o->nshards : 1;
  sweep_state ss;
  memset(&ss, 0, sizeof ss);
  ss.s = s;
  ss.o = o;
  ss.todo = malloc((jobs ? jobs : 1) * sizeof *ss.todo);
  if (!ss.todo) return ic_fail(err, IC_ERUN, "out of memory");
  for (size_t j = 0; j < jobs; j++) {
    if (j % (size_t)nsh != (size_t)o->shard) continue;
    sum->in_shard++;
    char key[17], path[4096];
    ic_sweep_key(s, j, key);
    snprintf(path, sizeof path, "%s/%s.yaml", o->dir, key);
    if (access(path, F_OK) == 0) sum->present++;
    else ss.todo[ss.ntodo++] = j;
  }
  pthread_mutex_init(&ss.lock, NULL);
  ss.start = now_seconds();
  int nthreads = o->threads < 1 ? 1 : o->threads;
  if ((size_t)nthreads > ss.ntodo) nthreads = (int)ss.ntodo;
  pthread_t tid[256];
  if (nthreads > 256) nthreads = 256;
  int started = 0;
  for (; started < nthreads; started++)
    if (pthread_create(&tid[started], NULL, worker, &ss) != 0) break;
  if (started == 0 && ss.ntodo) worker(&ss);
  for (int k = 0; k < started; k++) pthread_join(tid[k], NULL);
  pthread_mutex_destroy(&ss.lock);
  sum->done = ss.done;
  sum->failed = ss.failed;
  snprintf(sum->first_error, sizeof sum->first_error, "%s", ss.first_error);
  free(ss.todo);
  return IC_OK;
}

/* ---- reading records --------------------------------------------------- */

/* a growable string */
typedef struct sbuf {
  char *p;
  size_t n, cap;
} sbuf;

static void sb_put(sbuf *b, const char *s, size_t n) {
  if (b->n + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap * 2 : 256;
    while (cap < b->n + n + 1) cap *= 2;
    char *np = realloc(b->p, cap);
    if (!np) abort();
    b->p = np;
    b->cap = cap;
  }
  memcpy(b->p + b->n, s, n);
  b->n += n;
  b->p[b->n] = 0;
}
static void sb_str(sbuf *b, const char *s) { sb_put(b, s, strlen(s)); }

/* a plain scalar that reads as a number (JSON's form) */
static int plain_number(const char *s) {
  if (!*s) return 0;
  const char *p = s;
  if (*p == '-') p++;
  if (*p < '0' || *p > '9') return 0;
  for (; *p; p++)
    if (!strchr("0123456789.eE+-", *p)) return 0;
  char *end;
  strtod(s, &end);
  return *end == 0;
}

/* A plain YAML scalar as the emitter's value: null, a boolean, an integer,
   a double (nan and inf: NaN, written as null), else a string; a quoted
   scalar is a string. */
static void emit_scalar(ic_emit *em, const char *key, const yaml_node_t *n) {
  const char *v = (const char *)n->data.scalar.value;
  if (n->data.scalar.style != YAML_PLAIN_SCALAR_STYLE) {
    ic_emit_str(em, key, v);
    return;
  }
  if (!*v || !strcmp(v, "null") || !strcmp(v, "~")) {
    ic_emit_null(em, key);
    return;
  }
  if (!strcmp(v, "true") || !strcmp(v, "false")) {
    ic_emit_bool(em, key, v[0] == 't');
    return;
  }
  if (!strcmp(v, "nan") || !strcmp(v, "-nan") || !strcmp(v, ".nan") || !strcmp(v, "inf") ||
      !strcmp(v, "-inf")) {
    ic_emit_double(em, key, NAN);
    return;
  }
  if (plain_number(v)) {
    char *end;
    errno = 0;
    if (v[0] == '-') {
      long long i = strtoll(v, &end, 10);
      if (!*end && !errno) {
        ic_emit_i64(em, key, i);
        return;
      }
    } else {
      unsigned long long u = strtoull(v, &end, 10);
      if (!*end && !errno) {
        ic_emit_u64(em, key, u);
        return;
      }
    }
    ic_emit_double(em, key, strtod(v, NULL));
    return;
  }
  ic_emit_str(em, key, v);
}

/* The YAML tree under n to the emitter, as the entry key of the enclosing
   mapping (NULL in a list). */
static void emit_node(ic_emit *em, yaml_document_t *d, yaml_node_t *n, const char *key) {
  if (!n) {
    ic_emit_null(em, key);
    return;
  }
  switch (n->type) {
  case YAML_SCALAR_NODE: emit_scalar(em, key, n); break;
  case YAML_SEQUENCE_NODE:
    ic_emit_list_begin(em, key);
    for (yaml_node_item_t *i = n->data.sequence.items.start; i < n->data.sequence.items.top; i++)
      emit_node(em, d, yaml_document_get_node(d, *i), NULL);
    ic_emit_list_end(em);
    break;
  case YAML_MAPPING_NODE:
    ic_emit_map_begin(em, key);
    for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
      yaml_node_t *k = yaml_document_get_node(d, p->key);
      const char *ks = k && k->type == YAML_SCALAR_NODE ? (const char *)k->data.scalar.value : "";
      emit_node(em, d, yaml_document_get_node(d, p->value), ks);
    }
    ic_emit_map_end(em);
    break;
  default: ic_emit_null(em, key); break;
  }
}

static yaml_node_t *map_get(yaml_document_t *d, yaml_node_t *m, const char *key) {
  if (!m || m->type != YAML_MAPPING_NODE) return NULL;
  for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
    yaml_node_t *k = yaml_document_get_node(d, p->key);
    if (k && k->type == YAML_SCALAR_NODE && !strcmp((const char *)k->data.scalar.value, key))
      return yaml_document_get_node(d, p->value);
  }
  return NULL;
}

static const char *scalar(yaml_node_t *n) {
  return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

static char *dup_scalar(yaml_node_t *n) {
  const char *s = scalar(n);
  return strdup(s ? s : "");
}

static double num(yaml_node_t *n) {
  const char *s = scalar(n);
  if (!s) return NAN;
  char *end;
  double v = strtod(s, &end);
  return *end || end == s ? NAN : v;
}

static int read_entries(yaml_document_t *d, yaml_node_t *seq, ic_sweep_entry **out) {
  *out = NULL;
  if (!seq || seq->type != YAML_SEQUENCE_NODE) return 0;
  int n = (int)(seq->data.sequence.items.top - seq->data.sequence.items.start);
  *out = calloc((size_t)(n ? n : 1), sizeof **out);
  for (int k = 0; k < n; k++) {
    yaml_node_t *e = yaml_document_get_node(d, seq->data.sequence.items.start[k]);
    (*out)[k].name = dup_scalar(map_get(d, e, "name"));
    (*out)[k].cycles = num(map_get(d, e, "cycles"));
    (*out)[k].percent = num(map_get(d, e, "percent"));
  }
  return n;
}

static void rec_free(ic_sweep_rec *r) {
  for (int k = 0; k < r->npoint; k++) {
    free(r->point_keys[k]);
    free(r->point_values[k]);
  }
  free(r->point_keys);
  free(r->point_values);
  for (int k = 0; k < r->nbreakdown; k++) free(r->breakdown[k].name);
  for (int k = 0; k < r->nshapley; k++) free(r->shapley[k].name);
  free(r->breakdown);
  free(r->shapley);
  free(r->file);
  free(r->workload);
  free(r->method);
  free(r->config);
  free(r->categories);
  free(r->version);
  free(r->program_hash);
  free(r->overrides);
  if (r->doc) yaml_document_delete(r->doc);
  free(r->doc);
  memset(r, 0, sizeof *r);
}

static ic_status read_record(const char *path, const char *name, ic_sweep_rec *r, ic_err *err) {
  memset(r, 0, sizeof *r);
  FILE *f = fopen(path, "rb");
  if (!f) return ic_fail(err, IC_EINPUT, "%s: %s", path, strerror(errno));
  yaml_parser_t p;
  yaml_document_t d;
  yaml_parser_initialize(&p);
  yaml_parser_set_input_file(&p, f);
  int ok = yaml_parser_load(&p, &d);
  if (!ok) {
    ic_fail(err, IC_EINPUT, "%s:%zu: record does not parse: %s", path, p.problem_mark.line + 1,
            p.problem ? p.problem : "error");
    yaml_parser_delete(&p);
    fclose(f);
    return IC_EINPUT;
  }
  yaml_parser_delete(&p);
  fclose(f);
  yaml_node_t *root = yaml_document_get_root_node(&d);
  ic_status st = IC_OK;
  if (!root || !map_get(&d, root, "sweep_record") || !map_get(&d, root, "breakdown")) {
    st = ic_fail(err, IC_EINPUT, "%s: not a sweep record", path);
    goto out;
  }
  r->file = strdup(name);
  yaml_node_t *pt = map_get(&d, root, "point");
  if (pt && pt->type == YAML_MAPPING_NODE) {
    int n = (int)(pt->data.mapping.pairs.top - pt->data.mapping.pairs.start);
    r->point_keys = calloc((size_t)(n ? n : 1), sizeof *r->point_keys);
    r->point_values = calloc((size_t)(n ? n : 1), sizeof *r->point_values);
    for (int k = 0; k < n; k++) {
      yaml_node_pair_t *pp = &pt->data.mapping.pairs.start[k];
      r->point_keys[k] = dup_scalar(yaml_document_get_node(&d, pp->key));
      r->point_values[k] = dup_scalar(yaml_document_get_node(&d, pp->value));
    }
    r->npoint = n;
  }
  /* sweep_provenance; records written before the run's own output began
     with a `provenance` mapping called it provenance */
  yaml_node_t *pv = map_get(&d, root, "sweep_provenance");
  if (!pv) pv = map_get(&d, root, "provenance");
  r->workload = dup_scalar(map_get(&d, root, "workload"));
  r->method = dup_scalar(map_get(&d, root, "method"));
  r->config = dup_scalar(map_get(&d, pv, "config"));
  r->categories = dup_scalar(map_get(&d, pv, "categories"));
  r->version = dup_scalar(map_get(&d, pv, "icost_version"));
  r->program_hash = dup_scalar(map_get(&d, pv, "program_hash"));
  r->skip = (uint64_t)num(map_get(&d, pv, "skip"));
  r->max = (uint64_t)num(map_get(&d, pv, "max"));
  r->seed = (uint64_t)num(map_get(&d, pv, "seed"));
  sbuf ov = {0};
  sb_str(&ov, "");
  yaml_node_t *ovn = map_get(&d, pv, "overrides");
  if (ovn && ovn->type == YAML_SEQUENCE_NODE)
    for (yaml_node_item_t *i = ovn->data.sequence.items.start; i < ovn->data.sequence.items.top;
         i++) {
      const char *v = scalar(yaml_document_get_node(&d, *i));
      if (ov.n) sb_str(&ov, ";");
      sb_str(&ov, v ? v : "");
    }
  r->overrides = ov.p;
  r->cycles = num(map_get(&d, root, "cycles"));
  r->instructions = num(map_get(&d, root, "instructions"));
  r->nbreakdown = read_entries(&d, map_get(&d, root, "breakdown"), &r->breakdown);
  r->nshapley = read_entries(&d, map_get(&d, root, "shapley"), &r->shapley);
  /* the tree stays for the export (yaml_document_t holds no pointer into
     itself, so it may move) */
  if ((r->doc = malloc(sizeof d))) {
    memcpy(r->doc, &d, sizeof d);
    return IC_OK;
  }
  st = ic_fail(err, IC_ERUN, "out of memory");
out:
  yaml_document_delete(&d);
  if (st != IC_OK) rec_free(r);
  return st;
}

const char *ic_sweep_rec_value(const ic_sweep_rec *r, const char *key) {
  for (int k = 0; k < r->npoint; k++)
    if (!strcmp(r->point_keys[k], key)) return r->point_values[k];
  return NULL;
}

static int cmp_values(const char *a, const char *b) {
  if (!a || !b) return a ? 1 : b ? -1 : 0;
  char *ea, *eb;
  double x = strtod(a, &ea), y = strtod(b, &eb);
  if (!*ea && !*eb && ea != a && eb != b) return x < y ? -1 : x > y;
  return strcmp(a, b);
}

static int cmp_file(const void *a, const void *b) {
  return strcmp(((const ic_sweep_rec *)a)->file, ((const ic_sweep_rec *)b)->file);
}

static int cmp_rec(const void *pa, const void *pb, void *ctx) {
  const ic_sweep_rec *a = pa, *b = pb;
  const ic_sweep_table *sort_table = ctx;
  for (int k = 0; k < sort_table->nkeys; k++) {
    int c = cmp_values(ic_sweep_rec_value(a, sort_table->keys[k]),
                       ic_sweep_rec_value(b, sort_table->keys[k]));
    if (c) return c;
  }
  int c = strcmp(a->workload, b->workload);
  return c ? c : strcmp(a->file, b->file);
}

ic_status ic_sweep_table_load(ic_sweep_table *t, const char *dir, ic_err *err) {
  memset(t, 0, sizeof *t);
  DIR *dp = opendir(dir);
  if (!dp) return ic_fail(err, IC_EINPUT, "%s: %s", dir, strerror(errno));
  size_t cap = 0;
  ic_status st = IC_OK;
  struct dirent *de;
  while ((de = readdir(dp))) {
    size_t l = strlen(de->d_name);
    if (de->d_name[0] == '.' || l < 6 || strcmp(de->d_name + l - 5, ".yaml")) continue;
    if (t->n == cap) {
      cap = cap ? cap * 2 : 64;
      ic_sweep_rec *nr = realloc(t->rec, cap * sizeof *nr);
      if (!nr) {
        st = ic_fail(err, IC_ERUN, "out of memory");
        break;
      }
      t->rec = nr;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
    if ((st = read_record(path, de->d_name, &t->rec[t->n], err)) != IC_OK) break;
    t->n++;
  }
  closedir(dp);
  if (st != IC_OK) {
    ic_sweep_table_free(t);
    return st;
  }
  /* the swept keys in the order of the records, taken in file order so that
     the table does not depend on the order the directory lists them in */
  if (t->n) qsort(t->rec, t->n, sizeof *t->rec, cmp_file);
  for (size_t i = 0; i < t->n; i++)
    for (int k = 0; k < t->rec[i].npoint; k++) {
      int have = 0;
      for (int j = 0; j < t->nkeys && !have; j++) have = !strcmp(t->keys[j], t->rec[i].point_keys[k]);
      if (have) continue;
      t->keys = realloc(t->keys, (size_t)(t->nkeys + 1) * sizeof *t->keys);
      t->keys[t->nkeys++] = strdup(t->rec[i].point_keys[k]);
    }
  if (t->n) qsort_r(t->rec, t->n, sizeof *t->rec, cmp_rec, t);
  return IC_OK;
}

void ic_sweep_table_free(ic_sweep_table *t) {
  for (size_t i = 0; i < t->n; i++) rec_free(&t->rec[i]);
  free(t->rec);
  for (int k = 0; k < t->nkeys; k++) free(t->keys[k]);
  free(t->keys);
  memset(t, 0, sizeof *t);
}

/* ---- export ------------------------------------------------------------ */

/* the union of entry names over the records, in order of appearance */
static int entry_names(const ic_sweep_table *t, int shapley, char ***out) {
  char **names = NULL;
  int n = 0;
  for (size_t i = 0; i < t->n; i++) {
    const ic_sweep_rec *r = &t->rec[i];
    int m = shapley ? r->nshapley : r->nbreakdown;
    const ic_sweep_entry *e = shapley ? r->shapley : r->breakdown;
    for (int k = 0; k < m; k++) {
      int have = 0;
      for (int j = 0; j < n && !have; j++) have = !strcmp(names[j], e[k].name);
      if (have) continue;
      names = realloc(names, (size_t)(n + 1) * sizeof *names);
      names[n++] = e[k].name;
    }
  }
  *out = names;
  return n;
}

static const ic_sweep_entry *find_entry(const ic_sweep_entry *e, int n, const char *name) {
  for (int k = 0; k < n; k++)
    if (!strcmp(e[k].name, name)) return &e[k];
  return NULL;
}

/* The csv table: a column per swept key, the provenance columns, then
   NAME_cycles and NAME_percent per breakdown and Shapley entry, through the
   emitter (emit.h). */
static ic_status export_csv(const ic_sweep_table *t, ic_emit *em, ic_err *err) {
  char **bn, **sn;
  int nb = entry_names(t, 0, &bn), ns = entry_names(t, 1, &sn);
  static const char *const fixed[] = {"workload", "method",       "config",       "overrides",
                                      "categories", "skip",       "max",          "seed",
                                      "icost_version", "program_hash", "instructions", "cycles",
                                      "ipc"};
  const int nfixed = (int)(sizeof fixed / sizeof fixed[0]);
  const int ncols = t->nkeys + nfixed + 2 * (nb + ns);
  ic_emit_col *cols = calloc((size_t)ncols, sizeof *cols);
  char **names = calloc((size_t)ncols, sizeof *names);
  if (!cols || !names) {
    free(cols);
    free(names);
    free(bn);
    free(sn);
    return ic_fail(err, IC_ERUN, "sweep export: out of memory");
  }
  int c = 0;
  for (int k = 0; k < t->nkeys; k++) cols[c++].name = t->keys[k];
  for (int k = 0; k < nfixed; k++) cols[c++].name = fixed[k];
  for (int shap = 0; shap < 2; shap++)
    for (int k = 0; k < (shap ? ns : nb); k++)
      for (int pct = 0; pct < 2; pct++) {
        if (asprintf(&names[c], "%s%s_%s", shap ? "shapley_" : "", shap ? sn[k] : bn[k],
                     pct ? "percent" : "cycles") < 0)
          names[c] = NULL;
        cols[c].name = names[c] ? names[c] : "?";
        c++;
      }
  for (int k = 0; k < ncols; k++) cols[k].decimals = -1;
  {
    ic_emit_table_begin(em, "runs", cols, ncols, 0);
    for (size_t i = 0; i < t->n; i++) {
      const ic_sweep_rec *r = &t->rec[i];
      ic_emit_row_begin(em);
      for (int k = 0; k < t->nkeys; k++) {
        const char *v = ic_sweep_rec_value(r, t->keys[k]);
        ic_emit_str(em, NULL, v ? v : "");
      }
      const char *strs[] = {r->workload, r->method, r->config, r->overrides, r->categories};
      for (size_t k = 0; k < sizeof strs / sizeof strs[0]; k++) ic_emit_str(em, NULL, strs[k] ? strs[k] : "");
      ic_emit_u64(em, NULL, r->skip);
      ic_emit_u64(em, NULL, r->max);
      ic_emit_u64(em, NULL, r->seed);
      ic_emit_str(em, NULL, r->version ? r->version : "");
      ic_emit_str(em, NULL, r->program_hash ? r->program_hash : "");
      ic_emit_double(em, NULL, r->instructions);
      ic_emit_double(em, NULL, r->cycles);
      ic_emit_double(em, NULL, r->cycles > 0 ? r->instructions / r->cycles : NAN);
      for (int shap = 0; shap < 2; shap++)
        for (int k = 0; k < (shap ? ns : nb); k++) {
          const ic_sweep_entry *e = shap ? find_entry(r->shapley, r->nshapley, sn[k])
                                         : find_entry(r->breakdown, r->nbreakdown, bn[k]);
          ic_emit_double(em, NULL, e ? e->cycles : NAN);
          ic_emit_double(em, NULL, e ? e->percent : NAN);
        }
      ic_emit_row_end(em);
    }
    ic_emit_table_end(em);
  }
  for (int k = 0; k < ncols; k++) free(names[k]);
  free(names);
  free(cols);
  free(bn);
  free(sn);
  return IC_OK;
}

ic_status ic_sweep_export(const ic_sweep_table *t, ic_emit *em, ic_err *err) {
  if (ic_emit_get_format(em) == IC_EMIT_CSV) return export_csv(t, em, err);
  ic_emit_list_begin(em, "runs");
  for (size_t i = 0; i < t->n; i++) {
    const ic_sweep_rec *r = &t->rec[i];
    yaml_document_t *d = r->doc;
    ic_emit_map_begin(em, NULL);
    yaml_node_t *root = yaml_document_get_root_node(d);
    for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++) {
      const char *k = scalar(yaml_document_get_node(d, p->key));
      if (k && strcmp(k, "run") != 0) emit_node(em, d, yaml_document_get_node(d, p->value), k);
    }
    if (r->cycles > 0 && !isnan(r->instructions)) ic_emit_double(em, "ipc", r->instructions / r->cycles);
    ic_emit_map_end(em);
  }
  ic_emit_list_end(em);
  return IC_OK;
}
