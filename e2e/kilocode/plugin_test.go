package kilocode

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
	"github.com/loopbreaker/loopbreaker/e2e/harness"
)

// call is the part of a tool hook's input the tests read.
type call struct {
	Tool      string         `json:"tool"`
	SessionID string         `json:"sessionID"`
	CallID    string         `json:"callID"`
	Args      map[string]any `json:"args"`
}

func callOf(t *testing.T, e entry) call {
	t.Helper()
	var c call
	if err := json.Unmarshal(e.Input, &c); err != nil {
		t.Fatalf("%s input %s: %v", e.Hook, e.Input, err)
	}
	return c
}

// TestKiloRunsToolCallsOfflineAndThePluginSeesThem: `kilo run` with a
// custom provider runs the fake model's calls with no login, and a project
// plugin in .kilo/plugin/ sees each: tool.execute.before for every call
// (callID the model's id), tool.execute.after only for calls that
// succeeded, a failed call as an errored tool part, the prompt, the
// turn's end.
func TestKiloRunsToolCallsOfflineAndThePluginSeesThem(t *testing.T) {
	a := newAgent(t)
	r := a.kilo("make the smoke file",
		bash("echo smoke > smoke.txt"),
		read(filepath.Join(a.Repo, "README.md")),
		read(filepath.Join(a.Repo, "missing.txt")),
		fakemodel.Text("done"),
	)
	results := harness.SmokeResults(t, "kilo run", a.Repo, r)
	if len(results) != 3 || !strings.Contains(results[1], "kilo smoke test") || !strings.Contains(results[2], "File not found") {
		t.Fatalf("the model was shown %q", results)
	}

	es := a.entries()
	before, after := ofHook(es, "tool.execute.before"), ofHook(es, "tool.execute.after")
	if len(before) != 3 || len(after) != 2 {
		t.Fatalf("%d tool.execute.before and %d tool.execute.after, want 3 and 2 (none after the failed read)", len(before), len(after))
	}
	session := callOf(t, before[0]).SessionID
	for i, e := range before {
		c := callOf(t, e)
		if c.CallID != r.API.ToolUseID(i) || c.SessionID != session {
			t.Errorf("before %d: callID %q session %q, want %q and %q", i, c.CallID, c.SessionID, r.API.ToolUseID(i), session)
		}
	}
	if c := callOf(t, before[0]); c.Tool != "bash" || c.Args != nil {
		t.Errorf("before 0: %+v; want bash, its args in the output, not the input", c)
	}
	var out struct {
		Output   string         `json:"output"`
		Metadata map[string]any `json:"metadata"`
	}
	if err := json.Unmarshal(after[0].Output, &out); err != nil || out.Metadata["exit"] != float64(0) {
		t.Errorf("after 0 output %s: want the bash tool's metadata.exit 0 (%v)", after[0].Output, err)
	}
	if c := callOf(t, after[1]); c.Tool != "read" || c.CallID != r.API.ToolUseID(1) || c.Args["filePath"] == nil {
		t.Errorf("after 1: %+v; want the read and its args", c)
	}
	failed := ofHook(es, "message.part.updated")
	var part struct {
		Part struct {
			CallID string `json:"callID"`
			State  struct {
				Status string `json:"status"`
				Error  string `json:"error"`
			} `json:"state"`
		} `json:"part"`
	}
	if len(failed) == 0 || json.Unmarshal(failed[0].Input, &part) != nil || part.Part.CallID != r.API.ToolUseID(2) || !strings.Contains(part.Part.State.Error, "File not found") {
		t.Errorf("the failed read as a tool part: %d entries, first %+v", len(failed), part.Part)
	}
	for _, hook := range []string{"chat.message", "session.created", "session.idle"} {
		if len(ofHook(es, hook)) == 0 {
			t.Errorf("no %s", hook)
		}
	}
}

// TestKiloPluginAbortEndsTheRun: a plugin that aborts the session and
// throws in tool.execute.before ends `kilo run` before the call runs:
// no further model request, `Error: Aborted`, exit 1.
func TestKiloPluginAbortEndsTheRun(t *testing.T) {
	a := newAgent(t, "KILO_PROBE_HALT=halted by the test")
	r := a.kilo("make two files", bash("echo one > one.txt"), bash("echo two > two.txt"), fakemodel.Text("done"))
	if r.Exit != 1 || !strings.Contains(r.Stderr, "Aborted") {
		t.Fatalf("kilo run: exit %d, want 1 and Error: Aborted\nstdout: %s\nstderr: %s", r.Exit, r.Stdout, r.Stderr)
	}
	if n := len(r.API.Log.Main()); n != 1 {
		t.Errorf("%d model requests, want 1", n)
	}
	if _, err := os.Stat(filepath.Join(a.Repo, "one.txt")); err == nil {
		t.Error("one.txt exists: the aborted call ran")
	}
	if n := len(ofHook(a.entries(), "tool.execute.after")); n != 0 {
		t.Errorf("%d tool.execute.after after the abort", n)
	}
}
