#!/usr/bin/env bash
# Runs toolproof for the Action: the command line is built from INPUT_* variables (never from
# ${{ }} expressions), the reports go to one folder under RUNNER_TEMP, and the exit code is
# recorded as a step output instead of failing the step (the Action's last step decides).
#
# Inputs (environment): TOOLPROOF_BIN, INPUT_CONFIG, INPUT_COMMAND, INPUT_ARGS, INPUT_OFFLINE,
# INPUT_HISTORY, INPUT_JOB_SUMMARY, INPUT_PR_COMMENT.
set -uo pipefail

bin="${TOOLPROOF_BIN:-toolproof}"
command="${INPUT_COMMAND:-run}"
config="${INPUT_CONFIG:-toolproof.yaml}"
reports="${RUNNER_TEMP:-/tmp}/toolproof-reports"
mkdir -p "$reports"
echo "reports-dir=$reports" >>"$GITHUB_OUTPUT"

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
  [ "${INPUT_PR_COMMENT:-off}" = off ] || args+=(--pr-comment "$INPUT_PR_COMMENT")
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

"$bin" "${args[@]}"
code=$?
echo "exit-code=$code" >>"$GITHUB_OUTPUT"
exit 0
