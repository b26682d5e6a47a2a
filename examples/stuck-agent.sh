#!/usr/bin/env bash
# A stand-in for a coding agent that is stuck: every run it "fixes" the same
# file the same way (no real change) and the same test fails with the same
# error; only the timestamp, the temp path and the address change.
# scripts/demo runs it under `loopbreaker run`, so that a machine with no
# agent installed sees a real trip.
set -u
mkdir -p src
printf 'package calc\n\nfunc Add(a, b int) int { return a - b }\n' > src/calc.go
echo "agent: I think the bug is in the import order; reordering imports in src/calc.go"
# What loopbreaker told this iteration; a real agent reads it in its prompt.
if [ -n "${LOOPBREAKER_WARNING:-}" ]; then
  echo "agent: loopbreaker warned me: $LOOPBREAKER_WARNING"
fi
if [ -s "${LOOPBREAKER_GUIDANCE_FILE:-/nonexistent}" ]; then
  sed 's/^/agent: guidance | /' "$LOOPBREAKER_GUIDANCE_FILE"
fi
echo "agent: running tests"
tmp=$(mktemp -d)
ts=$(date -u +%Y-%m-%dT%H:%M:%S.%NZ)
cat >&2 <<ERR
--- FAIL: TestAdd (0.00s)
    calc_test.go:9: $ts Add(2, 3) = -1, want 5 (work dir $tmp, obj at 0xc000$RANDOM)
FAIL
ERR
rmdir "$tmp"
exit 1
