#!/usr/bin/env bash
# graph_times.sh: the graph method's t(S) for every subset of the eight
# categories, on every suite workload and every machine in configs/, saved
# as one CSV per (config, workload): `icost --show all --format csv`, whose
# 255 interaction rows and base determine every t(S) (Moebius inversion),
# with the run's cycles and critical path. For checking that a change to the
# graph contract or the solver leaves every answer as it was:
#
#   bash bench/graph_times.sh save DIR [BUILD_DIR]    # the reference (e.g. main's build)
#   bash bench/graph_times.sh check DIR [BUILD_DIR]   # the same runs, compared byte for byte
#                                                     # (but the provenance and config path rows)
#
# TAGS (default "short full") picks the workloads; the short ones run whole,
# the full ones with --skip $SKIP --warm $WARM --max $MAX (defaults 2M, 1M,
# 1M, as bench_validate.sh). CONFIGS (default: every configs/*.yaml) by name.
# ARGS: more icost options, word-split (e.g. "-j 1"). check prints one line
# per run that differs and ends with `N passed, N failed`; exit 1 if any did.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
mode=${1:-}
DIR=${2:-}
BUILD=${3:-$ROOT/build}
case $mode in save|check) ;; *) echo "usage: graph_times.sh save|check DIR [BUILD_DIR]" >&2; exit 2 ;; esac
[ -n "$DIR" ] || { echo "graph_times: no DIR" >&2; exit 2; }
ICOST=$BUILD/icost
[ -x "$ICOST" ] || { echo "graph_times: $ICOST not found (build first)" >&2; exit 2; }
TAGS=${TAGS:-short full}
SKIP=${SKIP:-2M}
WARM=${WARM:-1M}
MAX=${MAX:-1M}
ARGS=${ARGS:-}
export ICOST_WORKLOADS=${ICOST_WORKLOADS:-$ROOT/build/workloads}
configs=${CONFIGS:-$(cd "$ROOT/configs" && ls *.yaml | sed 's/\.yaml$//')}
manifest=$ROOT/bench/workloads/manifest
if [ "$mode" = check ]; then
  [ -d "$DIR" ] || { echo "graph_times: $DIR: no such directory" >&2; exit 2; }
else
  mkdir -p "$DIR"
fi

# rows that name the build or where it lives, not the answers: the
# provenance and the config file's path (the same config from another
# checkout or worktree)
SKIP_ROWS='^#,provenance\|^#,config,'
pass=0 fail=0
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for tag in $TAGS; do
  names=$(awk -v t="$tag" '!/^#/ && NF >= 2 { n = split($2, a, ","); for (i = 1; i <= n; i++) if (a[i] == t) print $1 }' "$manifest")
  [ "$tag" = full ] && range=(--skip "$SKIP" --warm "$WARM" --max "$MAX") || range=()
  for c in $configs; do
    for w in $names; do
      f=$DIR/$c.$w.csv
      # shellcheck disable=SC2086
      if ! "$ICOST" --config "$ROOT/configs/$c.yaml" --workload "$w" "${range[@]}" \
           --show all --format csv $ARGS >"$out" 2>&1; then
        echo "graph_times: $c $w: icost failed: $(tail -n 1 "$out")" >&2
        fail=$((fail + 1))
        continue
      fi
      if [ "$mode" = save ]; then
        cp "$out" "$f"
        pass=$((pass + 1))
      elif cmp -s <(grep -v "$SKIP_ROWS" "$out") <(grep -v "$SKIP_ROWS" "$f"); then
        pass=$((pass + 1))
      else
        echo "differs: $c $w ($f)"
        diff <(grep -v "$SKIP_ROWS" "$f") <(grep -v "$SKIP_ROWS" "$out") | head -n 6 || true
        fail=$((fail + 1))
      fi
    done
  done
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
