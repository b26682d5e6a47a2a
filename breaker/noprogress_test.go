package breaker

import (
	"strings"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
)

// The no-progress warning says to re-read the failing output only when an
// iteration failed; after quiet iterations it says what to do instead.
func TestNoProgressAdviceFollowsTheOutput(t *testing.T) {
	for _, failing := range []bool{false, true} {
		b := NewBreaker("s", lb.Defaults())
		var d lb.Decision
		for range 2 {
			if failing {
				b.RecordError("--- FAIL: TestAdd: Add(2, 3) = -1, want 5")
			}
			zero := 0
			var err error
			if d, err = b.Record(&lb.Iteration{FilesChanged: &zero}); err != nil {
				t.Fatal(err)
			}
		}
		if !d.Warning || !strings.Contains(d.Reason, "no progress in 2 consecutive iterations") {
			t.Fatalf("failing %v: %+v, want the no-progress warning", failing, d)
		}
		if got := strings.Contains(d.Reason, "re-read the failing output"); got != failing {
			t.Errorf("failing %v: the warning says to re-read the failing output: %v\n%s", failing, got, d.Reason)
		}
		if !failing && !strings.Contains(d.Reason, "nothing failed, yet nothing changed") {
			t.Errorf("after quiet iterations the warning says no next step:\n%s", d.Reason)
		}
	}
}
