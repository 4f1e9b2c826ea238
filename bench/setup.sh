#!/usr/bin/env bash
# Sets icost up on a fresh Debian 12 machine (run as root): installs every
# dependency with apt-get, builds the release build in build/, and builds the
# workload suite into build/workloads. Idempotent and quiet on success; on a
# failure it prints the failing step's log.
set -euo pipefail
cd "$(dirname "$0")/.."

PKGS=(cmake gcc make pkg-config libigraph-dev libgsl-dev libyaml-dev libcriterion-dev
      gcc-riscv64-linux-gnu libc6-dev-riscv64-cross qemu-user dpkg-dev clang xz-utils
      libzstd-dev liblzma-dev zlib1g-dev libcapstone-dev gcc-aarch64-linux-gnu
      libc6-dev-arm64-cross
      libcairo2-dev fonts-dejavu-core librsvg2-bin libxml2-utils slurm-wlm munge
      libclang-rt-14-dev libdw-dev libelf-dev libjson-c-dev help2man)

log=$(mktemp)
trap 'rm -f "$log"' EXIT
step() { # step NAME CMD...: runs CMD with its output in a log shown only on failure
  local name=$1; shift
  if ! "$@" >"$log" 2>&1; then
    echo "setup: $name failed:" >&2
    tail -n 60 "$log" >&2
    exit 1
  fi
}

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  step "apt-get update" apt-get update -qq
  step "apt-get install ${missing[*]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

step "configure" cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DICOST_WERROR=ON
step "build" cmake --build build -j "$(nproc)"
if [ -f bench/workloads/build.sh ]; then
  step "workloads" bash bench/workloads/build.sh build/workloads
fi
