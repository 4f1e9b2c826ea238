/* sig_file.c: writing and reading sample files (format in sig_file.h).
 *
 * The writer encodes samples into an in-memory block of at most 1 MiB and
 * writes it with its header and checksum when full, so memory is bounded
 * whatever the run length. The reader takes a whole file image and checks
 * every length against the bytes left before reading it. */
#define _GNU_SOURCE
#include "ic_file.h"
#include "sig_file.h"

#include "graph.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#include <sys/stat.h>
#include <unistd.h>

#define BLOCK_TARGET (1u << 20)
enum { BLK_DETAIL = 1, BLK_SKELETON = 2, BLK_END = 3 };

uint64_t sig_fnv(uint64_t h, const void *p, size_t n) {
  const uint8_t *b = p;
  for (size_t i = 0; i < n; i++) {
    h ^= b[i];
    h *= UINT64_C(0x100000001b3);
  }
  return h;
}

void sig_file_header_free(sig_file_header *h) {
  if (!h) return;
  if (h->argv)
    for (int i = 0; i < h->argc; i++) free(h->argv[i]);
  free(h->argv);
  free(h->config_yaml);
  free(h->program);
  if (h->overrides)
    for (int i = 0; i < h->noverrides; i++) free(h->overrides[i]);
  free(h->overrides);
  h->program = NULL;
  h->argv = NULL;
  h->config_yaml = NULL;
  h->argc = 0;
  h->overrides = NULL;
  h->noverrides = 0;
}

ic_status sig_file_identity(const char *path, uint64_t *size, uint64_t *hash, ic_err *err) {
  FILE *f;
  ic_status ost = ic_file_open_regular(&f, path, err);
  if (ost != IC_OK) return ost;
  uint8_t buf[65536];
  uint64_t h = SIG_FNV_INIT, n = 0;
  size_t got;
  while ((got = fread(buf, 1, sizeof buf, f)) > 0) {
    h = sig_fnv(h, buf, got);
    n += got;
  }
  int bad = ferror(f);
  fclose(f);
  if (bad) return ic_fail(err, IC_EINPUT, "%s: read error", path);
  *size = n;
  *hash = h;
  return IC_OK;
}

/* ---- growable byte buffer ---------------------------------------------- */

typedef struct bbuf {
  uint8_t *p;
  size_t n, cap;
  int oom;
} bbuf;

static void bb_need(bbuf *b, size_t k) {
  if (b->oom || b->n + k <= b->cap) return;
  size_t c = b->cap ? b->cap : 4096;
  while (c < b->n + k) c *= 2;
  uint8_t *q = realloc(b->p, c);
  if (!q) {
    b->oom = 1;
    return;
  }
  b->p = q;
  b->cap = c;
}
static void bb_bytes(bbuf *b, const void *p, size_t k) {
  bb_need(b, k);
  if (b->oom) return;
  memcpy(b->p + b->n, p, k);
  b->n += k;
}
static void bb_u8(bbuf *b, uint8_t v) { bb_bytes(b, &v, 1); }
static void bb_u32(bbuf *b, uint32_t v) {
  uint8_t x[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
  bb_bytes(b, x, 4);
}
static void bb_u64(bbuf *b, uint64_t v) {
  bb_u32(b, (uint32_t)v);
  bb_u32(b, (uint32_t)(v >> 32));
}
static void bb_var(bbuf *b, uint64_t v) {
  uint8_t x[10];
  int n = 0;
  do {
    x[n] = (uint8_t)(v & 0x7f);
    v >>= 7;
    if (v) x[n] |= 0x80;
    n++;
  } while (v);
  bb_bytes(b, x, (size_t)n);
}

/* ---- writer ------------------------------------------------------------- */

struct sig_writer {
  char *path;
  ic_outfile *out; /* all or nothing (ic_file.h) */
  FILE *f;         /* its stream */
  bbuf blk;
  uint32_t blk_type, blk_count;
  uint64_t details, skeletons, bytes;
  int failed;
};

static ic_status wr_raw(sig_writer *w, const void *p, size_t n, ic_err *err) {
  if (fwrite(p, 1, n, w->f) != n) {
    w->failed = 1;
    return ic_fail(err, IC_ERUN, "%s: write error: %s", w->path, strerror(errno));
  }
  w->bytes += n;
  return IC_OK;
}

static ic_status wr_flush_block(sig_writer *w, ic_err *err) {
  if (!w->blk_type) return IC_OK;
  if (w->blk.oom) {
    w->failed = 1;
    return ic_fail(err, IC_ERUN, "%s: out of memory", w->path);
  }
  /* the payload as one zstd frame (its content size in the frame too) */
  size_t zcap = ZSTD_compressBound(w->blk.n);
  void *z = malloc(zcap);
  size_t zn = z ? ZSTD_compress(z, zcap, w->blk.p, w->blk.n, SIG_FILE_ZSTD_LEVEL) : 0;
  if (!z || ZSTD_isError(zn)) {
    free(z);
    w->failed = 1;
    return ic_fail(err, IC_ERUN, "%s: out of memory compressing a block", w->path);
  }
  bbuf h = {0};
  bb_u32(&h, w->blk_type);
  bb_u32(&h, w->blk_count);
  bb_u32(&h, (uint32_t)zn);
  bb_u32(&h, (uint32_t)w->blk.n);
  bb_u64(&h, sig_fnv(SIG_FNV_INIT, z, zn));
  ic_status st = h.oom ? ic_fail(err, IC_ERUN, "%s: out of memory", w->path)
                       : wr_raw(w, h.p, h.n, err);
  free(h.p);
  if (st == IC_OK) st = wr_raw(w, z, zn, err);
  free(z);
  w->blk.n = 0;
  w->blk_type = 0;
  w->blk_count = 0;
  return st;
}

static ic_status wr_begin(sig_writer *w, uint32_t type, ic_err *err) {
  if (w->blk_type != type || w->blk.n >= BLOCK_TARGET) {
    ic_status st = wr_flush_block(w, err);
    if (st != IC_OK) return st;
    w->blk_type = type;
  }
  return IC_OK;
}

static ic_status wr_detail(void *ctx, const sig_detail *d, ic_err *err) {
  sig_writer *w = ctx;
  ic_status st = wr_begin(w, BLK_DETAIL, err);
  if (st != IC_OK) return st;
  bbuf *b = &w->blk;
  bb_var(b, d->seq);
  bb_var(b, d->pc);
  bb_var(b, d->next_pc);
  bb_var(b, d->sig & SIG_MASK42);
  bb_u8(b, d->opclass);
  bb_u8(b, d->present);
  bb_u8(b, d->slot_w);
  bb_u8(b, d->slot_p);
  bb_u8(b, d->mshr_k);
  bb_u8(b, d->nitems);
  for (int k = 0; k < d->nitems; k++) {
    const ic_edge *e = &d->item[k];
    bb_u8(b, e->kind);
    bb_u8(b, e->flags);
    bb_u8(b, e->keep);
    bb_u8(b, e->nparts);
    bb_var(b, e->dist);
    for (int q = 0; q < e->nparts; q++) {
      bb_u8(b, e->part[q].cat);
      bb_var(b, e->part[q].cycles);
    }
  }
  w->blk_count++;
  w->details++;
  return IC_OK;
}

static ic_status wr_skeleton(void *ctx, const sig_skeleton *s, ic_err *err) {
  sig_writer *w = ctx;
  ic_status st = wr_begin(w, BLK_SKELETON, err);
  if (st != IC_OK) return st;
  bbuf *b = &w->blk;
  bb_var(b, s->seq);
  bb_var(b, s->start_pc);
  bb_var(b, s->n);
  bb_u8(b, s->flags);
  for (uint32_t k = 0; k < s->n; k += 4) {
    uint8_t v = 0;
    for (uint32_t q = 0; q < 4 && k + q < s->n; q++) v |= (uint8_t)((s->bits[k + q] & 3u) << (2 * q));
    bb_u8(b, v);
  }
  w->blk_count++;
  w->skeletons++;
  return IC_OK;
}

sig_out sig_writer_out(sig_writer *w) {
  sig_out o = {w, wr_detail, wr_skeleton};
  return o;
}

uint64_t sig_writer_bytes(const sig_writer *w) { return w->bytes + w->blk.n; }

void sig_writer_abort(sig_writer *w) {
  if (!w) return;
  ic_outfile_abort(w->out);
  free(w->blk.p);
  free(w->path);
  free(w);
}

ic_status sig_writer_open(sig_writer **out, const char *path, const sig_file_header *h,
                          ic_err *err) {
  *out = NULL;
  sig_writer *w = calloc(1, sizeof *w);
  if (!w) return ic_fail(err, IC_ERUN, "%s: out of memory", path);
  w->path = strdup(path);
  if (!w->path) {
    sig_writer_abort(w);
    return ic_fail(err, IC_ERUN, "%s: out of memory", path);
  }
  ic_status ost = ic_outfile_open(&w->out, path, err);
  if (ost != IC_OK) {
    sig_writer_abort(w);
    return ost;
  }
  w->f = ic_outfile_stream(w->out);
  bbuf p = {0};
  bb_u32(&p, SIG_MACHINE_COUNT);
  sig_machine m = h->machine;
  for (int k = 0; k < SIG_MACHINE_COUNT; k++) bb_u32(&p, *sig_machine_field(&m, k));
  bb_u32(&p, IC_EDGE_KIND_COUNT);
  bb_u64(&p, h->detail_interval);
  bb_u64(&p, h->signature_interval);
  bb_u64(&p, h->seed);
  bb_u64(&p, h->skip);
  bb_u64(&p, h->warm);
  bb_u64(&p, h->max);
  bb_u32(&p, h->length);
  bb_u64(&p, h->elf_size);
  bb_u64(&p, h->elf_hash);
  size_t pl = h->program ? strlen(h->program) : 0;
  bb_u32(&p, (uint32_t)pl);
  bb_bytes(&p, h->program, pl);
  bb_u32(&p, (uint32_t)h->argc);
  for (int i = 0; i < h->argc; i++) {
    size_t n = strlen(h->argv[i]);
    bb_u32(&p, (uint32_t)n);
    bb_bytes(&p, h->argv[i], n);
  }
  size_t yl = h->config_yaml ? strlen(h->config_yaml) : 0;
  bb_u32(&p, (uint32_t)yl);
  bb_bytes(&p, h->config_yaml, yl);
  bb_u32(&p, (uint32_t)h->noverrides);
  for (int i = 0; i < h->noverrides; i++) {
    size_t n = strlen(h->overrides[i]);
    bb_u32(&p, (uint32_t)n);
    bb_bytes(&p, h->overrides[i], n);
  }
  bbuf f = {0};
  bb_bytes(&f, SIG_FILE_MAGIC, 8);
  bb_u32(&f, SIG_FILE_VERSION);
  bb_u32(&f, (uint32_t)p.n);
  bb_u64(&f, sig_fnv(SIG_FNV_INIT, p.p, p.n));
  ic_status st = IC_OK;
  if (p.oom || f.oom || p.n > SIG_FILE_MAX_PAYLOAD)
    st = ic_fail(err, IC_EINPUT, "%s: header too large or out of memory", path);
  if (st == IC_OK) st = wr_raw(w, f.p, f.n, err);
  if (st == IC_OK) st = wr_raw(w, p.p, p.n, err);
  free(p.p);
  free(f.p);
  if (st != IC_OK) {
    sig_writer_abort(w);
    return st;
  }
  *out = w;
  return IC_OK;
}

ic_status sig_writer_close(sig_writer *w, uint64_t instructions, ic_err *err) {
  ic_status st = wr_flush_block(w, err);
  if (st == IC_OK) {
    w->blk_type = BLK_END;
    bb_u64(&w->blk, w->details);
    bb_u64(&w->blk, w->skeletons);
    bb_u64(&w->blk, instructions);
    st = wr_flush_block(w, err);
  }
  if (st == IC_OK) {
    st = ic_outfile_commit(w->out, err);
    w->out = NULL;
    w->f = NULL;
  }
  sig_writer_abort(w);
  return st;
}

/* ---- reader ------------------------------------------------------------- */

typedef struct rd {
  const uint8_t *p;
  size_t n, pos;
  size_t base; /* file offset of p[0], for messages */
  const char *name;
  const char *what; /* what is being read */
  ic_err *err;
} rd;

static ic_status rd_fail(rd *r, const char *why) {
  return ic_fail(r->err, IC_EINPUT, "%s: %s %s at byte %zu", r->name, why, r->what,
                 r->base + r->pos);
}
static int rd_u8(rd *r, uint8_t *v) {
  if (r->n - r->pos < 1) return -1;
  *v = r->p[r->pos++];
  return 0;
}
static int rd_u32(rd *r, uint32_t *v) {
  if (r->n - r->pos < 4) return -1;
  const uint8_t *b = r->p + r->pos;
  *v = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
  r->pos += 4;
  return 0;
}
static int rd_u64(rd *r, uint64_t *v) {
  uint32_t lo, hi;
  if (rd_u32(r, &lo) || rd_u32(r, &hi)) return -1;
  *v = (uint64_t)hi << 32 | lo;
  return 0;
}
/* -1 truncated, -2 overlong */
static int rd_var(rd *r, uint64_t *v) {
  uint64_t x = 0;
  for (int k = 0; k < 10; k++) {
    uint8_t b;
    if (rd_u8(r, &b)) return -1;
    if (k == 9 && b > 1) return -2;
    x |= (uint64_t)(b & 0x7f) << (7 * k);
    if (!(b & 0x80)) {
      *v = x;
      return 0;
    }
  }
  return -2;
}

#define NEED(expr)                                                                  \
  do {                                                                              \
    int rc_ = (expr);                                                               \
    if (rc_) return rd_fail(r, rc_ == -2 ? "overlong number in" : "truncated");    \
  } while (0)
#define CHECK(cond, why)                    \
  do {                                      \
    if (!(cond)) return rd_fail(r, why);    \
  } while (0)

static char *rd_str(rd *r, uint32_t n) {
  char *s = malloc((size_t)n + 1);
  if (!s) return NULL;
  memcpy(s, r->p + r->pos, n);
  s[n] = 0;
  r->pos += n;
  return s;
}

static ic_status parse_header(rd *r, sig_file_header *h) {
  uint32_t m;
  r->what = "header";
  NEED(rd_u32(r, &m));
  CHECK(m == SIG_MACHINE_COUNT, "wrong machine parameter count in");
  for (int k = 0; k < SIG_MACHINE_COUNT; k++) {
    uint32_t v;
    NEED(rd_u32(r, &v));
    CHECK(v >= 1 || k == SIG_MP_recovery || k == SIG_MP_tlb_miss, "zero machine parameter in");
    CHECK(v <= 1000000, "machine parameter out of range in");
    *sig_machine_field(&h->machine, k) = v;
  }
  uint32_t kinds;
  NEED(rd_u32(r, &kinds));
  if (kinds != IC_EDGE_KIND_COUNT)
    return ic_fail(r->err, IC_EINPUT,
                   "%s: the samples were recorded with %u edge kinds, this icost's graph has %u "
                   "(record them again)",
                   r->name, kinds, (unsigned)IC_EDGE_KIND_COUNT);
  NEED(rd_u64(r, &h->detail_interval));
  NEED(rd_u64(r, &h->signature_interval));
  NEED(rd_u64(r, &h->seed));
  NEED(rd_u64(r, &h->skip));
  NEED(rd_u64(r, &h->warm));
  NEED(rd_u64(r, &h->max));
  CHECK(h->detail_interval >= 1 && h->signature_interval >= 1, "zero sampling interval in");
  NEED(rd_u32(r, &h->length));
  CHECK(h->length >= 1 && h->length <= SIG_MAX_LENGTH, "fragment length out of range in");
  NEED(rd_u64(r, &h->elf_size));
  NEED(rd_u64(r, &h->elf_hash));
  uint32_t pn;
  NEED(rd_u32(r, &pn));
  CHECK(pn >= 1 && pn <= 4096 && pn <= r->n - r->pos, "program path length out of range in");
  CHECK(!memchr(r->p + r->pos, 0, pn) && r->p[r->pos] == '/', "not an absolute program path in");
  h->program = rd_str(r, pn);
  CHECK(h->program, "out of memory reading");
  uint32_t argc;
  NEED(rd_u32(r, &argc));
  CHECK(argc >= 1 && argc <= 4096, "argument count out of range in");
  h->argv = calloc(argc, sizeof *h->argv);
  CHECK(h->argv, "out of memory reading");
  for (uint32_t i = 0; i < argc; i++) {
    uint32_t n;
    NEED(rd_u32(r, &n));
    CHECK(n <= r->n - r->pos, "truncated");
    CHECK(!memchr(r->p + r->pos, 0, n), "NUL byte in an argument of");
    h->argv[i] = rd_str(r, n);
    CHECK(h->argv[i], "out of memory reading");
    h->argc = (int)i + 1;
  }
  uint32_t yl;
  NEED(rd_u32(r, &yl));
  CHECK(yl <= r->n - r->pos, "truncated");
  CHECK(!memchr(r->p + r->pos, 0, yl), "NUL byte in the config of");
  h->config_yaml = rd_str(r, yl);
  CHECK(h->config_yaml, "out of memory reading");
  uint32_t nov;
  NEED(rd_u32(r, &nov));
  CHECK(nov <= SIG_FILE_MAX_OVERRIDES, "override count out of range in");
  if (nov) {
    h->overrides = calloc(nov, sizeof *h->overrides);
    CHECK(h->overrides, "out of memory reading");
  }
  for (uint32_t i = 0; i < nov; i++) {
    uint32_t n;
    NEED(rd_u32(r, &n));
    CHECK(n >= 1 && n <= r->n - r->pos, "truncated");
    CHECK(!memchr(r->p + r->pos, 0, n) && memchr(r->p + r->pos, '=', n), "not a KEY=VALUE override in");
    h->overrides[i] = rd_str(r, n);
    CHECK(h->overrides[i], "out of memory reading");
    h->noverrides = (int)i + 1;
  }
  CHECK(r->pos == r->n, "trailing bytes in");
  return IC_OK;
}

/* What a detailed sample's item may be: any edge kind but DR and IBW
   (rebuilt by the stitcher, never sampled), with the
   flags the sampler gives it and a distance the graph allows (graph.c's
   record check: an edge from R, or from E but IW and IQ, stays in its instruction, an edge to
   the same or an earlier node comes from an earlier instruction). */
static int kind_ok(uint8_t kind, uint8_t flags, uint64_t dist) {
  if (kind >= IC_EDGE_KIND_COUNT || kind == IC_EDGE_DR || kind == IC_EDGE_IBW) return 0;
  switch (kind) {
  case IC_EDGE_PD: return (flags == 0 || flags == SIG_ITEM_SELF) && dist == 1;
  case IC_EDGE_DD:
  case IC_EDGE_CC: return flags == 0 && dist == 1;
  case IC_EDGE_PR: return flags == IC_EDGE_MEM && dist >= 1;
  case IC_EDGE_IW:
  case IC_EDGE_MSHR: return flags == 0 && dist >= 1;
  default: break;
  }
  if (flags != 0) return 0;
  uint8_t src = ic_edge_src_node[kind], dst = ic_edge_dst_node[kind];
  if ((src == IC_NODE_R || (src == IC_NODE_E && kind != IC_EDGE_IW && kind != IC_EDGE_IQ)) &&
      dist != 0)
    return 0;
  if (src >= dst && dist == 0) return 0;
  return 1;
}

static ic_status parse_detail(rd *r, sig_detail *d) {
  uint64_t v;
  memset(d, 0, sizeof *d);
  NEED(rd_var(r, &d->seq));
  NEED(rd_var(r, &d->pc));
  NEED(rd_var(r, &d->next_pc));
  NEED(rd_var(r, &v));
  CHECK(v <= SIG_MASK42, "signature out of range in");
  d->sig = v;
  NEED(rd_u8(r, &d->opclass));
  CHECK(d->opclass < IC_OP_COUNT, "bad opclass in");
  NEED(rd_u8(r, &d->present));
  CHECK(d->present <= (SIG_HAS_FBW | SIG_HAS_CD | SIG_HAS_CBW), "bad present mask in");
  NEED(rd_u8(r, &d->slot_w));
  NEED(rd_u8(r, &d->slot_p));
  NEED(rd_u8(r, &d->mshr_k));
  CHECK(d->slot_w <= IC_SLOT_RULE_MAX && d->slot_p <= IC_SLOT_RULE_MAX && d->mshr_k <= IC_MSHR_RULE_MAX,
        "rule count out of range in");
  NEED(rd_u8(r, &d->nitems));
  CHECK(d->nitems <= SIG_MAX_ITEMS, "too many items in");
  for (int k = 0; k < d->nitems; k++) {
    ic_edge *e = &d->item[k];
    NEED(rd_u8(r, &e->kind));
    NEED(rd_u8(r, &e->flags));
    NEED(rd_u8(r, &e->keep));
    NEED(rd_u8(r, &e->nparts));
    NEED(rd_var(r, &v));
    CHECK(v <= (UINT64_C(1) << 31), "distance out of range in");
    CHECK(kind_ok(e->kind, e->flags, v), "bad item kind, flags or distance in");
    CHECK(!(e->keep & ~dg_edge_drop_mask(e->kind)), "bad item keep mask in");
    e->dist = (uint32_t)v;
    CHECK(e->nparts <= IC_MAX_PARTS, "too many latency parts in");
    uint64_t sum = 0;
    for (int q = 0; q < e->nparts; q++) {
      uint8_t cat;
      NEED(rd_u8(r, &cat));
      CHECK(cat < IC_CAT_COUNT || cat == IC_CAT_NONE, "bad category in");
      NEED(rd_var(r, &v));
      CHECK(v <= (1u << 20), "latency out of range in");
      sum += v;
      ic_part_set(&e->part[q], v, cat);
    }
    CHECK(sum <= (1u << 20), "latency out of range in");
  }
  return IC_OK;
}

static ic_status parse_skeleton(rd *r, sig_skeleton *s, uint8_t *bits) {
  uint64_t v;
  NEED(rd_var(r, &s->seq));
  NEED(rd_var(r, &s->start_pc));
  NEED(rd_var(r, &v));
  CHECK(v >= 1 && v <= SIG_MAX_LENGTH, "signature sample length out of range in");
  s->n = (uint32_t)v;
  NEED(rd_u8(r, &s->flags));
  CHECK(s->flags <= SIG_SK_RUN_START, "unknown signature sample flags in");
  size_t nb = (s->n + 3) / 4;
  CHECK(nb <= r->n - r->pos, "truncated");
  for (uint32_t k = 0; k < s->n; k++) bits[k] = (r->p[r->pos + k / 4] >> (2 * (k % 4))) & 3u;
  if (s->n % 4) CHECK((r->p[r->pos + nb - 1] >> (2 * (s->n % 4))) == 0, "nonzero padding in");
  r->pos += nb;
  s->bits = bits;
  return IC_OK;
}

ic_status sig_file_parse(const uint8_t *buf, size_t len, const char *name, sig_file_header *h,
                         sig_out out, sig_file_totals *tot, ic_err *err) {
  memset(h, 0, sizeof *h);
  sig_file_totals t = {0};
  rd top = {buf, len, 0, 0, name, "file header", err};
  rd *r = &top;
  CHECK(len >= 8 && memcmp(buf, SIG_FILE_MAGIC, 8) == 0, "not a sample file: bad magic in");
  r->pos = 8;
  uint32_t hl;
  uint64_t hsum;
  NEED(rd_u32(r, &h->version));
  /* why each earlier version cannot be read */
  static const char *const older[] = {
      NULL,
      "recorded before the MSHR edge (its graphs would lack it)",
      "recorded without the I-cache line size (the stitcher needs it to tell I-cache misses)",
      "recorded before the IW (issue slot) edge",
      "recorded without the machine's functional unit counts (the stitcher needs them for "
      "the issue slots of each pool)",
      "recorded before the MSHR and IQ rules (its graphs would lack them; the stitcher needs "
      "the IQ's size)",
      "uncompressed and without the program's absolute path",
      "recorded without the machine's --set overrides (analyze reports them)",
      "recorded with the slot and MSHR rules as edges (they are fields of the record now)",
  };
  _Static_assert(sizeof older / sizeof *older == SIG_FILE_VERSION, "a reason per older version");
  if (h->version >= 1 && h->version < SIG_FILE_VERSION)
    return ic_fail(err, IC_EINPUT,
                   "%s: sample file version %u, %s; this icost reads version %u: record the "
                   "samples again",
                   name, h->version, older[h->version], SIG_FILE_VERSION);
  if (h->version != SIG_FILE_VERSION)
    return ic_fail(err, IC_EINPUT, "%s: sample file version %u, this icost reads version %u",
                   name, h->version, SIG_FILE_VERSION);
  NEED(rd_u32(r, &hl));
  NEED(rd_u64(r, &hsum));
  CHECK(hl <= SIG_FILE_MAX_PAYLOAD && hl <= len - r->pos, "truncated");
  CHECK(sig_fnv(SIG_FNV_INIT, buf + r->pos, hl) == hsum, "checksum mismatch in");
  rd hr = {buf + r->pos, hl, 0, r->pos, name, "header", err};
  ic_status st = parse_header(&hr, h);
  if (st != IC_OK) return st;
  r->pos += hl;
  uint8_t *bits = malloc(SIG_MAX_LENGTH);
  /* a block's payload, decompressed (grown to the largest block) */
  size_t zcap = 1u << 16;
  uint8_t *zbuf = malloc(zcap);
  if (!bits || !zbuf) {
    free(bits);
    free(zbuf);
    return ic_fail(err, IC_ERUN, "%s: out of memory", name);
  }
  int ended = 0;
  while (st == IC_OK && r->pos < len) {
    r->what = "block header";
    if (ended) {
      st = rd_fail(r, "data after the end block:");
      break;
    }
    uint32_t type, count, zl, pl;
    uint64_t sum;
    if (rd_u32(r, &type) || rd_u32(r, &count) || rd_u32(r, &zl) || rd_u32(r, &pl) ||
        rd_u64(r, &sum)) {
      st = rd_fail(r, "truncated");
      break;
    }
    if (type < BLK_DETAIL || type > BLK_END) {
      st = rd_fail(r, "bad type in");
      break;
    }
    if (zl > ZSTD_compressBound(SIG_FILE_MAX_PAYLOAD) || zl > len - r->pos) {
      st = rd_fail(r, "truncated block: payload length beyond the end, in");
      break;
    }
    if (pl > SIG_FILE_MAX_PAYLOAD) {
      st = rd_fail(r, "block too large in");
      break;
    }
    if (sig_fnv(SIG_FNV_INIT, buf + r->pos, zl) != sum) {
      st = rd_fail(r, "checksum mismatch in the block after");
      break;
    }
    /* the payload: one zstd frame that holds exactly pl bytes */
    const unsigned long long fcs = ZSTD_getFrameContentSize(buf + r->pos, zl);
    size_t got = 0;
    if (fcs == pl && pl > zcap) {
      uint8_t *nz = realloc(zbuf, pl);
      if (!nz) {
        st = ic_fail(err, IC_ERUN, "%s: out of memory", name);
        break;
      }
      zbuf = nz;
      zcap = pl;
    }
    if (fcs == pl) got = ZSTD_decompress(zbuf, zcap, buf + r->pos, zl);
    if (fcs != pl || ZSTD_isError(got) || got != pl) {
      st = rd_fail(r, "corrupt compressed block after");
      break;
    }
    const size_t at = r->pos;
    r->pos += zl;
    rd b = {zbuf, pl, 0, at, name, "", err};
    if (type == BLK_END) {
      b.what = "end block";
      uint64_t d, s, n;
      if (count != 0 || pl != 24 || rd_u64(&b, &d) || rd_u64(&b, &s) || rd_u64(&b, &n)) {
        st = rd_fail(&b, "malformed");
        break;
      }
      if (d != t.details || s != t.skeletons) {
        st = rd_fail(&b, "sample totals do not match the blocks:");
        break;
      }
      t.instructions = n;
      ended = 1;
    } else {
      if (count == 0) {
        st = rd_fail(r, "empty block before");
        break;
      }
      for (uint32_t k = 0; k < count && st == IC_OK; k++) {
        if (type == BLK_DETAIL) {
          sig_detail d;
          b.what = "detailed sample";
          st = parse_detail(&b, &d);
          if (st == IC_OK && out.detail) st = out.detail(out.ctx, &d, err);
          t.details++;
        } else {
          sig_skeleton s;
          b.what = "signature sample";
          st = parse_skeleton(&b, &s, bits);
          if (st == IC_OK && out.skeleton) st = out.skeleton(out.ctx, &s, err);
          t.skeletons++;
        }
      }
      if (st == IC_OK && b.pos != b.n) {
        b.what = "block";
        st = rd_fail(&b, "trailing bytes in");
      }
    }
  }
  free(bits);
  free(zbuf);
  if (st == IC_OK && !ended)
    st = ic_fail(err, IC_EINPUT, "%s: truncated: no end block (the file is incomplete)", name);
  if (st == IC_OK && tot) *tot = t;
  return st;
}

ic_status sig_file_read(const char *path, sig_file_header *h, sig_out out, sig_file_totals *tot,
                        ic_err *err) {
  memset(h, 0, sizeof *h);
  FILE *f;
  ic_status ost = ic_file_open_regular(&f, path, err);
  if (ost != IC_OK) return ost;
  struct stat sb;
  if (fstat(fileno(f), &sb) != 0) {
    fclose(f);
    return ic_fail(err, IC_EINPUT, "%s: %s", path, strerror(errno));
  }
  size_t len = (size_t)sb.st_size;
  uint8_t *buf = malloc(len ? len : 1);
  if (!buf) {
    fclose(f);
    return ic_fail(err, IC_ERUN, "%s: out of memory (%zu bytes)", path, len);
  }
  size_t got = fread(buf, 1, len, f);
  fclose(f);
  if (got != len) {
    free(buf);
    return ic_fail(err, IC_EINPUT, "%s: read error", path);
  }
  ic_status st = sig_file_parse(buf, len, path, h, out, tot, err);
  free(buf);
  return st;
}
