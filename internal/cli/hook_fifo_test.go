//go:build unix

package cli

import (
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"golang.org/x/sys/unix"
)

// An agent that replaces its own transcript with a named pipe does not
// hang the hook: every call that reads the transcript (a tool call's
// usage, a turn end's failed calls and usage) answers at once, says why
// the transcript was not read, and does not hold the state lock against
// the session's other calls, which run beside it.
func TestHookAnswersPromptlyOnATranscriptReplacedByANamedPipe(t *testing.T) {
	project := newGitProject(t)
	env := hookTestEnv(project)
	fifo := filepath.Join(t.TempDir(), "session.jsonl")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	pre, post := bashCall("toolu_01", "ls", "calc.go\n")
	claudeHook(t, project, env, pre)
	var wg sync.WaitGroup
	var stderrs [2]string
	wg.Add(2)
	go func() {
		defer wg.Done()
		post["transcript_path"] = fifo
		var err error
		if _, stderrs[0], err = runClaudeHook(project, env, post); err != nil {
			t.Error(err)
		}
	}()
	go func() {
		defer wg.Done()
		other, _ := bashCall("toolu_02", "ls", "")
		if _, _, err := runClaudeHook(project, env, other); err != nil {
			t.Error(err)
		}
	}()
	wg.Wait()
	_, stderrs[1] = claudeHook(t, project, env, map[string]any{"hook_event_name": "Stop", "stop_hook_active": false,
		"last_assistant_message": "Done.", "transcript_path": fifo})
	for i, s := range stderrs {
		if !strings.Contains(s, "named pipe") {
			t.Errorf("call %d did not say why the transcript was not read; stderr:\n%s", i, s)
		}
	}
}
