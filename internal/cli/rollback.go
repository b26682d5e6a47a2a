package cli

import (
	"context"
	"errors"
)

// runRollback is being written (its owner replaces this file).
func runRollback(_ context.Context, _ *Env, _ []string) error {
	return errors.New("`loopbreaker rollback` is not available in this build yet")
}
