/* icost_qemu_plugin.c: a TCG plugin for qemu-user (QEMU 7.2, plugin API
 * version 1) that streams what each executed instruction did to icost.
 *
 * Loaded as `qemu-ARCH -plugin PATH,fd=N PROGRAM ARGS`; writes to fd N:
 *   'T' u32 id, u64 pc, u8 size, size bytes   an instruction translated
 *   'X' u32 id                                 it is about to execute
 *   'M' u64 vaddr, u8 info                     a memory access of the
 *                                              executing instruction:
 *                                              info = log2(size) | 0x10 store
 *   'E'                                        qemu is exiting
 * all little endian (the host's order; icost runs on the same host). Only
 * the guest's first vcpu is followed (icost times one thread): a program
 * that starts threads gets 'W' once and their instructions are not sent.
 *
 * QEMU's plugin header is not installed by any Debian package; the few
 * declarations below follow QEMU's documented plugin API (docs/devel/
 * tcg-plugins.rst, include/qemu/qemu-plugin.h of QEMU 7.2). */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- QEMU plugin API, version 1 (QEMU 7.2) ---- */
typedef uint64_t qemu_plugin_id_t;
typedef uint32_t qemu_plugin_meminfo_t;
typedef struct qemu_info_t {
  const char *target_name;
  struct {
    int min, cur;
  } version;
  bool system_emulation;
  union {
    struct {
      int smp_vcpus, max_vcpus;
    } system;
  };
} qemu_info_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_CB_R_REGS, QEMU_PLUGIN_CB_RW_REGS };
enum qemu_plugin_mem_rw { QEMU_PLUGIN_MEM_R = 1, QEMU_PLUGIN_MEM_W, QEMU_PLUGIN_MEM_RW };
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);
typedef void (*qemu_plugin_vcpu_mem_cb_t)(unsigned int vcpu_index, qemu_plugin_meminfo_t info,
                                          uint64_t vaddr, void *userdata);
typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
                                            qemu_plugin_vcpu_udata_cb_t cb,
                                            enum qemu_plugin_cb_flags flags, void *userdata);
void qemu_plugin_register_vcpu_mem_cb(struct qemu_plugin_insn *insn, qemu_plugin_vcpu_mem_cb_t cb,
                                      enum qemu_plugin_cb_flags flags, enum qemu_plugin_mem_rw rw,
                                      void *userdata);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb, void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
unsigned int qemu_plugin_mem_size_shift(qemu_plugin_meminfo_t info);
bool qemu_plugin_mem_is_store(qemu_plugin_meminfo_t info);

#define EXPORT __attribute__((visibility("default")))
EXPORT int qemu_plugin_version = 1;

/* ---- the stream ---- */
static int out_fd = -1;
static uint8_t buf[1 << 16];
static size_t nbuf;
static uint32_t next_id;
static int warned_threads;

static void flush(void) {
  size_t off = 0;
  while (off < nbuf) {
    ssize_t k = write(out_fd, buf + off, nbuf - off);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) _exit(0); /* icost stopped reading: it has what it wants */
    off += (size_t)k;
  }
  nbuf = 0;
}

static inline void put(const void *p, size_t k) {
  if (nbuf + k > sizeof buf) flush();
  memcpy(buf + nbuf, p, k);
  nbuf += k;
}

static void on_exec(unsigned int vcpu, void *udata) {
  if (vcpu != 0) {
    if (!warned_threads) {
      warned_threads = 1;
      put("W", 1);
    }
    return;
  }
  uint8_t m[5];
  uint32_t id = (uint32_t)(uintptr_t)udata;
  m[0] = 'X';
  memcpy(m + 1, &id, 4);
  put(m, 5);
}

static void on_mem(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *udata) {
  (void)udata;
  if (vcpu != 0) return;
  uint8_t m[10];
  m[0] = 'M';
  memcpy(m + 1, &vaddr, 8);
  m[9] = (uint8_t)(qemu_plugin_mem_size_shift(info) | (qemu_plugin_mem_is_store(info) ? 0x10 : 0));
  put(m, 10);
}

static void on_tb(qemu_plugin_id_t id, struct qemu_plugin_tb *tb) {
  (void)id;
  size_t n = qemu_plugin_tb_n_insns(tb);
  for (size_t k = 0; k < n; k++) {
    struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, k);
    uint8_t m[14 + 16];
    uint32_t iid = next_id++;
    uint64_t pc = qemu_plugin_insn_vaddr(insn);
    size_t size = qemu_plugin_insn_size(insn);
    if (size > 16) size = 16;
    m[0] = 'T';
    memcpy(m + 1, &iid, 4);
    memcpy(m + 5, &pc, 8);
    m[13] = (uint8_t)size;
    memcpy(m + 14, qemu_plugin_insn_data(insn), size);
    put(m, 14 + size);
    qemu_plugin_register_vcpu_insn_exec_cb(insn, on_exec, QEMU_PLUGIN_CB_NO_REGS,
                                           (void *)(uintptr_t)iid);
    qemu_plugin_register_vcpu_mem_cb(insn, on_mem, QEMU_PLUGIN_CB_NO_REGS, QEMU_PLUGIN_MEM_RW, NULL);
  }
}

static void on_qemu_exit(qemu_plugin_id_t id, void *p) {
  (void)id, (void)p;
  put("E", 1);
  flush();
}

EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv) {
  if (info->system_emulation) return -1;
  for (int k = 0; k < argc; k++)
    if (strncmp(argv[k], "fd=", 3) == 0) out_fd = atoi(argv[k] + 3);
  if (out_fd < 0) return -1;
  qemu_plugin_register_vcpu_tb_trans_cb(id, on_tb);
  qemu_plugin_register_atexit_cb(id, on_qemu_exit, NULL);
  return 0;
}
