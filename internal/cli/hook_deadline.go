package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/loopbreaker/loopbreaker/hook"
	"github.com/loopbreaker/loopbreaker/internal/residentwire"
)

// A hook call must answer before the agent CLI's hook timeout kills it: a
// killed call lets its tool call through unchecked and leaves only its
// running mark, which the next call cannot tell from a kill by the agent.
// So each call keeps two times, counted from when the CLI started it:
//   - at lateShare of the timeout, it writes on its running mark that it
//     is late, and who holds the state's lock if anyone does: a call
//     killed after that was stopped by the CLI's timeout on a slow
//     machine, which is reported loudly but is no attempt to silence the
//     breaker, unless a program other than loopbreaker held the lock;
//   - at giveUpShare, it stops waiting (for the state's lock, for git)
//     and answers as on_error says, in the time left.
const (
	lateShare   = 0.3
	giveUpShare = 0.8
)

// hookTimeoutEnv overrides hook.Timeout: the timeout the agent CLI gives
// this call, for hooks installed with another one (and tests). Set by an
// agent, it blinds nothing: shorter, its calls answer (as on_error says)
// sooner; longer than the CLI's own, a call the CLI kills was not late
// yet, and counts as an attempt to silence the breaker.
const hookTimeoutEnv = "LOOPBREAKER_HOOK_TIMEOUT"

// minHookTimeout bounds hookTimeoutEnv from below: a call always has a
// second, dozens of times what it needs on an idle machine.
const minHookTimeout = time.Second

// hookClock is a hook call's times: when it started and its timeout.
type hookClock struct {
	start   time.Time
	timeout time.Duration
}

// clockOf is the clock of the call env answers. It starts when the agent
// CLI started the call: the thin client's start when it sent the call
// (residentwire.StartedEnv), else this process's start, else (a call the
// resident breaker took from elsewhere) when the call was taken.
func clockOf(env *Env) (hookClock, error) {
	c := hookClock{start: env.hookStarted, timeout: hook.Timeout}
	var err error
	if v := env.Getenv(hookTimeoutEnv); v != "" {
		d, perr := time.ParseDuration(v)
		if perr != nil || d < minHookTimeout {
			err = fmt.Errorf("%s=%q: want a duration of at least %s, such as 10s (the hook timeout the agent CLI gives the call)", hookTimeoutEnv, v, minHookTimeout)
		} else {
			c.timeout = d
		}
	}
	now := time.Now()
	switch client, ok := residentwire.Started(env.Getenv(residentwire.StartedEnv)); {
	case ok && !client.After(now) && now.Sub(client) < c.timeout:
		// A value from the future or older than the timeout is not this
		// call's client (it would have been killed by now): one the
		// CLI's environment carried from elsewhere.
		c.start = client
	case !c.start.IsZero():
	case env.ownProcess:
		c.start = now.Add(-residentwire.ProcessAge())
	default:
		c.start = now
	}
	return c, err
}

func (c hookClock) at(share float64) time.Time {
	return c.start.Add(time.Duration(share * float64(c.timeout)))
}

// hookTimeoutError is why a call gave up waiting.
type hookTimeoutError struct{ timeout time.Duration }

func (e hookTimeoutError) Error() string {
	return fmt.Sprintf("answering now, before the agent CLI's hook timeout (%s) kills this call; the machine is busy or something holds loopbreaker up", e.timeout)
}

// withDeadline is ctx ending when the call must give up.
func (c hookClock) withDeadline(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithDeadlineCause(ctx, c.at(giveUpShare), hookTimeoutError{c.timeout})
}
