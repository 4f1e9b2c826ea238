/* fuzz_samples.c: libFuzzer target for the sample-file reader
 * (signatures/sig_file.h). Any input must be either accepted or rejected
 * with IC_EINPUT and a message naming the input, never crash, leak or read
 * out of bounds; accepted samples go into a database that is built and
 * queried, and every signature sample is stitched over a small synthetic
 * program image, so the checked ranges are exercised downstream too.
 *
 * Inputs whose last byte is odd get their checksums recomputed (on a
 * copy) before parsing, so that mutations reach the field checks behind
 * them instead of stopping at a checksum mismatch (a block's checksum
 * covers its compressed bytes, whose length is at offset 8 of the block
 * header, so mutated frames reach the decompression checks). The seed
 * corpus (tests/fuzz/corpus/samples) is in the current version: loop.bin
 * written by `icost profile --set ...` (overrides in its header) of
 * tests/fuzz/corpus/elf/loop, glibc.bin by `icost profile --max 7000
 * --sample-interval 32` of the mix workload (glibc, loads that miss: the
 * MSHR rule).
 *
 * Build: cmake -DICOST_FUZZ=ON -DCMAKE_C_COMPILER=clang; run
 * ./fuzz_samples -max_total_time=300 CORPUS_DIR (seed it with files
 * written by `icost profile` or the tests). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sig_db.h"
#include "sig_file.h"
#include "stitch.h"

static int image(void *ctx, uint64_t pc, ic_static_inst *o) {
  (void)ctx;
  memset(o, 0, sizeof *o);
  memset(o->src, IC_REG_NONE, sizeof o->src);
  memset(o->dst, IC_REG_NONE, sizeof o->dst);
  if (pc < 0x1000 || pc >= 0x1100 || (pc & 3)) return 0;
  o->valid = 1;
  o->size = 4;
  o->opclass = (uint8_t)((pc >> 2) % IC_OP_COUNT);
  o->src[0] = (uint8_t)((pc >> 2) % 40);
  o->dst[0] = (uint8_t)((pc >> 3) % 40);
  o->target = o->opclass == IC_OP_BRANCH || o->opclass == IC_OP_JUMP || o->opclass == IC_OP_CALL
                  ? 0x1000 + ((pc * 7) & 0xfc)
                  : 0;
  return 1;
}

static uint32_t get32(const uint8_t *p) {
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static void put64(uint8_t *p, uint64_t v) {
  for (int k = 0; k < 8; k++) p[k] = (uint8_t)(v >> (8 * k));
}

/* Rewrites the header and block checksums wherever the lengths fit. */
static void fixup(uint8_t *b, size_t n) {
  if (n < 24) return;
  uint32_t hl = get32(b + 12);
  if (hl > n - 24) return;
  put64(b + 16, sig_fnv(SIG_FNV_INIT, b + 24, hl));
  size_t pos = 24 + (size_t)hl;
  while (n - pos >= 24) {
    uint32_t pl = get32(b + pos + 8); /* compressed bytes */
    if (pl > n - pos - 24) return;
    put64(b + pos + 16, sig_fnv(SIG_FNV_INIT, b + pos + 24, pl));
    pos += 24 + (size_t)pl;
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size) {
  uint8_t *data = malloc(size ? size : 1);
  if (!data) return 0;
  if (size) memcpy(data, in, size);
  /* the low bit of the last byte chooses (it is mostly payload) */
  if (size && (in[size - 1] & 1)) fixup(data, size);
  sig_db *db;
  ic_err err;
  if (sig_db_create(&db, &err) != IC_OK) {
    free(data);
    return 0;
  }
  sig_file_header h;
  sig_file_totals tot;
  ic_status st = sig_file_parse(data, size, "fuzz", &h, sig_db_out(db), &tot, &err);
  if (st != IC_OK) {
    if (st != IC_EINPUT || strncmp(err.msg, "fuzz: ", 6) != 0) abort();
  } else if (sig_db_build(db, &err) == IC_OK) {
    for (size_t i = 0; i < sig_db_details(db) && i < 64; i++) {
      sig_detail d, b;
      sig_db_detail(db, i, &d);
      int same;
      if (!sig_db_best(db, d.pc, d.sig, SIG_MASK42, d.seq, &b, &same) || same != 42 ||
          b.pc != d.pc || b.sig != d.sig)
        abort();
      uint64_t tg[SIG_DB_MAX_TARGETS];
      size_t nt = sig_db_targets(db, d.pc, d.sig, SIG_MASK42, 0, tg, SIG_DB_MAX_TARGETS);
      if (nt > SIG_DB_MAX_TARGETS) abort();
      for (size_t q = 0; q < nt; q++)
        if (!tg[q]) abort();
      /* ranking the centre first cannot lose the sample itself */
      const uint64_t centre = (uint64_t)3 << (2 * SIG_HALF);
      if (!sig_db_best_first(db, d.pc, d.sig, SIG_MASK42, centre, d.seq, &b, &same) ||
          same != 42 || b.sig != d.sig)
        abort();
      /* the spread pick keeps the signature, and takes the instance's own
         sample where its retire count is wanted */
      if (!sig_db_pick(db, d.pc, d.sig, SIG_MASK42, centre, d.seq, NULL, NULL, &b, &same, NULL) || same != 42 ||
          b.sig != d.sig || b.seq != d.seq)
        abort();
      if (!sig_db_pick(db, d.pc, d.sig, SIG_MASK42, centre, d.seq + 1, NULL, NULL, &b, &same, NULL) || same != 42 ||
          b.sig != d.sig || b.pc != d.pc)
        abort();
    }
    ic_program_image img = {NULL, image, NULL};
    ic_stitch_stats ss = {0};
    for (size_t i = 0; i < sig_db_skeletons(db) && i < 8; i++) {
      const sig_skeleton *sk = sig_db_skeleton(db, i);
      if (sk->n > 4096) continue;
      ic_graph_rec *recs = malloc(sk->n * sizeof *recs);
      size_t built;
      if (recs) ic_stitch_fragment(db, &h.machine, &img, sk, recs, &built, &ss, &err);
      free(recs);
    }
  }
  sig_file_header_free(&h);
  sig_db_destroy(db);
  free(data);
  return 0;
}
