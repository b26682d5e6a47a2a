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
	growStack(0)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.MainOS(ctx)
	stop()
	os.Exit(code)
}

// stackReserve is how deep the main goroutine's stack is grown before any
// work: a command parses YAML and JSON in deep recursions, and a goroutine
// starts with a few kilobytes of stack that the runtime doubles by copying
// it, walking every frame each time, four or five times in a hook call.
// Grown once here, while the stack holds only main, the copy is cheap.
const stackReserve = 128 << 10

// growStack takes a frame of stackReserve bytes, so that the runtime grows
// the stack to hold it once, at once. It reads buf[i] so that the frame
// is not optimised away.
//
//go:noinline
func growStack(i int) byte {
	var buf [stackReserve]byte
	return buf[i]
}
