/* symbols.c: pc -> function and file:line from an ELF file's symbol table
 * and DWARF line table (elfutils), and code regions -> pc ranges. The
 * contract is in symbols.h.
 *
 * Layout: funcs[] holds every function symbol, sorted by start address and,
 * at one address, best name first; lines[] holds the line-table rows of all
 * units, sorted by address, one row per address (the row in force there; a
 * row of file -1 ends a sequence: no line from there on). Names and file
 * names live in one string pool, referenced by offset so the pool may grow
 * while it is built. */
#include "symbols.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct sym_func {
  uint64_t lo, hi;   /* link addresses */
  uint32_t name;     /* offset in the pool */
  uint16_t rank;     /* lower is the better name for the address */
  uint8_t sized;     /* 0: the symbol has size 0 (hi is its section's end, or 0) */
} sym_func;

typedef struct sym_line {
  uint64_t addr;     /* link address */
  uint32_t line;
  int32_t file;      /* offset in the pool; -1: the end of a sequence */
  uint32_t order;    /* position in the unit's table, for a stable sort */
} sym_line;

struct ic_symbols {
  char *path;
  int machine, pie;
  uint64_t bias;
  sym_func *funcs;
  size_t nfuncs;
  sym_line *lines;
  size_t nlines;
  char *pool;
  size_t pool_len, pool_cap;
  char warning[320];
};

/* ---- the string pool, with interning of file names ---------------------- */

static int32_t pool_add(ic_symbols *s, const char *str) {
  size_t len = strlen(str) + 1;
  if (s->pool_len + len > INT32_MAX) return -1;
  if (s->pool_len + len > s->pool_cap) {
    size_t cap = s->pool_cap ? s->pool_cap : 4096;
    while (cap < s->pool_len + len) cap *= 2;
    char *p = realloc(s->pool, cap);
    if (!p) return -1;
    s->pool = p;
    s->pool_cap = cap;
  }
  memcpy(s->pool + s->pool_len, str, len);
  int32_t off = (int32_t)s->pool_len;
  s->pool_len += len;
  return off;
}

/* File names recur in every row: an open-addressing table of pool offsets
 * keeps one copy of each (used only while the lines are read). */
typedef struct intern_tab {
  int32_t *slot; /* -1: empty */
  size_t cap, used;
} intern_tab;

static uint64_t hash_str(const char *p) {
  uint64_t h = 1469598103934665603ULL;
  for (; *p; p++) h = (h ^ (unsigned char)*p) * 1099511628211ULL;
  return h;
}

static int32_t intern(ic_symbols *s, intern_tab *t, const char *str) {
  if (2 * (t->used + 1) > t->cap) {
    size_t cap = t->cap ? 2 * t->cap : 256;
    int32_t *ns = malloc(cap * sizeof *ns);
    if (!ns) return -1;
    for (size_t i = 0; i < cap; i++) ns[i] = -1;
    for (size_t i = 0; i < t->cap; i++)
      if (t->slot[i] >= 0) {
        size_t j = hash_str(s->pool + t->slot[i]) & (cap - 1);
        while (ns[j] >= 0) j = (j + 1) & (cap - 1);
        ns[j] = t->slot[i];
      }
    free(t->slot);
    t->slot = ns;
    t->cap = cap;
  }
  size_t j = hash_str(str) & (t->cap - 1);
  for (; t->slot[j] >= 0; j = (j + 1) & (t->cap - 1))
    if (strcmp(s->pool + t->slot[j], str) == 0) return t->slot[j];
  int32_t off = pool_add(s, str);
  if (off < 0) return -1;
  t->slot[j] = off;
  t->used++;
  return off;
}

/* ---- functions ------------------------------------------------------------ */

static uint16_t name_rank(int bind, const char *name) {
  uint16_t r = bind == STB_GLOBAL ? 0 : bind == STB_WEAK ? 1 : 2;
  uint16_t under = 0;
  while (name[under] == '_' && under < 15) under++;
  return (uint16_t)(r << 4 | under);
}

static int cmp_func(const void *a, const void *b) {
  const sym_func *x = a, *y = b;
  if (x->lo != y->lo) return x->lo < y->lo ? -1 : 1;
  if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
  return x->name < y->name ? -1 : x->name > y->name;
}

/* Reads the function symbols of one symbol table section. */
static ic_status read_symtab(ic_symbols *s, Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, ic_err *err) {
  Elf_Data *data = elf_getdata(scn, NULL);
  if (!data || sh->sh_entsize == 0) return IC_OK;
  size_t n = sh->sh_size / sh->sh_entsize;
  size_t cap = s->nfuncs + n;
  sym_func *f = realloc(s->funcs, (cap ? cap : 1) * sizeof *f);
  if (!f) return ic_fail(err, IC_ERUN, "%s: out of memory for %zu symbols", s->path, n);
  s->funcs = f;
  for (size_t i = 0; i < n; i++) {
    GElf_Sym sym;
    if (!gelf_getsym(data, (int)i, &sym)) break;
    int type = GELF_ST_TYPE(sym.st_info);
    if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF || sym.st_value == 0) continue;
    const char *name = elf_strptr(elf, sh->sh_link, sym.st_name);
    if (!name || !*name) continue;
    uint64_t hi = sym.st_value + sym.st_size;
    if (sym.st_size == 0) { /* to the next function or the end of its section */
      hi = 0;
      Elf_Scn *own = sym.st_shndx < SHN_LORESERVE ? elf_getscn(elf, sym.st_shndx) : NULL;
      GElf_Shdr osh;
      if (own && gelf_getshdr(own, &osh) && sym.st_value >= osh.sh_addr && sym.st_value < osh.sh_addr + osh.sh_size)
        hi = osh.sh_addr + osh.sh_size;
    }
    if (hi < sym.st_value) continue; /* wraps */
    int32_t off = pool_add(s, name);
    if (off < 0) return ic_fail(err, IC_ERUN, "%s: out of memory for symbol names", s->path);
    s->funcs[s->nfuncs++] = (sym_func){.lo = sym.st_value, .hi = hi, .name = (uint32_t)off,
                                       .rank = name_rank(GELF_ST_BIND(sym.st_info), name),
                                       .sized = sym.st_size != 0};
  }
  return IC_OK;
}

/* Sorts the functions and bounds those of size 0 by the next start. */
static void finish_funcs(ic_symbols *s) {
  qsort(s->funcs, s->nfuncs, sizeof *s->funcs, cmp_func);
  for (size_t i = 0; i < s->nfuncs; i++) {
    sym_func *f = &s->funcs[i];
    if (f->sized) continue;
    size_t j = i + 1;
    while (j < s->nfuncs && s->funcs[j].lo == f->lo) j++;
    uint64_t next = j < s->nfuncs ? s->funcs[j].lo : f->lo + 1;
    if (f->hi == 0 || next < f->hi) f->hi = next;
    if (f->hi == f->lo) f->hi = f->lo + 1; /* at least its own address */
  }
}

/* ---- lines ---------------------------------------------------------------- */

static int cmp_line(const void *a, const void *b) {
  const sym_line *x = a, *y = b;
  if (x->addr != y->addr) return x->addr < y->addr ? -1 : 1;
  /* at one address: a sequence's end before another's rows, then in table order */
  int xe = x->file < 0, ye = y->file < 0;
  if (xe != ye) return xe ? -1 : 1;
  return x->order < y->order ? -1 : x->order > y->order;
}

static void warn(ic_symbols *s, const char *what) {
  if (!s->warning[0])
    snprintf(s->warning, sizeof s->warning, "%s: %s; source lines are not shown", s->path, what);
}

/* Reads every unit's line table; DWARF that libdw rejects leaves a warning. */
static ic_status read_lines(ic_symbols *s, Elf *elf, ic_err *err) {
  Dwarf *dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
  if (!dw) {
    warn(s, dwarf_errmsg(-1));
    return IC_OK;
  }
  ic_status st = IC_OK;
  intern_tab files = {0};
  size_t cap = 0;
  uint32_t order = 0;
  Dwarf_CU *unit = NULL;
  Dwarf_Die cu;
  int rc = 0;
  while (st == IC_OK && (rc = dwarf_get_units(dw, unit, &unit, NULL, NULL, &cu, NULL)) == 0) {
    Dwarf_Lines *lines;
    size_t nl;
    if (!dwarf_hasattr(&cu, DW_AT_stmt_list)) continue;
    if (dwarf_getsrclines(&cu, &lines, &nl) != 0) {
      warn(s, dwarf_errmsg(-1));
      continue;
    }
    for (size_t i = 0; i < nl; i++) {
      Dwarf_Line *l = dwarf_onesrcline(lines, i);
      Dwarf_Addr addr;
      int lineno = 0;
      bool end = false;
      if (!l || dwarf_lineaddr(l, &addr) != 0) continue;
      dwarf_lineno(l, &lineno);
      dwarf_lineendsequence(l, &end);
      const char *src = end ? NULL : dwarf_linesrc(l, NULL, NULL);
      int32_t fo = -1;
      if (src) {
        fo = intern(s, &files, src);
        if (fo < 0) {
          st = ic_fail(err, IC_ERUN, "%s: out of memory for source file names", s->path);
          break;
        }
      } else if (!end) {
        continue; /* a row without a file: nothing to show */
      }
      if (s->nlines == cap) {
        size_t nc = cap ? 2 * cap : 4096;
        sym_line *nlp = realloc(s->lines, nc * sizeof *nlp);
        if (!nlp) {
          st = ic_fail(err, IC_ERUN, "%s: out of memory for the line table", s->path);
          break;
        }
        s->lines = nlp;
        cap = nc;
      }
      s->lines[s->nlines++] =
          (sym_line){.addr = addr, .line = lineno > 0 ? (uint32_t)lineno : 0, .file = fo, .order = order++};
    }
  }
  if (st == IC_OK && rc < 0) warn(s, dwarf_errmsg(-1));
  free(files.slot);
  dwarf_end(dw);
  if (st != IC_OK) return st;
  /* one row per address: the last at it (a sequence's start wins over the
   * end of the one before); then runs of one file:line become one row */
  qsort(s->lines, s->nlines, sizeof *s->lines, cmp_line);
  size_t k = 0;
  for (size_t i = 0; i < s->nlines; i++) {
    if (i + 1 < s->nlines && s->lines[i + 1].addr == s->lines[i].addr) continue;
    const sym_line *r = &s->lines[i];
    if (k > 0 && s->lines[k - 1].file == r->file && s->lines[k - 1].line == r->line) continue;
    s->lines[k++] = *r;
  }
  s->nlines = k;
  if (k == 0) {
    free(s->lines);
    s->lines = NULL;
  }
  return IC_OK;
}

/* Whether the file has DWARF line information at all (else there is
 * nothing to read and nothing to warn about). */
static int has_debug_line(Elf *elf) {
  size_t shstrndx;
  if (elf_getshdrstrndx(elf, &shstrndx) != 0) return 0;
  for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
    GElf_Shdr sh;
    if (!gelf_getshdr(scn, &sh)) continue;
    const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
    if (name && (strcmp(name, ".debug_line") == 0 || strcmp(name, ".zdebug_line") == 0) &&
        sh.sh_type != SHT_NOBITS)
      return 1;
  }
  return 0;
}

ic_status ic_sym_open(ic_symbols **out, const char *path, ic_err *err) {
  *out = NULL;
  if (elf_version(EV_CURRENT) == EV_NONE) return ic_fail(err, IC_ERUN, "libelf: %s", elf_errmsg(-1));
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ic_fail(err, IC_EINPUT, "%s: %s", path, strerror(errno));
  Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
  GElf_Ehdr eh;
  if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh)) {
    ic_status st = ic_fail(err, IC_EINPUT, "%s: not an ELF file%s%s", path, elf ? "" : ": ",
                           elf ? "" : elf_errmsg(-1));
    elf_end(elf);
    close(fd);
    return st;
  }
  ic_symbols *s = calloc(1, sizeof *s);
  ic_status st = IC_OK;
  if (!s || !(s->path = strdup(path))) {
    st = ic_fail(err, IC_ERUN, "%s: out of memory", path);
  } else {
    s->machine = eh.e_machine;
    s->pie = eh.e_type == ET_DYN;
    /* .symtab, else .dynsym */
    Elf_Scn *tab = NULL, *dyn = NULL;
    GElf_Shdr tsh, dsh, sh;
    for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
      if (!gelf_getshdr(scn, &sh)) continue;
      if (sh.sh_type == SHT_SYMTAB && !tab) tab = scn, tsh = sh;
      if (sh.sh_type == SHT_DYNSYM && !dyn) dyn = scn, dsh = sh;
    }
    if (tab) st = read_symtab(s, elf, tab, &tsh, err);
    else if (dyn) st = read_symtab(s, elf, dyn, &dsh, err);
    if (st == IC_OK) finish_funcs(s);
    if (st == IC_OK && has_debug_line(elf)) st = read_lines(s, elf, err);
  }
  elf_end(elf);
  close(fd);
  if (st != IC_OK) {
    ic_sym_close(s);
    return st;
  }
  *out = s;
  return IC_OK;
}

void ic_sym_close(ic_symbols *s) {
  if (!s) return;
  free(s->path);
  free(s->funcs);
  free(s->lines);
  free(s->pool);
  free(s);
}

const char *ic_sym_warning(const ic_symbols *s) { return s && s->warning[0] ? s->warning : NULL; }
const char *ic_sym_path(const ic_symbols *s) { return s ? s->path : NULL; }
int ic_sym_has_functions(const ic_symbols *s) { return s && s->nfuncs > 0; }
int ic_sym_has_lines(const ic_symbols *s) { return s && s->nlines > 0; }
int ic_sym_machine(const ic_symbols *s) { return s ? s->machine : 0; }
int ic_sym_is_pie(const ic_symbols *s) { return s && s->pie; }
void ic_sym_set_bias(ic_symbols *s, uint64_t bias) { s->bias = bias; }
uint64_t ic_sym_bias(const ic_symbols *s) { return s ? s->bias : 0; }

/* ---- lookups -------------------------------------------------------------- */

/* The first function entry of the best name covering link address a, or NULL. */
static const sym_func *func_at(const ic_symbols *s, uint64_t a) {
  size_t lo = 0, hi = s->nfuncs; /* first entry with start > a */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (s->funcs[mid].lo <= a) lo = mid + 1;
    else hi = mid;
  }
  /* the nearest starts below a, nearest first; a few steps back find an
   * enclosing function that a small one inside it hides */
  for (size_t i = lo, steps = 0; i > 0 && steps < 16; i--, steps++) {
    const sym_func *f = &s->funcs[i - 1];
    if (a < f->hi) {
      while (f > s->funcs && f[-1].lo == f->lo && a < f[-1].hi) f--; /* the best name at that start */
      return f;
    }
  }
  return NULL;
}

static const sym_line *line_at(const ic_symbols *s, uint64_t a) {
  size_t lo = 0, hi = s->nlines;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (s->lines[mid].addr <= a) lo = mid + 1;
    else hi = mid;
  }
  if (lo == 0 || s->lines[lo - 1].file < 0) return NULL;
  return &s->lines[lo - 1];
}

int ic_sym_lookup(const ic_symbols *s, uint64_t pc, ic_sym_loc *out) {
  memset(out, 0, sizeof *out);
  if (!s) return 0;
  uint64_t a = pc - s->bias;
  int found = 0;
  const sym_func *f = s->nfuncs ? func_at(s, a) : NULL;
  if (f) {
    out->function = s->pool + f->name;
    out->offset = a - f->lo;
    found |= IC_SYM_FUNCTION;
  }
  const sym_line *l = s->nlines ? line_at(s, a) : NULL;
  if (l) {
    out->file = s->pool + l->file;
    out->line = l->line;
    found |= IC_SYM_LINE;
  }
  return found;
}

char *ic_sym_format(const ic_sym_loc *loc, int found, uint64_t pc, int short_file, char *buf, size_t cap) {
  if (cap == 0) return buf;
  size_t k = 0;
  int w;
  buf[0] = 0;
  if (found & IC_SYM_FUNCTION)
    w = loc->offset ? snprintf(buf, cap, "%s+0x%llx", loc->function, (unsigned long long)loc->offset)
                    : snprintf(buf, cap, "%s", loc->function);
  else
    w = snprintf(buf, cap, "0x%llx", (unsigned long long)pc);
  if (w > 0) k = (size_t)w < cap ? (size_t)w : cap - 1;
  if ((found & IC_SYM_LINE) && k + 1 < cap) {
    const char *file = loc->file;
    const char *slash = short_file ? strrchr(file, '/') : NULL;
    if (slash) file = slash + 1;
    snprintf(buf + k, cap - k, " %s:%u", file, loc->line);
  }
  return buf;
}

/* ---- bias ----------------------------------------------------------------- */

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

#define SYM_PAGE 4096u
#define SYM_MAX_VOTES (1u << 22)

int ic_sym_guess_bias(ic_symbols *s, const uint64_t *pcs, size_t n) {
  if (!s->pie) return 1;
  if (s->nfuncs == 0 || n == 0) return 0;
  /* function starts by their offset in a page: a bias is page-aligned, so
   * pc - start is a candidate only where the two agree below the page */
  uint64_t *starts = malloc(s->nfuncs * sizeof *starts);
  uint64_t *votes = malloc(SYM_MAX_VOTES * sizeof *votes);
  size_t ns = 0, nv = 0;
  int ok = 0;
  if (starts && votes) {
    for (size_t i = 0; i < s->nfuncs; i++)
      if (i == 0 || s->funcs[i].lo != s->funcs[i - 1].lo)
        starts[ns++] = (s->funcs[i].lo % SYM_PAGE) << 48 | (s->funcs[i].lo & ((1ULL << 48) - 1));
    qsort(starts, ns, sizeof *starts, cmp_u64);
    for (size_t i = 0; i < n && nv < SYM_MAX_VOTES; i++) {
      uint64_t key = (pcs[i] % SYM_PAGE) << 48;
      size_t lo = 0, hi = ns;
      while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (starts[mid] < key) lo = mid + 1;
        else hi = mid;
      }
      for (size_t j = lo; j < ns && (starts[j] >> 48) == pcs[i] % SYM_PAGE && nv < SYM_MAX_VOTES; j++) {
        uint64_t start = starts[j] & ((1ULL << 48) - 1);
        if (pcs[i] >= start) votes[nv++] = pcs[i] - start;
      }
    }
    qsort(votes, nv, sizeof *votes, cmp_u64);
    size_t best = 0, run = 0;
    uint64_t bias = 0;
    for (size_t i = 0; i < nv; i++) {
      run = i > 0 && votes[i] == votes[i - 1] ? run + 1 : 1;
      if (run > best) best = run, bias = votes[i];
    }
    if (best > 0) {
      s->bias = bias;
      ok = 1;
    }
  }
  free(starts);
  free(votes);
  return ok;
}

/* ---- regions -------------------------------------------------------------- */

typedef struct range_list {
  ic_sym_range *r;
  size_t n, cap;
} range_list;

static int range_add(range_list *l, uint64_t lo, uint64_t hi) {
  if (hi <= lo) return 0;
  if (l->n == l->cap) {
    size_t cap = l->cap ? 2 * l->cap : 16;
    ic_sym_range *r = realloc(l->r, cap * sizeof *r);
    if (!r) return -1;
    l->r = r;
    l->cap = cap;
  }
  l->r[l->n++] = (ic_sym_range){lo, hi};
  return 0;
}

static int cmp_range(const void *a, const void *b) {
  const ic_sym_range *x = a, *y = b;
  return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Sorts and merges touching or overlapping ranges. */
static void range_normalize(range_list *l) {
  qsort(l->r, l->n, sizeof *l->r, cmp_range);
  size_t k = 0;
  for (size_t i = 0; i < l->n; i++) {
    if (k > 0 && l->r[i].lo <= l->r[k - 1].hi) {
      if (l->r[i].hi > l->r[k - 1].hi) l->r[k - 1].hi = l->r[i].hi;
    } else {
      l->r[k++] = l->r[i];
    }
  }
  l->n = k;
}

/* Parses a decimal number of the whole of [p, e); 0 on success. */
static int parse_dec(const char *p, const char *e, uint64_t *out) {
  if (p == e) return -1;
  uint64_t v = 0;
  for (; p < e; p++) {
    if (*p < '0' || *p > '9' || v > (UINT64_MAX - 9) / 10) return -1;
    v = v * 10 + (uint64_t)(*p - '0');
  }
  *out = v;
  return 0;
}

static int parse_hex(const char *p, const char *e, uint64_t *out) {
  if (e - p < 3 || p[0] != '0' || (p[1] != 'x' && p[1] != 'X')) return -1;
  uint64_t v = 0;
  for (p += 2; p < e; p++) {
    int d = *p >= '0' && *p <= '9' ? *p - '0' : *p >= 'a' && *p <= 'f' ? *p - 'a' + 10
          : *p >= 'A' && *p <= 'F' ? *p - 'A' + 10 : -1;
    if (d < 0 || v >> 60) return -1;
    v = v << 4 | (uint64_t)d;
  }
  *out = v;
  return 0;
}

static int file_matches(const char *dwarf_name, const char *file, size_t flen) {
  size_t dl = strlen(dwarf_name);
  if (dl < flen || memcmp(dwarf_name + dl - flen, file, flen) != 0) return 0;
  return dl == flen || (file[0] != '/' && dwarf_name[dl - flen - 1] == '/');
}

/* FILE:FIRST-LAST (e is the ':'). */
static ic_status where_lines(const ic_symbols *s, const char *where, const char *colon, uint64_t first,
                             uint64_t last, range_list *l, ic_err *err) {
  if (!s || s->nlines == 0)
    return ic_fail(err, IC_EINPUT, "'%s': %s has no source line information (build it with -g)", where,
                   s ? s->path : "the program");
  size_t flen = (size_t)(colon - where);
  int file_seen = 0;
  int32_t last_file = -1, last_match = 0;
  for (size_t i = 0; i + 1 < s->nlines; i++) {
    const sym_line *r = &s->lines[i];
    if (r->file < 0) continue;
    if (r->file != last_file) {
      last_file = r->file;
      last_match = file_matches(s->pool + r->file, where, flen);
    }
    if (!last_match) continue;
    file_seen = 1;
    if (r->line >= first && r->line <= last && range_add(l, r->addr + s->bias, s->lines[i + 1].addr + s->bias) != 0)
      return ic_fail(err, IC_ERUN, "'%s': out of memory", where);
  }
  if (!file_seen)
    return ic_fail(err, IC_EINPUT, "'%s': no source file %.*s in the line table of %s", where, (int)flen, where,
                   s->path);
  if (l->n == 0)
    return ic_fail(err, IC_EINPUT, "'%s': no code of %.*s lines %llu-%llu in %s", where, (int)flen, where,
                   (unsigned long long)first, (unsigned long long)last, s->path);
  return IC_OK;
}

static ic_status where_function(const ic_symbols *s, const char *where, range_list *l, ic_err *err) {
  if (!s || s->nfuncs == 0)
    return ic_fail(err, IC_EINPUT, "'%s': %s has no symbol table to find functions in", where,
                   s ? s->path : "the program");
  size_t len = strlen(where);
  for (size_t i = 0; i < s->nfuncs; i++) {
    const char *name = s->pool + s->funcs[i].name;
    if (strncmp(name, where, len) != 0 || (name[len] != 0 && name[len] != '.')) continue;
    if (range_add(l, s->funcs[i].lo + s->bias, s->funcs[i].hi + s->bias) != 0)
      return ic_fail(err, IC_ERUN, "'%s': out of memory", where);
  }
  if (l->n == 0) return ic_fail(err, IC_EINPUT, "'%s': no function of that name in %s", where, s->path);
  return IC_OK;
}

ic_status ic_sym_where(const ic_symbols *s, const char *where, ic_sym_range **out, size_t *n, ic_err *err) {
  *out = NULL;
  *n = 0;
  range_list l = {0};
  ic_status st;
  const char *end = where + strlen(where);
  const char *dash = strchr(where, '-');
  const char *colon = strrchr(where, ':');
  uint64_t a, b;
  if (!*where) return ic_fail(err, IC_EINPUT, "empty code region");
  if (where[0] == '0' && (where[1] == 'x' || where[1] == 'X') && !colon) {
    if (!dash || parse_hex(where, dash, &a) != 0 || parse_hex(dash + 1, end, &b) != 0)
      return ic_fail(err, IC_EINPUT, "'%s': expected a pc range 0xLO-0xHI", where);
    if (b <= a) return ic_fail(err, IC_EINPUT, "'%s': the range is empty (0xHI must be above 0xLO)", where);
    st = range_add(&l, a, b) == 0 ? IC_OK : ic_fail(err, IC_ERUN, "out of memory");
  } else if (colon && colon > where && colon[-1] != ':' && colon[1] >= '0' && colon[1] <= '9') {
    const char *d = strchr(colon, '-');
    if (d ? parse_dec(colon + 1, d, &a) != 0 || parse_dec(d + 1, end, &b) != 0 : parse_dec(colon + 1, end, &a) != 0)
      return ic_fail(err, IC_EINPUT, "'%s': expected FILE:LINE or FILE:FIRST-LAST", where);
    if (!d) b = a;
    if (a == 0 || b < a)
      return ic_fail(err, IC_EINPUT, "'%s': lines must be positive and FIRST at most LAST", where);
    st = where_lines(s, where, colon, a, b, &l, err);
  } else {
    st = where_function(s, where, &l, err);
  }
  if (st != IC_OK) {
    free(l.r);
    return st;
  }
  range_normalize(&l);
  *out = l.r;
  *n = l.n;
  return IC_OK;
}
