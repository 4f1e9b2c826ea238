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

status=0
for b in build build-asan; do
  echo "== tests ($b)"
  rc=0
  ctest --test-dir "$b" --output-on-failure -j 2 >"$log" 2>&1 || rc=$?
  grep -vE '^(Test project|Internal ctest|\s+Start )' "$log" || true
  [ "$rc" -eq 0 ] || status=1
done
exit $status
