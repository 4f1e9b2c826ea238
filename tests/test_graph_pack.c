/* test_graph_pack.c: the packed form of graph records (model/graph_pack.h).
 *
 *   - a stream of records of every shape (rec_same.h: nearby and far pcs,
 *     rising and falling stamps, sequence jumps, every edge slot,
 *     malformed kinds and part counts, the largest values) unpacks to the
 *     same records, field for field;
 *   - packing writes within IC_REC_PACK_MAX bytes, and a packed
 *     record cut short anywhere is refused (0), never read past its end;
 *   - an ordinary record (a dozen edges of at most one part) packs to under
 *     128 bytes (its memory form: 448);
 *   - a record of a pc again with only the dists that vary
 *     (ic_edge_dist_varies) changed comes under the same shape id, with a
 *     fixed one changed under a new one. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "graph_pack.h"
#include "rec_same.h"

Test(graph_pack, records_of_every_shape_come_back_unchanged) {
  ic_rec_pack_state pk, uk;
  cr_assert_eq(ic_rec_pack_init(&pk), 0);
  cr_assert_eq(ic_rec_pack_init(&uk), 0);
  uint8_t buf[IC_REC_PACK_MAX + 16];
  uint64_t seq = 0;
  int repeats = 0;
  for (int i = 0; i < 200000; i++) {
    /* mostly consecutive, sometimes a jump either way */
    uint64_t x = t_mix((uint64_t)i * 7 + 1);
    seq = x % 97 == 0 ? x >> 3 : x % 89 == 0 ? seq / 2 : seq + 1;
    ic_graph_rec r, back;
    t_rec_for(seq, &r);
    memset(buf, 0xa5, sizeof buf);
    size_t n = ic_rec_pack(&pk, &r, buf);
    cr_assert(n > 0 && n <= IC_REC_PACK_MAX, "record %d packed to %zu bytes", i, n);
    for (size_t b = IC_REC_PACK_MAX; b < sizeof buf; b++)
      cr_assert_eq(buf[b], 0xa5, "record %d: written past IC_REC_PACK_MAX", i);
    memset(&back, 0x5a, sizeof back);
    cr_assert_eq(ic_rec_unpack(&uk, buf, n, &back), n, "record %d", i);
    cr_assert(t_rec_same(&r, &back), "record %d (seq %llu) changed", i, (unsigned long long)seq);
    const uint64_t shape = uk.shape;
    cr_assert_eq(shape != 0, r.nedges <= IC_MAX_EDGES, "record %d: a shape id where it has edges", i);
    /* now and then the same pc again, its edges as before but the dists
       that vary between instances (ic_edge_dist_varies): the repeat form,
       under the same shape id */
    if (x % 3 == 0) {
      r.seq = ++seq;
      unsigned nd = 0;
      for (int k = 0; k < r.nedges && k < IC_MAX_EDGES; k++)
        if (ic_edge_dist_varies(r.edge[k].kind)) {
          r.edge[k].dist = (uint32_t)(t_mix(seq + (uint64_t)k) % 70000);
          nd++;
        }
      n = ic_rec_pack(&pk, &r, buf);
      cr_assert_eq(ic_rec_unpack(&uk, buf, n, &back), n, "record %d again", i);
      cr_assert(t_rec_same(&r, &back), "record %d (seq %llu) again changed", i, (unsigned long long)seq);
      if (r.nedges <= IC_MAX_EDGES) {
        int fits = 1;
        for (int k = 0; k < r.nedges; k++) fits &= !ic_edge_dist_varies(r.edge[k].kind) || r.edge[k].dist <= UINT16_MAX;
        repeats += fits;
        if (fits) {
          cr_assert_leq(n, 1 + 1 + 8 + 7 + 48 + 2u * nd, "record %d again: %zu bytes", i, n);
          cr_assert_eq(uk.shape, shape, "record %d again: the same shape id", i);
        } else {
          cr_assert(uk.shape != shape && uk.shape != 0, "record %d again, a dist too far: a new shape id", i);
        }
      }
      /* a fixed kind's dist changed: not the same shape */
      for (int k = 0; k < r.nedges && r.nedges <= IC_MAX_EDGES; k++)
        if (!ic_edge_dist_varies(r.edge[k].kind)) {
          r.seq = ++seq;
          r.edge[k].dist ^= 1;
          n = ic_rec_pack(&pk, &r, buf);
          cr_assert_eq(ic_rec_unpack(&uk, buf, n, &back), n, "record %d, a fixed dist changed", i);
          cr_assert(t_rec_same(&r, &back), "record %d, a fixed dist changed", i);
          cr_assert_neq(uk.shape, shape, "record %d: a fixed dist changed, a new shape id", i);
          break;
        }
    }
  }
  cr_assert_gt(repeats, 1000);
  ic_rec_pack_free(&pk);
  ic_rec_pack_free(&uk);
}

Test(graph_pack, a_record_cut_short_is_refused) {
  ic_rec_pack_state pk, uk;
  cr_assert_eq(ic_rec_pack_init(&pk), 0);
  cr_assert_eq(ic_rec_pack_init(&uk), 0);
  int tried = 0;
  for (uint64_t seq = 0; seq < 3000; seq++) {
    ic_graph_rec r, back;
    t_rec_for(seq, &r);
    if (seq % 2) r.pc = 0x10000 + seq % 4 * 2; /* pcs again: repeats cut short too */
    uint8_t buf[IC_REC_PACK_MAX];
    size_t n = ic_rec_pack(&pk, &r, buf);
    for (size_t cut = 0; cut < n; cut++) {
      ic_rec_pack_state u = uk; /* a failed unpack leaves the table alone */
      /* the cut copy in memory of its own size, so a read past it is ASan's */
      uint8_t *part = malloc(cut ? cut : 1);
      memcpy(part, buf, cut);
      cr_assert_eq(ic_rec_unpack(&u, part, cut, &back), 0, "seq %llu cut to %zu of %zu bytes",
                   (unsigned long long)seq, cut, n);
      const ic_edge *edges;
      u = uk; /* and lazily, under a tag of its own */
      cr_assert_eq(ic_rec_unpack_lazy(&u, part, cut, &back, &edges, UINT64_MAX - (uint64_t)tried), 0,
                   "lazily: seq %llu cut to %zu of %zu bytes", (unsigned long long)seq, cut, n);
      free(part);
      tried++;
    }
    cr_assert_eq(ic_rec_unpack(&uk, buf, n, &back), n);
    cr_assert(t_rec_same(&r, &back));
  }
  cr_assert_gt(tried, 3000);
  ic_rec_pack_free(&pk);
  ic_rec_pack_free(&uk);
}

Test(graph_pack, an_ordinary_record_is_small) {
  ic_graph_rec r;
  memset(&r, 0, sizeof r);
  ic_rec_pack_state pk;
  cr_assert_eq(ic_rec_pack_init(&pk), 0);
  uint8_t buf[IC_REC_PACK_MAX];
  size_t total = 0;
  for (uint64_t seq = 0; seq < 1000; seq++) {
    r.seq = seq;
    r.pc = 0x10000 + seq % 40 * 4;
    r.nedges = 12;
    for (int k = 0; k < IC_NODE_COUNT; k++) r.t[k] = seq * 2 + (uint64_t)k * 3;
    for (int k = 0; k < 12; k++) {
      r.edge[k].kind = (uint8_t)(k % IC_EDGE_KIND_COUNT);
      r.edge[k].dist = (uint32_t)(k % 3);
      r.edge[k].nparts = k % 2;
      r.edge[k].part[0].cycles = 1 + k % 4;
      r.edge[k].part[0].cat = (uint8_t)(k % 8);
    }
    total += ic_rec_pack(&pk, &r, buf);
  }
  ic_rec_pack_free(&pk);
  cr_assert_lt(total / 1000, 128, "%zu bytes a record", total / 1000);
}

/* graph_pack.c again, its portable comparison (no SSE2) under other names */
#define IC_PACK_PORTABLE 1
#define ic_rec_pack p_rec_pack
#define ic_rec_unpack p_rec_unpack
#define ic_rec_pack_init p_rec_pack_init
#define ic_rec_pack_free p_rec_pack_free
#define ic_rec_unpack_lazy p_rec_unpack_lazy
#define ic_rec_whole p_rec_whole
#include "graph_pack.c"
#undef ic_rec_pack
#undef ic_rec_unpack
#undef ic_rec_pack_init
#undef ic_rec_pack_free
#undef ic_rec_unpack_lazy
#undef ic_rec_whole

/* Packs the same records with a and b (the portable path, or the default
 * build's with its AVX2 comparison off) and asserts the same bytes. */
static void same_bytes(ic_rec_pack_state *a, ic_rec_pack_state *b, int portable) {
  uint8_t x[IC_REC_PACK_MAX], y[IC_REC_PACK_MAX];
  int repeats = 0;
  for (uint64_t seq = 0; seq < 100000; seq++) {
    ic_graph_rec r;
    t_rec_rep(seq, &r);
    size_t n = ic_rec_pack(a, &r, x), m = portable ? p_rec_pack(b, &r, y) : ic_rec_pack(b, &r, y);
    cr_assert_eq(n, m, "seq %llu", (unsigned long long)seq);
    cr_assert(memcmp(x, y, n) == 0, "seq %llu", (unsigned long long)seq);
    repeats += (x[0] & 0x10) != 0;
  }
  cr_assert_gt(repeats, 100);
}

Test(graph_pack, the_portable_path_packs_the_same_bytes) {
  ic_rec_pack_state a, b;
  cr_assert_eq(ic_rec_pack_init(&a), 0);
  cr_assert_eq(p_rec_pack_init(&b), 0);
  same_bytes(&a, &b, 1);
  ic_rec_pack_free(&a);
  p_rec_pack_free(&b);
}

/* Where the CPU has AVX2 the producer compares with it; without, both
 * states take the SSE2 path and the test still runs. */
Test(graph_pack, the_avx2_comparison_packs_the_same_bytes) {
  ic_rec_pack_state a, b;
  cr_assert_eq(ic_rec_pack_init(&a), 0);
  cr_assert_eq(ic_rec_pack_init(&b), 0);
  b.avx2 = 0;
  same_bytes(&a, &b, 0);
  ic_rec_pack_free(&a);
  ic_rec_pack_free(&b);
}

/* Unpacked lazily in batches of up to 16 under a tag each, every record is
 * whole again with ic_rec_whole where its edges stayed in the slot; a
 * record that would replace a slot the batch refers to waits for the next
 * batch. */
Test(graph_pack, a_lazy_unpack_gives_every_record_back) {
  enum { N = 60000, BATCH = 16 };
  ic_rec_pack_state pk, uk;
  cr_assert_eq(ic_rec_pack_init(&pk), 0);
  cr_assert_eq(ic_rec_pack_init(&uk), 0);
  uint8_t *buf = malloc((size_t)N * IC_REC_PACK_MAX);
  size_t len = 0;
  for (uint64_t seq = 0; seq < N; seq++) {
    ic_graph_rec r;
    t_rec_rep(seq, &r);
    len += ic_rec_pack(&pk, &r, buf + len);
  }
  static ic_graph_rec dec[BATCH];
  const ic_edge *edges[BATCH];
  uint64_t seq = 0, tag = 0;
  size_t at = 0;
  int again = 0, lazy = 0;
  while (seq < N) {
    tag++;
    int k = 0;
    for (; k < BATCH && seq + (uint64_t)k < N; k++) {
      const size_t used = ic_rec_unpack_lazy(&uk, buf + at, len - at, &dec[k], &edges[k], tag);
      if (used == IC_REC_UNPACK_AGAIN) {
        cr_assert_gt(k, 0, "a fresh batch must take the record");
        again++;
        break;
      }
      cr_assert_neq(used, 0, "seq %llu", (unsigned long long)(seq + (uint64_t)k));
      at += used;
      lazy += edges[k] != NULL;
    }
    for (int j = 0; j < k; j++, seq++) {
      ic_graph_rec want, got;
      t_rec_rep(seq, &want);
      if (edges[j]) ic_rec_whole(&got, &dec[j], edges[j]);
      else got = dec[j];
      cr_assert(t_rec_same(&want, &got), "seq %llu", (unsigned long long)seq);
    }
  }
  cr_assert_eq(at, len);
  cr_assert_gt(lazy, N / 3, "%d of %d lazy", lazy, N);
  cr_assert_gt(again, 10, "%d batches ended early", again);
  free(buf);
  ic_rec_pack_free(&pk);
  ic_rec_pack_free(&uk);
}
