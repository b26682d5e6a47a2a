package codex

import (
	"slices"
	"strings"
	"testing"
)

func TestCodexResumeArguments(t *testing.T) {
	const id = "0199a213-81c0-7800-8aa1-bbab2a035a53"
	for _, tc := range []struct{ in, want string }{
		{"codex exec -c model=\"o3\" -s workspace-write --json fix it", "codex exec -c model=\"o3\" -s workspace-write --json resume " + id + " fix it"},
		{"codex exec --config=x=1 -m gpt-5 -", "codex exec --config=x=1 -m gpt-5 resume " + id + " -"},
		{"codex exec --skip-git-repo-check", "codex exec --skip-git-repo-check resume " + id},
		{"codex e --json -- -starts-with-a-dash", "codex e --json resume " + id + " -- -starts-with-a-dash"},
		{"codex exec --ephemeral fix it", ""},
		{"codex exec resume --last fix it", ""},
		{"codex fix it", ""},
	} {
		got, ok := resume(strings.Fields(tc.in), id)
		if tc.want == "" {
			if ok || !slices.Equal(got, strings.Fields(tc.in)) {
				t.Errorf("%s: rewritten to %q, want it left as given", tc.in, got)
			}
			continue
		}
		if !ok || strings.Join(got, " ") != tc.want {
			t.Errorf("%s:\n got %q (%v)\nwant %q", tc.in, strings.Join(got, " "), ok, tc.want)
		}
	}
}

// Codex's session id comes from --json's thread.started, else from the
// "session id:" line of its plain header.
func TestCodexSessionID(t *testing.T) {
	const id = "0199a213-81c0-7800-8aa1-bbab2a035a53"
	for _, tc := range []struct{ stdout, stderr, want string }{
		{`{"type":"thread.started","thread_id":"` + id + `"}` + "\n{\"type\":\"turn.started\"}\n", "", id},
		{"done\n", "OpenAI Codex v0.169.0\n--------\nworkdir: /w\nsession id: " + id + "\n--------\n", id},
		{"done\n", "no header\n", ""},
	} {
		if got := sessionID([]byte(tc.stdout), []byte(tc.stderr)); got != tc.want {
			t.Errorf("sessionID(%q, %q) = %q, want %q", tc.stdout, tc.stderr, got, tc.want)
		}
	}
}

// Claude Code, Gemini CLI and Qwen Code get the flag after the program,
// unless the command names a session itself.
