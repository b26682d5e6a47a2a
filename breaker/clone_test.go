package breaker

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
)

// Copies of a state share its attempt history (BreakerState.Clone). A
// copy kept aside must read the same after the state and other copies
// record on, past the trim of the history (2×maxAttempts), and two copies
// recording side by side must not see each other's attempts.
func TestCopiesOfAStateKeepTheirAttempts(t *testing.T) {
	r := newRig(t)
	record := func(s *lb.BreakerState, who string, n int) {
		for i := range n {
			r.clock.Advance(time.Minute)
			it := lb.Iteration{Summary: fmt.Sprintf("%s-%d", who, i), Files: []string{fmt.Sprintf("%s-%d.go", who, i)}}
			if _, err := r.e.Apply(s, &lb.Event{Kind: lb.EventIteration, Caller: who, Iteration: &it}); err != nil {
				t.Fatal(err)
			}
		}
	}
	encode := func(s *lb.BreakerState) string {
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	summaries := func(s *lb.BreakerState) []string {
		var out []string
		for _, a := range s.Attempts {
			out = append(out, a.Summary)
		}
		return out
	}

	record(r.s, "base", 2*maxAttempts-2) // two short of the trim
	kept := r.s.Clone()
	want := encode(kept)
	other := r.s.Clone()
	record(r.s, "main", 3*maxAttempts) // through the trim, twice
	record(other, "other", 3)          // through the trim
	if got := encode(kept); got != want {
		t.Fatalf("a kept copy changed when the state recorded on:\nbefore %s\nafter  %s", want, got)
	}
	for _, s := range summaries(r.s) {
		if len(s) > 5 && s[:5] == "other" {
			t.Fatalf("the state holds the attempt %q its copy recorded", s)
		}
	}
	got := summaries(other)
	if n := len(got); n != maxAttempts || got[n-4] != fmt.Sprintf("base-%d", 2*maxAttempts-3) || got[n-1] != "other-2" {
		t.Fatalf("the copy's history is %v", got)
	}
	if slices.ContainsFunc(got, func(s string) bool { return len(s) > 4 && s[:4] == "main" }) {
		t.Fatalf("the copy holds attempts the state recorded: %v", got)
	}
}

// The trim of a bounded list copies into a new array: a clipped copy of
// the list taken before reads the same after.
func TestBoundedTrimLeavesCopiesAlone(t *testing.T) {
	const max = 4
	var xs []int
	for i := range 2*max - 1 {
		xs = appendBounded(xs, i, max)
	}
	xs = append(xs, 2*max-1) // 2×max: the next append trims
	kept := slices.Clip(xs)
	want := slices.Clone(kept)
	xs = appendBounded(xs, 100, max)
	*nextBounded(&xs, max) = 101
	if !slices.Equal(kept, want) {
		t.Fatalf("the trim changed a copy: %v, want %v", kept, want)
	}
	if want := []int{5, 6, 7, 100, 101}; !slices.Equal(xs, want) {
		t.Fatalf("after the trim the list is %v, want %v", xs, want)
	}
}
