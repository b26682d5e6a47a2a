package claudecode

import (
	"strings"
	"testing"
	"time"

	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// TestContinueSession: `loopbreaker run --continue-session -- claude -p`
// pins the first iteration's session (--session-id) and continues it
// (--resume), so the second iteration's request carries the first one's
// conversation. The fake model answers by the assistant turns it is sent:
// "not yet" to a fresh conversation, the completion to a continued one.
// Without --continue-session every iteration is fresh and never completes.
func TestContinueSession(t *testing.T) {
	t.Parallel()
	forEachVersion(t, func(t *testing.T, a agent, rw *row) {
		for _, tc := range []struct {
			name string
			flag []string
			want string
		}{
			{"continued", []string{"--continue-session"}, "the agent signalled completion after iteration 2"},
			{"fresh", nil, "reached the iteration limit (2)"},
		} {
			p := newProject(t, a, map[string]string{"README.md": "hello\n"}, installNone)
			fake := fakemodel.NewAnthropic(fakemodel.Text("Not done yet."), fakemodel.Text("All done. <promise>COMPLETE</promise>"))
			env := append([]string{"ANTHROPIC_BASE_URL=" + fake.URL}, p.env...)
			args := append([]string{"run", "--max-iterations", "2", "--prompt", prompt}, tc.flag...)
			args = append(args, "--", a.bin, "-p", "{prompt}", "--output-format", "json", "--permission-mode", "bypassPermissions")
			res := harness.Run(t, harness.Cmd{Path: binaries(t).Loopbreaker, Dir: p.dir, Env: env, Timeout: 3 * time.Minute, Args: args})
			fake.Close()
			if res.Exit != 0 || !strings.Contains(res.Stderr, tc.want) {
				t.Fatalf("%s: exit %d, want 0 and %q\n%s%s", tc.name, res.Exit, tc.want, res.Stdout, res.Stderr)
			}
		}
		rw.note("--session-id then --resume: the second iteration continued the first's conversation")
	})
}
