package claude

import (
	"encoding/json"
	"strings"

	"github.com/loopbreaker/loopbreaker/transcript"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/hook"
)

// Claude Code writes one JSON object a line, both in its transcripts
// (~/.claude/projects/<project>/<session>.jsonl) and on stdout with
// `claude -p --output-format stream-json --verbose`: an "assistant" line
// per content block (tool_use blocks name the call), a "user" line with a
// tool_result block per result, with the tool's structured response beside
// it (toolUseResult in transcripts, tool_use_result in stream-json), which
// is what the PostToolUse hook receives as tool_response. A "user" line
// whose content is a prompt starts a new turn (but not one that is part of
// the turn, see partOfTurn); stream-json ends each run with a "result"
// line.

type claudeLine struct {
	Type       string `json:"type"`
	SessionID  string `json:"sessionId"`
	SessionID2 string `json:"session_id"`
	Timestamp  string `json:"timestamp"`
	IsMeta     bool   `json:"isMeta"`
	// PromptID names the prompt a line belongs to (Claude Code 2.1 and
	// later); SourceToolUseID the tool call a message was injected by.
	PromptID        string `json:"promptId"`
	SourceToolUseID string `json:"sourceToolUseID"`
	// A sub-agent's messages: stream-json names the Task call that
	// started it (parent_tool_use_id), a transcript marks them
	// isSidechain (versions that keep them in the session's file, and
	// the warm-up messages Claude Code sends its sub-agents at start).
	ParentToolUseID string          `json:"parent_tool_use_id"`
	IsSidechain     bool            `json:"isSidechain"`
	Message         *claudeMessage  `json:"message"`
	ToolUseResult   json.RawMessage `json:"toolUseResult"`
	ToolUseRes2     json.RawMessage `json:"tool_use_result"`
	Result          string          `json:"result"`
}

type claudeMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type pendingUse struct {
	name  string
	input json.RawMessage
}

func parseTranscript(data []byte) (*transcript.Session, error) {
	s := &transcript.Session{}
	uses := map[string]pendingUse{}
	active := false // tool calls or messages since the last transcript.Turn end
	lastText := ""
	// The usage of the messages since the previous step goes with the
	// next one; a message's usage counts once (see transcript.UsageOf).
	var spent *lb.Usage
	var cursor transcript.UsageCursor
	takeUsage := func() *lb.Usage { u := spent; spent = nil; return u }
	prompt := promptState{}
	endTurn := func(ts string) {
		if active {
			s.Steps = append(s.Steps, transcript.Step{TurnEnd: true, Notification: prompt.notification, Message: lastText, Time: transcript.ParseTime(ts), Usage: takeUsage()})
		}
		active, lastText = false, ""
	}
	transcript.JSONLines(data, func(line []byte) {
		var l claudeLine
		if json.Unmarshal(line, &l) != nil {
			return
		}
		if s.ID == "" {
			s.ID = l.SessionID + l.SessionID2
		}
		if l.Type == "assistant" {
			if u, next, ok := transcript.UsageOf(line, cursor); ok {
				cursor = next
				if spent == nil {
					spent = &lb.Usage{}
				}
				spent.Add(u)
			}
		}
		switch l.Type {
		case "result":
			if lastText == "" {
				lastText = l.Result
			}
			endTurn(l.Timestamp)
			return
		case "assistant", "user":
		default:
			return
		}
		if l.Message == nil {
			return
		}
		// A sub-agent works inside the main agent's turn: its calls are
		// the session's (they fire PostToolUse), its prompt and its
		// words are not the turn's.
		sub := l.ParentToolUseID != "" || l.IsSidechain
		var blocks []transcript.Block
		if json.Unmarshal(l.Message.Content, &blocks) != nil {
			// A plain string: a prompt (user) or a message (assistant).
			if l.Type == "user" && !l.IsMeta {
				if text := transcript.TextOf(l.Message.Content); !prompt.partOfTurn(&l, text, prompt.lastResultTool) {
					endTurn(l.Timestamp)
					prompt.begin(&l, text)
				}
			} else if l.Type == "assistant" && !sub {
				lastText, active = transcript.TextOf(l.Message.Content), true
			}
			return
		}
		results := false
		after := prompt.lastResultTool
		prompt.lastResultTool = ""
		for _, b := range blocks {
			switch b.Type {
			case "tool_use":
				uses[b.ID] = pendingUse{name: b.Name, input: b.Input}
				active = true
			case "text":
				if l.Type == "assistant" && !sub {
					lastText, active = b.Text, true
				}
			case "tool_result":
				results = true
				use, ok := uses[b.ToolUseID]
				if !ok {
					continue
				}
				delete(uses, b.ToolUseID)
				prompt.lastResultTool = use.name
				resp := l.ToolUseResult
				if len(resp) == 0 {
					resp = l.ToolUseRes2
				}
				call := claudeCall(b, use, resp)
				if !call.Ran() {
					// Cancelled before it ran: no hook saw it.
					continue
				}
				s.Steps = append(s.Steps, transcript.Step{Call: call, Time: transcript.ParseTime(l.Timestamp), Usage: takeUsage()})
				active = true
			}
		}
		if l.Type == "user" && !results && !l.IsMeta && len(blocks) > 0 && blocks[0].Type == "text" &&
			!strings.HasPrefix(strings.TrimSpace(blocks[0].Text), "<") && !prompt.partOfTurn(&l, blocks[0].Text, after) {
			// A prompt given as text blocks (not a reminder or a command
			// echo, which start with a tag).
			endTurn(l.Timestamp)
			prompt.begin(&l, blocks[0].Text)
		}
	})
	endTurn("")
	return s, nil
}

// promptState tells a person's prompt from a user message Claude Code
// writes inside a turn: a Skill load writes the skill's text as a user
// message after the Skill call's result, which no hook sees as a prompt
// (no UserPromptSubmit); replayed as one, it would add a turn the live
// hooks never saw.
type promptState struct {
	// promptID is the prompt the current turn began with.
	promptID string
	// lastResultTool is the tool whose result the latest line with
	// content blocks held ("" when it held none).
	lastResultTool string
	// notification: the current turn answers a background task's
	// notification (hook.TaskNotification).
	notification bool
}

func (p *promptState) begin(l *claudeLine, text string) {
	p.promptID, p.notification = l.PromptID, hook.TaskNotification(text)
}

// partOfTurn reports whether a user message with text is part of the
// current turn rather than a new prompt: it names the turn's own prompt
// (promptId), or the tool call that injected it (sourceToolUseID), or it
// is a sub-agent's prompt (parent_tool_use_id, isSidechain: no hook sees
// a prompt there, the sub-agent ends with SubagentStop, not Stop), or it
// comes right after a Skill call's result, or it is a skill's text
// ("Base directory for this skill: …", which versions without those
// fields write).
// afterTool is the tool whose result the line before held.
func (p *promptState) partOfTurn(l *claudeLine, text, afterTool string) bool {
	return l.PromptID != "" && l.PromptID == p.promptID || l.SourceToolUseID != "" ||
		l.ParentToolUseID != "" || l.IsSidechain ||
		afterTool == "Skill" || strings.HasPrefix(strings.TrimSpace(text), "Base directory for this skill:")
}

// claudeCall is the post-tool payload of one call: PostToolUseFailure with
// the result's text as error when it failed, else PostToolUse with the
// structured response when the file has it.
func claudeCall(b transcript.Block, use pendingUse, resp json.RawMessage) *hook.Payload {
	p := &hook.Payload{Tool: "claude", Dialect: New(), Event: "PostToolUse", Kind: hook.KindPostTool,
		ToolName: use.name, ToolInput: use.input, ToolUseID: b.ToolUseID}
	text := transcript.TextOf(b.Content)
	if b.IsError {
		p.Event, p.Error = "PostToolUseFailure", text
		return p
	}
	if len(resp) > 0 && string(resp) != "null" {
		p.ToolResponse = resp
	} else {
		p.ToolResponse, _ = json.Marshal(text)
	}
	return p
}

// Transcript reads Claude Code's transcripts (~/.claude/projects/**/*.jsonl)
// and `claude -p --output-format stream-json` logs.
func (a Agent) Transcript() transcript.Reader {
	return transcript.Reader{Format: transcript.Format(a.Name()), Line: isTranscriptLine, Parse: parseTranscript}
}

// isTranscriptLine: a user or assistant message, a system line with a
// session, or one of the bookkeeping lines; not Qwen Code's records,
// which name their provenance.
func isTranscriptLine(line []byte) bool {
	var l struct {
		Type       string          `json:"type"`
		Message    json.RawMessage `json:"message"`
		SessionID  string          `json:"session_id"`
		Provenance string          `json:"provenance"`
	}
	if json.Unmarshal(line, &l) != nil || l.Provenance != "" {
		return false
	}
	switch l.Type {
	case "user", "assistant":
		return len(l.Message) > 0
	case "system":
		return l.SessionID != ""
	case "summary", "queue-operation", "file-history-snapshot":
		return true
	}
	return false
}
