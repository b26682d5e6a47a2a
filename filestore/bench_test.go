package filestore

import (
	"context"
	"fmt"
	"os"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/internal/storetest"
)

// fillJournal journals n entries for scope, 100 per update.
func fillJournal(b *testing.B, s *Store, scope string, n int) {
	b.Helper()
	for done := 0; done < n; done += 100 {
		storetest.MustUpdate(b, s, func(states []*lb.BreakerState) ([][]lb.JournalEntry, error) {
			states[0].Iterations += 100
			es := make([]lb.JournalEntry, 100)
			for i := range es {
				es[i] = lb.JournalEntry{Type: lb.EntryEvent, Event: &lb.Event{Kind: lb.EventIteration, Iteration: &lb.Iteration{Summary: "filler entry"}}}
			}
			return [][]lb.JournalEntry{es}, nil
		}, scope)
	}
}

// The cost of an update must not grow with the journal.
func BenchmarkUpdate(b *testing.B) {
	for _, n := range []int{100, 100_000} {
		b.Run(fmt.Sprintf("journal=%d", n), func(b *testing.B) {
			s := openStore(b, Options{MaxJournalBytes: -1})
			fillJournal(b, s, "s", n)
			ctx := context.Background()
			fn := iterate(100)
			b.ResetTimer()
			for b.Loop() {
				if err := s.Update(ctx, []string{"s"}, fn); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			if info, err := os.Stat(mustFiles(b, s, "s").journal); err == nil {
				b.ReportMetric(float64(info.Size())/(1<<20), "journal-MiB")
			}
		})
	}
}

func BenchmarkLoad(b *testing.B) {
	s := openStore(b, Options{})
	fillJournal(b, s, "s", 1000)
	storetest.MustUpdate(b, s, iterate(100), "s") // one pending entry, as usual
	ctx := context.Background()
	for b.Loop() {
		if _, err := s.Load(ctx, "s"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkJournalTail(b *testing.B) {
	s := openStore(b, Options{MaxJournalBytes: -1})
	fillJournal(b, s, "s", 100_000)
	ctx := context.Background()
	for b.Loop() {
		if es, err := s.Journal(ctx, "s", 20); err != nil || len(es) != 20 {
			b.Fatal(err, len(es))
		}
	}
}

// One multi-scope update (txn.json, then each state file and journal), as
// the server's checkpoint writes the breakers changed in the last second.
func BenchmarkUpdateScopes(b *testing.B) {
	const n = 32
	s := openStore(b, Options{})
	scopes := make([]string, n)
	for i := range scopes {
		scopes[i] = fmt.Sprintf("agent:a%d", i)
	}
	storetest.MustUpdate(b, s, iterate(100), scopes...)
	ctx := context.Background()
	fn := iterate(100)
	for b.Loop() {
		if err := s.Update(ctx, scopes, fn); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/scope")
}
