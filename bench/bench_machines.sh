#!/usr/bin/env bash
# bench_machines.sh: does the graph's accuracy hold on machines nobody tuned
# it on? Draws random machines (seeded, reproducible) around the baseline
# and runs `icost validate` on each machine and workload: the Table IX mean
# error against multisim and the largest error in percentage points, per
# run, then the mean over runs and the worst runs.
#
#   bash bench/bench_machines.sh
#   MACHINES=40 SEED=9 METHODS=graph,profiler bash bench/bench_machines.sh
#
# Each machine sets ROB (4..256), IQ and LSQ (from 4 up to the ROB), the
# issue, fetch and commit widths (1..8), MSHRs (1..16), multiply and
# load/store units, the L1D and memory latencies: `--set` lines printed with
# each result, so one run can be repeated by hand with `icost validate`.
# WORKLOADS (default "mix.short bzip2.short x_list"; a workload tagged
# extra runs from --skip $XSKIP for $XMAX instructions), CATS (default
# dl1,win,bw,bmisp,dmiss: 32 model runs a validation), METHODS (default
# graph). Rows: machine, workload, then per method its mean error in
# percent (`-` where no entry reaches 5% of time) and its largest error in
# points with the entry. Needs a release build ($BUILD/icost) and the built
# workloads (bash bench/workloads/build.sh build/workloads).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
ICOST=$BUILD/icost
MACHINES=${MACHINES:-16}
SEED=${SEED:-7}
WORKLOADS=${WORKLOADS:-"mix.short bzip2.short x_list"}
CATS=${CATS:-dl1,win,bw,bmisp,dmiss}
METHODS=${METHODS:-graph}
XSKIP=${XSKIP:-2M}
XMAX=${XMAX:-300k}

if [ ! -x "$ICOST" ]; then
  echo "bench_machines: $ICOST not found (build first)" >&2
  exit 2
fi

# One machine per line: --set options drawn by a seeded LCG (awk, so the
# same seed gives the same machines everywhere).
machines() {
  awk -v n="$MACHINES" -v seed="$SEED" 'function r(k) { s = (s * 1103515245 + 12345) % 2147483648; return int(s / 65536) % k }
    function pick(a, k,   v) { split(a, v, " "); return v[1 + r(k)] }
    BEGIN {
      s = seed
      for (m = 0; m < n; m++) {
        rob = pick("4 8 16 32 64 128 256", 7)
        iq = pick("4 8 16 " rob, 4); if (iq > rob) iq = rob
        lsq = pick("4 8 16 " rob, 4); if (lsq > rob) lsq = rob
        printf "--set core.rob=%d --set core.iq=%d --set core.lsq=%d", rob, iq, lsq
        printf " --set core.issue_width=%d --set core.fetch_width=%d --set core.commit_width=%d",
               pick("1 2 4 8", 4), pick("1 2 4 8", 4), pick("1 2 4 8", 4)
        printf " --set mem.mshrs=%d --set fu.int_mul=%d --set fu.ldst=%d", pick("1 2 4 16", 4),
               pick("1 2", 2), pick("1 2 3", 3)
        printf " --set l1d.latency=%d --set mem.latency=%d\n", pick("1 2 4", 3), pick("50 100 200", 3)
      }
    }'
}

tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp.rows"' EXIT
: >"$tmp.rows"
IFS=, read -r -a meths <<<"$METHODS"
printf '%-4s %-13s' machine workload
for m in "${meths[@]}"; do printf ' %24s' "$m: mean% / largest pp"; done
echo
i=0
while read -r sets; do
  i=$((i + 1))
  for w in $WORKLOADS; do
    range=()
    if grep -Eq "^$w[[:space:]]+[^[:space:]]*extra" "$ROOT/bench/workloads/manifest"; then
      range=(--skip "$XSKIP" --max "$XMAX")
    fi
    # shellcheck disable=SC2086 # $sets is a list of options
    if ! "$ICOST" validate $sets "${range[@]}" --workload "$w" --categories "$CATS" \
         --methods "$METHODS" --format yaml >"$tmp" 2>"$tmp.err"; then
      printf 'm%-3d %-13s failed: %s\n' "$i" "$w" "$(head -n 1 "$tmp.err")"
      continue
    fi
    printf 'm%-3d %-13s' "$i" "$w"
    for m in "${meths[@]}"; do
      # the workload's score of method m: its mean_error_percent and largest error
      read -r e pp set < <(awk -v m="$m" '
        /^workloads:/ { w = 1 } !w { next }
        $0 ~ "^    " m ":$" { on = 1; next }
        on && /^    [a-z]+:$/ { on = 0 }
        on && /^      mean_error_percent:/ { e = $2 }
        on && /^      max_abs_error_pp:/ { pp = $2 }
        on && /^      max_abs_error_set:/ { inset = 1; set = ""; next }
        on && inset && /^      - / { set = set (set == "" ? "" : "+") $2; next }
        { inset = 0 }
        END { printf "%s %s %s\n", (e == "" || e ~ /nan/ ? "-" : e), (pp == "" ? "-" : pp), (set == "" ? "-" : set) }' "$tmp")
      printf ' %10s / %5s %-7s' "$( [ "$e" = - ] && echo - || printf '%.1f' "$e")" \
        "$( [ "$pp" = - ] && echo - || printf '%.1f' "$pp")" "$set"
      echo "$m $e $pp m$i $w" >>"$tmp.rows"
    done
    echo "   $sets"
  done
done < <(machines)

echo
for m in "${meths[@]}"; do
  awk -v m="$m" '$1 == m && $2 != "-" { s += $2; n++ } $1 == m { pp[$4 " " $5] = $3 }
    END { if (n) printf "%s: mean error %.2f%% over %d runs with an entry above 5%%\n", m, s / n, n }' "$tmp.rows"
  echo "$m: the five largest errors in points:"
  awk -v m="$m" '$1 == m && $3 != "-" { print $3, $4, $5 }' "$tmp.rows" | sort -rn | head -n 5 |
    awk '{ printf "  %5.1f  %s %s\n", $1, $2, $3 }'
done
