package cli

import (
	"os"
	"path/filepath"

	"github.com/loopbreaker/loopbreaker/agent"
	"github.com/loopbreaker/loopbreaker/config"
	"github.com/loopbreaker/loopbreaker/hookpolicy"
	"github.com/loopbreaker/loopbreaker/internal/residentwire"
	"github.com/loopbreaker/loopbreaker/session"
)

// hookGuard gathers what the hook policy's guard is built from: the
// configuration files and state directories this call uses, the
// loopbreaker program's paths, and what the CLI's files set of
// loopbreaker's variables (set, withoutAgentSet's).
func hookGuard(env *Env, a agent.Agent, w *workspace, r *agent.Reads, set []agent.SetVar) *hookpolicy.Guard {
	home := env.Getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	in := hookpolicy.GuardInput{
		Agent: a, Project: w.Project, Home: home, Getenv: env.Getenv,
		StateDir: w.StateDir, Reads: r, AgentSet: set,
	}
	if root, err := session.StateRoot(w.Config, env.Getenv); err == nil {
		in.StateRoot = root
	}
	in.Config = config.Files(w.Project, env.Environ)
	if exe, err := os.Executable(); err == nil {
		in.Binaries = append(in.Binaries, exe)
		if real, err := filepath.EvalSymlinks(exe); err == nil && real != exe {
			in.Binaries = append(in.Binaries, real)
		}
	}
	if path, ok := lookPath(env, "loopbreaker"); ok {
		in.Binaries = append(in.Binaries, path)
	}
	if dir, err := residentwire.Dir(env.Getenv); err == nil {
		in.Resident = dir
	}
	// The thin client beside each is what hooks installed with --client
	// run: removing it silences them as removing loopbreaker would.
	for _, b := range in.Binaries {
		in.Binaries = append(in.Binaries, clientBeside(b))
	}
	return hookpolicy.NewGuard(in)
}
