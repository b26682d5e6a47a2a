package claudecode

import (
	"fmt"
	"slices"
	"strings"

	lb "github.com/loopbreaker/loopbreaker"
)

// noAttempts is what the halt's hypothesis says when it found nothing to
// diagnose: wrong next to a limit that counted the calls.
const noAttempts = "No attempts were recorded"

// haltedBy is where a scenario whose exact thresholds are not the point
// must warn and halt, counted in units of its script: a tool call, or a
// batch of calls made at once.
type haltedBy struct {
	// unit maps a call number to its unit (nil: the call itself) and
	// name names the unit ("call", "batch").
	unit func(call int) int
	name string
	// warnFrom is the first unit at which a warning may come; haltBy the
	// last at which the breaker may open.
	warnFrom, haltBy int
	// detectors may open the breaker; empty: any but those in not.
	detectors, not []string
}

func (w haltedBy) of(call int) int {
	if w.unit == nil {
		return call
	}
	return w.unit(call)
}

// assertHaltedBy checks a run loopbreaker must warn, then halt: the
// warning came from w.warnFrom on and reached the model, the first halt
// came by w.haltBy and after the warning, no call of a later unit ran,
// the CLI asked the model nothing after the last stop, and the breaker is
// OPEN by one of w.detectors.
func (r *run) assertHaltedBy(p *project, w haltedBy, rw *row) {
	t := r.t
	t.Helper()
	warnAt := 0
	if c, ok := r.warning(); !ok {
		t.Errorf("no warning before the halt: no hook answer warned the model")
	} else {
		warnAt = w.of(r.callNumber(c))
		rw.Warned = fmt.Sprintf("%s %d: %s", w.name, warnAt, r.where(c))
		if warnAt < w.warnFrom {
			t.Errorf("warned at %s %d (%s), want from %s %d on", w.name, warnAt, r.where(c), w.name, w.warnFrom)
		}
		if r.toModel(c.Answer.Text()) == 0 {
			t.Errorf("the warning %q never reached the model", clip(c.Answer.Text(), 120))
		}
	}
	halts := r.halts()
	if len(halts) == 0 {
		t.Errorf("never halted by %s %d: no hook answer stopped the agent or refused a call", w.name, w.haltBy)
	} else {
		first, last := halts[0], halts[len(halts)-1]
		haltAt := w.of(r.callNumber(first))
		rw.Halted = fmt.Sprintf("%s %d: %s", w.name, haltAt, r.where(first))
		if haltAt == 0 || haltAt > w.haltBy {
			t.Errorf("halted at %s %d (%s), want by %s %d", w.name, haltAt, r.where(first), w.name, w.haltBy)
		}
		if h := first.Answer.Text(); strings.Contains(h, noAttempts) {
			t.Errorf("the halt says no attempts were recorded next to the limit that counted them: %q", clip(h, 300))
		}
		if warnAt > haltAt {
			t.Errorf("warned at %s %d, after the halt at %d", w.name, warnAt, haltAt)
		}
		for n := range r.ran() {
			if w.of(n) > haltAt {
				t.Errorf("tool call %d (%s %d) ran after the halt at %s %d", n, w.name, w.of(n), w.name, haltAt)
			}
		}
		if n := r.requestsAfter(last); n > 0 {
			t.Errorf("the CLI went on after the stop answer at %s: %d more model requests", r.where(last), n)
		}
	}
	st := p.status()
	switch {
	case st.State != lb.Open:
		t.Errorf("breaker %s (%s: %s), want OPEN", st.State, st.Detector, clip(st.Reason, 160))
	case len(w.detectors) > 0 && !slices.Contains(w.detectors, st.Detector):
		t.Errorf("breaker OPEN by %q (%s), want one of %q", st.Detector, clip(st.Reason, 160), w.detectors)
	case slices.Contains(w.not, st.Detector):
		t.Errorf("breaker OPEN by %q (%s): not a loop of that kind", st.Detector, clip(st.Reason, 160))
	}
}
