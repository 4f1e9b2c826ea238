/* test_guests.h: C sources of small guest programs that several tests
 * compile at test time with riscv64-linux-gnu-gcc -static. */
#ifndef IC_TEST_GUESTS_H
#define IC_TEST_GUESTS_H

/* A loop on a random (xorshift) branch: about half its branches mispredict,
 * and mispredictions are its only bottleneck. argv[1]: iterations. */
static const char t_guest_random_branch[] =
    "#include <stdint.h>\n"
    "#include <stdlib.h>\n"
    "int main(int argc, char **argv) {\n"
    "  long n = argc > 1 ? atol(argv[1]) : 1000;\n"
    "  uint64_t x = 88172645463325252ull, s = 0;\n"
    "  for (long i = 0; i < n; i++) {\n"
    "    x ^= x << 13; x ^= x >> 7; x ^= x << 17;\n"
    "    if (x & 1) { s += (uint64_t)i; __asm__ volatile(\"\"); }\n"
    "    else { s ^= (uint64_t)i * 3; __asm__ volatile(\"\"); }\n"
    "  }\n"
    "  return (int)(s & 1);\n"
    "}\n";

#endif
