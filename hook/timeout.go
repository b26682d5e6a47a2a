package hook

import "time"

// Timeout is how long an agent CLI lets one hook call run, as the
// installed hooks ask: a call still running then is killed and the CLI
// goes on with the tool call. The hook answers well before it (see the
// command line's deadline), so that loopbreaker, not the CLI's timeout,
// decides what happens to a call it could not check in time.
const Timeout = 10 * time.Second
