#!/usr/bin/env bash
# The README's test command: set up (bench/setup.sh), build the sanitizer
# build (ASan + UBSan) in build-asan/, and run the whole suite in both builds.
set -euo pipefail
cd "$(dirname "$0")/.."
bash bench/setup.sh

log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! { cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DICOST_SANITIZE=ON -DICOST_WERROR=ON &&
       cmake --build build-asan -j "$(nproc)"; } >"$log" 2>&1; then
  echo "tests: sanitizer build failed:" >&2
  tail -n 60 "$log" >&2
  exit 1
fi

if ! { cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Debug \
         -DCMAKE_C_FLAGS="-O1 -g" -DICOST_FUZZ=ON -DICOST_WERROR=ON &&
       cmake --build build-fuzz -j "$(nproc)" --target fuzzers; } >"$log" 2>&1; then
  echo "tests: fuzzer build failed:" >&2
  tail -n 60 "$log" >&2
  exit 1
fi

status=0
for b in build build-asan; do
  echo "== tests ($b)"
  rc=0
  ctest --test-dir "$b" --output-on-failure -j 2 >"$log" 2>&1 || rc=$?
  grep -vE '^(Test project|Internal ctest|\s+Start )' "$log" || true
  [ "$rc" -eq 0 ] || status=1
done

# The fuzzers (tests/fuzz_*.c): each replays its regression inputs
# (tests/fuzz/regress/NAME), then runs ICOST_FUZZ_SECONDS (default 20) from
# its seed corpus and dictionary (tests/fuzz/); new inputs go to a scratch
# directory. A crash, leak, timeout or sanitizer report fails the suite and
# the input is kept in tests/fuzz/regress/NAME.
echo "== fuzz (build-fuzz, ${ICOST_FUZZ_SECONDS:-20} s each)"
scratch=$(mktemp -d)
trap 'rm -f "$log"; rm -rf "$scratch"' EXIT
for f in tests/fuzz_*.c; do
  n=$(basename "$f" .c)
  name=${n#fuzz_}
  reg=tests/fuzz/regress/$name
  dict=tests/fuzz/$name.dict
  mkdir -p "$scratch/$name"
  if [ -d "$reg" ] && [ -n "$(ls -A "$reg")" ]; then
    if ! "build-fuzz/$n" -runs=1 "$reg"/* >"$scratch/$name.replay" 2>&1; then
      echo "fuzz $name: a regression input of $reg fails:"
      tail -n 30 "$scratch/$name.replay"
      status=1
      continue
    fi
  fi
  dopt=()
  [ -f "$dict" ] && dopt=(-dict="$dict")
  rc=0
  "build-fuzz/$n" -max_total_time="${ICOST_FUZZ_SECONDS:-20}" -timeout=25 -rss_limit_mb=2048 \
    "${dopt[@]}" -artifact_prefix="$scratch/$name-" \
    "$scratch/$name" "tests/fuzz/corpus/$name" >"$scratch/$name.log" 2>&1 || rc=$?
  runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$scratch/$name.log" | tail -n 1)
  if [ "$rc" -ne 0 ]; then
    mkdir -p "$reg"
    for a in "$scratch/$name"-*; do [ -f "$a" ] && cp "$a" "$reg/"; done
    echo "fuzz $name: FINDING (kept in $reg):"
    grep -E 'ERROR|SUMMARY|==[0-9]+==|deadly|Test unit' "$scratch/$name.log" | head -n 20
    status=1
  else
    echo "fuzz $name: ${runs:-0} executions, no finding"
  fi
done
exit $status
