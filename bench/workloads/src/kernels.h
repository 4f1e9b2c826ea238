/* kernels.h: the workload suite's own kernels, one microarchitectural
 * behaviour each. Every kernel is deterministic (seeded LCG) and returns a
 * checksum of its work; the programs print it. */
#ifndef WL_KERNELS_H
#define WL_KERNELS_H

#include <stdint.h>

/* Pointer chase: `nodes` 64-byte nodes (one cache line each) linked in one
 * random cycle (Sattolo's algorithm), followed for `steps` loads, each
 * address depending on the previous load. Cache- and TLB-miss bound once
 * nodes * 64 bytes is well beyond the L2. Returns 0 when allocation fails. */
uint64_t wl_chase(uint64_t nodes, uint64_t steps, uint64_t seed);

/* Streaming sum: `n` 64-bit words initialised from the LCG, summed `reps`
 * times with independent loads (prefetch- and bandwidth-bound). */
uint64_t wl_stream(uint64_t n, uint64_t reps, uint64_t seed);

/* Unpredictable branches: `n` iterations, each taking two branches decided
 * by fresh LCG bits, so a predictor is right about half of the time. */
uint64_t wl_branchy(uint64_t n, uint64_t seed);

/* Dependent integer chain: `n` iterations of a serial chain of one-cycle
 * ALU operations and a multiply; no instruction-level parallelism. */
uint64_t wl_depchain(uint64_t n, uint64_t seed);

/* FP kernel: `iters` Jacobi sweeps of a 5-point stencil on an n x n grid of
 * doubles, then a small n-independent 16x16 matrix multiply; returns the
 * bit pattern of the checksum. Returns 0 when allocation fails. */
uint64_t wl_stencil(uint64_t n, uint64_t iters, uint64_t seed);

#endif
