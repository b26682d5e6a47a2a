package replay_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/agent/all"
	"github.com/loopbreaker/loopbreaker/replay"
	"github.com/loopbreaker/loopbreaker/transcript"
)

// claudeSession writes a Claude Code transcript of one turn per command:
// the prompt, the Bash call, its (successful) result, the answer.
func claudeSession(t *testing.T, commands ...string) *transcript.Session {
	t.Helper()
	var b strings.Builder
	line := func(v any) {
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(data)
		b.WriteByte('\n')
	}
	msg := func(typ, role string, content any) map[string]any {
		return map[string]any{"type": typ, "sessionId": "vcs", "message": map[string]any{"role": role, "content": content}}
	}
	for i, cmd := range commands {
		id := fmt.Sprintf("toolu_%d", i)
		line(msg("user", "user", fmt.Sprintf("step %d", i+1)))
		line(msg("assistant", "assistant", []any{map[string]any{"type": "tool_use", "id": id, "name": "Bash", "input": map[string]any{"command": cmd}}}))
		result := msg("user", "user", []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": ""}})
		result["toolUseResult"] = map[string]any{"stdout": "", "stderr": "", "interrupted": false}
		line(result)
		line(msg("assistant", "assistant", []any{map[string]any{"type": "text", "text": fmt.Sprintf("done %d", i+1)}}))
	}
	s, err := transcript.Parse("vcs.jsonl", []byte(b.String()), all.Transcripts())
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Steps) != 2*len(commands) {
		t.Fatalf("%d steps for %d turns of one call", len(s.Steps), len(commands))
	}
	return s
}

// A session whose only edits are shell commands (sed -i, git commit, jj)
// makes progress at every turn end, in replay as in a live hook: it is
// neither warned nor halted. The same session made of commands that
// change nothing is.
func TestReplayCountsShellEditsAsProgress(t *testing.T) {
	productive := claudeSession(t,
		"sed -i 's/a - b/a + b/' calc.go",
		"git commit -qam 'fix Add'",
		"sed -i -e 's/a + b/b + a/' calc.go && git commit -qam 'commute'",
		"git rebase -q main",
		"jj describe -m 'Add: commute'",
	)
	if r := replay.Run(productive, lb.Defaults()); r.Warn != nil || r.Halt != nil || r.LastEdit != 5 {
		t.Fatalf("productive session: warn %+v, halt %+v, last edit %d; want none, none, 5", r.Warn, r.Halt, r.LastEdit)
	}
	idle := claudeSession(t, "git status", "git log --oneline", "cat calc.go", "git diff", "jj log")
	r := replay.Run(idle, lb.Defaults())
	if r.Warn == nil || r.Warn.Detector != lb.DetectorNoProgress || r.Halt == nil || r.LastEdit != 0 {
		t.Fatalf("idle session: warn %+v, halt %+v, last edit %d; want no_progress warned and halted, no edit", r.Warn, r.Halt, r.LastEdit)
	}
}

// Commands that change a jj repository are progress however they are
// spelled (jj workspace add, jj op revert, jj bookmark set, jj git push),
// as git push and a tag are: a session of them, one a turn, is neither
// warned nor halted, in replay as in a live hook.
func TestReplayCountsEveryRepositoryChangeAsProgress(t *testing.T) {
	s := claudeSession(t,
		"jj workspace add ../second",
		"jj op revert 3f2a",
		"jj bookmark set main -r @-",
		"jj git push --bookmark main",
		"git push origin main",
		"git tag v1.2.0",
	)
	if r := replay.Run(s, lb.Defaults()); r.Warn != nil || r.Halt != nil || r.LastEdit != 6 {
		t.Fatalf("warn %+v, halt %+v, last edit %d; want none, none, 6", r.Warn, r.Halt, r.LastEdit)
	}
}
