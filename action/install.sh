#!/usr/bin/env bash
# Installs toolproof for the Action. Picks the release for this runner (RUNNER_OS-RUNNER_ARCH),
# checks its SHA-256 against the manifest committed beside this script, and keeps it in the
# runner's tool cache. `version: source` (or a ref that is no release tag) builds the action's
# own checkout with cargo instead. Writes `bin=<path>` to GITHUB_OUTPUT and adds the folder to
# GITHUB_PATH.
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
  command -v cargo >/dev/null || fail "building toolproof needs cargo on the runner (rustup, for example), or use a version released for ${RUNNER_OS:-this OS}-${RUNNER_ARCH:-this arch}"
  local root
  root="$tool_cache/toolproof/source/$(git -C "$action_path" rev-parse HEAD 2>/dev/null || echo local)"
  if [ ! -x "$root/bin/toolproof" ]; then
    echo "building toolproof from $action_path"
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
  if [ -f "$manifest" ]; then
    read -r file sha <<<"$(release_asset "$manifest" "$platform")"
  fi
  if [ -z "$file" ]; then
    echo "::notice title=toolproof install::toolproof $version has no release for $platform in action/manifests: building it from the action's checkout"
  fi
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
