package hook

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/errsig"
	"github.com/loopbreaker/loopbreaker/testparse"
)

// Class is what a tool does, as far as loop detection cares.
type Class int

const (
	ClassOther Class = iota
	// ClassShell runs a command: its output is parsed for test results.
	ClassShell
	// ClassEdit changes files: an edit between two failing calls means the
	// second is a new attempt, and edits go through the scope lock.
	ClassEdit
	// ClassRead reads a file: its path is recorded.
	ClassRead
)

// Classify says what the tool named name does in tool's vocabulary.
func Classify(tool Tool, name string) Class {
	switch tool {
	case Claude:
		switch name {
		case "Bash", "PowerShell":
			return ClassShell
		case "Edit", "Write", "MultiEdit", "NotebookEdit":
			return ClassEdit
		case "Read":
			return ClassRead
		}
	case Codex:
		// Codex names shell and unified exec "Bash" in hook payloads;
		// the raw names are accepted in case a build passes them through.
		switch name {
		case "Bash", "shell", "local_shell", "exec_command", "unified_exec":
			return ClassShell
		case "apply_patch", "Edit", "Write":
			return ClassEdit
		}
	case Gemini:
		switch name {
		case "run_shell_command":
			return ClassShell
		case "replace", "write_file", "edit":
			return ClassEdit
		case "read_file", "read_many_files":
			return ClassRead
		}
	case Qwen:
		switch name {
		case "run_shell_command":
			return ClassShell
		case "edit", "write_file", "notebook_edit":
			return ClassEdit
		case "read_file":
			return ClassRead
		}
	case Cline:
		switch name {
		case "run_commands":
			return ClassShell
		case "apply_patch", "editor":
			return ClassEdit
		case "read_files":
			return ClassRead
		}
	case Copilot:
		switch name {
		case "bash":
			return ClassShell
		case "edit", "create":
			return ClassEdit
		case "view":
			return ClassRead
		}
	case Pi:
		switch name {
		case "bash":
			return ClassShell
		case "edit", "write":
			return ClassEdit
		case "read":
			return ClassRead
		}
	case OpenCode:
		switch name {
		case "bash":
			return ClassShell
		case "edit", "write", "multiedit", "patch", "apply_patch":
			return ClassEdit
		case "read":
			return ClassRead
		}
	}
	return ClassOther
}

// VolatileFields are the tool_input fields left out of a tool call's
// canonical arguments: they describe or schedule the call without changing
// what it does, so two calls that differ only there are the same call.
func VolatileFields(tool Tool, name string) []string {
	switch tool {
	case Claude:
		switch name {
		case "Bash", "PowerShell":
			return []string{"description", "run_in_background", "timeout"}
		case "Agent", "Task":
			return []string{"description"}
		}
	case Codex:
		if Classify(tool, name) == ClassShell {
			return []string{"description", "justification", "max_output_tokens", "timeout", "timeout_ms", "yield_time_ms"}
		}
	case Gemini:
		switch name {
		// 0.61 adds delay_ms to the shell and wait_for_previous to most
		// tools: they schedule the call, they do not change it.
		case "run_shell_command":
			return []string{"description", "is_background", "timeout", "delay_ms", "wait_for_previous"}
		case "replace":
			// The "smart edit" build asks the model to describe the edit.
			return []string{"instruction", "wait_for_previous"}
		}
		return []string{"wait_for_previous"}
	case Qwen:
		if name == "run_shell_command" {
			return []string{"description", "is_background", "timeout"}
		}
	case Copilot:
		if name == "bash" {
			// mode (sync or async), detach and initial_wait schedule the
			// command; shellId names the session it runs in.
			return []string{"description", "mode", "detach", "initial_wait", "shellId"}
		}
	case Pi:
		if name == "bash" {
			return []string{"timeout"}
		}
	case OpenCode:
		switch name {
		case "bash":
			return []string{"description", "timeout"}
		case "task":
			return []string{"description"}
		}
	}
	return nil
}

// Canonical returns the canonical form of a call's arguments: the JSON of
// input with the tool's volatile fields dropped, object keys sorted at
// every level, no insignificant whitespace, numbers as written. Missing
// input is {}.
func Canonical(tool Tool, name string, input json.RawMessage) (json.RawMessage, error) {
	if len(bytes.TrimSpace(input)) == 0 {
		return json.RawMessage("{}"), nil
	}
	dec := json.NewDecoder(bytes.NewReader(input))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if m, ok := v.(map[string]any); ok {
		for _, k := range VolatileFields(tool, name) {
			delete(m, k)
		}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	// encoding/json writes map keys sorted: that is the canonical order.
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return json.RawMessage(bytes.TrimSuffix(b.Bytes(), []byte("\n"))), nil
}

// hash16 is the first 8 bytes of SHA-256 as hex, like errsig signatures.
func hash16(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// Result is what a tool call produced, as loopbreaker reads it.
type Result struct {
	// Text is the result as hashed and, on failure, as the error text.
	Text string
	// Output is a shell command's output, parsed for tests.
	Output string
	// Failed: the call failed (a tool error, or a non-zero exit status
	// when the tool reports one).
	Failed bool
	// ExitCode is a shell command's exit status when the tool reports it.
	ExitCode *int
}

// Result extracts the result of a PostToolUse / PostToolUseFailure /
// AfterTool payload.
func (p *Payload) Result() Result {
	shell := Classify(p.Tool, p.ToolName) == ClassShell
	var r Result
	switch p.Tool {
	case Claude:
		if p.Event == "PostToolUseFailure" || p.Error != "" {
			r.Text, r.Output, r.Failed = p.Error, p.Error, true
			r.ExitCode = exitCodeLine(p.Error)
			return r
		}
		// A call rejected before it ran (Claude Code 2.1's PostToolBatch)
		// carries its error as the whole response.
		if msg, ok := toolUseError(p.ToolResponse); ok {
			r.Text, r.Output, r.Failed = msg, msg, true
			return r
		}
		var sh struct {
			Stdout *string `json:"stdout"`
			Stderr string  `json:"stderr"`
		}
		if shell && json.Unmarshal(p.ToolResponse, &sh) == nil && sh.Stdout != nil {
			r.Output = *sh.Stdout
			if sh.Stderr != "" {
				r.Output += "\n" + sh.Stderr
			}
			r.Text = r.Output
			return r
		}
		r.Text = responseText(p.ToolResponse)
		r.Output = r.Text
	case Codex:
		// Bash sends the output as a plain string with no exit status;
		// some builds prefix it with an "Exit code: N" header.
		r.Text = responseText(p.ToolResponse)
		r.Output = r.Text
		if shell {
			r.ExitCode = exitCodeLine(r.Text)
		}
	case Qwen:
		// A failed call comes as PostToolUseFailure with its error (as
		// Claude's); a result as Gemini's llmContent and returnDisplay.
		if p.Event == "PostToolUseFailure" || p.Error != "" {
			r.Text, r.Output, r.Failed = p.Error, p.Error, true
			if shell {
				// A command that exits non-zero fails: the error is the
				// whole llmContent ("Command: …\nDirectory: …\nOutput: …
				// \nExit Code: 1…").
				r.ExitCode = exitCodeLine(p.Error)
				r.Output = goTestSummaryTabs(shellOutput(qwenShellBody(p.Error)))
				code := 1
				if r.ExitCode != nil {
					code = *r.ExitCode
				}
				r.Text = "exit " + strconv.Itoa(code) + "\n" + r.Output
			}
			return r
		}
		return geminiResult(p, shell)
	case Pi:
		return piResult(p, shell)
	case Gemini:
		return geminiResult(p, shell)
	case Cline:
		return clineResult(p, shell)
	case Copilot:
		return copilotResult(p, shell)
	case OpenCode:
		return openCodeResult(p, shell)
	}
	if r.ExitCode != nil && *r.ExitCode != 0 {
		r.Failed = true
	}
	return r
}

// geminiResult reads a Gemini CLI (or Qwen Code) tool_response:
// {llmContent, returnDisplay, error}.
func geminiResult(p *Payload, shell bool) Result {
	var r Result
	var g struct {
		LLMContent    json.RawMessage `json:"llmContent"`
		ReturnDisplay json.RawMessage `json:"returnDisplay"`
		Error         *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(p.ToolResponse, &g) != nil {
		r.Text = responseText(p.ToolResponse)
		r.Output = r.Text
		return r
	}
	if g.Error != nil && g.Error.Message != "" {
		r.Text, r.Output, r.Failed = g.Error.Message, g.Error.Message, true
		return r
	}
	llm := responseText(g.LLMContent)
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
	r.ExitCode = exitCodeLine(llm)
	var display string
	switch {
	case json.Unmarshal(g.ReturnDisplay, &display) == nil:
		r.Output = display
	case isTerminalLines(g.ReturnDisplay):
		r.Output = goTestSummaryTabs(flattenTerminal(g.ReturnDisplay))
	default:
		r.Output = goTestSummaryTabs(shellOutput(llm))
	}
	return r.withExit()
}

// withExit completes a shell command's result from its exit status (none
// reported is 0): the text hashed starts with it, and non-zero fails.
func (r Result) withExit() Result {
	code := 0
	if r.ExitCode != nil {
		code = *r.ExitCode
	}
	r.Text = "exit " + strconv.Itoa(code) + "\n" + r.Output
	r.Failed = code != 0
	return r
}

// responseText is a result as text: a JSON string's value, else the
// compact JSON.
func responseText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) == nil {
		return b.String()
	}
	return string(raw)
}

// exitCodeLine finds an exit status line among the first and last lines
// of a tool's output: Claude's "Exit code N", Gemini's "Exit Code: N",
// Codex's "Exit code: N" or "Process exited with code N".
func exitCodeLine(text string) *int {
	lines := strings.Split(text, "\n")
	check := func(line string) *int {
		l := strings.ToLower(strings.TrimSpace(line))
		for _, prefix := range []string{"exit code:", "exit code", "process exited with code"} {
			rest, ok := strings.CutPrefix(l, prefix)
			if !ok {
				continue
			}
			if n, err := strconv.Atoi(strings.TrimSpace(rest)); err == nil {
				return &n
			}
		}
		return nil
	}
	for i := 0; i < len(lines) && i < 3; i++ {
		if n := check(lines[i]); n != nil {
			return n
		}
	}
	for i := len(lines) - 1; i >= 3 && i >= len(lines)-5; i-- {
		if n := check(lines[i]); n != nil {
			return n
		}
	}
	return nil
}

// Files are the files a file tool (edit or read) names in its input,
// relative to root (slash-separated) when inside it, else absolute.
// Relative paths in the input are taken relative to base.
func (p *Payload) Files(root, base string) []string {
	class := Classify(p.Tool, p.ToolName)
	if class != ClassEdit && class != ClassRead {
		return nil
	}
	var in map[string]json.RawMessage
	if json.Unmarshal(p.ToolInput, &in) != nil {
		return nil
	}
	var names []string
	str := func(key string) {
		var s string
		if json.Unmarshal(in[key], &s) == nil && strings.TrimSpace(s) != "" {
			names = append(names, s)
		}
	}
	switch {
	case p.Tool == Cline:
		names = clineFiles(p.ToolInput)
	case p.Tool == OpenCode && class == ClassEdit && len(in["patchText"]) > 0:
		// OpenCode's apply_patch (offered to GPT models) takes a patch.
		var s string
		if json.Unmarshal(in["patchText"], &s) == nil {
			names = append(names, PatchFiles(s)...)
		}
	case p.Tool == Codex && class == ClassEdit:
		for _, key := range []string{"command", "input", "patch"} {
			var s string
			if json.Unmarshal(in[key], &s) == nil && strings.Contains(s, "*** ") {
				names = append(names, PatchFiles(s)...)
				break
			}
		}
		str("file_path")
	case p.Tool == Pi:
		str("path")
	default:
		str("file_path")
		// OpenCode's read, edit and write.
		str("filePath")
		str("notebook_path")
		str("absolute_path")
		if p.Tool == Copilot {
			str("path")
		}
		var many []string
		if json.Unmarshal(in["paths"], &many) == nil {
			names = append(names, many...)
		}
	}
	var out []string
	for _, n := range names {
		f := relTo(root, base, n)
		if !containsString(out, f) {
			out = append(out, f)
		}
	}
	return out
}

// PatchFiles lists the files an apply_patch patch adds, updates, deletes
// or moves to, in order, as written in the patch.
func PatchFiles(patch string) []string {
	var files []string
	for line := range strings.SplitSeq(patch, "\n") {
		line = strings.TrimRight(line, "\r")
		for _, prefix := range []string{"*** Add File:", "*** Update File:", "*** Delete File:", "*** Move to:"} {
			if rest, ok := strings.CutPrefix(line, prefix); ok {
				if f := strings.TrimSpace(rest); f != "" && !containsString(files, f) {
					files = append(files, f)
				}
			}
		}
	}
	return files
}

// relTo resolves name against base and expresses it relative to root when
// it lies inside.
func relTo(root, base, name string) string {
	if !filepath.IsAbs(name) && base != "" {
		name = filepath.Join(base, name)
	}
	name = filepath.Clean(name)
	if root != "" && filepath.IsAbs(name) {
		if r, err := filepath.Rel(root, name); err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			return filepath.ToSlash(r)
		}
	}
	return filepath.ToSlash(name)
}

func containsString(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// maxErrorBytes bounds the raw error text a tool call keeps for reports.
const maxErrorBytes = 8 << 10

// toolUseError is the message of a "<tool_use_error>…</tool_use_error>"
// response: a call Claude Code rejected before it ran.
func toolUseError(raw json.RawMessage) (string, bool) {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	s = strings.TrimSpace(s)
	rest, ok := strings.CutPrefix(s, "<tool_use_error>")
	if !ok {
		return "", false
	}
	return strings.TrimSpace(strings.TrimSuffix(rest, "</tool_use_error>")), true
}

// BuildToolCall turns a post-tool payload into the breaker's record of the
// call: canonical arguments and their hash, the hash of the normalised
// result (so that noise such as durations or temp paths does not make a
// repeated call look new, while output that really changes does), the
// error signature when the call failed, the files it touched, whether it
// edited, and per-test results parsed from a shell command's output.
//
// A shell command whose output shows failing tests or a failure of the
// test infrastructure counts as failed even when the tool reports success
// (Claude's `go test | tail`, Codex, which reports no exit status).
// root is the project directory; base resolves relative paths.
//
// An edit that failed changed nothing: it is not marked Edit, so a
// repeated failing edit is the same failing call again.
func BuildToolCall(p *Payload, root, base string) lb.ToolCall {
	tc := callOf(p, root, base)
	class := Classify(p.Tool, p.ToolName)
	r := p.Result()
	failed := r.Failed
	if class == ClassShell && r.Output != "" {
		if tr, ok := testparse.Parse([]byte(r.Output)); ok {
			tc.Tests = tr.Tests
			// The totals show progress that names no test (pytest -q).
			passing, failing := tr.Passed, tr.Failed
			tc.TestsPassing, tc.TestsFailing = &passing, &failing
			if tr.Failed > 0 || tr.Infra != nil {
				failed = true
			}
		}
	}
	tc.ResultHash = hash16([]byte(errsig.Normalize(r.Text)))
	tc.InfoHash = InfoHash(r.Text, tc.Args)
	if failed {
		text := r.Text
		if strings.TrimSpace(text) == "" {
			text = "tool " + p.ToolName + " failed with no output"
		}
		tc.Error = &lb.ErrorText{Raw: errsig.Truncate(text, maxErrorBytes), Signature: errsig.Signature(text)}
		tc.Edit = false
	}
	return tc
}

// callOf is the part of a tool call its input says: tool, canonical
// arguments and their hash, files, and whether it edits.
func callOf(p *Payload, root, base string) lb.ToolCall {
	tc := lb.ToolCall{Tool: p.ToolName}
	args, err := Canonical(p.Tool, p.ToolName, p.ToolInput)
	if err != nil {
		// Not reachable for a payload that parsed; hash the bytes anyway.
		tc.ArgsHash = hash16(p.ToolInput)
	} else {
		tc.Args = args
		tc.ArgsHash = hash16(args)
	}
	class := Classify(p.Tool, p.ToolName)
	tc.Edit = class == ClassEdit
	tc.Files = p.Files(root, base)
	if class == ClassShell {
		// A command that writes files or history edits as an edit tool
		// does (a failed one is unmarked by BuildToolCall). What it writes
		// outside the project (a log in /tmp) is not the project's work.
		cmd := p.ShellCommand()
		w := ShellEdit(cmd)
		tc.Edit = w.Unnamed
		tc.Setup = ShellSetup(cmd)
		for _, f := range w.Files {
			f = relTo(root, base, f)
			if root != "" && filepath.IsAbs(filepath.FromSlash(f)) {
				continue
			}
			tc.Edit = true
			if !containsString(tc.Files, f) {
				tc.Files = append(tc.Files, f)
			}
		}
	}
	return tc
}

// ShellCommand is the command line of a shell tool call: its "command"
// input, a string, or an argument vector whose last element is the script
// (Codex: ["bash", "-lc", "go test ./..."]); "" when there is none.
func (p *Payload) ShellCommand() string {
	if p.Tool == Cline {
		// run_commands runs its commands one after the other.
		return strings.Join(clineCommands(p.ToolInput), "\n")
	}
	var in struct {
		Command json.RawMessage `json:"command"`
	}
	if json.Unmarshal(p.ToolInput, &in) != nil || len(in.Command) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(in.Command, &s) == nil {
		return s
	}
	var argv []string
	if json.Unmarshal(in.Command, &argv) == nil && len(argv) > 0 {
		return argv[len(argv)-1]
	}
	return ""
}

// Identity names a call by what it does: the tool and the hash of its
// canonical arguments. Two calls with one identity are the same call.
func (p *Payload) Identity() string {
	tc := callOf(p, "", "")
	return tc.Tool + "\x00" + tc.ArgsHash
}

// UnreportedCall is the record of a call announced by a pre-tool event
// whose result never came: the agent CLI rejected or failed it before it
// ran (Codex's apply_patch that does not apply, a call refused by
// validation), so it is a failed call, with an error that names the tool
// and says so. The same call unreported twice has the same error.
func UnreportedCall(p *Payload, root, base string) lb.ToolCall {
	tc := callOf(p, root, base)
	tc.Edit = false
	text := fmt.Sprintf("%s: the call reported no result (no post-tool event after %s): it failed before it ran", p.ToolName, p.Event)
	tc.ResultHash = hash16([]byte(text))
	tc.Error = &lb.ErrorText{Raw: text, Signature: errsig.Signature(p.ToolName + " reported no result")}
	return tc
}
