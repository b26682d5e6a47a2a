package breaker

import (
	"encoding/json"
	"fmt"
	"reflect"
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
	if !slices.Equal(kept, want) {
		t.Fatalf("the trim changed a copy: %v, want %v", kept, want)
	}
	if want := []int{5, 6, 7, 100}; !slices.Equal(xs, want) {
		t.Fatalf("after the trim the list is %v, want %v", xs, want)
	}
}

// The attempt log's trim: into a new array when copies may share it,
// which a clipped copy taken before then reads the same after; in place
// when the log is owned.
func TestNextAttemptTrims(t *testing.T) {
	iterations := func(xs []lb.Attempt) []int {
		var out []int
		for _, a := range xs {
			out = append(out, a.Iteration)
		}
		return out
	}
	for _, owned := range []bool{false, true} {
		var xs []lb.Attempt
		for i := range 2 * maxAttempts {
			xs = append(xs, lb.Attempt{Iteration: i, Summary: "old", Progress: true})
		}
		kept := slices.Clip(xs)
		want := iterations(kept)
		nextAttempt(&xs, owned).Iteration = 100
		if got := iterations(kept); !owned && !slices.Equal(got, want) {
			t.Fatalf("the trim changed a copy: %v, want %v", got, want)
		}
		got := iterations(xs)
		if n := len(got); n != maxAttempts || got[0] != maxAttempts+1 || got[n-2] != 2*maxAttempts-1 || got[n-1] != 100 {
			t.Fatalf("owned=%v: after the trim the log is %v", owned, got)
		}
		if owned && &xs[0] != &kept[0] {
			t.Fatalf("an owned log was trimmed into a new array")
		}
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

// An iteration's attempt has every field written: in an owned log its
// slot is not cleared (nextAttempt), and may hold an attempt dropped
// before, whose fields would otherwise show through. The slot is filled
// with something in every field, the type's fields added later included.
func TestRecordFillsEveryAttemptField(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	// An iteration that progressed, and one with everything that can go
	// wrong (its attempt's errors, failing tests and exit code are
	// written apart, by attemptTrouble).
	iterations := map[string]func() *lb.Iteration{
		"progress": func() *lb.Iteration { return &lb.Iteration{FilesChanged: new(1)} },
		"trouble": func() *lb.Iteration {
			return &lb.Iteration{Errors: []lb.ErrorText{{Raw: "boom at line 3"}}, ExitCode: new(2),
				Tests: []lb.TestResult{{Name: "TestA", Message: "failed"}}}
		},
	}
	for name, iteration := range iterations {
		record := func(stale bool) lb.Attempt {
			s := lb.NewBreakerState("fill")
			s.Attempts = make([]lb.Attempt, 0, 1)
			if stale {
				setEveryField(t, reflect.ValueOf(&s.Attempts[:1][0]).Elem())
			}
			e := &Engine{Config: lb.Defaults(), ownsStates: true}
			ev := lb.Event{Kind: lb.EventIteration, Time: t0, Caller: "loop", Iteration: iteration()}
			if _, err := e.Apply(s, &ev); err != nil {
				t.Fatal(err)
			}
			return s.Attempts[0]
		}
		if got, want := record(true), record(false); !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: the attempt keeps what its slot held:\n got %+v\nwant %+v", name, got, want)
		}
	}
}

// spareAttempt hands out a slot exactly when nextAttempt would neither
// trim nor append, and then the slot nextAttempt would.
func TestSpareAttemptIsNextAttempt(t *testing.T) {
	for _, owned := range []bool{false, true} {
		for _, c := range []struct{ n, cap int }{{0, 0}, {0, 1}, {3, 3}, {3, 8}, {2*maxAttempts - 1, 2 * maxAttempts},
			{2 * maxAttempts, 2 * maxAttempts}, {2 * maxAttempts, 3 * maxAttempts}, {2*maxAttempts + 1, 3 * maxAttempts}} {
			make2 := func() []lb.Attempt {
				xs := make([]lb.Attempt, c.n, c.cap)
				for i := range xs {
					xs[i].Iteration = i
				}
				return xs
			}
			spare, next := make2(), make2()
			got := spareAttempt(&spare)
			want := nextAttempt(&next, owned)
			room := c.n < c.cap && c.n < 2*maxAttempts
			if (got != nil) != room {
				t.Fatalf("owned=%v, %d of %d: spareAttempt gave %v, want a slot: %v", owned, c.n, c.cap, got, room)
			}
			if got == nil {
				continue
			}
			if len(spare) != len(next) || got != &spare[len(spare)-1] || want != &next[len(next)-1] {
				t.Fatalf("owned=%v, %d of %d: spareAttempt's log has %d, nextAttempt's %d", owned, c.n, c.cap, len(spare), len(next))
			}
			for i := range len(spare) - 1 {
				if spare[i].Iteration != next[i].Iteration {
					t.Fatalf("owned=%v, %d of %d: the logs differ at %d", owned, c.n, c.cap, i)
				}
			}
		}
	}
}

// setEveryField sets v, and every exported field under it, to something
// other than its zero value.
func setEveryField(t *testing.T, v reflect.Value) {
	switch {
	case v.Type() == reflect.TypeFor[time.Time]():
		v.Set(reflect.ValueOf(time.Unix(1e9, 0)))
	case v.Kind() == reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				setEveryField(t, v.Field(i))
			}
		}
	case v.Kind() == reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		setEveryField(t, v.Elem())
	case v.Kind() == reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		setEveryField(t, v.Index(0))
	case v.Kind() == reflect.String:
		v.SetString("stale")
	case v.Kind() == reflect.Bool:
		v.SetBool(true)
	case v.CanInt():
		v.SetInt(7)
	case v.CanUint():
		v.SetUint(7)
	case v.CanFloat():
		v.SetFloat(7)
	default:
		t.Fatalf("setEveryField: teach it %s", v.Type())
	}
}
