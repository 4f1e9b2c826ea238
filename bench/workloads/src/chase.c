/* chase NODES STEPS: pointer chase over NODES 64-byte nodes (see kernels.h). */
#include "kernels.h"
#include "wl_common.h"

int main(int argc, char **argv) {
  const char *u = "NODES STEPS";
  uint64_t nodes = wl_arg(argc, argv, 1, "NODES", 2, 1ULL << 26, u);
  uint64_t steps = wl_arg(argc, argv, 2, "STEPS", 0, 1ULL << 40, u);
  uint64_t r = wl_chase(nodes, steps, 1);
  if (!r) {
    fprintf(stderr, "chase: out of memory\n");
    return 1;
  }
  printf("chase %llu %llu: %016llx\n", (unsigned long long)nodes, (unsigned long long)steps,
         (unsigned long long)r);
  return 0;
}
