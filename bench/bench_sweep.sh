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
# alone). The store's overhead per run is (sweep -j 1 - one by one) / 48.
# Wall time on a shared machine is noisy: compare within one run of this.
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

now() { date +%s.%N; }
t0=$(now)
for rob in 32 64 128 256; do
  for lat in 1 2 3 4; do
    for w in "${wls[@]}"; do
      "$icost" --set core.rob=$rob --set l1d.latency=$lat --workload "$w" --categories "$cats" \
        --max "$max" --show shapley --format yaml >/dev/null
    done
  done
done
t1=$(now)
"$icost" sweep "${args[@]}" -j 1 --out "$tmp/j1" >/dev/null 2>&1
t2=$(now)
"$icost" sweep "${args[@]}" -j 2 --out "$tmp/j2" >/dev/null 2>&1
t3=$(now)
"$icost" sweep "${args[@]}" -j 1 --out "$tmp/j1" >/dev/null 2>&1
t4=$(now)
"$icost" sweep --out "$tmp/j1" --export csv >/dev/null
t5=$(now)
awk -v a="$t0" -v b="$t1" -v c="$t2" -v d="$t3" -v e="$t4" -v f="$t5" -v cpus="$(nproc)" 'BEGIN {
  one = b - a; j1 = c - b; j2 = d - c; scan = e - d; export_s = f - e
  printf "48 runs (16 points x 3 workloads), %d CPUs\n", cpus
  printf "one by one          %8.2f s\n", one
  printf "sweep -j 1          %8.2f s  (%.2fx one by one)\n", j1, j1 / one
  printf "sweep -j 2          %8.2f s  (%.2fx one by one)\n", j2, j2 / one
  printf "store overhead      %8.1f ms per run ((sweep -j 1 - one by one) / 48)\n", (j1 - one) / 48 * 1000
  printf "rerun, all present  %8.3f s\n", scan
  printf "export csv          %8.3f s\n", export_s
}'
