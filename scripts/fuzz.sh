#!/usr/bin/env bash
# Runs the libFuzzer targets of fuzz/ (the parsers that read untrusted bytes), one at a time,
# each for SECONDS (default 600), then minimises its corpus. A target's corpus
# (fuzz/corpus/TARGET, git-ignored) grows here and starts from its seeds, fuzz/seeds/TARGET.json:
# the small set kept in git, one seed per shape the parser reads (file name to text), named for
# what it exercises; the script writes each seed into the corpus as a file of that name.
# Needs a nightly toolchain (`rustup toolchain install nightly`); installs cargo-fuzz from
# crates.io under target/fuzz-tools on first use. Not part of CI: `cargo test` runs the same
# entry points as property tests, and every seed through them (src/hostile_input/props.rs).
#
# Usage: scripts/fuzz.sh [SECONDS] [TARGET...]
#   scripts/fuzz.sh                 # every target, 10 minutes each
#   scripts/fuzz.sh 60 sse config   # two targets, a minute each
#
# A crash is saved under fuzz/artifacts/TARGET/; turn it into a test in src/hostile_input/props.rs
# and, minimised, into a seed.
set -euo pipefail
# shellcheck source=scripts/lib/help.bash
source "$(dirname "$0")/lib/help.bash" "$@"
cd "$(dirname "$0")/.."
seconds="${1:-600}"
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  targets=(config jsonrpc_lines sse provider_answer cache_entry)
fi

tools="$PWD/target/fuzz-tools"
if [ ! -x "$tools/bin/cargo-fuzz" ]; then
  echo "installing cargo-fuzz from crates.io into $tools" >&2
  cargo install --locked --root "$tools" cargo-fuzz
fi
export PATH="$tools/bin:$PATH"
cd fuzz
cargo +nightly fuzz build -O
for target in "${targets[@]}"; do
  mkdir -p "corpus/$target" "corpus-raw/$target"
  python3 - "seeds/$target.json" "corpus/$target" <<'PY'
import json, os, sys
seeds, corpus = sys.argv[1], sys.argv[2]
for name, text in json.load(open(seeds, encoding="utf-8")).items():
    path = os.path.join(corpus, name)
    if not os.path.exists(path):
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(text)
PY
  echo "== $target: ${seconds}s" >&2
  started=$(date +%s)
  cargo +nightly fuzz run -O "$target" "corpus-raw/$target" "corpus/$target" -- \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    -print_final_stats=1 2>"corpus-raw/$target.log" || status=$?
  echo "$target: ran $(($(date +%s) - started))s, exit ${status:-0}" >&2
  grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb|^Done [0-9]+ runs' \
    "corpus-raw/$target.log" >&2 || true
  unset status
  # Keep only what adds coverage: the seeds and the new finds, minimised together.
  cp -n "corpus-raw/$target"/* "corpus/$target"/ 2>/dev/null || true
  cargo +nightly fuzz cmin -O "$target" "corpus/$target" >>"corpus-raw/$target.log" 2>&1
  echo "$target: $(find "corpus/$target" -type f | wc -l) files in the corpus" >&2
done
