/* fuzz_samples.c: libFuzzer target for the sample-file reader
 * (signatures/sig_file.h). Any input must be either accepted or rejected
 * with IC_EINPUT and a message naming the input, never crash, leak or read
 * out of bounds; accepted samples go into a database that is built and
 * queried, and every signature sample is stitched over a small synthetic
 * program image, so the checked ranges are exercised downstream too.
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  sig_db *db;
  ic_err err;
  if (sig_db_create(&db, &err) != IC_OK) return 0;
  sig_file_header h;
  sig_file_totals tot;
  ic_status st = sig_file_parse(data, size, "fuzz", &h, sig_db_out(db), &tot, &err);
  if (st != IC_OK) {
    if (st != IC_EINPUT || strncmp(err.msg, "fuzz: ", 6) != 0) abort();
  } else if (sig_db_build(db, &err) == IC_OK) {
    for (size_t i = 0; i < sig_db_details(db) && i < 64; i++) {
      const sig_detail *d = sig_db_detail(db, i);
      int same;
      if (!sig_db_best(db, d->pc, d->sig, SIG_MASK42, d->seq, &same) || same != 42) abort();
    }
    ic_program_image img = {NULL, image};
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
  return 0;
}
