#!/usr/bin/env bash
# bench_validate.sh: accuracy of the graph methods against multisim over the
# workload suite (paper Tables VIII and IX), on the baseline machine and the
# 4-cycle-L1D machine, with the wall time of each method.
#
#   bash bench/bench_validate.sh
#   TAG=short MAX=200k CONFIGS=baseline bash bench/bench_validate.sh
#   TAG=extra SKIP=4M MAX=300k bash bench/bench_validate.sh   (programs
#       outside the suite: does the accuracy hold beyond it?)
#
# Every workload of the manifest tagged $TAG is fast-forwarded $SKIP
# instructions (the last $WARM of them warming caches, TLBs and predictors)
# and timed for $MAX instructions: 2^8 = 256 model runs for multisim (on
# $JOBS threads), one run for graph, one for graphfrag. The full reports go
# to $OUT/validate_<config>.yaml (and .txt with TEXT=1, which runs the suite
# a second time); a summary per workload is printed: the Table IX mean error
# of graph and graphfrag against multisim over the paper's rows (singletons
# and pairs with the first category) and, "(all)", over every subset (graph);
# the same metric for graphfrag and the profiler ($METHODS); whether
# every interaction's sign agrees; "pp graph"/"pp prof": the largest error of
# graph and the profiler in percentage points of time over the paper's rows
# (validate's `largest error`; the relative metric makes small entries loud);
# the wall seconds of multisim and graph;
# "slow": the largest step by which multisim idealizing one category more ran
# slower, in percent of time (validate's not-monotone note: no graph method
# can follow those entries).
#
# The YAML keeps multisim's numbers: bench/score_graph.sh scores another
# build's graph against them without running multisim again.
#
# Needs a release build ($BUILD/icost) and the built workloads
# (bash bench/workloads/build.sh build/workloads).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
ICOST=$BUILD/icost
TAG=${TAG:-full}
SKIP=${SKIP:-2M}
WARM=${WARM:-1M}
MAX=${MAX:-1M}
CATS=${CATS:-dl1,win,bw,bmisp,dmiss,shalu,lgalu,imiss}
JOBS=${JOBS:-$(nproc)}
CONFIGS=${CONFIGS:-"baseline l1d4"}
METHODS=${METHODS:-graph,graphfrag,profiler}
OUT=${OUT:-$BUILD/bench_validate}

if [ ! -x "$ICOST" ]; then
  echo "bench_validate: $ICOST not found (build first)" >&2
  exit 2
fi
mkdir -p "$OUT"

run() { # config format file
  "$ICOST" validate --suite-tag "$TAG" --config "$ROOT/configs/$1.yaml" \
    --categories "$CATS" --methods "$METHODS" -j "$JOBS" \
    --skip "$SKIP" --warm "$WARM" --max "$MAX" --format "$2" >"$3.tmp"
  mv "$3.tmp" "$3"
}

for cfg in $CONFIGS; do
  start=$(date +%s)
  run "$cfg" yaml "$OUT/validate_$cfg.yaml"
  echo "$cfg: suite validated in $(($(date +%s) - start)) s (skip $SKIP, warm $WARM, max $MAX, -j $JOBS)"
  if [ "${TEXT:-0}" = 1 ]; then run "$cfg" text "$OUT/validate_$cfg.txt"; fi
  awk -v cfg="$cfg" '
    function flush() {
      if (w != "")
        printf "  %-16s %9s %9s %8s %9s %9s %8s %6s %7s %10s %8s %6s\n", w, eg, ega, xg, ef, ep, xp, sg, sga, tm, tg, sl
    }
    BEGIN {
      printf "  %-16s %9s %9s %8s %9s %9s %8s %6s %7s %10s %8s %6s\n", "workload", "err graph", "(all)",
             "pp graph", "err frag", "err prof", "pp prof", "signs", "(all)", "multisim s", "graph s", "slow"
    }
    /^methods:/ { sect = "methods"; next }
    /^workloads:/ { sect = "w"; next }
    sect == "methods" && /^  [a-z]+:$/ { m = $1; sub(":", "", m) }
    sect == "methods" && /^    mean_error_percent:/ { mean[m] = $2 }
    sect == "methods" && /^    mean_error_percent_all:/ { meanall[m] = $2 }
    sect == "methods" && /^    workloads_sign_agree:/ { agree[m] = $2 }
    sect == "methods" && /^    mean_abs_error_pp:/ { meanpp[m] = $2 }
    sect == "w" && /^- name:/ {
      flush(); w = $3; gsub(/"/, "", w); eg = ega = xg = ef = ep = xp = sg = sga = tm = tg = sl = "-"
    }
    sect == "w" && /^  [a-z_]+:$/ { sub2 = $1 }
    sect == "w" && /^    [a-z]+:/ { meth = $1; sub(":", "", meth)
      if (sub2 == "seconds:" && meth == "multisim") tm = sprintf("%.1f", $2)
      if (sub2 == "seconds:" && meth == "graph") tg = sprintf("%.2f", $2) }
    sect == "w" && /^    worst_percent:/ { sl = sprintf("%.1f", $2) }
    sect == "w" && /^      mean_error_percent:/ {
      if (meth == "graph") eg = sprintf("%.1f", $2)
      else if (meth == "graphfrag") ef = sprintf("%.1f", $2)
      else if (meth == "profiler") ep = sprintf("%.1f", $2) }
    sect == "w" && /^      mean_error_percent_all:/ { if (meth == "graph") ega = sprintf("%.1f", $2) }
    sect == "w" && /^      max_abs_error_pp:/ {
      if (meth == "graph") xg = sprintf("%.1f", $2)
      else if (meth == "profiler") xp = sprintf("%.1f", $2) }
    sect == "w" && /^      sign_mismatches:/ { if (meth == "graph") sg = ($2 == 0) ? "yes" : "no(" $2 ")" }
    sect == "w" && /^      sign_mismatches_all:/ {
      if (meth == "graph") sga = ($2 == 0) ? "yes" : "no(" $2 ")" }
    END {
      flush()
      printf "  %-16s %9.1f %9.1f %8s %9.1f %9.1f %8s   (workloads with every sign agreeing: graph %s, profiler %s;\n",
             "mean", mean["graph"], meanall["graph"], "", mean["graphfrag"], mean["profiler"], "", agree["graph"], agree["profiler"]
      printf "  %-16s %9s %9s %8s %9s %9s %8s    mean error in points over the entries above 5%%: graph %.1f, profiler %.1f)\n",
             "", "", "", "", "", "", "", meanpp["graph"], meanpp["profiler"]
    }
' "$OUT/validate_$cfg.yaml"
done
