package notify

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
)

// fakeDesktop puts a program called name on PATH that writes its
// arguments, one per line and a blank line after each run, to the file it
// returns: the boundary a desktop notification crosses is that command.
func fakeDesktop(t *testing.T, name string) string {
	t.Helper()
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh")
	}
	dir := t.TempDir()
	log := filepath.Join(dir, "calls")
	script := "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done >> " + log + "\necho >> " + log + "\n"
	if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	return log
}

func desktopCalls(t *testing.T, log string) []string {
	t.Helper()
	b, err := os.ReadFile(log)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	s := strings.TrimSpace(string(b))
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n\n")
}

// notify.desktop runs notify-send with the title and the line, OPEN as
// critical, debounced as the webhook is: changes inside the interval are
// one notification when it ends.
func TestDesktopNotifySendDebounced(t *testing.T) {
	calls := fakeDesktop(t, "notify-send")
	clk := newFakeClock()
	n, err := New(Options{Desktop: true, GOOS: "linux", Debounce: time.Minute, Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close(context.Background())
	n.Notify(change("session:claude", lb.Closed, lb.Open, "no progress in 3 iterations"))
	waitStats(t, n, func(s Stats) bool { return s.Sent == 1 })
	got := desktopCalls(t, calls)
	want := "--app-name=loopbreaker\n--urgency=critical\n--\nloopbreaker: session:claude is OPEN\nloopbreaker: session:claude is OPEN (was CLOSED): no progress in 3 iterations"
	if len(got) != 1 || got[0] != want {
		t.Fatalf("notify-send calls:\n%q\nwant one:\n%q", got, want)
	}
	n.Notify(change("session:claude", lb.Open, lb.HalfOpen, "cooldown over"))
	n.Notify(change("session:claude", lb.HalfOpen, lb.Closed, "probe progressed"))
	waitStats(t, n, func(s Stats) bool { return s.Handled == 3 })
	clk.waitTimers(t, 1)
	if got := desktopCalls(t, calls); len(got) != 1 {
		t.Fatalf("inside the debounce interval: %d calls, want 1 (held back)", len(got))
	}
	clk.Advance(time.Minute)
	waitStats(t, n, func(s Stats) bool { return s.Sent == 2 })
	got = desktopCalls(t, calls)
	if len(got) != 2 || !strings.Contains(got[1], "--urgency=normal") || !strings.Contains(got[1], "session:claude is CLOSED (was OPEN): probe progressed") {
		t.Fatalf("after the interval: %q", got)
	}
}

// On macOS the notification is an AppleScript run by osascript, its
// strings quoted so that the agent's text cannot end them.
func TestDesktopOsascriptQuotes(t *testing.T) {
	calls := fakeDesktop(t, "osascript")
	n, err := New(Options{Desktop: true, GOOS: "darwin"})
	if err != nil {
		t.Fatal(err)
	}
	n.Notify(change("session:default", lb.Closed, lb.Open, `same error: "x" \ y`))
	waitStats(t, n, func(s Stats) bool { return s.Sent == 1 })
	n.Close(context.Background())
	got := desktopCalls(t, calls)
	want := "-e\n" + `display notification "loopbreaker: session:default is OPEN (was CLOSED): same error: \"x\" \\ y" with title "loopbreaker: session:default is OPEN"`
	if len(got) != 1 || got[0] != want {
		t.Fatalf("osascript calls:\n%q\nwant:\n%q", got, want)
	}
}

// A machine without notify-send (a server, CI) gets one warning that says
// what to do, however many notifications there are, and every delivery
// still counts as sent: the desktop never fails one.
func TestDesktopMissingWarnsOnce(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	var buf bytes.Buffer // read after Close, when the worker has ended
	n, err := New(Options{Desktop: true, GOOS: "linux", Logger: slog.New(slog.NewTextHandler(&buf, nil))})
	if err != nil {
		t.Fatal(err)
	}
	n.Notify(change("a", lb.Closed, lb.Open, "one"))
	n.Notify(change("b", lb.Closed, lb.Open, "two"))
	waitStats(t, n, func(s Stats) bool { return s.Sent == 2 })
	n.Close(context.Background())
	if s := n.Stats(); s.Failed != 0 {
		t.Fatalf("stats %+v: a missing desktop failed a delivery", s)
	}
	log := buf.String()
	if c := strings.Count(log, "notify-send is not on PATH"); c != 1 {
		t.Fatalf("%d warnings, want 1:\n%s", c, log)
	}
	if !strings.Contains(log, "apt install libnotify-bin") || !strings.Contains(log, "notify.desktop: false") {
		t.Fatalf("the warning does not say what to do:\n%s", log)
	}
}
