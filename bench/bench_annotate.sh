#!/usr/bin/env bash
# bench_annotate.sh: what naming functions and source lines costs the
# reports: `icost critical` and `icost annotate` with the program's symbols
# and DWARF against the same command with --no-symbols (pcs only).
#
# usage: bench/bench_annotate.sh [-n REPEATS] [PROGRAM ARGS...]
#   ICOST=path/to/icost (default: build/icost)
#   default program: lua (the suite's source) built with -g -O2 -static into
#   a temporary directory, running bench.lua 3 (about 4M instructions)
#
# Prints, per command, the best user+system CPU seconds of REPEATS runs of
# each variant (run alternately), and their ratio (symbols / plain). CPU
# seconds, not wall time, so that a machine shared with other jobs distorts
# the figures less. The symbols are read once per run and each static pc is
# resolved once, so the ratio should stay near 1 (the budget: <= 1.10).
set -euo pipefail
cd "$(dirname "$0")/.."
icost=${ICOST:-build/icost}
reps=3
if [ "${1:-}" = "-n" ]; then reps=$2; shift 2; fi
[ -x "$icost" ] || { echo "bench_annotate: $icost not built (set ICOST=)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ $# -eq 0 ]; then
  W=${ICOST_WORKLOADS:-build/workloads}
  LU=$(ls -d "$W"/src/lua5.4-*/ 2>/dev/null | head -1)
  [ -n "$LU" ] || { echo "bench_annotate: no lua source in $W/src (bench/workloads/build.sh)" >&2; exit 2; }
  srcs=()
  for f in "$LU"/src/*.c; do [ "$(basename "$f")" = luac.c ] || srcs+=("$f"); done
  riscv64-linux-gnu-gcc -g -O2 -static -DLUA_USE_POSIX '-Dluai_makeseed(L)=0x9e3779b9u' \
    -I"$W/build-lua" -w -o "$tmp/lua_g" "${srcs[@]}" -lm
  set -- "$tmp/lua_g" "$W/bench.lua" 3
fi

cpu() { # user+system seconds of one run of icost "$@"
  /usr/bin/time -f '%U %S' -o "$tmp/t" "$icost" "$@" >/dev/null 2>"$tmp/err" ||
    { cat "$tmp/err" >&2; exit 1; }
  awk '{printf "%.3f\n", $1 + $2}' "$tmp/t"
}

printf '%-9s %10s %10s %7s\n' command symbols_s plain_s ratio
for c in critical annotate; do
  best_s="" best_p=""
  for _ in $(seq "$reps"); do
    s=$(cpu "$c" -- "$@")
    p=$(cpu "$c" --no-symbols -- "$@")
    best_s=$(awk -v a="$s" -v b="$best_s" 'BEGIN{print (b == "" || a < b) ? a : b}')
    best_p=$(awk -v a="$p" -v b="$best_p" 'BEGIN{print (b == "" || a < b) ? a : b}')
  done
  awk -v c="$c" -v s="$best_s" -v p="$best_p" 'BEGIN{printf "%-9s %10.3f %10.3f %7.3f\n", c, s, p, s / p}'
done
