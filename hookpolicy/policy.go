// Package hookpolicy decides how loopbreaker answers one hook call of an
// agent CLI: which event of the session's breaker a payload becomes, when a
// warning is worth telling the model (once per episode), which tool calls
// the scope lock refuses, which calls failed without a report (pending
// calls), and what the halt message says.
//
// It is the hook's policy without its command line: its inputs are a
// parsed hook.Payload, the session's breaker service, the configuration and
// a clock; its output is a hook.Answer. internal/cli only wires it; another
// adapter (a transcript tailer, the server) can use it the same way. What
// it must remember between two hook processes (calls still waiting for
// their result, the batch they run in, the warning episode delivered, the
// test that failed last) is the session memory of the breaker state,
// changed in the same atomic update as the breaker itself.
package hookpolicy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/agent"
	"github.com/loopbreaker/loopbreaker/breaker"
	"github.com/loopbreaker/loopbreaker/gitrepo"
	"github.com/loopbreaker/loopbreaker/hook"
)

// DirName is the directory, inside the state directory, of the files hooks
// keep besides the breaker state.
const DirName = "hooks"

// Policy answers the hook calls of one session's breaker. The zero value
// is not usable: Agent, Service, Scope, Session, Config, Project and
// StateDir are required.
type Policy struct {
	// Agent is the CLI whose hook is called: its protocol and traits.
	Agent agent.Agent
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
	// EngineFor is the engine of the session's scope under another
	// configuration: the one the session started with, kept in its state,
	// when loopbreaker.yaml changed since (configInForce). nil: the file
	// is obeyed as it is.
	EngineFor func(cfg lb.Config) *breaker.Engine
	// Guard refuses the agent's attempts to silence its breaker (nil:
	// none are refused).
	Guard *Guard
	// Unseen describes hook calls that let a tool call through unchecked
	// (killed before they answered, or run by the installed guard while
	// loopbreaker could not run), found by the command line before this
	// call, one line each; each is recorded as an attempt to silence the
	// breaker.
	Unseen []string
	// Late describes hook calls the agent CLI's hook timeout stopped while
	// they were late on a slow machine, one line each: their tool calls
	// went on unchecked, which is said loudly (stderr, and to the person
	// when this call has nothing else to say), but nobody tried to
	// silence the breaker.
	Late []string
	// Files measures what changed in the work tree since the previous
	// turn end of the session (files, and whether HEAD moved), for the
	// turn's iteration; nil (or an error) records the turn end as a check
	// only. GitFiles is the usual one.
	Files func(ctx context.Context) (gitrepo.Change, error)
	// Baseline, at a prompt or a session's start, takes the work tree's
	// state as the session's starting point when it has none, so that
	// Files compares its first turn end with the turn's start (a first
	// turn that commits its work is change); nil: none. GitBaseline is
	// the usual one.
	Baseline func(ctx context.Context) error
	// ConfigJSON writes Config as the session keeps it, to name it and
	// tell it from the kept one (nil: jsonenc.Marshal). A long-running
	// process remembers the last one it wrote (session.Kept.ConfigJSON).
	ConfigJSON func(lb.Config) ([]byte, error)
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

// call is one hook call being answered, inside one atomic update of the
// session's breaker (tx): the events it records and what it remembers are
// saved together.
type call struct {
	*Policy
	p  *hook.Payload
	tx *breaker.Tx
	// outcome is the last answer rendered.
	outcome hook.Outcome
	// onDisk is the configuration the files say now; Config is the one
	// in force for the session.
	onDisk lb.Config
	// files are the files changed since the previous turn end, measured
	// before the update (a turn end of the main agent only); filesErr
	// says why they were not.
	files    gitrepo.Change
	filesErr error
	// message holds the ids (callID) of the calls of the model message
	// that asked for the call announced, once read (see inMessage).
	message     []string
	messageRead bool
	// named is the message that asked for the call announced, for a CLI
	// that names no call (see messageName), once read.
	named     string
	namedRead bool
}

// Answer decides how to answer one hook call and renders the answer in the
// payload's protocol. It never panics on a payload Parse accepted: a bug
// of loopbreaker's own becomes a Failure answer. A store that cannot be
// read or written is a failure too, answered as on_error says: with
// on_error: stop a tool call is refused rather than let through unseen.
func (p *Policy) Answer(ctx context.Context, payload *hook.Payload) (ans hook.Answer) {
	c := &call{Policy: p, p: payload, onDisk: p.Config}
	defer func() {
		// A bug of loopbreaker's must not turn into an exit code the agent
		// reads as a verdict.
		if r := recover(); r != nil {
			ans = c.failure(fmt.Errorf("internal error: %v", r))
		}
	}()
	ans, err := p.update(ctx, c)
	var kept keptEnabled
	if errors.As(err, &kept) {
		// The files switch the breaker off, but the session runs with
		// the configuration it started with, which has it on: the call
		// is answered again with that one, in an update that records
		// (a breaker switched off records nothing), after what must be
		// measured outside it.
		svc := *p.Service
		svc.Engine = p.EngineFor(kept.cfg)
		p.Service, p.Config = &svc, kept.cfg
		ans, err = p.update(ctx, c)
	}
	if err != nil {
		if failed, stands := OnFailure(ctx, p.Agent, payload, p.Service.Store, p.Scope, p.Session, p.Config.OnError, err, p.Log); !stands {
			return failed
		}
	}
	return c.tellLate(ans)
}

// update measures what the call needs from outside the lock, then answers
// it inside one atomic update of the session's breaker.
func (p *Policy) update(ctx context.Context, c *call) (ans hook.Answer, err error) {
	payload := c.p
	if payload.Kind == hook.KindStop && payload.Event != "SubagentStop" && p.Config.Enabled {
		// Measured before the update: git must not run under the lock.
		c.files, c.filesErr = c.changedFiles(ctx)
	}
	if (payload.Kind == hook.KindPrompt || payload.Kind == hook.KindSessionStart) && p.Config.Enabled && p.Baseline != nil {
		// Before the update too: git must not run under the lock.
		if err := p.Baseline(ctx); err != nil {
			p.logf("loopbreaker: the work tree's state at the turn's start was not kept (%v): the first turn end compares with HEAD\n", err)
		}
	}
	_, err = p.Service.Transact(ctx, p.Scope, p.caller(), func(tx *breaker.Tx) error {
		c.tx = tx
		wasOpen := tx.State().State == lb.Open
		defer func() {
			if !wasOpen && tx.State().State == lb.Open {
				c.cutPending()
			}
		}()
		if err := c.configInForce(); err != nil {
			return err
		}
		c.seen()
		if err := c.recordUnseen(); err != nil {
			return err
		}
		if err := c.recordSwitchChanges(); err != nil {
			return err
		}
		var err error
		ans, err = c.dispatch(ctx)
		return err
	})
	return ans, err
}

// tellLate says what Late describes: on stderr, and to the person instead
// of an answer that says nothing.
func (c *call) tellLate(ans hook.Answer) hook.Answer {
	if len(c.Late) == 0 {
		return ans
	}
	for _, what := range c.Late {
		c.logf("loopbreaker: warning: %s\n", what)
	}
	if c.outcome != hook.Allow {
		return ans
	}
	msg := "loopbreaker: " + strings.Join(c.Late, "; ")
	if len(c.Late) > 1 {
		msg = fmt.Sprintf("loopbreaker: %d hook calls did not answer within the agent CLI's hook timeout: %s", len(c.Late), strings.Join(c.Late, "; "))
	}
	return c.render(hook.Notice, msg+". If the machine is not that busy, run `loopbreaker hook status`.")
}

// dispatch answers the hook call by its kind.
func (c *call) dispatch(ctx context.Context) (hook.Answer, error) {
	switch c.p.Kind {
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
	return c.render(hook.Allow, ""), nil
}

func (c *call) render(o hook.Outcome, reason string) hook.Answer {
	c.outcome = o
	return c.Agent.Render(c.p.Event, o, reason)
}

// apply applies ev to the session's breaker within the call's update.
func (c *call) apply(ev lb.Event) (lb.Decision, error) {
	ev.Caller = c.caller()
	if c.Guard != nil {
		ev.Fingerprint = c.Guard.Fingerprint
	}
	return c.tx.Apply(ev)
}

// recordUnseen records the hook calls that let a tool call through
// unchecked (Unseen): each counts as an attempt to silence the breaker.
func (c *call) recordUnseen() error {
	for _, what := range c.Unseen {
		c.logf("loopbreaker: %s\n", what)
		if _, err := c.apply(lb.Event{Kind: lb.EventTamper, Tamper: &lb.Tamper{Tool: "hook", What: []string{what}}}); err != nil {
			return err
		}
	}
	return nil
}

// seen notes that a hook call of this agent session arrived, for `hook
// status`: it tells a CLI whose hooks never run from one whose hooks run.
func (c *call) seen() {
	if !c.Config.Enabled {
		return
	}
	m := c.tx.Memory()
	now := c.now().UTC()
	for i := range m.Seen {
		s := &m.Seen[i]
		if s.Tool == string(c.p.Tool) && s.SessionID == c.p.SessionID {
			s.Last, s.LastEvent = now, c.p.Event
			s.Calls++
			return
		}
	}
	m.Seen = append(m.Seen, lb.SeenSession{Tool: string(c.p.Tool), SessionID: c.p.SessionID, First: now, Last: now, LastEvent: c.p.Event, Calls: 1})
	if n := len(m.Seen) - lb.MaxAgentSessions; n > 0 {
		m.Seen = m.Seen[n:]
	}
}

func (c *call) failure(err error) hook.Answer {
	ans, _ := OnFailure(context.Background(), c.Agent, c.p, nil, "", c.Session, c.Config.OnError, err, c.Log)
	return ans
}

// OnFailure answers a hook call whose breaker failed to take it (a
// configuration it cannot read, a corrupt state, a store that is down, a
// bug), as breaker.OnFailure decides for a session whose on_error is
// onError ("" when the configuration could not be read): store, which
// may be nil, is the store the state of scope is read from. A state that
// reads OPEN stops the agent; on_error "continue" tells the person and
// lets the agent go on; "stop" (the default) refuses tool calls and
// prompts with the error. A turn end is never blocked. The message also
// goes to log. stands reports an update that was saved, whose own answer
// stands: the error is logged as a warning, and ans is empty.
func OnFailure(ctx context.Context, a agent.Agent, p *hook.Payload, store lb.Store, scope, session, onError string, err error, log io.Writer) (ans hook.Answer, stands bool) {
	outcome, d := breaker.OnFailure(ctx, store, scope, onError, err)
	if outcome == breaker.Saved {
		if log != nil {
			fmt.Fprintf(log, "loopbreaker: warning: %v\n", err)
		}
		return hook.Answer{}, true
	}
	if outcome == breaker.OpenDespite {
		if log != nil {
			fmt.Fprintf(log, "loopbreaker: the breaker's state reads OPEN and this call could not be recorded: %v\n", err)
		}
		return unrecorded(a, p, session, d), false
	}
	msg := fmt.Sprintf("loopbreaker: the breaker itself failed: %v", err)
	if log != nil {
		fmt.Fprintln(log, msg)
	}
	switch {
	case outcome == breaker.Unguarded:
		ans = a.Render(p.Event, hook.Notice, msg+" (on_error: continue, so the agent goes on UNGUARDED)")
	case p.Kind == hook.KindPreTool || p.Kind == hook.KindPrompt:
		ans = a.Render(p.Event, hook.Deny, msg+stopHint(session))
	default:
		ans = a.Render(p.Event, hook.Notice, msg+stopHint(session))
	}
	ans.Failed = true
	return ans, false
}

// stopHint says, after a failure with on_error: stop, what the person
// can do.
func stopHint(session string) string {
	return fmt.Sprintf(". Tool calls are refused until this is fixed (on_error: stop): see `loopbreaker status --session %s`, `loopbreaker recover`, or set on_error: continue to go on unguarded.", session)
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
