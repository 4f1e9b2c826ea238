/* rv.h: the RV64GC user-mode emulator (static Linux programs).
 *
 * An rv_proc is one guest process: an ELF image loaded into a private guest
 * address space, one hart (RV64IMAFDC + Zicsr + Zifencei) and a table of
 * guest file descriptors that map onto host ones. It runs deterministically:
 * the same binary, arguments, options and input give the same instruction
 * stream (time, randomness and ids are virtual and seeded).
 *
 * Two ways to run it: rv_proc_skip fast-forwards without records, and
 * rv_proc_source hands the timing model an ic_inst_source that executes and
 * describes each instruction (model/inst.h). A guest fault (bad address,
 * illegal instruction, ebreak, unsupported system call) is emulator state,
 * queried with rv_proc_state after the run; it is not a host error.
 *
 * Records, register lists: x0 is never listed; sources in operand order
 * (rs1, rs2, rs3). An FP instruction lists IC_REG_FCSR as a source when it
 * reads frm dynamically (rm field 7) and a source slot is left (not for the
 * fused multiply-adds, whose three slots hold rs1..rs3). The accrued fflags
 * updates of arithmetic ops are not listed, so FP ops do not serialize on
 * fcsr. A csr instruction on fflags/frm/fcsr lists IC_REG_FCSR as a source,
 * and as its destination when rd is x0 (otherwise rd is the destination).
 * Op classes follow model/inst.h: LR and AMOs are LOAD (AMOs with
 * is_mem_rmw), SC is STORE with is_mem_rmw and rd as destination. A record
 * of a load/store/AMO has the effective address and size; the faulting
 * instruction of a run that stops produces no record.
 *
 * Guest environment: virtual time (1 ns per instruction from a fixed epoch;
 * rdtime counts at 10 MHz; rdcycle = rdinstret = instructions so far), pid
 * 1000, uid 1000, one cpu, memory capped at rv_options.mem_limit (what
 * sysinfo reports); system calls that are not implemented return -ENOSYS
 * and are counted (rv_proc_nosys_summary), as qemu-user answers them. The
 * guest reads and writes the host's files as under qemu-user, except
 * /dev/urandom and /dev/random (the seeded stream) and /proc/self/maps (the
 * guest's own mappings). */
#ifndef RV_H
#define RV_H

#include <stddef.h>
#include <stdint.h>

#include "ic_err.h"
#include "inst.h"

typedef struct rv_proc rv_proc;

typedef struct rv_options {
  int stdin_fd, stdout_fd, stderr_fd; /* host fds for guest 0,1,2 (default 0,1,2) */
  uint64_t seed;                      /* AT_RANDOM, getrandom (default 0) */
  char *const *envp;                  /* guest environment (NULL: a minimal fixed one) */
  uint64_t mem_limit;                 /* bytes the guest may map (default 4 GiB; 0: no cap) */
  const char *execfn;                 /* AT_EXECFN string (NULL: the path loaded) */
  const char *exe_link;               /* what /proc/self/exe reads as (NULL: the real path) */
  const char *root;                   /* directory the guest's path lookups stay in (NULL: none) */
} rv_options;

#define RV_DEFAULT_MEM_LIMIT (4ull << 30)

/* Fills *o with the defaults above. */
void rv_options_default(rv_options *o);

/* Loads the static RISC-V ELF executable at path with argv[0..argc-1] as
   the guest's arguments. IC_EINPUT with a one-line reason for a file that is
   not a loadable static RV64 executable; *out is NULL on failure.
   Time complexity: O(size of the loaded segments). */
ic_status rv_proc_load(rv_proc **out, const char *path, int argc, char *const argv[],
                       const rv_options *opt, ic_err *err);

/* Releases everything the process owns (not the host fds). NULL is fine. */
void rv_proc_destroy(rv_proc *p);

/* Fast-forward up to n instructions without producing records; returns how
   many ran (fewer when the program exited or stopped). */
uint64_t rv_proc_skip(rv_proc *p, uint64_t n);

/* Record-producing source: fill() executes and writes one ic_inst per
   instruction (model/inst.h); returns 0 once the program exited or stopped.
   The source stays valid as long as p. */
ic_inst_source rv_proc_source(rv_proc *p);

typedef enum { RV_RUNNING, RV_EXITED, RV_FAULT } rv_state;

/* State after a run. exit_code (may be NULL): the guest's exit status when
   RV_EXITED. why (may be NULL): for RV_FAULT one line, "fault at pc 0x...:
   <reason> (bytes ...)"; "" otherwise. The string lives as long as p. */
rv_state rv_proc_state(const rv_proc *p, int *exit_code, const char **why);

/* The signal that ended the guest when rv_proc_state is RV_FAULT (SIGSEGV
   for a bad address, SIGILL, SIGTRAP for ebreak, SIGBUS for a misaligned
   atomic, SIGKILL when the host had no memory for the guest, or the signal
   the guest sent itself with kill/tgkill/abort: then *self is 1); 0 while
   running or after an exit. self may be NULL. */
int rv_proc_signal(const rv_proc *p, int *self);

/* The system calls the guest made that the emulator does not implement
   (each answered -ENOSYS): writes "9999 (2 calls), 220 [clone: ...] (1
   call)" into buf and returns how many distinct numbers; 0 and "" if none. */
size_t rv_proc_nosys_summary(const rv_proc *p, char *buf, size_t cap);

/* Why system call nr is not supported, in a few words, or "". */
const char *rv_syscall_note(uint64_t nr);

/* Instructions executed so far (retired, including the ecall that exited). */
uint64_t rv_proc_icount(const rv_proc *p);

/* pc -> static instruction, decoded from the guest's executable memory.
   Valid as long as p. */
ic_program_image rv_proc_image(rv_proc *p);

/* The static instruction of raw bits at pc, as rv_proc_image's lookup
   decodes it (raw holds a 16-bit compressed instruction in its low half);
   0 with out->valid = 0 for an illegal instruction. */
int rv_decode_static(uint32_t raw, uint64_t pc, ic_static_inst *out);

/* The code pointers of the loaded image (ic_program_image.code_pointers). */
size_t rv_proc_code_pointers(const rv_proc *p, const uint64_t **out);

/* Calls fn for each mapped executable 4 KiB page of the guest, ascending,
   with its 4096 bytes (zeros for a page never touched); stops at and
   returns fn's first nonzero return, else 0. For a trace file's image. */
int rv_proc_code_pages(const rv_proc *p,
                       int (*fn)(void *ctx, uint64_t addr, const uint8_t *page), void *ctx);

/* Deep copy (checkpoint for multisim). Guest files on regular files and
   directories are reopened with offsets of their own; pipes and ttys are
   duplicated (shared). NULL on out of memory or if a file cannot be reopened. Time complexity: O(guest memory). */
rv_proc *rv_proc_clone(const rv_proc *p);

/* Disassembly of one instruction (for reports): writes e.g. "addi a0,a0,1".
   raw holds a 16-bit compressed instruction in its low half. */
void rv_disasm(uint32_t raw, uint64_t pc, char *buf, size_t cap);

#endif
