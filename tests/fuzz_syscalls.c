/* fuzz_syscalls.c: libFuzzer target for the guest's system calls
 * (frontends/rv64/rv_sys.c). The input is a list of calls, 56 bytes each:
 * the number (the first 2 bytes; 0xff.. for an unknown one) and six
 * arguments. An argument whose top nibble is 0xa is a pointer into the
 * data the input ends with (paths, buffers, structures); the rest are used
 * as they are (bad pointers included). They become a tiny static program,
 * one ecall per call, run confined to a scratch --guest-root with 64 MiB
 * of guest memory and output to /dev/null. Every call must return, the
 * program end or fault as a guest, and nothing leak. pipe2 is left out: a
 * guest that reads its own empty pipe waits forever, as under Linux. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>

#include "fuzz_util.h"
#include "rv.h"
#include "test_rv64_util.h"

#define REC 56
#define MAX_CALLS 64
#define ARGS_VA (T_DATA_VA + 0x400) /* the calls' arguments; strings below */

/* lui+addi: rd = v (v < 2^31) */
static size_t li32(uint32_t *w, size_t n, uint32_t rd, uint32_t v) {
  uint32_t hi = (v + 0x800) >> 12;
  int32_t lo = (int32_t)(v - (hi << 12));
  w[n++] = enc_u(hi & 0xfffff, rd, 0x37);
  w[n++] = ADDI(rd, rd, lo);
  return n;
}

static int rm_one(const char *p, const struct stat *sb, int flag, struct FTW *ftw) {
  (void)sb, (void)flag;
  if (ftw->level > 0) remove(p);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static int null_fd = -1;
  if (null_fd < 0) null_fd = open("/dev/null", O_RDWR);
  char root[256], exe[256];
  snprintf(root, sizeof root, "%s/root", fz_dir());
  mkdir(root, 0700);
  size_t ncalls = size / REC;
  if (ncalls > MAX_CALLS) ncalls = MAX_CALLS;
  /* data: 1 KiB of the input's tail (strings), then the arguments */
  uint8_t dat[0x400 + MAX_CALLS * REC];
  memset(dat, 0, sizeof dat);
  size_t tail = size - ncalls * REC;
  if (tail > 0x3ff) tail = 0x3ff;
  memcpy(dat, data + ncalls * REC, tail);
  uint32_t code[MAX_CALLS * 12 + 8];
  size_t n = 0;
  for (size_t c = 0; c < ncalls; c++) {
    const uint8_t *r = data + c * REC;
    uint16_t raw;
    memcpy(&raw, r, 2);
    uint64_t nr = raw >= 0xff00 ? 9999 : raw % 512;
    if (nr == 59) nr = 172; /* pipe2 -> getpid */
    uint64_t a[7];
    a[6] = nr;
    for (int k = 0; k < 6; k++) {
      memcpy(&a[k], r + 2 + 8 * k, k < 5 ? 8 : 6);
      if (k == 5) a[k] &= 0xffffffffffffull;
      if (a[k] >> 60 == 0xa) a[k] = T_DATA_VA + (a[k] & 0x3ff);
    }
    if (nr == 64 || nr == 66 || nr == 68) a[2] &= 0xffff; /* writes: a bounded size */
    memcpy(dat + 0x400 + c * REC, a, REC);
    n = li32(code, n, 8, (uint32_t)(ARGS_VA + c * REC)); /* s0 = the call's arguments */
    static const uint32_t regs[7] = {10, 11, 12, 13, 14, 15, 17};
    for (int k = 0; k < 7; k++) code[n++] = enc_i(8 * k, 8, 3, regs[k], 0x03); /* ld */
    code[n++] = ECALL;
  }
  code[n++] = LI(10, 0);
  code[n++] = LI(17, 93);
  code[n++] = ECALL;
  size_t len;
  uint8_t *img = t_elf_image(code, n * 4, dat, 0x400 + ncalls * REC, &len);
  fz_write("prog", img, len, exe, sizeof exe);
  free(img);

  rv_options opt;
  rv_options_default(&opt);
  opt.stdin_fd = opt.stdout_fd = opt.stderr_fd = null_fd;
  opt.mem_limit = 64u << 20;
  opt.root = root;
  char *argv[] = {"prog", NULL};
  rv_proc *p = NULL;
  ic_err err = {{0}};
  ic_status st = rv_proc_load(&p, exe, 1, argv, &opt, &err);
  if (st != IC_OK) abort(); /* the program is well formed */
  rv_proc_skip(p, 100000);
  char buf[400];
  rv_proc_nosys_summary(p, buf, sizeof buf);
  rv_proc *q = rv_proc_clone(p); /* a checkpoint of what the calls left */
  rv_proc_destroy(q);
  rv_proc_destroy(p);
  nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
  return 0;
}
