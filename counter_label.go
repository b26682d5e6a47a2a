package loopbreaker

import "unicode/utf8"

// Label is the counter's name as the views show it: with its detail when
// that says which of two counters of one detector it is (same_error
// "consecutive" and "since reset") or what it counts (a test, a slice, a
// phase), and is short enough for a line.
func (c Counter) Label() string {
	if c.Detail == "" || utf8.RuneCountInString(c.Detail) > maxLabelDetail {
		return c.Name
	}
	return c.Name + " (" + c.Detail + ")"
}

// maxLabelDetail is the longest detail Label shows.
const maxLabelDetail = 32

// Limit is the counter's threshold as the views show it: "off" for 0,
// which turns a budget off.
func (c Counter) Limit() string {
	if c.Threshold <= 0 {
		return "off"
	}
	return c.Figure(c.Threshold)
}

// CounterOf is the index of detector d's counter in counters, or -1.
// same_error has two (consecutive and since reset): the one at its
// threshold, else the highest, speaks for it.
func CounterOf(d string, counters []Counter) int {
	best := -1
	for i, c := range counters {
		if c.Name != d {
			continue
		}
		switch {
		case best < 0:
			best = i
		case counters[best].Threshold > 0 && counters[best].Value >= counters[best].Threshold:
		case c.Threshold > 0 && c.Value >= c.Threshold, c.Value > counters[best].Value:
			best = i
		}
	}
	return best
}

// Tripped is the index of the counter that opened the breaker, or -1:
// the counter of the detector the state names, at its threshold. Another
// counter at its threshold did not trip it (the first detector to decide
// did), and the views mark only this one.
func (s Status) Tripped() int { return TrippedCounter(s.State, s.Detector, s.Counters) }

// TrippedCounter is Status.Tripped for a breaker in state whose state
// names detector.
func TrippedCounter(state State, detector string, counters []Counter) int {
	if state != Open && state != HalfOpen || detector == "" {
		return -1
	}
	i := CounterOf(detector, counters)
	if i < 0 || counters[i].Threshold <= 0 || counters[i].Value < counters[i].Threshold {
		return -1
	}
	return i
}
