package breaker

import (
	"fmt"

	lb "github.com/loopbreaker/loopbreaker"
)

// noEffect counts the tool calls since the last one that changed something
// (tool_calls.no_effect): work that changes nothing. Most waste of a run
// that burns its budget is not an exact loop: reading and searching that
// never leads to an edit, pages of a file scrolled through, the same file
// viewed again and again, and edit, run, the same output. Each of those
// calls is a step without effect, whatever the call.
//
// What has an effect: an applied edit (a failed one changed nothing), a
// test run that improved, and a new turn (the person's next prompt starts
// new work). But an edit after which a command answers exactly as it did
// before the edit changed nothing that command shows: when a call repeats
// an earlier call made before the latest edits with the same result, the
// count goes on from that earlier call, as if those edits had not been
// made. The count is kept on each call's mark (ToolMark.NoEffect) so
// that it can go on from an earlier one.
//
// Spend without progress is budget.tokens_without_progress's.
type noEffect struct{}

func (noEffect) Name() string { return lb.DetectorNoEffect }

func (noEffect) Observes() Signals { return SignalToolCall }

func (noEffect) Observe(s *lb.BreakerState, ev Evidence) {
	if ev.Config.ToolCalls.NoEffect <= 0 {
		s.Counters.NoEffect = 0
		return
	}
	m := newestMark(s)
	m.NoEffect = noEffectCount(s.Tools, ev.Progress)
	s.Counters.NoEffect = m.NoEffect
}

// noEffectCount is the count at the newest call of ms, which progressed
// (a test run that improved) or not.
func noEffectCount(ms []lb.ToolMark, progressed bool) int {
	n := len(ms) - 1
	m := &ms[n]
	if m.Edit || progressed {
		return 0
	}
	count := 1
	if n > 0 && !ms[n-1].TurnEnd {
		count = ms[n-1].NoEffect + 1
	}
	// The previous run of the same command, a few calls back, answered
	// the same (something, not nothing) before the edits since: those
	// edits changed nothing it shows.
	edited := false
	for j := n - 1; j >= 0 && j >= n-sameRunWindow && !ms[j].TurnEnd; j-- {
		prev := &ms[j]
		if prev.Edit {
			edited = true
			continue
		}
		if prev.Key != m.Key {
			continue
		}
		if edited && informative(m) && prev.Result == m.Result && prev.ErrorSig == m.ErrorSig {
			count = max(count, prev.NoEffect+n-j)
		}
		break
	}
	return count
}

// sameRunWindow is how far back the previous run of a command is looked
// for: edit, run, the same output is a short loop; a command run again
// much later, after edits that changed other things, says nothing about
// them.
const sameRunWindow = 8

// informative reports whether a call answered something: an empty answer
// (a script that prints nothing) is the same before and after any edit.
func informative(m *lb.ToolMark) bool {
	return m.ErrorSig != "" || m.Info != "" && m.Info != lb.InfoEmpty
}

func (noEffect) Count(s *lb.BreakerState, at Moment) Count {
	return threshold(at.Config, s.Counters.NoEffect, at.Config.ToolCalls.NoEffect)
}

func (noEffect) Reason(s *lb.BreakerState, at Moment, c Count) Reason {
	return Reason{
		What: fmt.Sprintf("%d tool calls since the last one that changed something: reading and searching with no edit, or edits after which the same command answers the same (%s)",
			c.Value, c.limit()),
		Advice: "You have been reading and searching without changing anything that shows: decide what to change now, " +
			"make that one edit and run the check that shows its effect, or say what blocks you.",
	}
}
