#!/usr/bin/env bash
# bench_frontends.sh: instructions per second of each frontend feeding the
# timing model, the model's own speed on the same stream (is it bound by its
# frontend?), and the speed and size of trace recording.
#
#   bash bench/bench_frontends.sh [BUILD_DIR]
#   MAX=10000000 REPS=3 bash bench/bench_frontends.sh
#
# Streams, the first MAX records (default 10M) of each:
#   rv64       the suite's RV64 gzip -c text-full.txt on icost's emulator
#              ($ICOST_WORKLOADS or build/workloads, bench/setup.sh)
#   x86-64     Debian's /usr/bin/gzip -c on the same text: qemu-x86_64, the
#              plugin, Capstone decode and the cracking into micro-ops
#   aarch64    a small sort-and-hash program cross-built here, static, under
#              qemu-aarch64 (a row of '-' without aarch64-linux-gnu-gcc or
#              qemu-aarch64)
#   trc-rv64   the icost trace recorded from the rv64 stream, read back
#   trc-x86    the icost trace recorded from the x86-64 stream, read back
#   champsim   the ChampSim trace (.xz) written from the rv64 stream, read back
# Columns:
#   records     ic_inst records (x86-64: micro-ops)
#   fe_cpu_s    CPU seconds of the frontend alone: its records drained and
#               dropped (bench_frontends.c; qemu's CPU included)
#   fe_Mrec/s   records / fe_cpu_s / 1e6
#   sim_cpu_s   CPU seconds of `icost sim` on the same records: frontend and
#               model (a host program streams live, qemu in a second process)
#   sim_wall_s  its wall seconds
#   sim_Mrec/s  records / sim_wall_s / 1e6
#   model_Mrec/s records / (sim_cpu_s - fe_cpu_s) / 1e6: the model's own speed
#   fe_%        100 * fe_cpu_s / sim_cpu_s: the frontend's share of the run
# Recording (`icost record --max MAX`; icost traces are zstd, ChampSim .xz):
#   rec_cpu_s   its CPU seconds (qemu's included)
#   rec_Mrec/s  records / rec_cpu_s / 1e6
#   bytes/rec   the file's bytes / records
# Each figure is the best (least CPU) of REPS runs (default 3): CPU seconds,
# not wall, because the machine may be shared; wall only where the two
# processes of a live host run overlap.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
ICOST=$BUILD/icost
FE=$BUILD/bench_frontends
MAX=${MAX:-10000000}
REPS=${REPS:-3}
W=${ICOST_WORKLOADS:-$ROOT/build/workloads}
[ -x "$ICOST" ] || { echo "bench_frontends: $ICOST not found (build first)" >&2; exit 2; }
cmake --build "$BUILD" --target bench_frontends >/dev/null
[ -x "$W/gzip" ] && [ -f "$W/text-full.txt" ] ||
  { echo "bench_frontends: $W/gzip or text-full.txt missing (bench/setup.sh)" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# best of REPS: "cpu wall" of a command (CPU of it and its waited children)
best_time() {
  local best="" t
  for _ in $(seq "$REPS"); do
    /usr/bin/time -o "$tmp/time" -f '%U %S %e' "$@" >/dev/null 2>"$tmp/err" </dev/null ||
      { cat "$tmp/err" >&2; return 1; }
    t=$(tail -1 "$tmp/time" | awk '{printf "%.3f %.3f", $1 + $2, $3}')
    if [ -z "$best" ] || awk -v a="${t% *}" -v b="${best% *}" 'BEGIN {exit !(a < b)}'; then best=$t; fi
  done
  echo "$best"
}

# best of REPS of bench_frontends: "records cpu"
best_fe() {
  local best="" out
  for _ in $(seq "$REPS"); do
    out=$("$FE" --max "$MAX" "$@" </dev/null) || return 1
    out=$(echo "$out" | awk '{print $2, $4}')
    if [ -z "$best" ] || awk -v a="${out#* }" -v b="${best#* }" 'BEGIN {exit !(a < b)}'; then best=$out; fi
  done
  echo "$best"
}

gzip_rv=("$W/gzip" -c "$W/text-full.txt")
gzip_x86=(/usr/bin/gzip -c "$W/text-full.txt")
a64=()
if command -v aarch64-linux-gnu-gcc >/dev/null && command -v qemu-aarch64 >/dev/null; then
  cat >"$tmp/sorthash.c" <<'EOF'
#include <stdint.h>
#include <stdlib.h>
static int cmp(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}
int main(int argc, char **argv) {
  long rounds = argc > 1 ? atol(argv[1]) : 20, n = 100000;
  uint32_t *v = malloc((size_t)n * sizeof *v), h[4096] = {0}, x = 2463534242u, s = 0;
  for (long r = 0; r < rounds; r++) {
    for (long i = 0; i < n; i++) x ^= x << 13, x ^= x >> 17, x ^= x << 5, v[i] = x;
    qsort(v, (size_t)n, sizeof *v, cmp);
    for (long i = 0; i < n; i++) h[(v[i] * 2654435761u) >> 20]++;
    s += h[x & 4095];
  }
  return (int)(s & 1);
}
EOF
  aarch64-linux-gnu-gcc -O2 -static -o "$tmp/sorthash" "$tmp/sorthash.c"
  a64=("$tmp/sorthash" 40)
fi

# Recording first: its files are what the reader rows read.
rec_row() { # name, file, icost record args
  local name=$1 file=$2 cpu recs
  shift 2
  read -r cpu _ < <(best_time "$ICOST" record -o "$file" --max "$MAX" "$@")
  case $file in
    *.champsimtrace.xz) recs=$("$FE" champsim "$file" | awk '{print $2}') ;;
    *) recs=$("$FE" trace "$file" | awk '{print $2}') ;;
  esac
  awk -v n="$name" -v r="$recs" -v c="$cpu" -v b="$(stat -c %s "$file")" 'BEGIN {
    printf "%-22s %10d %9.3f %10.1f %9.2f\n", n, r, c, (c > 0 ? r / c / 1e6 : 0), b / r }'
}
{
  printf '%-22s %10s %9s %10s %9s\n' recording records rec_cpu_s rec_Mrec/s bytes/rec
  rec_row "rv64 -> icost" "$tmp/rv.trc" -- "${gzip_rv[@]}"
  rec_row "x86-64 -> icost" "$tmp/x86.trc" -- "${gzip_x86[@]}"
  [ ${#a64[@]} -gt 0 ] && rec_row "aarch64 -> icost" "$tmp/a64.trc" -- "${a64[@]}"
  # xz at preset 6 takes minutes for 10M records: one run
  REPS=1 rec_row "rv64 -> champsim .xz" "$tmp/rv.champsimtrace.xz" --format champsim -- "${gzip_rv[@]}"
} >"$tmp/recording"

printf '%-9s %10s %9s %9s %9s %10s %10s %12s %5s\n' stream records fe_cpu_s fe_Mrec/s sim_cpu_s \
  sim_wall_s sim_Mrec/s model_Mrec/s fe_%
row() { # name, bench_frontends args (mode ...) then `--` `icost sim` args
  local name=$1
  shift
  local fe_args=() sim_args=()
  while [ "$1" != "::" ]; do fe_args+=("$1"); shift; done
  shift
  sim_args=("$@")
  read -r recs fe_cpu < <(best_fe "${fe_args[@]}")
  read -r sim_cpu sim_wall < <(best_time "$ICOST" sim --max "$MAX" "${sim_args[@]}")
  awk -v n="$name" -v r="$recs" -v f="$fe_cpu" -v c="$sim_cpu" -v w="$sim_wall" 'BEGIN {
    m = c - f
    printf "%-9s %10d %9.3f %9.1f %9.3f %10.3f %10.1f %12s %5.0f\n", n, r, f, (f > 0 ? r / f / 1e6 : 0),
      c, w, (w > 0 ? r / w / 1e6 : 0), (m > 0 ? sprintf("%.1f", r / m / 1e6) : "-"), (c > 0 ? 100 * f / c : 0) }'
}

row rv64 rv64 -- "${gzip_rv[@]}" :: -- "${gzip_rv[@]}"
row x86-64 host -- "${gzip_x86[@]}" :: -- "${gzip_x86[@]}"
if [ ${#a64[@]} -gt 0 ]; then
  row aarch64 host -- "${a64[@]}" :: -- "${a64[@]}"
else
  printf '%-9s %10s %9s %9s %9s %10s %10s %12s %5s\n' aarch64 - - - - - - - -
fi
row trc-rv64 trace "$tmp/rv.trc" :: --trace "$tmp/rv.trc"
row trc-x86 trace "$tmp/x86.trc" :: --trace "$tmp/x86.trc"
row champsim champsim "$tmp/rv.champsimtrace.xz" :: --trace "$tmp/rv.champsimtrace.xz"
echo
cat "$tmp/recording"
