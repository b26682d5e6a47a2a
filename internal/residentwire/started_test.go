package residentwire

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// The client's start reaches the answering process whole, and replaces a
// value the CLI's environment carried.
func TestWithStarted(t *testing.T) {
	at := time.Date(2026, 12, 7, 8, 0, 0, 123456000, time.UTC)
	env := WithStarted([]string{"HOME=/h", StartedEnv + "=1", "PATH=/bin"}, at)
	var values []string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, StartedEnv+"="); ok {
			values = append(values, v)
		}
	}
	if len(values) != 1 || !slices.Contains(env, "HOME=/h") || !slices.Contains(env, "PATH=/bin") {
		t.Fatalf("env = %q, want HOME, PATH and one %s", env, StartedEnv)
	}
	got, ok := Started(values[0])
	if !ok || !got.Equal(at) {
		t.Fatalf("Started(%q) = %v, %v; want %v", values[0], got, ok, at)
	}
	for _, bad := range []string{"", "soon", "-5", "0", "1.5"} {
		if _, ok := Started(bad); ok {
			t.Errorf("Started(%q) is taken", bad)
		}
	}
}
