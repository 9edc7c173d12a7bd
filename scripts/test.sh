#!/usr/bin/env bash
# Runs the whole test suite: unit and integration tests, plus the interop tests against the
# official MCP reference servers (npm) and Python SDK servers (PyPI), and the JUnit readers
# xmlschema and junitparser (PyPI), which this script installs under target/interop/ on first use.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD/target/interop"
mkdir -p "$root"

npm_pkgs=(
  @modelcontextprotocol/server-everything@2026.8.31
  @modelcontextprotocol/server-filesystem@2026.8.31
  @modelcontextprotocol/server-memory@2026.8.31
)
stamp="$root/node/.installed-$(echo "${npm_pkgs[*]}" | sha256sum | cut -c1-12)"
if [ ! -f "$stamp" ]; then
  echo "installing the MCP reference servers from npm into $root/node" >&2
  rm -rf "$root/node" && mkdir -p "$root/node"
  (cd "$root/node" && npm init -y >/dev/null && npm install --no-audit --no-fund --loglevel=error "${npm_pkgs[@]}")
  touch "$stamp"
fi

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
venv py-mcp1 "mcp==1.30.0"
venv py-mcp2 "mcp==2.3.0"
# Readers of the JUnit report: the XSD check (tests/junit_check.py) and junitparser.
venv py-junit "xmlschema==4.3.2" "junitparser==5.0.3"
# The GitHub Action's end-to-end test reads action.yml with PyYAML.
venv py-action "pyyaml==6.0.3"
# The compatibility suite (tests/compat.rs) runs the reference, mcp-toolproof 0.3.1, beside
# toolproof on the same configs.
venv py-ref "mcp-toolproof[anthropic,openai]==0.3.1"
# mcp-toolproof 0.3.1's YAML reader (PyYAML) and JSON writer (pydantic), the versions it
# installs: tests/fixtures/yaml11/make_fixture.py --check re-resolves the committed corpus.
venv py-yaml11 "pyyaml==6.0.4" "pydantic==2.14.4"

export TOOLPROOF_INTEROP_DIR="$root"
# The fakes the tests start are the examples' binaries, which `cargo test --examples` does not
# build (it builds the examples as tests): build them first, so none is left from an older build.
cargo build --examples --features interop --quiet
# Benches are measured with `cargo bench`, not run as tests.
cargo test --lib --bins --tests --examples --features interop "$@"
