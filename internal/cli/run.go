package cli

import (
	"context"
	"errors"
)

// runRun is being written (its owner replaces this file).
func runRun(_ context.Context, _ *Env, _ []string) error {
	return errors.New("`loopbreaker run` is not available in this build yet")
}
