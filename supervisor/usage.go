package supervisor

import (
	"os"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/transcript"
)

// usage is what iteration n's agent consumed: one call (an agent
// invocation, as Ralph counts them), with the tokens and cost its JSON
// output reports (claude -p --output-format json|stream-json, codex exec
// --json, gemini -p --output-format json). An output that reports none
// leaves the tokens unmeasured: they are not counted, and not as zero.
func (l *loop) usage(n int) *lb.Usage {
	if f, err := l.runD.OpenFile(outputName(n, "out"), os.O_RDONLY, 0); err == nil {
		defer f.Close()
		if u, err := transcript.UsageOfOutput(f); err == nil && u != nil {
			return u
		}
	}
	return &lb.Usage{Calls: 1}
}
