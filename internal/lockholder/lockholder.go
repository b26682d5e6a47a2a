// Package lockholder names the process that holds a flock on a file, so
// that a wait for a lock can say who it waits for: another loopbreaker
// call (a busy machine) or a program of someone else's (a stall
// engineered to silence the breaker).
package lockholder

import "strconv"

// Holder is a process holding a lock.
type Holder struct {
	PID int
	// Program is the process's command name (/proc/PID/comm).
	Program string
	// Same is true when the process runs the same executable as this one:
	// another loopbreaker call.
	Same bool
}

func (h Holder) String() string {
	if h.Same {
		return "another loopbreaker process (pid " + strconv.Itoa(h.PID) + ")"
	}
	return h.Program + " (pid " + strconv.Itoa(h.PID) + ")"
}
