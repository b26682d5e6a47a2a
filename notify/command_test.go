package notify

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
)

// notify.command runs once per notification with the change in its
// environment, debounced as the webhook is: changes inside the interval
// are coalesced into one run when it ends.
func TestCommandPerNotificationDebounced(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	out := filepath.Join(t.TempDir(), "notes")
	clk := newFakeClock()
	n, err := New(Options{
		Command:  `printf '%s|%s|%s|%s|%s\n' "$LOOPBREAKER_SCOPE" "$LOOPBREAKER_TO" "$LOOPBREAKER_CHANGES" "$LOOPBREAKER_TITLE" "$LOOPBREAKER_REASON" >> ` + out,
		Debounce: time.Minute, Clock: clk, Backoff: func(int) time.Duration { return time.Second },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close(context.Background())
	lines := func() []string {
		b, _ := os.ReadFile(out)
		return strings.Split(strings.TrimSpace(string(b)), "\n")
	}
	n.Notify(change("session:claude", lb.Closed, lb.Open, "tokens since the last progress:\n412,000 of 400,000"))
	waitStats(t, n, func(s Stats) bool { return s.Sent == 1 })
	if got := lines(); len(got) != 1 || got[0] != "session:claude|OPEN|1|loopbreaker: session:claude is OPEN|tokens since the last progress: 412,000 of 400,000" {
		t.Fatalf("first run: %q", got)
	}
	n.Notify(change("session:claude", lb.Open, lb.HalfOpen, "cooldown over"))
	n.Notify(change("session:claude", lb.HalfOpen, lb.Closed, "probe succeeded"))
	waitStats(t, n, func(s Stats) bool { return s.Handled == 3 })
	clk.waitTimers(t, 1)
	clk.Advance(time.Minute)
	waitStats(t, n, func(s Stats) bool { return s.Sent == 2 })
	if got := lines(); len(got) != 2 || got[1] != "session:claude|CLOSED|2|loopbreaker: session:claude is CLOSED|probe succeeded" {
		t.Fatalf("after the interval: %q", got)
	}
}

// A command that fails is retried and then given up, as a webhook is.
func TestCommandFailureIsRetried(t *testing.T) {
	clk := newFakeClock()
	n, err := New(Options{Command: "exit 3", Retries: 1, Clock: clk, Backoff: func(int) time.Duration { return time.Second }})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close(context.Background())
	n.Notify(change("session:a", lb.Closed, lb.Open, "x"))
	clk.waitTimers(t, 1)
	clk.Advance(time.Second)
	s := waitStats(t, n, func(s Stats) bool { return s.Failed == 1 })
	if s.Retries != 1 || s.Sent != 0 {
		t.Fatalf("stats %+v", s)
	}
}
