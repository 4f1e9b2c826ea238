#!/bin/bash
# bench_solver.sh: figures for the powerset solver and the graph method.
#
#   bash bench/bench_solver.sh [BUILD_DIR] [-- PROGRAM ARGS]
#
# BUILD_DIR (default: build) must hold a configured and built icost
# (cmake -S . -B build && cmake --build build); the driver is its target
# bench_solver. Without a program the
# default workload of the manifest runs ($ICOST_WORKLOADS or build/workloads).
# Prints:
#   - model alone vs model + graph hook (recording overhead);
#   - the model feeding the 8-category solver, 1 and 2 solver threads (wall
#     and CPU time);
#   - solver throughput with 3 and 8 categories on recorded graphs (every
#     subset; and 8 categories solving only the 17 subsets icost's default
#     breakdown shows), 1 and 2
#     threads, wall time (the budget's measure) and CPU time of all threads,
#     and its speedup over 255 separate one-subset passes (single thread,
#     CPU time) (bench/bench_solver.c);
#   - peak memory (max RSS, /usr/bin/time -v) of `icost` (graph method, 8
#     categories) on a run and on a run 10x longer.
# Sizes: BENCH_MAX (default 400000) timed instructions for the solver part,
# BENCH_MEM_MAX (default 200000) for the shorter memory run.
# BENCH_SAVE=FILE also writes the kept records to FILE; then
#   $BUILD_DIR/bench_solver --load FILE [--records N] -- PROGRAM
# times only the solver on them (3 and 8 categories), e.g. for A/B runs of
# two builds or under valgrind --tool=callgrind --toggle-collect=ic_solver_feed
# (FILE holds raw records: read it with the same build of the headers); one
# configuration, records K.. K+N-1, one run (instructions per record under
# callgrind = total / N):
#   $BUILD_DIR/bench_solver --load FILE --from K --records N --cats 8 --threads 1 --reps 1
# `$BUILD_DIR/bench_solver --load FILE --spread E` (or --workload NAME
# --max N --spread E) measures instead whether 16-bit lanes would hold the
# 8-category solver's vectors with a rebase every E records (bench_solver.c).
# `$BUILD_DIR/bench_solver --workload NAME --skip 20M --warm 2M --max N --inert`
# (or --load FILE --inert) prints per category the first record where it
# acts and how often; one that never acts is inert for the run, and the
# solver then evaluates only the subsets without it.
# On a machine shared with other jobs wall times swing by +-40% from run to
# run; compare builds by the best of several runs, or by instruction counts
# (callgrind), and say which.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$src/build}
[ "${1:-}" != "" ] && [ "$1" != "--" ] && shift || true
[ "${1:-}" = "--" ] && shift || true
max=${BENCH_MAX:-400000}
memmax=${BENCH_MEM_MAX:-200000}
[ -x "$build/icost" ] || { echo "bench_solver: build $build first" >&2; exit 2; }
drv=$build/bench_solver
cmake --build "$build" --target bench_solver >/dev/null
prog=()
[ $# -gt 0 ] && prog=(-- "$@")
echo "== solver and recording (--max $max)"
"$drv" --max "$max" --records "$max" --passes-records 100000 ${BENCH_SAVE:+--save "$BENCH_SAVE"} "${prog[@]}"
echo
echo "== peak memory of icost (graph method, 8 categories)"
for n in "$memmax" $((memmax * 10)); do
  out=$( { /usr/bin/time -v "$build/icost" --max "$n" --format yaml "${prog[@]}" >/tmp/bench_solver.$$ ; } 2>&1 )
  rss=$(echo "$out" | awk -F': ' '/Maximum resident set size/ {print $2}')
  secs=$(echo "$out" | awk -F': ' '/Elapsed \(wall clock\)/ {print $2}')
  insns=$(awk '/^instructions:/ {print $2}' /tmp/bench_solver.$$)
  echo "icost --max $n: $insns instructions, max RSS $rss KB, wall $secs"
done
rm -f /tmp/bench_solver.$$
