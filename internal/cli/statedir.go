package cli

import (
	"strings"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/config"
	"github.com/loopbreaker/loopbreaker/session"
)

// stateDirFor is the project's state directory as session.ResolveStateDir
// finds it from this process's environment and working directory.
func stateDirFor(env *Env, project string, cfg lb.Config) (dir string, keyed bool, err error) {
	return session.ResolveStateDir(project, cfg, env.Getenv, env.Dir)
}

// globalSets are the --set flags given before the command, as Load takes
// them; malformed ones are left to the command's own parsing.
func globalSets(env *Env) map[string]string {
	flags := map[string]string{}
	for _, kv := range env.globals.sets {
		if k, v, ok := strings.Cut(kv, "="); ok && k != "" {
			flags[k] = v
		}
	}
	return flags
}

// stateDirOf is stateDirFor for commands that do not otherwise load the
// configuration (hook status, checkpoint, rollback, migrate): a
// configuration that does not load falls back to the defaults, so they
// still find the state wherever the environment puts it.
func stateDirOf(env *Env, project string) (string, bool, error) {
	return stateDirFor(env, project, configOrDefaults(env, project))
}

// keyedStateDir is the project's directory under the state root, whatever
// LOOPBREAKER_DIR says: where the state of a project named by its path
// (one moved away, another clone) is.
func keyedStateDir(env *Env, project string) (string, error) {
	root, err := session.StateRoot(configOrDefaults(env, project), env.Getenv)
	if err != nil {
		return "", err
	}
	return session.ProjectStateDir(root, project), nil
}

func configOrDefaults(env *Env, project string) lb.Config {
	if l, err := config.Load(config.Options{ProjectDir: project, Env: env.Environ, Flags: globalSets(env)}); err == nil {
		return l.Config
	}
	return lb.Defaults()
}
