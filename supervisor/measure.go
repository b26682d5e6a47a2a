package supervisor

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/errsig"
	"github.com/loopbreaker/loopbreaker/gitrepo"
	"github.com/loopbreaker/loopbreaker/testparse"
)

// Bounds on what one iteration records.
const (
	maxErrorText = 8 << 10
	maxSummary   = 160
	// stderrTailLines is how much of stderr stands for the error of a
	// failed command that printed no error-looking line.
	stderrTailLines = 20
)

// agentResult is the JSON result an agent CLI prints at the end of a
// non-interactive run, e.g. `claude -p --output-format json`:
// {"type":"result","subtype":"success","is_error":false,"result":"...",
// "num_turns":N,"permission_denials":[...]}.
type agentResult struct {
	Type              string            `json:"type"`
	Subtype           string            `json:"subtype"`
	IsError           bool              `json:"is_error"`
	Result            string            `json:"result"`
	NumTurns          int               `json:"num_turns"`
	PermissionDenials []json.RawMessage `json:"permission_denials"`
	// APIErrorStatus is the HTTP status of the model API's refusal that
	// ended the run (Claude Code).
	APIErrorStatus int `json:"api_error_status"`
}

// parseAgentResult finds the agent's result in the end of its output: the
// last line that is a JSON object of type "result" (a single result, or the
// last event of a JSON stream), or a whole JSON document (an object, or an
// array of messages whose last result counts).
func parseAgentResult(out []byte) *agentResult {
	trimmed := bytes.TrimSpace(out)
	if len(trimmed) == 0 {
		return nil
	}
	if trimmed[0] == '{' || trimmed[0] == '[' {
		if r := decodeResult(trimmed); r != nil {
			return r
		}
	}
	for len(trimmed) > 0 {
		i := bytes.LastIndexByte(trimmed, '\n')
		line := bytes.TrimSpace(trimmed[i+1:])
		if len(line) > 0 && line[0] == '{' && bytes.Contains(line, []byte(`"type"`)) {
			if r := decodeResult(line); r != nil {
				return r
			}
		}
		if i < 0 {
			break
		}
		trimmed = trimmed[:i]
	}
	return nil
}

func decodeResult(doc []byte) *agentResult {
	if doc[0] == '[' {
		var list []json.RawMessage
		if json.Unmarshal(doc, &list) != nil {
			return nil
		}
		for i := len(list) - 1; i >= 0; i-- {
			if r := decodeResult(bytes.TrimSpace(list[i])); r != nil {
				return r
			}
		}
		return nil
	}
	if doc[0] != '{' {
		return nil
	}
	var r agentResult
	if json.Unmarshal(doc, &r) != nil || r.Type != "result" {
		return nil
	}
	return &r
}

// measure turns one run of the command into the iteration the breaker
// records.
func (l *loop) measure(out, errs *capture, r ran, change gitrepo.Change, measured bool) *lb.Iteration {
	out.finish()
	errs.finish()
	it := &lb.Iteration{Phase: l.cfg.Phase, Slice: l.cfg.Slice}
	if measured {
		n := len(change.Files)
		it.FilesChanged, it.Files, it.HeadMoved, it.RefsMoved = &n, change.Files, change.HeadMoved, change.RefsMoved
	}
	size := out.n + errs.n
	it.OutputBytes = &size
	code := r.exitCode
	it.ExitCode = &code

	agent := parseAgentResult(out.lastText())
	var fromResult *scanner
	if agent != nil {
		it.PermissionDenials = len(agent.PermissionDenials)
		it.Summary = oneLine(agent.Result, maxSummary)
		// The result text is the agent's prose inside JSON: it is read for
		// completion signals, not for errors (prose that mentions an error
		// is no error output, and differs every time).
		fromResult = newScanner(l.cfg.CompletePattern)
		for _, line := range strings.Split(agent.Result, "\n") {
			fromResult.line(line)
		}
	}
	it.Complete = out.scan.complete || errs.scan.complete || fromResult != nil && fromResult.complete

	if r.timedOut {
		it.Errors = append(it.Errors, errorText(fmt.Sprintf("iteration timed out after %s", l.cfg.IterationTimeout)))
	}
	if agent != nil && agent.IsError {
		it.Errors = append(it.Errors, errorText(fmt.Sprintf("the agent reported an error (%s): %s", agent.Subtype, oneLine(agent.Result, 500))))
	}
	if text := iterationError(out.scan.errors(), errs.scan.errors(), out.lastText(), errs.lastText(), code != 0 && !r.timedOut); text != "" {
		it.Errors = append(it.Errors, errorText(text))
	}

	if res, ok := testparse.Parse(joinOutputs(out.text(), errs.text())); ok {
		passing, failing := res.Passed, res.Failed
		it.TestsPassing, it.TestsFailing = &passing, &failing
		// Parsed results are Observed: the engine decides which failures
		// are attempts (baseline, improvement).
		it.Tests = res.Tests
	}
	return it
}

func errorText(text string) lb.ErrorText {
	return lb.ErrorText{Raw: errsig.Truncate(text, maxErrorText), Signature: errsig.Signature(text)}
}

func joinOutputs(out, errs []byte) []byte {
	if len(errs) == 0 {
		return out
	}
	if len(out) == 0 {
		return errs
	}
	b := make([]byte, 0, len(out)+1+len(errs))
	b = append(b, out...)
	if out[len(out)-1] != '\n' {
		b = append(b, '\n')
	}
	return append(b, errs...)
}

// lastLines returns the last n non-empty lines of text.
func lastLines(text []byte, n int) []string {
	var lines []string
	for _, l := range strings.Split(string(text), "\n") {
		l = strings.TrimRight(l, "\r")
		if strings.TrimSpace(l) == "" {
			continue
		}
		if len(l) > maxErrorLine {
			l = l[:maxErrorLine] + "…"
		}
		lines = append(lines, l)
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return lines
}
