package breaker

import (
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/sony/gobreaker/v2"
)

// The engine's record + decide, measured in the same run as
// sony/gobreaker's Execute: the bar is to be no slower than gobreaker.
//
//	go test -run='^$' -bench='Gobreaker|Breaker' -benchmem ./breaker/

func BenchmarkGobreakerExecute(b *testing.B) {
	cb := gobreaker.NewCircuitBreaker[struct{}](gobreaker.Settings{Name: "bench"})
	req := func() (struct{}, error) { return struct{}{}, nil }
	b.ReportAllocs()
	for b.Loop() {
		if _, err := cb.Execute(req); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBreakerRecord(b *testing.B) {
	br := NewBreaker("bench", lb.Defaults())
	files := 1
	it := lb.Iteration{FilesChanged: &files}
	b.ReportAllocs()
	for b.Loop() {
		d, err := br.Record(&it)
		if err != nil || !d.Allowed {
			b.Fatal(err, d.Reason)
		}
	}
}

func BenchmarkBreakerCheck(b *testing.B) {
	br := NewBreaker("bench", lb.Defaults())
	b.ReportAllocs()
	for b.Loop() {
		if d, err := br.Check(); err != nil || !d.Allowed {
			b.Fatal(err, d.Reason)
		}
	}
}

func BenchmarkBreakerRecordOutcome(b *testing.B) {
	br := NewBreaker("bench", lb.Defaults())
	o := lb.Outcome{DecisionID: "d", Result: lb.OutcomeSuccess}
	b.ReportAllocs()
	for b.Loop() {
		if d, err := br.RecordOutcome(&o); err != nil || !d.Allowed {
			b.Fatal(err, d.Reason)
		}
	}
}

// The general path: an iteration with evidence (no progress, an error, a
// failing test) so that every detector does its work; thresholds are set
// out of reach so that the breaker stays CLOSED while counting.
func BenchmarkBreakerRecordWithEvidence(b *testing.B) {
	cfg := lb.Defaults()
	const far = 1 << 30
	cfg.NoProgress.Threshold, cfg.SameError.Threshold = far, far
	cfg.TestAttempts = lb.TestAttemptsConfig{PerTest: far, PerSlice: far}
	cfg.Phases = nil
	br := NewBreaker("bench", cfg)
	files := 0
	it := lb.Iteration{
		FilesChanged: &files,
		Errors:       []lb.ErrorText{{Raw: "expected 409, got 500", Signature: "0123456789abcdef"}},
		Tests:        []lb.TestResult{{Name: "TestCreate", Message: "expected 409, got 500"}},
	}
	b.ReportAllocs()
	for b.Loop() {
		d, err := br.Record(&it)
		if err != nil || !d.Allowed {
			b.Fatal(err, d.Reason)
		}
	}
}
