/* host.h: x86-64 and AArch64 Linux programs, through qemu-user and a TCG
 * plugin (frontends/host/plugin), decoded with Capstone.
 *
 * ic_host_start runs `qemu-x86_64` or `qemu-aarch64` (found on PATH) with
 * icost's plugin, which streams each executed instruction's pc, bytes and
 * memory accesses (plugin/icost_qemu_plugin.c). The frontend decodes each
 * instruction once with Capstone into icost's op classes and registers and
 * turns every execution into ic_inst records:
 *
 *  - x86-64 instructions are cracked into the micro-ops a core would run:
 *    one load per memory read (to a temporary register, or straight to the
 *    destination for a move), the operation, one store per memory write
 *    (consecutive accesses of one direction that qemu splits are merged,
 *    up to 64 bytes); push/pop/call/ret are a store/load plus the jump, and
 *    the stack pointer they update is no dependence (a stack engine). All
 *    micro-ops of an instruction carry its pc and size; all but the last
 *    have next_pc = pc + size. Zero idioms (xor/sub/pxor of a register with
 *    itself) read nothing.
 *  - AArch64 instructions are one record each; a load/store pair or a
 *    writeback of the base register keeps one destination (below).
 *  - registers: x86 rax..r15 are 1..16, the flags 17, the load temporary 18,
 *    xmm/ymm/zmm n are 32 + n % 32, x87 st(n) 56 + n, mxcsr 64; AArch64
 *    x0..x30 are 1..31 (w the same), sp 0 (no dependence), v0..v31 32..63,
 *    nzcv 64. Partial-register writes are whole-register writes.
 *  - an instruction writes one register in a record; a further register
 *    it writes (the flags of an add, the base of a writeback) is carried:
 *    a later reader of it depends on the record's destination while that
 *    still holds the same instruction's value, else on nothing.
 *  - op classes: branches from Capstone's groups (conditional, direct and
 *    indirect jump, call, return), multiplies and divides, FP add/mul/div
 *    (scalar and vector; FMA is fp_mul; x87 is fp_add unless a mul/div),
 *    system instructions (syscall, cpuid, rdtsc, svc, mrs, barriers)
 *    `other`; every other instruction, vector integer ops included, a
 *    one-cycle int_alu (documented fallback). Bytes Capstone cannot decode
 *    stop the run with an error naming the pc and the bytes.
 *
 * Only the program's first thread is followed. qemu-aarch64 runs as a
 * Cortex-A72 (ARMv8.0): Capstone 4 knows neither SVE nor the LSE atomics
 * that glibc would pick on a newer cpu. */
#ifndef IC_HOST_H
#define IC_HOST_H

#include <stddef.h>
#include <stdint.h>

#include "ic_err.h"
#include "inst.h"

/* The ELF machine of path as an IC_ISA_* (trace.h); 0 if path is no ELF
   file or of another machine (*machine gets e_machine then, or -1). */
uint32_t ic_host_elf_isa(const char *path, int *machine);

/* ---- decoding (also the program image of a recorded host trace) ---- */
typedef struct ic_host_decoder ic_host_decoder;
ic_status ic_host_decoder_create(ic_host_decoder **out, uint32_t isa, ic_err *err);
void ic_host_decoder_destroy(ic_host_decoder *d);
/* The static instruction at pc from its bytes (n available): size, the op
   class of its main micro-op (the operation; the load or store of a move),
   its registers, the direct target. 0 and out->valid = 0 if it does not
   decode. Not thread-safe. */
int ic_host_decode_static(ic_host_decoder *d, const uint8_t *bytes, size_t n, uint64_t pc,
                          ic_static_inst *out);

/* Capstone's disassembly of the instruction at pc ("add rax, rbx"); 0 and
   "?" if it does not decode. Not thread-safe. */
int ic_host_disasm(ic_host_decoder *d, const uint8_t *bytes, size_t n, uint64_t pc, char *buf,
                   size_t cap);

/* ---- running ---- */
typedef struct ic_host ic_host;
typedef struct ic_host_opts {
  int guest_output; /* the program's stdout/stderr are icost's (else /dev/null) */
  uint64_t seed;    /* qemu's -seed: AT_RANDOM and getrandom */
} ic_host_opts;

/* Starts qemu on path (argv[0..argc-1] its arguments, argv[0] the program)
   for isa. IC_EINPUT if qemu or the plugin cannot be found. What would make
   two runs of one program differ is fixed, as for the rv64 frontend: the
   guest's environment is LANG=C and PATH=/usr/local/bin:/usr/bin:/bin
   (qemu's own QEMU_* settings reach qemu, not the guest), its argv[0] the
   program's file name without the directory, the path qemu loads it by
   /proc/self/fd/4 (its AT_EXECFN; a copy in a memfd), its random bytes
   come from the seed, and address-space randomization is off
   (ADDR_NO_RANDOMIZE, as `setarch -R`) so qemu lays out the guest the
   same way each run. */
ic_status ic_host_start(ic_host **out, const char *path, int argc, char **argv, uint32_t isa,
                        const ic_host_opts *o, ic_err *err);
/* The records of the program's instructions; fill returns 0 at its end or
   at an error (ic_host_finish says which). */
ic_inst_source ic_host_source(ic_host *h);
/* Skips n instructions (records are made but not returned); how many. */
uint64_t ic_host_skip(ic_host *h, uint64_t n);
/* Executed instructions so far (not micro-ops). */
uint64_t ic_host_instructions(const ic_host *h);
/* Ends the run: if the stream ended, waits for qemu; otherwise stops it.
   IC_OK with *exited = 1 and the status when the program exited normally
   (or *exited = 0 when it was stopped early); IC_ERUN with one line when
   qemu failed (could not run the program, the plugin did not load), the
   program was killed by a signal, or an instruction did not decode. */
ic_status ic_host_finish(ic_host *h, int *exited, int *exit_code, ic_err *err);
void ic_host_destroy(ic_host *h);
/* Calls fn for each maximal run of bytes of the translated instructions,
   ascending by address (the code a recorded trace's image holds); stops at
   fn's first nonzero return and returns it. */
int ic_host_code(const ic_host *h, int (*fn)(void *ctx, uint64_t addr, const uint8_t *bytes,
                                             size_t len),
                 void *ctx);

#endif
