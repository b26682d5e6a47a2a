package redisstore

import (
	"bytes"
	"testing"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
)

// BenchmarkDecodeState decodes the state 45 records of an iteration that
// changed a file leave (the record benchmarks' breaker), as a client does
// with every state another client wrote.
//
//	go test ./redisstore -run '^$' -bench DecodeState
func BenchmarkDecodeState(b *testing.B) {
	st := lb.NewBreakerState("global")
	t0 := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	for i := range 45 {
		st.Attempts = append(st.Attempts, lb.Attempt{Iteration: i + 1, Time: t0.Add(time.Duration(i) * time.Second), Slice: "default",
			Progress: true, ProgressReason: lb.ProgressReason{Rule: lb.RuleFilesChanged, N: 1}, Files: []string{"main.go"}})
	}
	var buf bytes.Buffer
	if err := writeCompact(&buf, st); err != nil {
		b.Fatal(err)
	}
	body := buf.Bytes()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		var got lb.BreakerState
		if err := decodeState(body, &got); err != nil {
			b.Fatal(err)
		}
	}
}
