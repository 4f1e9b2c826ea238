/* fuzz_elf.c: libFuzzer target for the RV64 ELF loader and, for inputs
 * that load, the first instructions of the emulator.
 *
 * Each input is written to a private temp file and loaded as a program; a
 * load must end in IC_OK or IC_EINPUT with a message, and a loaded program
 * runs for at most 20000 instructions with its output sent to /dev/null.
 * Build: cmake -DICOST_FUZZ=ON -DCMAKE_C_COMPILER=clang; run e.g.
 *   ./fuzz_elf -max_total_time=300 -max_len=65536 CORPUS_DIR */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "rv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static char path[64];
  static int null_fd = -1;
  if (!path[0]) snprintf(path, sizeof path, "/tmp/icost_fuzz_elf_%ld", (long)getpid());
  if (null_fd < 0) null_fd = open("/dev/null", O_RDWR);
  FILE *f = fopen(path, "wb");
  if (!f) return 0;
  if (size) fwrite(data, 1, size, f);
  fclose(f);

  rv_options opt;
  rv_options_default(&opt);
  opt.stdin_fd = null_fd;
  opt.stdout_fd = null_fd;
  opt.stderr_fd = null_fd;
  char *argv[] = {path, NULL};
  rv_proc *p = NULL;
  ic_err err;
  err.msg[0] = 0;
  ic_status st = rv_proc_load(&p, path, 1, argv, &opt, &err);
  if (st == IC_OK) {
    rv_proc_skip(p, 20000);
    rv_proc_destroy(p);
  } else if (st != IC_EINPUT || err.msg[0] == 0 || p != NULL) {
    abort(); /* only bad input may fail, and always with a reason */
  }
  return 0;
}
