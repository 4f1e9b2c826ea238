#!/usr/bin/env bash
# bench_profiler.sh: the shotgun profiler's accuracy and costs (issue 6).
#
#   bash bench/bench_profiler.sh
#   WORKLOADS="mix bzip2" CONFIGS=baseline bash bench/bench_profiler.sh
#   ACCURACY=0 COST_MAX=5M bash bench/bench_profiler.sh      # costs only
#
# Accuracy (ACCURACY=1, default), for each machine of $CONFIGS and each
# workload of $WORKLOADS, fast-forwarded $SKIP instructions (the last $WARM
# warming) and timed for $MAX:
#   multisim  2^8 model runs (ground truth; $JOBS threads)
#   graph     the full run's dependence graph
#   graphfrag windows of $LEN instructions of that graph (perfect stitching;
#             LEN unset: the machine's default length)
#   profiler  `icost profile` (signature samples back to back: about
#             $MAX / $LEN fragments) then `icost analyze`, at the default
#             detailed-sample interval $SAMPLE and at ten times it ($SAMPLE_LOW,
#             one tenth of the sampling rate)
# The Table IX metric of each against multisim: the mean of |method -
# multisim| / |multisim| in percent over the paper's rows (the singletons and
# the pairs with the first category; never base) whose multisim magnitude
# exceeds 5% of execution time (icost validate's definition), and the split
# of the profiler's error: graph -> graphfrag (fragments instead of the whole
# graph) and graphfrag -> profiler (stitching). The last line of each table
# is the mean over the workloads.
#
# Costs, for each workload of $COST_WORKLOADS timed for $COST_MAX (after
# $COST_SKIP, default 0: no fast-forward to dilute the ratio) at the
# profiler's default intervals (detailed $SAMPLE, signature $SIGNATURE):
# CPU seconds of `icost sim` (the model alone) and of `icost profile` (the
# model with graph records, the sampling hook and the sample file), the
# slowdown (their ratio), detailed + signature samples per CPU second of the
# profile run, and the file's bytes per million timed instructions.
#
# Everything goes to $OUT (CSV per method, the tables in summary.txt).
# MULTISIM_FROM=DIR reuses DIR's <config>_<workload>.multisim.csv (an
# earlier $OUT of the same model and options) instead of 2^8 runs each.
# Needs a release build ($BUILD/icost) and the built workloads
# (bash bench/workloads/build.sh build/workloads).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
ICOST=$BUILD/icost
WORKLOADS=${WORKLOADS:-"chase stream branchy depchain stencil mix bzip2 gzip lua"}
CONFIGS=${CONFIGS:-"baseline l1d4"}
SKIP=${SKIP:-20M}
WARM=${WARM:-2M}
MAX=${MAX:-300k}
CATS=${CATS:-dl1,win,bw,bmisp,dmiss,shalu,lgalu,imiss}
JOBS=${JOBS:-$(nproc)}
SAMPLE=${SAMPLE:-64}
SAMPLE_LOW=${SAMPLE_LOW:-$((SAMPLE * 10))}
SIGNATURE=${SIGNATURE:-10000}
LEN=${LEN:-} # empty: the machine's default (60 x core.rob, at least 2000)
LENOPT=() PLENOPT=() # icost's and icost profile's spelling
if [ -n "$LEN" ]; then LENOPT=(--frag-length "$LEN") PLENOPT=(--fragment-length "$LEN"); fi
ACCURACY=${ACCURACY:-1}
COST=${COST:-1}
COST_WORKLOADS=${COST_WORKLOADS:-"chase branchy mix bzip2"}
COST_MAX=${COST_MAX:-2M}
COST_SKIP=${COST_SKIP:-0}
OUT=${OUT:-$BUILD/bench_profiler}

if [ ! -x "$ICOST" ]; then
  echo "bench_profiler: $ICOST not found (build first)" >&2
  exit 2
fi
mkdir -p "$OUT"
SUMMARY=$OUT/summary.txt
: >"$SUMMARY"
say() { echo "$@" | tee -a "$SUMMARY"; }

cpu() { # cmd...: runs it, prints user+sys CPU seconds
  local t
  t=$( { /usr/bin/env TIMEFORMAT='%U %S' bash -c 'time "$@" >/dev/null 2>&1' _ "$@"; } 2>&1 | tail -1)
  awk -v t="$t" 'BEGIN { split(t, a, " "); printf "%.2f", a[1] + a[2] }'
}

# Table IX metric of method csv $1 against reference csv $2 (--show all):
# singletons and pairs with the first category of $CATS, |reference| > 5.
metric() {
  if [ ! -s "$1" ] || [ ! -s "$2" ]; then
    printf fail
    return
  fi
  awk -F, -v first="${CATS%%,*}" '
    $1 == "#" || $1 == "name" { next }   # the provenance and the header
    FILENAME == ARGV[1] { m[$1] = $3; next }
    $1 != "base" && ($1 in m) && (m[$1] > 5 || m[$1] < -5) {
      n1 = split($1, q, "+")
      if (n1 > 2 || (n1 == 2 && q[1] != first)) next
      d = $3 - m[$1]; if (d < 0) d = -d; a = m[$1]; if (a < 0) a = -a
      s += 100 * d / a; n++ }
    END { if (n) printf "%.1f", s / n; else printf "0.0" }' "$2" "$1"
}

if [ "$ACCURACY" = 1 ]; then
  for cfg in $CONFIGS; do
    CF=(--config "$ROOT/configs/$cfg.yaml")
    RUN=(--skip "$SKIP" --warm "$WARM" --max "$MAX")
    say "machine $cfg: Table IX mean error (%) against multisim, $CATS, skip $SKIP warm $WARM max $MAX"
    say "$(printf '%-9s %7s %9s %9s %9s   %9s %9s %9s' workload graph graphfrag "prof_$SAMPLE" \
      "prof_$SAMPLE_LOW" 'g->gfrag' 'gfrag->pr' 'gfrag->pr10')"
    rows=$OUT/rows_$cfg.txt
    : >"$rows"
    for w in $WORKLOADS; do
      p=$OUT/${cfg}_$w
      A=(--workload "$w" "${RUN[@]}" "${CF[@]}")
      if [ -n "${MULTISIM_FROM:-}" ] && [ -s "$MULTISIM_FROM/${cfg}_$w.multisim.csv" ]; then
        cp "$MULTISIM_FROM/${cfg}_$w.multisim.csv" "$p.multisim.csv"
      else
        "$ICOST" --method multisim -j "$JOBS" "${A[@]}" --categories "$CATS" --show all \
          --format csv >"$p.multisim.csv" 2>/dev/null
      fi
      "$ICOST" --method graph "${A[@]}" --categories "$CATS" --show all --format csv \
        >"$p.graph.csv" 2>/dev/null
      "$ICOST" --method graphfrag "${A[@]}" --categories "$CATS" --show all --format csv \
        "${LENOPT[@]}" >"$p.graphfrag.csv" 2>/dev/null
      for si in "$SAMPLE" "$SAMPLE_LOW"; do
        "$ICOST" profile -o "$p.$si.samples" "${A[@]}" --sample-interval "$si" \
          --signature-interval 1 "${PLENOPT[@]}" 2>"$p.$si.profile.err"
        # a profile whose fragments all abort gives no breakdown: "fail" in the table
        if ! "$ICOST" analyze "$p.$si.samples" --categories "$CATS" --show all --format csv \
          >"$p.profiler_$si.csv" 2>"$p.profiler_$si.err"; then
          rm -f "$p.profiler_$si.csv"
        fi
        "$ICOST" analyze "$p.$si.samples" --categories "$CATS" --format yaml \
          >"$p.profiler_$si.yaml" 2>/dev/null || true
      done
      ms=$p.multisim.csv
      row="$(metric "$p.graph.csv" "$ms") $(metric "$p.graphfrag.csv" "$ms") \
$(metric "$p.profiler_$SAMPLE.csv" "$ms") $(metric "$p.profiler_$SAMPLE_LOW.csv" "$ms") \
$(metric "$p.graphfrag.csv" "$p.graph.csv") $(metric "$p.profiler_$SAMPLE.csv" "$p.graphfrag.csv") \
$(metric "$p.profiler_$SAMPLE_LOW.csv" "$p.graphfrag.csv")"
      echo "$row" >>"$rows"
      say "$(printf '%-9s %7s %9s %9s %9s   %9s %9s %9s' "$w" $row)"
    done
    say "$(awk '{ for (k = 1; k <= NF; k++) if ($k != "fail") { s[k] += $k; n[k]++ } else f[k]++ }
      END { printf "%-9s", "mean"
            for (k = 1; k <= 7; k++)
              printf (k == 5 ? "   %9s" : k == 1 ? " %7s" : " %9s"),
                     (n[k] ? sprintf("%.1f", s[k] / n[k]) : "fail") (f[k] ? "*" : "") }' "$rows")"
    say ""
  done
  say "graph, graphfrag, prof_N: multisim -> method (prof_N: detailed-sample interval N)"
  say "g->gfrag: graph -> graphfrag; gfrag->pr, gfrag->pr10: graphfrag -> profiler at the two rates"
  say "fail: every fragment aborted in stitching (no breakdown; the reason is in <config>_<workload>.profiler_N.err);"
  say "a mean marked * leaves those workloads out"
  say ""
fi

if [ "$COST" = 1 ]; then
  RUN=(--skip "$COST_SKIP" --max "$COST_MAX")
  say "costs at the default intervals (detailed $SAMPLE, signature $SIGNATURE, L ${LEN:-default}), the first $COST_MAX instructions after $COST_SKIP"
  say "$(printf '%-9s %8s %8s %7s %10s %10s' workload sim_s prof_s slow samples/s B/Minst)"
  for w in $COST_WORKLOADS; do
    f=$OUT/cost_$w.samples
    ts=$(cpu "$ICOST" sim --workload "$w" "${RUN[@]}")
    tp=$(cpu "$ICOST" profile -o "$f" --workload "$w" "${RUN[@]}" --sample-interval "$SAMPLE" \
      --signature-interval "$SIGNATURE" "${PLENOPT[@]}")
    "$ICOST" profile -o "$f" --workload "$w" "${RUN[@]}" --sample-interval "$SAMPLE" \
      --signature-interval "$SIGNATURE" "${PLENOPT[@]}" 2>"$OUT/cost_$w.err"
    samples=$(sed -n 's/.*: \([0-9]*\) detailed + \([0-9]*\) signature.*/\1 \2/p' "$OUT/cost_$w.err" \
      | awk '{ print $1 + $2 }')
    insts=$(sed -n 's/.* from \([0-9]*\) instructions.*/\1/p' "$OUT/cost_$w.err")
    bytes=$(stat -c %s "$f")
    rate=$(awk -v s="$samples" -v t="$tp" 'BEGIN { printf "%.0f", (t > 0 ? s / t : 0) }')
    bpm=$(awk -v b="$bytes" -v n="$insts" 'BEGIN { printf "%.0f", (n > 0 ? b * 1e6 / n : 0) }')
    slow=$(awk -v a="$tp" -v b="$ts" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')
    say "$(printf '%-9s %8s %8s %7s %10s %10s' "$w" "$ts" "$tp" "$slow" "$rate" "$bpm")"
  done
  say "sim_s, prof_s: CPU seconds of icost sim and icost profile (same skip/max; both include"
  say "loading and any fast-forward); slow = prof_s/sim_s; samples/s: detailed + signature samples per CPU"
  say "second of the profile run; B/Minst: file bytes per million timed instructions"
fi
