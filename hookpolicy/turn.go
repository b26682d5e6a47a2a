package hookpolicy

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/agent"
	"github.com/loopbreaker/loopbreaker/cannotrun"
	"github.com/loopbreaker/loopbreaker/gitrepo"
	"github.com/loopbreaker/loopbreaker/hook"
)

// stop handles a turn end. The calls still pending failed. A main-agent
// turn end records an iteration when the files changed since the previous
// turn end can be measured (no-progress detection across turns and agent
// restarts needs that); otherwise, and for a subagent, it only checks. A
// turn that only answered a background task's notification is not a turn
// without progress: it records an iteration only when files changed. It
// never blocks: a turn that ended on the model API's refusal (Claude Code
// 2.1 fires StopFailure then, but a CLI may end the turn with its error
// line as the last message) is not recorded either. OPEN answers with the protocol's stop (continue: false),
// which also overrides other Stop hooks that would keep the agent looping.
func (c *call) stop(ctx context.Context) (hook.Answer, error) {
	sub := c.p.Event == "SubagentStop"
	if !sub {
		if err := c.recordUnreported(true); err != nil {
			return hook.Answer{}, err
		}
		if err := c.recordFromTranscript(); err != nil {
			c.logf("loopbreaker: failed calls that fired no hook were not counted: %v\n", err)
		}
	}
	ev := lb.Event{Kind: lb.EventCheck}
	if !sub && c.Config.Enabled {
		msg := c.turnMessage()
		it := &lb.Iteration{Summary: summaryLine(msg)}
		ch, err := c.files, c.filesErr
		refusal, refused := cannotrun.ClassifyTurn(msg, c.now(), c.cannotRun())
		switch {
		case refused && err == nil && len(ch.Files) == 0 && !ch.HistoryMoved():
			// The model API refused the agent (a limit, an overload, a
			// login, the network): the agent could not work, which is
			// not being stuck. (Files it changed before are progress,
			// recorded below as any turn's.)
			c.logf("loopbreaker: turn end not recorded as an iteration: %s\n", refusal.Describe())
		case err != nil:
			c.logf("loopbreaker: turn end not recorded as an iteration: files changed not measured (%v)\n", err)
		case len(ch.Files) == 0 && !ch.HistoryMoved() && c.notificationTurn():
			// Claude Code answers a background task's notification with
			// a turn of its own and a second Stop.
		default:
			n := len(ch.Files)
			it.FilesChanged, it.Files, it.HeadMoved, it.RefsMoved = &n, ch.Files, ch.HeadMoved, ch.RefsMoved
			it.Usage = c.transcriptUsage()
			ev = lb.Event{Kind: lb.EventIteration, Iteration: it}
		}
	}
	d, err := c.apply(ev)
	if err != nil {
		return hook.Answer{}, err
	}
	return c.decide(ctx, d), nil
}

func (c *call) changedFiles(ctx context.Context) (gitrepo.Change, error) {
	if c.Files == nil {
		return gitrepo.Change{}, errNoMeasure
	}
	ch, err := c.Files(ctx)
	if ch.Files == nil && err == nil {
		ch.Files = []string{}
	}
	return ch, err
}

type measureError string

func (e measureError) Error() string { return string(e) }

const errNoMeasure = measureError("no way to measure the files changed")

// prompt handles a prompt or a session start: the calls still pending
// failed; OPEN refuses the prompt.
func (c *call) prompt(ctx context.Context) (hook.Answer, error) {
	c.markTranscript()
	if c.p.Kind == hook.KindPrompt {
		if err := c.recordUnreported(true); err != nil {
			return hook.Answer{}, err
		}
		c.noteNotification()
	}
	return c.check(ctx)
}

// noteNotification remembers whether the turn that starts was started by
// a task notification.
func (c *call) noteNotification() {
	want := ""
	if c.Agent.Traits().TaskNotifications && hook.TaskNotification(c.p.Prompt) {
		want = c.p.SessionID
	}
	if m := c.tx.Peek(); (m == nil && want == "") || (m != nil && m.Notification == want) {
		return
	}
	c.tx.Memory().Notification = want
}

// notificationTurn reports whether the turn that ends was started by a
// task notification of the same agent session.
func (c *call) notificationTurn() bool {
	m := c.tx.Peek()
	return m != nil && m.Notification != "" && m.Notification == c.p.SessionID
}

// turnMessage is the agent's message for the turn that ends. Where each
// turn end sends every retry's text so far (Gemini's prompt_response is
// cumulative), only the part added since the previous turn end counts.
func (c *call) turnMessage() string {
	msg := c.p.LastMessage
	if !c.Agent.Traits().CumulativeTurnText {
		return msg
	}
	if m := c.tx.Peek(); m != nil && m.Answer != nil {
		if prev := m.Answer; prev.Len > 0 && len(msg) > prev.Len && textHash(msg[:prev.Len]) == prev.Hash {
			msg = strings.TrimLeft(msg[prev.Len:], "\n")
		}
	}
	c.tx.Memory().Answer = &lb.TextMark{Len: len(c.p.LastMessage), Hash: textHash(c.p.LastMessage)}
	return msg
}

// textHash stands for a text in the session memory.
func textHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:12])
}

// summaryLine keeps the first line of the agent's last message, short.
func summaryLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		cut := 200
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

// cannotRun are the calling CLI's words when it cannot run, if loopbreaker
// knows them.
func (c *call) cannotRun() []cannotrun.Words {
	if cr, ok := c.Agent.(agent.CannotRunner); ok {
		return []cannotrun.Words{cr.CannotRun()}
	}
	return nil
}
