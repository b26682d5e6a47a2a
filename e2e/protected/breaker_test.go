package protected

import (
	"testing"

	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// Protected mode whole with Claude Code 2.1, its hooks switched off by
// the agent's user with disableAllHooks in every settings file it can
// write (runProtectedBreaker).
func TestProtectedBreakerWithClaude(t *testing.T) {
	runProtectedBreaker(t, protectedCLI{agent: harness.ClaudeCode2_1, tool: "claude",
		model: func(t *testing.T, cmds ...string) fakeModel {
			var steps []fakemodel.AnthropicStep
			for _, c := range cmds {
				steps = append(steps, fakemodel.Bash(c))
			}
			fake := fakemodel.NewAnthropic(append(steps, fakemodel.Text("done"))...)
			t.Cleanup(fake.Close)
			return fakeModel{url: fake.URL, log: &fake.Log}
		},
		run: func(url string) (map[string]string, []string, []string) {
			return map[string]string{".claude/settings.json": disableAll, ".claude/settings.local.json": disableAll,
					"repo/.claude/settings.json": disableAll, "repo/.claude/settings.local.json": disableAll},
				claudeVars(url),
				[]string{"-p", "run the commands", "--output-format", "stream-json", "--verbose", "--permission-mode", "bypassPermissions"}
		}})
}
