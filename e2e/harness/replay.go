package harness

import (
	"encoding/json"
	"testing"
)

// ReplayResult is what `loopbreaker replay --json` says of one session:
// its format, its steps, and where the breaker would have warned and
// halted (nil: nowhere).
type ReplayResult struct {
	Format string `json:"format"`
	Steps  int    `json:"steps"`
	Warn   *Mark  `json:"warn"`
	Halt   *Mark  `json:"halt"`
}

// Mark is a step of a replay and the detector that acted there.
type Mark struct {
	Step     int    `json:"step"`
	Detector string `json:"detector"`
}

// OneReplay decodes the output of `loopbreaker replay --json FILE` for one
// session, failing the test when it is anything else.
func OneReplay(t testing.TB, r Result) ReplayResult {
	t.Helper()
	var out struct {
		Settings []struct {
			Results []ReplayResult `json:"results"`
		} `json:"settings"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &out); err != nil || len(out.Settings) != 1 || len(out.Settings[0].Results) != 1 {
		t.Fatalf("replay --json: %v\n%s%s", err, r.Stdout, r.Stderr)
	}
	return out.Settings[0].Results[0]
}
