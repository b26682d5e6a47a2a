package cli

import (
	"context"
	"errors"
)

// runMCP is being written (its owner replaces this file).
func runMCP(_ context.Context, _ *Env, _ []string) error {
	return errors.New("`loopbreaker mcp` is not available in this build yet")
}
