/* emit.h: the one writer of every report, in four formats.
 *
 * A report is a tree of mappings, lists, scalars and tables, given as a
 * stream of calls; the emitter renders it as
 *   text  human reading: a mapping's scalars as "key            value" lines
 *         (nested keys joined by spaces, '_' shown as ' '), lists joined by
 *         ", ", every table aligned in columns under its header (numbers to
 *         the right), a blank line before each table; no provenance;
 *   csv   RFC 4180 (a field holding , " CR or LF is quoted, quotes doubled;
 *         a field starting with # too): records whose first field is "#"
 *         carry the provenance and the report's values outside tables
 *         ("#,KEY,VALUE[,VALUE...]", nested keys joined by '.', a list's
 *         items in the following fields); every other record belongs to a
 *         table: its header, then its rows; two tables are separated by an
 *         empty record. A reader that skips the "#" records and splits at
 *         empty records gets the tables;
 *   yaml  one block-style document written by libyaml's emitter; strings
 *         that would read back as a number, a boolean or null are quoted;
 *   json  one object (json-c).
 * yaml and json hold the same tree: a table is a list of mappings (one per
 * row, keyed by the column names), or with IC_EMIT_TABLE_MAP a mapping from
 * each row's first cell to its second. Numbers: integers as they are;
 * doubles with the fewest digits that read back as the same double, -0.0
 * as 0 and NaN or infinities as null (text: "-"); the text of a fixed or
 * shown number is what the text format prints in its place.
 *
 * Usage errors (a key missing in a mapping, an end without a begin, more
 * cells than columns) and write errors are sticky: the calls after them do
 * nothing and ic_emit_close reports the first. Output is written as it is
 * given, except text tables (held until their end for the column widths)
 * and json (written at close). */
#ifndef IC_EMIT_H
#define IC_EMIT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ic_err.h"

typedef enum ic_emit_format { IC_EMIT_TEXT, IC_EMIT_CSV, IC_EMIT_YAML, IC_EMIT_JSON } ic_emit_format;

/* Parses "text", "csv", "yaml" or "json"; IC_EINPUT (naming the four)
 * otherwise. */
ic_status ic_emit_format_parse(const char *name, ic_emit_format *out, ic_err *err);
/* "text", "csv", "yaml" or "json". */
const char *ic_emit_format_name(ic_emit_format f);

/* Where a report's numbers come from: the first mapping of every yaml and
 * json report (`provenance`) and the first "#" records of csv. NULL strings
 * are written as null; has_max 0 means "to the end" (max: null). */
typedef struct ic_provenance {
  const char *version;       /* icost's version */
  const char *command;       /* icost's subcommand ("icost", "sim", ...) */
  const char *program;       /* the program's path as given, the workload's or the trace's */
  int argc;                  /* the program's argv, argv[0] as given */
  char *const *argv;
  const char *workload;      /* the manifest workload's name, or NULL */
  const char *trace;         /* the trace file, or NULL */
  const char *machine;       /* the machine's name */
  const char *config;        /* the machine file's path, or NULL for the built-in */
  int noverrides;            /* the --set arguments, KEY=VALUE, in order */
  const char *const *overrides;
  const char *machine_hash;  /* hash of the resolved machine (hex) */
  uint64_t seed, skip, max;
  int has_max;
} ic_provenance;

typedef struct ic_emit ic_emit;

/* A table's column. decimals: digits after the point of a double in text
 * (-1: as in the machine formats). Flags: */
enum {
  IC_EMIT_COL_NESTED = 1, /* may hold a list or mapping: yaml and json only, csv and text skip it */
  IC_EMIT_COL_TEXT_HIDE = 2, /* not shown in text (csv, yaml, json have it) */
};
typedef struct ic_emit_col {
  const char *name;
  int decimals;
  int flags;
} ic_emit_col;

/* Table flags. */
enum {
  IC_EMIT_TABLE_MAP = 1, /* yaml, json: a mapping of first cell -> second (two columns) */
};

/* Starts a report on f. Time complexity of every call: O(1) amortized, but
 * a text table's end (O(cells)). IC_ERUN when out of memory. */
ic_status ic_emit_open(ic_emit **out, FILE *f, ic_emit_format format, ic_err *err);
/* Finishes the report (closes what is open, writes json), flushes f and
 * frees e; the first usage or write error, else IC_OK. e may be NULL. */
ic_status ic_emit_close(ic_emit *e, ic_err *err);
/* Drops e without finishing the report (after a failed run). */
void ic_emit_abandon(ic_emit *e);
ic_emit_format ic_emit_get_format(const ic_emit *e);

/* The provenance mapping; call first, at most once. */
void ic_emit_provenance(ic_emit *e, const ic_provenance *p);

/* Containers. key names the entry in the enclosing mapping; it is NULL in a
 * list and in a table row (the column's name is the key there). */
void ic_emit_map_begin(ic_emit *e, const char *key);
void ic_emit_map_end(ic_emit *e);
void ic_emit_list_begin(ic_emit *e, const char *key);
void ic_emit_list_end(ic_emit *e);

/* Scalars. */
void ic_emit_str(ic_emit *e, const char *key, const char *value); /* NULL: null */
void ic_emit_u64(ic_emit *e, const char *key, uint64_t value);
void ic_emit_i64(ic_emit *e, const char *key, int64_t value);
void ic_emit_bool(ic_emit *e, const char *key, int value);
void ic_emit_null(ic_emit *e, const char *key);
/* A double; text: the column's decimals (in a table) or the shortest form. */
void ic_emit_double(ic_emit *e, const char *key, double value);
/* A double that text shows with `decimals` digits after the point. */
void ic_emit_fixed(ic_emit *e, const char *key, double value, int decimals);
/* A double that text shows as `shown` (a rounded column that must add up). */
void ic_emit_shown(ic_emit *e, const char *key, double value, const char *shown);
/* A string that text shows as `shown` ("none" for an empty list, say). */
void ic_emit_str_shown(ic_emit *e, const char *key, const char *value, const char *shown);
/* In a table row: this cell is absent (csv and text: empty, yaml and json:
 * the key is left out). Elsewhere: nothing. */
void ic_emit_skip(ic_emit *e, const char *key);

/* Tables: rows of cells in column order (key NULL or the column's name).
 * A row may have fewer cells than columns (the rest are skipped). */
void ic_emit_table_begin(ic_emit *e, const char *key, const ic_emit_col *cols, int ncols,
                         int flags);
void ic_emit_row_begin(ic_emit *e);
void ic_emit_row_end(ic_emit *e);
void ic_emit_table_end(ic_emit *e);

/* Text only: a line of prose written as is (a note under a table); the
 * other formats ignore it. */
void ic_emit_text_line(ic_emit *e, const char *line);

/* v with `decimals` digits after the point into buf, never "-0.0" (a value
 * that rounds to zero has no sign); NaN and infinities as "-". Every report
 * formats a fixed-point number through this. Returns buf. */
char *ic_emit_fmt_fixed(char *buf, size_t cap, double v, int decimals);
/* v with the fewest significant digits that read back as v ("0.1", "1e+20"),
 * -0.0 as "0"; NaN and infinities as "null". Returns buf (cap >= 32). */
char *ic_emit_fmt_double(char *buf, size_t cap, double v);

/* CSV: field written to f with RFC 4180 quoting. */
void ic_emit_csv_field(FILE *f, const char *field);

#endif
