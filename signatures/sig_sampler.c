/* sig_sampler.c: signature bits, detailed samples from graph records, and
 * the sampling hook (sig.h).
 *
 * The hook keeps a ring of the last 64 instructions' bits (bits of j are
 * known when record j+1 arrives), a queue of tagged samples waiting for
 * their 10 following bits, and at most one signature sample in progress.
 * Records are looked at in place; only the last record of a batch is copied
 * (it is the "previous" record of the next batch). */
#include "sig.h"

#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const sig_machine_keys[SIG_MACHINE_COUNT] = {
#define SIG_X(f, k) k,
    SIG_MACHINE_LIST(SIG_X)
#undef SIG_X
};

uint32_t *sig_machine_field(sig_machine *m, int k) {
  switch (k) {
#define SIG_X(f, key) \
  case SIG_MP_##f: return &m->f;
    SIG_MACHINE_LIST(SIG_X)
#undef SIG_X
  }
  return NULL;
}

ic_status sig_machine_from_config(const ooo_config *c, sig_machine *m, ic_err *err) {
  for (int k = 0; k < SIG_MACHINE_COUNT; k++) {
    int64_t v;
    ic_status st = ooo_config_get(c, sig_machine_keys[k], &v, err);
    if (st != IC_OK) return st;
    *sig_machine_field(m, k) = (uint32_t)v;
  }
  return IC_OK;
}

static uint64_t cat_sum(const ic_edge *e, uint8_t cat) {
  uint64_t s = 0;
  for (int k = 0; k < e->nparts; k++)
    if (e->part[k].cat == cat) s += e->part[k].cycles;
  return s;
}

static const ic_edge *find_edge(const ic_graph_rec *r, uint8_t kind) {
  for (int k = 0; k < r->nedges; k++)
    if (r->edge[k].kind == kind) return &r->edge[k];
  return NULL;
}

unsigned sig_bits(const ic_graph_rec *r, const ic_graph_rec *next, const sig_machine *m,
                  const ic_program_image *img) {
  unsigned b = 0;
  int dmiss = 0, l2miss = 0, imiss = 0;
  for (int k = 0; k < r->nedges; k++) {
    const ic_edge *e = &r->edge[k];
    if (e->kind == IC_EDGE_DD || e->kind == IC_EDGE_PD) imiss |= cat_sum(e, IC_CAT_IMISS) > 0;
    if (e->kind == IC_EDGE_EP) {
      uint64_t d = cat_sum(e, IC_CAT_DMISS);
      dmiss |= d > 0;
      l2miss |= d > (uint64_t)m->l2_latency + m->tlb_miss;
    }
    if (e->kind == IC_EDGE_PP) dmiss = 1;
  }
  switch (r->opclass) {
  case IC_OP_BRANCH: {
    int taken;
    ic_static_inst si;
    if (img && img->lookup && img->lookup(img->ctx, r->pc, &si) && si.valid)
      taken = next->pc != r->pc + si.size;
    else
      taken = next->pc != r->pc + 2 && next->pc != r->pc + 4;
    if (taken) b |= SIG_B1;
    break;
  }
  case IC_OP_JUMP:
  case IC_OP_CALL:
  case IC_OP_RETURN:
  case IC_OP_IJUMP: b |= SIG_B1; break;
  case IC_OP_LOAD:
    if (!l2miss) b |= SIG_B1;
    if (dmiss) b |= SIG_B2;
    break;
  case IC_OP_STORE:
    b |= SIG_B1;
    if (dmiss) b |= SIG_B2;
    break;
  default: break;
  }
  if (imiss) b |= SIG_B2;
  if (next && next->seq == r->seq + 1 && find_edge(next, IC_EDGE_PD)) b |= SIG_B2;
  return b;
}

static int parts_equal_default(const ic_edge *e, uint8_t cat, uint32_t cycles) {
  if (cycles == 0) return ic_edge_latency(e, 0) == 0;
  return e->nparts == 1 && e->part[0].cat == cat && e->part[0].cycles == cycles;
}

static void add_item(sig_detail *d, const ic_edge *e, int *overflow) {
  if (d->nitems == SIG_MAX_ITEMS) {
    if (overflow) *overflow = 1;
    return;
  }
  d->item[d->nitems++] = *e;
}

void sig_detail_from_record(sig_detail *d, const ic_graph_rec *r, const ic_graph_rec *next,
                            const sig_machine *m, int *overflow) {
  memset(d, 0, sizeof *d);
  d->seq = r->seq;
  d->pc = r->pc;
  d->opclass = r->opclass;
  d->slot_w = r->slot_w;
  d->slot_p = r->slot_p;
  d->mshr_k = r->mshr_k;
  d->next_pc = next ? next->pc : 0;
  for (int k = 0; k < r->nedges; k++) {
    const ic_edge *e = &r->edge[k];
    switch (e->kind) {
    case IC_EDGE_DR: break;  /* rebuilt from the machine */
    case IC_EDGE_IBW: break; /* rebuilt from the stitched path's register chains */
    case IC_EDGE_PR:
      if (e->flags & IC_EDGE_MEM) add_item(d, e, overflow);
      break;
    case IC_EDGE_FBW:
      d->present |= SIG_HAS_FBW;
      if (!parts_equal_default(e, IC_CAT_BW, 1)) add_item(d, e, overflow);
      break;
    case IC_EDGE_CD:
      d->present |= SIG_HAS_CD;
      if (!parts_equal_default(e, IC_CAT_NONE, 0)) add_item(d, e, overflow);
      break;
    case IC_EDGE_CBW:
      d->present |= SIG_HAS_CBW;
      if (!parts_equal_default(e, IC_CAT_BW, 1)) add_item(d, e, overflow);
      break;
    case IC_EDGE_PC:
      if (!parts_equal_default(e, IC_CAT_NONE, 1)) add_item(d, e, overflow);
      break;
    case IC_EDGE_PD: {
      ic_edge self = *e;
      self.flags = SIG_ITEM_SELF;
      add_item(d, &self, overflow);
      break;
    }
    default: add_item(d, e, overflow); break; /* DD RE EP PP CC and any other kind */
    }
  }
  (void)m;
  if (next && next->seq == r->seq + 1) {
    const ic_edge *pd = find_edge(next, IC_EDGE_PD);
    if (pd) add_item(d, pd, overflow);
  }
}

uint64_t sig_draw_interval(void *rngp, uint64_t mean) {
  gsl_rng *rng = rngp;
  if (mean <= 1) return 1;
  uint64_t span = 2 * mean - 1;
  if (span <= gsl_rng_max(rng)) return 1 + gsl_rng_uniform_int(rng, (unsigned long)span);
  uint64_t v = (uint64_t)(gsl_rng_uniform(rng) * (double)span);
  return 1 + (v < span ? v : span - 1);
}

#define RING 64
#define PENDING 32

struct sig_sampler {
  sig_sampler_opts o;
  sig_machine m;
  ic_program_image img;
  sig_out emit;
  ic_graph_sink inner;
  int has_inner;
  gsl_rng *rng;
  uint8_t ring[RING];        /* bits by seq & (RING-1) */
  uint64_t first_seq;        /* seq of the first record seen */
  int have_prev;
  int prev_tagged;
  ic_graph_rec prev;         /* copy of the last record of the previous batch */
  uint64_t detail_left;      /* instructions until the next tag */
  uint64_t sig_left;         /* instructions until the next signature sample */
  sig_detail pend[PENDING];  /* tagged samples waiting for bits */
  int npend, pend_head;
  int sk_active;
  sig_skeleton sk;           /* in progress; bits has o.length entries */
  sig_sampler_stats st;
  ic_status status;
};

ic_status sig_sampler_create(sig_sampler **out, const sig_sampler_opts *o, const sig_machine *m,
                             const ic_program_image *img, sig_out emit, ic_err *err) {
  *out = NULL;
  if (o->detail_interval < 1 || o->signature_interval < 1)
    return ic_fail(err, IC_EINPUT, "sampling intervals must be at least 1 instruction");
  if (o->length < 1 || o->length > SIG_MAX_LENGTH)
    return ic_fail(err, IC_EINPUT, "fragment length %u outside 1..%u", o->length,
                   SIG_MAX_LENGTH);
  if (o->detail_interval > (UINT64_C(1) << 40) || o->signature_interval > (UINT64_C(1) << 40))
    return ic_fail(err, IC_EINPUT, "sampling interval too large (at most 2^40)");
  sig_sampler *s = calloc(1, sizeof *s);
  if (!s) return ic_fail(err, IC_ERUN, "sampler: out of memory");
  s->o = *o;
  s->m = *m;
  if (img) s->img = *img;
  s->emit = emit;
  s->rng = gsl_rng_alloc(gsl_rng_mt19937);
  s->sk.bits = malloc(o->length);
  if (!s->rng || !s->sk.bits) {
    sig_sampler_destroy(s);
    return ic_fail(err, IC_ERUN, "sampler: out of memory");
  }
  gsl_rng_set(s->rng, (unsigned long)o->seed);
  s->detail_left = sig_draw_interval(s->rng, o->detail_interval);
  /* the signature counter in its stationary phase (sig.h) */
  double mean = (double)o->signature_interval, len = (double)o->length;
  if (gsl_rng_uniform(s->rng) < len / (mean + len)) {
    s->sig_left = 1;
  } else {
    uint64_t span = 2 * o->signature_interval - 1;
    uint64_t r = 1 + (uint64_t)((double)span * (1.0 - sqrt(1.0 - gsl_rng_uniform(s->rng))));
    s->sig_left = r > span ? span : r;
  }
  *out = s;
  return IC_OK;
}

void sig_sampler_destroy(sig_sampler *s) {
  if (!s) return;
  if (s->rng) gsl_rng_free(s->rng);
  free(s->sk.bits);
  free(s);
}

/* Bits of seq j (ring); 0 before the first record. */
static inline unsigned ring_bits(const sig_sampler *s, uint64_t j) {
  return j < s->first_seq ? 0 : s->ring[j & (RING - 1)];
}

/* Bits of `cur` (seq j) just became known (the record after it arrived). */
static ic_status bits_known(sig_sampler *s, uint64_t j, ic_err *err) {
  /* pending detailed samples whose window ends at j */
  while (s->npend && s->pend[s->pend_head].seq + SIG_HALF == j) {
    sig_detail *d = &s->pend[s->pend_head];
    uint64_t w = 0;
    for (int k = 0; k < SIG_WINDOW; k++) {
      uint64_t q = d->seq + (uint64_t)k;
      if (q < SIG_HALF) continue;
      w |= (uint64_t)ring_bits(s, q - SIG_HALF) << (2 * k);
    }
    d->sig = w;
    s->pend_head = (s->pend_head + 1) % PENDING;
    s->npend--;
    s->st.details++;
    if (s->emit.detail) {
      ic_status st = s->emit.detail(s->emit.ctx, d, err);
      if (st != IC_OK) return st;
    }
  }
  if (s->sk_active && j >= s->sk.seq) {
    s->sk.bits[s->sk.n++] = s->ring[j & (RING - 1)];
    if (s->sk.n == s->o.length) {
      s->sk_active = 0;
      s->st.skeletons++;
      s->sig_left = sig_draw_interval(s->rng, s->o.signature_interval);
      if (s->emit.skeleton) {
        ic_status st = s->emit.skeleton(s->emit.ctx, &s->sk, err);
        if (st != IC_OK) return st;
      }
    }
  }
  return IC_OK;
}

static ic_status sampler_consume(void *ctx, const ic_graph_rec *recs, size_t n, ic_err *err) {
  sig_sampler *s = ctx;
  if (s->status != IC_OK) return s->status;
  const ic_graph_rec *prev = s->have_prev ? &s->prev : NULL;
  for (size_t i = 0; i < n; i++) {
    const ic_graph_rec *r = &recs[i];
    if (!prev) {
      s->first_seq = r->seq;
    } else {
      if (r->seq != prev->seq + 1)
        return s->status = ic_fail(err, IC_EINPUT, "sampler: record seq %llu after %llu",
                                   (unsigned long long)r->seq, (unsigned long long)prev->seq);
      s->ring[prev->seq & (RING - 1)] = (uint8_t)sig_bits(prev, r, &s->m, &s->img);
      if (s->prev_tagged) {
        int ovf = 0;
        sig_detail *d = &s->pend[(s->pend_head + s->npend) % PENDING];
        sig_detail_from_record(d, prev, r, &s->m, &ovf);
        s->npend++;
        if (ovf) s->st.item_overflow++;
        s->prev_tagged = 0;
      }
      ic_status st = bits_known(s, prev->seq, err);
      if (st != IC_OK) return s->status = st;
    }
    s->st.instructions++;
    if (--s->detail_left == 0) {
      s->detail_left = sig_draw_interval(s->rng, s->o.detail_interval);
      /* the queue holds at most SIG_HALF + 2 samples; PENDING bounds it */
      if (s->npend < PENDING - 1) s->prev_tagged = 1;
      else s->st.dropped++;
    }
    if (!s->sk_active && --s->sig_left == 0) {
      s->sk_active = 1;
      s->sk.seq = r->seq;
      s->sk.start_pc = r->pc;
      s->sk.n = 0;
      s->sk.flags = r->seq == s->first_seq ? SIG_SK_RUN_START : 0;
    }
    prev = r;
  }
  if (n) {
    memcpy(&s->prev, prev, sizeof s->prev);
    s->have_prev = 1;
  }
  if (s->has_inner) {
    ic_status st = s->inner.consume(s->inner.ctx, recs, n, err);
    if (st != IC_OK) return s->status = st;
  }
  return IC_OK;
}

ic_graph_sink sig_sampler_sink(sig_sampler *s, const ic_graph_sink *inner) {
  if (inner) {
    s->inner = *inner;
    s->has_inner = 1;
  } else {
    s->has_inner = 0;
  }
  ic_graph_sink k = {.ctx = s, .consume = sampler_consume};
  return k;
}

ic_status sig_sampler_finish(sig_sampler *s, ic_err *err) {
  if (s->status != IC_OK) return ic_fail(err, s->status, "sampler: the run failed");
  s->st.dropped += (uint64_t)s->npend + (uint64_t)s->prev_tagged;
  s->npend = 0;
  s->prev_tagged = 0;
  ic_status st = IC_OK;
  if (s->sk_active && s->sk.n > 0) {
    /* cut short by the end of the run: the instructions whose bits are known */
    s->st.skeletons++;
    if (s->emit.skeleton) st = s->emit.skeleton(s->emit.ctx, &s->sk, err);
  } else if (s->sk_active) {
    s->st.dropped++;
  }
  s->sk_active = 0;
  return st;
}

void sig_sampler_get_stats(const sig_sampler *s, sig_sampler_stats *out) { *out = s->st; }
