package breaker

import (
	"fmt"
	"sort"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
)

// failureWindow is the sliding window of scoped breakers: reviewed outcomes failure
// or abandoned within failure_window.window. Outcomes keep the window
// (recordOutcome); it has no warning.
type failureWindow struct{}

func (failureWindow) Name() string { return lb.DetectorFailureWindow }

func (failureWindow) Observes() Signals { return 0 }

func (failureWindow) Observe(*lb.BreakerState, Evidence) {}

func (failureWindow) Count(s *lb.BreakerState, at Moment) Count {
	return Count{Value: countInWindow(s.Failures, at.Now, at.Config.FailureWindow.Window), Trip: at.Config.FailureWindow.Threshold}
}

func (failureWindow) Reason(s *lb.BreakerState, at Moment, c Count) Reason {
	return Reason{What: fmt.Sprintf("%d failed outcomes within %s (%s)", c.Value, at.Config.FailureWindow.Window, c.limit())}
}

// countInWindow counts the failures after now-window. They are appended
// as they happen, so those are a suffix, found by binary search (a
// breaker may hold 2,000, and every view of it counts them).
func countInWindow(fs []lb.Failure, now time.Time, window time.Duration) int {
	cut := now.Add(-window)
	return len(fs) - sort.Search(len(fs), func(i int) bool { return fs[i].Time.After(cut) })
}
