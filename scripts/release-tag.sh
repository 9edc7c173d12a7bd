#!/usr/bin/env bash
# Makes the release commit and its tag, so that the tagged tree holds its own checksums:
# writes action/manifests/v<VERSION>.json from the archives in DIST_DIR (scripts/release-manifest.sh),
# commits it on top of HEAD, and tags that commit v<VERSION> (annotated). Pushes nothing: the
# release workflow pushes the tag, and scripts/release-dry-run.sh plays the same steps in a
# scratch clone. `uses: <repository>@v<VERSION>` then finds the manifest beside action/install.sh
# and installs the archive it names, checked against its SHA-256.
#
# The archives are reproducible (scripts/release-build.sh): a commit that only adds a manifest
# leaves their times alone, so building the tagged tree again gives the same bytes.
#
# Usage: scripts/release-tag.sh [--partial] VERSION DIST_DIR
#   --partial  a manifest of the platforms DIST_DIR has archives for (a dry run on one machine);
#              the release workflow tags only with all four runner platforms
set -euo pipefail
# shellcheck source=scripts/lib/help.bash
source "$(dirname "$0")/lib/help.bash" "$@"

partial=()
if [ "${1:-}" = --partial ]; then
  partial=(--partial)
  shift
fi
if [ $# -ne 2 ]; then
  echo "usage: $0 [--partial] VERSION DIST_DIR" >&2
  exit 2
fi
version=$1
dist=$(cd "$2" && pwd)
cd "$(dirname "$0")/.."

fail() {
  echo "error: $1" >&2
  [ -z "${2:-}" ] || echo "hint: $2" >&2
  exit 1
}

# The version in Cargo.toml's [package] table.
crate=$(sed -n '/^\[package\]/,/^\[/{s/^version = "\(.*\)"$/\1/p}' Cargo.toml | head -n 1)
[ "$version" = "$crate" ] || fail "VERSION $version is not Cargo.toml's version $crate" \
  "bump Cargo.toml in a commit of its own first, or release $crate"
git rev-parse -q --verify "refs/tags/v$version" >/dev/null &&
  fail "the tag v$version exists already" "a release is never moved: bump the version"
[ -z "$(git status --porcelain --untracked-files=no)" ] ||
  fail "the work tree has uncommitted changes" "commit or stash them: the tag must name what was built"

scripts/release-manifest.sh ${partial[@]+"${partial[@]}"} "$dist" "$version" >/dev/null
manifest="action/manifests/v$version.json"
cp "$dist/manifest.json" "$manifest"

identity=(-c "user.name=${GIT_COMMITTER_NAME:-toolproof release}" -c "user.email=${GIT_COMMITTER_EMAIL:-release@toolproof.invalid}")
git add "$manifest"
git "${identity[@]}" commit --quiet -m "Release v$version: the Action's manifest of the archives and their SHA-256" -- "$manifest"
git "${identity[@]}" tag -a "v$version" -m "toolproof $version"
echo "tagged v$version at $(git rev-parse --short HEAD) with $manifest" >&2
