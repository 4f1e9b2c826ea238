#!/usr/bin/env bash
# bench_graph.sh: what a user waits for. Wall seconds of whole icost commands
# against `icost sim` (the model alone) on the same run, measured one after
# the other in one run of this script (ratios, not seconds, compare across
# machines and loads), with every CPU the process may use:
#
#   sim        icost sim
#   g3         icost --categories dl1,win,bmisp             (graph, 8 subsets)
#   g8         icost                                        (graph, the default 8-category table: 17 subsets)
#   g8all      icost --show all                             (graph, 256 subsets)
#   m3, m8     the same two tables with --method multisim   (8 and 17 model runs)
#   m8all      --method multisim --show all                 (256 runs; only with MALL=1: long)
#
#   bash bench/bench_graph.sh [BUILD_DIR]
#   CONFIGS="baseline narrow" WORKLOADS="mix lua" SKIP=20M MAX=10M bash bench/bench_graph.sh
#
# Defaults: the suite's full workloads, configs baseline and narrow, --skip
# 20M --max 10M (a workload shorter than that is timed to its end). Prints a
# row per (config, workload): the seconds of sim and each command's ratio to
# it, multisim/graph for each table, and the graph runs' peak RSS (MB); then
# the geometric means of the ratios. CMDS picks columns (default "sim g3 g8
# g8all m3 m8").
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
ICOST=$BUILD/icost
[ -x "$ICOST" ] || { echo "bench_graph: $ICOST not found (build first)" >&2; exit 2; }
export ICOST_WORKLOADS=${ICOST_WORKLOADS:-$ROOT/build/workloads}
SKIP=${SKIP:-20M}
MAX=${MAX:-10M}
CONFIGS=${CONFIGS:-baseline narrow}
CMDS=${CMDS:-sim g3 g8 g8all m3 m8}
[ "${MALL:-0}" = 1 ] && CMDS="$CMDS m8all"
WORKLOADS=${WORKLOADS:-$(awk '!/^#/ && NF >= 2 { n = split($2, a, ","); for (i = 1; i <= n; i++) if (a[i] == "full") print $1 }' "$ROOT/bench/workloads/manifest")}

args_of() {
  case $1 in
    sim) echo "sim" ;;
    g3) echo "--categories dl1,win,bmisp" ;;
    g8) echo "" ;;
    g8all) echo "--show all" ;;
    m3) echo "--method multisim --categories dl1,win,bmisp" ;;
    m8) echo "--method multisim" ;;
    m8all) echo "--method multisim --show all" ;;
    *) echo "bench_graph: unknown command column $1" >&2; exit 2 ;;
  esac
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '%-9s %-10s' config workload
for c in $CMDS; do [ "$c" = sim ] && printf ' %8s' "sim s" || printf ' %7s' "$c"; done
printf ' %6s %6s %7s %7s\n' m3/g3 m8/g8 rss3MB rssaMB
declare -A logsum
n=0
for cfg in $CONFIGS; do
  for w in $WORKLOADS; do
    declare -A sec=()
    rss3=0 rssa=0
    for c in $CMDS; do
      # shellcheck disable=SC2046
      if ! /usr/bin/time -f '%e %M' -o "$tmp/t" "$ICOST" $(args_of "$c") --config "$ROOT/configs/$cfg.yaml" \
           --workload "$w" --skip "$SKIP" --max "$MAX" >"$tmp/out" 2>"$tmp/err"; then
        echo "bench_graph: $cfg $w $c failed: $(grep -v '^Command' "$tmp/err" | tail -n 1)" >&2
        continue 2
      fi
      read -r s m <"$tmp/t"
      sec[$c]=$s
      [ "$c" = g3 ] && rss3=$((m / 1024))
      [ "$c" = g8all ] && rssa=$((m / 1024))
    done
    printf '%-9s %-10s' "$cfg" "$w"
    for c in $CMDS; do
      if [ "$c" = sim ]; then
        printf ' %8.2f' "${sec[sim]}"
      else
        r=$(awk -v a="${sec[$c]}" -v b="${sec[sim]}" 'BEGIN { printf "%.2f", a / b }')
        printf ' %7s' "${r}x"
        logsum[$c]=$(awk -v s="${logsum[$c]:-0}" -v r="$r" 'BEGIN { print s + log(r) }')
      fi
    done
    # multisim / graph where both ran ("-" elsewhere)
    m3g3=$(awk -v a="${sec[m3]:-}" -v b="${sec[g3]:-}" 'BEGIN { if (a == "" || b == "") print "-"; else printf "%.2f", a / b }')
    m8g8=$(awk -v a="${sec[m8]:-}" -v b="${sec[g8]:-}" 'BEGIN { if (a == "" || b == "") print "-"; else printf "%.2f", a / b }')
    [ "$m3g3" != - ] && logsum[m3g3]=$(awk -v s="${logsum[m3g3]:-0}" -v r="$m3g3" 'BEGIN { print s + log(r) }') && nm3=$((${nm3:-0} + 1))
    [ "$m8g8" != - ] && logsum[m8g8]=$(awk -v s="${logsum[m8g8]:-0}" -v r="$m8g8" 'BEGIN { print s + log(r) }') && nm8=$((${nm8:-0} + 1))
    printf ' %6s %6s %7d %7d\n' "$m3g3" "$m8g8" "$rss3" "$rssa"
    n=$((n + 1))
  done
done
[ "$n" -gt 0 ] || exit 1
printf '%-20s' "geometric mean"
for c in $CMDS; do
  [ "$c" = sim ] && { printf ' %8s' ""; continue; }
  printf ' %7s' "$(awk -v s="${logsum[$c]}" -v n="$n" 'BEGIN { printf "%.2fx", exp(s / n) }')"
done
gm() { [ "${2:-0}" -gt 0 ] && awk -v s="$1" -v n="$2" 'BEGIN { printf "%.2f", exp(s / n) }' || echo -; }
printf ' %6s %6s\n' "$(gm "${logsum[m3g3]:-0}" "${nm3:-0}")" "$(gm "${logsum[m8g8]:-0}" "${nm8:-0}")"
