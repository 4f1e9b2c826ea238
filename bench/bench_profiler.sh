#!/usr/bin/env bash
# bench_profiler.sh: the shotgun profiler's costs and accuracy.
#
#   bash bench/bench_profiler.sh
#   WORKLOADS="chase branchy" MAX=1M ACCURACY=0 bash bench/bench_profiler.sh
#
# For each workload of $WORKLOADS (manifest names), fast-forwarded $SKIP
# instructions (the last $WARM warming) and timed for $MAX:
#   - CPU seconds (user+sys) of `icost sim` (the model alone) and of
#     `icost profile` (the model with graph records, the sampling hook and
#     the sample file): the slowdown is their ratio;
#   - samples per CPU second of the profile run, the file's bytes per
#     million instructions (from profile's stderr and the file);
#   - with ACCURACY=1 (default): the breakdown over $CATS by multisim
#     (2^n model runs, ground truth), by the profiler (`icost analyze` on
#     the file) and by graphfrag, and the paper's Table IX metric of each
#     against multisim: the mean of |method - multisim| / |multisim| in
#     percent over the entries (every interaction, not base) whose multisim
#     magnitude exceeds 5% of execution time; and the same metric of the
#     profiler against graphfrag (perfectly stitched windows of the same
#     length), which isolates the error of sampling and stitching.
# Files go to $OUT. Needs a release build ($BUILD/icost) and the built
# workloads ($ICOST_WORKLOADS or build/workloads; bash bench/workloads/build.sh).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
ICOST=$BUILD/icost
WORKLOADS=${WORKLOADS:-"chase branchy mix"}
SKIP=${SKIP:-2M}
WARM=${WARM:-1M}
MAX=${MAX:-1M}
CATS=${CATS:-dl1,win,bw,bmisp,dmiss,shalu,lgalu,imiss}
SAMPLE=${SAMPLE:-64}
SIGNATURE=${SIGNATURE:-3000}
LEN=${LEN:-2000}
ACCURACY=${ACCURACY:-1}
OUT=${OUT:-$BUILD/bench_profiler}

if [ ! -x "$ICOST" ]; then
  echo "bench_profiler: $ICOST not found (build first)" >&2
  exit 2
fi
mkdir -p "$OUT"
RUN=(--skip "$SKIP" --warm "$WARM" --max "$MAX")

cpu() { # cmd...: runs it, prints user+sys CPU seconds
  local t
  t=$( { /usr/bin/env TIMEFORMAT='%U %S' bash -c 'time "$@" >/dev/null 2>&1' _ "$@"; } 2>&1 | tail -1)
  awk -v t="$t" 'BEGIN { split(t, a, " "); printf "%.2f", a[1] + a[2] }'
}

# Table IX metric of method csv $1 against multisim csv $2 (--show all).
metric() {
  awk -F, '
    FNR == 1 { next }
    FILENAME == ARGV[1] { m[$1] = $3; next }
    $1 != "base" && ($1 in m) && (m[$1] > 5 || m[$1] < -5) {
      d = $3 - m[$1]; if (d < 0) d = -d; a = m[$1]; if (a < 0) a = -a
      s += 100 * d / a; n++ }
    END { if (n) printf "%.1f", s / n; else printf "n/a" }' "$2" "$1"
}

printf '%-10s %8s %8s %7s %10s %10s %9s %9s %9s\n' workload sim_s prof_s slow samples/s B/Minst \
  prof_err gfrag_err prof_gf
for w in $WORKLOADS; do
  f=$OUT/$w.samples
  ts=$(cpu "$ICOST" sim --workload "$w" "${RUN[@]}")
  tp=$(cpu "$ICOST" profile -o "$f" --workload "$w" "${RUN[@]}" --sample-interval "$SAMPLE" \
    --signature-interval "$SIGNATURE" --fragment-length "$LEN")
  "$ICOST" profile -o "$f" --workload "$w" "${RUN[@]}" --sample-interval "$SAMPLE" \
    --signature-interval "$SIGNATURE" --fragment-length "$LEN" 2>"$OUT/$w.profile.err"
  samples=$(sed -n 's/.*: \([0-9]*\) detailed + \([0-9]*\) signature.*/\1 \2/p' "$OUT/$w.profile.err" \
    | awk '{ print $1 + $2 }')
  insts=$(sed -n 's/.* from \([0-9]*\) instructions.*/\1/p' "$OUT/$w.profile.err")
  bytes=$(stat -c %s "$f")
  rate=$(awk -v s="$samples" -v t="$tp" 'BEGIN { printf "%.0f", (t > 0 ? s / t : 0) }')
  bpm=$(awk -v b="$bytes" -v n="$insts" 'BEGIN { printf "%.0f", (n > 0 ? b * 1e6 / n : 0) }')
  slow=$(awk -v a="$tp" -v b="$ts" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
  pe=- ge=- pg=-
  if [ "$ACCURACY" = 1 ]; then
    "$ICOST" --method multisim --workload "$w" "${RUN[@]}" --categories "$CATS" --show all \
      --format csv >"$OUT/$w.multisim.csv"
    "$ICOST" analyze "$f" --categories "$CATS" --show all --format csv >"$OUT/$w.profiler.csv"
    "$ICOST" --method graphfrag --workload "$w" "${RUN[@]}" --categories "$CATS" --show all \
      --format csv --frag-length "$LEN" >"$OUT/$w.graphfrag.csv"
    pe=$(metric "$OUT/$w.profiler.csv" "$OUT/$w.multisim.csv")
    ge=$(metric "$OUT/$w.graphfrag.csv" "$OUT/$w.multisim.csv")
    pg=$(metric "$OUT/$w.profiler.csv" "$OUT/$w.graphfrag.csv")
  fi
  printf '%-10s %8s %8s %7s %10s %10s %9s %9s %9s\n' "$w" "$ts" "$tp" "$slow" "$rate" "$bpm" "$pe" "$ge" "$pg"
done
echo "sim_s, prof_s: CPU seconds of icost sim and icost profile (same skip/warm/max); slow = prof_s/sim_s"
echo "samples/s: detailed + signature samples per CPU second of the profile run; B/Minst: file bytes per million timed instructions"
echo "prof_err, gfrag_err: Table IX mean error (%) of the profiler and graphfrag against multisim over $CATS"
echo "prof_gf: the same metric of the profiler against graphfrag (the stitching error alone: graphfrag is perfect stitching)"
