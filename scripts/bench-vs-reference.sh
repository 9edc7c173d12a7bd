#!/usr/bin/env bash
# Calls per second of `toolproof bench` against mcp-toolproof 0.3.1's `bench`, on the same
# no-op stdio server (fake_mcp from tests/support, tool `echo`) with the same calls and concurrency.
# Not a test: it prints both figures and their ratio (the goal is at least 10x).
#
# Usage: scripts/bench-vs-reference.sh [CALLS] [CONCURRENCY]
#
# The reference comes from $TOOLPROOF_REFERENCE, else the py-ref venv scripts/test.sh
# installs under target/interop, else /tmp/reftp.
set -euo pipefail
# shellcheck source=scripts/lib/help.bash
source "$(dirname "$0")/lib/help.bash" "$@"
cd "$(dirname "$0")/.."
calls=${1:-2000}
concurrency=${2:-10}
ref=${TOOLPROOF_REFERENCE:-}
for candidate in target/interop/py-ref/bin/toolproof /tmp/reftp/bin/toolproof; do
  if [[ -z "$ref" && -x "$candidate" ]]; then ref=$candidate; fi
done
[[ -n "$ref" ]] || { echo "no mcp-toolproof found: set TOOLPROOF_REFERENCE" >&2; exit 2; }
cargo build --release --quiet -p toolproof --bin toolproof && cargo build --release --quiet -p toolproof-test-support --bin fake_mcp
ours=target/release/toolproof
server=$PWD/target/release/fake_mcp
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
args='{"text": "hi"}'
"$ours" bench --tool echo --args "$args" --calls "$calls" --concurrency "$concurrency" \
  --json "$work/ours.json" -- "$server" >/dev/null
"$ref" bench --tool echo --args "$args" --calls "$calls" --concurrency "$concurrency" \
  --json "$work/ref.json" -- "$server" >/dev/null
python3 - "$work/ours.json" "$work/ref.json" "$calls" "$concurrency" <<'PY'
import json, sys
ours = json.load(open(sys.argv[1]))["phases"]["bench"]["results"]["targets"][0]
ref = json.load(open(sys.argv[2]))["bench"][0]
print(f"no-op stdio server, {sys.argv[3]} calls, concurrency {sys.argv[4]}")
print(f"toolproof       {ours['throughput']:10.1f} calls/s  p50 {ours['p50_ms']:.2f}ms  p95 {ours['p95_ms']:.2f}ms  errors {ours['errors']}")
print(f"mcp-toolproof   {ref['throughput']:10.1f} calls/s  p50 {ref['p50_ms']:.2f}ms  p95 {ref['p95_ms']:.2f}ms  errors {ref['errors']}")
print(f"ratio           {ours['throughput'] / ref['throughput']:10.1f}x")
PY
