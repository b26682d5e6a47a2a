package cli

import (
	"context"
	"errors"
)

func runProtectSetup(ctx context.Context, env *Env, args []string) error {
	return errors.New("protect setup: not built yet")
}

func runProtectTeardown(ctx context.Context, env *Env, args []string) error {
	return errors.New("protect teardown: not built yet")
}
