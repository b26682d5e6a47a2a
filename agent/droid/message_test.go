package droid

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/hook"
)

// session is a real Droid 0.215.0 transcript as it stood when the
// PreToolUse hook of PreToolUse-Read-batch.json ran (e2e/droid/testdata):
// a message asking for Read a.txt, Execute `cat b.txt`, Read c.txt and
// Execute `cat d.txt`, their hook runs and results, then a message asking
// for Read a.txt twice, and the hook run of one of those.
const (
	firstMessage  = "16653308-99c4-4b7b-93c9-0ed8c6f1310d"
	secondMessage = "7509911b-c2c1-47d1-a35b-a19f0097662b"
)

// sessionLines are the lines of the real transcript.
func sessionLines(t *testing.T) [][]byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "e2e", "droid", "testdata", "session-at-PreToolUse.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return bytes.SplitAfter(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
}

// writeSession writes lines as a transcript and returns its path.
func writeSession(t *testing.T, lines ...[]byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "session.jsonl")
	if err := os.WriteFile(path, bytes.Join(lines, nil), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// callAt is the real payload of a PreToolUse reading transcript, for the
// call of tool with input.
func callAt(t *testing.T, transcript, tool string, input map[string]any) *hook.Payload {
	t.Helper()
	p := fixture(t, "PreToolUse-Read-batch.json")
	p.TranscriptPath, p.ToolName = transcript, tool
	b, err := json.Marshal(input)
	if err != nil {
		t.Fatal(err)
	}
	p.ToolInput = b
	return p
}

const dir = "/tmp/TestProbeBatch2019908369/001/"

// The message that asked for a call is the last assistant message, when
// it asks for the call's tool with its input: the read of a.txt that both
// messages asked for is of the second, a call only the first asked for is
// of no message being run, nor is a call neither asked for.
func TestMessageOfNamesTheMessageBeingRun(t *testing.T) {
	path := writeSession(t, sessionLines(t)...)
	a := New()
	if got := a.MessageOf(callAt(t, path, "Read", map[string]any{"file_path": dir + "a.txt"})); got != secondMessage {
		t.Errorf("Read a.txt: message %q, want the second, %q", got, secondMessage)
	}
	for _, c := range []struct {
		tool  string
		input map[string]any
	}{
		{"Execute", map[string]any{"command": "cat b.txt", "riskLevel": "low", "riskLevelReason": "a test"}},
		{"Read", map[string]any{"file_path": dir + "b.txt"}},
		{"Execute", map[string]any{"file_path": dir + "a.txt"}},
	} {
		if got := a.MessageOf(callAt(t, path, c.tool, c.input)); got != "" {
			t.Errorf("%s %v: message %q, want none: the message being run does not ask for it", c.tool, c.input, got)
		}
	}
}

// While the first message runs, its calls are of it, their input
// compared without the fields the model words anew each time (Execute's
// riskLevel); a line cut at the start of the tail, or large lines after
// the message, do not hide it.
func TestMessageOfReadsTheFirstMessage(t *testing.T) {
	lines := sessionLines(t)
	// Up to the first message's hook runs, then a hook run with a large
	// output (beyond the first chunk read).
	big, err := json.Marshal(map[string]any{"type": "message", "id": "big", "message": map[string]any{
		"role": "user", "content": []any{}, "hookEventName": "PreToolUse",
		"hookResults": []any{map[string]any{"exitCode": 0, "stdout": strings.Repeat("x", 300<<10)}}}})
	if err != nil {
		t.Fatal(err)
	}
	path := writeSession(t, append(lines[:6:6], append(big, '\n'), lines[6])...)
	a := New()
	exec := map[string]any{"command": "cat d.txt", "riskLevel": "medium", "riskLevelReason": "worded anew"}
	if got := a.MessageOf(callAt(t, path, "Execute", exec)); got != firstMessage {
		t.Errorf("Execute cat d.txt: message %q, want the first, %q", got, firstMessage)
	}
	if got := a.MessageOf(callAt(t, path, "Execute", map[string]any{"command": "cat e.txt"})); got != "" {
		t.Errorf("Execute cat e.txt: message %q, want none", got)
	}
	// Before the transcript has the message: none.
	if got := a.MessageOf(callAt(t, writeSession(t, lines[:4]...), "Execute", exec)); got != "" {
		t.Errorf("before the message was written: %q, want none", got)
	}
}

// The transcript is named by the payload, which the agent writes: a link
// there is not followed, and a missing file says nothing.
func TestMessageOfTrustsNoLink(t *testing.T) {
	path := writeSession(t, sessionLines(t)...)
	link := filepath.Join(t.TempDir(), "link.jsonl")
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	a := New()
	read := map[string]any{"file_path": dir + "a.txt"}
	for _, p := range []string{link, filepath.Join(t.TempDir(), "none.jsonl"), ""} {
		if got := a.MessageOf(callAt(t, p, "Read", read)); got != "" {
			t.Errorf("transcript %q: %q, want none", p, got)
		}
	}
	if got := a.MessageOf(callAt(t, path, "Read", read)); got != secondMessage {
		t.Errorf("the file itself: %q, want %q", got, secondMessage)
	}
}

// BenchmarkMessageOf: what a PreToolUse pays to name its message, in a
// real transcript's tail.
func BenchmarkMessageOf(b *testing.B) {
	data, err := os.ReadFile(filepath.Join("..", "..", "e2e", "droid", "testdata", "session-at-PreToolUse.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "session.jsonl")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		b.Fatal(err)
	}
	p := &hook.Payload{TranscriptPath: path, ToolName: "Read", ToolInput: json.RawMessage(`{"file_path":"` + dir + `a.txt"}`)}
	a := New()
	for b.Loop() {
		if a.MessageOf(p) != secondMessage {
			b.Fatal("not found")
		}
	}
}
