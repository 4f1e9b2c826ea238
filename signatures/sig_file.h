/* sig_file.h: the sample file, written incrementally and read with every
 * field checked.
 *
 * Format, version 9 (version 8 held the slot and MSHR rules as edges;
 * version 7 kept no --set overrides; version 6 was
 * uncompressed and kept no program path; version 5 lacks the MSHR and IQ
 * rules; version 1, without the edge kind count, predates the MSHR edge;
 * version 2 lacks the machine's l1i.line; version 3 predates the IW edge
 * and its keep mask; version 4 lacks the functional unit counts; all are
 * refused with that reason). Integers are little-endian; "varint" is
 * unsigned LEB128 (7 bits per byte, low first, at most 10 bytes); checksums
 * are FNV-1a 64 over the bytes they cover.
 *
 *   offset 0   magic "ICSAMPLE" (8 bytes)
 *          8   u32 version (9)
 *         12   u32 H: header payload bytes (<= 16 MiB)
 *         16   u64 checksum of the header payload
 *         24   header payload:
 *                u32 M = number of machine parameters (SIG_MACHINE_COUNT),
 *                    u32 value[M] in SIG_MACHINE_LIST order
 *                u32 number of edge kinds the writer's graph has
 *                    (IC_EDGE_KIND_COUNT; the reader refuses another count)
 *                u64 detail interval (mean), u64 signature interval (mean),
 *                u64 seed, u64 skip, u64 warm, u64 max (run options)
 *                u32 L: signature sample length
 *                u64 ELF size, u64 ELF hash (FNV-1a 64 of the file)
 *                u32 length (1..4096), bytes: the program's absolute path
 *                u32 argc, then argc times: u32 length, bytes (the guest argv)
 *                u32 length, bytes: the resolved machine config (YAML)
 *                u32 n (<= SIG_FILE_MAX_OVERRIDES), then n times: u32 length
 *                    (>= 1), bytes: the --set overrides of the profiled run,
 *                    KEY=VALUE, in the order given
 *   then blocks, each
 *                u32 type (1 detailed samples, 2 signature samples, 3 end)
 *                u32 count of samples in the block
 *                u32 Z: compressed payload bytes
 *                u32 P: payload bytes (<= 16 MiB)
 *                u64 checksum of the Z compressed bytes
 *                the payload compressed: one zstd frame whose content size
 *                is P (what follows describes the payload decompressed)
 *   detailed sample: varint seq, varint pc, varint next pc, varint signature
 *                (< 2^42), u8 opclass, u8 present (SIG_HAS_*), u8 slot_w,
 *                u8 slot_p, u8 mshr_k (the record's rules: graph_rec.h), u8 n items,
 *                then per item: u8 edge kind, u8 flags, u8 keep (IC_CATBITs,
 *                within the kind's drop mask: graph.h), u8 n parts, varint
 *                distance, then per part: u8 category (or 0xff), varint cycles
 *                (edge kinds are graph_rec.h's ic_edge_kind numbers; any kind
 *                but DR and IBW; changing that list's order needs a new version)
 *   signature sample: varint seq, varint start pc, varint n (1..SIG_MAX_LENGTH),
 *                u8 flags (SIG_SK_RUN_START or 0), ceil(n/4) bytes: instruction k's bits at bits 2(k%4)..2(k%4)+1
 *                of byte k/4 (unused high bits 0)
 *   end block: count 0, payload u64 detailed samples, u64 signature samples,
 *                u64 instructions seen; it must be last, and the totals must
 *                match the blocks before it.
 *
 * A writer writes to PATH.tmp.XXXXXX and renames it to PATH on close, so the
 * file is complete or absent. */
#ifndef IC_SIG_FILE_H
#define IC_SIG_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "ic_err.h"
#include "sig.h"

#define SIG_FILE_MAGIC "ICSAMPLE"
#define SIG_FILE_VERSION 9u
#define SIG_FILE_MAX_OVERRIDES 4096u
#define SIG_FILE_ZSTD_LEVEL 3
#define SIG_FILE_MAX_PAYLOAD (16u << 20)

typedef struct sig_file_header {
  uint32_t version;
  sig_machine machine;
  uint64_t detail_interval, signature_interval, seed, skip, warm, max;
  uint32_t length;
  uint64_t elf_size, elf_hash;
  int argc;
  char **argv;       /* argc strings (owned; freed by sig_file_header_free) */
  char *config_yaml; /* owned */
  char *program;     /* the program's absolute path (owned); analyze finds it there */
  int noverrides;
  char **overrides;  /* the run's --set KEY=VALUE, in order (owned when read; the
                        writer only reads them) */
} sig_file_header;

void sig_file_header_free(sig_file_header *h);

/* FNV-1a 64 of a byte range, continuing from h (start: SIG_FNV_INIT). */
#define SIG_FNV_INIT UINT64_C(0xcbf29ce484222325)
uint64_t sig_fnv(uint64_t h, const void *p, size_t n);

/* Size and FNV-1a 64 hash of a file. IC_EINPUT naming it if unreadable. */
ic_status sig_file_identity(const char *path, uint64_t *size, uint64_t *hash, ic_err *err);

typedef struct sig_writer sig_writer;

/* Creates PATH.tmp.XXXXXX and writes the header. IC_ERUN naming the path on
 * an I/O error. */
ic_status sig_writer_open(sig_writer **out, const char *path, const sig_file_header *h,
                          ic_err *err);
/* sig_out callbacks appending to the file (ctx = w). */
sig_out sig_writer_out(sig_writer *w);
/* Writes the end block (with `instructions`), flushes, renames to PATH and
 * frees w. On any failure the temp file is removed. */
ic_status sig_writer_close(sig_writer *w, uint64_t instructions, ic_err *err);
/* Removes the temp file and frees w (after a failed run). NULL is fine. */
void sig_writer_abort(sig_writer *w);
/* Bytes written so far. */
uint64_t sig_writer_bytes(const sig_writer *w);

/* Totals of a file read. */
typedef struct sig_file_totals {
  uint64_t details, skeletons, instructions;
} sig_file_totals;

/* Parses a whole file image buf[0..len). name is used in messages
 * ("NAME: truncated block header at byte 1234"). Every sample is checked
 * before it is handed to `out`; the header is filled first (free it with
 * sig_file_header_free, also after a failure). IC_EINPUT for anything
 * malformed. Time complexity: O(len). */
ic_status sig_file_parse(const uint8_t *buf, size_t len, const char *name, sig_file_header *h,
                         sig_out out, sig_file_totals *tot, ic_err *err);
/* Reads and parses the file at path. */
ic_status sig_file_read(const char *path, sig_file_header *h, sig_out out, sig_file_totals *tot,
                        ic_err *err);

#endif
