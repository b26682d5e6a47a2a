package breaker

import (
	"fmt"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/errsig"
)

// sameError counts consecutive iterations whose combined normalised error
// signature is the same (same_error.threshold, per phase in TDD loops).
type sameError struct{}

func (sameError) Name() string { return lb.DetectorSameError }

func (sameError) Observes() Signals { return SignalError }

func (sameError) Observe(s *lb.BreakerState, ev Evidence) {
	switch sig := ev.ErrorSig; {
	case sig == "":
		s.Counters.SameError = 0
	case sig == s.LastErrorSig:
		s.Counters.SameError++
	default:
		s.Counters.SameError = 1
	}
	s.LastErrorSig = ev.ErrorSig
}

func (sameError) Count(s *lb.BreakerState, at Moment) Count {
	c := threshold(at.Config, s.Counters.SameError, at.Config.SameErrorThreshold(at.Phase))
	c.Detail = "consecutive"
	return c
}

func (sameError) Reason(s *lb.BreakerState, at Moment, c Count) Reason {
	what := fmt.Sprintf("the same error (signature %s) repeated in %d consecutive iterations (%s%s)", s.LastErrorSig, c.Value, c.limit(), inPhase(at.Phase))
	if ex := lastErrorExample(s); ex != "" {
		what += ": " + firstLine(ex)
	}
	return Reason{What: what, Advice: adviceSameError}
}

// sessionError counts, for the most frequent signature, the iterations
// that showed it since the last reset (same_error.session_threshold).
type sessionError struct{}

func (sessionError) Name() string { return lb.DetectorSameError }

func (sessionError) Observes() Signals { return SignalError }

func (sessionError) Observe(s *lb.BreakerState, ev Evidence) {
	if ev.ErrorSig == "" {
		return
	}
	errs := ev.Iteration.Errors
	// Each distinct signature once per iteration.
	for i := range errs {
		sg := errs[i].Signature
		if sg == "" || signatureBefore(errs, i, sg) {
			continue
		}
		s.ErrorCounts = bumpError(s.ErrorCounts, sg, errs, s.UpdatedAt)
	}
}

func (sessionError) Count(s *lb.BreakerState, at Moment) Count {
	c := threshold(at.Config, 0, at.Config.SessionErrorThreshold())
	if top := topError(s.ErrorCounts); top >= 0 {
		c.Value = s.ErrorCounts[top].Count
	}
	c.Detail = "since reset"
	return c
}

func (sessionError) Reason(s *lb.BreakerState, at Moment, c Count) Reason {
	top := s.ErrorCounts[topError(s.ErrorCounts)]
	what := fmt.Sprintf("the same error (signature %s) was seen in %d iterations since the last reset (%s)", top.Signature, c.Value, c.limit())
	if top.Example != "" {
		what += ": " + firstLine(top.Example)
	}
	return Reason{What: what, Advice: adviceSameError}
}

// iterationSignature fills in the errors' signatures and combines them
// ("" when the iteration had no error, without a call: it is inlined).
func iterationSignature(errs []lb.ErrorText) string {
	if len(errs) == 0 {
		return ""
	}
	return combinedSignature(errs)
}

func combinedSignature(errs []lb.ErrorText) string {
	var sigs [8]string
	list := sigs[:0]
	for i := range errs {
		if errs[i].Signature == "" {
			errs[i].Signature = errsig.Signature(errs[i].Raw)
		}
		if errs[i].Signature != "" {
			list = append(list, errs[i].Signature)
		}
	}
	return errsig.Combine(list)
}

func signatureBefore(errs []lb.ErrorText, i int, sig string) bool {
	for _, e := range errs[:i] {
		if e.Signature == sig {
			return true
		}
	}
	return false
}

func bumpError(counts []lb.ErrorCount, sig string, errs []lb.ErrorText, now time.Time) []lb.ErrorCount {
	for i := range counts {
		if counts[i].Signature == sig {
			counts[i].Count++
			counts[i].LastSeen = now
			return counts
		}
	}
	example := ""
	for _, e := range errs {
		if e.Signature == sig {
			example = truncate(e.Raw, 1024)
			break
		}
	}
	c := lb.ErrorCount{Signature: sig, Count: 1, Example: example, LastSeen: now}
	if len(counts) < maxErrorCounts {
		return append(counts, c)
	}
	// Full: replace the least recently seen signature.
	oldest := 0
	for i := range counts {
		if counts[i].LastSeen.Before(counts[oldest].LastSeen) {
			oldest = i
		}
	}
	counts[oldest] = c
	return counts
}

func topError(counts []lb.ErrorCount) int {
	at := -1
	for i := range counts {
		if at < 0 || counts[i].Count > counts[at].Count {
			at = i
		}
	}
	return at
}

func lastErrorExample(s *lb.BreakerState) string {
	for i := len(s.Attempts) - 1; i >= 0; i-- {
		if s.Attempts[i].Signature == s.LastErrorSig && s.Attempts[i].Error != "" {
			return s.Attempts[i].Error
		}
	}
	return ""
}
