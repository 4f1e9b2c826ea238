/* x_branchmiss N: N passes over 64K random 16-bit values, each taking one
 * of two short paths on a branch that depends on the loaded value and so is
 * mispredicted about every other element (bound by mispredictions, with
 * the L1 hit latency of the load on the way to every resolution). An
 * extra workload: with dl1 idealized the load and its consumers issue in
 * one cycle, which an issue-slot edge from the n-th older issue could not
 * follow (graph 10.0% on baseline; the slot form of IW, graph_rec.h, 1.2%). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 200;
  size_t sz = (size_t)1 << 16;
  int32_t *a = malloc(sz * sizeof *a);
  if (!a) return 1;
  uint32_t r = 1;
  for (size_t i = 0; i < sz; i++) {
    r = r * 1664525u + 1013904223u;
    a[i] = (int32_t)(r >> 8) & 0xffff;
  }
  long s = 0;
  for (long k = 0; k < n; k++)
    for (size_t i = 0; i < sz; i++)
      if (a[i] > 0x8000)
        s += a[i];
      else
        s -= a[i] >> 1;
  printf("%ld\n", s);
  return 0;
}
