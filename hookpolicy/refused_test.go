package hookpolicy

import (
	"strings"
	"testing"
)

// A turn that ended on the model API's refusal, its last message being the
// CLI's error line (what Claude Code shows for a 429, a 529, a bad key or
// a lost connection), is not a turn without progress: three of them in a
// row do not open the breaker.
func TestRefusedTurnsAreNotStagnation(t *testing.T) {
	h := newHarness(t, "claude")
	h.files = []string{}
	for _, msg := range []string{
		"API Error: Request rejected (429) · Number of request tokens has exceeded your per-minute rate limit",
		"API Error: 529 Overloaded. This is a server-side issue, usually temporary — try again in a moment.",
		"API Error: Connection refused — a firewall or proxy may be blocking it (ECONNREFUSED)",
		"Invalid API key · Fix external API key",
	} {
		h.answer(payload(t, "claude", "UserPromptSubmit-prompt.json", nil))
		h.answer(payload(t, "claude", "Stop-first.json", map[string]any{"last_assistant_message": msg}))
	}
	if st := h.state(); st.Iterations != 0 || st.Counters.NoProgress != 0 {
		t.Fatalf("refused turns recorded: iterations %d, no_progress %d", st.Iterations, st.Counters.NoProgress)
	}
	if !strings.Contains(h.log.String(), "turn end not recorded as an iteration: claude hit a usage or rate limit") {
		t.Errorf("log does not say why:\n%s", h.log.String())
	}
	// A turn whose prose mentions a rate limit is an ordinary turn.
	h.answer(payload(t, "claude", "Stop-first.json", map[string]any{"last_assistant_message": "The limiter now answers 429 once the rate limit is reached."}))
	if st := h.state(); st.Iterations != 1 || st.Counters.NoProgress != 1 {
		t.Fatalf("ordinary turn: iterations %d, no_progress %d, want 1 and 1", st.Iterations, st.Counters.NoProgress)
	}
}
