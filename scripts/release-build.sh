#!/usr/bin/env bash
# Builds one release archive of toolproof into dist/:
#   dist/toolproof-<version>-<triple>.tar.gz         toolproof, LICENSE and README.md at its root
#   dist/toolproof-<version>-<triple>.tar.gz.sha256  one line in `sha256sum` format
# and prints the archive's path on stdout.
#
# Usage: scripts/release-build.sh [TARGET]   TARGET defaults to x86_64-unknown-linux-gnu.2.17
#        scripts/release-build.sh --version  prints the version in Cargo.toml
#
# Linux targets are linked by zig through cargo-zigbuild. A `.2.17` suffix on a gnu target makes
# zig link against glibc 2.17's symbol versions, so the binary runs on any distribution with
# glibc 2.17 or newer (a plain `cargo build` links against the build machine's glibc); musl
# targets come out static. Both tools come from PyPI (cargo-zigbuild ships prebuilt wheels, which
# install in seconds where `cargo install` compiles for a minute and a half) and live in
# target/release-tools/, with zig's caches, so nothing outside the work tree changes except a
# `rustup target add` for a target the toolchain lacks. Other targets (macOS) are built by plain
# cargo. Every build uses Cargo.toml's [profile.release] and --locked. Running it again rebuilds
# incrementally and replaces the two files.
set -euo pipefail
# shellcheck source=scripts/lib/help.bash
source "$(dirname "$0")/lib/help.bash" "$@"
cd "$(dirname "$0")/.."

zigbuild_version=0.24.1
zig_version=0.17.1

crate_version() { # `cargo pkgid` ends in `#<version>` or `#toolproof@<version>`
  local id
  id=$(cargo pkgid --quiet)
  echo "${id##*[#@]}"
}

if [ "${1:-}" = --version ]; then
  crate_version
  exit 0
fi
target=${1:-x86_64-unknown-linux-gnu.2.17}

# The Rust triple is the target without zig's glibc suffix.
triple=$target
if [[ $target =~ ^(.+-linux-gnu[a-z0-9]*)\.[0-9]+\.[0-9]+$ ]]; then
  triple=${BASH_REMATCH[1]}
fi
case $triple in
  *-linux-*) linker=zig ;;
  *-apple-darwin) linker=cargo ;;
  *)
    echo "error: no release build for target \`$target\`" >&2
    echo "hint: use a Linux (gnu with a glibc suffix such as .2.17, or musl) or an apple-darwin target" >&2
    exit 2
    ;;
esac

if command -v rustup >/dev/null && ! rustup target list --installed | grep -qxF "$triple"; then
  echo "adding the Rust target $triple with rustup" >&2
  rustup target add "$triple" >&2
fi

if [ "$linker" = zig ]; then
  tools="$PWD/target/release-tools"
  stamp="$tools/py/.installed-cargo-zigbuild-$zigbuild_version-ziglang-$zig_version"
  if [ ! -f "$stamp" ]; then
    echo "installing cargo-zigbuild $zigbuild_version and zig $zig_version from PyPI into $tools/py" >&2
    rm -rf "$tools/py"
    python3 -m venv "$tools/py"
    "$tools/py/bin/pip" install --quiet --disable-pip-version-check \
      "cargo-zigbuild==$zigbuild_version" "ziglang==$zig_version"
    touch "$stamp"
  fi
  CARGO_ZIGBUILD_ZIG_PATH=$("$tools/py/bin/python" -c \
    'import os, ziglang; print(os.path.join(os.path.dirname(ziglang.__file__), "zig"))')
  export CARGO_ZIGBUILD_ZIG_PATH
  export CARGO_ZIGBUILD_CACHE_DIR="$tools/cache/cargo-zigbuild"
  export ZIG_GLOBAL_CACHE_DIR="$tools/cache/zig" ZIG_LOCAL_CACHE_DIR="$tools/cache/zig-local"
  echo "building toolproof for $target with cargo-zigbuild" >&2
  "$tools/py/bin/cargo-zigbuild" zigbuild --release --locked -p toolproof --target "$target" >&2
else
  echo "building toolproof for $target with cargo" >&2
  cargo build --release --locked -p toolproof --target "$triple" >&2
fi

version=$(crate_version)
name="toolproof-$version-$triple"
stage="target/release-stage/$name"
rm -rf "$stage" && mkdir -p "$stage" dist
cp "${CARGO_TARGET_DIR:-target}/$triple/release/toolproof" LICENSE README.md "$stage/"

# With GNU tar the archive is byte-for-byte reproducible: fixed order, owner and times. The
# times are those of the last commit that changed anything but the Action's manifests, so the
# release commit that adds a manifest (scripts/release-tag.sh) does not change the archives it
# lists: the tagged tree builds the same bytes again.
tar_flags=()
if tar --version 2>/dev/null | grep -q 'GNU tar'; then
  epoch=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct -- . ':(exclude)action/manifests' 2>/dev/null || date +%s)}
  tar_flags=(--sort=name --owner=0 --group=0 --numeric-owner --mtime="@$epoch")
fi
tar ${tar_flags[@]+"${tar_flags[@]}"} -cf - -C "$stage" toolproof LICENSE README.md | gzip -n -9 >"dist/$name.tar.gz.tmp"
mv "dist/$name.tar.gz.tmp" "dist/$name.tar.gz"

if command -v sha256sum >/dev/null; then sha=(sha256sum); else sha=(shasum -a 256); fi
(cd dist && "${sha[@]}" "$name.tar.gz" >"$name.tar.gz.sha256")
echo "dist/$name.tar.gz"
