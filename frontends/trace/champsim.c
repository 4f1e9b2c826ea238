/* champsim.c: ChampSim traces, reading and writing (see champsim.h). */
#include "champsim.h"

#include <errno.h>
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

enum { Z_RAW, Z_GZ, Z_XZ };

static void put64(uint8_t *b, uint64_t v) {
  for (int i = 0; i < 8; i++) b[i] = (uint8_t)(v >> 8 * i);
}
static uint64_t get64(const uint8_t *b) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; i--) v = v << 8 | b[i];
  return v;
}

int ic_champsim_is_name(const char *path) { return strstr(path, ".champsimtrace") != NULL; }

static int ends_with(const char *s, const char *suf) {
  size_t a = strlen(s), b = strlen(suf);
  return a >= b && strcmp(s + a - b, suf) == 0;
}

/* ---- a pc -> value hash (sizes, image entries) ---- */
typedef struct pcmap {
  uint64_t *keys; /* 0: empty (pc 0 is stored as its own flag) */
  uint32_t *vals;
  size_t cap, n;
  int has0;
  uint32_t val0;
} pcmap;

static size_t pc_hash(uint64_t pc, size_t cap) {
  return (size_t)((pc * 0x9e3779b97f4a7c15ull) >> 20) & (cap - 1);
}

static uint32_t *pcmap_find(const pcmap *m, uint64_t pc) {
  if (pc == 0) return m->has0 ? (uint32_t *)&m->val0 : NULL;
  if (!m->cap) return NULL;
  for (size_t i = pc_hash(pc, m->cap);; i = (i + 1) & (m->cap - 1)) {
    if (m->keys[i] == pc) return &m->vals[i];
    if (m->keys[i] == 0) return NULL;
  }
}

/* Inserts or overwrites; -1 on out of memory. */
static int pcmap_put(pcmap *m, uint64_t pc, uint32_t v) {
  if (pc == 0) {
    m->has0 = 1, m->val0 = v;
    return 0;
  }
  if (2 * (m->n + 1) > m->cap) {
    size_t nc = m->cap ? 2 * m->cap : 1024;
    uint64_t *nk = calloc(nc, sizeof *nk);
    uint32_t *nv = calloc(nc, sizeof *nv);
    if (!nk || !nv) {
      free(nk), free(nv);
      return -1;
    }
    for (size_t i = 0; i < m->cap; i++)
      if (m->keys[i]) {
        size_t j = pc_hash(m->keys[i], nc);
        while (nk[j]) j = (j + 1) & (nc - 1);
        nk[j] = m->keys[i], nv[j] = m->vals[i];
      }
    free(m->keys), free(m->vals);
    m->keys = nk, m->vals = nv, m->cap = nc;
  }
  size_t i = pc_hash(pc, m->cap);
  while (m->keys[i] && m->keys[i] != pc) i = (i + 1) & (m->cap - 1);
  if (!m->keys[i]) m->n++;
  m->keys[i] = pc, m->vals[i] = v;
  return 0;
}

static void pcmap_free(pcmap *m) {
  free(m->keys), free(m->vals);
  memset(m, 0, sizeof *m);
}

/* ================================ writer ================================ */

struct ic_champsim_writer {
  char *path, *tmp;
  int kind;
  FILE *f;     /* raw and xz */
  gzFile gz;
  lzma_stream xz;
  int xz_on;
  uint8_t obuf[1 << 16];
};

static ic_status w_io(ic_champsim_writer *w, ic_err *err) {
  return ic_fail(err, IC_ERUN, "%s: cannot write: %s", w->path, strerror(errno ? errno : EIO));
}

static ic_status xz_pump(ic_champsim_writer *w, lzma_action act, ic_err *err) {
  for (;;) {
    w->xz.next_out = w->obuf;
    w->xz.avail_out = sizeof w->obuf;
    lzma_ret r = lzma_code(&w->xz, act);
    size_t n = sizeof w->obuf - w->xz.avail_out;
    errno = 0;
    if (n && fwrite(w->obuf, 1, n, w->f) != n) return w_io(w, err);
    if (r == LZMA_STREAM_END) return IC_OK;
    if (r != LZMA_OK) return ic_fail(err, IC_ERUN, "%s: xz compression failed (%d)", w->path, (int)r);
    if (act == LZMA_RUN && w->xz.avail_in == 0) return IC_OK;
  }
}

static ic_status w_bytes(ic_champsim_writer *w, const uint8_t *b, size_t n, ic_err *err) {
  errno = 0;
  if (w->kind == Z_RAW) return fwrite(b, 1, n, w->f) == n ? IC_OK : w_io(w, err);
  if (w->kind == Z_GZ) return gzwrite(w->gz, b, (unsigned)n) == (int)n ? IC_OK : w_io(w, err);
  w->xz.next_in = b;
  w->xz.avail_in = n;
  return xz_pump(w, LZMA_RUN, err);
}

ic_status ic_champsim_writer_open(ic_champsim_writer **out, const char *path, ic_err *err) {
  *out = NULL;
  ic_champsim_writer *w = calloc(1, sizeof *w);
  if (!w || !(w->path = strdup(path)) || !(w->tmp = malloc(strlen(path) + 5))) {
    ic_champsim_writer_abort(w);
    return ic_fail(err, IC_ERUN, "%s: out of memory", path);
  }
  sprintf(w->tmp, "%s.tmp", path);
  w->kind = ends_with(path, ".xz") ? Z_XZ : ends_with(path, ".gz") ? Z_GZ : Z_RAW;
  if (w->kind == Z_GZ) w->gz = gzopen(w->tmp, "wb6");
  else w->f = fopen(w->tmp, "wb");
  if (w->kind == Z_GZ ? !w->gz : !w->f) {
    ic_status st = ic_fail(err, IC_EINPUT, "%s: cannot create: %s", w->tmp, strerror(errno));
    ic_champsim_writer_abort(w);
    return st;
  }
  if (w->kind == Z_XZ) {
    lzma_stream init = LZMA_STREAM_INIT;
    w->xz = init;
    if (lzma_easy_encoder(&w->xz, 6, LZMA_CHECK_CRC64) != LZMA_OK) {
      ic_champsim_writer_abort(w);
      return ic_fail(err, IC_ERUN, "%s: cannot start xz compression", path);
    }
    w->xz_on = 1;
  }
  *out = w;
  return IC_OK;
}

/* ChampSim's register number of an icost one in a written record. */
static uint8_t cs_reg(uint8_t r) {
  if (r == IC_REG_NONE || r == IC_REG_X0) return 0;
  if (r == 2) return IC_CS_REG_SP; /* RISC-V sp */
  if (r == IC_CS_REG_SP || r == IC_CS_REG_FLAGS || r == IC_CS_REG_IP) return 0;
  return r;
}

static void add_reg(uint8_t *regs, int cap, uint8_t r) {
  if (!r) return;
  for (int k = 0; k < cap; k++) {
    if (regs[k] == r) return;
    if (!regs[k]) {
      regs[k] = r;
      return;
    }
  }
}

ic_status ic_champsim_write(ic_champsim_writer *w, const ic_inst *recs, size_t n, ic_err *err) {
  uint8_t buf[64 * IC_CHAMPSIM_REC];
  size_t nb = 0;
  for (size_t k = 0; k < n; k++) {
    const ic_inst *in = &recs[k];
    uint8_t *b = buf + nb * IC_CHAMPSIM_REC;
    memset(b, 0, IC_CHAMPSIM_REC);
    put64(b, in->pc);
    uint8_t *dst = b + 10, *src = b + 12;
    const int op = in->opclass;
    const int br = op == IC_OP_BRANCH || op == IC_OP_JUMP || op == IC_OP_CALL ||
                   op == IC_OP_RETURN || op == IC_OP_IJUMP;
    b[8] = (uint8_t)br;
    b[9] = (uint8_t)(br && ic_inst_taken(in));
    if (op == IC_OP_BRANCH) {
      add_reg(src, 4, IC_CS_REG_IP), add_reg(src, 4, IC_CS_REG_FLAGS);
      add_reg(dst, 2, IC_CS_REG_IP);
    } else if (op == IC_OP_JUMP) {
      add_reg(dst, 2, IC_CS_REG_IP);
    } else if (op == IC_OP_IJUMP) {
      for (int s = 0; s < IC_MAX_SRC; s++) add_reg(src, 4, cs_reg(in->src[s]) == IC_CS_REG_SP ? 0 : cs_reg(in->src[s]));
      if (!src[0]) add_reg(src, 4, 1); /* an indirect jump reads some register */
      add_reg(dst, 2, IC_CS_REG_IP);
    } else if (op == IC_OP_CALL) {
      add_reg(src, 4, IC_CS_REG_SP), add_reg(src, 4, IC_CS_REG_IP);
      for (int s = 0; s < IC_MAX_SRC; s++) add_reg(src, 4, cs_reg(in->src[s]));
      add_reg(dst, 2, IC_CS_REG_SP), add_reg(dst, 2, IC_CS_REG_IP);
    } else if (op == IC_OP_RETURN) {
      add_reg(src, 4, IC_CS_REG_SP);
      add_reg(dst, 2, IC_CS_REG_SP), add_reg(dst, 2, IC_CS_REG_IP);
    } else {
      for (int s = 0; s < IC_MAX_SRC; s++) add_reg(src, 4, cs_reg(in->src[s]));
      add_reg(dst, 2, cs_reg(in->dst[0]));
    }
    if (in->mem_size) {
      if (op == IC_OP_STORE || in->is_mem_rmw) put64(b + 16, in->mem_addr);
      if (op != IC_OP_STORE) put64(b + 32, in->mem_addr);
    }
    if (++nb == 64 || k + 1 == n) {
      ic_status st = w_bytes(w, buf, nb * IC_CHAMPSIM_REC, err);
      if (st) return st;
      nb = 0;
    }
  }
  return IC_OK;
}

ic_status ic_champsim_writer_close(ic_champsim_writer *w, ic_err *err) {
  ic_status st = IC_OK;
  errno = 0;
  if (w->kind == Z_XZ) st = xz_pump(w, LZMA_FINISH, err);
  if (w->kind == Z_GZ) {
    int r = gzclose(w->gz);
    w->gz = NULL;
    if (!st && r != Z_OK) st = w_io(w, err);
  } else {
    int bad = fflush(w->f) != 0 || ferror(w->f);
    bad |= fclose(w->f) != 0;
    w->f = NULL;
    if (!st && bad) st = w_io(w, err);
  }
  if (!st && rename(w->tmp, w->path) != 0)
    st = ic_fail(err, IC_ERUN, "%s: cannot rename into place: %s", w->path, strerror(errno));
  if (st) {
    ic_champsim_writer_abort(w);
    return st;
  }
  if (w->xz_on) lzma_end(&w->xz);
  free(w->path), free(w->tmp), free(w);
  return IC_OK;
}

void ic_champsim_writer_abort(ic_champsim_writer *w) {
  if (!w) return;
  if (w->f) fclose(w->f);
  if (w->gz) gzclose(w->gz);
  if (w->xz_on) lzma_end(&w->xz);
  if (w->tmp) remove(w->tmp);
  free(w->path), free(w->tmp), free(w);
}

/* ================================ reader ================================ */

struct ic_champsim_reader {
  char *path;
  int kind;
  FILE *f;
  gzFile gz;
  lzma_stream xz;
  int xz_on, eof;
  uint8_t ibuf[1 << 16];
  /* decoded bytes not yet consumed */
  uint8_t obuf[1 << 16];
  size_t opos, olen;
  /* one record of lookahead */
  uint8_t cur[IC_CHAMPSIM_REC];
  int have_cur;
  uint64_t recno; /* records handed out */
  /* register renaming of the dropped destinations (see champsim.h) */
  uint64_t seq;
  uint64_t lastw_cs[256];
  uint8_t carrier[256];
  uint64_t lastw_ic[IC_REG_COUNT];
  pcmap sizes;
  ic_status st;
  ic_err err;
};

static ic_status r_bad(ic_champsim_reader *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static ic_status r_bad(ic_champsim_reader *r, const char *fmt, ...) {
  char why[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  if (r->st == IC_OK) {
    r->st = IC_EINPUT;
    ic_fail(&r->err, IC_EINPUT, "%s: %s", r->path, why);
  }
  return IC_EINPUT;
}

/* Refills obuf; 0 at the clean end of the stream (also when an error was
   recorded). */
static size_t r_refill(ic_champsim_reader *r) {
  r->opos = r->olen = 0;
  if (r->eof || r->st) return 0;
  if (r->kind == Z_RAW) {
    r->olen = fread(r->obuf, 1, sizeof r->obuf, r->f);
    if (r->olen == 0) {
      if (ferror(r->f)) r_bad(r, "read error");
      r->eof = 1;
    }
    return r->olen;
  }
  if (r->kind == Z_GZ) {
    int n = gzread(r->gz, r->obuf, sizeof r->obuf);
    if (n < 0) {
      int e;
      const char *m = gzerror(r->gz, &e);
      r_bad(r, "gzip data error (%s): truncated or corrupted", m);
      return 0;
    }
    if (n == 0) {
      int e;
      gzerror(r->gz, &e);
      if (e != Z_OK) r_bad(r, "gzip stream truncated or corrupted");
      r->eof = 1;
    }
    r->olen = (size_t)n;
    return r->olen;
  }
  r->xz.next_out = r->obuf;
  r->xz.avail_out = sizeof r->obuf;
  while (r->xz.avail_out) {
    lzma_action act = LZMA_RUN;
    if (r->xz.avail_in == 0) {
      size_t n = fread(r->ibuf, 1, sizeof r->ibuf, r->f);
      if (n == 0 && ferror(r->f)) {
        r_bad(r, "read error");
        return 0;
      }
      r->xz.next_in = r->ibuf;
      r->xz.avail_in = n;
      if (n == 0) act = LZMA_FINISH;
    }
    lzma_ret ret = lzma_code(&r->xz, act);
    if (ret == LZMA_STREAM_END) {
      r->eof = 1;
      break;
    }
    if (ret != LZMA_OK) {
      r_bad(r, "xz data %s", ret == LZMA_BUF_ERROR ? "truncated" : "corrupted (xz check failed)");
      return 0;
    }
  }
  r->olen = sizeof r->obuf - r->xz.avail_out;
  return r->olen;
}

/* Reads one raw record into rec; 1 read, 0 end (or error recorded). */
static int r_record(ic_champsim_reader *r, uint8_t *rec) {
  size_t got = 0;
  while (got < IC_CHAMPSIM_REC) {
    if (r->opos == r->olen && !r_refill(r)) {
      if (got) r_bad(r, "truncated: record %llu is %zu of 64 bytes",
                     (unsigned long long)(r->recno + r->have_cur), got);
      return 0;
    }
    size_t k = r->olen - r->opos;
    if (k > IC_CHAMPSIM_REC - got) k = IC_CHAMPSIM_REC - got;
    memcpy(rec + got, r->obuf + r->opos, k);
    r->opos += k, got += k;
  }
  if (rec[8] > 1 || rec[9] > 1) {
    r_bad(r, "record %llu: is_branch %u, branch_taken %u (not 0/1): not a ChampSim trace?",
          (unsigned long long)(r->recno + r->have_cur), rec[8], rec[9]);
    return 0;
  }
  return 1;
}

ic_status ic_champsim_open(ic_champsim_reader **out, const char *path, ic_err *err) {
  *out = NULL;
  FILE *f = fopen(path, "rb");
  if (!f) return ic_fail(err, IC_EINPUT, "%s: cannot open: %s", path, strerror(errno));
  uint8_t m[8] = {0};
  size_t nm = fread(m, 1, 8, f);
  rewind(f);
  if (nm == 0) {
    fclose(f);
    return ic_fail(err, IC_EINPUT, "%s: empty file, not a ChampSim trace", path);
  }
  if (nm >= 8 && memcmp(m, "ICOSTTRC", 8) == 0) {
    fclose(f);
    return ic_fail(err, IC_EINPUT, "%s: an icost trace, not a ChampSim trace (--trace-format icost)", path);
  }
  if (nm >= 4 && memcmp(m, "\x7f" "ELF", 4) == 0) {
    fclose(f);
    return ic_fail(err, IC_EINPUT, "%s: an ELF executable, not a ChampSim trace", path);
  }
  ic_champsim_reader *r = calloc(1, sizeof *r);
  if (!r || !(r->path = strdup(path))) {
    free(r);
    fclose(f);
    return ic_fail(err, IC_ERUN, "%s: out of memory", path);
  }
  if (nm >= 6 && memcmp(m, "\xfd" "7zXZ\0", 6) == 0) {
    r->kind = Z_XZ;
    r->f = f;
    lzma_stream init = LZMA_STREAM_INIT;
    r->xz = init;
    if (lzma_stream_decoder(&r->xz, UINT64_MAX, LZMA_CONCATENATED) != LZMA_OK) {
      ic_champsim_close(r);
      return ic_fail(err, IC_ERUN, "%s: cannot start xz decompression", path);
    }
    r->xz_on = 1;
  } else if (nm >= 2 && m[0] == 0x1f && m[1] == 0x8b) {
    r->kind = Z_GZ;
    fclose(f);
    if (!(r->gz = gzopen(path, "rb"))) {
      ic_champsim_close(r);
      return ic_fail(err, IC_EINPUT, "%s: cannot open: %s", path, strerror(errno));
    }
  } else {
    r->kind = Z_RAW;
    r->f = f;
  }
  for (int k = 0; k < 256; k++) r->carrier[k] = 0xff;
  *out = r;
  return IC_OK;
}

void ic_champsim_close(ic_champsim_reader *r) {
  if (!r) return;
  if (r->f) fclose(r->f);
  if (r->gz) gzclose(r->gz);
  if (r->xz_on) lzma_end(&r->xz);
  pcmap_free(&r->sizes);
  free(r->path);
  free(r);
}

/* icost's register id of a ChampSim one (0 and IP: none). */
static uint8_t ic_reg(uint8_t c) {
  if (c == 0 || c == IC_CS_REG_IP) return IC_REG_NONE;
  return c < 64 ? c : (uint8_t)(32 + c % 32);
}

static int has(const uint8_t *regs, int n, uint8_t c) {
  for (int k = 0; k < n; k++)
    if (regs[k] == c) return 1;
  return 0;
}

/* Decodes r->cur (its successor's ip is next_ip, or has_next 0) into *in. */
static void decode(ic_champsim_reader *r, const uint8_t *rec, uint64_t next_ip, int has_next,
                   ic_inst *in) {
  memset(in, 0, sizeof *in);
  const uint8_t *dst = rec + 10, *src = rec + 12;
  in->pc = get64(rec);
  const int is_branch = rec[8], taken_flag = rec[9];
  const int w_sp = has(dst, 2, IC_CS_REG_SP), w_ip = has(dst, 2, IC_CS_REG_IP);
  const int r_sp = has(src, 4, IC_CS_REG_SP), r_fl = has(src, 4, IC_CS_REG_FLAGS);
  const int r_ip = has(src, 4, IC_CS_REG_IP);
  int r_other = 0;
  for (int k = 0; k < 4; k++)
    if (src[k] && src[k] != IC_CS_REG_SP && src[k] != IC_CS_REG_FLAGS && src[k] != IC_CS_REG_IP)
      r_other = 1;
  int op = -1;
  (void)is_branch; /* ChampSim infers the kind from the registers alone */
  if (!r_sp && !r_fl && w_ip && !r_other) op = IC_OP_JUMP;
  else if (!r_sp && !r_ip && !r_fl && w_ip && r_other) op = IC_OP_IJUMP;
  else if (!r_sp && r_ip && !w_sp && w_ip && r_fl && !r_other) op = IC_OP_BRANCH;
  else if (r_sp && r_ip && w_sp && w_ip && !r_fl) op = IC_OP_CALL; /* direct or indirect */
  else if (r_sp && !r_ip && w_sp && w_ip) op = IC_OP_RETURN;
  else if (w_ip) op = IC_OP_BRANCH; /* ChampSim's BRANCH_OTHER */
  const uint64_t smem = get64(rec + 32), dmem = get64(rec + 16);
  if (op < 0) {
    if (smem) op = IC_OP_LOAD, in->is_mem_rmw = dmem != 0;
    else if (dmem) op = IC_OP_STORE;
    else op = IC_OP_INT_ALU;
  }
  if (op == IC_OP_LOAD || op == IC_OP_STORE) {
    in->mem_addr = smem ? smem : dmem;
    in->mem_size = 8;
  }
  in->opclass = (uint8_t)op;
  /* taken: ChampSim's flag for conditional and other branches, always for
     the unconditional kinds; a non-branch never */
  const int br = op >= IC_OP_BRANCH && op <= IC_OP_IJUMP;
  const int taken = br && (op == IC_OP_BRANCH ? taken_flag : 1);
  uint64_t delta = has_next ? next_ip - in->pc : 0;
  uint32_t *known = pcmap_find(&r->sizes, in->pc);
  uint8_t size = known ? (uint8_t)*known : 4;
  if (has_next && !taken && delta >= 1 && delta <= 15) {
    size = (uint8_t)delta;
    if (!known || *known != size) pcmap_put(&r->sizes, in->pc, size); /* OOM: size stays 4 */
  }
  in->size = size;
  in->next_pc = has_next ? next_ip : in->pc + size;
  /* sources, through the carriers of dropped destinations */
  int ns = 0;
  for (int k = 0; k < 4 && ns < IC_MAX_SRC; k++) {
    uint8_t c = src[k];
    uint8_t i = ic_reg(c);
    if (i == IC_REG_NONE) continue;
    if (r->lastw_cs[c]) {
      uint8_t car = r->carrier[c];
      if (car == IC_REG_NONE || r->lastw_ic[car] != r->lastw_cs[c]) continue; /* lost */
      i = car;
    }
    if (!has(in->src, ns, i)) in->src[ns++] = i;
  }
  for (int k = ns; k < IC_MAX_SRC; k++) in->src[k] = IC_REG_NONE;
  /* one destination: not SP or flags when there is another */
  uint8_t prim = 0;
  for (int k = 0; k < 2; k++) {
    uint8_t c = dst[k];
    if (!c || c == IC_CS_REG_IP) continue;
    if (!prim || prim == IC_CS_REG_SP || prim == IC_CS_REG_FLAGS) prim = c;
  }
  in->dst[0] = prim ? ic_reg(prim) : IC_REG_NONE;
  r->seq++;
  if (prim) r->lastw_ic[in->dst[0]] = r->seq;
  for (int k = 0; k < 2; k++) {
    uint8_t c = dst[k];
    if (!c || c == IC_CS_REG_IP) continue;
    r->lastw_cs[c] = r->seq;
    r->carrier[c] = in->dst[0];
  }
}

static size_t r_fill(void *ctx, ic_inst *buf, size_t cap) {
  ic_champsim_reader *r = ctx;
  size_t n = 0;
  if (!r->have_cur) {
    if (r->recno || !r_record(r, r->cur)) return 0;
    r->have_cur = 1;
  }
  uint8_t next[IC_CHAMPSIM_REC];
  while (n < cap && r->have_cur) {
    int more = r_record(r, next);
    if (r->st) return n;
    decode(r, r->cur, more ? get64(next) : 0, more, &buf[n++]);
    r->recno++;
    if (more) memcpy(r->cur, next, IC_CHAMPSIM_REC);
    else r->have_cur = 0;
  }
  return n;
}

uint64_t ic_champsim_skip(ic_champsim_reader *r, uint64_t n) {
  ic_inst buf[256];
  uint64_t done = 0;
  while (done < n) {
    size_t want = n - done < 256 ? (size_t)(n - done) : 256;
    size_t got = r_fill(r, buf, want);
    if (!got) break;
    done += got;
  }
  return done;
}

ic_inst_source ic_champsim_source(ic_champsim_reader *r) {
  ic_inst_source s = {r, r_fill};
  return s;
}

ic_status ic_champsim_error(const ic_champsim_reader *r, ic_err *err) {
  if (r->st && err) *err = r->err;
  return r->st;
}

/* ================================ image ================================ */

struct ic_champsim_image {
  pcmap idx; /* pc -> index in insts */
  ic_static_inst *insts;
  size_t n, cap;
};

static int cs_lookup(void *ctx, uint64_t pc, ic_static_inst *out) {
  const ic_champsim_image *im = ctx;
  uint32_t *k = pcmap_find(&im->idx, pc);
  if (!k) {
    memset(out, 0, sizeof *out);
    return 0;
  }
  *out = im->insts[*k];
  return 1;
}

ic_status ic_champsim_image_build(ic_champsim_image **out, const char *path, uint64_t *count,
                                  ic_err *err) {
  *out = NULL;
  ic_champsim_reader *r;
  ic_status st = ic_champsim_open(&r, path, err);
  if (st) return st;
  ic_champsim_image *im = calloc(1, sizeof *im);
  ic_inst *buf = malloc(4096 * sizeof *buf);
  uint64_t total = 0;
  if (!im || !buf) goto oom;
  for (;;) {
    size_t got = r_fill(r, buf, 4096);
    if (!got) break;
    total += got;
    for (size_t k = 0; k < got; k++) {
      const ic_inst *in = &buf[k];
      if (pcmap_find(&im->idx, in->pc)) continue;
      if (im->n == im->cap) {
        im->cap = im->cap ? 2 * im->cap : 1024;
        ic_static_inst *ni = realloc(im->insts, im->cap * sizeof *ni);
        if (!ni) goto oom;
        im->insts = ni;
      }
      ic_static_inst *s = &im->insts[im->n];
      memset(s, 0, sizeof *s);
      s->valid = 1;
      s->size = in->size;
      s->opclass = in->opclass;
      memcpy(s->src, in->src, IC_MAX_SRC);
      s->dst[0] = in->dst[0];
      s->is_mem_rmw = in->is_mem_rmw;
      if ((in->opclass == IC_OP_BRANCH || in->opclass == IC_OP_JUMP || in->opclass == IC_OP_CALL) &&
          ic_inst_taken(in))
        s->target = in->next_pc;
      if (pcmap_put(&im->idx, in->pc, (uint32_t)im->n)) goto oom;
      im->n++;
    }
  }
  if ((st = ic_champsim_error(r, err))) goto fail;
  if (total == 0) {
    st = ic_fail(err, IC_EINPUT, "%s: no records", path);
    goto fail;
  }
  free(buf);
  ic_champsim_close(r);
  *count = total;
  *out = im;
  return IC_OK;
oom:
  st = ic_fail(err, IC_ERUN, "%s: out of memory", path);
fail:
  free(buf);
  ic_champsim_close(r);
  ic_champsim_image_destroy(im);
  return st;
}

void ic_champsim_image_destroy(ic_champsim_image *im) {
  if (!im) return;
  pcmap_free(&im->idx);
  free(im->insts);
  free(im);
}

ic_program_image ic_champsim_image_get(ic_champsim_image *im) {
  ic_program_image p = {im, cs_lookup, NULL};
  return p;
}

int ic_champsim_image_disasm(ic_program_image img, uint64_t pc, char *buf, size_t cap) {
  if (img.lookup != cs_lookup) return 0;
  ic_static_inst si;
  if (!cs_lookup(img.ctx, pc, &si) || si.opclass >= IC_OP_COUNT) snprintf(buf, cap, "?");
  else snprintf(buf, cap, "<%s>", ic_opclass_names[si.opclass]);
  return 1;
}
