# Sourced by scripts/test.sh and .ci/run: `prereqs` checks, in a second, that the programs the
# whole suite runs are on this machine, and installs the missing ones with apt-get where it can
# (as root, or with a sudo that asks no password). Otherwise it stops, naming what to install,
# before anything is built or downloaded.
#
# What needs them: node and npm (the reference servers, the corpus and the npm package),
# python3 with venv (the PyPI servers, the reference, the JUnit readers), chromium (the HTML
# report, tests/integration/interop/html.rs; $CHROMIUM names another binary), git (the corpus's
# git server), readelf and strip (the wheel and the release checks) and script (the terminal
# tests).

# The Debian/Ubuntu package of each program.
prereq_package() { # program
  case $1 in
    node) echo nodejs ;;
    python3-venv) echo python3-venv ;;
    readelf | strip) echo binutils ;;
    script) echo bsdutils ;;
    *) echo "$1" ;;
  esac
}

prereqs() {
  local missing=() packages=() p
  if ! command -v cargo >/dev/null 2>&1; then
    echo "error: cargo is not on PATH" >&2
    echo "hint: install Rust $(sed -n 's/^rust-version *= *"\(.*\)"$/\1/p' Cargo.toml) or newer with rustup (https://rustup.rs)" >&2
    return 1
  fi
  for p in node npm python3 git readelf strip script; do
    command -v "$p" >/dev/null 2>&1 || missing+=("$p")
  done
  if command -v python3 >/dev/null 2>&1 && ! python3 -c 'import ensurepip, venv' 2>/dev/null; then
    missing+=(python3-venv)
  fi
  if [ -n "${CHROMIUM:-}" ]; then
    command -v "$CHROMIUM" >/dev/null 2>&1 || {
      echo "error: CHROMIUM is set to \`$CHROMIUM\`, which is not a program" >&2
      echo "hint: point it at a Chromium binary, or unset it to use \`chromium\` from PATH" >&2
      return 1
    }
  else
    command -v chromium >/dev/null 2>&1 || missing+=(chromium)
  fi
  [ ${#missing[@]} -gt 0 ] || return 0
  for p in "${missing[@]}"; do
    packages+=("$(prereq_package "$p")")
  done
  # Deduplicated, in order (readelf and strip are one package).
  mapfile -t packages < <(printf '%s\n' "${packages[@]}" | awk '!seen[$0]++')
  local sudo=()
  if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo=(sudo -n); fi
  fi
  if command -v apt-get >/dev/null 2>&1 && { [ "$(id -u)" = 0 ] || [ ${#sudo[@]} -gt 0 ]; }; then
    echo "installing ${packages[*]} with apt-get (missing: ${missing[*]})" >&2
    if "${sudo[@]}" apt-get update -qq && "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
      apt-get install -y -qq "${packages[@]}"; then
      return 0
    fi
    echo "error: apt-get could not install ${packages[*]} (see above)" >&2
    return 1
  fi
  echo "error: the whole suite needs ${missing[*]}, which this machine does not have" >&2
  if command -v apt-get >/dev/null 2>&1; then
    echo "hint: sudo apt-get install -y ${packages[*]}" >&2
  else
    echo "hint: install them with the system's package manager (Debian and Ubuntu name them: ${packages[*]})" >&2
  fi
  echo "hint: \`cargo test\` alone runs the fast tier, which needs none of them" >&2
  return 1
}
