package cli

import (
	"context"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/resident"
	"github.com/loopbreaker/loopbreaker/internal/residentwire"
)

// runProtect is `loopbreaker protect`: protected mode, where the breaker
// is a system service of its own user and the agents' users can neither
// reach its state and configuration nor switch its hooks off.
func runProtect(ctx context.Context, env *Env, args []string) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		printProtectUsage(env)
		if len(args) == 0 {
			return usagef("protect: name an action: setup, teardown, status or reset")
		}
		return nil
	}
	switch args[0] {
	case "setup":
		return runProtectSetup(ctx, env, args[1:])
	case "teardown":
		return runProtectTeardown(ctx, env, args[1:])
	case "status":
		return runProtectStatus(env, args[1:])
	case "reset":
		return runProtectCall(env, "reset", args[1:])
	}
	return usagef("protect: unknown action %q: setup, teardown, status or reset", args[0])
}

func printProtectUsage(env *Env) {
	fmt.Fprint(env.Stdout, `loopbreaker protect: the protected breaker, a system service the agent's user cannot reach

Usage:
  sudo loopbreaker protect setup --agent-user NAME --person-user NAME [--cli claude,codex,qwen,droid] [--user loopbreaker] [--root /]
      create the breaker's own system user, its directories, a systemd unit,
      and the managed hooks of each CLI, which run loopbreaker-hook
      --protected: a call the breaker does not answer is denied.
  sudo loopbreaker protect teardown [--cli ...] [--root /]
      undo the set-up: the hooks, the unit and the socket's directory
      (the state, the configuration and the user are kept; it says how to
      remove them).
  loopbreaker protect status [--root /]
      whether the protected breaker answers, and who owns its files.
  loopbreaker protect reset [--root /] [-C dir] [--session NAME] [reset flags]
      a person's reset, done by the protected breaker: refused for the
      agents' users.

See docs/protected.md.

Example:
  sudo loopbreaker protect setup --agent-user agent --person-user "$USER" --cli claude
`)
}

// runProtectCall asks the protected breaker to run command (a person's
// action) for the project of the working directory, and prints its
// answer.
func runProtectCall(env *Env, command string, args []string) error {
	// --root is protect's; every other flag is the command's, which the
	// breaker reads.
	root := "/"
	var rest []string
	for _, a := range args {
		if a == "-h" || a == "--help" {
			// Help is this program's to give, whether the breaker runs
			// or not.
			printProtectUsage(env)
			return nil
		}
	}
	for i := 0; i < len(args); i++ {
		switch v, ok := strings.CutPrefix(args[i], "--root="); {
		case ok:
			root = v
		case args[i] == "--root" && i+1 < len(args):
			root = args[i+1]
			i++
		default:
			rest = append(rest, args[i])
		}
	}
	root, err := filepath.Abs(root)
	if err != nil {
		return err
	}
	dir := residentwire.SystemDir(root)
	sock, err := residentwire.SocketPath(dir)
	if err != nil {
		return err
	}
	c, err := net.DialTimeout("unix", sock, 5*time.Second)
	if err != nil {
		return fmt.Errorf("protect %s: the protected breaker does not answer on %s (%v): a person checks `loopbreaker protect status` and restarts it with `sudo systemctl restart loopbreaker-protected`", command, sock, err)
	}
	defer c.Close()
	if err := residentwire.WriteRequest(c, &residentwire.Request{Args: append([]string{command}, rest...), Dir: env.Dir}); err != nil {
		return fmt.Errorf("protect %s: %w", command, err)
	}
	resp, err := residentwire.ReadResponse(c)
	if err != nil {
		return fmt.Errorf("protect %s: reading the protected breaker's answer: %w", command, err)
	}
	if resp.Err != "" {
		return fmt.Errorf("protect %s: the protected breaker %s", command, resp.Err)
	}
	env.Stdout.Write(resp.Stdout)
	env.Stderr.Write(resp.Stderr)
	if resp.Code != 0 {
		return &exitError{code: resp.Code}
	}
	return nil
}

// runProtectStatus says whether the protected breaker answers and who
// owns what it decides by; it exits 1 unless it answers and nothing is
// exposed.
func runProtectStatus(env *Env, args []string) error {
	fs := newFlagSet("protect status", env)
	root := fs.String("root", "/", "the system `root` (an image, a test)")
	if err := parse(fs, args); err != nil {
		return err
	}
	sys, err := newSystemMode(*root, resident.Rule{})
	if err != nil {
		return err
	}
	if residentwire.OwnerOf(sys.run) < 0 {
		fmt.Fprintf(env.Stdout, "protected breaker: not set up here (no %s): `sudo loopbreaker protect setup` sets it up (docs/protected.md)\n", sys.run)
		return &exitError{code: ExitError}
	}
	sock, _ := residentwire.SocketPath(sys.run)
	state, ok := "answers", true
	if c, err := net.DialTimeout("unix", sock, 2*time.Second); err != nil {
		state, ok = fmt.Sprintf("does NOT answer (%v): every tool call of the agents is denied; restart it with `sudo systemctl restart loopbreaker-protected`", err), false
	} else {
		c.Close()
	}
	fmt.Fprintf(env.Stdout, "protected breaker: %s\nsocket: %s\n", state, sock)
	for _, why := range sys.exposed() {
		fmt.Fprintf(env.Stdout, "exposed: %s\n", why)
		ok = false
	}
	if !ok {
		return &exitError{code: ExitError}
	}
	return nil
}
