//go:build !unix

package cli

import (
	"strconv"
	"time"
)

func processKey(pid int) string { return strconv.Itoa(pid) }

// stillRunning cannot tell here: a mark is taken for a running call, so
// that no call is reported killed wrongly.
func stillRunning(string, int) bool { return true }

// processAge cannot be told here: a hook's time starts when its Go code
// first runs.
func processAge() time.Duration { return 0 }
