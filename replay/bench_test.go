package replay_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/loopbreaker/loopbreaker/agent/all"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/replay"
	"github.com/loopbreaker/loopbreaker/transcript"
)

// session1000 is a Claude Code stream-json log of 1,000 tool calls in the
// shape of the real fixture: a failing test run, then an edit, in turn.
func session1000(b *testing.B) []byte {
	b.Helper()
	var out []byte
	line := func(v any) {
		j, err := json.Marshal(v)
		if err != nil {
			b.Fatal(err)
		}
		out = append(append(out, j...), '\n')
	}
	line(map[string]any{"type": "system", "subtype": "init", "session_id": "bench"})
	for i := 0; i < 1000; i++ {
		id := fmt.Sprintf("toolu_%04d", i)
		var use map[string]any
		var result map[string]any
		if i%2 == 0 {
			use = map[string]any{"type": "tool_use", "id": id, "name": "Bash", "input": map[string]any{"command": "go test ./...", "description": "Run the tests"}}
			result = map[string]any{"type": "tool_result", "tool_use_id": id, "is_error": true,
				"content": fmt.Sprintf("Exit code 1\n--- FAIL: TestAdd (0.00s)\n    calc_test.go:7: Add(2, 3) = %d, want 5\nFAIL\nFAIL\texample.com/calc\t0.003s\nFAIL", i%7)}
		} else {
			use = map[string]any{"type": "tool_use", "id": id, "name": "Edit", "input": map[string]any{"file_path": "/repo/calc.go", "old_string": fmt.Sprintf("// attempt %d", i), "new_string": fmt.Sprintf("// attempt %d", i+1)}}
			result = map[string]any{"type": "tool_result", "tool_use_id": id, "content": "The file /repo/calc.go has been updated successfully."}
		}
		line(map[string]any{"type": "assistant", "session_id": "bench", "message": map[string]any{"role": "assistant", "content": []any{use}}})
		line(map[string]any{"type": "user", "session_id": "bench", "message": map[string]any{"role": "user", "content": []any{result}}})
	}
	line(map[string]any{"type": "result", "session_id": "bench", "result": "done"})
	return out
}

// BenchmarkReplay1000Steps reads, prepares and replays a 1,000-step
// session under a configuration that never halts it (so every step is
// applied): the figure is under 100 ms per op.
func BenchmarkReplay1000Steps(b *testing.B) {
	data := session1000(b)
	cfg := lb.Defaults()
	cfg.TestAttempts.PerTest, cfg.TestAttempts.PerSlice = 1<<30, 1<<30
	cfg.ToolCalls.Cycle, cfg.ToolCalls.Repeat, cfg.ToolCalls.SameError = 1<<20, 1<<20, 1<<20
	cfg.ToolCalls.History = 1 << 21
	b.ReportAllocs()
	for b.Loop() {
		s, err := transcript.Parse("bench.jsonl", data, all.Transcripts())
		if err != nil {
			b.Fatal(err)
		}
		r := replay.Run(s, cfg)
		if r.Steps != 1000 || r.Halt != nil {
			b.Fatalf("replayed %d steps, halt %+v; want 1000 steps and no halt", r.Steps, r.Halt)
		}
	}
}

// BenchmarkCalibration replays the calibration set with the default
// configuration and reports the figures: the labelled sessions of
// the real agent CLIs in transcript/testdata and, when
// LOOPBREAKER_CALIBRATION_DIR names it, the set of public runs that
// scripts/calibration-fetch builds (they are not kept in the repository:
// docs/replay.md says how to build it). Only sessions named in a
// directory's labels.txt count.
func BenchmarkCalibration(b *testing.B) {
	dirs := []string{filepath.Join("..", "transcript", "testdata")}
	if dir := os.Getenv("LOOPBREAKER_CALIBRATION_DIR"); dir != "" {
		dirs = append(dirs, dir)
	} else {
		b.Log("LOOPBREAKER_CALIBRATION_DIR is not set: the CLI sessions of transcript/testdata only (scripts/calibration-fetch builds the public runs)")
	}
	labels := replay.Labels{}
	var prepared []*replay.Prepared
	for _, d := range dirs {
		f, err := os.Open(filepath.Join(d, "labels.txt"))
		if err != nil {
			b.Fatalf("calibration set: %v (run scripts/calibration-fetch)", err)
		}
		ls, err := replay.ParseLabels(f)
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
		paths, _ := filepath.Glob(filepath.Join(d, "*"))
		for _, p := range paths {
			if filepath.Base(p) == "labels.txt" {
				continue
			}
			s, err := transcript.Read(p, all.Transcripts())
			if err != nil {
				b.Fatal(err)
			}
			pr := replay.Prepare(s)
			if _, ok := ls.Find(pr.Run(lb.Config{})); !ok {
				continue
			}
			prepared = append(prepared, pr)
		}
		for k, v := range ls {
			labels[k] = v
		}
	}
	cfg := lb.Defaults()
	var fig replay.Figures
	for b.Loop() {
		results := make([]replay.Result, 0, len(prepared))
		for _, p := range prepared {
			results = append(results, p.Run(cfg))
		}
		fig = replay.Tally("default", results, labels)
	}
	b.ReportMetric(float64(fig.Sessions), "sessions")
	b.ReportMetric(replay.Share(fig.SucceededHaltedEarly, fig.Succeeded), "%succeeded-halted-early")
	b.ReportMetric(replay.Share(fig.FailedCut, fig.FailedSteps), "%failed-steps-cut")
	b.ReportMetric(replay.Share(fig.ExhaustedCut, fig.ExhaustedSteps), "%exhausted-steps-cut")
	b.ReportMetric(float64(fig.Streaks), "streaks5")
	b.ReportMetric(float64(fig.StreaksCaught), "streaks5-halted-by-5th")
}
