package notify

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// Env is the environment notify.command runs with: the process's own,
// plus the change:
//
//	LOOPBREAKER_SCOPE     the breaker (session:claude)
//	LOOPBREAKER_FROM      the state before (CLOSED, HALF_OPEN, OPEN)
//	LOOPBREAKER_TO        the state now
//	LOOPBREAKER_MODE      warning or probe when LOOPBREAKER_TO is HALF_OPEN
//	LOOPBREAKER_REASON    why, in words
//	LOOPBREAKER_DETECTOR  the detector behind it
//	LOOPBREAKER_TIME      when, RFC 3339
//	LOOPBREAKER_CHANGES   the changes this notification covers (debounce)
//	LOOPBREAKER_TITLE     a short title ("loopbreaker: session:claude is OPEN")
//	LOOPBREAKER_TEXT      one line for people
func Env(p *Payload) []string {
	title, text := titleText(p)
	return []string{
		"LOOPBREAKER_SCOPE=" + p.Scope, "LOOPBREAKER_FROM=" + string(p.From), "LOOPBREAKER_TO=" + string(p.To),
		"LOOPBREAKER_MODE=" + string(p.Mode), "LOOPBREAKER_REASON=" + oneLine(p.Reason), "LOOPBREAKER_DETECTOR=" + p.Detector,
		"LOOPBREAKER_TIME=" + p.Time.UTC().Format(time.RFC3339), "LOOPBREAKER_CHANGES=" + strconv.Itoa(max(p.Changes, 1)),
		"LOOPBREAKER_TITLE=" + title, "LOOPBREAKER_TEXT=" + oneLine(text),
	}
}

// titleText is a notification's short title ("loopbreaker:
// session:claude is OPEN") and its one line for people.
func titleText(p *Payload) (title, text string) {
	state := string(p.To)
	if p.Mode != "" {
		state += " (" + string(p.Mode) + ")"
	}
	title = fmt.Sprintf("loopbreaker: %s is %s", p.Scope, state)
	text = title + " (was " + string(p.From) + ")"
	if p.Reason != "" {
		text += ": " + p.Reason
	}
	return title, text
}

// runCommand runs notify.command for p, bounded by the timeout; its
// output goes to the log, never to the agent.
func (n *Notifier) runCommand(p *Payload) error {
	ctx, cancel := context.WithTimeout(n.ctx, n.opts.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", n.opts.Command)
	cmd.Env = append(os.Environ(), Env(p)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("notify.command failed: %w: %s", err, strings.TrimSpace(string(out)))
	}
	return nil
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
