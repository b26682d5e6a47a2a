package harness

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
)

// AnthropicRun is one process of an agent CLI that talks to the fake
// Anthropic Messages API, and the model requests it made.
type AnthropicRun struct {
	Result
	API *fakemodel.Anthropic
}

// RunAnthropic starts a fake Anthropic API that plays script, runs the
// command that cmd makes for the API's URL (RunAgent, logged as name) and
// stops the API when the test ends.
func RunAnthropic(t testing.TB, name string, cmd func(url string) Cmd, script ...fakemodel.AnthropicStep) AnthropicRun {
	t.Helper()
	api := fakemodel.NewAnthropic(script...)
	t.Cleanup(api.Close)
	r := RunAgent(t, name, cmd(api.URL), func() int { return len(api.Log.Main()) })
	return AnthropicRun{Result: r, API: api}
}

// SmokeResults checks a smoke run of a CLI whose script was three tool
// calls, the first writing "smoke\n" to smoke.txt in repo, and then the
// text "done": the CLI exited 0 after printing the text, the file is
// there, and the model was asked four times. It returns the tool results
// the model was shown in its last request.
func SmokeResults(t testing.TB, name, repo string, r AnthropicRun) []string {
	t.Helper()
	if r.Exit != 0 || !strings.Contains(r.Stdout, "done") {
		t.Fatalf("%s: exit %d, want 0 and the model's last text\nstdout: %s\nstderr: %s", name, r.Exit, r.Stdout, r.Stderr)
	}
	if b, err := os.ReadFile(filepath.Join(repo, "smoke.txt")); err != nil || string(b) != "smoke\n" {
		t.Fatalf("smoke.txt = %q, %v; the first call did not run", b, err)
	}
	main := r.API.Log.Main()
	if len(main) != 4 {
		t.Fatalf("%d model requests, want 4 (three calls and the answer)", len(main))
	}
	return fakemodel.AnthropicToolResults(main[3].Body)
}

// MarkNpmInstalled leaves dir as an agent CLI leaves a configuration
// directory once it has npm-installed its plugin package pkg there
// (node_modules and a lock that lists pkg, ignored by a .gitignore of its
// own), so that the CLI does not run npm: offline that costs a minute of
// retries before the first prompt (OpenCode, Kilo Code).
func MarkNpmInstalled(t testing.TB, dir, pkg, version string) {
	t.Helper()
	lock := `{"lockfileVersion":3,"packages":{"":{"dependencies":{"` + pkg + `":"` + version + `"}}}}`
	WriteFiles(t, dir, map[string]string{
		"package-lock.json": lock + "\n",
		".gitignore":        "node_modules\npackage.json\npackage-lock.json\nbun.lock\n.gitignore\n",
	})
	if err := os.MkdirAll(filepath.Join(dir, "node_modules"), 0o755); err != nil {
		t.Fatal(err)
	}
}
