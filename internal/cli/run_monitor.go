package cli

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// monitorRun is `loopbreaker run --monitor`: the loop beside `loopbreaker
// watch`, in tmux (Ralph's --monitor layout). Inside tmux ($TMUX set) the
// current window is split: watch opens in a pane on the right, and the
// loop goes on here (done is false). Outside, a new tmux session runs the
// loop (the same command line without --monitor) with watch beside it;
// on a terminal this process attaches to it, else it says how to, and in
// both cases its work is done (done is true).
func monitorRun(env *Env, o *runOptions, project string, args []string) (done bool, err error) {
	tmux, ok := lookPath(env, "tmux")
	if !ok {
		return false, errors.New("run --monitor opens `loopbreaker watch` beside the loop in tmux, and tmux is not on PATH: install it (apt install tmux, brew install tmux), or run `loopbreaker watch` in another terminal")
	}
	self, err := os.Executable()
	if err != nil {
		return false, fmt.Errorf("run --monitor: cannot find this program's path (%v): run `loopbreaker watch` in another terminal instead", err)
	}
	watch := []string{self, "watch", "-C", project, "--session", o.session}
	for _, s := range o.sets {
		watch = append(watch, "--set", s)
	}
	if env.Getenv("TMUX") != "" {
		// -d keeps the focus on the loop's pane.
		if out, err := tmuxCommand(env, tmux, append([]string{"split-window", "-h", "-d", "-c", project, "--"}, watch...)...).CombinedOutput(); err != nil {
			return false, fmt.Errorf("run --monitor: tmux split-window: %v: %s", err, strings.TrimSpace(string(out)))
		}
		fmt.Fprintln(env.Stderr, "loopbreaker: watch opened in the pane on the right (run --monitor)")
		return false, nil
	}

	if o.promptStdin {
		return false, usagef("run --monitor outside tmux runs the loop in a new tmux session, which cannot read this standard input: give the prompt with --prompt-file or --prompt")
	}
	name := monitorSessionName(o.session)
	if tmuxCommand(env, tmux, "has-session", "-t", "="+name).Run() == nil {
		return false, fmt.Errorf("run --monitor: tmux session %s exists already: attach to it (tmux attach -t %s), or end it (tmux kill-session -t %s)", name, name, name)
	}
	loop := append([]string{self, "run"}, withoutMonitor(args)...)
	steps := [][]string{
		append([]string{"new-session", "-d", "-s", name, "-c", env.Dir, "--"}, loop...),
		// The loop's pane stays when the loop ends, to read how it ended.
		{"set-option", "-p", "-t", name + ":0.0", "remain-on-exit", "on"},
		append([]string{"split-window", "-h", "-d", "-t", name + ":0", "-c", project, "--"}, watch...),
	}
	for _, st := range steps {
		if out, err := tmuxCommand(env, tmux, st...).CombinedOutput(); err != nil {
			return false, fmt.Errorf("run --monitor: tmux %s: %v: %s", st[0], err, strings.TrimSpace(string(out)))
		}
	}
	if !isTerminal(env.Stdout) || !isTerminal(env.Stdin) {
		fmt.Fprintf(env.Stderr, "loopbreaker: the loop runs in tmux session %s, with watch beside it: tmux attach -t %s\n", name, name)
		return true, nil
	}
	attach := tmuxCommand(env, tmux, "attach-session", "-t", "="+name)
	attach.Stdin, attach.Stdout, attach.Stderr = env.Stdin, env.Stdout, env.Stderr
	if err := attach.Run(); err != nil {
		return true, fmt.Errorf("run --monitor: tmux attach: %v: the loop goes on in tmux session %s (tmux attach -t %s)", err, name, name)
	}
	return true, nil
}

func tmuxCommand(env *Env, tmux string, args ...string) *exec.Cmd {
	cmd := exec.Command(tmux, args...)
	cmd.Env, cmd.Dir = env.Environ, env.Dir
	return cmd
}

// monitorSessionName is the tmux session of a loop session: tmux names
// may not hold '.' or ':'.
func monitorSessionName(session string) string {
	return "loopbreaker-" + strings.Map(func(r rune) rune {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return r
		}
		return '_'
	}, session)
}

// withoutMonitor is run's arguments without --monitor (before the --
// that starts the agent's command).
func withoutMonitor(args []string) []string {
	out := make([]string, 0, len(args))
	for i, a := range args {
		if a == "--" {
			return append(out, args[i:]...)
		}
		if a == "--monitor" || a == "-monitor" || strings.HasPrefix(a, "--monitor=") || strings.HasPrefix(a, "-monitor=") {
			continue
		}
		out = append(out, a)
	}
	return out
}
