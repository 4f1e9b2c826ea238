/* trace.c: icost trace files (see trace.h for the format). */
#include "trace.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include <pthread.h>

#include "host.h"
#include "rv.h"

static const char MAGIC[8] = {'I', 'C', 'O', 'S', 'T', 'T', 'R', 'C'};
#define FILE_HDR 24
#define BLOCK_HDR 32
#define REC_MAX 40         /* bytes of one encoded record at most */
#define CODE_BLOCK (1u << 20) /* image bytes per 'C' block */
#define MAX_NAME 4096

enum { K_CODE = 'C', K_PTRS = 'P', K_INSTS = 'N', K_END = 'E' };
enum { F_PC = 1, F_NEXT = 2, F_MEM = 4, F_RMW = 8 };

static void put32(uint8_t *b, uint32_t v) {
  for (int i = 0; i < 4; i++) b[i] = (uint8_t)(v >> 8 * i);
}
static void put64(uint8_t *b, uint64_t v) {
  for (int i = 0; i < 8; i++) b[i] = (uint8_t)(v >> 8 * i);
}
static uint32_t get32(const uint8_t *b) {
  return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}
static uint64_t get64(const uint8_t *b) { return get32(b) | (uint64_t)get32(b + 4) << 32; }
static uint32_t crc(const uint8_t *b, size_t n) {
  uLong c = crc32(0L, Z_NULL, 0);
  while (n) { /* crc32 takes a uInt length */
    uInt k = n > (1u << 30) ? (1u << 30) : (uInt)n;
    c = crc32(c, b, k);
    b += k;
    n -= k;
  }
  return (uint32_t)c;
}

static size_t put_varint(uint8_t *b, int64_t sv) {
  uint64_t v = ((uint64_t)sv << 1) ^ (uint64_t)(sv >> 63); /* zigzag */
  size_t n = 0;
  while (v >= 0x80) {
    b[n++] = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  b[n++] = (uint8_t)v;
  return n;
}

/* Reads a zigzag varint from [*p, end); -1 if it runs past end or is longer
   than 64 bits. */
static int get_varint(const uint8_t **p, const uint8_t *end, int64_t *out) {
  uint64_t v = 0;
  for (int shift = 0; shift < 64; shift += 7) {
    if (*p >= end) return -1;
    uint8_t b = *(*p)++;
    if (shift == 63 && b > 1) return -1;
    v |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) {
      *out = (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
      return 0;
    }
  }
  return -1;
}

static int reg_ok(uint8_t r) { return r < IC_REG_COUNT || r == IC_REG_NONE; }

/* ================================ writer ================================ */

struct ic_trace_writer {
  FILE *f;
  char *path, *tmp;
  uint32_t isa;
  int have_ptrs;
  uint64_t count, bytes;
  ic_inst *buf; /* the block being filled */
  size_t nbuf;
  uint8_t *raw, *z;
  size_t zcap;
};

static ic_status w_io(ic_trace_writer *w, ic_err *err) {
  return ic_fail(err, IC_ERUN, "%s: cannot write: %s", w->path, strerror(errno ? errno : EIO));
}

static ic_status w_block(ic_trace_writer *w, uint32_t kind, uint32_t count, uint64_t first,
                         const void *raw, size_t rawlen, ic_err *err) {
  size_t need = ZSTD_compressBound(rawlen);
  if (need > w->zcap) {
    uint8_t *z = realloc(w->z, need);
    if (!z) return ic_fail(err, IC_ERUN, "%s: out of memory", w->path);
    w->z = z;
    w->zcap = need;
  }
  size_t zlen = ZSTD_compress(w->z, w->zcap, raw, rawlen, 3);
  if (ZSTD_isError(zlen))
    return ic_fail(err, IC_ERUN, "%s: zstd: %s", w->path, ZSTD_getErrorName(zlen));
  uint8_t h[BLOCK_HDR];
  put32(h, kind);
  put32(h + 4, count);
  put64(h + 8, first);
  put32(h + 16, (uint32_t)zlen);
  put32(h + 20, (uint32_t)rawlen);
  put32(h + 24, crc(w->z, zlen));
  put32(h + 28, crc(h, 28));
  errno = 0;
  if (fwrite(h, 1, BLOCK_HDR, w->f) != BLOCK_HDR || fwrite(w->z, 1, zlen, w->f) != zlen)
    return w_io(w, err);
  w->bytes += BLOCK_HDR + zlen;
  return IC_OK;
}

ic_status ic_trace_writer_open(ic_trace_writer **out, const char *path, uint32_t isa, ic_err *err) {
  *out = NULL;
  ic_trace_writer *w = calloc(1, sizeof *w);
  if (!w) return ic_fail(err, IC_ERUN, "%s: out of memory", path);
  w->isa = isa;
  w->path = strdup(path);
  w->tmp = malloc(strlen(path) + 5);
  w->buf = malloc(IC_TRACE_BLOCK * sizeof *w->buf);
  w->raw = malloc((size_t)IC_TRACE_BLOCK * REC_MAX);
  if (!w->path || !w->tmp || !w->buf || !w->raw) {
    ic_trace_writer_abort(w);
    return ic_fail(err, IC_ERUN, "%s: out of memory", path);
  }
  sprintf(w->tmp, "%s.tmp", path);
  w->f = fopen(w->tmp, "wb");
  if (!w->f) {
    ic_status st = ic_fail(err, IC_EINPUT, "%s: cannot create: %s", w->tmp, strerror(errno));
    ic_trace_writer_abort(w);
    return st;
  }
  uint8_t h[FILE_HDR];
  memcpy(h, MAGIC, 8);
  put32(h + 8, IC_TRACE_VERSION);
  put32(h + 12, isa);
  put32(h + 16, 0);
  put32(h + 20, crc(h, 20));
  errno = 0;
  if (fwrite(h, 1, FILE_HDR, w->f) != FILE_HDR) {
    ic_status st = w_io(w, err);
    ic_trace_writer_abort(w);
    return st;
  }
  w->bytes = FILE_HDR;
  *out = w;
  return IC_OK;
}

ic_status ic_trace_write_code(ic_trace_writer *w, uint64_t addr, const uint8_t *bytes, size_t len,
                              ic_err *err) {
  while (len) {
    size_t n = len > CODE_BLOCK ? CODE_BLOCK : len;
    ic_status st = w_block(w, K_CODE, (uint32_t)n, addr, bytes, n, err);
    if (st) return st;
    addr += n, bytes += n, len -= n;
  }
  return IC_OK;
}

ic_status ic_trace_write_code_pointers(ic_trace_writer *w, const uint64_t *ptrs, size_t n,
                                       ic_err *err) {
  if (w->have_ptrs) return ic_fail(err, IC_ERUN, "%s: code pointers written twice", w->path);
  if (n > UINT32_MAX / 8) return ic_fail(err, IC_ERUN, "%s: too many code pointers", w->path);
  uint8_t *raw = malloc(n * 8 + 1);
  if (!raw) return ic_fail(err, IC_ERUN, "%s: out of memory", w->path);
  for (size_t k = 0; k < n; k++) put64(raw + 8 * k, ptrs[k]);
  ic_status st = w_block(w, K_PTRS, (uint32_t)n, 0, raw, n * 8, err);
  free(raw);
  w->have_ptrs = 1;
  return st;
}

static ic_status flush_insts(ic_trace_writer *w, ic_err *err) {
  if (!w->nbuf) return IC_OK;
  uint8_t *b = w->raw;
  uint64_t prev_next = 0, prev_mem = 0;
  for (size_t k = 0; k < w->nbuf; k++) {
    const ic_inst *in = &w->buf[k];
    uint8_t flags = 0;
    if (in->pc != prev_next) flags |= F_PC;
    if (in->next_pc != in->pc + in->size) flags |= F_NEXT;
    if (in->mem_size) flags |= F_MEM;
    if (in->is_mem_rmw) flags |= F_RMW;
    *b++ = flags;
    *b++ = in->size;
    *b++ = in->opclass;
    for (int s = 0; s < IC_MAX_SRC; s++) *b++ = in->src[s];
    *b++ = in->dst[0];
    if (flags & F_PC) b += put_varint(b, (int64_t)(in->pc - prev_next));
    if (flags & F_NEXT) b += put_varint(b, (int64_t)(in->next_pc - (in->pc + in->size)));
    if (flags & F_MEM) {
      *b++ = in->mem_size;
      b += put_varint(b, (int64_t)(in->mem_addr - prev_mem));
      prev_mem = in->mem_addr;
    }
    prev_next = in->next_pc;
  }
  ic_status st = w_block(w, K_INSTS, (uint32_t)w->nbuf, w->count, w->raw, (size_t)(b - w->raw), err);
  w->count += w->nbuf;
  w->nbuf = 0;
  return st;
}

ic_status ic_trace_write(ic_trace_writer *w, const ic_inst *recs, size_t n, ic_err *err) {
  for (size_t k = 0; k < n; k++) {
    const ic_inst *in = &recs[k];
    /* the writer stores what the reader accepts, nothing else */
    int ok = in->opclass < IC_OP_COUNT && in->size && in->size <= 15 && in->mem_size <= 64 &&
             (in->mem_size || !in->mem_addr) && reg_ok(in->dst[0]);
    for (int s = 0; s < IC_MAX_SRC; s++) ok &= reg_ok(in->src[s]);
    if (!ok)
      return ic_fail(err, IC_ERUN, "%s: record %llu has a bad field", w->path,
                     (unsigned long long)(w->count + w->nbuf));
    w->buf[w->nbuf++] = *in;
    if (w->nbuf == IC_TRACE_BLOCK) {
      ic_status st = flush_insts(w, err);
      if (st) return st;
    }
  }
  return IC_OK;
}

uint64_t ic_trace_writer_bytes(const ic_trace_writer *w) { return w->bytes; }

ic_status ic_trace_writer_close(ic_trace_writer *w, int end, int exit_code, const char *name,
                                ic_err *err) {
  ic_status st = IC_OK;
  if (!w->have_ptrs) st = ic_trace_write_code_pointers(w, NULL, 0, err);
  if (!st) st = flush_insts(w, err);
  if (!st) {
    size_t nl = name ? strlen(name) : 0;
    if (nl > MAX_NAME) nl = MAX_NAME;
    uint8_t payload[4 + MAX_NAME];
    put32(payload, (uint32_t)exit_code);
    if (nl) memcpy(payload + 4, name, nl);
    st = w_block(w, K_END, (uint32_t)end, w->count, payload, 4 + nl, err);
  }
  if (!st) {
    errno = 0;
    int bad = fflush(w->f) != 0 || ferror(w->f);
    bad |= fclose(w->f) != 0;
    w->f = NULL;
    if (bad) st = w_io(w, err);
    else if (rename(w->tmp, w->path) != 0)
      st = ic_fail(err, IC_ERUN, "%s: cannot rename %s into place: %s", w->path, w->tmp,
                   strerror(errno));
  }
  if (st) {
    ic_trace_writer_abort(w);
    return st;
  }
  free(w->path);
  free(w->tmp);
  free(w->buf);
  free(w->raw);
  free(w->z);
  free(w);
  return IC_OK;
}

void ic_trace_writer_abort(ic_trace_writer *w) {
  if (!w) return;
  if (w->f) fclose(w->f);
  if (w->tmp) remove(w->tmp);
  free(w->path);
  free(w->tmp);
  free(w->buf);
  free(w->raw);
  free(w->z);
  free(w);
}

/* ================================ reader ================================ */

typedef struct seg {
  uint64_t addr;
  size_t len;
  uint8_t *bytes;
} seg;

typedef struct iblock {
  uint64_t first;
  uint32_t count, zlen, rawlen, zcrc;
  long off; /* file offset of the zstd frame */
} iblock;

struct ic_trace {
  char *path;
  uint32_t isa;
  seg *segs;
  size_t nsegs;
  uint64_t *ptrs;
  size_t nptrs;
  iblock *blocks;
  size_t nblocks;
  uint64_t count;
  int end, exit_code;
  char *name;
  ic_host_decoder *dec; /* x86-64 and AArch64 images */
  pthread_mutex_t dec_lock;
};

static ic_status bad(ic_err *err, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static ic_status bad(ic_err *err, const char *path, const char *fmt, ...) {
  char why[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  return ic_fail(err, IC_EINPUT, "%s: %s", path, why);
}

int ic_trace_is_trace(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  char m[8];
  int yes = fread(m, 1, 8, f) == 8 && memcmp(m, MAGIC, 8) == 0;
  fclose(f);
  return yes;
}

/* Decompresses a frame of exactly rawlen bytes into out. */
static int unz(const uint8_t *z, size_t zlen, uint8_t *out, size_t rawlen) {
  size_t n = ZSTD_decompress(out, rawlen ? rawlen : 1, z, zlen);
  return !ZSTD_isError(n) && n == rawlen ? 0 : -1;
}

static int seg_cmp(const void *a, const void *b) {
  const seg *x = a, *y = b;
  return x->addr < y->addr ? -1 : x->addr > y->addr;
}

ic_status ic_trace_open(ic_trace **out, const char *path, ic_err *err) {
  *out = NULL;
  FILE *f = fopen(path, "rb");
  if (!f) return bad(err, path, "cannot open: %s", strerror(errno));
  ic_status st = IC_OK;
  ic_trace *t = calloc(1, sizeof *t);
  uint8_t *z = NULL, *raw = NULL;
  if (!t || !(t->path = strdup(path))) {
    st = ic_fail(err, IC_ERUN, "%s: out of memory", path);
    goto fail;
  }
  uint8_t h[FILE_HDR];
  size_t got = fread(h, 1, FILE_HDR, f);
  if (got < 8 || memcmp(h, MAGIC, 8) != 0) {
    st = bad(err, path, "not an icost trace file (no ICOSTTRC magic)");
    goto fail;
  }
  if (got < FILE_HDR) {
    st = bad(err, path, "truncated in the file header");
    goto fail;
  }
  if (get32(h + 20) != crc(h, 20)) {
    st = bad(err, path, "file header checksum mismatch (corrupted)");
    goto fail;
  }
  if (get32(h + 8) != IC_TRACE_VERSION) {
    st = bad(err, path, "trace format version %u, this icost reads version %d", get32(h + 8),
             IC_TRACE_VERSION);
    goto fail;
  }
  t->isa = get32(h + 12);
  if (t->isa < IC_ISA_RV64 || t->isa > IC_ISA_AARCH64 || get32(h + 16) != 0) {
    st = bad(err, path, "unknown isa %u or flags %u in the file header", t->isa, get32(h + 16));
    goto fail;
  }
  size_t segcap = 0, blkcap = 0, zcap = 0;
  int have_ptrs = 0, have_end = 0;
  long off = FILE_HDR;
  for (;;) {
    uint8_t bh[BLOCK_HDR];
    got = fread(bh, 1, BLOCK_HDR, f);
    if (got == 0 && feof(f)) {
      st = bad(err, path, "truncated: no end block after %llu instructions",
               (unsigned long long)t->count);
      goto fail;
    }
    if (got < BLOCK_HDR) {
      st = bad(err, path, "truncated in a block header at byte %ld", off);
      goto fail;
    }
    if (get32(bh + 28) != crc(bh, 28)) {
      st = bad(err, path, "block header checksum mismatch at byte %ld (corrupted)", off);
      goto fail;
    }
    uint32_t kind = get32(bh), count = get32(bh + 4), zlen = get32(bh + 16),
             rawlen = get32(bh + 20), zcrc = get32(bh + 24);
    uint64_t first = get64(bh + 8);
    off += BLOCK_HDR;
    /* sizes a writer of this version can produce */
    uint64_t maxraw = kind == K_CODE ? CODE_BLOCK
                      : kind == K_PTRS ? (uint64_t)count * 8
                      : kind == K_INSTS ? (uint64_t)IC_TRACE_BLOCK * REC_MAX
                      : 4 + MAX_NAME;
    if (rawlen > maxraw || zlen > ZSTD_compressBound(maxraw) + 64) {
      st = bad(err, path, "block at byte %ld: implausible sizes (%u compressed, %u raw)",
               off - BLOCK_HDR, zlen, rawlen);
      goto fail;
    }
    if (zlen > zcap) {
      uint8_t *nz = realloc(z, zlen);
      if (!nz) {
        st = ic_fail(err, IC_ERUN, "%s: out of memory", path);
        goto fail;
      }
      z = nz, zcap = zlen;
    }
    if (fread(z, 1, zlen, f) != zlen) {
      st = bad(err, path, "truncated in the block at byte %ld", off - BLOCK_HDR);
      goto fail;
    }
    if (crc(z, zlen) != zcrc) {
      st = bad(err, path, "block at byte %ld: checksum mismatch (corrupted)", off - BLOCK_HDR);
      goto fail;
    }
    const long zoff = off;
    off += zlen;
    if (kind == K_CODE) {
      if (count != rawlen || count == 0 ||
          first + count < first || first + count > (1ull << 57)) {
        st = bad(err, path, "code block at byte %ld out of place or of bad extent", zoff - BLOCK_HDR);
        goto fail;
      }
      if (t->nsegs == segcap) {
        segcap = segcap ? 2 * segcap : 8;
        seg *ns = realloc(t->segs, segcap * sizeof *ns);
        if (!ns) {
          st = ic_fail(err, IC_ERUN, "%s: out of memory", path);
          goto fail;
        }
        t->segs = ns;
      }
      seg *s = &t->segs[t->nsegs];
      if (!(s->bytes = malloc(rawlen))) {
        st = ic_fail(err, IC_ERUN, "%s: out of memory", path);
        goto fail;
      }
      s->addr = first;
      s->len = rawlen;
      t->nsegs++;
      if (unz(z, zlen, s->bytes, rawlen)) {
        st = bad(err, path, "code block at byte %ld does not decompress", zoff - BLOCK_HDR);
        goto fail;
      }
    } else if (kind == K_PTRS) {
      if (have_ptrs || rawlen != (uint64_t)count * 8 || first != 0) {
        st = bad(err, path, "code pointer block at byte %ld out of place or of bad size",
                 zoff - BLOCK_HDR);
        goto fail;
      }
      raw = malloc(rawlen + 1);
      t->ptrs = malloc((size_t)count * sizeof *t->ptrs + 1);
      if (!raw || !t->ptrs) {
        st = ic_fail(err, IC_ERUN, "%s: out of memory", path);
        goto fail;
      }
      if (unz(z, zlen, raw, rawlen)) {
        st = bad(err, path, "code pointer block does not decompress");
        goto fail;
      }
      for (uint32_t k = 0; k < count; k++) {
        t->ptrs[k] = get64(raw + 8 * k);
        if (k && t->ptrs[k] <= t->ptrs[k - 1]) {
          st = bad(err, path, "code pointers not ascending");
          goto fail;
        }
      }
      t->nptrs = count;
      free(raw);
      raw = NULL;
      have_ptrs = 1;
    } else if (kind == K_INSTS) {
      if (count == 0 || count > IC_TRACE_BLOCK || first != t->count ||
          rawlen < (uint64_t)count * 7) {
        st = bad(err, path, "instruction block at byte %ld out of order or of bad size",
                 zoff - BLOCK_HDR);
        goto fail;
      }
      if (t->nblocks == blkcap) {
        blkcap = blkcap ? 2 * blkcap : 64;
        iblock *nb = realloc(t->blocks, blkcap * sizeof *nb);
        if (!nb) {
          st = ic_fail(err, IC_ERUN, "%s: out of memory", path);
          goto fail;
        }
        t->blocks = nb;
      }
      t->blocks[t->nblocks++] = (iblock){first, count, zlen, rawlen, zcrc, zoff};
      t->count += count;
    } else if (kind == K_END) {
      if (!have_ptrs || first != t->count || rawlen < 4 ||
          (count != IC_TRACE_END_EXIT && count != IC_TRACE_END_MAX)) {
        st = bad(err, path, "end block at byte %ld does not match the trace (%llu instructions)",
                 zoff - BLOCK_HDR, (unsigned long long)t->count);
        goto fail;
      }
      raw = malloc(rawlen + 1);
      if (!raw) {
        st = ic_fail(err, IC_ERUN, "%s: out of memory", path);
        goto fail;
      }
      if (unz(z, zlen, raw, rawlen)) {
        st = bad(err, path, "end block does not decompress");
        goto fail;
      }
      t->end = (int)count;
      t->exit_code = (int)get32(raw);
      raw[rawlen] = 0;
      for (uint32_t k = 4; k < rawlen; k++)
        if (raw[k] == 0 || raw[k] == '\n') raw[k] = '?';
      if (!(t->name = strdup((char *)raw + 4))) {
        st = ic_fail(err, IC_ERUN, "%s: out of memory", path);
        goto fail;
      }
      free(raw);
      raw = NULL;
      have_end = 1;
      break;
    } else {
      st = bad(err, path, "unknown block kind 0x%x at byte %ld", kind, zoff - BLOCK_HDR);
      goto fail;
    }
  }
  if (have_end && fgetc(f) != EOF) {
    st = bad(err, path, "bytes after the end block");
    goto fail;
  }
  if (ferror(f)) {
    st = ic_fail(err, IC_ERUN, "%s: read error", path);
    goto fail;
  }
  if (t->isa == IC_ISA_X86_64 || t->isa == IC_ISA_AARCH64) {
    if ((st = ic_host_decoder_create(&t->dec, t->isa, err)) != IC_OK) goto fail;
    pthread_mutex_init(&t->dec_lock, NULL);
  }
  qsort(t->segs, t->nsegs, sizeof *t->segs, seg_cmp);
  for (size_t k = 1; k < t->nsegs; k++)
    if (t->segs[k].addr < t->segs[k - 1].addr + t->segs[k - 1].len) {
      st = bad(err, path, "overlapping code blocks");
      goto fail;
    }
  fclose(f);
  free(z);
  *out = t;
  return IC_OK;
fail:
  fclose(f);
  free(z);
  free(raw);
  ic_trace_close(t);
  return st;
}

void ic_trace_close(ic_trace *t) {
  if (!t) return;
  for (size_t k = 0; k < t->nsegs; k++) free(t->segs[k].bytes);
  if (t->dec) {
    ic_host_decoder_destroy(t->dec);
    pthread_mutex_destroy(&t->dec_lock);
  }
  free(t->segs);
  free(t->ptrs);
  free(t->blocks);
  free(t->name);
  free(t->path);
  free(t);
}

uint64_t ic_trace_count(const ic_trace *t) { return t->count; }
uint32_t ic_trace_isa(const ic_trace *t) { return t->isa; }
const char *ic_trace_name(const ic_trace *t) { return t->name; }
const char *ic_trace_path(const ic_trace *t) { return t->path; }
int ic_trace_end(const ic_trace *t, int *exit_code) {
  if (exit_code) *exit_code = t->exit_code;
  return t->end;
}

/* Copies n image bytes at addr; -1 unless every byte is in the image. */
static int code_read(const ic_trace *t, uint64_t addr, uint8_t *buf, size_t n) {
  while (n) {
    size_t lo = 0, hi = t->nsegs; /* the last segment starting at or below addr */
    while (lo < hi) {
      size_t mid = (lo + hi) / 2;
      if (t->segs[mid].addr <= addr) lo = mid + 1;
      else hi = mid;
    }
    if (lo == 0) return -1;
    const seg *s = &t->segs[lo - 1];
    if (addr - s->addr >= s->len) return -1;
    size_t k = s->len - (size_t)(addr - s->addr);
    if (k > n) k = n;
    memcpy(buf, s->bytes + (addr - s->addr), k);
    buf += k, addr += k, n -= k;
  }
  return 0;
}

static int image_lookup(void *ctx, uint64_t pc, ic_static_inst *out) {
  ic_trace *t = ctx;
  memset(out, 0, sizeof *out);
  if (t->isa == IC_ISA_RV64) {
    uint8_t b[4] = {0};
    if ((pc & 1) || code_read(t, pc, b, 2)) return 0;
    if ((b[0] & 3) == 3 && code_read(t, pc + 2, b + 2, 2)) return 0;
    return rv_decode_static(get32(b), pc, out);
  }
  if (t->dec) {
    uint8_t b[16];
    size_t n = 0;
    while (n < 16 && code_read(t, pc + n, b + n, 1) == 0) n++;
    if (!n) return 0;
    pthread_mutex_lock(&t->dec_lock);
    int r = ic_host_decode_static(t->dec, b, n, pc, out);
    pthread_mutex_unlock(&t->dec_lock);
    return r;
  }
  return 0;
}

static size_t image_code_pointers(void *ctx, const uint64_t **out) {
  const ic_trace *t = ctx;
  *out = t->ptrs;
  return t->nptrs;
}

int ic_trace_image_disasm(ic_program_image img, uint64_t pc, char *buf, size_t cap) {
  if (img.lookup != image_lookup) return 0;
  ic_trace *t = img.ctx;
  if (!t->dec) return 0;
  uint8_t b[16];
  size_t n = 0;
  while (n < 16 && code_read(t, pc + n, b + n, 1) == 0) n++;
  pthread_mutex_lock(&t->dec_lock);
  if (!n) snprintf(buf, cap, "?");
  else ic_host_disasm(t->dec, b, n, pc, buf, cap);
  pthread_mutex_unlock(&t->dec_lock);
  return 1;
}

ic_program_image ic_trace_image(ic_trace *t) {
  ic_program_image im = {t, image_lookup, image_code_pointers};
  return im;
}

/* ============================ image only ============================ */

ic_status ic_trace_image_create(ic_trace **out, uint32_t isa, const char *name, ic_err *err) {
  *out = NULL;
  ic_trace *t = calloc(1, sizeof *t);
  if (!t || !(t->path = strdup(name)) || !(t->name = strdup(name))) {
    ic_trace_close(t);
    return ic_fail(err, IC_ERUN, "%s: out of memory", name);
  }
  t->isa = isa;
  if (isa == IC_ISA_X86_64 || isa == IC_ISA_AARCH64) {
    ic_status st = ic_host_decoder_create(&t->dec, isa, err);
    if (st != IC_OK) {
      ic_trace_close(t);
      return st;
    }
    pthread_mutex_init(&t->dec_lock, NULL);
  }
  *out = t;
  return IC_OK;
}

ic_status ic_trace_image_add(ic_trace *t, uint64_t addr, const uint8_t *bytes, size_t len,
                             ic_err *err) {
  if (!len) return IC_OK;
  if (t->nsegs) { /* code_read's binary search needs them ascending, apart */
    const seg *last = &t->segs[t->nsegs - 1];
    if (addr < last->addr + last->len)
      return ic_fail(err, IC_ERUN, "%s: image code at 0x%llx out of order", t->path,
                     (unsigned long long)addr);
  }
  seg *ns = realloc(t->segs, (t->nsegs + 1) * sizeof *ns);
  if (!ns) return ic_fail(err, IC_ERUN, "%s: out of memory", t->path);
  t->segs = ns;
  seg *sg = &t->segs[t->nsegs];
  if (!(sg->bytes = malloc(len))) return ic_fail(err, IC_ERUN, "%s: out of memory", t->path);
  memcpy(sg->bytes, bytes, len);
  sg->addr = addr;
  sg->len = len;
  t->nsegs++;
  return IC_OK;
}

/* ================================ cursor ================================ */

struct ic_trace_cursor {
  const ic_trace *t;
  FILE *f;
  size_t block;   /* next block to decode */
  ic_inst *recs;  /* the decoded block */
  size_t n, pos;  /* records in recs, next to hand out */
  uint8_t *z, *raw;
  ic_status st;
  ic_err err;
};

/* Decodes block c->block into c->recs. */
static ic_status decode_block(ic_trace_cursor *c) {
  const ic_trace *t = c->t;
  const iblock *b = &t->blocks[c->block];
  const char *path = t->path;
  if (fseek(c->f, b->off, SEEK_SET) != 0 || fread(c->z, 1, b->zlen, c->f) != b->zlen)
    return bad(&c->err, path, "instruction block %zu cannot be read (file changed?)", c->block);
  if (crc(c->z, b->zlen) != b->zcrc)
    return bad(&c->err, path, "instruction block %zu: checksum mismatch (file changed?)", c->block);
  if (unz(c->z, b->zlen, c->raw, b->rawlen))
    return bad(&c->err, path, "instruction block %zu does not decompress", c->block);
  const uint8_t *p = c->raw, *end = c->raw + b->rawlen;
  uint64_t prev_next = 0, prev_mem = 0;
  for (uint32_t k = 0; k < b->count; k++) {
    ic_inst *in = &c->recs[k];
    const uint64_t num = b->first + k;
    if (end - p < 7) return bad(&c->err, path, "instruction %llu: record cut short", (unsigned long long)num);
    uint8_t flags = *p++;
    in->size = *p++;
    in->opclass = *p++;
    for (int s = 0; s < IC_MAX_SRC; s++) in->src[s] = *p++;
    in->dst[0] = *p++;
    in->is_mem_rmw = !!(flags & F_RMW);
    if (flags & ~(F_PC | F_NEXT | F_MEM | F_RMW))
      return bad(&c->err, path, "instruction %llu: reserved flag bits set", (unsigned long long)num);
    if (in->size == 0 || in->size > 15)
      return bad(&c->err, path, "instruction %llu: size %u", (unsigned long long)num, in->size);
    if (in->opclass >= IC_OP_COUNT)
      return bad(&c->err, path, "instruction %llu: op class %u", (unsigned long long)num, in->opclass);
    for (int s = 0; s < IC_MAX_SRC; s++)
      if (!reg_ok(in->src[s]))
        return bad(&c->err, path, "instruction %llu: source register %u", (unsigned long long)num,
                   in->src[s]);
    if (!reg_ok(in->dst[0]))
      return bad(&c->err, path, "instruction %llu: destination register %u", (unsigned long long)num,
                 in->dst[0]);
    int64_t d = 0;
    if ((flags & F_PC) && get_varint(&p, end, &d))
      return bad(&c->err, path, "instruction %llu: bad pc", (unsigned long long)num);
    in->pc = prev_next + (uint64_t)d;
    if ((flags & F_PC) && d == 0)
      return bad(&c->err, path, "instruction %llu: pc flag without a change", (unsigned long long)num);
    d = 0;
    if ((flags & F_NEXT) && (get_varint(&p, end, &d) || d == 0))
      return bad(&c->err, path, "instruction %llu: bad next pc", (unsigned long long)num);
    in->next_pc = in->pc + in->size + (uint64_t)d;
    in->mem_size = 0;
    in->mem_addr = 0;
    if (flags & F_MEM) {
      if (p >= end) return bad(&c->err, path, "instruction %llu: record cut short", (unsigned long long)num);
      in->mem_size = *p++;
      if (in->mem_size == 0 || in->mem_size > 64 || get_varint(&p, end, &d))
        return bad(&c->err, path, "instruction %llu: bad memory access", (unsigned long long)num);
      in->mem_addr = prev_mem + (uint64_t)d;
      prev_mem = in->mem_addr;
    }
    prev_next = in->next_pc;
  }
  if (p != end)
    return bad(&c->err, path, "instruction block %zu: %td bytes after its last record", c->block,
               end - p);
  c->n = b->count;
  c->pos = 0;
  c->block++;
  return IC_OK;
}

ic_status ic_trace_cursor_open(ic_trace_cursor **out, const ic_trace *t, uint64_t start,
                               ic_err *err) {
  *out = NULL;
  if (start > t->count)
    return bad(err, t->path, "instruction %llu is past the end of the trace (%llu)",
               (unsigned long long)start, (unsigned long long)t->count);
  ic_trace_cursor *c = calloc(1, sizeof *c);
  if (!c) return ic_fail(err, IC_ERUN, "%s: out of memory", t->path);
  c->t = t;
  uint32_t zmax = 0, rmax = 0;
  for (size_t k = 0; k < t->nblocks; k++) {
    if (t->blocks[k].zlen > zmax) zmax = t->blocks[k].zlen;
    if (t->blocks[k].rawlen > rmax) rmax = t->blocks[k].rawlen;
  }
  c->z = malloc(zmax + 1);
  c->raw = malloc(rmax + 1);
  c->recs = malloc(IC_TRACE_BLOCK * sizeof *c->recs);
  if (!c->z || !c->raw || !c->recs) {
    ic_trace_cursor_close(c);
    return ic_fail(err, IC_ERUN, "%s: out of memory", t->path);
  }
  if (!(c->f = fopen(t->path, "rb"))) {
    ic_status st = bad(err, t->path, "cannot open: %s", strerror(errno));
    ic_trace_cursor_close(c);
    return st;
  }
  /* the block holding start: the last whose first <= start */
  size_t lo = 0, hi = t->nblocks;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (t->blocks[mid].first <= start) lo = mid + 1;
    else hi = mid;
  }
  if (lo > 0 && start < t->count) {
    c->block = lo - 1;
    if ((c->st = decode_block(c)) != IC_OK) {
      ic_status st = ic_fail(err, c->st, "%s", c->err.msg);
      ic_trace_cursor_close(c);
      return st;
    }
    c->pos = (size_t)(start - t->blocks[lo - 1].first);
  } else {
    c->block = t->nblocks;
  }
  *out = c;
  return IC_OK;
}

void ic_trace_cursor_close(ic_trace_cursor *c) {
  if (!c) return;
  if (c->f) fclose(c->f);
  free(c->z);
  free(c->raw);
  free(c->recs);
  free(c);
}

static size_t cursor_fill(void *ctx, ic_inst *buf, size_t cap) {
  ic_trace_cursor *c = ctx;
  size_t n = 0;
  while (n < cap && c->st == IC_OK) {
    if (c->pos == c->n) {
      if (c->block >= c->t->nblocks) break;
      if ((c->st = decode_block(c)) != IC_OK) break;
    }
    size_t k = c->n - c->pos;
    if (k > cap - n) k = cap - n;
    memcpy(buf + n, c->recs + c->pos, k * sizeof *buf);
    c->pos += k;
    n += k;
  }
  return n;
}

ic_inst_source ic_trace_cursor_source(ic_trace_cursor *c) {
  ic_inst_source s = {c, cursor_fill};
  return s;
}

ic_status ic_trace_cursor_error(const ic_trace_cursor *c, ic_err *err) {
  if (c->st != IC_OK && err) *err = c->err;
  return c->st;
}
