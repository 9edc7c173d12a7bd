#!/usr/bin/env bash
# Writes SHA256SUMS and manifest.json into a folder of release archives made by
# scripts/release-build.sh. The GitHub Action reads manifest.json to pick the archive for the
# runner it is on, by "$RUNNER_OS-$RUNNER_ARCH", and to check its sha256:
#   {"version": "0.1.0",
#    "assets": {"Linux-X64": {"file": "toolproof-0.1.0-x86_64-unknown-linux-gnu.tar.gz",
#                             "sha256": "<64 hex digits>"}, "Linux-ARM64": …, "macOS-X64": …,
#               "macOS-ARM64": …}}
# Each archive holds toolproof, LICENSE and README.md at its root. SHA256SUMS lists every
# toolproof-<version>-*.tar.gz in the folder (musl ones too) in `sha256sum` format.
#
# Usage: scripts/release-manifest.sh [--partial] DIST_DIR VERSION
#   --partial  list the platforms DIST_DIR has archives for (a dry run on one machine); without
#              it, a platform without its archive is an error
set -euo pipefail
# shellcheck source=scripts/lib/help.bash
source "$(dirname "$0")/lib/help.bash" "$@"

partial=false
if [ "${1:-}" = --partial ]; then
  partial=true
  shift
fi
if [ $# -ne 2 ]; then
  echo "usage: $0 [--partial] DIST_DIR VERSION" >&2
  exit 2
fi
dist=$1
version=$2
if [[ ! $version =~ ^[0-9A-Za-z.+-]+$ ]]; then
  echo "error: \`$version\` is not a version" >&2
  exit 2
fi

# "$RUNNER_OS-$RUNNER_ARCH" and the target whose archive serves it. Linux gets the glibc 2.17
# build: it runs on every GitHub runner and on glibc container jobs back to RHEL 7.
assets=(
  Linux-X64=x86_64-unknown-linux-gnu
  Linux-ARM64=aarch64-unknown-linux-gnu
  macOS-X64=x86_64-apple-darwin
  macOS-ARM64=aarch64-apple-darwin
)

if command -v sha256sum >/dev/null; then sha=(sha256sum); else sha=(shasum -a 256); fi
cd "$dist"
trap 'rm -f SHA256SUMS.tmp manifest.json.tmp' EXIT

shopt -s nullglob
archives=("toolproof-$version-"*.tar.gz)
if [ ${#archives[@]} -eq 0 ]; then
  echo "error: no toolproof-$version-*.tar.gz in $dist" >&2
  exit 1
fi
"${sha[@]}" "${archives[@]}" >SHA256SUMS.tmp
# An archive must still match the .sha256 written beside it when it was built.
for f in "${archives[@]}"; do
  if [ -f "$f.sha256" ] && ! "${sha[@]}" -c --status "$f.sha256"; then
    echo "error: $f does not match $f.sha256" >&2
    exit 1
  fi
done

{
  printf '{\n  "version": "%s",\n  "assets": {' "$version"
  sep=
  for entry in "${assets[@]}"; do
    key=${entry%%=*}
    file="toolproof-$version-${entry#*=}.tar.gz"
    sum=$(grep -E "^[0-9a-f]{64} [ *]$file\$" SHA256SUMS.tmp | cut -c1-64 || true)
    if [ -z "$sum" ]; then
      $partial && continue
      echo "error: no $file in $dist for $key" >&2
      exit 1
    fi
    printf '%s\n    "%s": {"file": "%s", "sha256": "%s"}' "$sep" "$key" "$file" "$sum"
    sep=,
  done
  printf '\n  }\n}\n'
} >manifest.json.tmp
mv SHA256SUMS.tmp SHA256SUMS
mv manifest.json.tmp manifest.json
echo "wrote $dist/SHA256SUMS (${#archives[@]} archives) and $dist/manifest.json"
