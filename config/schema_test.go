package config

import "testing"

// TestEnvName: the variable of a key is the key in capitals, dots and
// dashes as underscores, behind LOOPBREAKER_.
func TestEnvName(t *testing.T) {
	for key, want := range map[string]string{
		"enabled":                 "LOOPBREAKER_ENABLED",
		"no_progress.threshold":   "LOOPBREAKER_NO_PROGRESS_THRESHOLD",
		"tool_calls.repeat_warn":  "LOOPBREAKER_TOOL_CALLS_REPEAT_WARN",
		"phases.GREEN.same_error": "LOOPBREAKER_PHASES_GREEN_SAME_ERROR",
		"a-b.c-d":                 "LOOPBREAKER_A_B_C_D",
	} {
		if got := envName(key); got != want {
			t.Errorf("envName(%q) = %q, want %q", key, got, want)
		}
	}
}
