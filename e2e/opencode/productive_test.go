package opencode

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// Productive runs: loopbreaker says nothing and the breaker stays CLOSED.
func TestProductive(t *testing.T) {
	t.Run("four tests fixed one per run", func(t *testing.T) {
		t.Parallel()
		a := guarded(t)
		file := filepath.Join(a.Repo, "calc.go")
		for i, f := range harness.Calc4Fixes {
			r := a.opencode("fix the next failing test", goTest(), edit(file, f[0], f[1]), goTest(), fakemodel.Text(fmt.Sprintf("Fixed %d of 4.", i+1)))
			if r.Exit != 0 || !strings.Contains(r.Stdout, fmt.Sprintf("Fixed %d of 4.", i+1)) {
				t.Fatalf("run %d: exit %d, stdout %q\n%s", i+1, r.Exit, r.Stdout, r.Stderr)
			}
		}
		a.check(run{}, want{state: lb.Closed})
		if n := a.results(); n != 12 {
			t.Errorf("%d tool results reached loopbreaker, want 12", n)
		}
	})
	t.Run("edits across many files", func(t *testing.T) {
		t.Parallel()
		a := guarded(t)
		var steps []fakemodel.AnthropicStep
		for i := 1; i <= 8; i++ {
			name := filepath.Join(a.Repo, "docs", fmt.Sprintf("part%d.md", i))
			steps = append(steps, write(name, fmt.Sprintf("# Part %d\n\nHow calc handles case %d.\n", i, i)))
		}
		file := filepath.Join(a.Repo, "calc.go")
		for _, f := range harness.Calc4Fixes {
			steps = append(steps, edit(file, f[0], f[1]))
		}
		steps = append(steps, goTest(), fakemodel.Text("Documented and fixed."))
		r := a.opencode("document calc and fix it", steps...)
		a.check(r, want{state: lb.Closed})
		if r.Exit != 0 || !strings.Contains(r.Stdout, "Documented and fixed.") {
			t.Errorf("exit %d, stdout %q\n%s", r.Exit, r.Stdout, r.Stderr)
		}
	})
	t.Run("polling a job whose output changes", func(t *testing.T) {
		t.Parallel()
		a := guardedWith(t, harness.Files(harness.Calc4(), map[string]string{
			"job.sh":     "#!/bin/sh\nn=$(cat .job 2>/dev/null || echo 0)\nn=$((n+1))\necho $n > .job\nif [ $n -ge 6 ]; then echo 'job done'; else echo \"job running: step $n of 6\"; fi\n",
			".gitignore": ".job\n",
		}))
		r := a.opencode("wait for the job", append(fakemodel.Repeat(6, bash("sh ./job.sh")), fakemodel.Text("The job is done."))...)
		a.check(r, want{state: lb.Closed})
		if r.Exit != 0 || !strings.Contains(r.Stdout, "The job is done.") {
			t.Errorf("exit %d, stdout %q\n%s", r.Exit, r.Stdout, r.Stderr)
		}
	})
}
