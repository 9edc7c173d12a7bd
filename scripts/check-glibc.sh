#!/usr/bin/env bash
# Fails unless a Linux binary of toolproof needs at most glibc MAX (default 2.17), and, when it is
# built for this machine's architecture, unless `BINARY --version` runs and names toolproof.
#
# Usage: scripts/check-glibc.sh BINARY [MAX]
#
# The glibc a binary needs is the highest GLIBC_x.y version name in its version-needs section
# (`readelf -V`, from binutils): the dynamic loader refuses to start it on an older glibc
# ("version `GLIBC_2.34' not found"). A static binary (musl) needs none and passes.
set -euo pipefail
# shellcheck source=scripts/lib/help.bash
source "$(dirname "$0")/lib/help.bash" "$@"

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: $0 BINARY [MAX]" >&2
  exit 2
fi
bin=$1
max=${2:-2.17}
[ -f "$bin" ] || { echo "error: no file at $bin" >&2; exit 2; }

header=$(readelf --file-header "$bin") || { echo "error: $bin is not an ELF file" >&2; exit 2; }
needed=$(readelf --version-info --wide "$bin" | grep -oE 'Name: GLIBC_[0-9]+(\.[0-9]+)+' \
  | sed 's/^Name: GLIBC_//' | sort -uV || true)

if [ -z "$needed" ]; then
  echo "$bin needs no glibc symbol versions (static or non-glibc binary)"
else
  highest=$(tail -n1 <<<"$needed")
  if [ "$(printf '%s\n%s\n' "$max" "$highest" | sort -V | tail -n1)" != "$max" ]; then
    echo "error: $bin needs glibc $highest, newer than the $max it must run on" >&2
    echo "the symbols that need more than $max:" >&2
    readelf --dyn-syms --wide "$bin" | grep -oE '[^ ]+@GLIBC_[0-9.]+' | sort -u \
      | while IFS=@ read -r sym ver; do
          v=${ver#GLIBC_}
          [ "$(printf '%s\n%s\n' "$max" "$v" | sort -V | tail -n1)" = "$max" ] || echo "  $sym@$ver" >&2
        done
    echo "hint: build with scripts/release-build.sh (zig links against glibc 2.17), not plain cargo" >&2
    exit 1
  fi
  echo "$bin needs glibc $highest (at most $max): ok"
fi

# Run it only where this machine can: readelf names the machine, uname -m the host.
machine=$(sed -n 's/^ *Machine: *//p' <<<"$header")
case "$(uname -m):$machine" in
  x86_64:*X86-64* | aarch64:AArch64 | arm64:AArch64)
    out=$("$bin" --version)
    if [[ $out != "toolproof "[0-9]* ]]; then
      echo "error: \`$bin --version\` printed \`$out\`, not \`toolproof <version>\`" >&2
      exit 1
    fi
    echo "$bin --version: $out"
    ;;
  *) echo "not running $bin: built for $machine, this machine is $(uname -m)" ;;
esac
