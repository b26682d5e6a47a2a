package cli

import (
	"context"
	"fmt"
	"os/user"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/hookpolicy"
	"github.com/loopbreaker/loopbreaker/internal/origin"
)

type resetOptions struct {
	common
	probeFirst bool
	guidance   string
	reason     string
	by         string
}

// runReset is a person's reset: to CLOSED, or with --probe-first to
// HALF_OPEN where one probe decides. It works from OPEN and from a
// HALF_OPEN whose probe never reported back. Guidance resets the per-test
// and slice counters and is handed to the next iteration.
func runReset(ctx context.Context, env *Env, args []string) error {
	var o resetOptions
	fs := newFlagSet("reset", env)
	o.register(fs, env, true)
	fs.BoolVar(&o.probeFirst, "probe-first", false, "move to HALF_OPEN: the next iteration is a probe (progress closes, stagnation re-opens)")
	fs.StringVar(&o.guidance, "guidance", "", "what the agent should do differently (fed to the next iteration)")
	fs.StringVar(&o.reason, "reason", "", "why you reset (kept in the history)")
	fs.StringVar(&o.by, "by", defaultUser(env), "who resets (kept in the history)")
	w, err := o.parseOpen(fs, args, env)
	if err != nil {
		return err
	}
	defer w.close()
	from := origin.Of(origin.Options{Getenv: env.Getenv, Stop: env.originStop})
	if from.Agent != "" {
		return fmt.Errorf("reset refused: this command runs under an agent, %s. The agent under guard does not reset its own breaker. "+
			"A person resets it from a terminal outside the agent session (not its shell tool, nor a process it started): loopbreaker reset --session %s",
			from.Agent, hookpolicy.ShellWord(w.session))
	}
	res, err := w.apply(ctx, lb.Event{Kind: lb.EventReset, Reset: &lb.Reset{
		ProbeFirst: o.probeFirst, Guidance: o.guidance, Reason: o.reason, By: o.by, From: from.String(),
	}})
	if err != nil {
		return err
	}
	if o.json {
		return w.finish(true, res.States, res.Decision, nil)
	}
	d := res.Decision
	was := "?"
	if d.Transition != nil {
		was = string(d.Transition.From)
	}
	fmt.Fprintf(env.Stdout, "loopbreaker: %s reset %s -> %s", w.scope, was, d.State)
	if d.State == lb.HalfOpen {
		fmt.Fprint(env.Stdout, " (the next check takes the probe)")
	}
	fmt.Fprintln(env.Stdout)
	if o.guidance != "" {
		fmt.Fprintln(env.Stdout, "guidance saved: the next iteration receives it with what was already tried")
	}
	return nil
}

func defaultUser(env *Env) string {
	if u := env.Getenv("USER"); u != "" {
		return u
	}
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return ""
}
