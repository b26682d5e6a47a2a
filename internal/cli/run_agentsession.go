package cli

import (
	"path/filepath"
	"strings"

	"github.com/loopbreaker/loopbreaker/agent"
	"github.com/loopbreaker/loopbreaker/agent/all"
	"github.com/loopbreaker/loopbreaker/supervisor"
)

// agentSessionFor is how the command's program continues its own session
// (run.continue_session), from the agent CLI whose executable it is; false
// when it is no agent's, or its agent cannot.
func agentSessionFor(command []string) (supervisor.AgentSession, bool) {
	name := strings.TrimSuffix(filepath.Base(command[0]), ".exe")
	for _, a := range all.Agents() {
		if agent.Executable(a) != name {
			continue
		}
		r, ok := a.(agent.Resumer)
		if !ok {
			return supervisor.AgentSession{}, false
		}
		res := r.Resume()
		return supervisor.AgentSession{Begin: res.Begin, Continue: res.Continue, FindID: res.FindID}, true
	}
	return supervisor.AgentSession{}, false
}
