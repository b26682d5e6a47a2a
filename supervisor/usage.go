package supervisor

import (
	"io"
	"os"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/transcript"
)

// maxUsageRead bounds what is read of an iteration's output for its
// usage: the run summaries the CLIs print come last.
const maxUsageRead = 8 << 20

// usage is what iteration n's agent consumed: one call (an agent
// invocation, as Ralph counts them), with the tokens and cost its JSON
// output reports (claude -p --output-format json|stream-json, codex exec
// --json, gemini -p --output-format json). An output that reports none
// leaves the tokens unmeasured: they are not counted, and not as zero.
func (l *loop) usage(n int) *lb.Usage {
	u := &lb.Usage{Calls: 1}
	f, err := os.Open(l.outputPath(n, "out"))
	if err != nil {
		return u
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return u
	}
	from := max(0, fi.Size()-maxUsageRead)
	data, err := io.ReadAll(io.NewSectionReader(f, from, fi.Size()-from))
	if err != nil {
		return u
	}
	if got, _, ok := transcript.UsageOf(data, ""); ok {
		got.Calls = 1
		return &got
	}
	return u
}
