#!/usr/bin/env bash
# Plays a release of HEAD on this machine, from the tag to the Action's install, with nothing
# published: a scratch clone of HEAD gets the release commit and tag (scripts/release-tag.sh), the
# tagged tree is exported the way the runner downloads an action (no .git), the archives are
# served on 127.0.0.1, and action/install.sh runs as the Action's install step does on a Linux
# x86_64 runner, with no cargo on PATH: it must download the archive the tagged manifest names,
# check its SHA-256 and install it. Then the installed toolproof runs (`--version`, and the
# bundled demo when --examples names the folder of the demo's server and picker).
#
# Usage: scripts/release-dry-run.sh [--dist DIR] [--examples DIR]
#   --dist DIR      release archives already built (default: build this host's with
#                   scripts/release-build.sh x86_64-unknown-linux-gnu.2.17 into dist/)
#   --examples DIR  a folder holding demo_server and demo_picker (target/debug)
set -euo pipefail
# shellcheck source=scripts/lib/help.bash
source "$(dirname "$0")/lib/help.bash" "$@"
cd "$(dirname "$0")/.."
repo=$PWD

dist="" examples=""
while [ $# -gt 0 ]; do
  case $1 in
    --dist) dist=$(cd "$2" && pwd); shift 2 ;;
    --examples) examples=$(cd "$2" && pwd); shift 2 ;;
    *)
      echo "error: unknown argument \`$1\`" >&2
      echo "usage: $0 [--dist DIR] [--examples DIR]" >&2
      exit 2
      ;;
  esac
done
fail() { echo "error: $*" >&2; exit 1; }

version=$(sed -n '/^\[package\]/,/^\[/{s/^version = "\(.*\)"$/\1/p}' Cargo.toml | head -n 1)
if [ -z "$dist" ]; then
  scripts/release-build.sh x86_64-unknown-linux-gnu.2.17 >/dev/null
  dist=$repo/dist
fi
[ -f "$dist/toolproof-$version-x86_64-unknown-linux-gnu.tar.gz" ] ||
  fail "$dist has no toolproof-$version-x86_64-unknown-linux-gnu.tar.gz"

work=$(mktemp -d)
server_pid=""
cleanup() {
  [ -z "$server_pid" ] || kill "$server_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# 1. The release commit and tag, in a scratch clone of HEAD.
git clone --quiet --no-hardlinks "$repo" "$work/repo"
(cd "$work/repo" && scripts/release-tag.sh --partial "$version" "$dist")
tagged=$(git -C "$work/repo" rev-parse "v$version^{commit}")
[ "$(git -C "$work/repo" rev-parse "v$version^{commit}^")" = "$(git -C "$repo" rev-parse HEAD)" ] ||
  fail "the tag is not one commit on top of HEAD"

# The archives' times come from the last commit that changed more than a manifest, so the
# tagged tree builds the same archives as HEAD did (scripts/release-build.sh).
epoch() { git -C "$1" log -1 --format=%ct "$2" -- . ':(exclude)action/manifests'; }
[ "$(epoch "$work/repo" "v$version")" = "$(epoch "$repo" HEAD)" ] ||
  fail "the release commit changes the archives' timestamp: they would not be reproducible from the tag"

# 2. The action as the runner downloads it: the tagged tree, no .git.
mkdir "$work/action"
git -C "$work/repo" archive "v$version" | tar -x -C "$work/action"
[ -f "$work/action/action/manifests/v$version.json" ] || fail "the tagged tree lacks its manifest"

# 3. The release assets on 127.0.0.1, under /v<version>/ as on the release page.
mkdir -p "$work/served/v$version"
cp "$dist"/toolproof-"$version"-*.tar.gz "$work/served/v$version/"
python3 - "$work/served" "$work/port" <<'PY' &
import http.server, os, sys
class Quiet(http.server.SimpleHTTPRequestHandler):
    def __init__(self, *a, **k):
        super().__init__(*a, directory=sys.argv[1], **k)
    def log_message(self, *a):
        pass
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Quiet)
with open(sys.argv[2] + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
os.rename(sys.argv[2] + ".tmp", sys.argv[2])
server.serve_forever()
PY
server_pid=$!
for _ in $(seq 100); do
  [ -f "$work/port" ] && break
  kill -0 "$server_pid" 2>/dev/null || fail "the file server did not start"
  sleep 0.1
done
[ -f "$work/port" ] || fail "the file server did not start"

# 4. The Action's install step, with every folder that holds a cargo taken off PATH.
path=""
IFS=: read -r -a dirs <<<"$PATH"
for d in "${dirs[@]}"; do
  [ -n "$d" ] && [ ! -e "$d/cargo" ] && path="${path:+$path:}$d"
done
mkdir -p "$work/runner/temp" "$work/runner/tool-cache"
: >"$work/runner/output"
: >"$work/runner/path"
# shellcheck disable=SC2016 # $ACTION_PATH is expanded by the inner bash
env -i PATH="$path" HOME="$work/runner" \
  RUNNER_OS=Linux RUNNER_ARCH=X64 RUNNER_TEMP="$work/runner/temp" \
  RUNNER_TOOL_CACHE="$work/runner/tool-cache" GITHUB_OUTPUT="$work/runner/output" \
  GITHUB_PATH="$work/runner/path" INPUT_VERSION="" ACTION_REF="v$version" \
  ACTION_REPOSITORY=toolproof-dev/toolproof ACTION_PATH="$work/action" \
  TOOLPROOF_DOWNLOAD_BASE="http://127.0.0.1:$(cat "$work/port")" \
  bash -c 'command -v cargo >/dev/null && { echo "cargo is on PATH" >&2; exit 1; }; bash "$ACTION_PATH/action/install.sh"' \
  >"$work/install.log" 2>&1 || { cat "$work/install.log" >&2; fail "the Action's install step failed"; }
cat "$work/install.log"
bin=$(sed -n 's/^bin=//p' "$work/runner/output")
[ "$bin" = "$work/runner/tool-cache/toolproof/$version/Linux-X64/toolproof" ] ||
  fail "the install step wrote bin=$bin"
grep -q "^downloading toolproof-$version-x86_64-unknown-linux-gnu.tar.gz" "$work/install.log" ||
  fail "the install step did not download the release archive"
[ "$("$bin" --version)" = "toolproof $version" ] || fail "the installed toolproof says $("$bin" --version)"

# 5. The installed toolproof runs the bundled demo.
if [ -n "$examples" ]; then
  mkdir "$work/demo"
  sed "s|\.\./\.\./target/release/|$examples/|g" examples/demo/toolproof.yaml >"$work/demo/toolproof.yaml"
  (cd "$work/demo" && "$bin" run toolproof.yaml) >"$work/demo.log" 2>&1 ||
    { cat "$work/demo.log" >&2; fail "the installed toolproof failed the demo"; }
  tail -n 3 "$work/demo.log"
fi
echo "release dry run: v$version tagged at ${tagged:0:12}, installed by the Action without cargo, checksum verified"
