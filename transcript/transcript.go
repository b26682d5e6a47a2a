// Package transcript reads recorded agent sessions: Claude Code
// transcripts and stream-json logs, Codex CLI rollouts, Gemini CLI chat
// logs, Qwen Code chats, pi sessions, GitHub Copilot CLI session events,
// OpenCode session exports, SWE-agent and mini-swe-agent trajectories, ATIF
// trajectories and loopbreaker's own journal. Each becomes a Session: the tool calls the
// agent made, with their results, and the ends of its turns, in order.
//
// A tool call is kept as the hook payload the agent CLI would have sent
// after the call ran (hook.Payload), so that replaying it builds the very
// record a live hook builds (hook.BuildToolCall). Formats of agents without
// hooks (SWE-agent, mini-swe-agent, ATIF) speak Claude Code's dialect: a
// shell command is a Bash call, a failed one carries "Exit code N" as
// Claude Code reports it.
//
// The format is detected from the content, not the file name (Detect).
package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/hook"
	"github.com/loopbreaker/loopbreaker/internal/safeopen"
)

// Format names a session format: an agent CLI's name, or one of the
// formats below.
type Format string

// The formats of agents without hooks, and loopbreaker's own.
const (
	FormatSWEAgent    Format = "swe-agent"      // *.traj
	FormatMiniSWE     Format = "mini-swe-agent" // *.traj.json
	FormatATIF        Format = "atif"           // trajectory.json (Agent Trajectory Interchange Format)
	FormatLoopbreaker Format = "loopbreaker"    // <state dir>/scopes/*/journal*.jsonl
)

// Reader reads the sessions one agent CLI records (its package gives it).
type Reader struct {
	Format Format
	// Document says whether a whole-file JSON document is this format;
	// Line whether a line of a JSON Lines file says the file is (nil
	// for a format of the other kind).
	Document func(doc []byte) bool
	Line     func(line []byte) bool
	// Parse reads the whole file.
	Parse func(data []byte) (*Session, error)
}

// Session is one recorded agent session.
type Session struct {
	// ID is the session's own id when the file names one, else the file's
	// base name without its extensions.
	ID     string
	Path   string
	Format Format
	Steps  []Step
	// ExitStatus is how the run ended when the file says so (SWE-agent's
	// exit_cost, mini-swe-agent's LimitsExceeded, ...).
	ExitStatus string
}

// Step is one thing the agent did: a tool call with its result, the end of
// a turn, or (loopbreaker's journal) an event as it was recorded.
type Step struct {
	// Call is a tool call as its post-tool hook payload.
	Call *hook.Payload
	// Edit marks a call that changed files although its tool is not an
	// edit tool (a shell command that writes a file, SWE-agent's edit).
	Edit bool
	// TurnEnd marks the end of one of the agent's turns; Message is the
	// agent's last message of it. Notification marks a turn that answered
	// a background task's notification, not a person's prompt
	// (hook.TaskNotification): an iteration only when it edited.
	TurnEnd      bool
	Notification bool
	Message      string
	// Event is an event of loopbreaker's journal, applied as recorded.
	Event *lb.Event
	// Time is when it happened, when the file says.
	Time time.Time
	// Usage is what the model calls since the previous step consumed,
	// when the file records it (nil: not recorded).
	Usage *lb.Usage
}

// Calls counts the tool calls (and journal tool-call events) of s.
func (s *Session) Calls() int {
	n := 0
	for i := range s.Steps {
		st := &s.Steps[i]
		if st.Call != nil || st.Event != nil && st.Event.Kind == lb.EventToolCall {
			n++
		}
	}
	return n
}

// ErrUnknownFormat is returned for a file that is no known session format.
var ErrUnknownFormat = errors.New("not a recorded agent session")

// MaxFileBytes bounds what Read accepts.
const MaxFileBytes = 512 << 20

// Read reads and parses the session in the file at path, in one of the
// agents' formats or of the formats this package knows.
func Read(path string, agents []Reader) (*Session, error) {
	data, err := safeopen.ReadFile(path, safeopen.FollowLinks, MaxFileBytes)
	if errors.Is(err, safeopen.ErrTooLarge) {
		return nil, fmt.Errorf("%w: more than a session file can be (%d MiB)", err, MaxFileBytes>>20)
	}
	if err != nil {
		return nil, err
	}
	return Parse(path, data, agents)
}

// Parse parses data, the content of the file named name.
func Parse(name string, data []byte, agents []Reader) (*Session, error) {
	r, ok := Detect(data, agents)
	if !ok {
		var names []string
		for _, a := range agents {
			names = append(names, string(a.Format))
		}
		return nil, fmt.Errorf("%s: %w (want a session of %s, SWE-agent, mini-swe-agent or ATIF, or a loopbreaker journal)", name, ErrUnknownFormat, strings.Join(names, ", "))
	}
	return ParseAs(name, data, r)
}

// ParseAs parses data, the content of the file named name, as r's format.
func ParseAs(name string, data []byte, r Reader) (*Session, error) {
	s, err := r.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s (%s): %w", name, r.Format, err)
	}
	s.Path, s.Format = name, r.Format
	if s.ID == "" {
		s.ID = baseName(name)
	}
	return s, nil
}

// baseName is a file's name without directory and extensions.
func baseName(path string) string {
	b := filepath.Base(path)
	if i := strings.IndexByte(b, '.'); i > 0 {
		b = b[:i]
	}
	return b
}

// own are the formats this package reads: whole documents first, then
// loopbreaker's journal, whose lines no agent's could be taken for.
func own() []Reader {
	return []Reader{
		{Format: FormatMiniSWE, Document: isMiniSWE, Parse: parseMiniSWE},
		{Format: FormatSWEAgent, Document: isSWEAgent, Parse: parseSWEAgent},
		{Format: FormatATIF, Document: isATIF, Parse: parseATIF},
		{Format: FormatLoopbreaker, Line: isJournalLine, Parse: parseJournal},
	}
}

// Detect finds the format of a session file's content among this
// package's and the agents': a whole-file JSON document asks each format
// of documents, JSON Lines ask each format of lines, the first lines that
// parse deciding.
func Detect(data []byte, agents []Reader) (Reader, bool) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return Reader{}, false
	}
	readers := append(own(), agents...)
	// A whole-file JSON document; a one-line JSONL file falls through.
	if trimmed[0] == '{' && json.Valid(trimmed) {
		for _, r := range readers {
			if r.Document != nil && r.Document(trimmed) {
				return r, true
			}
		}
	}
	seen := 0
	for line := range bytes.SplitSeq(trimmed, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] != '{' || !json.Valid(line) {
			continue
		}
		for _, r := range readers {
			if r.Line != nil && r.Line(line) {
				return r, true
			}
		}
		if seen++; seen >= 20 {
			break
		}
	}
	return Reader{}, false
}

// isMiniSWE, isSWEAgent and isATIF read a document's head.
func isMiniSWE(doc []byte) bool {
	var h struct {
		Messages         json.RawMessage `json:"messages"`
		TrajectoryFormat string          `json:"trajectory_format"`
		Info             struct {
			MiniVersion string `json:"mini_version"`
		} `json:"info"`
	}
	return json.Unmarshal(doc, &h) == nil && (strings.HasPrefix(h.TrajectoryFormat, "mini-swe-agent") || h.Info.MiniVersion != "" && len(h.Messages) > 0)
}

func isSWEAgent(doc []byte) bool {
	var h struct {
		Trajectory json.RawMessage `json:"trajectory"`
	}
	return json.Unmarshal(doc, &h) == nil && len(h.Trajectory) > 0 && h.Trajectory[0] == '['
}

func isATIF(doc []byte) bool {
	var h struct {
		SchemaVersion string          `json:"schema_version"`
		Steps         json.RawMessage `json:"steps"`
	}
	return json.Unmarshal(doc, &h) == nil && strings.HasPrefix(h.SchemaVersion, "ATIF") && len(h.Steps) > 0
}

// isJournalLine reads a line of loopbreaker's journal: {seq, scope, type}.
func isJournalLine(line []byte) bool {
	var l struct {
		Type  string  `json:"type"`
		Seq   *uint64 `json:"seq"`
		Scope string  `json:"scope"`
	}
	return json.Unmarshal(line, &l) == nil && l.Seq != nil && l.Scope != "" &&
		(l.Type == string(lb.EntryEvent) || l.Type == string(lb.EntryTransition) || l.Type == string(lb.EntrySnapshot))
}

// JSONLines calls fn for each line of data that holds a JSON object; a
// line that does not parse (a half-written last line) is skipped.
func JSONLines(data []byte, fn func(line []byte)) {
	for line := range bytes.SplitSeq(data, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] != '{' {
			continue
		}
		fn(line)
	}
}

// ParseTime reads an RFC 3339 time, zero when there is none.
func ParseTime(s string) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, s)
	return t
}

// TextOf is the text of a message content: a string, or the text parts of
// a list of blocks.
func TextOf(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &blocks) == nil {
		var parts []string
		for _, b := range blocks {
			if b.Text != "" {
				parts = append(parts, b.Text)
			}
		}
		return strings.Join(parts, "\n")
	}
	return string(raw)
}

// ShellEdits reports whether a shell command changes files or history
// (hook.ShellEdit), for agents whose edits are shell commands.
func ShellEdits(command string) bool {
	return hook.ShellEdit(command).Edit()
}

// shellCall is a post-tool payload of a shell command in Claude Code's
// dialect: its output, and when it failed, Claude Code's error text
// ("Exit code N" then the output).
func shellCall(command, output string, exitCode *int) *hook.Payload {
	in, _ := json.Marshal(map[string]string{"command": command})
	p := &hook.Payload{Dialect: hook.Standard{}, Event: "PostToolUse", Kind: hook.KindPostTool, ToolName: "Bash", ToolInput: in}
	if exitCode != nil && *exitCode != 0 {
		p.Event = "PostToolUseFailure"
		p.Error = fmt.Sprintf("Exit code %d\n%s", *exitCode, output)
		return p
	}
	resp, _ := json.Marshal(map[string]any{"stdout": output, "stderr": "", "interrupted": false})
	p.ToolResponse = resp
	return p
}

// genericCall is a post-tool payload of any other tool in Claude Code's
// dialect.
func genericCall(name string, input json.RawMessage, output string, failed bool) *hook.Payload {
	if len(input) == 0 {
		input = json.RawMessage("{}")
	}
	p := &hook.Payload{Dialect: hook.Standard{}, Event: "PostToolUse", Kind: hook.KindPostTool, ToolName: name, ToolInput: input}
	if failed {
		p.Event = "PostToolUseFailure"
		p.Error = output
		if p.Error == "" {
			p.Error = name + " failed"
		}
		return p
	}
	resp, _ := json.Marshal(output)
	p.ToolResponse = resp
	return p
}

// ownWarning starts what loopbreaker's hook adds to a result.
const ownWarning = "\n\nloopbreaker: "

// WithoutOwnWarning takes loopbreaker's warning off the end of a result.
func WithoutOwnWarning(s string) string {
	if i := strings.LastIndex(s, ownWarning); i >= 0 {
		return s[:i]
	}
	return s
}

// Block is a content block of a message of the Anthropic Messages API,
// which Claude Code and Cline record: text, a tool use, or a tool
// result.
type Block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}
