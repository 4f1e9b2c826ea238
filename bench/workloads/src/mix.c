/* mix SIZE: a bit of every kernel, in turn, so one run shows cache misses,
 * streaming, mispredictions, serial integer chains and FP work. Every part
 * scales with SIZE; SIZE 1 is about half a million instructions. The chase
 * working set grows with SIZE (64 KB per unit, up to 4 MB) so that from
 * SIZE 16 on it exceeds a 1 MB L2. */
#include "kernels.h"
#include "wl_common.h"

int main(int argc, char **argv) {
  uint64_t size = wl_arg(argc, argv, 1, "SIZE", 1, 1ULL << 20, "SIZE");
  uint64_t nodes = 1024 * (size < 64 ? size : 64);
  uint64_t r[5];
  r[0] = wl_chase(nodes, 8192 * size, 11);
  r[1] = wl_stream(16384 * size, 2, 12);
  r[2] = wl_branchy(4096 * size, 13);
  r[3] = wl_depchain(8192 * size, 14);
  r[4] = wl_stencil(24, 2 * size, 15);
  if (!r[0] || !r[4]) {
    fprintf(stderr, "mix: out of memory\n");
    return 1;
  }
  printf("mix %llu: %016llx %016llx %016llx %016llx %016llx\n", (unsigned long long)size,
         (unsigned long long)r[0], (unsigned long long)r[1], (unsigned long long)r[2],
         (unsigned long long)r[3], (unsigned long long)r[4]);
  return 0;
}
