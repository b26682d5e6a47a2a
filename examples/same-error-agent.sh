#!/usr/bin/env bash
# A stand-in for an agent that keeps changing code but hits the same error
# every time: each run adds a different file (a real change, so files alone
# look like progress), then the program it runs crashes the same way; only
# the noise (temp dir, goroutine id, address, pid, time) differs. It exits 0,
# as agent CLIs do when the code they wrote fails.
set -u
n=${LOOPBREAKER_ITERATION:-$RANDOM}
mkdir -p src
printf 'package store\n\n// attempt %s: guard against a nil map\nvar guard%s = true\n' "$n" "$n" >"src/guard_$n.go"
echo "agent: the nil map must be in the cache; adding a guard in src/guard_$n.go"
if [ -n "${LOOPBREAKER_WARNING:-}" ]; then
  echo "agent: loopbreaker warned me, so I am trying yet another file"
fi
echo "agent: running the program"
tmp=$(mktemp -d)
cat <<OUT
panic: assignment to entry in nil map [goroutine $RANDOM at 0xc000${RANDOM}0 in $tmp/store.go:42]

goroutine 1 [running]:
main.main()
exit status 2 (pid $$ at $(date -u +%H:%M:%S))
OUT
rmdir "$tmp"
echo "agent: done for this iteration"
exit 0
