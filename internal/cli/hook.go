package cli

import (
	"context"
	"errors"
)

// runHook is being written (its owner replaces this file).
func runHook(_ context.Context, _ *Env, _ []string) error {
	return errors.New("`loopbreaker hook` is not available in this build yet")
}
