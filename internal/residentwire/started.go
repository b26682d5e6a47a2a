package residentwire

import (
	"slices"
	"strconv"
	"strings"
	"time"
)

// StartedEnv carries when the agent CLI started the thin client, from the
// client to whatever answers the call (the resident breaker, or the
// `loopbreaker hook` it falls back to): the CLI's hook timeout counts from
// then, not from when the answering process took the call, which may be
// after a wait for a resident breaker to start or behind other calls.
const StartedEnv = "LOOPBREAKER_HOOK_STARTED"

// WithStarted is env with StartedEnv set to started (in microseconds since
// the epoch), replacing any value it held: one the CLI inherited is not
// this call's.
func WithStarted(env []string, started time.Time) []string {
	env = slices.DeleteFunc(slices.Clone(env), func(kv string) bool { return strings.HasPrefix(kv, StartedEnv+"=") })
	return append(env, StartedEnv+"="+strconv.FormatInt(started.UnixMicro(), 10))
}

// Started reads a StartedEnv value; ok is false for none or a garbled one.
func Started(v string) (t time.Time, ok bool) {
	us, err := strconv.ParseInt(v, 10, 64)
	if err != nil || us <= 0 {
		return time.Time{}, false
	}
	return time.UnixMicro(us), true
}

// ProcessStarted is when this process started: by the kernel's count
// where the system tells it (ProcessAge), else now.
func ProcessStarted() time.Time { return time.Now().Add(-ProcessAge()) }
