/* test_symbols.c: pc -> function and file:line, and code regions -> pc
 * ranges (frontends/symbols), on a guest built with riscv64-linux-gnu-gcc
 * -g -O1 -static and its stripped variants (tests/test_where_guest.h), on
 * AArch64 and x86-64 builds of it, and on broken files.
 *
 * The independent oracle is binutils' addr2line: for every instruction
 * address of hot_loop the function and file:line must be what addr2line
 * says. Tests without a compiler are skipped with a message. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols.h"
#include "test_where_guest.h"

static ic_symbols *open_ok(const char *path) {
  ic_symbols *s = NULL;
  ic_err err;
  ic_status st = ic_sym_open(&s, path, &err);
  cr_assert_eq(st, IC_OK, "%s", err.msg);
  return s;
}

static int ends_with(const char *s, const char *tail) {
  size_t a = strlen(s), b = strlen(tail);
  return a >= b && strcmp(s + a - b, tail) == 0;
}

/* Compares every 2-byte step of [lo, hi) (only instruction starts are
 * asked, by addr2line's own answer being a real line) with addr2line -f. */
static void check_against_addr2line(const ic_symbols *s, const char *addr2line, const char *exe, uint64_t lo,
                                    uint64_t hi, uint64_t bias, int step) {
  char cmd[4096];
  int n = snprintf(cmd, sizeof cmd, "%s -f -e %s", addr2line, exe);
  int asked = 0;
  for (uint64_t a = lo; a < hi && n < (int)sizeof cmd - 32; a += (uint64_t)step, asked++)
    n += snprintf(cmd + n, sizeof cmd - (size_t)n, " 0x%llx", (unsigned long long)(a - bias));
  FILE *p = popen(cmd, "r");
  cr_assert_not_null(p);
  char fn[512], loc[1024];
  uint64_t a = lo;
  int compared = 0;
  for (int i = 0; i < asked; i++, a += (uint64_t)step) {
    cr_assert(fgets(fn, sizeof fn, p) && fgets(loc, sizeof loc, p), "addr2line ended early");
    fn[strcspn(fn, "\n")] = 0;
    char *colon = strrchr(loc, ':');
    cr_assert_not_null(colon);
    *colon = 0;
    unsigned line = (unsigned)strtoul(colon + 1, NULL, 10); /* "12 (discriminator 1)" reads 12 */
    ic_sym_loc l;
    int found = ic_sym_lookup(s, a, &l);
    cr_assert(found & IC_SYM_FUNCTION, "0x%llx: no function", (unsigned long long)a);
    cr_expect_str_eq(l.function, fn, "0x%llx", (unsigned long long)a);
    if (strcmp(loc, "??") == 0 || line == 0) continue;
    cr_assert(found & IC_SYM_LINE, "0x%llx: no line (addr2line: %s:%u)", (unsigned long long)a, loc, line);
    cr_expect_str_eq(l.file, loc, "0x%llx", (unsigned long long)a);
    cr_expect_eq(l.line, line, "0x%llx: line %u, addr2line %u", (unsigned long long)a, l.line, line);
    compared++;
  }
  pclose(p);
  cr_assert_gt(compared, 4, "too few addresses compared with addr2line");
}

/* The hot loop's function, file and line, and the regions of both. */
static void check_hot_loop(const char *exe, const char *addr2line, int step) {
  ic_symbols *s = open_ok(exe);
  cr_assert(ic_sym_has_functions(s) && ic_sym_has_lines(s));
  cr_assert_null(ic_sym_warning(s), "%s", ic_sym_warning(s));
  ic_sym_range *fr, *lr;
  size_t nf, nl;
  ic_err err;
  cr_assert_eq(ic_sym_where(s, "hot_loop", &fr, &nf, &err), IC_OK, "%s", err.msg);
  cr_assert_geq(nf, 1);
  const unsigned hot = where_line_of("/* HOT */"), first = where_line_of("/* FIRST */"),
                 last = where_line_of("/* LAST */");
  char spec[64];
  snprintf(spec, sizeof spec, WHERE_SRC_NAME ":%u", hot);
  cr_assert_eq(ic_sym_where(s, spec, &lr, &nl, &err), IC_OK, "%s", err.msg);
  cr_assert_geq(nl, 1);
  /* the hot line's code lies in hot_loop and resolves to that line */
  for (size_t i = 0; i < nl; i++) {
    int inside = 0;
    for (size_t j = 0; j < nf; j++) inside |= lr[i].lo >= fr[j].lo && lr[i].hi <= fr[j].hi;
    cr_assert(inside, "%s: [0x%llx, 0x%llx) outside hot_loop", spec, (unsigned long long)lr[i].lo,
              (unsigned long long)lr[i].hi);
    ic_sym_loc l;
    int found = ic_sym_lookup(s, lr[i].lo, &l);
    cr_assert_eq(found, IC_SYM_FUNCTION | IC_SYM_LINE);
    cr_assert_str_eq(l.function, "hot_loop");
    cr_assert(ends_with(l.file, "/" WHERE_SRC_NAME), "%s", l.file);
    cr_assert_eq(l.line, hot);
  }
  /* every instruction of hot_loop lies on one of its lines */
  for (uint64_t a = fr[0].lo; a < fr[0].hi; a += (uint64_t)step) {
    ic_sym_loc l;
    if (ic_sym_lookup(s, a, &l) & IC_SYM_LINE) cr_assert(l.line >= first && l.line <= last, "line %u", l.line);
  }
  /* the line range of the whole function covers its code */
  snprintf(spec, sizeof spec, WHERE_SRC_NAME ":%u-%u", first, last);
  ic_sym_range *all;
  size_t na;
  cr_assert_eq(ic_sym_where(s, spec, &all, &na, &err), IC_OK, "%s", err.msg);
  uint64_t covered = 0, size = 0;
  for (size_t j = 0; j < nf; j++) size += fr[j].hi - fr[j].lo;
  for (size_t i = 0; i < na; i++)
    for (size_t j = 0; j < nf; j++) {
      uint64_t lo = all[i].lo > fr[j].lo ? all[i].lo : fr[j].lo, hi = all[i].hi < fr[j].hi ? all[i].hi : fr[j].hi;
      if (hi > lo) covered += hi - lo;
    }
  cr_assert_eq(covered, size, "lines %u-%u cover %llu of hot_loop's %llu bytes", first, last,
               (unsigned long long)covered, (unsigned long long)size);
  check_against_addr2line(s, addr2line, exe, fr[0].lo, fr[0].hi, ic_sym_bias(s), step);
  free(fr);
  free(lr);
  free(all);
  ic_sym_close(s);
}

Test(symbols, riscv64_dwarf_function_and_line) {
  const char *exe = where_rv_dwarf();
  if (!exe) cr_skip_test(WHERE_RV_CC " not found");
  check_hot_loop(exe, "riscv64-linux-gnu-addr2line", 2);
}

Test(symbols, aarch64_dwarf_function_and_line) {
  const char *exe = where_build("aarch64-linux-gnu-gcc", "-g -O1 -static", "hot_a64", NULL);
  if (!exe) cr_skip_test("aarch64-linux-gnu-gcc not found");
  check_hot_loop(exe, "aarch64-linux-gnu-addr2line", 4);
}

/* An x86-64 position-independent program: placed by the pcs it ran at a
 * load address of the loader's choosing. */
Test(symbols, x86_64_pie_is_placed_by_its_pcs) {
  const char *exe = where_build("gcc", "-g -O1 -fPIE -pie", "hot_x86", NULL);
  if (!exe) cr_skip_test("gcc not found");
  ic_symbols *s = open_ok(exe);
  cr_assert(ic_sym_is_pie(s));
  ic_sym_range *fr, *mr;
  size_t nf, nm;
  ic_err err;
  cr_assert_eq(ic_sym_where(s, "hot_loop", &fr, &nf, &err), IC_OK, "%s", err.msg);
  cr_assert_eq(ic_sym_where(s, "main", &mr, &nm, &err), IC_OK, "%s", err.msg);
  const uint64_t bias = 0x4000000000ull; /* any page-aligned address */
  /* pcs a run would show: the function entries and every byte after them,
   * and some of another mapping (a shared library) */
  uint64_t pcs[64];
  size_t n = 0;
  for (uint64_t a = fr[0].lo; a < fr[0].hi && n < 40; a++) pcs[n++] = a + bias;
  pcs[n++] = mr[0].lo + bias;
  for (int k = 0; k < 8; k++) pcs[n++] = 0x7f0000001000ull + 0x123 * (uint64_t)k;
  cr_assert_eq(ic_sym_guess_bias(s, pcs, n), 1);
  cr_assert_eq(ic_sym_bias(s), bias, "bias 0x%llx", (unsigned long long)ic_sym_bias(s));
  ic_sym_loc l;
  cr_assert(ic_sym_lookup(s, fr[0].lo + bias + 1, &l) & IC_SYM_FUNCTION);
  cr_assert_str_eq(l.function, "hot_loop");
  cr_assert_eq(l.offset, 1);
  /* regions come back as run-time pcs */
  ic_sym_range *fr2;
  cr_assert_eq(ic_sym_where(s, "hot_loop", &fr2, &nf, &err), IC_OK);
  cr_assert_eq(fr2[0].lo, fr[0].lo + bias);
  check_against_addr2line(s, "addr2line", exe, fr2[0].lo, fr2[0].lo + 24, bias, 1);
  free(fr);
  free(fr2);
  free(mr);
  ic_sym_close(s);
}

Test(symbols, without_dwarf_functions_from_the_symbol_table) {
  const char *exe = where_rv_nodebug();
  if (!exe) cr_skip_test(WHERE_RV_CC " not found");
  ic_symbols *s = open_ok(exe);
  cr_assert(ic_sym_has_functions(s));
  cr_assert(!ic_sym_has_lines(s));
  ic_sym_range *fr;
  size_t nf;
  ic_err err;
  cr_assert_eq(ic_sym_where(s, "hot_loop", &fr, &nf, &err), IC_OK, "%s", err.msg);
  ic_sym_loc l;
  cr_assert_eq(ic_sym_lookup(s, fr[0].lo + 4, &l), IC_SYM_FUNCTION);
  cr_assert_str_eq(l.function, "hot_loop");
  cr_assert_eq(l.offset, 4);
  cr_assert_null(l.file);
  char buf[128];
  cr_assert_str_eq(ic_sym_format(&l, IC_SYM_FUNCTION, fr[0].lo + 4, 1, buf, sizeof buf), "hot_loop+0x4");
  char spec[64];
  snprintf(spec, sizeof spec, WHERE_SRC_NAME ":%u", where_line_of("/* HOT */"));
  ic_sym_range *r;
  size_t n;
  cr_assert_eq(ic_sym_where(s, spec, &r, &n, &err), IC_EINPUT);
  cr_assert(strstr(err.msg, "no source line information"), "%s", err.msg);
  free(fr);
  ic_sym_close(s);
}

Test(symbols, stripped_gives_bare_pcs) {
  const char *exe = where_rv_stripped();
  const char *full = where_rv_dwarf();
  if (!exe || !full) cr_skip_test(WHERE_RV_CC " not found");
  ic_symbols *f = open_ok(full), *s = open_ok(exe);
  ic_sym_range *fr;
  size_t nf;
  ic_err err;
  cr_assert_eq(ic_sym_where(f, "hot_loop", &fr, &nf, &err), IC_OK);
  cr_assert(!ic_sym_has_functions(s) && !ic_sym_has_lines(s));
  ic_sym_loc l;
  cr_assert_eq(ic_sym_lookup(s, fr[0].lo, &l), 0);
  cr_assert_null(l.function);
  char buf[64];
  snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)fr[0].lo);
  char got[64];
  cr_assert_str_eq(ic_sym_format(&l, 0, fr[0].lo, 1, got, sizeof got), buf);
  ic_sym_range *r;
  size_t n;
  cr_assert_eq(ic_sym_where(s, "hot_loop", &r, &n, &err), IC_EINPUT);
  cr_assert(strstr(err.msg, "no symbol table"), "%s", err.msg);
  /* a pc range needs no symbols */
  cr_assert_eq(ic_sym_where(s, "0x10-0x20", &r, &n, &err), IC_OK);
  cr_assert(n == 1 && r[0].lo == 0x10 && r[0].hi == 0x20);
  free(r);
  cr_assert_eq(ic_sym_where(NULL, "0x100-0x104", &r, &n, &err), IC_OK);
  free(r);
  free(fr);
  ic_sym_close(f);
  ic_sym_close(s);
}

Test(symbols, bad_regions_are_one_line_errors) {
  const char *exe = where_rv_dwarf();
  if (!exe) cr_skip_test(WHERE_RV_CC " not found");
  ic_symbols *s = open_ok(exe);
  static const char *bad[][2] = {
      {"", "empty"},
      {"no_such_function", "no function of that name"},
      {"nosuch.c:12", "no source file nosuch.c"},
      {WHERE_SRC_NAME ":0", "positive"},
      {WHERE_SRC_NAME ":9-3", "FIRST at most LAST"},
      {WHERE_SRC_NAME ":1x", "expected FILE:LINE"},
      {WHERE_SRC_NAME ":100000", "no code of"},
      {"0x20-0x10", "empty"},
      {"0x10-", "0xLO-0xHI"},
      {"0xzz-0x20", "0xLO-0xHI"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    ic_sym_range *r = (void *)1;
    size_t n = 7;
    ic_err err;
    cr_assert_eq(ic_sym_where(s, bad[i][0], &r, &n, &err), IC_EINPUT, "'%s'", bad[i][0]);
    cr_assert(strstr(err.msg, bad[i][1]), "'%s': %s", bad[i][0], err.msg);
    cr_assert_null(strchr(err.msg, '\n'));
    cr_assert(r == NULL && n == 0);
  }
  ic_sym_close(s);
}

Test(symbols, a_file_that_is_no_elf_is_an_error) {
  char path[600];
  snprintf(path, sizeof path, "%s/where_guest_notelf.%d", ICOST_BUILD_DIR, (int)getpid());
  FILE *f = fopen(path, "w");
  cr_assert_not_null(f);
  fputs("#!/bin/sh\necho not an ELF file\n", f);
  fclose(f);
  ic_symbols *s = (void *)1;
  ic_err err;
  cr_assert_eq(ic_sym_open(&s, path, &err), IC_EINPUT);
  cr_assert_null(s);
  cr_assert(strstr(err.msg, path) && strstr(err.msg, "not an ELF file"), "%s", err.msg);
  remove(path);
  cr_assert_eq(ic_sym_open(&s, "/nonexistent/prog", &err), IC_EINPUT);
  cr_assert(strstr(err.msg, "/nonexistent/prog"), "%s", err.msg);
}

/* Copies src to dst with the contents of section name overwritten with
 * garbage (or, for name NULL, cut after keep bytes). */
static void damage(const char *src, const char *dst, const char *name, size_t keep) {
  FILE *in = fopen(src, "rb");
  cr_assert_not_null(in);
  fseek(in, 0, SEEK_END);
  size_t n = (size_t)ftell(in);
  fseek(in, 0, SEEK_SET);
  unsigned char *buf = malloc(n);
  cr_assert_eq(fread(buf, 1, n, in), n);
  fclose(in);
  if (name) {
    elf_version(EV_CURRENT);
    Elf *elf = elf_memory((char *)buf, n);
    size_t shstrndx;
    cr_assert(elf && elf_getshdrstrndx(elf, &shstrndx) == 0);
    size_t off = 0, size = 0;
    for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
      GElf_Shdr sh;
      gelf_getshdr(scn, &sh);
      if (strcmp(elf_strptr(elf, shstrndx, sh.sh_name), name) == 0) off = sh.sh_offset, size = sh.sh_size;
    }
    elf_end(elf);
    cr_assert_gt(size, 0, "no %s", name);
    for (size_t i = 0; i < size; i++) buf[off + i] = (unsigned char)(0xa5 ^ (i * 37));
  } else {
    n = keep;
  }
  FILE *out = fopen(dst, "wb");
  cr_assert_not_null(out);
  cr_assert_eq(fwrite(buf, 1, n, out), n);
  fclose(out);
  free(buf);
}

Test(symbols, damaged_dwarf_keeps_the_functions) {
  const char *exe = where_rv_dwarf();
  if (!exe) cr_skip_test(WHERE_RV_CC " not found");
  char path[600];
  snprintf(path, sizeof path, "%s/where_guest_bad.%d", ICOST_BUILD_DIR, (int)getpid());
  static const char *sections[] = {".debug_line", ".debug_info", ".debug_abbrev", ".debug_line_str"};
  for (size_t k = 0; k < sizeof sections / sizeof sections[0]; k++) {
    damage(exe, path, sections[k], 0);
    ic_symbols *s = open_ok(path);
    cr_assert(ic_sym_has_functions(s), "%s", sections[k]);
    ic_sym_range *r;
    size_t n;
    ic_err err;
    cr_assert_eq(ic_sym_where(s, "hot_loop", &r, &n, &err), IC_OK, "%s: %s", sections[k], err.msg);
    ic_sym_loc l;
    cr_assert(ic_sym_lookup(s, r[0].lo, &l) & IC_SYM_FUNCTION);
    cr_assert_str_eq(l.function, "hot_loop");
    if (ic_sym_warning(s)) {
      cr_assert(strstr(ic_sym_warning(s), path), "%s", ic_sym_warning(s));
      cr_assert_null(strchr(ic_sym_warning(s), '\n'));
    }
    free(r);
    ic_sym_close(s);
  }
  /* cut short: an error or what is left, never a crash */
  static const size_t cuts[] = {0, 16, 64, 4096, 100000};
  for (size_t k = 0; k < sizeof cuts / sizeof cuts[0]; k++) {
    damage(exe, path, NULL, cuts[k]);
    ic_symbols *s = NULL;
    ic_err err;
    ic_status st = ic_sym_open(&s, path, &err);
    if (st != IC_OK) cr_assert(strstr(err.msg, path), "%s", err.msg);
    ic_sym_loc l;
    ic_sym_lookup(s, 0x10000, &l);
    ic_sym_close(s);
  }
  remove(path);
}
