package gitrepo

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// A resident breaker answers each hook call in one long-lived process,
// whose environment is that of the call that started it. git must run
// as it would for a `loopbreaker` process started by the call itself:
// with the call's PATH (which git), HOME and XDG_CONFIG_HOME (which
// global configuration), GIT_DIR, GIT_WORK_TREE, GIT_CONFIG_GLOBAL and
// the rest. The call's environment travels with its context to the
// repositories opened under it.

// environKey is the context key of the environment git runs in.
type environKey struct{}

// WithEnviron returns ctx under which Open and Locate give repositories
// whose git commands run in environ (before loopbreaker's switches of
// every program git could run) instead of this process's environment.
// A nil environ means this process's.
func WithEnviron(ctx context.Context, environ []string) context.Context {
	return context.WithValue(ctx, environKey{}, environ)
}

// environOf is the environment WithEnviron put in ctx, nil for none.
func environOf(ctx context.Context) []string {
	environ, _ := ctx.Value(environKey{}).([]string)
	return environ
}

// environ is the environment r's git commands start from.
func (r *Repo) environ() []string {
	if r.Environ == nil {
		return os.Environ()
	}
	return r.Environ
}

// getenv is the value of key in environ (the last one, as for a
// process), or this process's value when environ is nil.
func getenv(environ []string, key string) string {
	if environ == nil {
		return os.Getenv(key)
	}
	value := ""
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok && k == key {
			value = v
		}
	}
	return value
}

// lookGit finds the git executable on environ's PATH (this process's
// when environ is nil). As exec.LookPath does, it takes no relative
// directory of PATH: which program runs must not depend on the
// directory the call came from.
func lookGit(environ []string) (string, error) {
	if environ == nil {
		return exec.LookPath("git")
	}
	path := getenv(environ, "PATH")
	for _, dir := range filepath.SplitList(path) {
		if !filepath.IsAbs(dir) {
			continue
		}
		file := filepath.Join(dir, "git")
		if fi, err := os.Stat(file); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return file, nil
		}
	}
	return "", fmt.Errorf("exec: \"git\": %w in the caller's PATH %q", exec.ErrNotFound, path)
}
