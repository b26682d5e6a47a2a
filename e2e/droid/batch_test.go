package droid

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
	"github.com/loopbreaker/loopbreaker/e2e/harness"
	"github.com/loopbreaker/loopbreaker/internal/storetest"
)

// guarded prepares a scenario with loopbreaker's hooks installed by
// `loopbreaker hook install droid` (the hook-call logger in front of
// them), the project holding files.
func guarded(t *testing.T, files map[string]string) harness.CLI {
	t.Helper()
	p := harness.NewCLI(t, harness.Droid0_215, bins, files, nil,
		"FACTORY_AIRGAP_ENABLED=1", "FACTORY_DROID_AUTO_UPDATE_ENABLED=false")
	p.Guard("droid")
	return p
}

// execGuarded runs `droid exec` in a guarded project, the model answering
// script; a halt may end it before the script does.
func execGuarded(t *testing.T, p harness.CLI, prompt string, script ...fakemodel.AnthropicStep) harness.AnthropicRun {
	t.Helper()
	return harness.RunAnthropic(t, "droid exec", func(url string) harness.Cmd {
		harness.WriteFiles(t, filepath.Join(p.Home, ".factory"), map[string]string{"settings.json": settings(url)})
		return harness.Cmd{
			Path: p.Bin, Args: []string{"exec", "--auto", "high", "-m", "custom:Fake-0", prompt},
			Dir: p.Repo, Env: p.Env, Timeout: harness.HangLimit,
		}
	}, script...)
}

// assertNoFailureCounted: no call of the run failed, so loopbreaker must
// have counted none, recorded none as failed, and told the model of none.
func assertNoFailureCounted(t *testing.T, p harness.CLI) {
	t.Helper()
	for _, f := range harness.FailuresCounted(p.Status("droid")) {
		t.Errorf("%s, although no call failed", f)
	}
	for _, tc := range p.Recorded("droid") {
		if tc.Error != nil {
			t.Errorf("a %s call recorded as failed (%s), although no call failed", tc.Tool, tc.Error.Raw)
		}
	}
	for _, c := range p.Calls() {
		if s := c.Answer.Text(); strings.Contains(s, "reported no result") || strings.Contains(s, "fail") {
			t.Errorf("%s answered that a call failed: %q", harness.Show(&c), s)
		}
	}
}

// TestBatches: the model asks for several tool calls in one message, and
// Droid runs them as one batch: every PreToolUse hook at once, then the
// calls, each PostToolUse as its call ends (TestDroidRunsNoCallUntil-
// EveryPreToolUseEnds). Droid sends no call ids and fires no PostToolUse
// for a call that failed, so the same call announced again while the
// first waits looks like its failed repeat; its transcript tells the
// calls of one message apart from a repeat (agent/droid's MessageOf).
func TestBatches(t *testing.T) {
	t.Run("identical-reads-in-one-batch", func(t *testing.T) {
		// The same file read four times in one message: nothing failed,
		// so nothing may be counted as a failure nor halt the run. Four
		// identical calls are four calls: a warning that they repeat is
		// allowed.
		p := guarded(t, map[string]string{"README.md": "droid batch test\n"})
		readme := filepath.Join(p.Repo, "README.md")
		r := execGuarded(t, p, "read the readme",
			fakemodel.Parallel(read(readme), read(readme), read(readme), read(readme)),
			fakemodel.Text("Read it four times."))
		assertNoFailureCounted(t, p)
		for _, c := range p.Calls() {
			if c.Answer.Stop || c.Answer.Deny {
				t.Errorf("loopbreaker stopped or refused: %s", harness.Show(&c))
			}
		}
		if n := len(ofEvent(p.Calls(), "PostToolUse")); n != 4 {
			t.Errorf("%d of the 4 reads ran", n)
		}
		if st := p.Status("droid"); st.State == lb.Open {
			t.Errorf("breaker OPEN by %q (%s)", st.Detector, st.Reason)
		}
		if !strings.Contains(r.Stdout, "Read it four times.") {
			t.Errorf("the run did not end with the script's last answer\nstdout: %s\nstderr: %s", r.Stdout, r.Stderr)
		}
	})

	t.Run("same-batch-repeated", func(t *testing.T) {
		// Four different files read at once, the same four again and
		// again with the same results: the batch is the loop, warned,
		// then halted by the fifth batch, each batch judged whole (never
		// closed in between), no read counted as failed.
		files := map[string]string{}
		for _, f := range []string{"a.go", "b.go", "c.go", "d.go"} {
			files[f] = "package four // " + f + "\n"
		}
		p := guarded(t, files)
		var batch []fakemodel.AnthropicStep
		for _, f := range []string{"a.go", "b.go", "c.go", "d.go"} {
			batch = append(batch, read(filepath.Join(p.Repo, f)))
		}
		var script []fakemodel.AnthropicStep
		for range 6 {
			script = append(script, fakemodel.Parallel(batch...))
		}
		r := execGuarded(t, p, "read the four files", append(script, fakemodel.Text("I keep reading the same four files."))...)
		assertNoFailureCounted(t, p)
		st := p.Status("droid")
		if moves, want := storetest.Moves(st.Transitions), []string{"CLOSED→HALF_OPEN", "HALF_OPEN→OPEN"}; !slices.Equal(moves, want) {
			t.Errorf("transitions %q, want %q: warned, then halted, never CLOSED in between", moves, want)
		}
		if st.Detector == lb.DetectorToolError {
			t.Errorf("opened by %s: no read failed", st.Detector)
		}
		pre := ofEvent(p.Calls(), "PreToolUse")
		if batches := (len(pre) + 3) / 4; batches > 5 {
			t.Errorf("%d reads announced (%d batches): not halted by the fifth batch", len(pre), batches)
		}
		if strings.Contains(r.Stdout, "I keep reading") {
			t.Errorf("the run went on to the script's end: not halted")
		}
	})
}

// TestDroidRunsNoCallUntilEveryPreToolUseEnds: Droid starts the
// PreToolUse hooks of one message's calls at once, and runs none of the
// calls until every one of those hooks has ended. So no PostToolUse of a
// batch comes before the last PreToolUse of the batch has answered, on a
// machine however busy: a pre-tool hook held until another call of its
// batch reported (harness.HoldPreToolUse, as e2e/claudecode's
// *-announced-late scenarios do) holds the whole batch, until Droid's hook
// timeout (the hooks.json "timeout", seconds) kills it. The call then runs
// unannounced. Droid's transcript records each hook run with the call id
// and its start and end (hookToolCallId, hookStartTime, hookEndTime).
func TestDroidRunsNoCallUntilEveryPreToolUseEnds(t *testing.T) {
	a := newAgent(t)
	const timeout = 20
	harness.WriteFiles(t, a.Repo, map[string]string{".factory/hooks.json": hooksFileTimeout(a.hook, timeout)})
	a.Commit("droid hooks, short timeout")
	harness.HoldPreToolUse(t, a.hook, harness.Hold{Call: "d.txt"})
	files := map[string]string{}
	for _, f := range []string{"a.txt", "b.txt", "c.txt", "d.txt"} {
		files[f] = f + "\n"
	}
	harness.WriteFiles(t, a.Repo, files)
	r := a.exec("read and cat",
		fakemodel.Parallel(read(filepath.Join(a.Repo, "a.txt")), execute("cat b.txt"), read(filepath.Join(a.Repo, "c.txt")), execute("cat d.txt")),
		fakemodel.Text("done"))
	if r.Exit != 0 || !strings.Contains(r.Stdout, "done") {
		t.Fatalf("droid exec: exit %d\nstdout: %s\nstderr: %s", r.Exit, r.Stdout, r.Stderr)
	}
	calls := a.calls()
	if len(calls) == 0 {
		t.Fatal("no hook call logged")
	}
	runs := hookRuns(t, payloadOf(t, calls[0]).TranscriptPath)
	var held hookRun
	lastPre := int64(0)
	for _, h := range runs {
		if h.Event == "PreToolUse" {
			lastPre = max(lastPre, h.End)
			if h.Status != "completed" {
				held = h
			}
		}
	}
	if held.Event == "" || held.End-held.Start < (timeout-1)*1000 {
		t.Fatalf("no PreToolUse hook was held until Droid's timeout of %d s: %+v", timeout, runs)
	}
	posts := 0
	for _, h := range runs {
		if h.Event == "PostToolUse" {
			posts++
			if h.Start < lastPre {
				t.Errorf("PostToolUse of %s started at %d, before the last PreToolUse of its batch ended at %d", h.Call, h.Start, lastPre)
			}
		}
	}
	// The held call ran after all, though its PreToolUse never answered.
	if posts != 4 {
		t.Errorf("%d PostToolUse hook runs, want 4 (the held call runs too): %+v", posts, runs)
	}
	if n := len(ofEvent(calls, "PreToolUse")); n != 3 {
		t.Errorf("%d PreToolUse calls answered, want 3: the held one is killed", n)
	}
}

// hookRun is one hook run as Droid's transcript records it.
type hookRun struct {
	Event, Call, Status string
	Start, End          int64
}

// hookRuns reads the hook runs of the tool calls from a Droid transcript.
func hookRuns(t *testing.T, path string) []hookRun {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []hookRun
	for _, line := range strings.Split(string(b), "\n") {
		var l struct {
			Message struct {
				Event  string `json:"hookEventName"`
				Call   string `json:"hookToolCallId"`
				Status string `json:"hookStatus"`
				Start  int64  `json:"hookStartTime"`
				End    int64  `json:"hookEndTime"`
			} `json:"message"`
		}
		if json.Unmarshal([]byte(line), &l) != nil || l.Message.Call == "" {
			continue
		}
		m := l.Message
		out = append(out, hookRun{Event: m.Event, Call: m.Call, Status: m.Status, Start: m.Start, End: m.End})
	}
	return out
}

// TestBatchesByMessage: what the message names in Droid's transcript
// decide of batches beside identical calls. A command that fails fires no
// PostToolUse, and Droid asks for the next message only once every call
// of this one has ended: the failed command's batch ends when a call of
// the next message is announced, not at the turn end. A call whose
// PreToolUse Droid's hook timeout killed runs unannounced: its result is
// of its message's batch, not a batch of its own.
func TestBatchesByMessage(t *testing.T) {
	t.Run("failed-call-then-next-message", func(t *testing.T) {
		p := guarded(t, map[string]string{"README.md": "droid batch test\n"})
		execGuarded(t, p, "run it, then read",
			execute("false"), read(filepath.Join(p.Repo, "README.md")), fakemodel.Text("done"))
		rec := p.Recorded("droid")
		var got []string
		for _, tc := range rec {
			got = append(got, fmt.Sprintf("%s failed=%v batch_open=%v", tc.Tool, tc.Error != nil, tc.BatchOpen))
		}
		if want := []string{"Execute failed=true batch_open=false", "Read failed=false batch_open=false"}; !slices.Equal(got, want) {
			t.Errorf("recorded %q, want %q: the failed command counted when the read of the next message was announced, the read not waiting for it", got, want)
		}
		if len(rec) == 2 && rec[0].Batch == rec[1].Batch {
			t.Errorf("the failed command and the read of the next message both in batch %d", rec[0].Batch)
		}
	})

	t.Run("pretooluse-killed-by-timeout", func(t *testing.T) {
		// The hook install's timeout (hook.Timeout, 10 s) kills the held
		// PreToolUse; then every call of the message runs.
		files := map[string]string{}
		for _, f := range []string{"a.txt", "b.txt", "c.txt"} {
			files[f] = f + "\n"
		}
		p := guarded(t, files)
		harness.HoldPreToolUse(t, p.Command, harness.Hold{Call: "c.txt"})
		execGuarded(t, p, "read three files",
			fakemodel.Parallel(read(filepath.Join(p.Repo, "a.txt")), read(filepath.Join(p.Repo, "b.txt")), read(filepath.Join(p.Repo, "c.txt"))),
			fakemodel.Text("done"))
		if n := len(ofEvent(p.Calls(), "PreToolUse")); n != 2 {
			t.Fatalf("%d PreToolUse calls answered, want 2: the held one is killed", n)
		}
		assertNoFailureCounted(t, p)
		rec := p.Recorded("droid")
		batches := map[int]bool{}
		for _, tc := range rec {
			batches[tc.Batch] = true
		}
		if len(rec) != 3 || len(batches) != 1 || batches[0] {
			t.Errorf("the three reads of one message recorded in batches %v (%d calls), want one batch", batches, len(rec))
		}
	})
}
