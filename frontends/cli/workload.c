/* workload.c: resolves the program a command runs, from its arguments or
 * from the workload manifest (format in workload.h).
 *
 * The manifest is read whole and checked whole on every use: a malformed
 * line anywhere is an error that names the file and line, so a broken
 * manifest is noticed by the first command that touches it, not only by the
 * command that happens to want the broken entry. */
#include "ic_file.h"
#include "workload.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef ICOST_SOURCE_DIR
#define ICOST_SOURCE_DIR "."
#endif

/* Tags. X(enum suffix, name in the manifest) */
#define WL_TAG_LIST(X) \
  X(DEFAULT, "default") /* the entry run when no program and no --workload is given */ \
  X(SHORT, "short")     /* ~1e6 instructions or fewer: tests, also under ASan */ \
  X(FULL, "full")       /* suite runs, ~1e8 instructions or fewer */ \
  X(EXTRA, "extra")     /* programs outside the suite's averages (bench_validate TAG=extra) */

enum {
#define WL_X(e, n) WL_TAG_##e,
  WL_TAG_LIST(WL_X)
#undef WL_X
  WL_TAG_COUNT
};

static const char *const wl_tag_names[WL_TAG_COUNT] = {
#define WL_X(e, n) n,
    WL_TAG_LIST(WL_X)
#undef WL_X
};

typedef struct wl_entry {
  size_t line;
  unsigned tags; /* bit i: tag i */
  cli_workload w; /* raw tokens: {W} not yet replaced */
} wl_entry;

typedef struct wl_manifest {
  const char *path;
  wl_entry *e;
  size_t n, cap;
} wl_manifest;

const char *cli_workload_manifest_path(void) {
  return ICOST_SOURCE_DIR "/bench/workloads/manifest";
}

const char *cli_workload_dir(void) {
  const char *env = getenv("ICOST_WORKLOADS");
  return env && *env ? env : ICOST_SOURCE_DIR "/build/workloads";
}

void cli_workload_free(cli_workload *w) {
  if (!w) return;
  if (w->argv)
    for (int i = 0; i < w->argc; i++) free(w->argv[i]);
  free(w->argv);
  free(w->name);
  memset(w, 0, sizeof *w);
}

void cli_workload_list_free(cli_workload *ws, size_t n) {
  if (!ws) return;
  for (size_t i = 0; i < n; i++) cli_workload_free(&ws[i]);
  free(ws);
}

static void manifest_free(wl_manifest *m) {
  for (size_t i = 0; i < m->n; i++) cli_workload_free(&m->e[i].w);
  free(m->e);
  memset(m, 0, sizeof *m);
}

static ic_status oom(ic_err *err) {
  return ic_fail(err, IC_ERUN, "out of memory");
}

static int name_ok(const char *s) {
  if (!*s) return 0;
  for (; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
          *s == '.' || *s == '_' || *s == '-'))
      return 0;
  return 1;
}

/* Parses a TAGS token into a bit set; returns -1 and the bad tag on error. */
static int parse_tags(const char *tok, unsigned *tags, char *bad, size_t badsz) {
  *tags = 0;
  if (strcmp(tok, "-") == 0) return 0;
  const char *p = tok;
  for (;;) {
    const char *comma = strchr(p, ',');
    size_t len = comma ? (size_t)(comma - p) : strlen(p);
    int found = -1;
    for (int t = 0; t < WL_TAG_COUNT; t++)
      if (strlen(wl_tag_names[t]) == len && strncmp(p, wl_tag_names[t], len) == 0) found = t;
    if (found < 0) {
      snprintf(bad, badsz, "%.*s", (int)(len < 64 ? len : 64), p);
      return -1;
    }
    *tags |= 1u << found;
    if (!comma) return 0;
    p = comma + 1;
  }
}

/* Splits line into whitespace-separated tokens up to a `#` token. The tokens
 * point into line, which is modified. */
static size_t tokenize(char *line, char ***toks, size_t *cap) {
  size_t n = 0;
  char *p = line;
  for (;;) {
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n' || *p == '\v' || *p == '\f') p++;
    if (!*p || *p == '#') break;
    if (n == *cap) {
      size_t nc = *cap ? *cap * 2 : 16;
      char **t = realloc(*toks, nc * sizeof *t);
      if (!t) return SIZE_MAX;
      *toks = t;
      *cap = nc;
    }
    (*toks)[n++] = p;
    while (*p && *p != ' ' && *p != '\t' && *p != '\r' && *p != '\n' && *p != '\v' && *p != '\f')
      p++;
    if (*p) *p++ = '\0';
  }
  return n;
}

static ic_status add_entry(wl_manifest *m, size_t line, unsigned tags, char **toks, size_t n,
                           ic_err *err) {
  if (m->n == m->cap) {
    size_t nc = m->cap ? m->cap * 2 : 16;
    wl_entry *e = realloc(m->e, nc * sizeof *e);
    if (!e) return oom(err);
    m->e = e;
    m->cap = nc;
  }
  wl_entry *e = &m->e[m->n];
  memset(e, 0, sizeof *e);
  e->line = line;
  e->tags = tags;
  e->w.name = strdup(toks[0]);
  e->w.argv = calloc(n - 1, sizeof *e->w.argv); /* n - 2 command tokens + NULL */
  if (!e->w.name || !e->w.argv) {
    cli_workload_free(&e->w);
    return oom(err);
  }
  m->n++; /* from here on manifest_free releases it */
  for (size_t i = 2; i < n; i++) {
    e->w.argv[i - 2] = strdup(toks[i]);
    if (!e->w.argv[i - 2]) return oom(err);
    e->w.argc++;
  }
  return IC_OK;
}

static ic_status manifest_parse_line(wl_manifest *m, size_t lineno, char *line, size_t len,
                                     char ***toks, size_t *tcap, ic_err *err) {
  if (memchr(line, '\0', len))
    return ic_fail(err, IC_EINPUT, "%s:%zu: NUL byte in manifest line", m->path, lineno);
  size_t n = tokenize(line, toks, tcap);
  if (n == SIZE_MAX) return oom(err);
  if (n == 0) return IC_OK;
  char **t = *toks;
  if (!name_ok(t[0]))
    return ic_fail(err, IC_EINPUT,
                   "%s:%zu: bad workload name '%.64s' (letters, digits, '.', '_', '-' only)",
                   m->path, lineno, t[0]);
  if (n < 2)
    return ic_fail(err, IC_EINPUT, "%s:%zu: workload '%.64s': expected NAME TAGS COMMAND...",
                   m->path, lineno, t[0]);
  unsigned tags;
  char bad[72];
  if (parse_tags(t[1], &tags, bad, sizeof bad) < 0)
    return ic_fail(err, IC_EINPUT,
                   "%s:%zu: workload '%.64s': unknown tag '%s' (tags: default, short, full, extra; "
                   "'-' for none)",
                   m->path, lineno, t[0], bad);
  if (n < 3)
    return ic_fail(err, IC_EINPUT, "%s:%zu: workload '%.64s' has no command", m->path, lineno,
                   t[0]);
  for (size_t i = 0; i < m->n; i++) {
    if (strcmp(m->e[i].w.name, t[0]) == 0)
      return ic_fail(err, IC_EINPUT, "%s:%zu: workload '%.64s' already defined at line %zu",
                     m->path, lineno, t[0], m->e[i].line);
    if ((tags & m->e[i].tags) & (1u << WL_TAG_DEFAULT))
      return ic_fail(err, IC_EINPUT,
                     "%s:%zu: workload '%.64s' is a second default (the first is '%.64s' at line "
                     "%zu)",
                     m->path, lineno, t[0], m->e[i].w.name, m->e[i].line);
  }
  return add_entry(m, lineno, tags, t, n, err);
}

static ic_status manifest_load(const char *path, wl_manifest *m, ic_err *err) {
  memset(m, 0, sizeof *m);
  m->path = path;
  FILE *f;
  ic_status ost = ic_file_open_regular(&f, path, err);
  if (ost != IC_OK) return ost;
  char *line = NULL, **toks = NULL;
  size_t lcap = 0, tcap = 0, lineno = 0;
  ssize_t len;
  ic_status st = IC_OK;
  while (st == IC_OK && (len = getline(&line, &lcap, f)) >= 0)
    st = manifest_parse_line(m, ++lineno, line, (size_t)len, &toks, &tcap, err);
  if (st == IC_OK && ferror(f))
    st = ic_fail(err, IC_EINPUT, "%s: read error: %s", path, strerror(errno));
  free(line);
  free(toks);
  fclose(f);
  if (st != IC_OK) manifest_free(m);
  return st;
}

/* Copies s with every {W} replaced by wdir. */
static char *subst(const char *s, const char *wdir) {
  size_t wl = strlen(wdir), n = 0;
  for (const char *p = s; (p = strstr(p, "{W}")); p += 3) n++;
  char *out = malloc(strlen(s) + n * wl + 1), *o = out;
  if (!out) return NULL;
  for (const char *p = s; *p;) {
    if (strncmp(p, "{W}", 3) == 0) {
      memcpy(o, wdir, wl);
      o += wl;
      p += 3;
    } else {
      *o++ = *p++;
    }
  }
  *o = '\0';
  return out;
}

/* Fills out from a manifest entry (or from argv when name is given). */
static ic_status workload_copy(cli_workload *out, const char *name, int argc, char *const *argv,
                               const char *wdir, ic_err *err) {
  memset(out, 0, sizeof *out);
  out->name = strdup(name);
  out->argv = calloc((size_t)argc + 1, sizeof *out->argv);
  if (!out->name || !out->argv) {
    cli_workload_free(out);
    return oom(err);
  }
  for (int i = 0; i < argc; i++) {
    out->argv[i] = wdir ? subst(argv[i], wdir) : strdup(argv[i]);
    if (!out->argv[i]) {
      cli_workload_free(out);
      return oom(err);
    }
    out->argc++;
  }
  return IC_OK;
}

ic_status cli_workload_resolve_from(cli_workload *out, const char *manifest, const char *wdir,
                                    const char *name, int argc, char **argv, ic_err *err) {
  memset(out, 0, sizeof *out);
  if (argc > 0) {
    if (!argv || !argv[0] || !*argv[0])
      return ic_fail(err, IC_EINPUT, "empty program name after '--'");
    const char *slash = strrchr(argv[0], '/');
    return workload_copy(out, slash ? slash + 1 : argv[0], argc, argv, NULL, err);
  }
  if (!manifest) manifest = cli_workload_manifest_path();
  if (!wdir) wdir = cli_workload_dir();
  wl_manifest m;
  ic_status st = manifest_load(manifest, &m, err);
  if (st != IC_OK) return st;
  const wl_entry *hit = NULL;
  for (size_t i = 0; i < m.n && !hit; i++)
    if (name ? strcmp(m.e[i].w.name, name) == 0 : (m.e[i].tags & (1u << WL_TAG_DEFAULT)) != 0)
      hit = &m.e[i];
  if (!hit) {
    if (!name) {
      st = ic_fail(err, IC_EINPUT, "%s: no workload is tagged 'default'", manifest);
    } else {
      /* name the known workloads, as many as fit */
      char known[320] = "";
      size_t kl = 0;
      for (size_t i = 0; i < m.n && kl + 8 < sizeof known; i++) {
        int w = snprintf(known + kl, sizeof known - kl, "%s%s", i ? " " : "", m.e[i].w.name);
        if (w < 0 || (size_t)w >= sizeof known - kl) {
          snprintf(known + kl, sizeof known - kl, " ...");
          break;
        }
        kl += (size_t)w;
      }
      st = ic_fail(err, IC_EINPUT, "%s: no workload named '%.64s' (known: %s)", manifest, name,
                   known);
    }
  } else {
    st = workload_copy(out, hit->w.name, hit->w.argc, hit->w.argv, wdir, err);
  }
  manifest_free(&m);
  return st;
}

ic_status cli_workload_resolve(cli_workload *out, const char *name, int argc, char **argv,
                               ic_err *err) {
  ic_status st = cli_workload_resolve_from(out, NULL, NULL, name, argc, argv, err);
  if (st != IC_OK || argc > 0) return st;
  if (access(out->argv[0], R_OK) != 0) {
    st = ic_fail(err, IC_EINPUT,
                 "workload '%.64s': %.200s: %s (build the suite: bash bench/workloads/build.sh "
                 "%.120s)",
                 out->name, out->argv[0], strerror(errno), cli_workload_dir());
    cli_workload_free(out);
  }
  return st;
}

ic_status cli_workload_list(const char *manifest, const char *tag, cli_workload **out,
                            size_t *n, ic_err *err) {
  *out = NULL;
  *n = 0;
  if (!manifest) manifest = cli_workload_manifest_path();
  unsigned want = ~0u;
  if (tag) {
    char bad[72];
    if (strchr(tag, ',') || parse_tags(tag, &want, bad, sizeof bad) < 0 || want == 0)
      return ic_fail(err, IC_EINPUT, "unknown workload tag '%.64s' (tags: default, short, full, extra)",
                     tag);
  }
  wl_manifest m;
  ic_status st = manifest_load(manifest, &m, err);
  if (st != IC_OK) return st;
  const char *wdir = cli_workload_dir();
  cli_workload *ws = calloc(m.n ? m.n : 1, sizeof *ws);
  size_t k = 0;
  if (!ws) st = oom(err);
  for (size_t i = 0; st == IC_OK && i < m.n; i++) {
    if (tag && !(m.e[i].tags & want)) continue;
    st = workload_copy(&ws[k], m.e[i].w.name, m.e[i].w.argc, m.e[i].w.argv, wdir, err);
    if (st == IC_OK) k++;
  }
  manifest_free(&m);
  if (st != IC_OK) {
    cli_workload_list_free(ws, k);
    return st;
  }
  *out = ws;
  *n = k;
  return IC_OK;
}
