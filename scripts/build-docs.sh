#!/usr/bin/env bash
# Builds the guide (docs/, mkdocs.yml) into target/book with mkdocs from PyPI, installed once
# into a venv under target/. The build is strict: a broken link or anchor fails it.
# Usage: scripts/build-docs.sh [OUT]
set -euo pipefail
# shellcheck source=scripts/lib/help.bash
source "$(dirname "$0")/lib/help.bash" "$@"
cd "$(dirname "$0")/.."
out=${1:-target/book}
venv=target/docs-venv
requirement="mkdocs==1.6.1"
stamp="$venv/.installed-$requirement"
if [ ! -f "$stamp" ]; then
  echo "installing $requirement into $venv" >&2
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "$requirement"
  touch "$stamp"
fi
# mkdocs counts warnings only when it prints them, so its INFO lines are filtered, not hushed.
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! "$venv/bin/mkdocs" build --strict --site-dir "$out" >"$log" 2>&1; then
  grep -v '^INFO' "$log" >&2
  echo "error: the guide did not build; fix the links or anchors named above" >&2
  exit 1
fi
grep -v '^INFO' "$log" >&2 || true
# The README's links into the guide, checked against the pages just built.
python3 - "$out" <<'PY'
import pathlib, re, sys
out = pathlib.Path(sys.argv[1])
bad = []
for n, line in enumerate(pathlib.Path("README.md").read_text().splitlines(), 1):
    for page, anchor in re.findall(r"\]\(docs/([\w-]+)\.md(?:#([\w-]+))?\)", line):
        html = out / ("" if page == "index" else page) / "index.html"
        if not html.exists():
            bad.append(f"README.md:{n}: docs/{page}.md does not exist")
        elif anchor and f'id="{anchor}"' not in html.read_text():
            bad.append(f"README.md:{n}: docs/{page}.md has no anchor #{anchor}")
for b in bad:
    print(f"error: {b}", file=sys.stderr)
sys.exit(1 if bad else 0)
PY
echo "the guide is in $out/index.html" >&2
