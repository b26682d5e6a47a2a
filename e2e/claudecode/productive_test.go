package claudecode

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	fm "github.com/loopbreaker/loopbreaker/e2e/fakemodel"
	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// productiveCase is a model that makes progress; loopbreaker must stay
// silent: no warning, no halt.
type productiveCase struct {
	name  string
	files func() map[string]string
	// script plays the run; final is the command that must pass after it.
	script func(p *project) []fm.AnthropicStep
	final  string
	// needs prepares what the scenario needs beyond the repository, or
	// says why it cannot run here.
	needs func(p *project) string
}

// fixOneByOne runs the tests, then per bug reads the file, fixes it and
// runs the tests again: every run has one failure fewer.
func fixOneByOne(test, ext string) func(p *project) []fm.AnthropicStep {
	return func(p *project) []fm.AnthropicStep {
		steps := []fm.AnthropicStep{fm.Bash(test)}
		for _, b := range fourBugs {
			f := p.path(b.file + ext)
			steps = append(steps, fm.Read(f), fm.Edit(f, b.old, b.new), fm.Bash(test))
		}
		return append(steps, fm.Text("All four tests pass now."))
	}
}

var productiveCases = []productiveCase{
	{
		// Plain `go test` prints only the failures: a test that is no
		// longer among them has passed.
		name:   "go-test-four-fixes",
		files:  goFourBugsRepo,
		script: fixOneByOne("go test ./...", ".go"),
		final:  "go test ./...",
	},
	{
		name:   "pytest-four-fixes",
		files:  pyFourBugsRepo,
		script: fixOneByOne("python3 -m pytest -q", ".py"),
		final:  "python3 -m pytest -q",
		needs:  havePytest,
	},
	{
		name:  "edits-across-many-files",
		files: manyFilesRepo,
		script: func(p *project) []fm.AnthropicStep {
			steps := []fm.AnthropicStep{fm.Bash("go test ./...")}
			for i := 1; i <= manyFiles; i++ {
				// Claude Code 2.0.x edits only files read before.
				f := p.path(fmt.Sprintf("greet%d.go", i))
				steps = append(steps, fm.Read(f), fm.Edit(f, `"Howdy"`, `"Hello"`))
			}
			return append(steps, fm.Bash("go test ./..."), fm.Text("Every greeting says Hello now."))
		},
		final: "go test ./...",
	},
	{
		// The same command polled while its output changes is waiting
		// for something that moves, not a loop.
		name:  "long-build-polled",
		files: slowBuildRepo,
		script: func(p *project) []fm.AnthropicStep {
			return append(repeat(buildPolls, fm.Bash("sh build.sh")), fm.Text("The release build finished."))
		},
		final: "test -f .build-stage",
	},
}

func TestProductive(t *testing.T) {
	t.Parallel()
	for _, c := range productiveCases {
		t.Run(c.name, func(t *testing.T) {
			forEachVersion(t, func(t *testing.T, a agent, rw *row) {
				p := newProject(t, a, c.files(), installProject)
				if c.needs != nil {
					if why := c.needs(p); why != "" {
						t.Skipf("SKIP %s: %s", c.name, why)
					}
				}
				script := c.script(p)
				r := p.claude(script...)
				r.assertProductive(p, script, rw)
				if res := p.sh(c.final); res.Exit != 0 {
					t.Errorf("after the run, %s: exit %d\n%s%s", c.final, res.Exit, res.Stdout, res.Stderr)
				}
			})
		})
	}
}

// sh runs a shell command in the project, as the agent would.
func (p *project) sh(command string) harness.Result {
	p.t.Helper()
	return harness.Run(p.t, harness.Cmd{Path: "/bin/sh", Args: []string{"-c", command}, Dir: p.dir, Env: p.env})
}

// havePytest finds a python3 with pytest: the one on PATH, else the
// system's (Debian's python3-pytest), which then comes first on the
// agent's PATH.
func havePytest(p *project) string {
	py, why := harness.PythonWithPytest()
	if why != "" {
		return why
	}
	if py != "python3" {
		for i, kv := range p.env {
			if rest, ok := strings.CutPrefix(kv, "PATH="); ok {
				p.env[i] = "PATH=" + filepath.Dir(py) + string(os.PathListSeparator) + rest
			}
		}
	}
	return ""
}
