#!/usr/bin/env bash
# Runs toolproof for the Action: the command line is built from INPUT_* variables (never from
# ${{ }} expressions), the reports go to one folder, and the exit code is recorded as a step
# output instead of failing the step (the Action's last step decides, from `fail-code`).
#
# The artifact folder (output `artifact-dir`, under RUNNER_TEMP) holds one folder,
# toolproof-reports/, with the reports and a copy of the history file, so the uploaded artifact
# has toolproof-reports/ at its root. Its name (output `artifact-name`) is INPUT_ARTIFACT_NAME,
# with -shard-K-of-N appended in a shard.
#
# A shard of several (TOOLPROOF_SHARD=K/N, N > 1) is one job of a matrix whose last job runs
# `merge`: it keeps no history, writes no job summary, posts no comment, and a failed gate
# (exit 1) does not fail its step, since its gates cover its own cases only. `merge` reads the
# JSON reports named by INPUT_REPORTS, else every report.json under PARTS_DIR (the artifacts
# the download step fetched).
#
# toolproof writes its own step outputs (exit-code among them) when it gets far enough; the
# exit code is written here only when it did not, so GITHUB_OUTPUT has it once.
#
# GITHUB_TOKEN reaches toolproof only when a pull-request comment is asked for: the token is
# passed in as INPUT_GITHUB_TOKEN and exported for that alone (toolproof withholds it from the
# server under test in any case).
#
# Inputs (environment): TOOLPROOF_BIN, INPUT_CONFIG, INPUT_COMMAND, INPUT_ARGS, INPUT_OFFLINE,
# INPUT_HISTORY, INPUT_JOB_SUMMARY, INPUT_PR_COMMENT, INPUT_GITHUB_TOKEN, INPUT_REPORTS,
# INPUT_ARTIFACT_NAME, INPUT_BADGE, TOOLPROOF_SHARD, PARTS_DIR.
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

# One shard of several: `merge` does what covers the whole run.
shard="${TOOLPROOF_SHARD:-}"
sharded=false
name="${INPUT_ARTIFACT_NAME:-toolproof-reports}"
if [[ "$shard" =~ ^[[:space:]]*([0-9]+)[[:space:]]*/[[:space:]]*([0-9]+)[[:space:]]*$ ]] &&
  { [ "$command" = run ] || [ "$command" = eval ]; }; then
  name="$name-shard-${BASH_REMATCH[1]}-of-${BASH_REMATCH[2]}"
  [ "${BASH_REMATCH[2]}" = 1 ] || sharded=true
fi
echo "artifact-name=$name" >>"$GITHUB_OUTPUT"

fail() { # message: a usage error, reported as toolproof reports one
  echo "::error title=toolproof::$1"
  echo "exit-code=2" >>"$GITHUB_OUTPUT"
  echo "fail-code=2" >>"$GITHUB_OUTPUT"
  exit 0
}

args=("$command")
case "$command" in
  run) args+=("$config") ;;
  eval | lint | inspect) args+=(-c "$config") ;;
  merge)
    shopt -s nullglob globstar
    parts=()
    if [ -n "${INPUT_REPORTS:-}" ]; then
      if [[ "$INPUT_REPORTS" == *$'\n'* ]]; then
        mapfile -t patterns <<<"$INPUT_REPORTS"
      else
        read -r -a patterns <<<"$INPUT_REPORTS"
      fi
    else
      patterns=("${PARTS_DIR:-}")
      [ -n "${PARTS_DIR:-}" ] || fail "no reports to merge: set the reports input, or upload the shard jobs' reports as artifacts named ${name}-*"
    fi
    for pattern in "${patterns[@]}"; do
      [ -n "$pattern" ] || continue
      # A pattern is expanded by the shell; one that matches nothing is kept, so toolproof
      # names it.
      mapfile -t matched < <(compgen -G "$pattern")
      [ ${#matched[@]} -gt 0 ] || matched=("$pattern")
      for path in "${matched[@]}"; do
        if [ -d "$path" ]; then
          found=("$path"/**/report.json)
          [ ${#found[@]} -gt 0 ] || fail "no report.json under $path: upload each shard's reports folder (the Action does, as ${name}-shard-K-of-N)"
          parts+=("${found[@]}")
        else
          parts+=("$path")
        fi
      done
    done
    [ ${#parts[@]} -gt 0 ] || fail "the reports input names no file"
    args+=("${parts[@]}")
    ;;
  *) fail "unknown command '$command': use run, eval, lint, inspect or merge" ;;
esac

if [ "$command" != inspect ]; then
  args+=(--junit "$reports/junit.xml" --json "$reports/report.json" --html "$reports/report.html" --sarif "$reports/results.sarif")
  if [ "$sharded" = true ]; then
    echo "shard $shard: the history, job summary, pull-request comment and verdict are the merge job's"
    args+=(--no-summary)
  else
    [ "${INPUT_JOB_SUMMARY:-true}" = true ] || args+=(--no-summary)
    [ -z "${INPUT_HISTORY:-}" ] || args+=(--history "$INPUT_HISTORY")
    case "${INPUT_BADGE:-}" in
      "") ;;
      svg | json) args+=(--badge "$reports/badge.${INPUT_BADGE}") ;;
      *) fail "unknown badge '${INPUT_BADGE}': use svg, json or leave it empty" ;;
    esac
    if [ "${INPUT_PR_COMMENT:-off}" != off ]; then
      args+=(--pr-comment "$INPUT_PR_COMMENT")
      export GITHUB_TOKEN="${INPUT_GITHUB_TOKEN:-}"
    fi
  fi
  # `lint` asks no model and `merge` reads reports: there is nothing to replay.
  offline="${INPUT_OFFLINE:-auto}"
  case "$command" in lint | merge) offline=false ;; esac
  if [ "$offline" = auto ]; then
    # Any provider's credential: ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY, GROQ_API_KEY…,
    # ANTHROPIC_AUTH_TOKEN, or AWS_ACCESS_KEY_ID (Bedrock), set and not empty.
    credential=""
    while read -r var; do
      if [ -n "${!var:-}" ]; then credential="$var"; break; fi
    done < <(compgen -e | grep -E '^[A-Z0-9_]+_API_KEY$|^ANTHROPIC_AUTH_TOKEN$|^AWS_ACCESS_KEY_ID$' || true)
    if [ -n "$credential" ]; then
      offline=false
    else
      offline=true
      echo "no model API key in the environment: replaying the committed eval cache (--offline)"
    fi
  fi
  [ "$offline" != true ] || args+=(--offline)
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
# The code the step fails with: a shard's failed gate is not its verdict, the merge's is.
if [ "$sharded" = true ] && [ "$code" = 1 ]; then
  echo "fail-code=0" >>"$GITHUB_OUTPUT"
else
  echo "fail-code=$code" >>"$GITHUB_OUTPUT"
fi
if [ "$sharded" = false ] && [ -n "${INPUT_HISTORY:-}" ] && [ -f "$INPUT_HISTORY" ]; then
  cp "$INPUT_HISTORY" "$reports/"
fi
exit 0
