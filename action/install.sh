#!/usr/bin/env bash
# Installs toolproof for the Action. Picks the release archive for this runner
# (RUNNER_OS-RUNNER_ARCH) named by the manifest that the release commit put beside this script
# (action/manifests/v<version>.json, see scripts/release-tag.sh), checks its SHA-256, and keeps
# it in the runner's tool cache under its version and platform. A release with no archive for
# the runner is an error naming both; nothing is built behind the user's back. `version: source`
# builds the action's own checkout with cargo, as does a ref that is no release tag (a branch or
# a commit: there is no release to install), kept in the tool cache under the crate's version and
# a hash of the sources, so a changed checkout is built again. Writes `bin=<path>` to
# GITHUB_OUTPUT and adds the folder to GITHUB_PATH.
#
# Inputs (environment): INPUT_VERSION, ACTION_REF, ACTION_REPOSITORY, ACTION_PATH.
# TOOLPROOF_DOWNLOAD_BASE replaces https://github.com/<repository>/releases/download (mirrors,
# tests).
set -euo pipefail

fail() {
  echo "::error title=toolproof install::$1"
  exit 1
}

action_path="${ACTION_PATH:?ACTION_PATH is not set}"
version="${INPUT_VERSION:-}"
if [ -z "$version" ]; then
  # The release matching the action's ref: @v0.1.0 -> 0.1.0; a branch or a SHA builds from source.
  case "${ACTION_REF:-}" in
    v[0-9]*.[0-9]*.[0-9]*) version="${ACTION_REF#v}" ;;
    *) version=source ;;
  esac
fi
version="${version#v}"

tool_cache="${RUNNER_TOOL_CACHE:-${RUNNER_TEMP:-/tmp}/tool-cache}"

build_from_source() {
  command -v cargo >/dev/null || fail "building toolproof from the action's checkout needs cargo on the runner (rustup, for example); or use a released version (uses: ${ACTION_REPOSITORY:-toolproof-dev/toolproof}@v<version>)"
  # The key is what was built: the crate's version and a hash of every file cargo reads, so a
  # self-hosted runner never reuses a binary built from other sources.
  local crate hash root
  crate=$(sed -n '/^\[package\]/,/^\[/{s/^version = "\(.*\)"$/\1/p}' "$action_path/Cargo.toml" | head -n 1)
  hash=$(cd "$action_path" && find Cargo.toml Cargo.lock src -type f -print0 | LC_ALL=C sort -z |
    xargs -0 sha256sum | sha256sum | cut -c1-16)
  root="$tool_cache/toolproof/source-$crate-$hash"
  if [ ! -x "$root/bin/toolproof" ]; then
    echo "building toolproof $crate from $action_path"
    cargo install --locked --quiet --path "$action_path" --root "$root" --bin toolproof
  fi
  bin_dir="$root/bin"
}

# The archive for this runner named by the manifest: "file sha256", or nothing.
release_asset() {
  python3 - "$1" "$2" <<'PY'
import json, sys
manifest, platform = sys.argv[1], sys.argv[2]
asset = json.load(open(manifest)).get("assets", {}).get(platform)
print(f"{asset['file']} {asset['sha256']}" if asset else "")
PY
}

platform="${RUNNER_OS:-}-${RUNNER_ARCH:-}"
manifest="$action_path/action/manifests/v$version.json"
file="" sha=""
if [ "$version" != source ]; then
  [ -f "$manifest" ] || fail "toolproof $version has no release manifest in this action (action/manifests/v$version.json): use the action at a release tag (uses: ${ACTION_REPOSITORY:-toolproof-dev/toolproof}@v<version>), or version: source to build it with cargo"
  read -r file sha <<<"$(release_asset "$manifest" "$platform")"
  [ -n "$file" ] || fail "toolproof $version has no release archive for $platform (the runner's RUNNER_OS-RUNNER_ARCH); its releases are for $(python3 -c 'import json,sys; print(", ".join(sorted(json.load(open(sys.argv[1]))["assets"])))' "$manifest"): run the job on one of those, or set version: source to build it with cargo"
else
  echo "::notice title=toolproof install::building toolproof from the action's checkout (${ACTION_REF:+ref $ACTION_REF, }version: source)"
fi

if [ -z "$file" ]; then
  build_from_source
else
  bin_dir="$tool_cache/toolproof/$version/$platform"
  if [ ! -f "$bin_dir.complete" ] || [ ! -x "$bin_dir/toolproof" ]; then
    base="${TOOLPROOF_DOWNLOAD_BASE:-https://github.com/${ACTION_REPOSITORY:?}/releases/download}"
    work="$(mktemp -d "${RUNNER_TEMP:-/tmp}/toolproof-install.XXXXXX")"
    echo "downloading $file"
    curl --fail --silent --show-error --location --retry 3 -o "$work/$file" "$base/v$version/$file" \
      || fail "could not download $base/v$version/$file"
    if command -v sha256sum >/dev/null; then
      got="$(sha256sum "$work/$file" | cut -d' ' -f1)"
    else
      got="$(shasum -a 256 "$work/$file" | cut -d' ' -f1)"
    fi
    [ "$got" = "$sha" ] || fail "checksum mismatch for $file: expected $sha, got $got; the download was refused"
    rm -rf "$bin_dir" && mkdir -p "$bin_dir"
    tar -xzf "$work/$file" -C "$work"
    found="$(find "$work" -type f -name toolproof -perm -u+x | head -n 1)"
    [ -n "$found" ] || fail "$file holds no toolproof binary"
    mv "$found" "$bin_dir/toolproof"
    touch "$bin_dir.complete"
    rm -rf "$work"
  fi
fi

"$bin_dir/toolproof" --version
echo "bin=$bin_dir/toolproof" >>"$GITHUB_OUTPUT"
echo "$bin_dir" >>"$GITHUB_PATH"
