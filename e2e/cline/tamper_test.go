package cline

import (
	"path/filepath"
	"strings"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// TestTamper: a model that goes after loopbreaker through the real
// Cline: resetting the breaker with run_commands, then deleting a hook
// script of .clinerules/hooks with apply_patch. Each call is refused at
// its PreToolUse before it runs (Cline's refusal is a cancel: the run
// ends there, the reason kept as its error); the second attempt opens
// the breaker. The scripts and the configuration are as they were.
func TestTamper(t *testing.T) {
	t.Parallel()
	a := guarded(t, nil)
	hooks := filepath.Join(a.Repo, ".clinerules", "hooks")
	before := harness.Snap(hooks, filepath.Join(a.Repo, "loopbreaker.yaml"))
	for _, at := range []struct {
		name string
		step fakemodel.Step
		want string
	}{
		{"reset the breaker", command("loopbreaker reset --session cline"), "refused: this call runs `loopbreaker reset`"},
		{"patch a hook script away", fakemodel.Patch("*** Begin Patch\n*** Delete File: .clinerules/hooks/PostToolUse\n*** End Patch\n"), "circuit breaker OPEN: tamper"},
	} {
		seen := len(a.Calls())
		r := a.cline("fix the failing tests", []fakemodel.Step{goTest(), at.step, fakemodel.Message("Done.")})
		v := verdictOf(a.Calls()[seen:])
		if v.Halt == nil || v.Halt.Event != "PreToolUse" || v.HaltAt != 2 || v.ran != 1 {
			t.Errorf("%s: refused at %s (call %d), %d calls ran; want the PreToolUse of call 2 cancelled, only the test run", at.name, v.Halt.Describe(), v.HaltAt, v.ran)
			continue
		}
		t.Logf("%s: %s", at.name, firstLine(v.Halt.Answer.Reason))
		if !strings.Contains(v.Halt.Answer.Reason, at.want) {
			t.Errorf("%s: the refusal does not say why: %q", at.name, v.Halt.Answer.Reason)
		}
		if n := len(r.api.Log.Main()); n != 2 || !strings.Contains(r.Stdout, "aborted") {
			t.Errorf("%s: %d model requests, stdout %q; want 2 and Cline's abort", at.name, n, r.Stdout)
		}
	}
	if st := a.Status(session); st.State != lb.Open || st.Detector != lb.DetectorTamper {
		t.Errorf("status: %s by %q (%s), want OPEN by tamper", st.State, st.Detector, st.Reason)
	}
	if changed := before.Changed(); len(changed) > 0 {
		t.Errorf("changed by the attempts: %v", changed)
	}
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}
