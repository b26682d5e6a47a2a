// Package hookpolicy decides how loopbreaker answers one hook call of an
// agent CLI: which event of the session's breaker a payload becomes, when a
// warning is worth telling the model (once per episode), which tool calls
// the scope lock refuses, which calls failed without a report (pending
// calls), and what the halt message says.
//
// It is the hook's policy without its command line: its inputs are a
// parsed hook.Payload, the session's breaker service, the configuration and
// a clock; its output is a hook.Answer. internal/cli only wires it; another
// adapter (a transcript tailer, the server) can use it the same way. The
// few things it must remember between two hook processes (the warning
// episode delivered, the test that failed last, calls still waiting for
// their result) are small files in <state dir>/hooks.
package hookpolicy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/breaker"
	"github.com/loopbreaker/loopbreaker/hook"
)

// DirName is the directory, inside the state directory, of the files hooks
// keep besides the breaker state.
const DirName = "hooks"

// Policy answers the hook calls of one session's breaker. The zero value
// is not usable: Service, Scope, Session, Config, Project and StateDir are
// required.
type Policy struct {
	// Service applies events to the session's breaker, Scope names it.
	Service *breaker.Service
	Scope   string
	// Session names the loop in messages and in the hook files; Caller
	// holds the half-open probe (default: Session).
	Session string
	Caller  string
	Config  lb.Config
	// Project is the project directory (paths are reported relative to
	// it); StateDir holds the breaker state and the hook files.
	Project  string
	StateDir string
	// Dir resolves relative paths of a payload whose cwd is unusable.
	Dir string
	// Now is the clock (nil: time.Now).
	Now func() time.Time
	// Log receives loopbreaker's own diagnostics (nil: discarded).
	Log io.Writer
	// Guard refuses the agent's attempts to silence its breaker (nil:
	// none are refused).
	Guard *Guard
	// Files measures the files changed since the previous turn end of the
	// session, for the turn's iteration; nil (or an error) records the
	// turn end as a check only. GitFiles is the usual one.
	Files func(ctx context.Context) ([]string, error)
}

func (p *Policy) now() time.Time {
	if p.Now != nil {
		return p.Now()
	}
	return time.Now()
}

func (p *Policy) logf(format string, args ...any) {
	if p.Log != nil {
		fmt.Fprintf(p.Log, format, args...)
	}
}

func (p *Policy) caller() string {
	if p.Caller != "" {
		return p.Caller
	}
	return p.Session
}

// call is one hook call being answered.
type call struct {
	*Policy
	p *hook.Payload
}

// Answer decides how to answer one hook call and renders the answer in the
// payload's protocol. It never panics on a payload Parse accepted: a bug
// of loopbreaker's own becomes a Failure answer.
func (p *Policy) Answer(ctx context.Context, payload *hook.Payload) (ans hook.Answer) {
	c := &call{Policy: p, p: payload}
	defer func() {
		// A bug of loopbreaker's must not turn into an exit code the agent
		// reads as a verdict.
		if r := recover(); r != nil {
			ans = c.failure(fmt.Errorf("internal error: %v", r))
		}
	}()
	switch payload.Kind {
	case hook.KindPreTool:
		return c.preTool(ctx)
	case hook.KindPostTool:
		return c.postTool(ctx)
	case hook.KindToolBatch:
		return c.toolBatch(ctx)
	case hook.KindStop:
		return c.stop(ctx)
	case hook.KindPrompt, hook.KindSessionStart:
		return c.prompt(ctx)
	}
	return c.render(hook.Allow, "")
}

func (c *call) render(o hook.Outcome, reason string) hook.Answer {
	return hook.Render(c.p.Tool, c.p.Event, o, reason)
}

// apply applies ev to the session's breaker. A committed update whose
// follow-up failed still decides (the store finishes it next time).
func (c *call) apply(ctx context.Context, ev lb.Event) (breaker.Result, error) {
	ev.Caller = c.caller()
	if c.Guard != nil {
		ev.Fingerprint = c.Guard.Fingerprint
	}
	res, err := c.Service.Apply(ctx, []string{c.Scope}, ev)
	if err != nil && errors.Is(err, lb.ErrCommitted) && len(res.States) > 0 {
		c.logf("loopbreaker: warning: %v\n", err)
		err = nil
	}
	if err == nil && len(res.States) == 0 {
		err = errors.New("the breaker returned no state")
	}
	return res, err
}

func (c *call) failure(err error) hook.Answer {
	return Failure(c.p, c.Session, c.Config.OnError, err, c.Log)
}

// Failure answers a hook call when loopbreaker itself failed (a
// configuration it cannot read, a corrupt state, a bug). on_error
// "continue" tells the person and lets the agent go on; "stop" (the
// default, also when the configuration could not be read: pass "")
// refuses tool calls and prompts with the error. A turn end is never
// blocked. The message also goes to log.
func Failure(p *hook.Payload, session, onError string, err error, log io.Writer) hook.Answer {
	msg := fmt.Sprintf("loopbreaker: the breaker itself failed: %v", err)
	if log != nil {
		fmt.Fprintln(log, msg)
	}
	if onError == lb.OnErrorContinue {
		return hook.Render(p.Tool, p.Event, hook.Notice, msg+" (on_error: continue, so the agent goes on UNGUARDED)")
	}
	msg += fmt.Sprintf(". Tool calls are refused until this is fixed (on_error: stop): see `loopbreaker status --session %s`, `loopbreaker recover`, or set on_error: continue to go on unguarded.", session)
	switch p.Kind {
	case hook.KindPreTool, hook.KindPrompt:
		return hook.Render(p.Tool, p.Event, hook.Deny, msg)
	}
	return hook.Render(p.Tool, p.Event, hook.Notice, msg)
}

// baseDir is the directory relative paths in a payload are relative to:
// the agent's cwd when it exists here, else Dir.
func (c *call) baseDir() string {
	if d := c.p.Cwd; d != "" && filepath.IsAbs(d) {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			return d
		}
	}
	if c.Dir != "" {
		return c.Dir
	}
	return c.Project
}
