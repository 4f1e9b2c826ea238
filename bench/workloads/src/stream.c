/* stream WORDS REPS: streaming sum over WORDS 64-bit words (see kernels.h). */
#include "kernels.h"
#include "wl_common.h"

int main(int argc, char **argv) {
  const char *u = "WORDS REPS";
  uint64_t n = wl_arg(argc, argv, 1, "WORDS", 2, 1ULL << 28, u);
  uint64_t reps = wl_arg(argc, argv, 2, "REPS", 1, 1ULL << 20, u);
  uint64_t r = wl_stream(n, reps, 2);
  printf("stream %llu %llu: %016llx\n", (unsigned long long)n, (unsigned long long)reps,
         (unsigned long long)r);
  return 0;
}
