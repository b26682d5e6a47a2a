package cli

import (
	"fmt"
	"os"
	"os/user"
	"slices"
	"strings"

	"github.com/loopbreaker/loopbreaker/agent"
	"github.com/loopbreaker/loopbreaker/agent/all"
	"github.com/loopbreaker/loopbreaker/config"
	"github.com/loopbreaker/loopbreaker/internal/origin"
)

// Some agent CLIs put variables from their own files into the
// environment their hooks run in (agent.EnvSetter: Claude Code's
// settings env, the .env files of Gemini CLI, Qwen Code and Codex), and
// the agent can write those files. Obeyed, one line there would move the breaker's
// state and its witness somewhere new (a fresh, CLOSED breaker), feed
// another breaker (LOOPBREAKER_SESSION) or set its clock past every
// cooldown (LOOPBREAKER_NOW). So a hook takes loopbreaker's own
// variables (config.OwnVariable) only from the environment the person
// started the CLI in: one that the CLI's files set is taken out of the
// call's environment and given the value it had where the person
// started the CLI (origin.Before: the CLI's own process still shows it;
// where that cannot be read, it is unset, and HOME is the user's home
// from the password database), said on stderr at each call, and is part of the
// guard's fingerprint (hookpolicy), so that setting it during a session
// halts it.

// isHookAnswer reports whether args (after the global flags) answer a
// hook call: `hook AGENT ...`.
func isHookAnswer(args []string) bool {
	if len(args) < 2 || args[0] != "hook" {
		return false
	}
	_, err := all.Lookup(args[1])
	return err == nil
}

// withoutAgentSet is env without loopbreaker's own variables that a's
// files set for its hooks in project, read through r, and those
// variables; env itself when there are none.
// The protected breaker's calls are left as they are: their environment
// is the breaker's own, and keeps nothing of the agent's but its home and
// project (systemMode.environ).
func withoutAgentSet(env *Env, a agent.Agent, project string, r *agent.Reads) (*Env, []agent.SetVar) {
	s, ok := a.(agent.EnvSetter)
	if !ok || env.system != nil {
		return env, nil
	}
	var set []agent.SetVar
	for _, v := range s.SetEnv(r, project, env.Getenv) {
		if config.OwnVariable(v.Name) {
			set = append(set, v)
		}
	}
	if len(set) == 0 {
		return env, nil
	}
	e := *env
	e.Environ = slices.Clone(env.Environ)
	pid := os.Getpid()
	if env.mark != nil && env.mark.pid > 0 {
		pid = env.mark.pid // the client's, on the resident breaker's calls
	}
	signs := agentSigns()
	for _, v := range set {
		before, wasSet, ok := origin.Before(pid, v.Name, env.Getenv(v.Name), signs)
		e.Environ = slices.DeleteFunc(e.Environ, func(kv string) bool { return strings.HasPrefix(kv, v.Name+"=") })
		switch {
		case ok && wasSet:
			e.Environ = append(e.Environ, v.Name+"="+before)
		case !ok && v.Name == "HOME":
			if u, err := user.Current(); err == nil && u.HomeDir != "" {
				e.Environ = append(e.Environ, "HOME="+u.HomeDir)
			}
		}
	}
	return &e, set
}

// agentSetNotice says which variables a hook call did not obey, and why.
func agentSetNotice(a agent.Agent, set []agent.SetVar) string {
	var each []string
	for _, v := range set {
		each = append(each, fmt.Sprintf("%s (set by %s)", v.Name, v.File))
	}
	return fmt.Sprintf("loopbreaker hook %s: ignored %s: %s puts what its own files set into its hooks' environment, and the agent can write those files, so they do not choose where loopbreaker keeps its state, which breaker a hook feeds, or its clock; remove them from the files and set them in the environment the agent starts in",
		a.Name(), strings.Join(each, ", "), a.Traits().Display)
}
