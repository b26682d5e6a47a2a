#!/usr/bin/env bash
# A stand-in for an agent that makes real progress: each run implements one
# more step (a real change) and one more of four tests passes. When all pass
# it signals completion with <promise>COMPLETE</promise>.
set -u
mkdir -p src
touch src/steps.txt
echo "step $(($(wc -l <src/steps.txt) + 1))" >>src/steps.txt
done=$(wc -l <src/steps.txt)
echo "agent: implemented step $done of 4"
for i in 1 2 3 4; do
  echo "=== RUN   TestStep$i"
  if [ "$i" -le "$done" ]; then
    echo "--- PASS: TestStep$i (0.00s)"
  else
    echo "    steps_test.go:$((10 * i)): step $i is not implemented yet"
    echo "--- FAIL: TestStep$i (0.00s)"
  fi
done
if [ "$done" -ge 4 ]; then
  printf 'PASS\nok  \texample.com/steps\t0.011s\n'
  echo "agent: all steps done"
  echo "<promise>COMPLETE</promise>"
else
  printf 'FAIL\nFAIL\texample.com/steps\t0.012s\n'
fi
exit 0
