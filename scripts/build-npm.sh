#!/usr/bin/env bash
# Packs toolproof for npm into dist/npm/ (or --out DIR), with `npm pack`:
#   @toolproof-dev/toolproof-<version>.tgz        the main package: the `toolproof` command, a
#                                                 Node script (packaging/npm/toolproof.js) that
#                                                 runs the binary of the platform package below
#   @toolproof-dev/toolproof-<key>-<version>.tgz  one per platform it has a binary for, holding
#                                                 that binary; <key> is linux-x64, linux-arm64,
#                                                 linux-x64-musl, linux-arm64-musl, darwin-x64 or
#                                                 darwin-arm64
# (the files are named as npm names them: toolproof-dev-toolproof-<version>.tgz and so on). The
# main package lists the platform packages packed beside it as optional dependencies, so publish
# them first. Prints the tarballs' paths on stdout.
#
# Usage: scripts/build-npm.sh [--out DIR] [--all] [TARGET...]
#          builds each TARGET with scripts/release-build.sh (default x86_64-unknown-linux-gnu.2.17)
#        scripts/build-npm.sh [--out DIR] [--all] [--from-dist DIR] [--binary TRIPLE=PATH]...
#          packs the release archives DIR/toolproof-<version>-<triple>.tar.gz that are there,
#          and the binaries named (a --binary wins over an archive of the same triple)
#   --all  fails unless every platform has a binary (what a release publishes)
#
# The version comes from Cargo.toml, and so do the description, license and repository URL.
# npm pack writes fixed times and modes, so the same inputs give the same tarballs.
set -euo pipefail
# shellcheck source=scripts/lib/help.bash
source "$(dirname "$0")/lib/help.bash" "$@"
caller=$PWD
cd "$(dirname "$0")/.."

name=@toolproof-dev/toolproof
# Rust triple → npm platform key (Node's process.platform-process.arch, -musl for musl).
triples=(x86_64-unknown-linux-gnu aarch64-unknown-linux-gnu x86_64-unknown-linux-musl
  aarch64-unknown-linux-musl x86_64-apple-darwin aarch64-apple-darwin)
keys=(linux-x64 linux-arm64 linux-x64-musl linux-arm64-musl darwin-x64 darwin-arm64)

usage() {
  echo "error: $1" >&2
  echo "hint: scripts/build-npm.sh [--out DIR] [--all] [TARGET...] | [--from-dist DIR] [--binary TRIPLE=PATH]..." >&2
  exit 2
}

abs() { # paths on the command line are the caller's
  case $1 in /*) echo "$1" ;; *) echo "$caller/$1" ;; esac
}
out=$PWD/dist/npm all=false from_dist="" targets=()
declare -A binary=()
while [ $# -gt 0 ]; do
  case $1 in
    --out | --from-dist | --binary) [ $# -ge 2 ] || usage "$1 needs a value" ;;&
    --out) out=$(abs "$2") && shift 2 ;;
    --from-dist) from_dist=$(abs "$2") && shift 2 ;;
    --binary)
      [[ $2 == *=* ]] || usage "--binary takes TRIPLE=PATH, not \`$2\`"
      binary[${2%%=*}]=$(abs "${2#*=}") && shift 2
      ;;
    --all) all=true && shift ;;
    -*) usage "unknown option \`$1\`" ;;
    *) targets+=("$1") && shift ;;
  esac
done
for t in "${!binary[@]}"; do
  [[ " ${triples[*]} " == *" $t "* ]] || usage "no npm package for the triple \`$t\` (one of: ${triples[*]})"
  [ -x "${binary[$t]}" ] || usage "--binary $t=${binary[$t]}: no executable file there"
done
if [ ${#targets[@]} -gt 0 ] && { [ -n "$from_dist" ] || [ ${#binary[@]} -gt 0 ]; }; then
  usage "give TARGETs to build, or --from-dist and --binary to pack, not both"
fi

field() { # a `key = "value"` line of Cargo.toml's [package]; fails when it is missing
  local line
  line=$(grep -m1 "^$1 = \"" Cargo.toml) || {
    echo "error: Cargo.toml has no \`$1 = \"...\"\` line" >&2
    echo "hint: the npm packages take their $1 from it" >&2
    exit 1
  }
  line=${line#*\"}
  echo "${line%\"}"
}
version=$(scripts/release-build.sh --version)
description=$(field description)
license=$(field license)
repository=$(field repository)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Without a source given, build the targets; their archives land in dist/.
if [ -z "$from_dist" ] && [ ${#binary[@]} -eq 0 ]; then
  [ ${#targets[@]} -gt 0 ] || targets=(x86_64-unknown-linux-gnu.2.17)
  for target in "${targets[@]}"; do
    archive=$(scripts/release-build.sh "$target")
    triple=${archive##*/toolproof-"$version"-}
    triple=${triple%.tar.gz}
    mkdir -p "$work/bin/$triple"
    tar -xzf "$archive" -C "$work/bin/$triple" toolproof
    binary[$triple]=$work/bin/$triple/toolproof
  done
fi

# Each platform's binary: a --binary, else the release archive in --from-dist.
packed=() missing=()
for i in "${!triples[@]}"; do
  triple=${triples[$i]} key=${keys[$i]}
  bin=${binary[$triple]:-}
  archive=$from_dist/toolproof-$version-$triple.tar.gz
  if [ -z "$bin" ] && [ -n "$from_dist" ] && [ -f "$archive" ]; then
    mkdir -p "$work/bin/$triple"
    tar -xzf "$archive" -C "$work/bin/$triple" toolproof
    bin=$work/bin/$triple/toolproof
  fi
  if [ -z "$bin" ]; then
    missing+=("$key")
    continue
  fi
  stage=$work/$key
  mkdir -p "$stage"
  cp "$bin" "$stage/toolproof" && chmod 755 "$stage/toolproof"
  cp LICENSE "$stage/"
  node packaging/npm/manifest.js platform "$name" "$version" "$description" "$license" \
    "$repository" "$key" >"$stage/package.json"
  packed+=("$key")
done
if [ ${#packed[@]} -eq 0 ]; then
  echo "error: no toolproof binary to pack${from_dist:+ in $from_dist}" >&2
  echo "hint: pass --from-dist DIR with toolproof-$version-<triple>.tar.gz archives, or --binary TRIPLE=PATH" >&2
  exit 1
fi
if [ ${#missing[@]} -gt 0 ]; then
  if $all; then
    echo "error: no toolproof binary for ${missing[*]}" >&2
    echo "hint: --all wants every platform: ${triples[*]}" >&2
    exit 1
  fi
  echo "no binary for ${missing[*]}: the main package leaves those platforms out" >&2
fi

stage=$work/main
mkdir -p "$stage/bin"
cp packaging/npm/toolproof.js "$stage/bin/toolproof.js" && chmod 755 "$stage/bin/toolproof.js"
cp LICENSE "$stage/"
readme=$(<packaging/npm/README.md)
readme=${readme//'{{name}}'/$name}
echo "${readme//'{{repository}}'/$repository}" >"$stage/README.md"
node packaging/npm/manifest.js main "$name" "$version" "$description" "$license" \
  "$repository" "${packed[@]}" >"$stage/package.json"

# Platform packages first, in the order to publish them; old tarballs go, so that a publish of
# the folder's *.tgz publishes this build only.
mkdir -p "$out"
rm -f "$out"/*.tgz
for key in "${packed[@]}" main; do
  file=$(npm pack "$work/$key" --pack-destination "$out" --ignore-scripts --silent --no-update-notifier)
  echo "$out/$file"
done
