#!/usr/bin/env bash
# A stand-in for a coding agent that is stuck: every run it "fixes" the same
# file the same way and the same test fails with the same error (only the
# timestamp, the temp path and the address change). Used by scripts/demo
# so that a fresh machine with no agent installed sees a real trip.
set -u
mkdir -p src
# The agent rewrites the file with identical content: no real change.
printf 'package calc\n\nfunc Add(a, b int) int { return a - b }\n' > src/calc.go
echo "agent: I think the bug is in the import order; reordering imports in src/calc.go"
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
