#!/usr/bin/env bash
# score_graph.sh: the graph method's error against a multisim reference
# saved by an earlier bench_validate.sh run, without running multisim again
# (2^n model runs per workload: minutes, where the graph takes a second).
# For trying a change to the graph: score the new build against the old
# build's reference. METHOD=profiler (or graphfrag) scores that method
# instead, with its defaults, which are validate's (the same figure as
# bench_validate's "err prof" for the same build).
#
#   REF=build/bench_validate/validate_baseline.yaml bash bench/score_graph.sh [BUILD_DIR]
#   REF=... CONFIG=l1d4 SKIP=20M WARM=2M MAX=300k bash bench/score_graph.sh /tmp/other-build
#
# REF: a validate YAML written by bench_validate.sh (validate --format yaml);
# its workloads (by manifest name) and category order are used. CONFIG
# (default baseline, configs/$CONFIG.yaml), SKIP, WARM and MAX (defaults as
# bench_validate.sh: 2M, 1M, 1M) must be the ones the reference was run
# with: the YAML does not record them. METHOD: graph (default), graphfrag
# or profiler. ARGS: more icost options for the method's run, word-split
# (e.g. ARGS="--frag-length 4000").
# Prints per workload the Table IX mean error of the method (relative error
# over the paper's rows, singletons and pairs with the first category,
# whose reference exceeds 5% of time; the same number as bench_validate's
# "err graph") and the largest error in percentage points over all of those
# rows ("pp graph"), then the means.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
ICOST=$BUILD/icost
REF=${REF:?"score_graph: set REF to a validate YAML written by bench_validate.sh"}
CONFIG=${CONFIG:-baseline}
SKIP=${SKIP:-2M}
WARM=${WARM:-1M}
MAX=${MAX:-1M}
METHOD=${METHOD:-graph}
case $METHOD in graph|graphfrag|profiler) ;; *) echo "score_graph: METHOD=$METHOD: not graph, graphfrag or profiler" >&2; exit 2 ;; esac
[ -x "$ICOST" ] || { echo "score_graph: $ICOST not found (build first)" >&2; exit 2; }
[ -r "$REF" ] || { echo "score_graph: $REF: cannot read" >&2; exit 2; }
cats=$(awk '/^categories:/ { on = 1; next } on && /^- / { c = c (c == "" ? "" : ",") $2; next }
            on { print c; exit }' "$REF")
[ -n "$cats" ] || { echo "score_graph: $REF: no categories line (not a validate YAML?)" >&2; exit 2; }
names=$(awk '/^- name:/ { n = $3; gsub(/"/, "", n); print n }' "$REF")
[ -n "$names" ] || { echo "score_graph: $REF: no workloads" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf "  %-16s %9s %9s\n" workload "err $METHOD" "pp $METHOD"
for w in $names; do
  # the reference's rows of this workload: "set multisim", set joined by +
  awk -v w="$w" '
    /^- name:/ { n = $3; gsub(/"/, "", n); on = (n == w); entries = 0 }
    /^  entries:/ { entries = 1 }
    !entries { next }
    on && /^  - set:/ { s = ""; next }
    on && /^    - / { s = s (s == "" ? "" : "+") $2 }
    on && /^    multisim:/ { print s, $2 }
  ' "$REF" >"$tmp/ref"
  if ! "$ICOST" --workload "$w" --config "$ROOT/configs/$CONFIG.yaml" --categories "$cats" \
      --method "$METHOD" ${ARGS:-} --skip "$SKIP" --warm "$WARM" --max "$MAX" --format csv >"$tmp/g" 2>"$tmp/err"; then
    echo "score_graph: $w: $(head -n 1 "$tmp/err")" >&2
    exit 1
  fi
  awk -F, -v w="$w" -v first="${cats%%,*}" '
    NR == FNR { ref[$1] = $2; next }   # ref: "set value" (space-separated)
    $1 != "#" && $1 != "name" { g[$1] = $3 }   # percent; not the provenance or the header
    END {
      for (s in ref) {
        if (s == "other" || s == "base") continue
        n = split(s, part, "+")
        if (n > 2 || (n == 2 && part[1] != first)) continue
        d = g[s] - ref[s]; if (d < 0) d = -d
        r = ref[s] < 0 ? -ref[s] : ref[s]
        if (d > mx) mx = d
        if (r > 5) { sum += d / r; k++ }
      }
      if (k) printf "  %-16s %9.1f %9.1f\n", w, 100 * sum / k, mx
      else printf "  %-16s %9s %9s\n", w, "n/a", "-"
    }
  ' FS=' ' "$tmp/ref" FS=, "$tmp/g"
done | tee "$tmp/rows"
awk '$2 != "n/a" { s += $2; p += $3; k++ } END { if (k) printf "  %-16s %9.1f %9.1f\n", "mean", s / k, p / k }' "$tmp/rows"
