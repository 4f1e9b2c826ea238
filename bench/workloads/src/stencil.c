/* stencil N ITERS: Jacobi sweeps on an N x N grid of doubles (see kernels.h). */
#include "kernels.h"
#include "wl_common.h"

int main(int argc, char **argv) {
  const char *u = "N ITERS";
  uint64_t n = wl_arg(argc, argv, 1, "N", 3, 1ULL << 14, u);
  uint64_t iters = wl_arg(argc, argv, 2, "ITERS", 0, 1ULL << 20, u);
  uint64_t r = wl_stencil(n, iters, 5);
  if (!r) {
    fprintf(stderr, "stencil: out of memory\n");
    return 1;
  }
  printf("stencil %llu %llu: %016llx\n", (unsigned long long)n, (unsigned long long)iters,
         (unsigned long long)r);
  return 0;
}
