# Sourced first thing by every script in scripts/ and by .ci/run:
#   source "$(dirname "$0")/lib/help.bash" "$@"
# With `-h` or `--help` among the arguments (before a `--`), it prints the script's header
# comment, which is its usage, on stdout and exits 0 before the script does anything else.
help_if_asked() {
  local arg
  for arg in "$@"; do
    case $arg in
      --) return 0 ;;
      -h | --help)
        # The comment lines after the shebang, up to the first line that is not a comment.
        sed -n '2,/^[^#]/p' "$0" | sed -n 's/^#$//p; s/^# //p'
        exit 0
        ;;
    esac
  done
}
help_if_asked "$@"
unset -f help_if_asked
