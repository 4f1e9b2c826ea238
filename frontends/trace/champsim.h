/* champsim.h: ChampSim traces (DPC-3, CRC-2, IPC-1, converted CVP and
 * DynamoRIO traces): a stream of 64-byte input_instr records
 *
 *   u64 ip | u8 is_branch | u8 branch_taken | u8 destination_registers[2]
 *   | u8 source_registers[4] | u64 destination_memory[2]
 *   | u64 source_memory[4]                     (little endian, no padding)
 *
 * raw, xz- or gzip-compressed (recognised by the file's magic bytes).
 *
 * Reading makes ic_inst records as ChampSim itself interprets the trace:
 *  - registers in ChampSim's x86 numbering: 0 is no register; 6 is the stack
 *    pointer, 25 the flags, 26 the instruction pointer. The instruction
 *    pointer is no dependence and is dropped; ids 1..63 keep their number in
 *    icost's register space, larger ids (vector registers) fold onto
 *    32 + id % 32 (false dependences between them are possible).
 *  - one destination: a ChampSim record may name two (a register and the
 *    flags, or the stack pointer of a push/pop/call). icost keeps one (not
 *    the stack pointer or flags when there is another); a later reader of
 *    the dropped one is made to depend on the register that was kept, as
 *    long as that register still holds the same instruction's value, else
 *    the dependence is dropped. The first three sources are kept.
 *  - branch kinds inferred as ChampSim does from the special registers:
 *    writes IP only -> direct jump (JUMP); reads other regs, writes IP ->
 *    indirect (IJUMP); reads IP and flags, writes IP -> conditional
 *    (BRANCH); reads SP and IP, writes SP and IP -> call (CALL); reads SP,
 *    writes SP and IP -> return (RETURN); any other IP writer -> BRANCH.
 *  - no op class: a record with a source memory operand is a LOAD (with a
 *    destination memory operand too: a read-modify-write, is_mem_rmw), one
 *    with only a destination memory operand a STORE, anything else a
 *    one-cycle INT_ALU operation. Memory accesses are 8 bytes at the first
 *    memory operand given (further ones are dropped).
 *  - instruction sizes: the distance to the next record's ip when that is
 *    1..15 bytes and the record is not a taken branch; otherwise the size
 *    last seen at that ip, else 4 bytes. next_pc is the next record's ip
 *    (the last record's is ip + size).
 *
 * Writing turns an ic_inst stream into such records, marking each branch
 * kind with the special registers ChampSim's inference expects (so a
 * conditional branch's own sources are not written: ChampSim reads them
 * as "reads other"), mapping the stack pointer of the stream's isa (x2 of
 * RISC-V) to 6 and writing the memory access of a load to source_memory[0],
 * of a store to destination_memory[0] (both for a read-modify-write). What
 * the format cannot carry is lost: op class beyond load/store/branch kind,
 * access sizes, instruction sizes of taken branches, and the RISC-V
 * registers x6, x25 and x26 (they collide with ChampSim's special ids and
 * are written as 0). */
#ifndef IC_CHAMPSIM_H
#define IC_CHAMPSIM_H

#include <stddef.h>
#include <stdint.h>

#include "ic_err.h"
#include "inst.h"

#define IC_CHAMPSIM_REC 64
enum { IC_CS_REG_SP = 6, IC_CS_REG_FLAGS = 25, IC_CS_REG_IP = 26 };

/* True when path names a ChampSim trace (contains ".champsimtrace"). */
int ic_champsim_is_name(const char *path);

/* ---- writing (compression by the name: .xz, .gz, else raw) ---- */
typedef struct ic_champsim_writer ic_champsim_writer;
ic_status ic_champsim_writer_open(ic_champsim_writer **out, const char *path, ic_err *err);
ic_status ic_champsim_write(ic_champsim_writer *w, const ic_inst *recs, size_t n, ic_err *err);
/* Finishes and renames path.tmp into place; releases w either way. */
ic_status ic_champsim_writer_close(ic_champsim_writer *w, ic_err *err);
void ic_champsim_writer_abort(ic_champsim_writer *w); /* NULL is fine */

/* ---- reading ---- */
typedef struct ic_champsim_reader ic_champsim_reader;
/* Opens path (raw, xz or gzip by its magic bytes). IC_EINPUT with a one-line
   reason for a file that cannot be read as such. */
ic_status ic_champsim_open(ic_champsim_reader **out, const char *path, ic_err *err);
void ic_champsim_close(ic_champsim_reader *r);
/* Skips n records; returns how many were there. */
uint64_t ic_champsim_skip(ic_champsim_reader *r, uint64_t n);
/* The records from the current position. */
ic_inst_source ic_champsim_source(ic_champsim_reader *r);
/* IC_OK, or what stopped the source (a truncated or corrupted file). */
ic_status ic_champsim_error(const ic_champsim_reader *r, ic_err *err);

/* The static instructions seen in a whole trace (the program image of a
   ChampSim trace: only executed pcs are known) and its record count. */
typedef struct ic_champsim_image ic_champsim_image;
ic_status ic_champsim_image_build(ic_champsim_image **out, const char *path, uint64_t *count,
                                  ic_err *err);
void ic_champsim_image_destroy(ic_champsim_image *im);
ic_program_image ic_champsim_image_get(ic_champsim_image *im);
/* For an image of ic_champsim_image_get: writes "<op class>" (a ChampSim
   trace has no instruction bytes) and returns 1; 0 for any other image. */
int ic_champsim_image_disasm(ic_program_image img, uint64_t pc, char *buf, size_t cap);

#endif
