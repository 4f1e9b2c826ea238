/* sweep_file.c: `icost sweep --file SWEEP.yaml`: a sweep described in a
 * file (sweep_cli.h). Every error names the file, line and column. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "run.h"
#include "sweep_cli.h"

static ic_status at(ic_err *err, const char *path, const yaml_node_t *n, const char *what) {
  return ic_fail(err, IC_EINPUT, "%s:%zu:%zu: %s", path, n->start_mark.line + 1,
                 n->start_mark.column + 1, what);
}

static const char *scalar(const yaml_node_t *n) {
  return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* a scalar, or a sequence of scalars joined by commas; NULL if neither */
static char *joined(yaml_document_t *d, yaml_node_t *n) {
  if (scalar(n)) return strdup(scalar(n));
  if (!n || n->type != YAML_SEQUENCE_NODE) return NULL;
  size_t len = 1;
  for (yaml_node_item_t *i = n->data.sequence.items.start; i < n->data.sequence.items.top; i++) {
    const char *s = scalar(yaml_document_get_node(d, *i));
    if (!s) return NULL;
    len += strlen(s) + 1;
  }
  char *out = calloc(len, 1);
  if (!out) return NULL;
  for (yaml_node_item_t *i = n->data.sequence.items.start; i < n->data.sequence.items.top; i++) {
    if (i != n->data.sequence.items.start) strcat(out, ",");
    strcat(out, scalar(yaml_document_get_node(d, *i)));
  }
  return out;
}

/* a list of scalars (or one scalar) into a new array */
static int scalars(yaml_document_t *d, yaml_node_t *n, char ***out, int *count) {
  if (scalar(n)) {
    *out = realloc(*out, (size_t)(*count + 1) * sizeof **out);
    (*out)[(*count)++] = strdup(scalar(n));
    return 0;
  }
  if (n->type != YAML_SEQUENCE_NODE) return -1;
  for (yaml_node_item_t *i = n->data.sequence.items.start; i < n->data.sequence.items.top; i++) {
    const char *s = scalar(yaml_document_get_node(d, *i));
    if (!s) return -1;
    *out = realloc(*out, (size_t)(*count + 1) * sizeof **out);
    (*out)[(*count)++] = strdup(s);
  }
  return 0;
}

/* A key given twice in any mapping of the document is refused, naming it
 * (libyaml's loader keeps both, and the later would silently win). */
static ic_status duplicate_keys(yaml_document_t *d, const char *path, ic_err *err) {
  for (yaml_node_t *n = d->nodes.start; n < d->nodes.top; n++) {
    if (n->type != YAML_MAPPING_NODE) continue;
    for (yaml_node_pair_t *a = n->data.mapping.pairs.start; a < n->data.mapping.pairs.top; a++) {
      yaml_node_t *ka = yaml_document_get_node(d, a->key);
      const char *sa = scalar(ka);
      if (!sa) continue;
      for (yaml_node_pair_t *b = n->data.mapping.pairs.start; b < a; b++) {
        const char *sb = scalar(yaml_document_get_node(d, b->key));
        if (sb && strcmp(sa, sb) == 0)
          return ic_fail(err, IC_EINPUT, "%s:%zu:%zu: %s given twice (first at line %zu)", path,
                         ka->start_mark.line + 1, ka->start_mark.column + 1, sa,
                         yaml_document_get_node(d, b->key)->start_mark.line + 1);
      }
    }
  }
  return IC_OK;
}

ic_status sweep_file_load(const char *path, sweep_file *f, ic_err *err) {
  memset(f, 0, sizeof *f);
  FILE *fp = fopen(path, "rb");
  if (!fp) return ic_fail(err, IC_EINPUT, "%s: %s", path, strerror(errno));
  yaml_parser_t p;
  yaml_document_t d;
  yaml_parser_initialize(&p);
  yaml_parser_set_input_file(&p, fp);
  if (!yaml_parser_load(&p, &d)) {
    ic_status st = ic_fail(err, IC_EINPUT, "%s:%zu:%zu: %s", path, p.problem_mark.line + 1,
                           p.problem_mark.column + 1, p.problem ? p.problem : "does not parse");
    yaml_parser_delete(&p);
    fclose(fp);
    return st;
  }
  yaml_parser_delete(&p);
  fclose(fp);
  ic_status st = duplicate_keys(&d, path, err);
  if (st != IC_OK) goto out;
  yaml_node_t *root = yaml_document_get_root_node(&d);
  if (!root || root->type != YAML_MAPPING_NODE) {
    st = root ? at(err, path, root, "a sweep file is a mapping (axes:, workloads:, ...)")
              : ic_fail(err, IC_EINPUT, "%s: empty sweep file", path);
    goto out;
  }
  for (yaml_node_pair_t *pr = root->data.mapping.pairs.start;
       pr < root->data.mapping.pairs.top && st == IC_OK; pr++) {
    yaml_node_t *k = yaml_document_get_node(&d, pr->key), *v = yaml_document_get_node(&d, pr->value);
    const char *key = scalar(k);
    char msg[256];
    if (!key) {
      st = at(err, path, k, "keys are names");
    } else if (!strcmp(key, "axes")) {
      if (v->type != YAML_MAPPING_NODE) {
        st = at(err, path, v, "axes: a mapping of KEY: [values] or KEY: \"LO..HI\"");
        break;
      }
      for (yaml_node_pair_t *a = v->data.mapping.pairs.start; a < v->data.mapping.pairs.top; a++) {
        yaml_node_t *ak = yaml_document_get_node(&d, a->key), *av = yaml_document_get_node(&d, a->value);
        char *vals = joined(&d, av);
        if (!scalar(ak) || !vals) {
          free(vals);
          st = at(err, path, av, "an axis is KEY: [values] or KEY: \"LO..HI\"");
          break;
        }
        char *ax = NULL;
        if (asprintf(&ax, "%s=%s", scalar(ak), vals) < 0) ax = NULL;
        free(vals);
        f->axes = realloc(f->axes, (size_t)(f->naxes + 1) * sizeof *f->axes);
        f->axes[f->naxes++] = ax;
      }
    } else if (!strcmp(key, "workloads")) {
      if (scalars(&d, v, &f->workloads, &f->nworkloads) != 0)
        st = at(err, path, v, "workloads: a list of manifest names");
    } else if (!strcmp(key, "programs")) {
      if (v->type != YAML_SEQUENCE_NODE) {
        st = at(err, path, v, "programs: a list of [PROGRAM, ARGS...]");
        break;
      }
      for (yaml_node_item_t *i = v->data.sequence.items.start; i < v->data.sequence.items.top; i++) {
        yaml_node_t *pn = yaml_document_get_node(&d, *i);
        char **argv = NULL;
        int argc = 0;
        if (scalars(&d, pn, &argv, &argc) != 0 || argc == 0) {
          for (int j = 0; j < argc; j++) free(argv[j]);
          free(argv);
          st = at(err, path, pn, "a program is [PROGRAM, ARGS...]");
          break;
        }
        argv = realloc(argv, (size_t)(argc + 1) * sizeof *argv);
        argv[argc] = NULL;
        f->programs = realloc(f->programs, (size_t)(f->nprograms + 1) * sizeof *f->programs);
        f->prog_argc = realloc(f->prog_argc, (size_t)(f->nprograms + 1) * sizeof *f->prog_argc);
        f->programs[f->nprograms] = argv;
        f->prog_argc[f->nprograms++] = argc;
      }
    } else if (!strcmp(key, "set")) {
      if (scalars(&d, v, &f->sets, &f->nsets) != 0) st = at(err, path, v, "set: a list of KEY=VALUE");
    } else if (!strcmp(key, "categories") || !strcmp(key, "method") || !strcmp(key, "config") ||
               !strcmp(key, "suite")) {
      char **dst = !strcmp(key, "categories") ? &f->categories
                   : !strcmp(key, "method")   ? &f->method
                   : !strcmp(key, "config")   ? &f->config
                                              : &f->suite;
      if (!(*dst = joined(&d, v))) {
        snprintf(msg, sizeof msg, "%s: a name (or a list, for categories)", key);
        st = at(err, path, v, msg);
      }
    } else if (!strcmp(key, "skip") || !strcmp(key, "max") || !strcmp(key, "warm") ||
               !strcmp(key, "seed")) {
      int idx = !strcmp(key, "skip") ? 0 : !strcmp(key, "max") ? 1 : !strcmp(key, "warm") ? 2 : 3;
      uint64_t n;
      if (!scalar(v) || cli_parse_count(scalar(v), &n) != 0) {
        snprintf(msg, sizeof msg, "%s: a count (digits, optional k/M/G)", key);
        st = at(err, path, v, msg);
      } else {
        f->count[idx] = n;
        f->have[idx] = 1;
      }
    } else {
      snprintf(msg, sizeof msg,
               "unknown key '%.64s' (axes, workloads, programs, suite, categories, method, "
               "config, set, skip, max, warm, seed)",
               key);
      st = at(err, path, k, msg);
    }
  }
  if (st == IC_OK && f->naxes == 0)
    st = ic_fail(err, IC_EINPUT, "%s: no axes (axes: {KEY: [values], ...})", path);
out:
  yaml_document_delete(&d);
  if (st != IC_OK) sweep_file_free(f);
  return st;
}

void sweep_file_free(sweep_file *f) {
  for (int k = 0; k < f->naxes; k++) free(f->axes[k]);
  for (int k = 0; k < f->nworkloads; k++) free(f->workloads[k]);
  for (int k = 0; k < f->nsets; k++) free(f->sets[k]);
  for (int k = 0; k < f->nprograms; k++) {
    for (int j = 0; j < f->prog_argc[k]; j++) free(f->programs[k][j]);
    free(f->programs[k]);
  }
  free(f->axes);
  free(f->workloads);
  free(f->sets);
  free(f->programs);
  free(f->prog_argc);
  free(f->categories);
  free(f->method);
  free(f->config);
  free(f->suite);
  memset(f, 0, sizeof *f);
}
