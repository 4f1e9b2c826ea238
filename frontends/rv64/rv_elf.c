/* rv_elf.c: loading a static RV64 ELF executable into a new guest process,
 * the initial stack as Linux builds it, and the process's lifetime
 * (destroy, clone).
 *
 * Accepted: ELF64, little-endian, EM_RISCV, ET_EXEC, or ET_DYN without
 * PT_INTERP (static-pie, loaded at RV_PIE_BASE; its own startup code applies
 * its relocations, as under Linux). Every header field the loader relies on
 * is checked against the file's size before use.
 *
 * Address space layout (deterministic, no randomization):
 *   program segments   where the ELF says (ET_DYN: + RV_PIE_BASE)
 *   brk heap           from the page after the highest segment, upwards
 *   mmap area          top-down below the stack
 *   stack              RV_STACK_SIZE below RV_STACK_TOP */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ic_file.h"
#include "rv_internal.h"

#define RV_PIE_BASE 0x2aaaaaa000ull
#define RV_STACK_TOP 0x4000000000ull
#define RV_STACK_SIZE (8ull << 20)
#define RV_MAX_FILE (1ull << 30)
#define RV_MAX_SEG (1ull << 32)
#define RV_MAX_PHNUM 256

enum { PT_LOAD_ = 1, PT_INTERP_ = 3, PT_PHDR_ = 6, PT_GNU_STACK_ = 0x6474e551 };
enum { EM_RISCV_ = 243, ET_EXEC_ = 2, ET_DYN_ = 3 };

/* In this order it is what `env -i PATH=/usr/local/bin:/usr/bin:/bin LANG=C
   qemu-riscv64 PROG` gives its guest, so the two runs can be compared. */
static const char *const default_env[] = {"LANG=C", "PATH=/usr/local/bin:/usr/bin:/bin", NULL};

void rv_options_default(rv_options *o) {
  o->stdin_fd = 0;
  o->stdout_fd = 1;
  o->stderr_fd = 2;
  o->seed = 0;
  o->envp = NULL;
  o->mem_limit = RV_DEFAULT_MEM_LIMIT;
  o->execfn = NULL;
  o->exe_link = NULL;
  o->root = NULL;
}

static uint16_t rd16(const uint8_t *b) { return (uint16_t)(b[0] | b[1] << 8); }
static uint32_t rd32(const uint8_t *b) { return (uint32_t)rd16(b) | (uint32_t)rd16(b + 2) << 16; }
static uint64_t rd64(const uint8_t *b) { return (uint64_t)rd32(b) | (uint64_t)rd32(b + 4) << 32; }

/* splitmix64: the guest's only source of randomness, seeded. */
uint64_t rv_rand_next(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static rv_proc *proc_alloc(void) {
  rv_proc *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  rv_mem_init(p);
  for (int i = 0; i < RV_MAX_FDS; i++) p->fds[i].host = -1;
  p->root_fd = -1;
  return p;
}

void rv_proc_destroy(rv_proc *p) {
  if (!p) return;
  free(p->codeptr);
  rv_mem_free(p);
  rv_fds_close(p);
  free(p->bcache);
  free(p->exe_path);
  if (p->root_fd >= 0) close(p->root_fd);
  free(p);
}

rv_proc *rv_proc_clone(const rv_proc *src) {
  rv_proc *p = malloc(sizeof *p);
  if (!p) return NULL;
  memcpy(p, src, sizeof *p);
  p->bcache = NULL;
  p->exe_path = NULL;
  memset(p->radix, 0, sizeof p->radix);
  for (int i = 0; i < RV_MAX_FDS; i++) p->fds[i].host = -1;
  p->exe_path = src->exe_path ? strdup(src->exe_path) : NULL;
  p->root_fd = src->root_fd >= 0 ? fcntl(src->root_fd, F_DUPFD_CLOEXEC, 3) : -1;
  p->codeptr = NULL;
  if (src->ncodeptr && (p->codeptr = malloc(src->ncodeptr * sizeof *p->codeptr)) != NULL)
    memcpy(p->codeptr, src->codeptr, src->ncodeptr * sizeof *p->codeptr);
  if ((src->exe_path && !p->exe_path) || (src->ncodeptr && !p->codeptr) ||
      (src->root_fd >= 0 && p->root_fd < 0) ||
      rv_mem_copy_from(p, src) ||
      rv_fds_dup_from(p, src)) {
    rv_proc_destroy(p);
    return NULL;
  }
  return p;
}

static ic_status map_failed(const rv_proc *p, const char *path, ic_err *err) {
  if (p->host_oom) return ic_fail(err, IC_ERUN, "%s: out of memory", path);
  return ic_fail(err, IC_EINPUT, "%s: the program's segments and stack need more than the guest "
                 "memory cap of %llu bytes", path, (unsigned long long)(p->pages_limit * RV_PAGE_SIZE));
}

static ic_status read_file(const char *path, uint8_t **out, size_t *len, ic_err *err) {
  struct stat st;
  FILE *f;
  ic_status ost = ic_file_open_regular(&f, path, err);
  if (ost != IC_OK) return ost;
  if (fstat(fileno(f), &st) != 0) {
    fclose(f);
    return ic_fail(err, IC_EINPUT, "%s: %s", path, strerror(errno));
  }
  if ((uint64_t)st.st_size > RV_MAX_FILE) {
    fclose(f);
    return ic_fail(err, IC_EINPUT, "%s: file too large for an executable (%lld bytes)", path,
                   (long long)st.st_size);
  }
  size_t n = (size_t)st.st_size;
  uint8_t *buf = malloc(n ? n : 1);
  if (!buf) {
    fclose(f);
    return ic_fail(err, IC_ERUN, "%s: out of memory", path);
  }
  if (fread(buf, 1, n, f) != n) {
    free(buf);
    fclose(f);
    return ic_fail(err, IC_EINPUT, "%s: read error", path);
  }
  fclose(f);
  *out = buf;
  *len = n;
  return IC_OK;
}

typedef struct seg {
  uint64_t off, vaddr, filesz, memsz;
  uint32_t flags;
} seg;

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

typedef struct addr_list {
  uint64_t *v;
  size_t n, cap;
} addr_list;

/* Appends w if it is an even address in an executable segment; -1 when out
   of memory. */
static int add_code_addr(addr_list *l, uint64_t w, const seg *segs, unsigned nseg) {
  int code = 0;
  for (unsigned j = 0; j < nseg && !code; j++)
    code = (segs[j].flags & 1) && w >= segs[j].vaddr && w - segs[j].vaddr < segs[j].memsz;
  if (!code || (w & 1)) return 0;
  if (l->n == l->cap) {
    uint64_t *g = realloc(l->v, (l->cap = l->cap ? 2 * l->cap : 1024) * sizeof *g);
    if (!g) return -1;
    l->v = g;
  }
  l->v[l->n++] = w;
  return 0;
}

static int64_t sext(uint64_t v, int bits) { return (int64_t)(v << (64 - bits)) >> (64 - bits); }

/* The code addresses an executable segment's instructions form as
   constants: auipc rd then addi/addiw rd', rd (pc-relative, lla: how _start
   hands main to __libc_start_main) and lui rd then addi/addiw rd', rd
   (absolute). Linear sweep; -1 when out of memory. */
static int code_constants(addr_list *l, const uint8_t *b, const seg *s, const seg *segs,
                          unsigned nseg) {
  uint64_t a = s->vaddr;
  const uint64_t end = s->vaddr + s->filesz;
  while (a + 2 <= end) {
    const uint32_t lo = rd16(b + s->off + (a - s->vaddr));
    if ((lo & 3) != 3) {
      a += 2;
      continue;
    }
    if (a + 8 > end) break;
    const uint32_t w = rd32(b + s->off + (a - s->vaddr));
    const uint32_t op = w & 0x7f, rd = (w >> 7) & 31;
    if ((op == 0x17 || op == 0x37) && rd) {
      const uint32_t n = rd32(b + s->off + (a + 4 - s->vaddr));
      const uint32_t nop = n & 0x7f, f3 = (n >> 12) & 7, rs1 = (n >> 15) & 31;
      if ((nop == 0x13 || nop == 0x1b) && f3 == 0 && rs1 == rd) {
        uint64_t hi = (uint64_t)sext(w & 0xfffff000u, 32), v = hi + (uint64_t)sext(n >> 20, 12);
        if (op == 0x17) v += a;
        if (nop == 0x1b) v = (uint64_t)sext(v & 0xffffffffu, 32);
        if (add_code_addr(l, v, segs, nseg)) return -1;
      }
    }
    a += 4;
  }
  return 0;
}

/* The code pointers of the image (rv_internal.h, codeptr): every 8-byte
   aligned word of a segment's file bytes whose value is an even address in
   an executable segment, and the code addresses the code forms as
   constants (code_constants). Whether an instruction decodes there is the
   reader's to check. O(file bytes + k log k). */
static ic_status find_code_pointers(rv_proc *p, const char *path, const uint8_t *b,
                                    const seg *segs, unsigned nseg, ic_err *err) {
  addr_list l = {NULL, 0, 0};
  for (unsigned i = 0; i < nseg; i++) {
    for (uint64_t a = (segs[i].vaddr + 7) & ~(uint64_t)7; a + 8 <= segs[i].vaddr + segs[i].filesz;
         a += 8)
      if (add_code_addr(&l, rd64(b + segs[i].off + (a - segs[i].vaddr)), segs, nseg)) goto oom;
    if ((segs[i].flags & 1) && code_constants(&l, b, &segs[i], segs, nseg)) goto oom;
  }
  uint64_t *v = l.v;
  size_t n = l.n;
  if (n) qsort(v, n, sizeof *v, cmp_u64);
  size_t m = 0;
  for (size_t i = 0; i < n; i++)
    if (!m || v[i] != v[m - 1]) v[m++] = v[i];
  free(p->codeptr);
  p->codeptr = v;
  p->ncodeptr = m;
  return IC_OK;
oom:
  free(l.v);
  return ic_fail(err, IC_ERUN, "%s: out of memory", path);
}

/* Validates the ELF image and maps its segments into p. */
static ic_status load_image(rv_proc *p, const char *path, const uint8_t *b, size_t n, ic_err *err) {
  static const uint8_t magic[4] = {0x7f, 'E', 'L', 'F'};
  if (n < 4 || memcmp(b, magic, 4) != 0) return ic_fail(err, IC_EINPUT, "%s: not an ELF file", path);
  if (n < 64) return ic_fail(err, IC_EINPUT, "%s: truncated ELF header (%zu bytes)", path, n);
  if (b[4] != 2) return ic_fail(err, IC_EINPUT, "%s: not a 64-bit ELF file (class %u)", path, b[4]);
  if (b[5] != 1) return ic_fail(err, IC_EINPUT, "%s: not a little-endian ELF file (data %u)", path, b[5]);
  if (b[6] != 1) return ic_fail(err, IC_EINPUT, "%s: unknown ELF version %u", path, b[6]);
  unsigned type = rd16(b + 16), machine = rd16(b + 18);
  if (machine != EM_RISCV_)
    return ic_fail(err, IC_EINPUT, "%s: not a RISC-V executable (machine %u)", path, machine);
  if (type != ET_EXEC_ && type != ET_DYN_)
    return ic_fail(err, IC_EINPUT, "%s: not an executable (ELF type %u)", path, type);
  if (rd32(b + 48) & 0x8)
    return ic_fail(err, IC_EINPUT, "%s: RV32E/RV64E executables are not supported", path);
  uint64_t entry = rd64(b + 24), phoff = rd64(b + 32);
  unsigned phentsize = rd16(b + 54), phnum = rd16(b + 56);
  if (phentsize != 56)
    return ic_fail(err, IC_EINPUT, "%s: bad program header entry size %u", path, phentsize);
  if (phnum == 0 || phnum > RV_MAX_PHNUM)
    return ic_fail(err, IC_EINPUT, "%s: absurd program header count %u", path, phnum);
  if (phoff > n || (uint64_t)phnum * 56 > n - phoff)
    return ic_fail(err, IC_EINPUT, "%s: program headers lie outside the file", path);

  uint64_t base = type == ET_DYN_ ? RV_PIE_BASE : 0;
  seg segs[RV_MAX_PHNUM];
  unsigned nseg = 0;
  uint64_t phdr_vaddr = 0;
  int have_phdr = 0, exec_stack = 0;
  for (unsigned i = 0; i < phnum; i++) {
    const uint8_t *ph = b + phoff + (uint64_t)i * 56;
    uint32_t ptype = rd32(ph), flags = rd32(ph + 4);
    uint64_t off = rd64(ph + 8), vaddr = rd64(ph + 16), filesz = rd64(ph + 32),
             memsz = rd64(ph + 40);
    if (ptype == PT_INTERP_)
      return ic_fail(err, IC_EINPUT,
                     "%s: dynamically linked (has PT_INTERP); only static executables run", path);
    if (ptype == PT_PHDR_) {
      phdr_vaddr = vaddr + base;
      have_phdr = 1;
    }
    if (ptype == PT_GNU_STACK_) exec_stack = (flags & 1) != 0;
    if (ptype != PT_LOAD_) continue;
    if (filesz > memsz)
      return ic_fail(err, IC_EINPUT, "%s: segment %u: file size exceeds memory size", path, i);
    if (memsz > RV_MAX_SEG)
      return ic_fail(err, IC_EINPUT, "%s: segment %u: absurd size %llu", path, i,
                     (unsigned long long)memsz);
    if (off > n || filesz > n - off)
      return ic_fail(err, IC_EINPUT, "%s: segment %u lies outside the file (truncated?)", path, i);
    if (vaddr >= RV_VA_LIMIT || memsz > RV_VA_LIMIT - vaddr || vaddr + memsz + base > RV_STACK_TOP - RV_STACK_SIZE)
      return ic_fail(err, IC_EINPUT, "%s: segment %u: address 0x%llx out of range", path, i,
                     (unsigned long long)vaddr);
    if (memsz == 0) continue;
    segs[nseg++] = (seg){off, vaddr + base, filesz, memsz, flags};
  }
  if (nseg == 0) return ic_fail(err, IC_EINPUT, "%s: no loadable segment", path);
  for (unsigned i = 0; i < nseg; i++)
    for (unsigned j = i + 1; j < nseg; j++)
      if (segs[i].vaddr < segs[j].vaddr + segs[j].memsz &&
          segs[j].vaddr < segs[i].vaddr + segs[i].memsz)
        return ic_fail(err, IC_EINPUT, "%s: loadable segments overlap", path);

  /* Map. Segments that share a page get the union of their permissions. */
  uint64_t end = 0;
  int entry_ok = 0;
  for (unsigned i = 0; i < nseg; i++) {
    const seg *s = &segs[i];
    uint32_t prot = ((s->flags & 4) ? RV_PROT_R : 0) | ((s->flags & 2) ? RV_PROT_W : 0) |
                    ((s->flags & 1) ? RV_PROT_X : 0);
    uint64_t lo = s->vaddr & ~RV_PAGE_MASK, hi = (s->vaddr + s->memsz + RV_PAGE_MASK) & ~RV_PAGE_MASK;
    for (uint64_t a = lo; a < hi;) {
      rv_pte *e = rv_mem_pte(p, a >> RV_PAGE_BITS);
      if (e && e->prot) { /* a page shared with an earlier segment */
        e->prot |= prot;
        a += RV_PAGE_SIZE;
        continue;
      }
      uint64_t b = a + RV_PAGE_SIZE; /* map the run of fresh pages at once */
      while (b < hi && !((e = rv_mem_pte(p, b >> RV_PAGE_BITS)) && e->prot)) b += RV_PAGE_SIZE;
      if (rv_mem_map(p, a, b - a, prot)) return map_failed(p, path, err);
      a = b;
    }
    if (s->filesz && rv_mem_poke(p, s->vaddr, b + s->off, s->filesz))
      return ic_fail(err, IC_ERUN, "%s: out of memory", path);
    if (hi > end) end = hi;
    if ((prot & RV_PROT_X) && entry + base >= s->vaddr && entry + base < s->vaddr + s->memsz)
      entry_ok = 1;
    if (!have_phdr && phoff >= s->off && phoff - s->off < s->filesz) {
      phdr_vaddr = s->vaddr + (phoff - s->off);
      have_phdr = 1;
    }
  }
  if (!entry_ok)
    return ic_fail(err, IC_EINPUT, "%s: entry point 0x%llx is not in an executable segment", path,
                   (unsigned long long)entry);
  ic_status cst = find_code_pointers(p, path, b, segs, nseg, err);
  if (cst != IC_OK) return cst;
  p->entry = entry + base;
  p->phdr = have_phdr ? phdr_vaddr : 0;
  p->phent = 56;
  p->phnum = phnum;
  p->brk_start = p->brk_cur = end;
  p->stack_top = RV_STACK_TOP;
  p->mmap_next = RV_STACK_TOP - RV_STACK_SIZE - 16 * RV_PAGE_SIZE;
  if (rv_mem_map(p, RV_STACK_TOP - RV_STACK_SIZE, RV_STACK_SIZE,
                 RV_PROT_R | RV_PROT_W | (exec_stack ? RV_PROT_X : 0)))
    return map_failed(p, path, err);
  return IC_OK;
}

/* The initial stack: argc, argv[], NULL, envp[], NULL, auxv pairs, AT_NULL,
   then (higher) the 16 AT_RANDOM bytes and the strings, laid out as Linux
   and qemu-user lay them (the pc traces of tests/diff depend on it). The
   timing commands give argv[0] and AT_EXECFN without a directory
   (rv_options.execfn), so that where the program lies moves nothing. */
static ic_status build_stack(rv_proc *p, const char *path, const char *execfn_s, int argc,
                             char *const argv[], char *const *envp, ic_err *err) {
  uint64_t sp = p->stack_top;
  size_t envc = 0;
  while (envp[envc]) envc++;
  if (argc < 0 || (uint64_t)argc + envc > 100000)
    return ic_fail(err, IC_EINPUT, "%s: too many arguments", path);
  uint64_t *argv_g = calloc((size_t)argc + 1, 8), *envp_g = calloc(envc + 1, 8);
  ic_status st = IC_OK;
  if (!argv_g || !envp_g) {
    st = ic_fail(err, IC_ERUN, "%s: out of memory", path);
    goto done;
  }
#define PUSH_STR(s, slot)                                                         \
  do {                                                                            \
    size_t l_ = strlen(s) + 1;                                                    \
    if (l_ > RV_STACK_SIZE / 4 || sp - (p->stack_top - RV_STACK_SIZE) < l_ + 4096) { \
      st = ic_fail(err, IC_EINPUT, "%s: arguments too long", path);               \
      goto done;                                                                  \
    }                                                                             \
    sp -= l_;                                                                     \
    rv_mem_poke(p, sp, s, l_);                                                    \
    slot = sp;                                                                    \
  } while (0)
  uint64_t execfn;
  PUSH_STR(execfn_s, execfn);
  for (size_t i = envc; i-- > 0;) PUSH_STR(envp[i], envp_g[i]);
  for (int i = argc; i-- > 0;) PUSH_STR(argv[i], argv_g[i]);
#undef PUSH_STR
  uint8_t rnd[16];
  uint64_t rs = p->seed ^ 0x52414e444f4dull;
  for (int i = 0; i < 2; i++) {
    uint64_t v = rv_rand_next(&rs);
    memcpy(rnd + 8 * i, &v, 8);
  }
  sp = (sp - 16) & ~15ull;
  uint64_t at_random = sp;
  rv_mem_poke(p, sp, rnd, 16);

  const uint64_t hwcap = (1u << ('I' - 'A')) | (1u << ('M' - 'A')) | (1u << ('A' - 'A')) |
                         (1u << ('F' - 'A')) | (1u << ('D' - 'A')) | (1u << ('C' - 'A'));
  const uint64_t auxv[][2] = {
      {3, p->phdr},   {4, p->phent},    {5, p->phnum},   {6, RV_PAGE_SIZE}, {7, 0},
      {8, 0},         {9, p->entry},    {11, 1000},      {12, 1000},        {13, 1000},
      {14, 1000},     {16, hwcap},      {17, 100},       {23, 0},           {25, at_random},
      {31, execfn},   {0, 0}};
  size_t nwords = 1 + (size_t)argc + 1 + envc + 1 + 2 * (sizeof auxv / sizeof auxv[0]);
  sp = (sp - 8 * nwords) & ~15ull;
  p->x[2] = sp;
  uint64_t w = (uint64_t)argc, a = sp;
  rv_mem_poke(p, a, &w, 8), a += 8;
  rv_mem_poke(p, a, argv_g, 8 * ((size_t)argc + 1)), a += 8 * ((uint64_t)argc + 1);
  rv_mem_poke(p, a, envp_g, 8 * (envc + 1)), a += 8 * (envc + 1);
  rv_mem_poke(p, a, auxv, sizeof auxv);
done:
  free(argv_g);
  free(envp_g);
  return st;
}

ic_status rv_proc_load(rv_proc **out, const char *path, int argc, char *const argv[],
                       const rv_options *opt, ic_err *err) {
  rv_options defaults;
  uint8_t *img = NULL;
  size_t n = 0;
  *out = NULL;
  if (!opt) {
    rv_options_default(&defaults);
    opt = &defaults;
  }
  ic_status st = read_file(path, &img, &n, err);
  if (st != IC_OK) return st;
  rv_proc *p = proc_alloc();
  if (!p) {
    free(img);
    return ic_fail(err, IC_ERUN, "%s: out of memory", path);
  }
  p->seed = opt->seed;
  p->state = RV_RUNNING;
  p->pages_limit = (opt->mem_limit + RV_PAGE_MASK) >> RV_PAGE_BITS;
  if (opt->root) {
    struct stat rs;
    p->root_fd = open(opt->root, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (p->root_fd < 0 || fstat(p->root_fd, &rs) != 0 || !S_ISDIR(rs.st_mode)) {
      st = ic_fail(err, IC_EINPUT, "--guest-root %s: %s", opt->root,
                   errno == ENOTDIR ? "not a directory" : strerror(errno));
      free(img);
      rv_proc_destroy(p);
      return st;
    }
  }
  st = load_image(p, path, img, n, err);
  free(img);
  if (st == IC_OK) {
    char resolved[PATH_MAX];
    p->exe_path = strdup(opt->exe_link                    ? opt->exe_link
                         : realpath(path, resolved) ? resolved
                                                    : path);
    if (!p->exe_path) st = ic_fail(err, IC_ERUN, "%s: out of memory", path);
  }
  if (st == IC_OK)
    st = build_stack(p, path, opt->execfn ? opt->execfn : path, argc, argv,
                     opt->envp ? opt->envp : (char *const *)default_env, err);
  if (st != IC_OK) {
    rv_proc_destroy(p);
    return st;
  }
  p->pc = p->entry;
  p->fds[0].host = opt->stdin_fd;
  p->fds[1].host = opt->stdout_fd;
  p->fds[2].host = opt->stderr_fd;
  p->rand_ctr = opt->seed;
  *out = p;
  return IC_OK;
}
