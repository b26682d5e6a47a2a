package harness

import (
	"encoding/json"
	"fmt"
)

// Replayed is one session of `loopbreaker replay --json` under the one
// setting replayed: its format, how many steps it has, and where the
// breaker would have warned and halted (nil when it would not).
type Replayed struct {
	Format string `json:"format"`
	Steps  int    `json:"steps"`
	Warn   *struct {
		Step     int    `json:"step"`
		Detector string `json:"detector"`
	} `json:"warn"`
	// Halt is where it would have halted (nil: nowhere).
	Halt *struct {
		Step int `json:"step"`
	} `json:"halt"`
}

// ParseReplay reads the output of `loopbreaker replay --json FILE`: the
// one session replayed under the one setting.
func ParseReplay(stdout string) (Replayed, error) {
	var out struct {
		Settings []struct {
			Results []Replayed `json:"results"`
		} `json:"settings"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		return Replayed{}, err
	}
	if len(out.Settings) != 1 || len(out.Settings[0].Results) != 1 {
		return Replayed{}, fmt.Errorf("want one session under one setting, got %d settings", len(out.Settings))
	}
	return out.Settings[0].Results[0], nil
}
