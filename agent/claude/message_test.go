package claude

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/hook"
)

// writeTranscript writes lines as Claude Code does: one JSON object each.
func writeTranscript(t *testing.T, lines ...any) string {
	t.Helper()
	var b strings.Builder
	for _, l := range lines {
		data, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(data)
		b.WriteByte('\n')
	}
	path := filepath.Join(t.TempDir(), "session.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func useLine(msg string, blocks ...map[string]any) map[string]any {
	content := []any{}
	for _, b := range blocks {
		content = append(content, b)
	}
	return map[string]any{"type": "assistant", "message": map[string]any{"id": msg, "role": "assistant", "content": content}}
}

func use(id string) map[string]any {
	return map[string]any{"type": "tool_use", "id": id, "name": "Read", "input": map[string]any{"file_path": "/p/" + id}}
}

func resultLine(id string, size int) map[string]any {
	return map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": []any{
		map[string]any{"type": "tool_result", "tool_use_id": id, "content": strings.Repeat("x", size)}}}}
}

// The calls of one model message are the tool_use blocks of every line
// with its id, however many lines and results come after it; a call of
// another message, or one the transcript does not have, is not.
func TestMessageCallsReadsTheCallsOfOneMessage(t *testing.T) {
	path := writeTranscript(t,
		useLine("msg_1", use("toolu_old")),
		resultLine("toolu_old", 10),
		useLine("msg_2", map[string]any{"type": "text", "text": "reading four files"}),
		useLine("msg_2", use("toolu_a")), useLine("msg_2", use("toolu_b")), useLine("msg_2", use("toolu_c"), use("toolu_d")),
		// Large results after the message: found beyond the first chunk.
		resultLine("toolu_b", 300<<10), resultLine("toolu_c", 300<<10),
	)
	a := Agent{}
	got := a.MessageCalls(&hook.Payload{TranscriptPath: path, ToolUseID: "toolu_b"})
	if want := []string{"toolu_a", "toolu_b", "toolu_c", "toolu_d"}; !slices.Equal(got, want) {
		t.Errorf("calls of toolu_b's message %q, want %q", got, want)
	}
	if got := a.MessageCalls(&hook.Payload{TranscriptPath: path, ToolUseID: "toolu_old"}); !slices.Equal(got, []string{"toolu_old"}) {
		t.Errorf("calls of toolu_old's message %q, want only it", got)
	}
	if got := a.MessageCalls(&hook.Payload{TranscriptPath: path, ToolUseID: "toolu_new"}); got != nil {
		t.Errorf("a call the transcript has not written yet: %q, want none", got)
	}
	// A result naming the call is not the message that asked for it.
	if got := a.MessageCalls(&hook.Payload{TranscriptPath: path, ToolUseID: "toolu_a\"x"}); got != nil {
		t.Errorf("an id with a quote: %q, want none", got)
	}
}

// The transcript is named by the payload, which the agent writes: a link
// there is not followed, a missing file or a payload without an id says
// nothing.
func TestMessageCallsTrustsNoLink(t *testing.T) {
	path := writeTranscript(t, useLine("msg_1", use("toolu_a"), use("toolu_b")))
	link := filepath.Join(t.TempDir(), "link.jsonl")
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	a := Agent{}
	for _, p := range []*hook.Payload{
		{TranscriptPath: link, ToolUseID: "toolu_a"},
		{TranscriptPath: filepath.Join(t.TempDir(), "none.jsonl"), ToolUseID: "toolu_a"},
		{TranscriptPath: path},
		{ToolUseID: "toolu_a"},
	} {
		if got := a.MessageCalls(p); got != nil {
			t.Errorf("%+v: %q, want none", p, got)
		}
	}
	if got := a.MessageCalls(&hook.Payload{TranscriptPath: path, ToolUseID: "toolu_a"}); len(got) != 2 {
		t.Errorf("the file itself: %q, want both calls", got)
	}
}
