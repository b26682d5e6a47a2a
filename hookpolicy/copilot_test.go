package hookpolicy

import (
	"strings"
	"testing"
)

// Copilot CLI shows the person nothing of a postToolUse answer: the halt
// message goes to the model with the result of the call that opened the
// breaker, and again with the first refusal, which the person sees under
// the refused call; later refusals say one line.
func TestCopilotHaltReachesThePerson(t *testing.T) {
	h := newHarness(t, "copilot")
	pre := payload(t, "copilot", "preToolUse-bash-cat.json", nil)
	post := payload(t, "copilot", "postToolUse-bash-cat.json", nil)
	var last string
	for i := 0; i < 5; i++ {
		h.answer(pre)
		last = h.answer(post)
	}
	if !strings.Contains(last, `"additionalContext":"loopbreaker: circuit breaker OPEN`) {
		t.Fatalf("the 5th result: %s", last)
	}
	first := h.answer(pre)
	if !strings.Contains(first, `"permissionDecision":"deny"`) || !strings.Contains(first, "circuit breaker OPEN") || !strings.Contains(first, "Report: loopbreaker report") {
		t.Errorf("the first refusal does not carry the halt message: %s", first)
	}
	if again := h.answer(pre); !strings.Contains(again, "is still OPEN") {
		t.Errorf("the second refusal: %s", again)
	}
}

// A failed edit fires no postToolUse: the edit announced again is its
// failed repeat, and the third failure opens the breaker, refusing the
// fourth announcement.
func TestCopilotRepeatedFailedEditTrips(t *testing.T) {
	h := newHarness(t, "copilot")
	pre := payload(t, "copilot", "preToolUse-edit-not-found-no-postToolUse.json", nil)
	var answers []string
	for i := 0; i < 4; i++ {
		answers = append(answers, h.answer(pre))
	}
	for i, a := range answers[:3] {
		if strings.Contains(a, "deny") {
			t.Errorf("announcement %d refused: %s", i+1, a)
		}
	}
	if !strings.Contains(answers[3], `"permissionDecision":"deny"`) || !strings.Contains(answers[3], "circuit breaker OPEN") {
		t.Errorf("the 4th announcement: %s", answers[3])
	}
	if n := failedCalls(h.state()); n != 3 {
		t.Errorf("%d failed calls recorded, want 3", n)
	}
	// A repeated shell call is not taken for failed: a shell always
	// reports, and two identical commands of one batch are two calls.
	h = newHarness(t, "copilot")
	sh := payload(t, "copilot", "preToolUse-bash-cat.json", nil)
	h.answer(sh)
	h.answer(sh)
	if n := failedCalls(h.state()); n != 0 {
		t.Errorf("a repeated pending shell call counted as %d failures", n)
	}
}
