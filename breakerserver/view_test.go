package breakerserver

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/scoped"
)

// A view costs what it shows: a breaker with 1000 failures in its window
// is described with its count and its 10 newest failures, without copying
// the other 990 (every outcome's answer holds such views).
func TestViewCostsWhatItShows(t *testing.T) {
	p, err := scoped.NewPolicy(testConfig(), nil, newClock().Now)
	if err != nil {
		t.Fatal(err)
	}
	rule := p.Rule("agent:bob")
	st := lb.NewBreakerState("agent:bob")
	for i := range 1000 {
		st.Failures = append(st.Failures, lb.Failure{Time: t0.Add(time.Duration(i-1000) * time.Second), DecisionID: fmt.Sprintf("d-%04d", i)})
	}
	now := t0
	b := view(p, rule, st, now, false)
	if b.Failures != 1000 || len(b.RecentFailures) != 10 || b.RecentFailures[9].DecisionID != "d-0999" || b.RecentFailures[0].DecisionID != "d-0990" {
		t.Fatalf("view: %d failures, recent %v; want 1000 and d-0990..d-0999", b.Failures, b.RecentFailures)
	}
	// Half of them out of a 500 s window: counted out, the newest shown.
	rule.Config.Window = 500 * time.Second
	if b := view(p, rule, st, now, false); b.Failures != 499 || b.RecentFailures[9].DecisionID != "d-0999" {
		t.Fatalf("500 s window: %d failures, want 499", b.Failures)
	}
	rule.Config.Window = time.Hour
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	const runs = 100
	for range runs {
		_ = view(p, rule, st, now, false)
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / runs; per > 8<<10 {
		t.Fatalf("one view of a breaker with 1000 failures allocates %d bytes, want at most 8 KiB (it shows 10)", per)
	}
}
