#!/usr/bin/env bash
# Checks the release build as CI runs it, on one target (Linux x86_64, glibc 2.17):
# - scripts/release-build.sh makes the archive and its .sha256, and they agree;
# - the archive holds exactly toolproof, LICENSE and README.md;
# - the toolproof in it needs glibc 2.17 at most and runs (scripts/check-glibc.sh);
# - scripts/check-glibc.sh fails a binary that needs a newer glibc, so the check above can fail;
# - scripts/release-manifest.sh writes the manifest.json the Action reads, and SHA256SUMS;
# - Cargo.toml's cargo binstall metadata names the archive.
#
# Usage: scripts/release-check.sh   (no arguments)
set -euo pipefail
# shellcheck source=scripts/lib/help.bash
source "$(dirname "$0")/lib/help.bash" "$@"
cd "$(dirname "$0")/.."

fail() { echo "error: $*" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

archive=$(scripts/release-build.sh x86_64-unknown-linux-gnu.2.17)
file=$(basename "$archive")
version=$(scripts/release-build.sh --version)
[ "$file" = "toolproof-$version-x86_64-unknown-linux-gnu.tar.gz" ] || fail "archive named $file"
(cd dist && sha256sum --check "$file.sha256")

listing=$(tar -tzf "$archive" | sort | tr '\n' ' ')
[ "$listing" = "LICENSE README.md toolproof " ] || fail "$file holds: $listing"
mkdir "$work/x" && tar -xzf "$archive" -C "$work/x"
scripts/check-glibc.sh "$work/x/toolproof" 2.17

# getrandom has needed GLIBC_2.25 since it came, so this binary must fail the check on any host.
cat >"$work/newer.c" <<'EOF'
#include <sys/random.h>
int main(void) { char b[8]; return getrandom(b, sizeof b, 0) == sizeof b ? 0 : 1; }
EOF
cc -o "$work/newer" "$work/newer.c"
if scripts/check-glibc.sh "$work/newer" 2.17 >"$work/newer.out" 2>&1; then
  cat "$work/newer.out" >&2
  fail "check-glibc.sh passed a binary that needs glibc 2.25 or newer"
fi
grep -q 'getrandom@GLIBC_2.25' "$work/newer.out" || { cat "$work/newer.out" >&2; fail "check-glibc.sh did not name getrandom"; }
echo "check-glibc.sh fails a binary that $(grep -o "needs glibc [0-9.]*" "$work/newer.out" | head -n1)"

# The manifest from the real archive and stand-ins for the three that other runners build.
mkdir "$work/dist"
cp "$archive" "$archive.sha256" "$work/dist/"
for t in aarch64-unknown-linux-gnu x86_64-apple-darwin aarch64-apple-darwin x86_64-unknown-linux-musl; do
  echo "stand-in for $t" >"$work/dist/toolproof-$version-$t.tar.gz"
done
scripts/release-manifest.sh "$work/dist" "$version"
(cd "$work/dist" && sha256sum --check --quiet SHA256SUMS)
[ "$(wc -l <"$work/dist/SHA256SUMS")" -eq 5 ] || fail "SHA256SUMS does not list the 5 archives"
python3 - "$work/dist" "$version" "$file" <<'EOF'
import hashlib, json, pathlib, sys
dist, version, real = pathlib.Path(sys.argv[1]), sys.argv[2], sys.argv[3]
m = json.loads((dist / "manifest.json").read_text())
assert m["version"] == version, m
assert set(m["assets"]) == {"Linux-X64", "Linux-ARM64", "macOS-X64", "macOS-ARM64"}, m
for key, a in m["assets"].items():
    assert set(a) == {"file", "sha256"}, a
    assert a["sha256"] == hashlib.sha256((dist / a["file"]).read_bytes()).hexdigest(), a
assert m["assets"]["Linux-X64"]["file"] == real, m
print("manifest.json: ok")
EOF
# cargo binstall's URL, filled in as binstall fills it for this target, names this archive.
python3 - "$file" "$version" <<'EOF'
import re, sys, tomllib
file, version = sys.argv[1], sys.argv[2]
package = tomllib.load(open("Cargo.toml", "rb"))["package"]
meta = package["metadata"]["binstall"]
values = {"repo": package["repository"], "version": version, "name": package["name"],
          "target": "x86_64-unknown-linux-gnu", "archive-suffix": ".tar.gz", "bin": "toolproof",
          "binary-ext": ""}
fill = lambda t: re.sub(r"\{ *([\w-]+) *\}", lambda m: values[m.group(1)], t)
url = fill(meta["pkg-url"])
want = f"{package['repository']}/releases/download/v{version}/{file}"
assert url == want, (url, want)
assert meta["pkg-fmt"] == "tgz" and fill(meta["bin-dir"]) == "toolproof", meta
print(f"cargo binstall metadata: {url}")
EOF
echo "release check: ok"
