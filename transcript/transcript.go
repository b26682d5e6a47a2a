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

// Format names a session format.
type Format string

const (
	FormatClaude      Format = "claude"         // ~/.claude/projects/**/*.jsonl, claude -p --output-format stream-json
	FormatCodex       Format = "codex"          // ~/.codex/sessions/**/rollout-*.jsonl
	FormatGemini      Format = "gemini"         // ~/.gemini/tmp/**/chats/*
	FormatQwen        Format = "qwen"           // ~/.qwen/projects/*/chats/*.jsonl
	FormatCline       Format = "cline"          // ~/.cline/data/sessions/*/*.messages.json
	FormatCopilot     Format = "copilot"        // ~/.copilot/session-state/*/events.jsonl
	FormatPi          Format = "pi"             // ~/.pi/agent/sessions/*/*.jsonl
	FormatOpenCode    Format = "opencode"       // opencode export SESSION_ID
	FormatSWEAgent    Format = "swe-agent"      // *.traj
	FormatMiniSWE     Format = "mini-swe-agent" // *.traj.json
	FormatATIF        Format = "atif"           // trajectory.json (Agent Trajectory Interchange Format)
	FormatLoopbreaker Format = "loopbreaker"    // <state dir>/scopes/*/journal*.jsonl
)

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
	// agent's last message of it.
	TurnEnd bool
	Message string
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

// Read reads and parses the session in the file at path.
func Read(path string) (*Session, error) {
	data, err := safeopen.ReadFile(path, safeopen.FollowLinks, MaxFileBytes)
	if errors.Is(err, safeopen.ErrTooLarge) {
		return nil, fmt.Errorf("%w: more than a session file can be (%d MiB)", err, MaxFileBytes>>20)
	}
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Parse parses data, the content of the file named name.
func Parse(name string, data []byte) (*Session, error) {
	f := Detect(data)
	var s *Session
	var err error
	switch f {
	case FormatClaude:
		s, err = parseClaude(data)
	case FormatCodex:
		s, err = parseCodex(data)
	case FormatGemini:
		s, err = parseGemini(data)
	case FormatQwen:
		s, err = parseQwen(data)
	case FormatCline:
		s, err = parseCline(data)
	case FormatCopilot:
		s, err = parseCopilot(data)
	case FormatPi:
		s, err = parsePi(data)
	case FormatOpenCode:
		s, err = parseOpenCode(data)
	case FormatSWEAgent:
		s, err = parseSWEAgent(data)
	case FormatMiniSWE:
		s, err = parseMiniSWE(data)
	case FormatATIF:
		s, err = parseATIF(data)
	case FormatLoopbreaker:
		s, err = parseJournal(data)
	default:
		return nil, fmt.Errorf("%s: %w (want a Claude Code, Codex, Gemini CLI, Qwen Code, pi, Copilot CLI, Cline, OpenCode (opencode export), SWE-agent, mini-swe-agent or ATIF session, or a loopbreaker journal)", name, ErrUnknownFormat)
	}
	if err != nil {
		return nil, fmt.Errorf("%s (%s): %w", name, f, err)
	}
	s.Path, s.Format = name, f
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

// Detect names the format of a session file's content, or "" when it is
// none of them.
func Detect(data []byte) Format {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return ""
	}
	// A whole-file JSON document.
	if trimmed[0] == '{' && json.Valid(trimmed) {
		var head struct {
			Trajectory       json.RawMessage `json:"trajectory"`
			Messages         json.RawMessage `json:"messages"`
			TrajectoryFormat string          `json:"trajectory_format"`
			SchemaVersion    string          `json:"schema_version"`
			Steps            json.RawMessage `json:"steps"`
			SessionID        string          `json:"sessionId"`
			// Cline's sessions say where they come from.
			Origin json.RawMessage `json:"origin"`
			Info   struct {
				MiniVersion string `json:"mini_version"`
			} `json:"info"`
		}
		if json.Unmarshal(trimmed, &head) == nil {
			switch {
			case strings.HasPrefix(head.TrajectoryFormat, "mini-swe-agent") || head.Info.MiniVersion != "" && len(head.Messages) > 0:
				return FormatMiniSWE
			case len(head.Trajectory) > 0 && head.Trajectory[0] == '[':
				return FormatSWEAgent
			case strings.HasPrefix(head.SchemaVersion, "ATIF") && len(head.Steps) > 0:
				return FormatATIF
			case head.SessionID != "" && len(head.Origin) > 0 && len(head.Messages) > 0 && head.Messages[0] == '[':
				return FormatCline
			case head.SessionID != "" && len(head.Messages) > 0 && head.Messages[0] == '[':
				return FormatGemini
			case isOpenCodeExport(trimmed):
				return FormatOpenCode
			}
		}
		// A one-line JSONL file falls through.
	}
	// JSON Lines: the first lines that parse decide.
	seen := 0
	for line := range bytes.SplitSeq(trimmed, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] != '{' {
			continue
		}
		var l struct {
			Type    string          `json:"type"`
			Message json.RawMessage `json:"message"`
			Payload json.RawMessage `json:"payload"`
			Seq     *uint64         `json:"seq"`
			Scope   string          `json:"scope"`
			Session string          `json:"sessionId"`
			Sess2   string          `json:"session_id"`
			Project string          `json:"projectHash"`
			Content json.RawMessage `json:"content"`
			// Qwen Code's records carry where they come from, and
			// messages in parts (Gemini's shape, not Claude's content).
			Provenance string `json:"provenance"`
			// Copilot CLI's events are {type, data} with dotted types.
			Data json.RawMessage `json:"data"`
			// pi's header line: {type: "session", version, id, cwd}.
			Version json.RawMessage `json:"version"`
			ID      string          `json:"id"`
			Cwd     string          `json:"cwd"`
		}
		if json.Unmarshal(line, &l) != nil {
			continue
		}
		switch {
		case isCopilotEvent(l.Type, l.Data):
			return FormatCopilot
		case l.Type == "session" && len(l.Version) > 0 && l.ID != "" && l.Cwd != "":
			return FormatPi
		case l.Provenance != "" && l.Session != "" && (l.Type == "user" || l.Type == "assistant" || l.Type == "tool_result" || l.Type == "system"):
			return FormatQwen
		case l.Seq != nil && l.Scope != "" && (l.Type == string(lb.EntryEvent) || l.Type == string(lb.EntryTransition) || l.Type == string(lb.EntrySnapshot)):
			return FormatLoopbreaker
		case l.Project != "" || l.Type == "gemini" || len(l.Content) > 0 && len(l.Message) == 0 && l.Type == "user":
			return FormatGemini
		case len(l.Payload) > 0 && (l.Type == "session_meta" || l.Type == "response_item" || l.Type == "event_msg" || l.Type == "turn_context"):
			return FormatCodex
		case len(l.Message) > 0 && (l.Type == "user" || l.Type == "assistant"),
			l.Type == "system" && l.Sess2 != "",
			l.Type == "summary" || l.Type == "queue-operation" || l.Type == "file-history-snapshot":
			return FormatClaude
		}
		if seen++; seen >= 20 {
			break
		}
	}
	return ""
}

// jsonLines calls fn for each line of data that holds a JSON object; a
// line that does not parse (a half-written last line) is skipped.
func jsonLines(data []byte, fn func(line []byte)) {
	for line := range bytes.SplitSeq(data, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] != '{' {
			continue
		}
		fn(line)
	}
}

// parseTime reads an RFC 3339 time, zero when there is none.
func parseTime(s string) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, s)
	return t
}

// textOf is the text of a message content: a string, or the text parts of
// a list of blocks.
func textOf(raw json.RawMessage) string {
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

// shellEdits reports whether a shell command changes files or history
// (hook.ShellEdit), for agents whose edits are shell commands.
func shellEdits(command string) bool {
	return hook.ShellEdit(command).Edit()
}

// shellCall is a post-tool payload of a shell command in Claude Code's
// dialect: its output, and when it failed, Claude Code's error text
// ("Exit code N" then the output).
func shellCall(command, output string, exitCode *int) *hook.Payload {
	in, _ := json.Marshal(map[string]string{"command": command})
	p := &hook.Payload{Tool: hook.Claude, Event: "PostToolUse", Kind: hook.KindPostTool, ToolName: "Bash", ToolInput: in}
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
	p := &hook.Payload{Tool: hook.Claude, Event: "PostToolUse", Kind: hook.KindPostTool, ToolName: name, ToolInput: input}
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
