#!/usr/bin/env bash
# A stand-in for an agent stuck on one test while it keeps editing: each run
# rewrites src/calc.go differently (a real change), then `go test -v` style
# output shows TestAdd passing and TestSub failing again, each time with a
# different wrong value. It exits 0, as agent CLIs do.
set -u
n=${LOOPBREAKER_ITERATION:-$RANDOM}
mkdir -p src
printf 'package calc\n\n// attempt %s\nfunc Sub(a, b int) int { return a + b - %s }\n' "$n" "$n" >src/calc.go
echo "agent: attempt $n at Sub in src/calc.go"
if [ -n "${LOOPBREAKER_WARNING:-}" ]; then
  echo "agent: loopbreaker warned me, so I am trying a new formula"
fi
cat <<OUT
=== RUN   TestAdd
--- PASS: TestAdd (0.00s)
=== RUN   TestSub
    calc_test.go:14: Sub(5, 3) = $((8 - n)), want 2
--- FAIL: TestSub (0.00s)
FAIL
FAIL	example.com/calc	0.0${RANDOM:0:1}2s
OUT
exit 0
