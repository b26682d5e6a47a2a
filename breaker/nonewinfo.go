package breaker

import (
	"fmt"

	lb "github.com/loopbreaker/loopbreaker"
)

// noNewInfo counts the tool calls in a row that brought no new
// information (tool_calls.no_new_info): fishing, twenty searches for
// different names that each answer "no matches", or a model's prose run
// as commands, each answered by one of the same two shell errors. A call
// brings none when a call with other arguments among the N before it (N:
// the threshold) gave its result already: the same result once the
// calls' own arguments are removed and it is normalised, or the same
// normalised result as it is (sameInfo; removing the words of two
// different calls from one output can leave two different texts). The
// run counts the last call that brought something new and those after
// it; an edit ends it.
type noNewInfo struct{}

func (noNewInfo) Name() string { return lb.DetectorNoNewInfo }

func (noNewInfo) Observes() Signals { return SignalToolCall }

func (noNewInfo) Observe(s *lb.BreakerState, ev Evidence) {
	s.Counters.NoNewInfo = noNewInfoRun(s.Tools, ev.Config.ToolCalls.NoNewInfo)
}

// noNewInfoRun is the run at the end of the history: the calls in a row
// that brought nothing new, and the call before them that did. It is read
// off the history rather than counted on from the previous call: a call
// of a batch goes in among the calls of its batch recorded before it
// (appendMark), so the newest entry need not be the call just recorded,
// and a count kept call by call would depend on the order the batch's
// results came in.
func noNewInfoRun(ms []lb.ToolMark, w int) int {
	n := 0
	for i := len(ms) - 1; i >= 0 && ms[i].Info != ""; i-- {
		n++
		if !seenRecently(ms, i, w) {
			break
		}
	}
	return n
}

// seenRecently reports whether the result of ms[i] is the same as that
// of one of the w calls before it, back to the last edit, made with other
// arguments: the same call made again is a repeat or a cycle, which
// tool_repeat and tool_cycle count (and advise on) in their own way.
func seenRecently(ms []lb.ToolMark, i, w int) bool {
	for j := i - 1; j >= 0 && j >= i-w; j-- {
		if ms[j].Info == "" {
			return false
		}
		if ms[j].Key != ms[i].Key && sameInfo(&ms[j], &ms[i]) {
			return true
		}
	}
	return false
}

func (noNewInfo) Count(s *lb.BreakerState, at Moment) Count {
	return threshold(at.Config, s.Counters.NoNewInfo, at.Config.ToolCalls.NoNewInfo)
}

func (noNewInfo) Reason(s *lb.BreakerState, at Moment, c Count) Reason {
	what := "the same result"
	if n := len(s.Tools); n > 0 && s.Tools[n-1].Info == lb.InfoEmpty {
		what = "an empty result"
	}
	return Reason{
		What: fmt.Sprintf("%d tool calls in a row brought no new information: whatever their arguments, each gave %s (%s)", c.Value, what, c.limit()),
		Advice: "Your searches keep answering the same thing: stop varying the arguments, " +
			"summarise what you know, and look somewhere else or change approach.",
	}
}

// sameInfo reports whether two calls' results bring the same information:
// the same result without the calls' arguments, or the same normalised
// result as it is. Calls without information (edits, events recorded
// before info_hash) are never the same.
func sameInfo(a, b *lb.ToolMark) bool {
	if a.Info == "" || b.Info == "" {
		return false
	}
	return a.Info == b.Info || a.Result != "" && a.Result == b.Result
}
