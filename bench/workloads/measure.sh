#!/usr/bin/env bash
# measure.sh [WORKDIR [TAG]]: one line per manifest workload (TAG: full,
# short or default; all when omitted): instructions executed (from
# `icost emu --stats`), icost emu wall seconds, qemu-riscv64 wall seconds,
# and whether the two agree on stdout and exit code. WORKDIR defaults to
# build/workloads; ICOST (default build/icost) names the icost binary.
# A benchmark, not a test: the seconds depend on the machine and its load.
set -euo pipefail
cd "$(dirname "$0")/../.."
W=$(cd "${1:-build/workloads}" && pwd)
TAG=${2:-}
ICOST=${ICOST:-build/icost}
[ -x "$ICOST" ] || { echo "measure.sh: $ICOST not built" >&2; exit 2; }
command -v qemu-riscv64 >/dev/null || { echo "measure.sh: qemu-riscv64 not found" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

now() { date +%s.%N; }
printf '%-16s %-16s %12s %9s %9s  %s\n' NAME TAGS INSTRUCTIONS EMU_S QEMU_S AGREE
while read -r name tags cmd; do
  case "$name" in ''|'#'*) continue ;; esac
  if [ -n "$TAG" ] && [[ ",$tags," != *",$TAG,"* ]]; then continue; fi
  cmd=${cmd%%#*}
  cmd=${cmd//\{W\}/$W}
  read -r -a argv <<< "$cmd"
  t0=$(now)
  erc=0
  "$ICOST" emu --stats -- "${argv[@]}" >"$tmp/e.out" 2>"$tmp/e.err" </dev/null || erc=$?
  t1=$(now)
  qrc=0
  env -i PATH=/usr/local/bin:/usr/bin:/bin LANG=C qemu-riscv64 "${argv[@]}" \
    >"$tmp/q.out" 2>/dev/null </dev/null || qrc=$?
  t2=$(now)
  insts=$(sed -n 's/^instructions: //p' "$tmp/e.err")
  agree=yes
  if [ "$erc" != "$qrc" ] || ! cmp -s "$tmp/e.out" "$tmp/q.out"; then
    agree="NO (exit $erc vs $qrc)"
  fi
  printf '%-16s %-16s %12s %9.2f %9.2f  %s\n' "$name" "$tags" "${insts:-?}" \
    "$(awk "BEGIN{print $t1 - $t0}")" "$(awk "BEGIN{print $t2 - $t1}")" "$agree"
done < bench/workloads/manifest
