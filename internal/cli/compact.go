package cli

import (
	"context"
	"fmt"
)

// runCompact rotates the session's journal now: the old journal is kept
// (up to journal.keep of them) and the new one starts with a snapshot.
func runCompact(ctx context.Context, env *Env, args []string) error {
	var o common
	fs := newFlagSet("compact", env)
	o.register(fs, env, false)
	w, err := o.parseOpen(fs, args, env)
	if err != nil {
		return err
	}
	defer w.Close()
	c, ok := w.Store.(interface {
		Compact(ctx context.Context, scope string) error
	})
	if !ok {
		return fmt.Errorf("the store %s cannot compact journals", w.StoreName())
	}
	if err := c.Compact(ctx, w.Scope); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "loopbreaker: journal of %s rotated\n", w.Scope)
	return nil
}
