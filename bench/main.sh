#!/usr/bin/env bash
# The README's main command: set up (bench/setup.sh), then run the main job
# on the default workload and the baseline machine.
set -euo pipefail
cd "$(dirname "$0")/.."
bash bench/setup.sh
exec build/icost --categories dl1,win,bmisp "$@"
