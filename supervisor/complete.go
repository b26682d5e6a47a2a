package supervisor

import lb "github.com/loopbreaker/loopbreaker"

// completed tells whether the loop ends after iteration number: its
// agent signalled completion, and so did the iterations before it, as
// many in a row as CompletionSignals asks (Ralph's dual exit gate asks
// for two: an agent that says it is done once, on a guess, is asked once
// more). An iteration without the signal starts the count again.
func (l *loop) completed(it *lb.Iteration, number int) bool {
	if !it.Complete {
		l.completions = 0
		return false
	}
	l.completions++
	need := max(l.cfg.CompletionSignals, 1)
	if l.completions < need {
		l.con.line("loopbreaker: the agent signalled completion after iteration %d (%d of %d in a row, run.completion_signals): running once more to confirm", number, l.completions, need)
		return false
	}
	if need > 1 {
		l.con.line("loopbreaker: the agent signalled completion after iteration %d, %d iterations in a row", number, l.completions)
	} else {
		l.con.line("loopbreaker: the agent signalled completion after iteration %d", number)
	}
	return true
}
