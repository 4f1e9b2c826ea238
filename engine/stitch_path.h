/* stitch_path.h: where a fragment's path goes, for the stitcher (stitch.c):
 * whether a skeleton's bits fit the static code from a pc, and the target
 * of an indirect jump, call or return that the fragment itself does not
 * give (the samples' next pcs, the code around a jump, the program's code
 * pointers, the call sites). Internal to the stitcher; stitch_path.c. */
#ifndef IC_STITCH_PATH_H
#define IC_STITCH_PATH_H

#include <stdint.h>

#include "sig.h"
#include "sig_db.h"
#include "stitch.h"

/* Instructions after a return checked against its call's return site. */
#define RETURN_CHECK 32u

/* Does the opclass transfer control? */
static inline int is_control(uint8_t op) {
  return op == IC_OP_BRANCH || op == IC_OP_JUMP || op == IC_OP_CALL || op == IC_OP_RETURN ||
         op == IC_OP_IJUMP;
}

/* Bits impossible for the opcode. */
static inline int bits_impossible(uint8_t op, unsigned b) {
  int b1 = (b & SIG_B1) != 0, b2 = (b & SIG_B2) != 0;
  switch (op) {
  case IC_OP_BRANCH: return 0;
  case IC_OP_JUMP:
  case IC_OP_CALL:
  case IC_OP_RETURN:
  case IC_OP_IJUMP:
  case IC_OP_STORE: return !b1;
  case IC_OP_LOAD: return !b1 && !b2;
  default: return b1;
  }
}

/* How many instructions from position k (pc) the skeleton's bits fit the
 * static code for: to the end, to the next transfer whose target the code
 * alone does not give or to position k + lim, at least 1; 0 when they do
 * not fit. Time: O(instructions walked). */
uint32_t stitch_path_fit_len(const ic_program_image *img, const sig_skeleton *sk, uint32_t k,
                             uint64_t pc, uint32_t lim);

/* The target of an indirect transfer at position k (pc) from the pc's
 * samples (d: the best; *redirected = 1 where another sampled target was
 * taken); 0 where none fits. */
uint64_t stitch_indirect_target(const sig_db *db, const ic_program_image *img,
                                const sig_skeleton *sk, uint32_t k, uint64_t pc, uint64_t want,
                                uint64_t mask, uint64_t first, const sig_detail *d,
                                int *redirected);

/* The target of an indirect jump at position k (pc) that no sample gives,
 * from the code around it; 0 where none fits. */
uint64_t stitch_jump_target(const ic_program_image *img, const sig_skeleton *sk, uint32_t k,
                            uint64_t pc);

/* The target of an indirect call at position k (pc) that no sample gives,
 * from the code pointers the program's data holds; 0 where none fits. */
uint64_t stitch_pointer_target(const ic_program_image *img, const sig_skeleton *sk, uint32_t k,
                               uint64_t pc);

/* The return site, among the call sites (ic_stitch_sites), that the bits
 * from position k fit furthest, where no other fits as far; else 0. */
uint64_t stitch_site_target(const ic_program_image *img, const ic_stitch_sites *sites,
                            const sig_skeleton *sk, uint32_t k);

#endif
