/* trace.h: icost trace files, a recorded instruction stream.
 *
 * A trace file holds a program's committed instruction stream (the
 * ic_inst records of model/inst.h, every field) and the program image the
 * stitcher needs (the program's executable bytes and its code pointers),
 * so that every command can run on it instead of on the program. Format
 * (version 1, little endian):
 *
 *   file header, 24 bytes: "ICOSTTRC" | u32 version | u32 isa | u32 flags (0)
 *                          | u32 crc32 of the 20 bytes before
 *   blocks, each a 32-byte header and a zstd frame of zlen bytes:
 *     u32 kind | u32 count | u64 first | u32 zlen | u32 rawlen
 *     | u32 crc32 of the zstd frame | u32 crc32 of the 28 bytes before
 *   kinds (the 'N' blocks in order; 'C' and 'P' anywhere before 'E': a
 *   qemu-user recording learns the code as it runs):
 *     'C' code: count bytes of executable image at address first (0 or more,
 *         not overlapping)
 *     'P' code pointers: count u64, ascending (exactly one)
 *     'N' instructions: count records (1..IC_TRACE_BLOCK), the first being
 *         instruction number `first` of the trace (numbers run on from the
 *         previous block without a gap)
 *     'E' end: first = the number of instructions, count = how the recording
 *         ended (IC_TRACE_END_*); payload: i32 exit status, then the
 *         program's name (UTF-8, no NUL). Nothing may follow it.
 *   A record in an 'N' payload: u8 flags (bit 0 pc given, bit 1 next pc
 *   given, bit 2 memory access, bit 3 is_mem_rmw, others 0) | u8 size
 *   | u8 opclass | u8 src[3] | u8 dst | [zigzag varint pc - previous next pc]
 *   | [zigzag varint next pc - (pc + size)] | [u8 mem size, zigzag varint
 *   address - previous address]. Without bit 0 the pc is the previous
 *   record's next pc; without bit 1 the next pc is pc + size. The deltas
 *   start from 0 in every block, so a block decodes alone (seeking).
 *
 * Reading checks every header and frame checksum when the file is opened
 * and every field of every record when it is decoded (op class, registers,
 * sizes, reserved bits, the payload's exact length): a truncated, corrupted
 * or foreign file is an IC_EINPUT error with one line naming the file and
 * what is wrong, never a wrong record. The writer writes FILE.tmp and
 * renames it on success, so a file is written completely or not at all. */
#ifndef IC_TRACE_H
#define IC_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "ic_err.h"
#include "inst.h"

#define IC_TRACE_VERSION 1
#define IC_TRACE_BLOCK 65536 /* records per 'N' block */

/* The instruction set of the traced program: how the image's bytes decode. */
enum { IC_ISA_NONE = 0, IC_ISA_RV64 = 1, IC_ISA_X86_64 = 2, IC_ISA_AARCH64 = 3 };

/* How a recording ended. */
enum {
  IC_TRACE_END_EXIT = 1, /* the program exited (status in exit_code) */
  IC_TRACE_END_MAX = 2,  /* stopped after --max instructions */
};

/* ---- writing ---- */
typedef struct ic_trace_writer ic_trace_writer;

/* Starts path (as path.tmp) for a program of isa. */
ic_status ic_trace_writer_open(ic_trace_writer **out, const char *path, uint32_t isa, ic_err *err);
/* Adds len bytes of executable image at addr. */
ic_status ic_trace_write_code(ic_trace_writer *w, uint64_t addr, const uint8_t *bytes, size_t len,
                              ic_err *err);
/* Adds the code pointers (at most once; none: an empty list). */
ic_status ic_trace_write_code_pointers(ic_trace_writer *w, const uint64_t *ptrs, size_t n,
                                       ic_err *err);
/* Appends n records. */
ic_status ic_trace_write(ic_trace_writer *w, const ic_inst *recs, size_t n, ic_err *err);
/* Finishes the file and renames it into place; releases w either way. */
ic_status ic_trace_writer_close(ic_trace_writer *w, int end, int exit_code, const char *name,
                                ic_err *err);
/* Drops the partial file; releases w (NULL is fine). */
void ic_trace_writer_abort(ic_trace_writer *w);
/* Bytes written so far (compressed). */
uint64_t ic_trace_writer_bytes(const ic_trace_writer *w);

/* ---- reading ---- */
typedef struct ic_trace ic_trace;

/* Opens and checks a trace file (headers, checksums, block order, the end
   block). IC_EINPUT with "<path>: <why>" for anything wrong. */
ic_status ic_trace_open(ic_trace **out, const char *path, ic_err *err);
void ic_trace_close(ic_trace *t);
uint64_t ic_trace_count(const ic_trace *t);   /* instructions in the trace */
uint32_t ic_trace_isa(const ic_trace *t);
int ic_trace_end(const ic_trace *t, int *exit_code); /* IC_TRACE_END_*; exit status */
const char *ic_trace_name(const ic_trace *t);       /* the recorded program's name */
const char *ic_trace_path(const ic_trace *t);
/* The recorded program image (decoded from the stored bytes by the trace's
   isa; for an isa icost cannot decode, every pc is invalid). Valid while t. */
ic_program_image ic_trace_image(ic_trace *t);

/* For an image of ic_trace_image of an x86-64 or AArch64 trace: writes the
   disassembly of the instruction at pc and returns 1; 0 for any other image
   (an RV64 trace's: its raw bits are RISC-V's). */
int ic_trace_image_disasm(ic_program_image img, uint64_t pc, char *buf, size_t cap);

/* An image without records (count 0): the code of a run streamed live
   from the host frontend, looked up and disassembled as the image of the
   same run recorded would be (ic_trace_image, ic_trace_image_disasm).
   name stands for the path in messages. */
ic_status ic_trace_image_create(ic_trace **out, uint32_t isa, const char *name, ic_err *err);
/* Adds len code bytes at addr; runs come ascending and apart (as
   ic_host_code gives them). Lookups made meanwhile see what is added. */
ic_status ic_trace_image_add(ic_trace *t, uint64_t addr, const uint8_t *bytes, size_t len,
                             ic_err *err);

/* A reading position of its own (one per concurrent run). */
typedef struct ic_trace_cursor ic_trace_cursor;
/* A cursor at instruction number start (< count, or == count: empty). */
ic_status ic_trace_cursor_open(ic_trace_cursor **out, const ic_trace *t, uint64_t start,
                               ic_err *err);
void ic_trace_cursor_close(ic_trace_cursor *c);
/* The records from the cursor on; fill returns 0 at the end of the trace or
   at an error (ic_trace_cursor_error says which). */
ic_inst_source ic_trace_cursor_source(ic_trace_cursor *c);
/* IC_OK, or the error that stopped the source (its message in *err). */
ic_status ic_trace_cursor_error(const ic_trace_cursor *c, ic_err *err);

/* True when the file at path starts with the icost trace magic. */
int ic_trace_is_trace(const char *path);

#endif
