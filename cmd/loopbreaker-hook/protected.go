package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/residentwire"
)

// protectedWait bounds one exchange with the protected breaker: a breaker
// that hangs denies the call instead of holding the agent.
const protectedWait = 60 * time.Second

// blockingEvents are the events whose exit code 2 refuses the tool call
// the agent was about to make, in the protocol Claude Code defined and
// the CLIs with a managed scope share. A prompt is let through: the
// agent's tool calls are denied with the reason, which it can pass on to
// the person. On any other event exit 2 would make the agent go on
// (Stop) or mean nothing.
var blockingEvents = []string{"PreToolUse", "PermissionRequest", "BeforeTool"}

// protectedRoot takes `--protected ROOT` (or `--protected=ROOT`) out of
// the arguments after the CLI's name.
func protectedRoot(args []string) (root string, rest []string, ok bool) {
	for i, a := range args {
		if v, found := strings.CutPrefix(a, "--protected="); found {
			return v, append(slices.Clone(args[:i]), args[i+1:]...), true
		}
		if a == "--protected" && i+1 < len(args) {
			return args[i+1], append(slices.Clone(args[:i]), args[i+2:]...), true
		}
	}
	return "", args, false
}

// protected answers a call through the protected breaker below root, or
// denies it: the exit code and stderr the CLIs read as a refusal.
func protected(root string, args []string, env []string) int {
	stdin, err := io.ReadAll(io.LimitReader(os.Stdin, maxStdin))
	if err != nil {
		return denied(args, stdin, fmt.Errorf("reading the payload: %w", err))
	}
	if !filepath.IsAbs(root) {
		return denied(args, stdin, fmt.Errorf("--protected %q is not an absolute path", root))
	}
	dir := residentwire.SystemDir(root)
	sock, err := residentwire.SocketPath(dir)
	if err != nil {
		return denied(args, stdin, err)
	}
	if err := residentwire.CheckSystem(dir); err != nil {
		return denied(args, stdin, err)
	}
	wd, err := os.Getwd()
	if err != nil {
		return denied(args, stdin, fmt.Errorf("reading the working directory: %w", err))
	}
	c, err := dial(sock)
	if err != nil {
		return denied(args, stdin, err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(protectedWait))
	resp, err := exchange(c, &residentwire.Request{Args: append([]string{"hook"}, args...), Env: env, Dir: wd, Stdin: stdin})
	switch {
	case err != nil:
		return denied(args, stdin, err)
	case resp.Err != "":
		return denied(args, stdin, fmt.Errorf("it refused the call: %s", resp.Err))
	case resp.Replaced:
		return denied(args, stdin, fmt.Errorf("it answered as a breaker being replaced, which a protected breaker never is"))
	}
	pass(resp)
	// Passed on: the breaker forgets the call. Killed before this, the
	// call is one the breaker reports at the next (its answer was lost).
	residentwire.WriteAck(c)
	return resp.Code
}

// denied is the answer when the protected breaker could not answer: the
// tool call is refused with exit code 2 and the reason on
// stderr; on other events the reason is shown as a hook error (exit 1),
// which neither runs nor stops anything.
func denied(args []string, stdin []byte, why error) int {
	event := eventOf(args, stdin)
	fmt.Fprintf(os.Stderr, "loopbreaker: the protected breaker cannot be reached (%v), so this %s is denied: protected mode fails closed. A person checks it with `loopbreaker protect status` and restarts it with `sudo systemctl restart loopbreaker-protected` (or `sudo loopbreaker protect setup` again).\n", why, describe(event))
	// A payload that names no event may be a tool call's: refused too.
	if event == "" || slices.Contains(blockingEvents, event) {
		return 2
	}
	return 1
}

// eventOf is the call's event: the payload's hook_event_name, else the
// word after the CLI's name (for a CLI whose command names it).
func eventOf(args []string, stdin []byte) string {
	var p struct {
		Event string `json:"hook_event_name"`
	}
	if json.Unmarshal(stdin, &p) == nil && p.Event != "" {
		return p.Event
	}
	if len(args) > 1 && !strings.HasPrefix(args[1], "-") {
		return args[1]
	}
	return ""
}

func describe(event string) string {
	switch event {
	case "PreToolUse", "BeforeTool", "PermissionRequest":
		return "tool call"
	case "UserPromptSubmit":
		return "prompt"
	case "":
		return "hook call"
	}
	return event + " hook call"
}
