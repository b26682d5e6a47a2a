package cli

import (
	"os"
	"path/filepath"

	"github.com/loopbreaker/loopbreaker/agent"
	"github.com/loopbreaker/loopbreaker/hookpolicy"
	"github.com/loopbreaker/loopbreaker/session"
)

// hookGuard gathers what the hook policy's guard is built from: the
// configuration files and state directories this call uses, and the
// loopbreaker program's paths.
func hookGuard(env *Env, a agent.Agent, w *workspace) *hookpolicy.Guard {
	home := env.Getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	in := hookpolicy.GuardInput{
		Agent: a, Project: w.project, Home: home, Getenv: env.Getenv,
		StateDir: w.stateDir,
	}
	if root, err := session.StateRoot(w.cfg, env.Getenv); err == nil {
		in.StateRoot = root
	}
	if f := env.Getenv("LOOPBREAKER_CONFIG"); f != "" {
		in.Config = append(in.Config, absIn(w.project, f))
	}
	if dir := env.Getenv("XDG_CONFIG_HOME"); filepath.IsAbs(dir) {
		in.Config = append(in.Config, filepath.Join(dir, "loopbreaker", "config.yaml"))
	} else if home != "" {
		in.Config = append(in.Config, filepath.Join(home, ".config", "loopbreaker", "config.yaml"))
	}
	if exe, err := os.Executable(); err == nil {
		in.Binaries = append(in.Binaries, exe)
		if real, err := filepath.EvalSymlinks(exe); err == nil && real != exe {
			in.Binaries = append(in.Binaries, real)
		}
	}
	if path, ok := lookPath(env, "loopbreaker"); ok {
		in.Binaries = append(in.Binaries, path)
	}
	return hookpolicy.NewGuard(in)
}

func absIn(dir, path string) string {
	if filepath.IsAbs(path) {
		return filepath.Clean(path)
	}
	return filepath.Join(dir, path)
}
