package gemini

import (
	"encoding/json"
	"strings"

	"github.com/loopbreaker/loopbreaker/hook"

	"github.com/loopbreaker/loopbreaker/internal/lazyre"
)

// Gemini CLI's shell results differ between headless and interactive
// runs: interactively (a PTY) returnDisplay is an array of terminal lines
// (each a list of styled text segments padded to the terminal's width),
// and the terminal has turned tabs into spaces. These helpers give the
// test parser the same text in both modes.

// isTerminalLines reports whether raw is an array of lines of segments.
func isTerminalLines(raw json.RawMessage) bool {
	var lines [][]json.RawMessage
	return json.Unmarshal(raw, &lines) == nil
}

// flattenTerminal joins the segments of each terminal line, drops the
// padding at the end of each line and the blank lines at the end (the
// cursor's line).
func flattenTerminal(raw json.RawMessage) string {
	var lines [][]struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &lines) != nil {
		return ""
	}
	out := make([]string, 0, len(lines))
	for _, segs := range lines {
		var b strings.Builder
		for _, s := range segs {
			b.WriteString(s.Text)
		}
		out = append(out, strings.TrimRight(b.String(), " \t"))
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return strings.Join(out, "\n")
}

// unwrapUntrusted removes the <untrusted_context> wrapper Gemini 0.61 puts
// around a shell result for the model.
func unwrapUntrusted(s string) string {
	t := strings.TrimSpace(s)
	if rest, ok := strings.CutPrefix(t, "<untrusted_context>"); ok {
		if inner, ok := strings.CutSuffix(rest, "</untrusted_context>"); ok {
			return strings.Trim(inner, "\n")
		}
	}
	return s
}

// ShellOutput is the command's output inside a shell llmContent: the text
// after "Output: ", without the status lines Gemini appends (exit code,
// process group and background process ids, signal).
func ShellOutput(llm string) string {
	lines := strings.Split(unwrapUntrusted(llm), "\n")
	for len(lines) > 0 {
		last := strings.TrimSpace(lines[len(lines)-1])
		meta := last == ""
		for _, prefix := range []string{"Exit Code:", "Process Group PGID:", "Background PIDs:", "Signal:", "Error: (none)"} {
			if strings.HasPrefix(last, prefix) {
				meta = true
			}
		}
		if !meta {
			break
		}
		lines = lines[:len(lines)-1]
	}
	out := strings.Join(lines, "\n")
	out = strings.TrimPrefix(out, "Output: ")
	if out == "(empty)" {
		return ""
	}
	return out
}

// goSummary is a package summary line of `go test` with its tabs turned
// into spaces by a terminal.
var goSummary = lazyre.New(`^(ok|FAIL|\?) +(\S+) +(\d+(?:\.\d+)?s|\(cached\)|\[no test files\]|\[build failed\]|\[setup failed\])(.*)$`)

// GoTestSummaryTabs writes `go test` package summary lines the way go
// prints them ("FAIL\tpkg\t0.01s"), as a terminal shows them with spaces.
func GoTestSummaryTabs(s string) string {
	if !strings.Contains(s, " ") {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if strings.Contains(l, "\t") {
			continue
		}
		m := goSummary.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		head := map[string]string{"ok": "ok  ", "FAIL": "FAIL", "?": "?   "}[m[1]]
		lines[i] = head + "\t" + m[2] + "\t" + m[3] + m[4]
	}
	return strings.Join(lines, "\n")
}

// Result reads a Gemini CLI (or Qwen Code) tool_response:
// {llmContent, returnDisplay, error}.
func Result(p *hook.Payload, shell bool) hook.Result {
	var r hook.Result
	var g struct {
		LLMContent    json.RawMessage `json:"llmContent"`
		ReturnDisplay json.RawMessage `json:"returnDisplay"`
		Error         *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(p.ToolResponse, &g) != nil {
		r.Text = hook.ResponseText(p.ToolResponse)
		r.Output = r.Text
		return r
	}
	if g.Error != nil && g.Error.Message != "" {
		r.Text, r.Output, r.Failed = g.Error.Message, g.Error.Message, true
		return r
	}
	llm := hook.ResponseText(g.LLMContent)
	if !shell {
		r.Text, r.Output = llm, llm
		return r
	}
	// llmContent is "Output: …\nExit Code: N\nProcess Group PGID: P"
	// (the exit line only when non-zero), wrapped in <untrusted_context>
	// by Gemini 0.61; Qwen Code's starts with "Command: …\nDirectory: …"
	// and always has the exit line. returnDisplay is the raw output, a
	// string headless and an array of terminal lines in interactive (PTY)
	// mode.
	llm = unwrapUntrusted(llm)
	r.ExitCode = hook.ExitCodeLine(llm)
	var display string
	switch {
	case json.Unmarshal(g.ReturnDisplay, &display) == nil:
		r.Output = display
	case isTerminalLines(g.ReturnDisplay):
		r.Output = GoTestSummaryTabs(flattenTerminal(g.ReturnDisplay))
	default:
		r.Output = GoTestSummaryTabs(ShellOutput(llm))
	}
	return r.WithExit()
}
