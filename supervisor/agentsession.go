package supervisor

import (
	"crypto/rand"
	"fmt"
)

// AgentSession is how one agent CLI continues its own session from one
// iteration to the next (run.continue_session), so that the agent keeps
// what it read and tried instead of starting fresh. internal/cli knows
// each CLI's arguments and supplies them; the loop only keeps the id.
type AgentSession struct {
	// Begin rewrites the first iteration's command so that the session
	// it starts has the id given (claude --session-id). nil, or false,
	// when the CLI picks its own id: FindID then reads it from the
	// iteration's output.
	Begin func(argv []string, id string) ([]string, bool)
	// Continue rewrites an iteration's command so that it continues the
	// session id (claude --resume ID, codex exec resume ID). False when
	// the command cannot continue one (it manages sessions itself, or
	// keeps none): the iteration then runs as given.
	Continue func(argv []string, id string) ([]string, bool)
	// FindID reads the session's id from an iteration's output, "" when
	// it is not there. Used when Begin could not pin the id.
	FindID func(stdout, stderr []byte) string
}

// sessionArgs rewrites argv for the agent's session: the first iteration
// begins one (its id pinned when the CLI allows), the next ones continue
// it. It returns the id pinned, if any.
func (l *loop) sessionArgs(argv []string) ([]string, string) {
	as := l.cfg.AgentSession
	if as == nil {
		return argv, ""
	}
	if l.agentSession != "" {
		if out, ok := as.Continue(argv, l.agentSession); ok {
			return out, ""
		}
		return argv, ""
	}
	if as.Begin == nil {
		return argv, ""
	}
	id := newSessionID()
	if out, ok := as.Begin(argv, id); ok {
		return out, id
	}
	return argv, ""
}

// keepSession remembers the session an iteration ran in, for the next
// one to continue. An iteration that failed (an exit code other than 0,
// a timeout) is not continued: its session may not exist, or be what
// went wrong, so the next iteration starts a fresh one.
func (l *loop) keepSession(pinned string, out, errs *capture, r ran) {
	as := l.cfg.AgentSession
	if as == nil {
		return
	}
	if r.exitCode != 0 || r.timedOut {
		if l.agentSession != "" || pinned != "" {
			l.con.line("loopbreaker: the iteration failed: the next one starts a fresh agent session")
		}
		l.agentSession = ""
		return
	}
	id := pinned
	if id == "" && as.FindID != nil {
		if found := as.FindID(out.lastText(), errs.lastText()); found != "" {
			id = found
		}
	}
	if id == "" {
		id = l.agentSession
	}
	if id == "" {
		l.con.line("loopbreaker: run.continue_session: the agent's session id was not found in its output: the next iteration starts a fresh session")
	}
	l.agentSession = id
}

// newSessionID is a random UUID (version 4), the form the CLIs take.
func newSessionID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
