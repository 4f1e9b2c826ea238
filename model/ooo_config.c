/* ooo_config.c: machine configs: defaults, YAML loading with `base:`
 * inheritance, --set overrides, validation and YAML output.
 *
 * File format (documented in configs/baseline.yaml): a YAML mapping whose
 * keys are either sections holding a mapping ("core: {rob: 64}") or dotted
 * flat keys ("core.rob: 64"); both spell the key "core.rob". Values are
 * non-negative integers, optionally with a binary suffix K, M or G
 * ("32K" = 32768). The top-level key `base: FILE` names a config that this
 * one overrides: relative to this file's directory, or, a bare name not
 * found there, one of the installed configs or the source tree's
 * (find_base). A file without `base:`
 * overrides the built-in baseline, which is the embedded copy of
 * configs/baseline.yaml (OOO_CONFIG_LIST defaults; a test keeps them equal),
 * so ooo_config_load(NULL) needs no file at run time.
 *
 * Every error is one line "file:line:column: reason" (line and column
 * 1-based), or "--set KEY=VALUE: reason" for an override. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <yaml.h>

#include "ic_file.h"
#include "ooo_config.h"

#define ORIGIN_LEN 200
#define MAX_BASE_DEPTH 16

struct ooo_config {
  int64_t v[OOO_PARAM_COUNT];
  char origin[OOO_PARAM_COUNT][ORIGIN_LEN]; /* where each value was set ("" = default) */
  char name[256];
};

static const char *const param_keys[OOO_PARAM_COUNT] = {
#define OOO_X(id, k, d, lo, hi, f, h) k,
    OOO_CONFIG_LIST(OOO_X)
#undef OOO_X
};
static const int64_t param_default[OOO_PARAM_COUNT] = {
#define OOO_X(id, k, d, lo, hi, f, h) d,
    OOO_CONFIG_LIST(OOO_X)
#undef OOO_X
};
static const int64_t param_min[OOO_PARAM_COUNT] = {
#define OOO_X(id, k, d, lo, hi, f, h) lo,
    OOO_CONFIG_LIST(OOO_X)
#undef OOO_X
};
static const int64_t param_max[OOO_PARAM_COUNT] = {
#define OOO_X(id, k, d, lo, hi, f, h) hi,
    OOO_CONFIG_LIST(OOO_X)
#undef OOO_X
};
static const int param_flags[OOO_PARAM_COUNT] = {
#define OOO_X(id, k, d, lo, hi, f, h) f,
    OOO_CONFIG_LIST(OOO_X)
#undef OOO_X
};
static const char *const param_help[OOO_PARAM_COUNT] = {
#define OOO_X(id, k, d, lo, hi, f, h) h,
    OOO_CONFIG_LIST(OOO_X)
#undef OOO_X
};

static int find_param(const char *key) {
  for (int i = 0; i < OOO_PARAM_COUNT; i++)
    if (strcmp(key, param_keys[i]) == 0) return i;
  return -1;
}

static int is_pow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

/* Parses "123", "32K", "1M"; -1 for anything else (negative included). */
static int parse_value(const char *s, int64_t *out, const char **why) {
  const char *p = s;
  while (*p == ' ') p++;
  if (*p == '-') {
    *why = "must not be negative";
    return -1;
  }
  if (*p < '0' || *p > '9') {
    *why = "must be a non-negative integer";
    return -1;
  }
  errno = 0;
  char *end;
  unsigned long long v = strtoull(p, &end, 10);
  if (errno) {
    *why = "is out of range";
    return -1;
  }
  unsigned long long mul = 1;
  if (*end == 'K' || *end == 'k') mul = 1ull << 10, end++;
  else if (*end == 'M') mul = 1ull << 20, end++;
  else if (*end == 'G') mul = 1ull << 30, end++;
  while (*end == ' ') end++;
  if (*end) {
    *why = "must be a non-negative integer (optional suffix K, M or G)";
    return -1;
  }
  if (v > (unsigned long long)INT64_MAX / mul) {
    *why = "is out of range";
    return -1;
  }
  *out = (int64_t)(v * mul);
  return 0;
}

/* Sets one parameter from text; origin names the place for messages. */
static ic_status set_param(ooo_config *c, int id, const char *text, const char *origin,
                           ic_err *err) {
  int64_t v;
  const char *why = "";
  if (parse_value(text, &v, &why) != 0)
    return ic_fail(err, IC_EINPUT, "%s: %s '%s' %s", origin, param_keys[id], text, why);
  if (v < param_min[id] || v > param_max[id])
    return ic_fail(err, IC_EINPUT, "%s: %s = %lld is out of range [%lld, %lld]", origin,
                   param_keys[id], (long long)v, (long long)param_min[id],
                   (long long)param_max[id]);
  if ((param_flags[id] & OOO_P2) && !is_pow2(v))
    return ic_fail(err, IC_EINPUT, "%s: %s = %lld must be a power of two", origin,
                   param_keys[id], (long long)v);
  c->v[id] = v;
  snprintf(c->origin[id], ORIGIN_LEN, "%s", origin);
  return IC_OK;
}

static const char *origin_of(const ooo_config *c, int id) {
  return c->origin[id][0] ? c->origin[id] : "baseline";
}

/* Cross-parameter checks: set counts must be powers of two. The message
 * points at the place that set the last-named parameter of the group. */
static ic_status check_geometry(const ooo_config *c, int size, int ways, int line,
                                const char *what, ic_err *err) {
  int64_t sz = c->v[size], w = c->v[ways], l = line >= 0 ? c->v[line] : 1;
  int at = c->origin[size][0] ? size : c->origin[ways][0] ? ways : line >= 0 ? line : size;
  if (line >= 0 && c->origin[line][0] && !c->origin[size][0] && !c->origin[ways][0]) at = line;
  if (sz % (w * l) != 0 || !is_pow2(sz / (w * l)))
    return ic_fail(err, IC_EINPUT,
                   "%s: %s: %lld bytes / (%lld ways x %lld) = %lld sets is not a power of two",
                   origin_of(c, at), what, (long long)sz, (long long)w, (long long)l,
                   (long long)(sz / (w * l)));
  return IC_OK;
}

static ic_status validate(const ooo_config *c, ic_err *err) {
  ic_status st;
  if ((st = check_geometry(c, OOO_L1I_SIZE, OOO_L1I_WAYS, OOO_L1I_LINE, "L1I", err))) return st;
  if ((st = check_geometry(c, OOO_L1D_SIZE, OOO_L1D_WAYS, OOO_L1D_LINE, "L1D", err))) return st;
  if ((st = check_geometry(c, OOO_L2_SIZE, OOO_L2_WAYS, OOO_L2_LINE, "L2", err))) return st;
  if ((st = check_geometry(c, OOO_BTB_ENTRIES, OOO_BTB_WAYS, -1, "BTB", err))) return st;
  if ((st = check_geometry(c, OOO_DTLB_ENTRIES, OOO_DTLB_WAYS, -1, "DTLB", err))) return st;
  if ((st = check_geometry(c, OOO_ITLB_ENTRIES, OOO_ITLB_WAYS, -1, "ITLB", err))) return st;
  return IC_OK;
}

static void set_defaults(ooo_config *c) {
  memset(c, 0, sizeof *c);
  for (int i = 0; i < OOO_PARAM_COUNT; i++) c->v[i] = param_default[i];
  snprintf(c->name, sizeof c->name, "baseline");
}

/* ---- YAML reading -------------------------------------------------------- */

typedef struct entry {
  char key[160];
  char value[256];
  size_t kline, kcol, vline, vcol; /* 1-based */
} entry;

typedef struct entries {
  entry *e;
  size_t n, cap;
} entries;

static int entries_push(entries *es, const entry *e) {
  if (es->n == es->cap) {
    size_t cap = es->cap ? es->cap * 2 : 64;
    entry *ne = realloc(es->e, cap * sizeof *ne);
    if (!ne) return -1;
    es->e = ne;
    es->cap = cap;
  }
  es->e[es->n++] = *e;
  return 0;
}

#define MAX_NEST 8

/* Reads a file into key/value entries, flattening nested mappings. */
static ic_status read_entries(const char *path, entries *es, ic_err *err) {
  FILE *f;
  ic_status ost = ic_file_open_regular(&f, path, err);
  if (ost != IC_OK) return ost;
  yaml_parser_t parser;
  if (!yaml_parser_initialize(&parser)) {
    fclose(f);
    return ic_fail(err, IC_ERUN, "%s: out of memory", path);
  }
  yaml_parser_set_input_file(&parser, f);

  char prefix[MAX_NEST][160];
  struct {
    char key[160];
    size_t line;
  } sections[64];      /* keys whose value is a mapping ("core"), for duplicates */
  size_t nsections = 0;
  int depth = 0;       /* open mappings */
  int want_key[MAX_NEST];
  entry cur;
  memset(&cur, 0, sizeof cur);
  ic_status st = IC_OK;
  int done = 0, docs = 0;
  prefix[0][0] = 0;
  while (!done && st == IC_OK) {
    yaml_event_t ev;
    if (!yaml_parser_parse(&parser, &ev)) {
      st = ic_fail(err, IC_EINPUT, "%s:%zu:%zu: %s", path, parser.problem_mark.line + 1,
                   parser.problem_mark.column + 1,
                   parser.problem ? parser.problem : "YAML syntax error");
      break;
    }
    size_t line = ev.start_mark.line + 1, col = ev.start_mark.column + 1;
    switch (ev.type) {
    case YAML_STREAM_END_EVENT:
      done = 1;
      break;
    case YAML_DOCUMENT_START_EVENT:
      if (++docs > 1) st = ic_fail(err, IC_EINPUT, "%s:%zu:%zu: only one YAML document allowed", path, line, col);
      break;
    case YAML_MAPPING_START_EVENT:
      if (depth > 0 && want_key[depth - 1]) {
        st = ic_fail(err, IC_EINPUT, "%s:%zu:%zu: a key must be a plain name", path, line, col);
      } else if (depth >= MAX_NEST) {
        st = ic_fail(err, IC_EINPUT, "%s:%zu:%zu: mappings nested too deeply", path, line, col);
      } else {
        if (depth == 0) prefix[0][0] = 0;
        else {
          snprintf(prefix[depth], sizeof prefix[depth], "%s", cur.key);
          want_key[depth - 1] = 1;
          /* "core:" twice would merge silently after flattening */
          for (size_t k = 0; k < nsections && st == IC_OK; k++)
            if (strcmp(sections[k].key, cur.key) == 0)
              st = ic_fail(err, IC_EINPUT, "%s:%zu:%zu: %s given twice (first at line %zu)", path,
                           cur.kline, cur.kcol, cur.key, sections[k].line);
          for (size_t k = 0; k < es->n && st == IC_OK; k++)
            if (strcmp(es->e[k].key, cur.key) == 0)
              st = ic_fail(err, IC_EINPUT, "%s:%zu:%zu: %s given twice (first at line %zu)", path,
                           cur.kline, cur.kcol, cur.key, es->e[k].kline);
          if (nsections < sizeof sections / sizeof sections[0]) {
            snprintf(sections[nsections].key, sizeof sections[nsections].key, "%s", cur.key);
            sections[nsections++].line = cur.kline;
          }
        }
        want_key[depth] = 1;
        depth++;
      }
      break;
    case YAML_MAPPING_END_EVENT:
      depth--;
      break;
    case YAML_SCALAR_EVENT: {
      const char *s = (const char *)ev.data.scalar.value;
      if (depth == 0) {
        if (s[0]) st = ic_fail(err, IC_EINPUT, "%s:%zu:%zu: expected a mapping of keys", path, line, col);
      } else if (want_key[depth - 1]) {
        const char *pre = prefix[depth - 1];
        if (depth == 1) snprintf(cur.key, sizeof cur.key, "%s", s);
        else if ((size_t)snprintf(cur.key, sizeof cur.key, "%s.%s", pre, s) >= sizeof cur.key)
          st = ic_fail(err, IC_EINPUT, "%s:%zu:%zu: key too long", path, line, col);
        cur.kline = line;
        cur.kcol = col;
        want_key[depth - 1] = 0;
      } else {
        if (strlen(s) >= sizeof cur.value)
          st = ic_fail(err, IC_EINPUT, "%s:%zu:%zu: value too long", path, line, col);
        snprintf(cur.value, sizeof cur.value, "%s", s);
        cur.vline = line;
        cur.vcol = col;
        want_key[depth - 1] = 1;
        if (st == IC_OK && entries_push(es, &cur) != 0)
          st = ic_fail(err, IC_ERUN, "%s: out of memory", path);
      }
      break;
    }
    case YAML_SEQUENCE_START_EVENT:
      st = ic_fail(err, IC_EINPUT, "%s:%zu:%zu: %s: lists are not allowed here", path, line, col,
                   depth > 0 ? cur.key : "top level");
      break;
    case YAML_ALIAS_EVENT:
      st = ic_fail(err, IC_EINPUT, "%s:%zu:%zu: aliases are not supported", path, line, col);
      break;
    default:
      break;
    }
    yaml_event_delete(&ev);
  }
  yaml_parser_delete(&parser);
  fclose(f);
  /* A key given twice is a mistake, never "the last one wins": a second
     base: line would silently replace everything the first one set. */
  for (size_t i = 1; i < es->n && st == IC_OK; i++)
    for (size_t j = 0; j < i; j++)
      if (strcmp(es->e[i].key, es->e[j].key) == 0) {
        st = ic_fail(err, IC_EINPUT, "%s:%zu:%zu: %s%s given twice (first at line %zu)", path,
                     es->e[i].kline, es->e[i].kcol, es->e[i].key,
                     strcmp(es->e[i].key, "base") == 0 ? ":" : "", es->e[j].kline);
        break;
      }
  return st;
}

/* Directory part of path joined with rel (rel absolute: itself). */
static void join_dir(char *out, size_t cap, const char *path, const char *rel) {
  const char *slash = strrchr(path, '/');
  if (rel[0] == '/' || !slash) snprintf(out, cap, "%s", rel);
  else snprintf(out, cap, "%.*s/%s", (int)(slash - path), path, rel);
}

/* The installed configs, relative to the directory of the running
 * executable (bin/): `cmake --install` puts them there (CMakeLists.txt). */
#ifndef ICOST_REL_CONFIGS
#define ICOST_REL_CONFIGS "../share/icost/configs"
#endif

/* Resolves `base: rel` of the config at path into base (the path found,
 * or the first one tried) and rbase (its real path); 0 when found. A relative
 * name is looked for in the including file's directory, then among the
 * installed configs, then in the source tree's configs/, so that a user's
 * file anywhere can say `base: baseline.yaml`. */
static int find_base(const char *path, const char *rel, char *base, char *rbase) {
  join_dir(base, PATH_MAX, path, rel);
  if (realpath(base, rbase)) return 0;
  const int err0 = errno;
  if (rel[0] != '/' && !strchr(rel, '/')) {
    char exe[PATH_MAX], cand[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    char *slash = n > 0 ? (exe[n] = 0, strrchr(exe, '/')) : NULL;
    if (slash) {
      *slash = 0;
      if ((size_t)snprintf(cand, sizeof cand, "%s/%s/%s", exe, ICOST_REL_CONFIGS, rel) < sizeof cand &&
          realpath(cand, rbase))
        return snprintf(base, PATH_MAX, "%s", rbase) < 0;
    }
#ifdef ICOST_SOURCE_DIR
    if ((size_t)snprintf(cand, sizeof cand, "%s/configs/%s", ICOST_SOURCE_DIR, rel) < sizeof cand &&
        realpath(cand, rbase))
      return snprintf(base, PATH_MAX, "%s", rbase) < 0;
#endif
  }
  errno = err0;
  return -1;
}

static ic_status load_file(ooo_config *c, const char *path, char chain[][PATH_MAX], int depth,
                           ic_err *err) {
  char real[PATH_MAX];
  if (!realpath(path, real)) snprintf(real, sizeof real, "%s", path);
  entries es = {0};
  ic_status st = read_entries(path, &es, err);
  if (st) goto out;
  for (size_t i = 0; i < es.n; i++) {
    if (strcmp(es.e[i].key, "base") != 0) continue;
    const entry *e = &es.e[i];
    char base[PATH_MAX], rbase[PATH_MAX];
    if (find_base(path, e->value, base, rbase) != 0) {
      st = ic_fail(err, IC_EINPUT,
                   "%s:%zu:%zu: base file '%s' not found: %s (nor among the installed or source configs)",
                   path, e->vline, e->vcol, base, strerror(errno));
      goto out;
    }
    snprintf(chain[depth], PATH_MAX, "%s", real);
    for (int k = 0; k <= depth; k++)
      if (strcmp(chain[k], rbase) == 0) {
        st = ic_fail(err, IC_EINPUT, "%s:%zu:%zu: base cycle: '%s' is already being loaded", path,
                     e->vline, e->vcol, e->value);
        goto out;
      }
    if (depth + 1 >= MAX_BASE_DEPTH) {
      st = ic_fail(err, IC_EINPUT, "%s:%zu:%zu: base chain deeper than %d files", path, e->vline,
                   e->vcol, MAX_BASE_DEPTH);
      goto out;
    }
    if ((st = load_file(c, base, chain, depth + 1, err))) goto out;
  }
  for (size_t i = 0; i < es.n; i++) {
    const entry *e = &es.e[i];
    if (strcmp(e->key, "base") == 0) continue;
    int id = find_param(e->key);
    char origin[ORIGIN_LEN];
    if (id < 0) {
      st = ic_fail(err, IC_EINPUT, "%s:%zu:%zu: unknown key '%s'", path, e->kline, e->kcol, e->key);
      goto out;
    }
    snprintf(origin, sizeof origin, "%s:%zu:%zu", path, e->vline, e->vcol);
    if ((st = set_param(c, id, e->value, origin, err))) goto out;
  }
out:
  free(es.e);
  return st;
}

/* ---- public API ---------------------------------------------------------- */

ic_status ooo_config_load(ooo_config **out, const char *path, ic_err *err) {
  *out = NULL;
  ooo_config *c = malloc(sizeof *c);
  if (!c) return ic_fail(err, IC_ERUN, "out of memory");
  set_defaults(c);
  if (path) {
    char(*chain)[PATH_MAX] = malloc(sizeof(char[MAX_BASE_DEPTH][PATH_MAX]));
    if (!chain) {
      free(c);
      return ic_fail(err, IC_ERUN, "out of memory");
    }
    ic_status st = load_file(c, path, chain, 0, err);
    free(chain);
    if (st == IC_OK) st = validate(c, err);
    if (st) {
      free(c);
      return st;
    }
    snprintf(c->name, sizeof c->name, "%s", path);
  }
  *out = c;
  return IC_OK;
}

ic_status ooo_config_set(ooo_config *c, const char *kv, ic_err *err) {
  const char *eq = strchr(kv, '=');
  if (!eq) return ic_fail(err, IC_EINPUT, "--set %s: expected KEY=VALUE", kv);
  char key[160];
  size_t kl = (size_t)(eq - kv);
  if (kl >= sizeof key) return ic_fail(err, IC_EINPUT, "--set %s: key too long", kv);
  memcpy(key, kv, kl);
  key[kl] = 0;
  int id = find_param(key);
  if (id < 0) return ic_fail(err, IC_EINPUT, "--set %s: unknown key '%s'", kv, key);
  char origin[ORIGIN_LEN];
  snprintf(origin, sizeof origin, "--set %.180s", kv);
  int64_t old = c->v[id];
  char old_origin[ORIGIN_LEN];
  memcpy(old_origin, c->origin[id], ORIGIN_LEN);
  ic_status st = set_param(c, id, eq + 1, origin, err);
  if (st == IC_OK && (st = validate(c, err)) != IC_OK) {
    c->v[id] = old;
    memcpy(c->origin[id], old_origin, ORIGIN_LEN);
  }
  return st;
}

ic_status ooo_config_write(const ooo_config *c, FILE *f) {
  fprintf(f, "# icost machine config (resolved from %s)\n", c->name);
  char section[64] = "";
  for (int i = 0; i < OOO_PARAM_COUNT; i++) {
    const char *dot = strchr(param_keys[i], '.');
    size_t sl = (size_t)(dot - param_keys[i]);
    if (strlen(section) != sl || strncmp(section, param_keys[i], sl) != 0) {
      snprintf(section, sizeof section, "%.*s", (int)sl, param_keys[i]);
      fprintf(f, "%s:\n", section);
    }
    fprintf(f, "  %s: %lld  # %s\n", dot + 1, (long long)c->v[i], param_help[i]);
  }
  return ferror(f) ? IC_ERUN : IC_OK;
}

ooo_config *ooo_config_clone(const ooo_config *c) {
  ooo_config *n = malloc(sizeof *n);
  if (n) memcpy(n, c, sizeof *n);
  return n;
}

void ooo_config_destroy(ooo_config *c) { free(c); }

ic_status ooo_config_get(const ooo_config *c, const char *key, int64_t *value, ic_err *err) {
  int id = find_param(key);
  if (id < 0) return ic_fail(err, IC_EINPUT, "unknown config key '%s'", key);
  *value = c->v[id];
  return IC_OK;
}

const char *ooo_config_name(const ooo_config *c) { return c->name; }

uint64_t ooo_config_hash(const ooo_config *c) {
  uint64_t h = 0xcbf29ce484222325ull;
  char line[128];
  for (int i = 0; i < OOO_PARAM_COUNT; i++) {
    int n = snprintf(line, sizeof line, "%s=%lld\n", param_keys[i], (long long)c->v[i]);
    for (int k = 0; k < n && k < (int)sizeof line; k++) h = (h ^ (unsigned char)line[k]) * 0x100000001b3ull;
  }
  return h;
}
const int64_t *ooo_config_values(const ooo_config *c) { return c->v; }
uint32_t ooo_config_rob(const ooo_config *c) { return (uint32_t)c->v[OOO_ROB]; }
uint32_t ooo_config_fetch_width(const ooo_config *c) { return (uint32_t)c->v[OOO_FETCH_WIDTH]; }
uint32_t ooo_config_issue_width(const ooo_config *c) { return (uint32_t)c->v[OOO_ISSUE_WIDTH]; }
uint32_t ooo_config_commit_width(const ooo_config *c) { return (uint32_t)c->v[OOO_COMMIT_WIDTH]; }
