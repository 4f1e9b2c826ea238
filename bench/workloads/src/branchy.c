/* branchy N: N iterations of unpredictable branches (see kernels.h). */
#include "kernels.h"
#include "wl_common.h"

int main(int argc, char **argv) {
  uint64_t n = wl_arg(argc, argv, 1, "N", 1, 1ULL << 40, "N");
  printf("branchy %llu: %016llx\n", (unsigned long long)n,
         (unsigned long long)wl_branchy(n, 3));
  return 0;
}
