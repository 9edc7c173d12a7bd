#!/usr/bin/env bash
# Builds the PyPI wheel of toolproof for one target and prints its path on stdout:
#   dist/toolproof-<version>-py3-none-<platform>.whl
# It holds the binary (pip installs it on PATH as `toolproof`) and the Python package
# python/toolproof/: `python -m toolproof`, and the pytest plugin with mcp-toolproof's
# `mcp_server` fixture, whose calls go through the binary (`toolproof session`).
#
# Usage: scripts/build-wheel.sh [--binary PATH | --from-dist DIR] [--out DIR] [TARGET]
#   TARGET           a target of scripts/release-build.sh (default x86_64-unknown-linux-gnu.2.17);
#                    it picks the wheel's platform tag; for a local wheel of a plain
#                    `cargo build` binary, name the triple alone (x86_64-unknown-linux-gnu)
#   --binary PATH    package this binary instead of building one
#   --from-dist DIR  package the binary of DIR/toolproof-<version>-<triple>.tar.gz (checked
#                    against its .sha256 when there is one), as the release workflow's dist/ has
#   --out DIR        write the wheel here (default dist)
# Without --binary or --from-dist it runs scripts/release-build.sh TARGET and takes its archive.
#
# Platform tags: linux gnu targets get manylinux_2_<N> from the highest glibc symbol version the
# binary needs (readelf; 2.17 at the least, with its manylinux2014 alias, which is what the
# release's glibc 2.17 builds get); musl targets musllinux_1_2; x86_64-apple-darwin
# macosx_10_12_x86_64 and aarch64-apple-darwin macosx_11_0_arm64 (the oldest macOS Rust targets).
# The version is Cargo.toml's, in PEP 440 spelling (0.1.0-rc.1 becomes 0.1.0rc1), and the
# project URL is Cargo.toml's `repository`. The wheel is reproducible: sorted entries, fixed
# times (SOURCE_DATE_EPOCH, else the last commit's time).
set -euo pipefail
# shellcheck source=scripts/lib/help.bash
source "$(dirname "$0")/lib/help.bash" "$@"
cd "$(dirname "$0")/.."

usage() { # exit code: 0 for --help (to stdout), 2 for a usage error (to stderr)
  if [ "${1:-2}" = 0 ]; then
    sed -n '8,16p' "$0" | sed 's/^# \{0,1\}//'
    exit 0
  fi
  sed -n '8,16p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}
die() { # message, hint
  echo "error: $1" >&2
  [ -z "${2:-}" ] || echo "hint: $2" >&2
  exit 2
}

binary="" from_dist="" out=dist target=""
while [ $# -gt 0 ]; do
  case $1 in
    --binary) [ $# -ge 2 ] || usage; binary=$2; shift 2 ;;
    --from-dist) [ $# -ge 2 ] || usage; from_dist=$2; shift 2 ;;
    --out) [ $# -ge 2 ] || usage; out=$2; shift 2 ;;
    -h | --help) usage 0 ;;
    -*) die "unknown option \`$1\`" "scripts/build-wheel.sh [--binary PATH | --from-dist DIR] [--out DIR] [TARGET]" ;;
    *) [ -z "$target" ] || die "more than one target: \`$target\` and \`$1\`"; target=$1; shift ;;
  esac
done
target=${target:-x86_64-unknown-linux-gnu.2.17}
if [ -n "$binary" ] && [ -n "$from_dist" ]; then
  die "give --binary or --from-dist, not both"
fi

# The Rust triple is the target without zig's glibc suffix (as in scripts/release-build.sh).
triple=$target glibc_suffix=""
if [[ $target =~ ^(.+-linux-gnu[a-z0-9]*)\.([0-9]+\.[0-9]+)$ ]]; then
  triple=${BASH_REMATCH[1]} glibc_suffix=${BASH_REMATCH[2]}
fi
case $triple in
  x86_64-unknown-linux-gnu | aarch64-unknown-linux-gnu) kind=gnu arch=${triple%%-*} ;;
  x86_64-unknown-linux-musl | aarch64-unknown-linux-musl) kind=musl arch=${triple%%-*} ;;
  x86_64-apple-darwin) kind=mac platform=macosx_10_12_x86_64 ;;
  aarch64-apple-darwin) kind=mac platform=macosx_11_0_arm64 ;;
  *)
    die "no wheel for target \`$target\`" \
      "use x86_64 or aarch64 with -unknown-linux-gnu (optionally .2.17), -unknown-linux-musl or -apple-darwin"
    ;;
esac

repository=$(sed -n 's/^repository *= *"\(.*\)"$/\1/p' Cargo.toml | head -n1)
[ -n "$repository" ] || die "Cargo.toml has no \`repository = \"...\"\` line" \
  "add the project's URL there; the wheel's metadata links to it"
summary=$(sed -n 's/^description *= *"\(.*\)"$/\1/p' Cargo.toml | head -n1)
version=$(scripts/release-build.sh --version)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The binary: given, taken from an archive, or built.
if [ -z "$binary" ]; then
  if [ -z "$from_dist" ]; then
    scripts/release-build.sh "$target" >/dev/null
    from_dist=dist
  fi
  archive="$from_dist/toolproof-$version-$triple.tar.gz"
  [ -f "$archive" ] || die "no archive $archive" \
    "build it with scripts/release-build.sh $target, or pass the folder that has it"
  if [ -f "$archive.sha256" ]; then
    if command -v sha256sum >/dev/null; then sha=(sha256sum); else sha=(shasum -a 256); fi
    (cd "$(dirname "$archive")" && "${sha[@]}" --check --status "$(basename "$archive").sha256") ||
      { echo "error: $archive does not match $archive.sha256" >&2; exit 1; }
  fi
  tar -xzf "$archive" -C "$work" toolproof
  binary="$work/toolproof"
fi
[ -f "$binary" ] || die "no binary at $binary"

# A Linux binary must be for the target's machine (the publish job has all of them in one dist/).
if [ "$kind" != mac ] && command -v readelf >/dev/null; then
  machine=$(readelf --file-header "$binary" 2>/dev/null | sed -n 's/^ *Machine: *//p' || true)
  case $arch:$machine in
    x86_64:*X86-64* | aarch64:AArch64) ;;
    *)
      echo "error: $binary is not an $arch Linux program (readelf says: ${machine:-not ELF})" >&2
      echo "hint: pass the binary built for $target" >&2
      exit 1
      ;;
  esac
fi

# The platform tag, from what the binary needs where that can be read.
case $kind in
  musl) platform="musllinux_1_2_$arch" ;;
  gnu)
    if command -v readelf >/dev/null; then
      needs=$(readelf --version-info --wide "$binary" | grep -oE 'Name: GLIBC_[0-9]+\.[0-9]+' |
        sed 's/^Name: GLIBC_//' | sort -uV | tail -n1 || true)
    elif [ -n "$glibc_suffix" ]; then
      needs=$glibc_suffix # trusted: release-build.sh links against exactly this glibc
    else
      die "cannot tell which glibc $binary needs: readelf is missing" \
        "install binutils, or name the glibc in the target (e.g. $triple.2.17)"
    fi
    needs=${needs:-2.17}
    minor=${needs#2.}
    if [ "${needs%%.*}" != 2 ] || ! [[ $minor =~ ^[0-9]+$ ]]; then
      die "$binary needs glibc $needs, which no manylinux tag names"
    fi
    if [ -n "$glibc_suffix" ] && [ "${minor}" -gt "${glibc_suffix#2.}" ]; then
      echo "error: $binary needs glibc $needs, newer than the $glibc_suffix of target $target" >&2
      echo "hint: build it with scripts/release-build.sh $target (zig links against glibc $glibc_suffix)" >&2
      echo "hint: or, for a wheel that installs on this glibc and newer only (a local wheel), name the" >&2
      echo "      target without the glibc floor: scripts/build-wheel.sh --binary $binary $triple" >&2
      exit 1
    fi
    ((minor >= 17)) || minor=17
    platform="manylinux_2_${minor}_$arch"
    if ((minor == 17)); then platform="$platform.manylinux2014_$arch"; fi
    ;;
esac

epoch=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 315532800)}
mkdir -p "$out"
python3 scripts/build-wheel.py --binary "$binary" --package python/toolproof \
  --readme python/README.md --license LICENSE --version "$version" --platform "$platform" \
  --repository "$repository" --summary "$summary" --epoch "$epoch" --out "$out"
