package breaker

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
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
	apply := func(s *lb.BreakerState, ev lb.Event) {
		t.Helper()
		r.clock.Advance(time.Minute)
		if _, err := r.e.Apply(s, &ev); err != nil {
			t.Fatal(err)
		}
	}
	// Every third attempt is made of tool calls (an edit, then a test
	// run, as the hooks report them), the others are iterations: the two
	// ways an attempt enters the history.
	record := func(s *lb.BreakerState, who string, from, n int) {
		t.Helper()
		for i := from; i < from+n; i++ {
			name := fmt.Sprintf("%s-%d", who, i)
			if i%3 == 2 {
				apply(s, lb.Event{Kind: lb.EventToolCall, Caller: who, ToolCall: &lb.ToolCall{Tool: "Edit", ArgsHash: name, Edit: true, Files: []string{name + ".go"}}})
				passing, failing := i, 0
				apply(s, lb.Event{Kind: lb.EventToolCall, Caller: who, ToolCall: &lb.ToolCall{Tool: "Bash", ArgsHash: "go test " + name, ResultHash: name, TestsPassing: &passing, TestsFailing: &failing}})
				continue
			}
			apply(s, lb.Event{Kind: lb.EventIteration, Caller: who, Iteration: &lb.Iteration{Summary: name, Files: []string{name + ".go"}}})
		}
	}
	encode := func(s *lb.BreakerState) string {
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	// names are the attempts' files, named after the record that made
	// them.
	names := func(s *lb.BreakerState) []string {
		var out []string
		for _, a := range s.Attempts {
			out = append(out, strings.TrimSuffix(strings.Join(a.Files, ","), ".go"))
		}
		return out
	}

	record(r.s, "base", 0, 2*maxAttempts-2) // two short of the trim
	kept := r.s.Clone()
	want := encode(kept)
	other := r.s.Clone()
	// One record on each, side by side: each lands past the other's end.
	record(r.s, "main", 0, 1)
	record(other, "other", 0, 1)
	if got := names(r.s); got[len(got)-1] != "main-0" {
		t.Fatalf("the state's newest attempt is %q, want main-0 (overwritten by its copy's record?)", got[len(got)-1])
	}
	record(r.s, "main", 1, 3*maxAttempts) // through the trim, three times
	record(other, "other", 1, 2)          // through the trim
	if got := encode(kept); got != want {
		t.Fatalf("a kept copy changed when the state recorded on:\nbefore %s\nafter  %s", want, got)
	}
	for _, n := range names(r.s) {
		if strings.HasPrefix(n, "other") {
			t.Fatalf("the state holds the attempt %q its copy recorded", n)
		}
	}
	got := names(other)
	if n := len(got); n != maxAttempts || got[n-4] != fmt.Sprintf("base-%d", 2*maxAttempts-3) || got[n-1] != "other-2" {
		t.Fatalf("the copy's history is %v", got)
	}
	if slices.ContainsFunc(got, func(s string) bool { return strings.HasPrefix(s, "main") }) {
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
	*nextBounded(&xs, max, false) = 101
	if !slices.Equal(kept, want) {
		t.Fatalf("the trim changed a copy: %v, want %v", kept, want)
	}
	if want := []int{5, 6, 7, 100, 101}; !slices.Equal(xs, want) {
		t.Fatalf("after the trim the list is %v, want %v", xs, want)
	}
}

// A Breaker's state is its own: its attempt history is trimmed in place,
// and the copy State returns reads the same after the breaker records on
// past the trim; the breaker keeps the newest attempts.
func TestBreakerStateCopyStaysAsTaken(t *testing.T) {
	br := NewBreaker("copy", lb.Defaults())
	record := func(from, to int) {
		for i := from; i < to; i++ {
			if _, err := br.Record(&lb.Iteration{Summary: fmt.Sprintf("it-%d", i), FilesChanged: new(1)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	summaries := func(s lb.BreakerState) []string {
		var out []string
		for _, a := range s.Attempts {
			out = append(out, a.Summary)
		}
		return out
	}
	record(0, 2*maxAttempts)
	taken, err := br.State()
	if err != nil {
		t.Fatal(err)
	}
	want := summaries(taken)
	record(2*maxAttempts, 3*maxAttempts+2)
	if got := summaries(taken); !slices.Equal(got, want) {
		t.Fatalf("the copy changed as the breaker recorded on:\n%v\nwant\n%v", got, want)
	}
	now, _ := br.State()
	got := summaries(now)
	if len(got) < maxAttempts || len(got) > 2*maxAttempts || got[len(got)-1] != fmt.Sprintf("it-%d", 3*maxAttempts+1) ||
		got[0] != fmt.Sprintf("it-%d", 3*maxAttempts+2-len(got)) {
		t.Fatalf("after the trims the breaker keeps %v", got)
	}
}
