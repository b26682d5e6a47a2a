package supervisor

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/loopbreaker/loopbreaker/cannotrun"
)

const (
	// resetMargin is added to a limit's reset time: the CLIs round it to
	// the minute, and an agent started on the dot may be refused again.
	resetMargin = 30 * time.Second
	// maxRefusals is how many runs in a row may be refused, each after a
	// wait, before the loop stops: a limit that is still there after its
	// reset time will not go away by waiting again.
	maxRefusals = 3
	// countdownStep is how often the countdown is written as a line when
	// there is no live status line to rewrite.
	countdownStep = 10 * time.Minute
)

// refused tells whether the agent's run could not work at all.
func (l *loop) refused(out, errs *capture, r ran) (cannotrun.Finding, bool) {
	run := cannotrun.Run{Stdout: out.lastText(), Stderr: errs.lastText(), ExitCode: r.exitCode}
	if res := parseAgentResult(run.Stdout); res != nil {
		run.APIErrorStatus = res.APIErrorStatus
	}
	return cannotrun.Classify(run, l.cfg.Now(), l.cfg.CannotRun)
}

// waitOut deals with a run of iteration n that could not work: it waits
// for a usage limit to reset when the agent said when and the wait fits
// in MaxWait (the loop then runs iteration n again), else it says why it
// stops. It returns "" to go on, CannotRun or Interrupted.
func (l *loop) waitOut(ctx context.Context, n int, f cannotrun.Finding) Outcome {
	l.refusals++
	// The iteration runs again under the same number: its refused output
	// is kept beside, not overwritten.
	for _, ext := range []string{"out", "err"} {
		_ = l.runD.Rename(outputName(n, ext), outputName(n, "refused."+ext))
	}
	l.con.line("loopbreaker: iteration %d: %s; not recorded: the agent could not work, which is not being stuck", n, f.Describe())
	switch {
	case f.Kind == cannotrun.Auth:
		l.con.line("loopbreaker: stopped: %s, then run again", f.Fix())
		return CannotRun
	case f.ResetAt == nil:
		l.con.line("loopbreaker: stopped: the agent did not say when it may work again; run again later")
		return CannotRun
	case l.refusals > maxRefusals:
		l.con.line("loopbreaker: stopped: refused %d times in a row, each after waiting for the reset; check the agent's account", l.refusals)
		return CannotRun
	}
	until := f.ResetAt.Add(resetMargin)
	wait := until.Sub(l.cfg.Now())
	if wait > l.cfg.MaxWait {
		l.con.line("loopbreaker: stopped: the limit resets at %s, in %s, longer than run.max_wait (%s); run again then, or raise run.max_wait",
			f.ResetAt.UTC().Format(time.RFC3339), wait.Round(time.Second), l.cfg.MaxWait)
		return CannotRun
	}
	l.con.line("loopbreaker: waiting until %s for the limit to reset (%s; Ctrl-C stops)", until.UTC().Format(time.RFC3339), wait.Round(time.Second))
	if !l.waitUntil(ctx, until, "the limit to reset") {
		return Interrupted
	}
	l.con.line("loopbreaker: the limit has reset; running iteration %d again", n)
	return ""
}

// waitUntil waits on the loop's clock until the time until, with a
// countdown (the live status line, or a line every countdownStep), for
// what (e.g. "the limit to reset"). False: a signal interrupted it (the
// loop's interrupt is then pending).
func (l *loop) waitUntil(ctx context.Context, until time.Time, what string) bool {
	wait := until.Sub(l.cfg.Now())
	step := countdownStep
	if l.cfg.Live {
		step = time.Second
	}
	for {
		rem := until.Sub(l.cfg.Now())
		if rem <= 0 {
			return true
		}
		msg := fmt.Sprintf("loopbreaker: waiting for %s: %s left", what, rem.Round(time.Second))
		if l.cfg.Live {
			l.con.setStatus(msg)
		} else if rem < wait {
			l.con.line("%s", msg)
		}
		select {
		case <-l.cfg.After(min(rem, step)):
		case s := <-l.intr.ch:
			l.intr.signal = s
			l.intr.count++
		case <-ctx.Done():
			l.intr.signal = os.Interrupt
		}
		if l.intr.signal != nil {
			l.con.line("loopbreaker: interrupted (%s) while waiting for %s", l.intr.signal, what)
			return false
		}
	}
}
