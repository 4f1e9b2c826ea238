/* stitch_path.c: the stitcher's path through the code (stitch_path.h):
 * whether bits fit the code, indirect targets, the call sites
 * (ic_stitch_sites) and the decode cache (ic_image_cache, stitch.h). */
#include "stitch_path.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

struct ic_stitch_sites {
  uint64_t *pc; /* ascending */
  size_t n, cap;
};

static int push(uint64_t **a, size_t *n, size_t *cap, uint64_t v) {
  if (*n == *cap) {
    size_t c = *cap ? 2 * *cap : 1024;
    uint64_t *p = realloc(*a, c * sizeof *p);
    if (!p) return -1;
    *a = p;
    *cap = c;
  }
  (*a)[(*n)++] = v;
  return 0;
}

#define SITES_MARGIN (UINT64_C(256) << 10)

ic_status ic_stitch_sites_create(ic_stitch_sites **out, const sig_db *db,
                                 const ic_program_image *img, ic_err *err) {
  *out = calloc(1, sizeof **out);
  if (!*out) return ic_fail(err, IC_ERUN, "stitcher: out of memory");
  ic_stitch_sites *s = *out;
  size_t np = sig_db_pcs(db);
  if (!np) return IC_OK;
  uint64_t lo = sig_db_pc(db, 0), hi = sig_db_pc(db, np - 1);
  lo = lo > SITES_MARGIN ? lo - SITES_MARGIN : 0;
  hi = hi + SITES_MARGIN;
  /* a forward decode: an invalid pc steps 2 bytes, a valid one its size */
  for (uint64_t pc = lo & ~UINT64_C(1); pc < hi;) {
    ic_static_inst si;
    memset(&si, 0, sizeof si);
    if (!img->lookup(img->ctx, pc, &si) || !si.valid || si.size == 0) {
      pc += 2;
      continue;
    }
    if (si.opclass == IC_OP_CALL && push(&s->pc, &s->n, &s->cap, pc + si.size)) {
      ic_stitch_sites_destroy(s);
      *out = NULL;
      return ic_fail(err, IC_ERUN, "stitcher: out of memory");
    }
    pc += si.size;
  }
  return IC_OK;
}

void ic_stitch_sites_destroy(ic_stitch_sites *s) {
  if (!s) return;
  free(s->pc);
  free(s);
}

size_t ic_stitch_sites_count(const ic_stitch_sites *s) { return s ? s->n : 0; }

/* Whether the skeleton's bits from position k on fit the static code from
 * pc up to the skeleton's end or to the next transfer whose target the code
 * alone does not give (an indirect jump or call, a return whose call lies
 * before k): no pc outside the code, no bit/opcode combination that cannot
 * happen. Time: O(instructions walked). */
#define FIT_STACK 64
static int path_fits(const ic_program_image *img, const sig_skeleton *sk, uint32_t k,
                     uint64_t pc) {
  return k >= sk->n || stitch_path_fit_len(img, sk, k, pc, UINT32_MAX) > 0;
}

uint32_t stitch_path_fit_len(const ic_program_image *img, const sig_skeleton *sk, uint32_t k,
                             uint64_t pc, uint32_t lim) {
  uint64_t calls[FIT_STACK];
  int top = 0, depth = 0; /* a ring, as the walk's own stack */
  uint32_t end = sk->n - k > lim ? k + lim : sk->n;
  for (uint32_t q = k; q < end; q++) {
    ic_static_inst si;
    memset(&si, 0, sizeof si);
    if (!img->lookup(img->ctx, pc, &si) || !si.valid || si.opclass >= IC_OP_COUNT) return 0;
    unsigned b = sk->bits[q];
    if (bits_impossible(si.opclass, b)) return 0;
    uint64_t fall = pc + si.size;
    switch (si.opclass) {
    case IC_OP_BRANCH: pc = (b & SIG_B1) ? si.target : fall; break;
    case IC_OP_JUMP:
      if (!si.target) return q - k + 1;
      pc = si.target;
      break;
    case IC_OP_CALL:
      if (!si.target) return q - k + 1;
      calls[top] = fall;
      top = (top + 1) % FIT_STACK;
      if (depth < FIT_STACK) depth++;
      pc = si.target;
      break;
    case IC_OP_RETURN:
      if (!depth) return q - k + 1;
      top = (top + FIT_STACK - 1) % FIT_STACK;
      depth--;
      pc = calls[top];
      /* a return not to its call's site (longjmp): as the walk, the target
         is unknown from here (the shorter check of the site does not
         look at returns again) */
      if (lim > RETURN_CHECK && q + 1 < sk->n && !stitch_path_fit_len(img, sk, q + 1, pc, RETURN_CHECK))
        return q - k + 1;
      break;
    case IC_OP_IJUMP: return q - k + 1;
    default: pc = fall; break;
    }
  }
  return end > k ? end - k : 1;
}

/* The target of an indirect transfer at position k (pc) whose own target is
 * not known from a call in the fragment: the best sample's next pc when the
 * bits that follow fit the code from there; else the best-ranked other
 * target the pc's samples went to that fits (*redirected = 1). 0 when there
 * is no sample or no sampled target fits (the walk would abort on the bits
 * before the next unknown target: the target is unknown). */
uint64_t stitch_indirect_target(const sig_db *db, const ic_program_image *img,
                                const sig_skeleton *sk, uint32_t k, uint64_t pc, uint64_t want,
                                uint64_t mask, uint64_t first, const sig_detail *d,
                                int *redirected) {
  if (!d || !d->next_pc) return 0;
  if (k + 1 >= sk->n || path_fits(img, sk, k + 1, d->next_pc)) return d->next_pc;
  uint64_t cand[SIG_DB_MAX_TARGETS];
  size_t nc = sig_db_targets(db, pc, want, mask, first, cand, SIG_DB_MAX_TARGETS);
  for (size_t i = 0; i < nc; i++)
    if (cand[i] != d->next_pc && path_fits(img, sk, k + 1, cand[i])) {
      *redirected = 1;
      return cand[i];
    }
  return 0;
}

/* A return site for a return at position k whose target is unknown: the
 * site the bits fit furthest from, if no other fits as far; 0 otherwise.
 * Time: O(sites * instructions checked per site). */
static uint64_t furthest_fit(const ic_program_image *img, const uint64_t *cand, size_t n,
                             const sig_skeleton *sk, uint32_t k) {
  if (!n || k + 1 >= sk->n) return 0;
  uint64_t best = 0;
  uint32_t blen = 0;
  int ties = 0;
  for (size_t i = 0; i < n; i++) {
    uint32_t len = stitch_path_fit_len(img, sk, k + 1, cand[i], UINT32_MAX);
    if (len > blen) {
      blen = len;
      best = cand[i];
      ties = 0;
    } else if (len && len == blen) {
      ties = 1;
    }
  }
  return ties ? 0 : best;
}

/* The furthest fit among candidates, the nearest to pc of equal ones
   (jump_target, pointer_target). */
struct fit_pick {
  uint64_t pc, best, bdist;
  uint32_t blen;
};

/* Considers candidate cand; returns how far the bits fit from it. */
static uint32_t fit_consider(struct fit_pick *f, const ic_program_image *img,
                             const sig_skeleton *sk, uint32_t k, uint64_t cand) {
  const uint32_t len = stitch_path_fit_len(img, sk, k + 1, cand, UINT32_MAX); /* 0 outside the code */
  const uint64_t dist = cand > f->pc ? cand - f->pc : f->pc - cand;
  if (len > f->blen || (len && len == f->blen && dist < f->bdist)) {
    f->blen = len;
    f->best = cand;
    f->bdist = dist;
  }
  return len;
}

/* The target of an indirect jump at position k (pc) that no sample shows.
 * Jump tables (a switch, glibc's memcpy tails, an interpreter's dispatch)
 * jump within their function, and a rarely run one may have no sample of
 * its own, so the instruction boundaries near pc are the candidates:
 *   - of the first NEAR_BYTES instructions from pc - NEAR_BYTES to
 *     pc + NEAR_BYTES, the one the bits fit furthest, where no other fits
 *     as far;
 *   - else, of every boundary within FAR_BYTES, the nearest to pc of those
 *     the bits fit furthest. A table may reach further than NEAR_BYTES,
 *     and within it several targets may fit as far: lua's luaV_execute
 *     spans 9 KB, the handlers of its rarer opcodes have no sample at the
 *     dispatch jump, and several handlers fit up to the next dispatch. A
 *     wrong guess among those is a path the bits fit, as a handler the
 *     sample would have shown; cutting the fragment there left most of it
 *     out (lua.short: 125 of 200 fragments cut, the profiler's mean error
 *     10.0% on the baseline machine and 19.1% on configs/modern.yaml; with
 *     the wider search, 84 cut and 6.5%, 46 cut and 2.9%).
 * One walk over the candidates serves both; 0 where none fits. Time:
 * O(FAR_BYTES * instructions checked per candidate), once per such jump. */
#define NEAR_BYTES 2048u
#define FAR_BYTES 16384u
uint64_t stitch_jump_target(const ic_program_image *img, const sig_skeleton *sk, uint32_t k,
                            uint64_t pc) {
  if (k + 1 >= sk->n) return 0;
  struct fit_pick far = {pc, 0, 0, 0};
  uint64_t near = 0;
  uint32_t nlen = 0;
  int ties = 0;
  size_t nn = 0; /* instructions among the near candidates so far */
  const uint64_t nlo = (pc > NEAR_BYTES ? pc - NEAR_BYTES : 2) & ~(uint64_t)1;
  const uint64_t flo = (pc > FAR_BYTES ? pc - FAR_BYTES : 2) & ~(uint64_t)1;
  for (uint64_t a = flo; a <= pc + FAR_BYTES; a += 2) {
    const uint32_t len = fit_consider(&far, img, sk, k, a);
    if (a < nlo || a > pc + NEAR_BYTES || nn >= NEAR_BYTES) continue;
    ic_static_inst si;
    if (!img->lookup(img->ctx, a, &si) || !si.valid || si.opclass >= IC_OP_COUNT) continue;
    nn++;
    if (len > nlen) {
      nlen = len;
      near = a;
      ties = 0;
    } else if (len && len == nlen) {
      ties = 1;
    }
  }
  return near && !ties ? near : far.best;
}

/* The target of an indirect call at position k (pc) that no sample gives
 * (a call through a pointer run too rarely to be sampled: libc's start-up
 * hooks, a FILE's vtable, an interpreter's C functions): of the code
 * addresses the program's data holds (ic_program_image.code_pointers,
 * where function pointers live), the one the bits fit furthest, the
 * nearest to pc of those that fit as far; 0 where none fits or the image
 * does not know them. Time: O(pointers * instructions checked per one). */
uint64_t stitch_pointer_target(const ic_program_image *img, const sig_skeleton *sk, uint32_t k,
                               uint64_t pc) {
  const uint64_t *cand = NULL;
  const size_t n = img->code_pointers && k + 1 < sk->n ? img->code_pointers(img->ctx, &cand) : 0;
  struct fit_pick f = {pc, 0, 0, 0};
  for (size_t i = 0; i < n; i++) fit_consider(&f, img, sk, k, cand[i]);
  return f.best;
}

uint64_t stitch_site_target(const ic_program_image *img, const ic_stitch_sites *sites,
                            const sig_skeleton *sk, uint32_t k) {
  return sites ? furthest_fit(img, sites->pc, sites->n, sk, k) : 0;
}

/* ---- decode cache -------------------------------------------------------- */

#define IMAGE_CACHE_BITS 16
struct ic_image_cache {
  ic_program_image inner;
  struct image_entry {
    uint64_t pc; /* pc + 1: 0 marks an empty entry */
    int ok;
    ic_static_inst si;
  } *e;
};

ic_status ic_image_cache_create(ic_image_cache **out, const ic_program_image *inner, ic_err *err) {
  *out = NULL;
  ic_image_cache *c = calloc(1, sizeof *c);
  if (c) c->e = calloc((size_t)1 << IMAGE_CACHE_BITS, sizeof *c->e);
  if (!c || !c->e) {
    free(c);
    return ic_fail(err, IC_ERUN, "stitcher: out of memory (decode cache)");
  }
  c->inner = *inner;
  *out = c;
  return IC_OK;
}

void ic_image_cache_destroy(ic_image_cache *c) {
  if (!c) return;
  free(c->e);
  free(c);
}

static int cached_lookup(void *ctx, uint64_t pc, ic_static_inst *out) {
  ic_image_cache *c = ctx;
  struct image_entry *e = &c->e[(pc >> 1) & (((size_t)1 << IMAGE_CACHE_BITS) - 1)];
  if (e->pc != pc + 1) {
    e->ok = c->inner.lookup(c->inner.ctx, pc, &e->si);
    e->pc = pc + 1;
  }
  *out = e->si;
  return e->ok;
}

static size_t cached_code_pointers(void *ctx, const uint64_t **out) {
  const ic_image_cache *c = ctx;
  *out = NULL;
  return c->inner.code_pointers ? c->inner.code_pointers(c->inner.ctx, out) : 0;
}

ic_program_image ic_image_cache_image(ic_image_cache *c) {
  ic_program_image im = {c, cached_lookup, cached_code_pointers};
  return im;
}
