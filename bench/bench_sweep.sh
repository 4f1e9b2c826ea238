#!/usr/bin/env bash
# bench_sweep.sh: what `icost sweep` costs beside the runs themselves.
#
#   bash bench/bench_sweep.sh [BUILD_DIR]
#
# A sweep of 16 points (core.rob 32..256 x l1d.latency 1..4) on 3 short
# workloads (48 runs, categories dl1,win,dmiss, --max ${MAX:-100k}, Shapley
# shares on) timed in wall seconds four ways: the same 48 runs one by one
# (`icost --set ... --show shapley --format yaml`), the sweep at -j 1, at -j 2,
# and a rerun of the whole sweep with every record present (the store's scan
# alone), in wall and in CPU seconds (user + system of all processes). The
# store's overhead per run is (CPU of sweep -j 1 - CPU one by one) / 48: CPU
# time, because wall time on a shared machine is noisy.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
icost=$build/icost
[ -x "$icost" ] || { echo "bench_sweep: $icost not built" >&2; exit 2; }
max=${MAX:-100k}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
wls=(mix.short stream.short chase.short)
cats=dl1,win,dmiss
args=(--vary core.rob=32..256*2 --vary l1d.latency=1..4 --categories "$cats" --max "$max")
for w in "${wls[@]}"; do args+=(--workload "$w"); done

# wall and CPU (user + system of every process) seconds of a command
TIMEFORMAT='%R %U %S'
timed() { # timed VAR CMD...: VAR="wall cpu"
  local var=$1 t; shift
  t=$( { time "$@" >/dev/null 2>&1; } 2>&1 )
  printf -v "$var" '%s' "$(awk '{ printf "%.3f %.3f", $1, $2 + $3 }' <<<"$t")"
}
one_by_one() {
  for rob in 32 64 128 256; do
    for lat in 1 2 3 4; do
      for w in "${wls[@]}"; do
        "$icost" --set core.rob=$rob --set l1d.latency=$lat --workload "$w" --categories "$cats" \
          --max "$max" --show shapley --format yaml >/dev/null
      done
    done
  done
}
timed one one_by_one
timed j1 "$icost" sweep "${args[@]}" -j 1 --out "$tmp/j1"
timed j2 "$icost" sweep "${args[@]}" -j 2 --out "$tmp/j2"
timed scan "$icost" sweep "${args[@]}" -j 1 --out "$tmp/j1"
timed exp_t "$icost" sweep --out "$tmp/j1" --export csv
awk -v one="$one" -v j1="$j1" -v j2="$j2" -v scan="$scan" -v ex="$exp_t" -v cpus="$(nproc)" 'BEGIN {
  split(one, o); split(j1, a); split(j2, b); split(scan, c); split(ex, e)
  printf "48 runs (16 points x 3 workloads), %d CPUs     wall s     CPU s\n", cpus
  printf "one by one                               %8.2f  %8.2f\n", o[1], o[2]
  printf "sweep -j 1                               %8.2f  %8.2f  (wall %.2fx one by one)\n", a[1], a[2], a[1] / o[1]
  printf "sweep -j 2                               %8.2f  %8.2f  (wall %.2fx one by one)\n", b[1], b[2], b[1] / o[1]
  printf "store overhead per run (CPU, -j 1)       %8.1f ms\n", (a[2] - o[2]) / 48 * 1000
  printf "rerun with all 48 present                %8.3f  %8.3f\n", c[1], c[2]
  printf "export csv of 48 records                 %8.3f  %8.3f\n", e[1], e[2]
}'
