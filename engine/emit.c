/* emit.c: one report writer for text, CSV, YAML (libyaml's emitter) and
 * JSON (json-c); see emit.h for how each format renders the tree. */
#include "emit.h"

#include <ctype.h>
#include <json-c/json.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

#define EMIT_MAX_DEPTH 32
#define EMIT_PATH 256

typedef enum frame_kind { F_ROOT, F_MAP, F_LIST, F_TABLE, F_ROW } frame_kind;

typedef struct frame {
  frame_kind kind;
  int hidden;           /* csv and text: inside a nested column or the text provenance */
  char path[EMIT_PATH]; /* csv and text: the keys leading here */
  json_object *json;    /* json: this container */
  const char *map_key;  /* json, TABLE_MAP row: the row's first cell */
  char *map_key_buf;
} frame;

typedef enum scalar_kind { S_STR, S_U64, S_I64, S_DBL, S_BOOL, S_NULL, S_SKIP } scalar_kind;

/* A scalar as each format needs it: `machine` for csv, yaml and json,
   `text` for text. */
typedef struct scalar {
  scalar_kind kind;
  uint64_t u;
  int64_t i;
  double d;
  const char *machine;
  const char *text;
} scalar;

typedef struct strbuf {
  char *s;
  size_t len, cap;
} strbuf;

struct ic_emit {
  FILE *f;
  ic_emit_format fmt;
  ic_status status;
  char msg[256];
  frame stack[EMIT_MAX_DEPTH];
  int depth;                 /* stack[depth - 1] is the open container */
  int started;         /* an event was given (the provenance must be first) */
  unsigned only;       /* ic_emit_only's mask */
  int any_value;       /* text: something was printed (a table then starts with a blank line) */
  yaml_emitter_t yaml;
  int yaml_ready;
  /* the open table */
  ic_emit_col *cols;
  int ncols, table_flags, cell, tables;
  char **cells;      /* text: rows of ncols cells (header first), NULL for absent */
  size_t ncells, cells_cap;
  unsigned char *numeric; /* text: column holds numbers only */
  strbuf record;     /* csv: the record being built; text: a list's line */
  int record_fields;
};

/* ---- errors ------------------------------------------------------------ */

/* A call does nothing after an error, or where ic_emit_only leaves this
   format out. */
static int failed(const ic_emit *e) {
  return e->status != IC_OK || !(e->only & IC_EMIT_ONLY(e->fmt));
}

__attribute__((format(printf, 3, 4))) static void fail(ic_emit *e, ic_status st, const char *fmt,
                                                        ...) {
  if (e->status != IC_OK) return;
  e->status = st;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(e->msg, sizeof e->msg, fmt, ap);
  va_end(ap);
}

static void out(ic_emit *e, const char *s, size_t n) {
  if (n && fwrite(s, 1, n, e->f) != n) fail(e, IC_ERUN, "report: write error");
}

static void outs(ic_emit *e, const char *s) { out(e, s, strlen(s)); }

/* ---- strings and numbers ----------------------------------------------- */

static void sb_add(ic_emit *e, strbuf *b, const char *s, size_t n) {
  if (b->len + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 128;
    while (cap < b->len + n + 1) cap *= 2;
    char *p = realloc(b->s, cap);
    if (!p) {
      fail(e, IC_ERUN, "report: out of memory");
      return;
    }
    b->s = p;
    b->cap = cap;
  }
  memcpy(b->s + b->len, s, n);
  b->len += n;
  b->s[b->len] = 0;
}

char *ic_emit_fmt_fixed(char *buf, size_t cap, double v, int decimals) {
  if (!isfinite(v)) {
    snprintf(buf, cap, "-");
    return buf;
  }
  snprintf(buf, cap, "%.*f", decimals < 0 ? 0 : decimals, v);
  if (buf[0] == '-' && strspn(buf + 1, "0.") == strlen(buf + 1)) memmove(buf, buf + 1, strlen(buf));
  return buf;
}

char *ic_emit_fmt_double(char *buf, size_t cap, double v) {
  if (!isfinite(v)) {
    snprintf(buf, cap, "null");
    return buf;
  }
  if (v == 0) v = 0; /* -0.0 */
  for (int digits = 15; digits <= 17; digits++) {
    snprintf(buf, cap, "%.*g", digits, v);
    if (strtod(buf, NULL) == v) break;
  }
  return buf;
}

ic_status ic_emit_format_parse(const char *name, ic_emit_format *out, ic_err *err) {
  static const char *const names[] = {"text", "csv", "yaml", "json"};
  for (int k = 0; k < 4; k++)
    if (name && strcmp(name, names[k]) == 0) {
      *out = (ic_emit_format)k;
      return IC_OK;
    }
  return ic_fail(err, IC_EINPUT, "format '%s': expected text, csv, yaml or json", name ? name : "");
}

const char *ic_emit_format_name(ic_emit_format f) {
  static const char *const names[] = {"text", "csv", "yaml", "json"};
  return (unsigned)f < 4 ? names[f] : "?";
}

/* ---- CSV ---------------------------------------------------------------- */

static int csv_needs_quotes(const char *s) {
  return s[0] == '#' || strpbrk(s, ",\"\r\n") != NULL;
}

static void csv_field_to(ic_emit *e, strbuf *b, const char *s) {
  if (!csv_needs_quotes(s)) {
    sb_add(e, b, s, strlen(s));
    return;
  }
  sb_add(e, b, "\"", 1);
  for (const char *p = s; *p; p++) sb_add(e, b, *p == '"' ? "\"\"" : p, *p == '"' ? 2 : 1);
  sb_add(e, b, "\"", 1);
}

void ic_emit_csv_field(FILE *f, const char *s) {
  if (!csv_needs_quotes(s)) {
    fputs(s, f);
    return;
  }
  fputc('"', f);
  for (const char *p = s; *p; p++) {
    if (*p == '"') fputc('"', f);
    fputc(*p, f);
  }
  fputc('"', f);
}

static void csv_record_field(ic_emit *e, const char *s) {
  if (e->record_fields++) sb_add(e, &e->record, ",", 1);
  csv_field_to(e, &e->record, s);
}

/* The "#" that starts a record of the provenance or of a single value. */
static void csv_record_mark(ic_emit *e) {
  e->record.len = 0;
  e->record_fields = 1;
  sb_add(e, &e->record, "#", 1);
}

static void csv_record_end(ic_emit *e) {
  sb_add(e, &e->record, "\n", 1);
  if (!failed(e)) out(e, e->record.s, e->record.len);
  e->record.len = 0;
  e->record_fields = 0;
}

/* ---- YAML --------------------------------------------------------------- */

static int yaml_write(void *ctx, unsigned char *buf, size_t size) {
  ic_emit *e = ctx;
  return fwrite(buf, 1, size, e->f) == size;
}

static void yaml_check(ic_emit *e, int ok) {
  if (!ok && !failed(e))
    fail(e, IC_ERUN, "report: yaml: %s", e->yaml.problem ? e->yaml.problem : "write error");
}

/* Would a plain scalar s read back (YAML 1.1, as PyYAML and libyaml users
   resolve it) as something other than this string? */
static int yaml_needs_quotes(const char *s) {
  static const char *const words[] = {"null", "true", "false", "yes", "no", "on", "off", "y", "n"};
  if (!s[0] || strchr("0123456789+-.~=<", s[0])) return 1;
  for (size_t k = 0; k < sizeof words / sizeof words[0]; k++)
    if (strcasecmp(s, words[k]) == 0) return 1;
  return 0;
}

static void yaml_scalar(ic_emit *e, const char *s, int is_string) {
  if (failed(e)) return;
  yaml_event_t ev;
  yaml_scalar_style_t style = YAML_ANY_SCALAR_STYLE;
  if (is_string && yaml_needs_quotes(s)) style = YAML_DOUBLE_QUOTED_SCALAR_STYLE;
  yaml_check(e, yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)s, (int)strlen(s), 1,
                                             1, style));
  if (!failed(e)) yaml_check(e, yaml_emitter_emit(&e->yaml, &ev));
}

static void yaml_start(ic_emit *e, int mapping) {
  if (failed(e)) return;
  yaml_event_t ev;
  if (mapping)
    yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_MAPPING_STYLE);
  else
    yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1, YAML_BLOCK_SEQUENCE_STYLE);
  yaml_check(e, yaml_emitter_emit(&e->yaml, &ev));
}

static void yaml_end(ic_emit *e, int mapping) {
  if (failed(e)) return;
  yaml_event_t ev;
  if (mapping)
    yaml_mapping_end_event_initialize(&ev);
  else
    yaml_sequence_end_event_initialize(&ev);
  yaml_check(e, yaml_emitter_emit(&e->yaml, &ev));
}

/* ---- the tree ----------------------------------------------------------- */

static frame *top(ic_emit *e) { return &e->stack[e->depth - 1]; }

static int visible_col(const ic_emit *e, int c) {
  int f = e->cols[c].flags;
  if (f & IC_EMIT_COL_NESTED) return 0;
  return !(e->fmt == IC_EMIT_TEXT && (f & IC_EMIT_COL_TEXT_HIDE));
}

/* Where the next value goes: its key (the column's in a row) into *key;
   0 after a usage error. */
static int place(ic_emit *e, const char **key, int *col) {
  *col = -1;
  if (failed(e)) return 0;
  e->started = 1;
  frame *t = top(e);
  switch (t->kind) {
  case F_ROOT:
  case F_MAP:
    if (!*key) {
      fail(e, IC_ERUN, "report: a value without a key in a mapping");
      return 0;
    }
    return 1;
  case F_LIST:
    if (*key) {
      fail(e, IC_ERUN, "report: a keyed value ('%s') in a list", *key);
      return 0;
    }
    return 1;
  case F_ROW:
    if (e->cell >= e->ncols) {
      fail(e, IC_ERUN, "report: more cells than the table's %d columns", e->ncols);
      return 0;
    }
    if (*key && strcmp(*key, e->cols[e->cell].name) != 0) {
      fail(e, IC_ERUN, "report: cell '%s' where column '%s' is", *key, e->cols[e->cell].name);
      return 0;
    }
    *col = e->cell++;
    *key = e->cols[*col].name;
    return 1;
  case F_TABLE:
    fail(e, IC_ERUN, "report: a value in a table outside a row");
    return 0;
  }
  return 0;
}

static void child_path(const frame *parent, const char *key, char *out, const char *sep) {
  if (!key) key = "";
  if (parent->path[0] && key[0])
    snprintf(out, EMIT_PATH, "%s%s%s", parent->path, sep, key);
  else
    snprintf(out, EMIT_PATH, "%s", parent->path[0] ? parent->path : key);
}

static json_object *json_of(const scalar *s) {
  switch (s->kind) {
  case S_STR: return json_object_new_string(s->machine);
  case S_U64: return json_object_new_uint64(s->u);
  case S_I64: return json_object_new_int64(s->i);
  case S_DBL: return isfinite(s->d) ? json_object_new_double_s(s->d == 0 ? 0.0 : s->d, s->machine) : NULL;
  case S_BOOL: return json_object_new_boolean(s->u != 0);
  default: return NULL;
  }
}

/* Attaches json value v (a new reference) under key in the open container. */
static void json_attach(ic_emit *e, const char *key, json_object *v) {
  frame *t = top(e);
  if (t->kind == F_LIST)
    json_object_array_add(t->json, v);
  else if (t->kind == F_ROW && (e->table_flags & IC_EMIT_TABLE_MAP)) {
    frame *table = &e->stack[e->depth - 2];
    json_object_object_add(table->json, t->map_key ? t->map_key : "", v);
  } else
    json_object_object_add(t->json, key, v);
}

static void text_cell(ic_emit *e, int col, const char *s);

static void text_key_line(ic_emit *e, const char *path, const char *value) {
  char key[EMIT_PATH];
  snprintf(key, sizeof key, "%s", path);
  for (char *p = key; *p; p++)
    if (*p == '_' || *p == '.') *p = ' ';
  char line[EMIT_PATH + 8];
  int n = snprintf(line, sizeof line, "%-15s ", key);
  out(e, line, (size_t)n);
  outs(e, value);
  outs(e, "\n");
  e->any_value = 1;
}

static void emit_scalar(ic_emit *e, const char *key, const scalar *s) {
  int col;
  if (!place(e, &key, &col)) return;
  frame *t = top(e);
  const int string = s->kind == S_STR;
  switch (e->fmt) {
  case IC_EMIT_YAML:
    if (s->kind == S_SKIP) return;
    if (t->kind == F_ROW && (e->table_flags & IC_EMIT_TABLE_MAP)) {
      yaml_scalar(e, s->machine, string); /* the key (first cell) or the value */
      return;
    }
    if (t->kind != F_LIST) yaml_scalar(e, key, 1);
    yaml_scalar(e, s->machine, string);
    return;
  case IC_EMIT_JSON:
    if (s->kind == S_SKIP) return;
    if (t->kind == F_ROW && (e->table_flags & IC_EMIT_TABLE_MAP) && col == 0) {
      free(t->map_key_buf);
      t->map_key = t->map_key_buf = strdup(s->machine);
      if (!t->map_key_buf) fail(e, IC_ERUN, "report: out of memory");
      return;
    }
    json_attach(e, key, json_of(s));
    return;
  case IC_EMIT_CSV:
    if (t->hidden) return;
    if (t->kind == F_ROW) {
      if (visible_col(e, col)) csv_record_field(e, s->kind == S_SKIP ? "" : s->machine);
    } else if (t->kind == F_LIST) {
      if (s->kind != S_SKIP) csv_record_field(e, s->machine);
    } else if (s->kind != S_SKIP) {
      char path[EMIT_PATH];
      child_path(t, key, path, ".");
      csv_record_mark(e);
      csv_record_field(e, path);
      csv_record_field(e, s->machine);
      csv_record_end(e);
    }
    return;
  case IC_EMIT_TEXT:
    if (t->hidden) return;
    if (t->kind == F_ROW) {
      if (visible_col(e, col)) {
        text_cell(e, col, s->kind == S_SKIP ? NULL : s->text);
        if (s->kind == S_STR) e->numeric[col] = 0;
      }
    } else if (t->kind == F_LIST) {
      if (s->kind == S_SKIP) return;
      if (e->record_fields++) sb_add(e, &e->record, ", ", 2);
      sb_add(e, &e->record, s->text, strlen(s->text));
    } else if (s->kind != S_SKIP) {
      char path[EMIT_PATH];
      child_path(t, key, path, " ");
      text_key_line(e, path, s->text);
    }
    return;
  }
}

static void push(ic_emit *e, frame_kind kind, const char *key, int hidden) {
  if (e->depth == EMIT_MAX_DEPTH) {
    fail(e, IC_ERUN, "report: nested too deeply");
    return;
  }
  frame *parent = top(e), *f = &e->stack[e->depth++];
  /* built aside: gcc's -Wrestrict cannot tell parent and f apart */
  char path[EMIT_PATH];
  child_path(parent, key, path, e->fmt == IC_EMIT_CSV ? "." : " ");
  const int parent_hidden = parent->hidden;
  memset(f, 0, sizeof *f);
  f->kind = kind;
  f->hidden = hidden || parent_hidden;
  memcpy(f->path, path, sizeof path);
}

static void container_begin(ic_emit *e, const char *key, int mapping) {
  int col;
  if (!place(e, &key, &col)) return;
  frame *t = top(e);
  const int in_row = t->kind == F_ROW;
  const int text_like = e->fmt == IC_EMIT_TEXT || e->fmt == IC_EMIT_CSV;
  if (in_row && !(e->cols[col].flags & IC_EMIT_COL_NESTED)) {
    fail(e, IC_ERUN, "report: a list or mapping in column '%s', not marked nested", key);
    return;
  }
  if (text_like && !in_row && !t->hidden && !mapping && t->kind == F_LIST) {
    fail(e, IC_ERUN, "report: a list in a list outside a table");
    return;
  }
  json_object *j = NULL;
  if (e->fmt == IC_EMIT_YAML) {
    if (t->kind != F_LIST && !(in_row && (e->table_flags & IC_EMIT_TABLE_MAP))) yaml_scalar(e, key, 1);
    yaml_start(e, mapping);
  } else if (e->fmt == IC_EMIT_JSON) {
    j = mapping ? json_object_new_object() : json_object_new_array();
    if (!j) {
      fail(e, IC_ERUN, "report: out of memory");
      return;
    }
    json_attach(e, key, j);
  }
  push(e, mapping ? F_MAP : F_LIST, key, text_like && in_row);
  if (failed(e)) return;
  top(e)->json = j;
  if (!mapping && text_like && !top(e)->hidden) {
    e->record.len = 0;
    e->record_fields = 0;
    if (e->fmt == IC_EMIT_CSV) {
      csv_record_mark(e);
      csv_record_field(e, top(e)->path);
    }
  }
}

static void container_end(ic_emit *e, frame_kind kind) {
  if (failed(e)) return;
  frame *t = top(e);
  if (t->kind != kind) {
    fail(e, IC_ERUN, "report: end of a %s where a %s is open", kind == F_MAP ? "mapping" : "list",
         t->kind == F_LIST ? "list" : t->kind == F_MAP ? "mapping" : "table");
    return;
  }
  if (e->fmt == IC_EMIT_YAML) yaml_end(e, kind == F_MAP);
  if (kind == F_LIST && !t->hidden) {
    if (e->fmt == IC_EMIT_CSV) csv_record_end(e);
    if (e->fmt == IC_EMIT_TEXT) {
      char path[EMIT_PATH];
      snprintf(path, sizeof path, "%s", t->path);
      text_key_line(e, path, e->record_fields ? e->record.s : "none");
      e->record.len = 0;
      e->record_fields = 0;
    }
  }
  e->depth--;
}

void ic_emit_map_begin(ic_emit *e, const char *key) { container_begin(e, key, 1); }
void ic_emit_map_end(ic_emit *e) { container_end(e, F_MAP); }
void ic_emit_list_begin(ic_emit *e, const char *key) { container_begin(e, key, 0); }
void ic_emit_list_end(ic_emit *e) { container_end(e, F_LIST); }

void ic_emit_str(ic_emit *e, const char *key, const char *value) {
  if (!value) {
    ic_emit_null(e, key);
    return;
  }
  scalar s = {.kind = S_STR, .machine = value, .text = value};
  emit_scalar(e, key, &s);
}

void ic_emit_str_shown(ic_emit *e, const char *key, const char *value, const char *shown) {
  scalar s = {.kind = value ? S_STR : S_NULL, .machine = value ? value : "null", .text = shown};
  emit_scalar(e, key, &s);
}

void ic_emit_u64(ic_emit *e, const char *key, uint64_t value) {
  char buf[32];
  snprintf(buf, sizeof buf, "%llu", (unsigned long long)value);
  scalar s = {.kind = S_U64, .u = value, .machine = buf, .text = buf};
  emit_scalar(e, key, &s);
}

void ic_emit_i64(ic_emit *e, const char *key, int64_t value) {
  char buf[32];
  snprintf(buf, sizeof buf, "%lld", (long long)value);
  scalar s = {.kind = S_I64, .i = value, .machine = buf, .text = buf};
  emit_scalar(e, key, &s);
}

void ic_emit_bool(ic_emit *e, const char *key, int value) {
  scalar s = {.kind = S_BOOL, .u = value != 0, .machine = value ? "true" : "false",
              .text = value ? "yes" : "no"};
  emit_scalar(e, key, &s);
}

void ic_emit_null(ic_emit *e, const char *key) {
  scalar s = {.kind = S_NULL, .machine = e->fmt == IC_EMIT_CSV ? "" : "null", .text = "-"};
  emit_scalar(e, key, &s);
}

void ic_emit_skip(ic_emit *e, const char *key) {
  if (failed(e) || top(e)->kind != F_ROW) return;
  scalar s = {.kind = S_SKIP, .machine = "", .text = ""};
  emit_scalar(e, key, &s);
}

static void emit_double(ic_emit *e, const char *key, double v, const char *shown, int decimals) {
  char machine[40], text[64];
  ic_emit_fmt_double(machine, sizeof machine, v);
  if (!shown) {
    if (decimals < 0 && !failed(e) && top(e)->kind == F_ROW && e->cell < e->ncols)
      decimals = e->cols[e->cell].decimals;
    shown = decimals >= 0 ? ic_emit_fmt_fixed(text, sizeof text, v, decimals)
            : isfinite(v) ? machine : "-";
  }
  scalar s = {.kind = isfinite(v) ? S_DBL : S_NULL, .d = v, .text = shown,
              .machine = isfinite(v) ? machine : e->fmt == IC_EMIT_CSV ? "" : "null"};
  emit_scalar(e, key, &s);
}

void ic_emit_double(ic_emit *e, const char *key, double v) { emit_double(e, key, v, NULL, -1); }
void ic_emit_fixed(ic_emit *e, const char *key, double v, int decimals) {
  emit_double(e, key, v, NULL, decimals < 0 ? 0 : decimals);
}
void ic_emit_shown(ic_emit *e, const char *key, double v, const char *shown) {
  emit_double(e, key, v, shown ? shown : "", -1);
}

/* ---- tables ------------------------------------------------------------- */

static void text_cell(ic_emit *e, int col, const char *s) {
  char **slot = &e->cells[e->ncells - (size_t)e->ncols + (size_t)col];
  free(*slot);
  *slot = s ? strdup(s) : NULL;
  if (s && !*slot) fail(e, IC_ERUN, "report: out of memory");
}

/* Text: room for one more row of cells, all absent. */
static void text_new_row(ic_emit *e) {
  size_t need = e->ncells + (size_t)e->ncols;
  if (need > e->cells_cap) {
    size_t cap = e->cells_cap ? e->cells_cap * 2 : 64;
    while (cap < need) cap *= 2;
    char **p = realloc(e->cells, cap * sizeof *p);
    if (!p) {
      fail(e, IC_ERUN, "report: out of memory");
      return;
    }
    e->cells = p;
    e->cells_cap = cap;
  }
  for (size_t k = e->ncells; k < need; k++) e->cells[k] = NULL;
  e->ncells = need;
}

void ic_emit_table_begin(ic_emit *e, const char *key, const ic_emit_col *cols, int ncols, int flags) {
  int col;
  if (failed(e)) return;
  if (top(e)->kind == F_ROW || top(e)->kind == F_TABLE || e->cols) {
    fail(e, IC_ERUN, "report: a table inside a table");
    return;
  }
  if (ncols < 1 || ((flags & IC_EMIT_TABLE_MAP) && ncols != 2)) {
    fail(e, IC_ERUN, "report: table '%s' with %d columns", key ? key : "", ncols);
    return;
  }
  if (!place(e, &key, &col)) return;
  e->cols = malloc((size_t)ncols * sizeof *e->cols);
  e->numeric = malloc((size_t)ncols);
  if (!e->cols || !e->numeric) {
    fail(e, IC_ERUN, "report: out of memory");
    return;
  }
  memcpy(e->cols, cols, (size_t)ncols * sizeof *cols);
  memset(e->numeric, 1, (size_t)ncols);
  e->ncols = ncols;
  e->table_flags = flags;
  const int mapping = (flags & IC_EMIT_TABLE_MAP) != 0;
  json_object *j = NULL;
  switch (e->fmt) {
  case IC_EMIT_YAML:
    if (top(e)->kind != F_LIST) yaml_scalar(e, key, 1);
    yaml_start(e, mapping);
    break;
  case IC_EMIT_JSON:
    j = mapping ? json_object_new_object() : json_object_new_array();
    if (!j) {
      fail(e, IC_ERUN, "report: out of memory");
      return;
    }
    json_attach(e, key, j);
    break;
  case IC_EMIT_CSV:
    if (e->tables++) outs(e, "\n");
    for (int c = 0; c < ncols; c++)
      if (visible_col(e, c)) csv_record_field(e, cols[c].name);
    csv_record_end(e);
    break;
  case IC_EMIT_TEXT:
    text_new_row(e);
    for (int c = 0; c < ncols; c++)
      if (visible_col(e, c)) text_cell(e, c, cols[c].name);
    break;
  }
  push(e, F_TABLE, key, 0);
  if (!failed(e)) top(e)->json = j;
}

void ic_emit_row_begin(ic_emit *e) {
  if (failed(e)) return;
  if (top(e)->kind != F_TABLE) {
    fail(e, IC_ERUN, "report: a row outside a table");
    return;
  }
  json_object *j = NULL;
  const int mapping = (e->table_flags & IC_EMIT_TABLE_MAP) != 0;
  if (e->fmt == IC_EMIT_YAML && !mapping) yaml_start(e, 1);
  if (e->fmt == IC_EMIT_JSON && !mapping) {
    if (!(j = json_object_new_object())) {
      fail(e, IC_ERUN, "report: out of memory");
      return;
    }
    json_object_array_add(top(e)->json, j);
  }
  if (e->fmt == IC_EMIT_TEXT) text_new_row(e);
  e->record.len = 0;
  e->record_fields = 0;
  e->cell = 0;
  push(e, F_ROW, NULL, 0);
  if (!failed(e)) top(e)->json = j;
}

void ic_emit_row_end(ic_emit *e) {
  if (failed(e)) return;
  if (top(e)->kind != F_ROW) {
    fail(e, IC_ERUN, "report: the end of a row outside a row");
    return;
  }
  while (e->cell < e->ncols && !failed(e)) ic_emit_skip(e, NULL);
  const int mapping = (e->table_flags & IC_EMIT_TABLE_MAP) != 0;
  if (e->fmt == IC_EMIT_YAML && !mapping) yaml_end(e, 1);
  if (e->fmt == IC_EMIT_CSV) csv_record_end(e);
  free(top(e)->map_key_buf);
  e->depth--;
}

static void text_table_flush(ic_emit *e) {
  const size_t nrows = e->ncells / (size_t)e->ncols;
  size_t *width = calloc((size_t)e->ncols, sizeof *width);
  if (!width) {
    fail(e, IC_ERUN, "report: out of memory");
    return;
  }
  for (size_t r = 0; r < nrows; r++)
    for (int c = 0; c < e->ncols; c++) {
      const char *s = e->cells[r * (size_t)e->ncols + (size_t)c];
      if (s && strlen(s) > width[c]) width[c] = strlen(s);
    }
  if (e->any_value) outs(e, "\n");
  strbuf line = {0};
  for (size_t r = 0; r < nrows && !failed(e); r++) {
    line.len = 0;
    int first = 1;
    for (int c = 0; c < e->ncols; c++) {
      if (!visible_col(e, c)) continue;
      const char *s = e->cells[r * (size_t)e->ncols + (size_t)c];
      if (!s) s = "";
      size_t pad = width[c] - strlen(s);
      if (!first) sb_add(e, &line, "  ", 2);
      const int right = e->numeric[c] && !first;
      for (size_t k = 0; right && k < pad; k++) sb_add(e, &line, " ", 1);
      sb_add(e, &line, s, strlen(s));
      for (size_t k = 0; !right && k < pad; k++) sb_add(e, &line, " ", 1);
      first = 0;
    }
    while (line.len && line.s[line.len - 1] == ' ') line.s[--line.len] = 0;
    sb_add(e, &line, "\n", 1);
    if (!failed(e)) out(e, line.s, line.len);
  }
  free(line.s);
  free(width);
}

static void table_free(ic_emit *e) {
  for (size_t k = 0; k < e->ncells; k++) free(e->cells[k]);
  e->ncells = 0;
  free(e->cols);
  free(e->numeric);
  e->cols = NULL;
  e->numeric = NULL;
  e->ncols = 0;
}

void ic_emit_table_end(ic_emit *e) {
  if (failed(e)) return;
  if (top(e)->kind != F_TABLE) {
    fail(e, IC_ERUN, "report: the end of a table outside a table");
    return;
  }
  const int mapping = (e->table_flags & IC_EMIT_TABLE_MAP) != 0;
  if (e->fmt == IC_EMIT_YAML) yaml_end(e, mapping);
  if (e->fmt == IC_EMIT_TEXT) text_table_flush(e);
  table_free(e);
  e->depth--;
  e->any_value = 1;
}

void ic_emit_text_line(ic_emit *e, const char *line) {
  if (failed(e) || e->fmt != IC_EMIT_TEXT) return;
  if (e->cols) {
    fail(e, IC_ERUN, "report: a text line inside a table");
    return;
  }
  outs(e, line);
  outs(e, "\n");
  e->any_value = 1;
}

/* ---- the report --------------------------------------------------------- */

ic_status ic_emit_open(ic_emit **res, FILE *f, ic_emit_format format, ic_err *err) {
  *res = NULL;
  ic_emit *e = calloc(1, sizeof *e);
  if (!e) return ic_fail(err, IC_ERUN, "report: out of memory");
  e->f = f;
  e->fmt = format;
  e->depth = 1;
  e->stack[0].kind = F_ROOT;
  e->only = IC_EMIT_ALL;
  if (format == IC_EMIT_YAML) {
    if (!yaml_emitter_initialize(&e->yaml)) {
      free(e);
      return ic_fail(err, IC_ERUN, "report: out of memory");
    }
    e->yaml_ready = 1;
    yaml_emitter_set_output(&e->yaml, yaml_write, e);
    yaml_emitter_set_unicode(&e->yaml, 1);
    yaml_emitter_set_width(&e->yaml, -1);
    yaml_event_t ev;
    yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
    yaml_check(e, yaml_emitter_emit(&e->yaml, &ev));
    yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1);
    if (!failed(e)) yaml_check(e, yaml_emitter_emit(&e->yaml, &ev));
    yaml_start(e, 1);
  } else if (format == IC_EMIT_JSON) {
    if (!(e->stack[0].json = json_object_new_object())) {
      free(e);
      return ic_fail(err, IC_ERUN, "report: out of memory");
    }
  }
  *res = e;
  return IC_OK;
}

ic_emit_format ic_emit_get_format(const ic_emit *e) { return e->fmt; }

void ic_emit_only(ic_emit *e, unsigned formats) { e->only = formats & IC_EMIT_ALL; }

void ic_emit_provenance(ic_emit *e, const ic_provenance *p) {
  if (failed(e)) return;
  if (e->started) {
    fail(e, IC_ERUN, "report: the provenance comes first, once");
    return;
  }
  const int text = e->fmt == IC_EMIT_TEXT;
  ic_emit_map_begin(e, "provenance");
  if (failed(e)) return;
  top(e)->hidden = text;
  ic_emit_str(e, "version", p->version);
  ic_emit_str(e, "command", p->command);
  ic_emit_str(e, "program", p->program);
  ic_emit_list_begin(e, "argv");
  for (int k = 0; k < p->argc; k++) ic_emit_str(e, NULL, p->argv[k]);
  ic_emit_list_end(e);
  ic_emit_str(e, "workload", p->workload);
  ic_emit_str(e, "trace", p->trace);
  ic_emit_str(e, "machine", p->machine);
  ic_emit_str(e, "config", p->config);
  ic_emit_list_begin(e, "overrides");
  for (int k = 0; k < p->noverrides; k++) ic_emit_str(e, NULL, p->overrides[k]);
  ic_emit_list_end(e);
  ic_emit_str(e, "machine_hash", p->machine_hash);
  ic_emit_u64(e, "seed", p->seed);
  ic_emit_u64(e, "skip", p->skip);
  if (p->has_max)
    ic_emit_u64(e, "max", p->max);
  else
    ic_emit_null(e, "max");
  ic_emit_map_end(e);
}

static void release(ic_emit *e) {
  if (e->yaml_ready) yaml_emitter_delete(&e->yaml);
  table_free(e);
  free(e->cells);
  for (int d = 1; d < e->depth; d++) free(e->stack[d].map_key_buf);
  json_object_put(e->stack[0].json);
  free(e->record.s);
  free(e);
}

ic_status ic_emit_close(ic_emit *e, ic_err *err) {
  if (!e) return IC_OK;
  e->only = IC_EMIT_ALL;
  while (!failed(e) && e->depth > 1) {
    switch (top(e)->kind) {
    case F_MAP: ic_emit_map_end(e); break;
    case F_LIST: ic_emit_list_end(e); break;
    case F_ROW: ic_emit_row_end(e); break;
    case F_TABLE: ic_emit_table_end(e); break;
    case F_ROOT: break;
    }
  }
  if (!failed(e) && e->fmt == IC_EMIT_YAML) {
    yaml_end(e, 1);
    yaml_event_t ev;
    yaml_document_end_event_initialize(&ev, 1);
    if (!failed(e)) yaml_check(e, yaml_emitter_emit(&e->yaml, &ev));
    yaml_stream_end_event_initialize(&ev);
    if (!failed(e)) yaml_check(e, yaml_emitter_emit(&e->yaml, &ev));
    if (!failed(e)) yaml_check(e, yaml_emitter_flush(&e->yaml));
  }
  if (!failed(e) && e->fmt == IC_EMIT_JSON) {
    const char *s = json_object_to_json_string_ext(
        e->stack[0].json, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED | JSON_C_TO_STRING_NOSLASHESCAPE);
    if (!s)
      fail(e, IC_ERUN, "report: out of memory");
    else {
      outs(e, s);
      outs(e, "\n");
    }
  }
  if (!failed(e) && (fflush(e->f) != 0 || ferror(e->f))) fail(e, IC_ERUN, "report: write error");
  ic_status st = e->status;
  if (st != IC_OK) ic_fail(err, st, "%s", e->msg);
  release(e);
  return st;
}

void ic_emit_abandon(ic_emit *e) {
  if (e) release(e);
}
