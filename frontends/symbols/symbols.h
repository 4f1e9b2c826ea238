/* symbols.h: where in the program's code a pc lies: its function (the ELF
 * symbol table) and its source file and line (the DWARF line table), for
 * the RISC-V, x86-64 and AArch64 ELF files icost runs; and the reverse, a
 * code region named by function or by source lines as pc ranges (scoped
 * categories, `dmiss@hash_lookup`, `bmisp@parse.c:120-180`).
 *
 * ic_sym_open reads everything it needs once, with elfutils (libelf for
 * the symbols, libdw for the lines), into sorted arrays of its own and
 * closes the file: an ic_symbols is immutable afterwards, so lookups from
 * several threads need no lock, and a lookup is two binary searches.
 *
 * Functions: STT_FUNC and STT_GNU_IFUNC symbols of .symtab, or of .dynsym
 * when the file has no .symtab (a stripped dynamic program keeps it). A
 * symbol of size 0 reaches to the next function or the end of its
 * section. Where several names share an address (aliases), a lookup gives
 * the global one before a weak one before a local one, then the one with
 * fewer leading underscores. Lines: every row of every compilation unit's
 * line table; an address maps to the last row at or below it within its
 * sequence.
 *
 * Addresses: a lookup takes the pc the program ran at. A position-
 * independent executable (ET_DYN) runs at a load bias the loader picked
 * (qemu-user chooses it), set with ic_sym_set_bias or guessed from the
 * pcs a run executed with ic_sym_guess_bias.
 *
 * What is missing is not an error: a program without DWARF has functions
 * only, a stripped one neither, and the caller falls back to the bare pc.
 * A file that is not a readable ELF file fails to open (IC_EINPUT, one line
 * naming it); DWARF that libdw cannot read leaves the lines out and says
 * so in ic_sym_warning. */
#ifndef IC_SYMBOLS_H
#define IC_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

#include "ic_err.h"

typedef struct ic_symbols ic_symbols;

/* Where a pc lies. Strings belong to the ic_symbols and live as long as it. */
typedef struct ic_sym_loc {
  const char *function; /* NULL: no function symbol covers the pc */
  uint64_t offset;      /* pc - the function's start */
  const char *file;     /* NULL: no line information for the pc */
  uint32_t line;        /* with file: its line (0: the compiler gave none) */
} ic_sym_loc;

/* What ic_sym_lookup found, as bits. */
enum { IC_SYM_FUNCTION = 1, IC_SYM_LINE = 2 };

/* A half-open range [lo, hi) of run-time pcs. */
typedef struct ic_sym_range {
  uint64_t lo, hi;
} ic_sym_range;

/* Reads the symbols and line table of the ELF file at path. IC_EINPUT with
 * "<path>: <why>" when it cannot be opened or is no ELF file; IC_ERUN when
 * memory runs out. Time complexity: O(s log s + l log l) for s symbols and
 * l line-table rows. */
ic_status ic_sym_open(ic_symbols **out, const char *path, ic_err *err);
void ic_sym_close(ic_symbols *s);

/* One line about what could not be read (DWARF that libdw rejects), or NULL. */
const char *ic_sym_warning(const ic_symbols *s);
const char *ic_sym_path(const ic_symbols *s);
int ic_sym_has_functions(const ic_symbols *s);
int ic_sym_has_lines(const ic_symbols *s);
/* The file's ELF machine (EM_RISCV, EM_X86_64, EM_AARCH64, ...). */
int ic_sym_machine(const ic_symbols *s);

/* Position independence: 1 for an ET_DYN file, whose pcs are its link
 * addresses plus the load bias. */
int ic_sym_is_pie(const ic_symbols *s);
void ic_sym_set_bias(ic_symbols *s, uint64_t bias);
uint64_t ic_sym_bias(const ic_symbols *s);
/* For a position-independent file: the page-aligned bias under which the
 * most of the n executed pcs land on a function's first instruction
 * (sets it and returns 1), or 0 when no pc does (the bias stays). A file
 * of fixed addresses keeps bias 0 and returns 1. Time complexity: about
 * O(n log s + v log v) for v candidate biases. */
int ic_sym_guess_bias(ic_symbols *s, const uint64_t *pcs, size_t n);

/* Fills *out for the run-time pc and returns the IC_SYM_* bits found
 * (0: neither; out then names nothing). s may be NULL (finds nothing).
 * Time complexity: O(log s + log l). */
int ic_sym_lookup(const ic_symbols *s, uint64_t pc, ic_sym_loc *out);

/* The run-time pc ranges of a code region, ascending and disjoint (*out is
 * malloc'd: free() it). where is
 *   0xLO-0xHI          the pcs LO..HI-1 as written (s may be NULL);
 *   FILE:LINE          the code of that source line;
 *   FILE:FIRST-LAST    the code of those lines (inclusive);
 *   NAME               the function NAME and its compiler-made parts
 *                      (NAME.cold, NAME.part.N, NAME.constprop.N, ...).
 * FILE matches a DWARF file name equal to it or ending in "/FILE". A region
 * that names nothing in the program, or a program without the symbols or
 * lines it needs, is IC_EINPUT with one line naming the region and why.
 * Time complexity: O(s + l + r log r) for r ranges. */
ic_status ic_sym_where(const ic_symbols *s, const char *where, ic_sym_range **out, size_t *n, ic_err *err);

/* The text of a location for reports: "func+0x1c" (or "func"), and with
 * lines " file:line" (file as its last path component when short is set);
 * "0x..." for a pc of neither. Returns buf. */
char *ic_sym_format(const ic_sym_loc *loc, int found, uint64_t pc, int short_file, char *buf, size_t cap);

#endif
