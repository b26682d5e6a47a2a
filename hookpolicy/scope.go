package hookpolicy

import (
	"context"
	"fmt"

	"github.com/loopbreaker/loopbreaker/internal/shell"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/hook"
	"github.com/loopbreaker/loopbreaker/scopelock"
)

// scopeLock applies the slice's scope lock to the files an edit names. An
// out-of-scope edit without a recorded justification, or an edit of a
// denied file, is recorded as a scope violation and refused.
func (c *call) scopeLock(ctx context.Context) (hook.Answer, bool, error) {
	lock, err := scopelock.Load(c.Project, c.Config.Scope)
	if err != nil {
		return hook.Answer{}, true, err
	}
	if !lock.Configured() {
		return hook.Answer{}, false, nil
	}
	st := c.tx.State()
	for _, file := range c.p.Files(c.Project, c.baseDir()) {
		m := lock.Explain(file)
		if m.Verdict == scopelock.Allow || m.Verdict == scopelock.None {
			continue
		}
		if m.Verdict == scopelock.Justify && lock.Justified(st, "", file) {
			continue
		}
		shown := m.File
		if shown == "" {
			shown = file
		}
		test := c.lastFailingTest()
		d, err := c.apply(lb.Event{Kind: lb.EventScopeViolation, Violation: &lb.ScopeViolation{
			File: shown, Test: test, Verdict: scopelock.RecordViolation,
		}})
		if err != nil {
			return hook.Answer{}, true, err
		}
		if !d.Allowed && d.State == lb.Open {
			return c.render(hook.Stop, c.haltMessage(ctx, d, c.tx.State())), true, nil
		}
		return c.render(hook.Deny, c.scopeMessage(m, shown, test, c.tx.State())), true, nil
	}
	return hook.Answer{}, false, nil
}

func (c *call) scopeMessage(m scopelock.Match, file, test string, st *lb.BreakerState) string {
	slice := scopelock.EffectiveSlice(st, "")
	if m.Verdict == scopelock.Deny {
		return fmt.Sprintf("loopbreaker: scope lock: editing %s is refused (%s). The edit was not made and counts as an attempt. Leave this file alone and work within the files of slice %s.",
			file, m.Rule, slice)
	}
	testArg := shell.Quote(test)
	forTest := "the failing test"
	if test == "" {
		testArg = "TEST"
	} else {
		forTest = test
	}
	return fmt.Sprintf("loopbreaker: scope lock: %s is outside the scope of slice %s (%s). The edit was not made and counts as an attempt. "+
		"If this file must change to make %s pass, record a one-sentence justification tied to that test, then retry the edit:\n"+
		"  loopbreaker scope justify --session %s %s --test %s --reason \"<one sentence: why %s must change for the test>\"\n"+
		"Otherwise, stay within the slice's files.",
		file, slice, m.Rule, forTest, shell.Quote(c.Session), shell.Quote(file), testArg, file)
}
