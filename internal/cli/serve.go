package cli

import (
	"context"
	"errors"
)

// runServe is being written (its owner replaces this file).
func runServe(_ context.Context, _ *Env, _ []string) error {
	return errors.New("`loopbreaker serve` is not available in this build yet")
}
