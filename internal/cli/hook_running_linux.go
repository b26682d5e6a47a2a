package cli

import (
	"strconv"

	"github.com/loopbreaker/loopbreaker/internal/residentwire"
)

// processKey names a process for its mark: its id and its start time, so
// that a later process given the same id is not taken for it.
func processKey(pid int) string { return strconv.Itoa(pid) + "-" + residentwire.StartTicks(pid) }

// stillRunning reports whether the process a mark named key was left by
// still runs.
func stillRunning(key string, pid int) bool {
	st := residentwire.StartTicks(pid)
	return st != "" && key == strconv.Itoa(pid)+"-"+st
}
