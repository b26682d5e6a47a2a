package cli

import (
	"context"
)

// runConfig prints the effective value of every key and where it came from.
func runConfig(_ context.Context, env *Env, args []string) error {
	var o common
	fs := newFlagSet("config", env)
	o.register(fs, env, true)
	if err := parse(fs, args); err != nil {
		return err
	}
	w, err := o.open(env)
	if err != nil {
		return err
	}
	defer w.close()
	return w.loaded.Print(env.Stdout, o.json)
}
