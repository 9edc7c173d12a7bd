#!/usr/bin/env bash
# Runs toolproof for the Action: the command line is built from INPUT_* variables (never from
# ${{ }} expressions), the reports go to one folder, and the exit code is recorded as a step
# output instead of failing the step (the Action's last step decides).
#
# The artifact folder (output `artifact-dir`, under RUNNER_TEMP) holds one folder,
# toolproof-reports/, with the reports and a copy of the history file, so the uploaded artifact
# has toolproof-reports/ at its root.
#
# toolproof writes its own step outputs (exit-code among them) when it gets far enough; the
# exit code is written here only when it did not, so GITHUB_OUTPUT has it once.
#
# GITHUB_TOKEN reaches toolproof only when a pull-request comment is asked for: the token is
# passed in as INPUT_GITHUB_TOKEN and exported for that alone (toolproof withholds it from the
# server under test in any case).
#
# Inputs (environment): TOOLPROOF_BIN, INPUT_CONFIG, INPUT_COMMAND, INPUT_ARGS, INPUT_OFFLINE,
# INPUT_HISTORY, INPUT_JOB_SUMMARY, INPUT_PR_COMMENT, INPUT_GITHUB_TOKEN.
set -uo pipefail

bin="${TOOLPROOF_BIN:-toolproof}"
command="${INPUT_COMMAND:-run}"
config="${INPUT_CONFIG:-toolproof.yaml}"
artifact="${RUNNER_TEMP:-/tmp}/toolproof-artifact"
reports="$artifact/toolproof-reports"
rm -rf "$artifact"
mkdir -p "$reports"
echo "reports-dir=$reports" >>"$GITHUB_OUTPUT"
echo "artifact-dir=$artifact" >>"$GITHUB_OUTPUT"
unset GITHUB_TOKEN

args=("$command")
case "$command" in
  run) args+=("$config") ;;
  eval | lint | inspect) args+=(-c "$config") ;;
  *)
    echo "::error title=toolproof::unknown command '$command': use run, eval, lint or inspect"
    echo "exit-code=2" >>"$GITHUB_OUTPUT"
    exit 0
    ;;
esac

if [ "$command" != inspect ]; then
  args+=(--junit "$reports/junit.xml" --json "$reports/report.json" --html "$reports/report.html")
  [ "${INPUT_JOB_SUMMARY:-true}" = true ] || args+=(--no-summary)
  [ -z "${INPUT_HISTORY:-}" ] || args+=(--history "$INPUT_HISTORY")
  # `lint` asks no model: there is nothing to replay.
  offline="${INPUT_OFFLINE:-auto}"
  [ "$command" != lint ] || offline=false
  if [ "$offline" = auto ]; then
    if [ -n "${ANTHROPIC_API_KEY:-}${ANTHROPIC_AUTH_TOKEN:-}${OPENAI_API_KEY:-}" ]; then
      offline=false
    else
      offline=true
      echo "no model API key in the environment: replaying the committed eval cache (--offline)"
    fi
  fi
  [ "$offline" != true ] || args+=(--offline)
  if [ "${INPUT_PR_COMMENT:-off}" != off ]; then
    args+=(--pr-comment "$INPUT_PR_COMMENT")
    export GITHUB_TOKEN="${INPUT_GITHUB_TOKEN:-}"
  fi
fi

# Extra flags: one per line when the input has several lines, else split on spaces.
if [ -n "${INPUT_ARGS:-}" ]; then
  if [[ "$INPUT_ARGS" == *$'\n'* ]]; then
    mapfile -t extra <<<"$INPUT_ARGS"
  else
    read -r -a extra <<<"$INPUT_ARGS"
  fi
  for a in "${extra[@]}"; do
    [ -z "$a" ] || args+=("$a")
  done
fi

written=$(wc -c <"$GITHUB_OUTPUT")
"$bin" "${args[@]}"
code=$?
if ! tail -c "+$((written + 1))" "$GITHUB_OUTPUT" | grep -q '^exit-code='; then
  echo "exit-code=$code" >>"$GITHUB_OUTPUT"
fi
if [ -n "${INPUT_HISTORY:-}" ] && [ -f "$INPUT_HISTORY" ]; then
  cp "$INPUT_HISTORY" "$reports/"
fi
exit 0
