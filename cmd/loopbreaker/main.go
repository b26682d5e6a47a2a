// Command loopbreaker is a circuit breaker for autonomous coding agents.
// See the README for every command, flag and exit code.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/loopbreaker/loopbreaker/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.MainOS(ctx)
	stop()
	os.Exit(code)
}
