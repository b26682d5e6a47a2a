package loopbreaker

import "testing"

// The views mark only the counter that tripped: no_progress opened the
// breaker; phase_failure, at its threshold too, did not. Of same_error's
// two counters the one at its threshold speaks.
func TestTrippedIsTheDetectorsCounter(t *testing.T) {
	counters := []Counter{
		{Name: DetectorNoProgress, Value: 3, Threshold: 3},
		{Name: DetectorSameError, Value: 3, Threshold: 5, Detail: "consecutive"},
		{Name: DetectorSameError, Value: 5, Threshold: 5, Detail: "since reset"},
		{Name: DetectorPhaseFailure, Value: 3, Threshold: 3},
	}
	for _, tc := range []struct {
		state    State
		detector string
		want     int
	}{
		{Open, DetectorNoProgress, 0},
		{Open, DetectorSameError, 2},
		{Closed, DetectorNoProgress, -1},
		{Open, "", -1},
	} {
		if got := (Status{State: tc.state, Detector: tc.detector, Counters: counters}).Tripped(); got != tc.want {
			t.Errorf("%s by %q: tripped %d, want %d", tc.state, tc.detector, got, tc.want)
		}
	}
	// A warning (below the threshold) is no trip.
	warned := []Counter{{Name: DetectorNoProgress, Value: 2, Threshold: 3, WarnAt: 2}}
	if got := (Status{State: HalfOpen, Detector: DetectorNoProgress, Counters: warned}).Tripped(); got != -1 {
		t.Errorf("a warning is marked tripped: %d", got)
	}
}

func TestCounterLabelAndLimit(t *testing.T) {
	for _, tc := range []struct {
		c            Counter
		label, limit string
	}{
		{Counter{Name: "same_error", Detail: "consecutive", Threshold: 5}, "same_error (consecutive)", "5"},
		{Counter{Name: "same_error", Detail: "since reset", Threshold: 5}, "same_error (since reset)", "5"},
		{Counter{Name: "no_progress", Detail: "off: the last 2 iteration(s) measured nothing progress is read from", Threshold: 3}, "no_progress", "3"},
		{Counter{Name: "budget_session_tokens", Unit: UnitTokens}, "budget_session_tokens", "off"},
		{Counter{Name: "budget_session_cost", Unit: UnitCents, Threshold: 500}, "budget_session_cost", "$5.00"},
	} {
		if got := tc.c.Label(); got != tc.label {
			t.Errorf("Label %q, want %q", got, tc.label)
		}
		if got := tc.c.Limit(); got != tc.limit {
			t.Errorf("%s: Limit %q, want %q", tc.c.Name, got, tc.limit)
		}
	}
}
