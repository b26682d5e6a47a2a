package replay_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/agent/all"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/replay"
	"github.com/loopbreaker/loopbreaker/transcript"
)

// A real looping session halts where a live hook would, and the steps
// after the halt are what it saves; disabled, nothing halts.
func TestRunRealSession(t *testing.T) {
	s, err := transcript.Read("../transcript/testdata/rollout-codex-stuck-cat.jsonl", all.Transcripts())
	if err != nil {
		t.Fatal(err)
	}
	r := replay.Run(s, lb.Defaults())
	if r.Halt == nil || r.Halt.Detector != lb.DetectorToolRepeat || r.Halt.Step != 5 || r.StepsAfterHalt != 5 || r.Streak5 != 5 {
		t.Fatalf("got halt %+v after %d streak %d; want tool_repeat at step 5 of 10", r.Halt, r.StepsAfterHalt, r.Streak5)
	}
	if r.Warn == nil || r.Warn.Step != 3 {
		t.Fatalf("warn %+v, want at step 3 (repeat_warn)", r.Warn)
	}
	off := lb.Defaults()
	off.Enabled = false
	if r := replay.Run(s, off); r.Halt != nil || r.Warn != nil {
		t.Fatalf("disabled breaker halted: %+v", r)
	}
}

func TestSweepProduct(t *testing.T) {
	got, err := replay.Sweep([]string{"a=1,2", "b=x,y,z"})
	if err != nil || len(got) != 6 || strings.Join(got[0], " ") != "a=1 b=x" || strings.Join(got[5], " ") != "a=2 b=z" {
		t.Fatalf("got %v, %v", got, err)
	}
	for _, bad := range [][]string{{"a"}, {"=1"}, {"a=1,,2"}, {"a=1", "a=2"}} {
		if _, err := replay.Sweep(bad); err == nil {
			t.Errorf("Sweep(%q) accepted", bad)
		}
	}
}

func TestLabelsAndTally(t *testing.T) {
	ls, err := replay.ParseLabels(strings.NewReader("# c\nok succeeded 9\nbad failed\nlong exhausted\n"))
	if err != nil {
		t.Fatal(err)
	}
	results := []replay.Result{
		{Session: "ok", Steps: 10, LastEdit: 2, Halt: &replay.Mark{Step: 5}, StepsAfterHalt: 5},              // halted before its labelled last edit (9)
		{Session: "bad", Steps: 10, Halt: &replay.Mark{Step: 8}, StepsAfterHalt: 2},                          // 2 of 10 cut
		{Path: "dir/long.traj.json", Steps: 20, Halt: &replay.Mark{Step: 5}, StepsAfterHalt: 15, Streak5: 5}, // by base name
		{Session: "unlabelled", Steps: 7},
	}
	f := replay.Tally("x", results, ls)
	if f.Sessions != 4 || f.Halted != 3 || f.Succeeded != 1 || f.SucceededHaltedEarly != 1 ||
		f.Failed != 2 || f.FailedSteps != 30 || f.FailedCut != 17 || f.Exhausted != 1 || f.ExhaustedCut != 15 ||
		f.Streaks != 1 || f.StreaksCaught != 1 {
		t.Fatalf("figures %+v", f)
	}
	for _, bad := range []string{"x maybe", "x succeeded -1", "x", "x y z w"} {
		if _, err := replay.ParseLabels(strings.NewReader(bad)); err == nil {
			t.Errorf("ParseLabels(%q) accepted", bad)
		}
	}
}

// The same edit made five times in a row is a streak of 5, and halted by
// the 5th, though each answers with a file one line longer (SWE-agent's
// line-range edit inserting the same lines again, as GPT-4o-mini did on
// SWE-bench-java).
func TestTheSameEditFiveTimes(t *testing.T) {
	type step struct {
		Action      string `json:"action"`
		Observation string `json:"observation"`
	}
	traj := struct {
		Trajectory []step `json:"trajectory"`
		Info       struct {
			ExitStatus string `json:"exit_status"`
		} `json:"info"`
	}{}
	traj.Info.ExitStatus = "submitted (exit_cost)"
	traj.Trajectory = append(traj.Trajectory, step{"open test_foo.py", "[File: /repo/test_foo.py (17 lines total)]"})
	for i := 0; i < 7; i++ {
		traj.Trajectory = append(traj.Trajectory, step{
			"edit 4:4\n    def __init__(self, raw):\n        self.query = None\nend_of_edit\n",
			fmt.Sprintf("[File: /repo/test_foo.py (%d lines total)]\n1:import json", 18+i),
		})
	}
	data, err := json.Marshal(traj)
	if err != nil {
		t.Fatal(err)
	}
	s, err := transcript.Parse("same-edit.traj", data, all.Transcripts())
	if err != nil {
		t.Fatal(err)
	}
	r := replay.Run(s, lb.Defaults())
	if r.Streak5 != 6 || r.Halt == nil || r.Halt.Detector != lb.DetectorToolRepeat || r.Halt.Step != 6 {
		t.Fatalf("streak at %d, halt %+v; want both at step 6 (the 5th identical edit), by tool_repeat", r.Streak5, r.Halt)
	}
}
