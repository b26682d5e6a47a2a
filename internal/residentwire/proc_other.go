//go:build !linux

package residentwire

import "time"

// ProcessAge cannot be told here without /proc: a hook's time starts when
// its Go code first runs.
func ProcessAge() time.Duration { return 0 }
