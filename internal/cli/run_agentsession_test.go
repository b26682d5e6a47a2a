package cli

import (
	"strings"
	"testing"
)

// `resume ID` goes after `codex exec`'s options (resume does not take them
// all) and before the prompt, wherever the prompt is; a command that
// manages its session itself is left as given.
func TestPinnedSessionArguments(t *testing.T) {
	as, ok := agentSessionFor([]string{"/opt/bin/claude", "-p", "go"})
	if !ok {
		t.Fatal("no session knowledge for claude")
	}
	if got, ok := as.Continue([]string{"/opt/bin/claude", "-p", "go"}, "ID"); !ok || strings.Join(got, " ") != "/opt/bin/claude --resume ID -p go" {
		t.Errorf("continue: %q, %v", got, ok)
	}
	for _, own := range []string{"--resume=x", "-c", "--session-id", "--no-session-persistence"} {
		if _, ok := as.Begin([]string{"claude", own, "-p", "go"}, "ID"); ok {
			t.Errorf("begin rewrote a command with %s", own)
		}
	}
	if _, ok := agentSessionFor([]string{"pi", "-p", "go"}); ok {
		t.Error("pi has session knowledge it should not")
	}
}
