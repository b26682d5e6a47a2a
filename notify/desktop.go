package notify

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"

	lb "github.com/loopbreaker/loopbreaker"
)

// desktopCommand is the program and arguments that show a notification
// on the desktop of goos: notify-send on Linux and the BSDs (libnotify),
// osascript on macOS. The text goes in as arguments, never through a
// shell. ok is false on a system with no such program known.
func desktopCommand(goos string, p *Payload) (name string, args []string, ok bool) {
	title, text := titleText(p)
	body := oneLine(text)
	switch goos {
	case "darwin":
		script := fmt.Sprintf("display notification %s with title %s", appleString(body), appleString(title))
		return "osascript", []string{"-e", script}, true
	case "windows", "plan9", "js", "wasip1":
		return "", nil, false
	}
	urgency := "normal"
	if p.To == lb.Open {
		urgency = "critical"
	}
	return "notify-send", []string{"--app-name=loopbreaker", "--urgency=" + urgency, "--", title, body}, true
}

// appleString quotes s as an AppleScript string literal.
func appleString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// showDesktop shows p on the desktop. It never fails a delivery: a
// desktop is a convenience, and a machine without one (a server, CI) is
// told once, in the log, how to turn the setting off.
func (n *Notifier) showDesktop(p *Payload) {
	name, args, ok := desktopCommand(n.opts.GOOS, p)
	if !ok {
		n.desktopWarnOnce(fmt.Sprintf("notify.desktop: no desktop notifications on %s; set notify.desktop: false, or use notify.command", n.opts.GOOS))
		return
	}
	path, err := exec.LookPath(name)
	if err != nil {
		hint := "install it (libnotify: apt install libnotify-bin, dnf install libnotify)"
		if name == "osascript" {
			hint = "it ships with macOS; check PATH"
		}
		n.desktopWarnOnce(fmt.Sprintf("notify.desktop: %s is not on PATH, so notifications are not shown on the desktop: %s, or set notify.desktop: false", name, hint))
		return
	}
	ctx, cancel := context.WithTimeout(n.ctx, n.opts.Timeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, args...).CombinedOutput()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			err = fmt.Errorf("%w: %s", err, strings.TrimSpace(string(out)))
		}
		n.log.Warn("notify.desktop: "+name+" failed", "scope", p.Scope, "err", err)
	}
}

// desktopWarnOnce logs msg the first time the desktop cannot be reached.
func (n *Notifier) desktopWarnOnce(msg string) {
	if n.desktopWarned {
		return
	}
	n.desktopWarned = true
	n.log.Warn(msg)
}
