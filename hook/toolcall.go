package hook

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/loopbreaker/loopbreaker/internal/shell"

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

// Class is what the payload's tool does, in its CLI's vocabulary.
func (p *Payload) Class() Class { return p.dialect().Class(p.ToolName) }

// dialect is the payload's protocol; a payload built without one reads as
// the standard vocabulary.
func (p *Payload) dialect() Dialect {
	if p.Dialect == nil {
		return Standard{}
	}
	return p.Dialect
}

// Canonical returns the canonical form of a call's arguments: the JSON of
// input with the tool's volatile fields dropped, object keys sorted at
// every level, no insignificant whitespace, numbers as written. Missing
// input is {}.
func Canonical(d Dialect, name string, input json.RawMessage) (json.RawMessage, error) {
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
		for _, k := range d.VolatileFields(name) {
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
	// NotRun: the call never ran, its result is the CLI's notice of why
	// (Claude Code cancels the calls of a batch still to run when one of
	// them fails). Such a call is no attempt of the agent's: nothing is
	// recorded of it (Payload.Ran).
	NotRun bool
}

// Result extracts the result of a post-tool payload, as its CLI writes it.
func (p *Payload) Result() Result { return p.dialect().Result(p) }

// Ran reports whether the call of a post-tool payload ran: false for a
// call its CLI cancelled before it ran (Result.NotRun), whose result says
// nothing of the call. Whatever records calls (the hooks, a replay) asks
// this, so that they agree on what a call is.
func (p *Payload) Ran() bool { return !p.Result().NotRun }

// WithExit completes a shell command's result from its exit status (none
// reported is 0): the text hashed starts with it, and non-zero fails.
func (r Result) WithExit() Result {
	code := 0
	if r.ExitCode != nil {
		code = *r.ExitCode
	}
	r.Text = "exit " + strconv.Itoa(code) + "\n" + r.Output
	r.Failed = code != 0
	return r
}

// ResponseText is a result as text: a JSON string's value, else the
// compact JSON.
func ResponseText(raw json.RawMessage) string {
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

// ExitCodeLine finds an exit status line among the first and last lines
// of a tool's output: Claude's "Exit code N", Gemini's "Exit Code: N",
// Codex's "Exit code: N" or "Process exited with code N".
func ExitCodeLine(text string) *int {
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
	class := p.Class()
	if class != ClassEdit && class != ClassRead {
		return nil
	}
	names := p.dialect().InputFiles(p, class)
	var out []string
	for _, n := range names {
		f := relTo(root, base, n)
		if !slices.Contains(out, f) {
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
				if f := strings.TrimSpace(rest); f != "" && !slices.Contains(files, f) {
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

// maxErrorBytes bounds the raw error text a tool call keeps for reports.
const maxErrorBytes = 8 << 10

// toolUseError is the message of a "<tool_use_error>…</tool_use_error>"
// response: a call Claude Code rejected before it ran.
func toolUseError(raw json.RawMessage) (string, bool) {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return "", false
	}
	return cutToolUseError(s)
}

// cutToolUseError is the message of a "<tool_use_error>" text.
func cutToolUseError(s string) (string, bool) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(s), "<tool_use_error>")
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
	class := p.Class()
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
	args, err := Canonical(p.dialect(), p.ToolName, p.ToolInput)
	if err != nil {
		// Not reachable for a payload that parsed; hash the bytes anyway.
		tc.ArgsHash = hash16(p.ToolInput)
	} else {
		tc.Args = args
		tc.ArgsHash = hash16(args)
	}
	class := p.Class()
	tc.Edit = class == ClassEdit
	tc.Files = p.Files(root, base)
	if class == ClassShell {
		// A command that writes files or history edits as an edit tool
		// does (a failed one is unmarked by BuildToolCall). What it writes
		// outside the project (a log in /tmp) is not the project's work.
		cmd := p.ShellCommand()
		cs := shell.Commands(cmd) // read once for both questions
		w := shellEdit(cmd, cs)
		tc.Edit = w.Unnamed
		tc.Setup = shellSetup(cs)
		for _, f := range w.Files {
			f = relTo(root, base, f)
			if root != "" && filepath.IsAbs(filepath.FromSlash(f)) {
				continue
			}
			tc.Edit = true
			if !slices.Contains(tc.Files, f) {
				tc.Files = append(tc.Files, f)
			}
		}
	}
	return tc
}

// ShellCommand is the command line of a shell tool call, "" when there is
// none.
func (p *Payload) ShellCommand() string { return p.dialect().ShellCommand(p) }

// Identity names a call by what it does: the tool and the hash of its
// canonical arguments. Two calls with one identity are the same call.
func (p *Payload) Identity() string {
	tc := callOf(p, "", "")
	return tc.Tool + "\x00" + tc.ArgsHash
}

// AnnouncedCall is what a pre-tool event says of its call: the tool and
// its canonical arguments, the call's identity while it waits for its
// result. Its failure, if the result never comes, is written only then
// (Unreported): most calls report.
func AnnouncedCall(p *Payload, root, base string) lb.ToolCall {
	tc := callOf(p, root, base)
	tc.Edit = false
	return tc
}

// Unreported marks an announced call whose result never came as failed:
// the agent CLI rejected or failed it before it ran (Codex's apply_patch
// that does not apply, a call refused by validation). The error names the
// tool and says so; the same call unreported twice has the same error. A
// call remembered with its error already (a state written before errors
// were left to this moment) keeps it.
func Unreported(tc *lb.ToolCall) {
	if tc.Error != nil {
		return
	}
	tc.Edit = false
	text := tc.Tool + ": the call reported no result (no post-tool event came for it): it failed before it ran"
	tc.ResultHash = hash16([]byte(text))
	tc.Error = &lb.ErrorText{Raw: text, Signature: errsig.Signature(tc.Tool + " reported no result")}
}
