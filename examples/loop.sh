#!/usr/bin/env bash
# A Ralph-style agent loop guarded by loopbreaker with two lines:
# `loopbreaker check` before each iteration, `loopbreaker record` after it.
# `loopbreaker run -- AGENT_COMMAND...` does all of this (and more) itself;
# this script shows how to guard a loop you already have.
# Usage: examples/loop.sh AGENT_COMMAND...   (run inside the project)
set -u
lb=${LOOPBREAKER:-loopbreaker}
log=$(mktemp -d)
i=0
# --start once: a new loop (with auto_reset: true an OPEN breaker is reset).
"$lb" check --start || { "$lb" report; exit 2; }
while "$lb" check; do
  i=$((i + 1))
  echo "=== iteration $i"
  "$@" >"$log/out" 2>"$log/err"
  code=$?
  cat "$log/out"
  # Files changed are measured by loopbreaker itself (git snapshot of the
  # previous iteration); the rest is what this iteration produced.
  "$lb" record --exit-code "$code" --output-file "$log/out" --error-file "$log/err" || break
done
echo "=== loop stopped by loopbreaker after $i iterations"
"$lb" report
