#!/usr/bin/env bash
# The adaptive-trials simulation over many seeds (default 5000): prints the head's mean
# requests, the power to find the regression, the false-alarm rate and the base's requests, for
# `trials: auto` and for 5 fixed trials. See docs/statistics.md, "Adaptive trials".
#
# Usage: scripts/adaptive_sim.sh [SEEDS]
set -euo pipefail
# shellcheck source=scripts/lib/help.bash
source "$(dirname "$0")/lib/help.bash" "$@"
cd "$(dirname "$0")/.."
ADAPTIVE_SIM_SEEDS="${1:-5000}" CARGO_INCREMENTAL=0 \
  cargo test --lib adaptive::simulation -- --nocapture 2>&1 | grep -E 'Figures|test result'
