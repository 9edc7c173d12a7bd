#!/usr/bin/env bash
# Builds the Dockerfile's `runtime` stage (FROM scratch) from a static toolproof binary that is
# already built, runs `--version` in it without a network, and checks it runs as a non-root user.
# Needs a Docker daemon and BuildKit; pulls no image, since scratch is empty.
#
# Usage: scripts/docker-smoke.sh STATIC_BINARY
#   STATIC_BINARY: a toolproof for this machine's architecture that links no shared library (the
#   musl build from `scripts/release-build.sh x86_64-unknown-linux-musl`)
#   DOCKER: the docker client to use (default: docker)
set -euo pipefail
# shellcheck source=scripts/lib/help.bash
source "$(dirname "$0")/lib/help.bash" "$@"
cd "$(dirname "$0")/.."

if [ $# -ne 1 ]; then
  echo "usage: $0 STATIC_BINARY" >&2
  exit 2
fi
bin=$1
docker=${DOCKER:-docker}
if readelf --dynamic "$bin" | grep -q NEEDED; then
  echo "error: $bin links shared libraries, which an image FROM scratch does not have" >&2
  exit 1
fi
case $(uname -m) in
  x86_64) arch=amd64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) echo "error: no Docker architecture for $(uname -m)" >&2; exit 2 ;;
esac

# The build context reads it from here (see BINARY_FROM in the Dockerfile).
if [ "$(realpath "$bin")" != "$(realpath -m "dist/docker/$arch/toolproof")" ]; then
  mkdir -p "dist/docker/$arch"
  cp "$bin" "dist/docker/$arch/toolproof"
fi

tag=toolproof:smoke-$$
trap '"$docker" image rm --force "$tag" >/dev/null 2>&1 || true' EXIT
DOCKER_BUILDKIT=1 "$docker" build --quiet --target runtime --build-arg BINARY_FROM=context \
  --tag "$tag" . >/dev/null

out=$("$docker" run --rm --network none "$tag" --version)
[[ $out == "toolproof "[0-9]* ]] || { echo "error: the image printed \`$out\` for --version" >&2; exit 1; }
user=$("$docker" image inspect --format '{{.Config.User}}' "$tag")
[ "$user" = 65532:65532 ] || { echo "error: the image runs as \`$user\`, not 65532:65532" >&2; exit 1; }
echo "runtime image: \`--version\` printed \`$out\`, user $user, $("$docker" image inspect --format '{{.Size}}' "$tag") bytes"
