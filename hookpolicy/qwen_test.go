package hookpolicy

import (
	"fmt"
	"strings"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
)

// Qwen Code gives the answer to a failed call to the model only, and a
// refused prompt ends `qwen -p` with nothing shown. When a failed build
// halts the run, the next model request's UserPromptSubmit goes on (the
// model told), so that the next call is refused with the halt message,
// which Qwen prints; the prompt after that is refused. A new run gets the
// same: its prompt goes on, its first call is refused with the message.
func TestQwenFailedBuildHaltReachesThePerson(t *testing.T) {
	h := newHarness(t, "qwen")
	cont := payload(t, "qwen", "UserPromptSubmit-continuation.json", nil)
	var out string
	for i := 1; h.state().State != lb.Open; i++ {
		if i > 5 {
			t.Fatalf("the same failing build 5 times: breaker %s", h.state().State)
		}
		id := map[string]any{"tool_use_id": fmt.Sprintf("toolu_%d", i)}
		if out = h.answer(payload(t, "qwen", "PreToolUse-run_shell_command.json", id)); strings.Contains(out, "deny") {
			t.Fatalf("build %d refused before the halt: %s", i, out)
		}
		out = h.answer(payload(t, "qwen", "PostToolUseFailure-run_shell_command-gotest-fail.json", id))
		if h.state().State != lb.Open {
			if p := h.answer(cont); strings.Contains(p, "block") {
				t.Fatalf("the request after build %d refused: %s", i, p)
			}
		}
	}
	if !strings.Contains(out, "circuit breaker OPEN") {
		t.Fatalf("the halting failure did not tell the model: %s", out)
	}
	if p := h.answer(cont); strings.Contains(p, `"block"`) || !strings.Contains(p, "circuit breaker OPEN") {
		t.Errorf("the request after the halt: %s; want it to go on with the halt message for the model", p)
	}
	pre := payload(t, "qwen", "PreToolUse-run_shell_command.json", map[string]any{"tool_use_id": "toolu_after"})
	if p := h.answer(pre); !strings.Contains(p, `"permissionDecision":"deny"`) || !strings.Contains(p, "circuit breaker OPEN") || !strings.Contains(p, "Report: loopbreaker report") {
		t.Errorf("the call after the halt: %s; want it refused with the whole halt message", p)
	}
	if p := h.answer(cont); !strings.Contains(p, `"decision":"block"`) {
		t.Errorf("the request after the refused call: %s; want it refused", p)
	}
	// A new run: a new agent session.
	next := map[string]any{"session_id": "b0b0b0b0-89c1-46d3-988c-5ecff95afde6"}
	if p := h.answer(payload(t, "qwen", "UserPromptSubmit-prompt.json", next)); strings.Contains(p, `"block"`) || !strings.Contains(p, "circuit breaker OPEN") {
		t.Errorf("a new run's prompt: %s; want it to go on with the halt message for the model", p)
	}
	next["tool_use_id"] = "toolu_next"
	if p := h.answer(payload(t, "qwen", "PreToolUse-run_shell_command.json", next)); !strings.Contains(p, `"permissionDecision":"deny"`) || !strings.Contains(p, "Report: loopbreaker report") {
		t.Errorf("a new run's first call: %s; want it refused with the whole halt message", p)
	}
}
