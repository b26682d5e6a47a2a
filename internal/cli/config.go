package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/loopbreaker/loopbreaker/session"
)

// runConfig prints the effective value of every key and where it came
// from, state_dir as the directory it means when left at its default,
// and (as text) the project's own state directory under it.
func runConfig(_ context.Context, env *Env, args []string) error {
	var o common
	fs := newFlagSet("config", env)
	o.registerProject(fs, env)
	o.registerJSON(fs)
	o.session = "default" // a configuration is not a session's
	// Flags may come before or after the key.
	var keys []string
	for rest := args; ; rest = fs.Args()[1:] {
		if err := parseFlags(fs, rest); err != nil {
			return err
		}
		if fs.NArg() == 0 {
			break
		}
		keys = append(keys, fs.Arg(0))
	}
	if len(keys) > 1 {
		return usagef("config: name one key at most (got %s): `loopbreaker config` lists them all", strings.Join(keys, ", "))
	}
	w, err := o.openRead(env)
	if err != nil {
		return err
	}
	defer w.Close()
	if len(keys) == 1 {
		return w.Loaded.PrintKey(env.Stdout, keys[0], o.json)
	}
	if w.Loaded.Config.StateDir == "" {
		root, err := session.StateRoot(w.Config, env.Getenv)
		if err != nil {
			return err
		}
		w.Loaded.Config.StateDir = root
	}
	if err := w.Loaded.Print(env.Stdout, o.json); err != nil || o.json {
		return err
	}
	how := "under state_dir"
	if !w.keyed {
		how = "LOOPBREAKER_DIR"
	}
	_, err = fmt.Fprintf(env.Stdout, "\nthis project's state: %s (%s)\n", w.StateDir, how)
	return err
}
