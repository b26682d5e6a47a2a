package cli

import (
	"context"
	"fmt"
	"os/user"

	"github.com/loopbreaker/loopbreaker/internal/shell"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/agent"
	"github.com/loopbreaker/loopbreaker/agent/all"
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
	defer w.Close()
	from, err := refuseUnderAgent(env, "reset", w.Name)
	if err != nil {
		return err
	}
	res, err := w.Apply(ctx, lb.Event{Kind: lb.EventReset, Reset: &lb.Reset{
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
	fmt.Fprintf(env.Stdout, "loopbreaker: %s reset %s -> %s", w.Scope, was, d.State)
	if d.State == lb.HalfOpen {
		fmt.Fprint(env.Stdout, " (the next check takes the probe)")
	}
	fmt.Fprintln(env.Stdout)
	if o.guidance != "" {
		fmt.Fprintln(env.Stdout, "guidance saved: the next iteration receives it with what was already tried")
	}
	return nil
}

// refuseUnderAgent is where a command that resets the breaker (reset,
// recover) came from, or its refusal when it runs under an agent: the
// agent under guard does not reset its own breaker, however it spells
// the command.
func refuseUnderAgent(env *Env, command, session string) (origin.Origin, error) {
	from := origin.Of(origin.Options{Getenv: env.Getenv, Stop: env.originStop, Agents: agentSigns()})
	if from.Agent != "" {
		return from, fmt.Errorf("%s refused: this command runs under an agent, %s. The agent under guard does not reset its own breaker. "+
			"A person runs it from a terminal outside the agent session (not its shell tool, nor a process it started): loopbreaker %s --session %s",
			command, from.Agent, command, shell.Quote(session))
	}
	return from, nil
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

// agentSigns are what tells, for each agent CLI, that a command runs under
// it.
func agentSigns() []origin.Signs {
	var out []origin.Signs
	for _, a := range all.Agents() {
		t := a.Traits()
		s := origin.Signs{Agent: t.Display, EnvVars: t.EnvMarkers, Programs: []string{agent.Executable(a)}}
		if t.Package != "" {
			s.Packages = []string{t.Package}
		}
		out = append(out, s)
	}
	return out
}
