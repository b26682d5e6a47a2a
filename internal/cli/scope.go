package cli

import (
	"context"
	"errors"
)

// runScope is being written (its owner replaces this file).
func runScope(_ context.Context, _ *Env, _ []string) error {
	return errors.New("`loopbreaker scope` is not available in this build yet")
}
