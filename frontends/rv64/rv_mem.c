/* rv_mem.c: guest memory of the RV64 emulator.
 *
 * Pages live in a 3-level radix table (12 bits per level over the 36-bit
 * page number). The interpreter's fast path goes through the software TLBs
 * in rv_exec.c; everything here is the slow path: mapping, permission checks,
 * first-touch allocation, and copies for system calls. Any change of mapping
 * or permission flushes the TLBs, since they cache host addresses. */
#include <stdlib.h>

#include "rv_internal.h"

void rv_tlb_flush(rv_proc *p) {
  for (unsigned i = 0; i < RV_TLB_SIZE; i++) {
    p->tlb_r[i].vpn = UINT64_MAX;
    p->tlb_w[i].vpn = UINT64_MAX;
  }
}

void rv_mem_init(rv_proc *p) {
  memset(p->radix, 0, sizeof p->radix);
  p->pages_alloc = 0;
  rv_tlb_flush(p);
}

void rv_mem_free(rv_proc *p) {
  for (unsigned i = 0; i < RV_RADIX_SIZE; i++) {
    rv_pte **mid = p->radix[i];
    if (!mid) continue;
    for (unsigned j = 0; j < RV_RADIX_SIZE; j++) {
      rv_pte *leaf = mid[j];
      if (!leaf) continue;
      for (unsigned k = 0; k < RV_RADIX_SIZE; k++) free(leaf[k].data);
      free(leaf);
    }
    free(mid);
    p->radix[i] = NULL;
  }
  p->pages_alloc = 0;
  rv_tlb_flush(p);
}

int rv_mem_copy_from(rv_proc *dst, const rv_proc *src) {
  rv_mem_init(dst);
  for (unsigned i = 0; i < RV_RADIX_SIZE; i++) {
    rv_pte **smid = src->radix[i];
    if (!smid) continue;
    rv_pte **mid = calloc(RV_RADIX_SIZE, sizeof *mid);
    if (!mid) return -1;
    dst->radix[i] = mid;
    for (unsigned j = 0; j < RV_RADIX_SIZE; j++) {
      const rv_pte *sleaf = smid[j];
      if (!sleaf) continue;
      rv_pte *leaf = calloc(RV_RADIX_SIZE, sizeof *leaf);
      if (!leaf) return -1;
      mid[j] = leaf;
      for (unsigned k = 0; k < RV_RADIX_SIZE; k++) {
        leaf[k].prot = sleaf[k].prot;
        if (!sleaf[k].data) continue;
        leaf[k].data = malloc(RV_PAGE_SIZE);
        if (!leaf[k].data) return -1;
        memcpy(leaf[k].data, sleaf[k].data, RV_PAGE_SIZE);
        dst->pages_alloc++;
      }
    }
  }
  return 0;
}

rv_pte *rv_mem_pte(const rv_proc *p, uint64_t vpn) {
  if (vpn >= (RV_VA_LIMIT >> RV_PAGE_BITS)) return NULL;
  rv_pte **mid = p->radix[vpn >> (2 * RV_RADIX_BITS)];
  if (!mid) return NULL;
  rv_pte *leaf = mid[(vpn >> RV_RADIX_BITS) & (RV_RADIX_SIZE - 1)];
  if (!leaf) return NULL;
  return &leaf[vpn & (RV_RADIX_SIZE - 1)];
}

static rv_pte *pte_create(rv_proc *p, uint64_t vpn) {
  if (vpn >= (RV_VA_LIMIT >> RV_PAGE_BITS)) return NULL;
  rv_pte ***midp = &p->radix[vpn >> (2 * RV_RADIX_BITS)];
  if (!*midp && !(*midp = calloc(RV_RADIX_SIZE, sizeof **midp))) return NULL;
  rv_pte **leafp = &(*midp)[(vpn >> RV_RADIX_BITS) & (RV_RADIX_SIZE - 1)];
  if (!*leafp && !(*leafp = calloc(RV_RADIX_SIZE, sizeof **leafp))) return NULL;
  return &(*leafp)[vpn & (RV_RADIX_SIZE - 1)];
}

/* Range walks go leaf by leaf: one radix lookup per 4096 pages. */
static uint64_t leaf_end(uint64_t vpn, uint64_t end) {
  uint64_t e = (vpn | (RV_RADIX_SIZE - 1)) + 1;
  return e < end ? e : end;
}

/* Pages of [addr, addr+len) that are not mapped yet. */
static uint64_t pages_unmapped(const rv_proc *p, uint64_t addr, uint64_t len) {
  uint64_t n = 0, end = (addr + len) >> RV_PAGE_BITS;
  for (uint64_t vpn = addr >> RV_PAGE_BITS; vpn < end;) {
    uint64_t stop = leaf_end(vpn, end);
    const rv_pte *e = rv_mem_pte(p, vpn);
    if (!e) {
      n += stop - vpn;
      vpn = stop;
      continue;
    }
    for (; vpn < stop; vpn++, e++) n += !e->prot;
  }
  return n;
}

int rv_mem_map(rv_proc *p, uint64_t addr, uint64_t len, uint32_t prot) {
  uint64_t more = pages_unmapped(p, addr, len);
  if (p->pages_limit && p->pages_mapped + more > p->pages_limit) return -1;
  rv_tlb_flush(p);
  rv_dcache_invalidate(p, addr, len);
  uint64_t end = (addr + len) >> RV_PAGE_BITS;
  for (uint64_t vpn = addr >> RV_PAGE_BITS; vpn < end;) {
    rv_pte *e = pte_create(p, vpn);
    if (!e) {
      p->host_oom = 1;
      return -1;
    }
    for (uint64_t stop = leaf_end(vpn, end); vpn < stop; vpn++, e++) {
      if (e->data) {
        free(e->data);
        e->data = NULL;
        p->pages_alloc--;
      }
      if (!e->prot) p->pages_mapped++;
      e->prot = prot | RV_MAPPED;
    }
  }
  return 0;
}

void rv_mem_unmap(rv_proc *p, uint64_t addr, uint64_t len) {
  rv_tlb_flush(p);
  rv_dcache_invalidate(p, addr, len);
  uint64_t end = (addr + len) >> RV_PAGE_BITS;
  for (uint64_t vpn = addr >> RV_PAGE_BITS; vpn < end;) {
    uint64_t stop = leaf_end(vpn, end);
    rv_pte *e = rv_mem_pte(p, vpn);
    if (!e) {
      vpn = stop;
      continue;
    }
    for (; vpn < stop; vpn++, e++) {
      if (e->data) p->pages_alloc--;
      if (e->prot) p->pages_mapped--;
      free(e->data);
      e->data = NULL;
      e->prot = 0;
    }
  }
}

int rv_mem_range_mapped(const rv_proc *p, uint64_t addr, uint64_t len) {
  uint64_t end = (addr + len) >> RV_PAGE_BITS;
  for (uint64_t vpn = addr >> RV_PAGE_BITS; vpn < end;) {
    const rv_pte *e = rv_mem_pte(p, vpn);
    if (!e) return 0;
    for (uint64_t stop = leaf_end(vpn, end); vpn < stop; vpn++, e++)
      if (!e->prot) return 0;
  }
  return 1;
}

int rv_mem_range_free(const rv_proc *p, uint64_t addr, uint64_t len) {
  if (addr + len > RV_VA_LIMIT || addr + len < addr) return 0;
  uint64_t end = (addr + len) >> RV_PAGE_BITS;
  for (uint64_t vpn = addr >> RV_PAGE_BITS; vpn < end;) {
    uint64_t stop = leaf_end(vpn, end);
    const rv_pte *e = rv_mem_pte(p, vpn);
    if (!e) {
      vpn = stop;
      continue;
    }
    for (; vpn < stop; vpn++, e++)
      if (e->prot) return 0;
  }
  return 1;
}

int rv_mem_protect(rv_proc *p, uint64_t addr, uint64_t len, uint32_t prot) {
  if (!rv_mem_range_mapped(p, addr, len)) return -1;
  rv_tlb_flush(p);
  rv_dcache_invalidate(p, addr, len);
  uint64_t end = (addr + len) >> RV_PAGE_BITS;
  for (uint64_t vpn = addr >> RV_PAGE_BITS; vpn < end;) {
    rv_pte *e = rv_mem_pte(p, vpn);
    for (uint64_t stop = leaf_end(vpn, end); vpn < stop; vpn++, e++) e->prot = prot | RV_MAPPED;
  }
  return 0;
}

void rv_mem_discard(rv_proc *p, uint64_t addr, uint64_t len) {
  rv_tlb_flush(p);
  rv_dcache_invalidate(p, addr, len);
  for (uint64_t a = addr; a < addr + len; a += RV_PAGE_SIZE) {
    rv_pte *e = rv_mem_pte(p, a >> RV_PAGE_BITS);
    if (!e || !e->data) continue;
    free(e->data);
    e->data = NULL;
    p->pages_alloc--;
  }
}

void rv_mem_move(rv_proc *p, uint64_t old_addr, uint64_t new_addr, uint64_t len) {
  rv_tlb_flush(p);
  rv_dcache_invalidate(p, old_addr, len);
  rv_dcache_invalidate(p, new_addr, len);
  for (uint64_t off = 0; off < len; off += RV_PAGE_SIZE) {
    rv_pte *o = rv_mem_pte(p, (old_addr + off) >> RV_PAGE_BITS);
    rv_pte *n = pte_create(p, (new_addr + off) >> RV_PAGE_BITS);
    if (!o || !n) continue; /* n exists: the caller mapped the target range */
    if (n->data) p->pages_alloc--;
    free(n->data);
    if (o->prot) p->pages_mapped--; /* n was counted when the caller mapped it */
    *n = *o;
    o->data = NULL;
    o->prot = 0;
  }
}

uint8_t *rv_mem_host(rv_proc *p, uint64_t addr, uint32_t prot) {
  rv_pte *e = rv_mem_pte(p, addr >> RV_PAGE_BITS);
  if (!e || (e->prot & prot) != prot || !(e->prot & RV_MAPPED)) return NULL;
  if (!e->data) {
    e->data = calloc(1, RV_PAGE_SIZE);
    if (!e->data) {
      p->host_oom = 1;
      return NULL;
    }
    p->pages_alloc++;
  }
  return e->data + (addr & RV_PAGE_MASK);
}

int rv_mem_read(rv_proc *p, uint64_t addr, void *buf, uint64_t len) {
  uint8_t *out = buf;
  while (len) {
    uint64_t n = RV_PAGE_SIZE - (addr & RV_PAGE_MASK);
    if (n > len) n = len;
    const uint8_t *h = rv_mem_host(p, addr, RV_PROT_R);
    if (!h) return -1;
    memcpy(out, h, n);
    out += n, addr += n, len -= n;
  }
  return 0;
}

/* Stores land on pages that may hold pre-decoded code (X pages never enter
   the write TLB); so the copy routines drop stale decodes. */
static int mem_store(rv_proc *p, uint64_t addr, const void *buf, uint64_t len, uint32_t prot) {
  const uint8_t *in = buf;
  for (uint64_t a = addr & ~RV_PAGE_MASK; a < addr + len; a += RV_PAGE_SIZE)
    if (!rv_mem_host(p, a < addr ? addr : a, prot)) return -1;
  while (len) {
    uint64_t n = RV_PAGE_SIZE - (addr & RV_PAGE_MASK);
    if (n > len) n = len;
    uint8_t *h = rv_mem_host(p, addr, prot);
    if (!h) return -1;
    memcpy(h, in, n);
    if (rv_mem_pte(p, addr >> RV_PAGE_BITS)->prot & RV_PROT_X) rv_dcache_invalidate(p, addr, n);
    in += n, addr += n, len -= n;
  }
  return 0;
}

int rv_mem_write(rv_proc *p, uint64_t addr, const void *buf, uint64_t len) {
  return mem_store(p, addr, buf, len, RV_PROT_W);
}

int rv_mem_poke(rv_proc *p, uint64_t addr, const void *buf, uint64_t len) {
  return mem_store(p, addr, buf, len, 0);
}

int rv_mem_peek(const rv_proc *p, uint64_t addr, void *buf, uint64_t len, uint32_t prot) {
  uint8_t *out = buf;
  while (len) {
    uint64_t n = RV_PAGE_SIZE - (addr & RV_PAGE_MASK);
    if (n > len) n = len;
    const rv_pte *e = rv_mem_pte(p, addr >> RV_PAGE_BITS);
    if (!e || !(e->prot & RV_MAPPED) || (e->prot & prot) != prot) return -1;
    if (e->data)
      memcpy(out, e->data + (addr & RV_PAGE_MASK), n);
    else
      memset(out, 0, n);
    out += n, addr += n, len -= n;
  }
  return 0;
}

int rv_mem_read_str(rv_proc *p, uint64_t addr, char *buf, size_t cap) {
  for (size_t i = 0; i < cap; i++) {
    const uint8_t *h = rv_mem_host(p, addr + i, RV_PROT_R);
    if (!h) return -1;
    buf[i] = (char)*h;
    if (!*h) return 0;
  }
  return -2;
}

void rv_dcache_invalidate(rv_proc *p, uint64_t addr, uint64_t len) {
  if (!p->bcache) return;
  for (unsigned i = 0; i < RV_BCACHE_SIZE; i++) {
    rv_block *b = &p->bcache[i];
    if (b->pc != RV_NO_PC && b->pc < addr + len && b->end > addr) b->pc = RV_NO_PC;
  }
}

rv_block *rv_bcache_new(void) {
  rv_block *c = malloc(sizeof *c * RV_BCACHE_SIZE);
  if (c)
    for (unsigned i = 0; i < RV_BCACHE_SIZE; i++) c[i].pc = RV_NO_PC;
  return c;
}
