#!/usr/bin/env bash
# bench_emu.sh: speed of the RV64 emulator next to qemu-riscv64.
#
# usage: bench/bench_emu.sh [-n REPEATS] 'PROGRAM [ARGS]' ...
#   ICOST=path/to/icost (default: build/icost)
#
# For each program (one quoted word with its arguments) it prints:
#   insts        guest instructions executed (icost emu --stats)
#   ff_cpu_s     host CPU seconds of `icost emu` (fast-forward: rv_proc_skip,
#                no records), best of REPEATS runs
#   ff_MIPS      insts / ff_cpu_s / 1e6
#   rec_cpu_s    CPU seconds of `icost emu --records` (every instruction
#                produces an ic_inst record, batches of 4096, discarded)
#   rec_MIPS     insts / rec_cpu_s / 1e6
#   qemu_cpu_s   user+system CPU seconds of `qemu-riscv64 PROGRAM`, best of
#                REPEATS (JIT translation; the reference, not a target)
#   qemu_wall_s  its wall seconds (same run)
# CPU seconds, not wall time, so that a machine shared with other jobs
# distorts the figures less. Program output goes to /dev/null.
set -euo pipefail
cd "$(dirname "$0")/.."
icost=${ICOST:-build/icost}
reps=3
if [ "${1:-}" = "-n" ]; then reps=$2; shift 2; fi
if [ $# -eq 0 ]; then
  sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
[ -x "$icost" ] || { echo "bench_emu: $icost not built (set ICOST=)" >&2; exit 2; }
have_qemu=1
command -v qemu-riscv64 >/dev/null || have_qemu=0

tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT

# best CPU seconds of `icost emu [opts] -- prog` over $reps runs; the
# instruction count goes to $tmp.insts
emu_best() {
  local best="" out cpu
  for _ in $(seq "$reps"); do
    out=$("$icost" emu --stats "$@" 2>&1 >/dev/null </dev/null | grep -E '^(instructions|cpu seconds):')
    echo "$out" | awk -F': ' '/^instructions/ {print $2}' >"$tmp"
    cpu=$(echo "$out" | awk -F': ' '/^cpu seconds/ {print $2}')
    if [ -z "$best" ] || awk -v a="$cpu" -v b="$best" 'BEGIN {exit !(a < b)}'; then best=$cpu; fi
  done
  echo "$best"
}

printf '%-28s %12s %9s %8s %9s %8s %10s %11s\n' program insts ff_cpu_s ff_MIPS rec_cpu_s rec_MIPS \
  qemu_cpu_s qemu_wall_s
for spec in "$@"; do
  # shellcheck disable=SC2086
  set -- $spec
  ff=$(emu_best -- "$@")
  insts=$(cat "$tmp")
  rec=$(emu_best --records -- "$@")
  q_cpu=-
  q_wall=-
  if [ $have_qemu = 1 ]; then
    for _ in $(seq "$reps"); do
      /usr/bin/time -o "$tmp" -f '%U %S %e' qemu-riscv64 "$@" >/dev/null </dev/null 2>&1 || true
      t=$(tail -1 "$tmp")
      c=$(echo "$t" | awk '{print $1 + $2}')
      w=$(echo "$t" | awk '{print $3}')
      if [ "$q_cpu" = - ] || awk -v a="$c" -v b="$q_cpu" 'BEGIN {exit !(a < b)}'; then
        q_cpu=$c
        q_wall=$w
      fi
    done
  fi
  name=$(basename "$1")
  [ $# -gt 1 ] && name="$name ${*:2}"
  awk -v n="$name" -v i="$insts" -v f="$ff" -v r="$rec" -v qc="$q_cpu" -v qw="$q_wall" 'BEGIN {
    printf "%-28.28s %12d %9.3f %8.1f %9.3f %8.1f %10s %11s\n", n, i, f,
      (f > 0 ? i / f / 1e6 : 0), r, (r > 0 ? i / r / 1e6 : 0), qc, qw }'
done
