package hookpolicy

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/loopbreaker/loopbreaker/agent"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/gitrepo"
	"github.com/loopbreaker/loopbreaker/hook"
	"github.com/loopbreaker/loopbreaker/internal/shell"
	"github.com/loopbreaker/loopbreaker/report"
)

// decide turns a decision into an outcome: OPEN stops the agent, a busy
// probe denies, a warning nudges the model once per episode.
func (c *call) decide(ctx context.Context, d lb.Decision) hook.Answer {
	st := c.tx.State()
	switch {
	case !d.Allowed && d.State == lb.Open:
		// A prompt or a session start is a person (or a loop) starting
		// again: always the whole message.
		msg := c.haltReminder(d)
		// Where the person sees nothing of the answer, the message goes
		// to the model there without counting as given, so that the first
		// refusal, which the person sees, carries it.
		unseen := slices.Contains(c.Agent.Traits().UnseenHaltEvents, c.p.Event)
		if again := c.p.Kind == hook.KindPrompt || c.p.Kind == hook.KindSessionStart; again || unseen || c.firstHalt() {
			msg = c.haltMessage(ctx, d, st)
		}
		if unseen && c.p.Kind == hook.KindPrompt && !c.haltShown() {
			// Refused, the prompt would end the run in silence: it goes
			// on, the model told, and the next call is refused or the
			// turn ends, each of which the person sees.
			return c.render(hook.Nudge, msg)
		}
		if hs, ok := c.Agent.(agent.HarmlessStopper); ok && c.p.Kind == hook.KindPreTool {
			note := fmt.Sprintf("loopbreaker: this call was not made: the circuit breaker of session %s is OPEN (%s). Stop here and end your turn.", c.Session, d.Reason)
			if in := c.harmlessInput(note); in != nil {
				return hs.StopInstead(c.p.Event, msg, in)
			}
		}
		return c.render(hook.Stop, msg)
	case !d.Allowed:
		if c.p.Kind == hook.KindStop {
			return c.render(hook.Allow, "")
		}
		return c.render(hook.Deny, fmt.Sprintf("loopbreaker: %s (session %s). Wait, or end your turn.", d.Reason, c.Session))
	case d.Warning && c.p.Kind != hook.KindStop && c.Agent.NudgeReachesModel(c.p.Event) && c.firstNudge():
		msg := fmt.Sprintf("loopbreaker: the circuit breaker is HALF_OPEN (warning) for session %s: %s", c.Session, d.Reason)
		if n, ok := c.Agent.(agent.FailedCallNudger); ok {
			if ans, ok := n.NudgeFailedCall(c.p, msg); ok {
				return ans
			}
		}
		return c.render(hook.Nudge, msg)
	}
	return c.render(hook.Allow, "")
}

// unrecorded answers a call that could not be recorded while the
// breaker's state reads OPEN (breaker.OpenDespite): the agent is stopped
// as by any OPEN answer, with the reason the state holds; the memory of
// what the session was told is not at hand, so the whole one-line reason
// is given each time.
func unrecorded(a agent.Agent, p *hook.Payload, session string, d lb.Decision) hook.Answer {
	ans := a.Render(p.Event, hook.Stop, haltReminder(session, d))
	ans.Failed = true
	return ans
}

// haltMessage says why the breaker is OPEN, what the report makes of it,
// and how a person resets it.
func (c *call) haltMessage(ctx context.Context, d lb.Decision, st *lb.BreakerState) string {
	now := c.now()
	opts := report.Options{Now: now, Session: c.Session, Program: "loopbreaker"}
	if st.Slice != "" {
		// Only when halting: the report recommends a rollback when a
		// checkpoint exists.
		if repo, err := gitrepo.Open(ctx, c.Project); err == nil {
			if cps, err := repo.Checkpoints(ctx); err == nil {
				for _, cp := range cps {
					if cp.Slice == st.Slice {
						opts.CheckpointTag = cp.Tag
					}
				}
			}
		}
	}
	eng := c.Service.Engine
	if c.tx != nil {
		eng = c.tx.Engine() // the configuration in force, maybe not the file's
	}
	r := report.Build(st, eng.Status(st, now), opts)
	var b strings.Builder
	b.WriteString(report.Summary(r))
	fmt.Fprintf(&b, "\nStop here and end your turn: tool calls of session %s are refused until a person resets the breaker", c.Session)
	if d.RetryAt != nil {
		fmt.Fprintf(&b, " or the cooldown ends (%s)", d.RetryAt.UTC().Format(time.RFC3339))
	}
	fmt.Fprintf(&b, ".\nReport: loopbreaker report --session %s", shell.Quote(c.Session))
	if !strings.Contains(b.String(), "loopbreaker reset ") {
		fmt.Fprintf(&b, "\nReset: loopbreaker reset --session %s --guidance \"what to do differently\"", shell.Quote(c.Session))
	}
	return b.String()
}

// harmlessInput is the input that replaces a call while the breaker is
// OPEN, for a CLI that stops only after a call ran (agent.HarmlessStopper): for Bash a command that prints
// note, for Read loopbreaker's own note file, for Write a new note file in
// the state directory. Other tools (an Edit needs a file read before) have
// none and are denied.
func (c *call) harmlessInput(note string) map[string]string {
	switch c.p.ToolName {
	case "Bash":
		return map[string]string{"command": "printf '%s\\n' " + shell.Quote(note)}
	case "Read", "Write":
		rel := c.noteName(fmt.Sprintf(".halted-%d.txt", c.now().UnixNano()))
		name := filepath.Join(c.StateDir, filepath.FromSlash(rel))
		if c.p.ToolName == "Write" {
			// The agent's Write creates it: its directory must be a real
			// directory of the state, not a link planted there.
			if err := c.noteDir(rel); err != nil {
				c.logf("loopbreaker: cannot prepare the note a refused Write writes (%v); denying it\n", err)
				return nil
			}
			return map[string]string{"file_path": name, "content": note + "\n"}
		}
		if err := c.writeNote(rel, []byte(note+"\n")); err != nil {
			c.logf("loopbreaker: cannot write the note a refused Read reads (%v); denying it\n", err)
			return nil
		}
		return map[string]string{"file_path": name}
	}
	return nil
}

// haltReminder is the one-line refusal after the halt message was given
// in this agent session.
func (c *call) haltReminder(d lb.Decision) string { return haltReminder(c.Session, d) }

func haltReminder(session string, d lb.Decision) string {
	return fmt.Sprintf("loopbreaker: refused: the circuit breaker of session %s is still OPEN (%s). End your turn; the reason and what to do were given above. Report: loopbreaker report --session %s",
		session, d.Reason, shell.Quote(session))
}
