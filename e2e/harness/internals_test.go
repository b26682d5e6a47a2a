package harness

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/e2e/fakemodel"
)

func TestStateDirFromStatusElseTheProjects(t *testing.T) {
	for _, c := range []struct{ stdout, want string }{
		{`{"state":"CLOSED","state_dir":"/home/u/.local/state/loopbreaker/p1"}`, "/home/u/.local/state/loopbreaker/p1"},
		{`{"state":"CLOSED","state_dir":"rel/dir"}`, "/p/rel/dir"},
		{`{"state":"CLOSED"}`, filepath.Join("/p", ".loopbreaker")},
	} {
		if got := StateDir(t, Result{Stdout: c.stdout}, "/p"); got != c.want {
			t.Errorf("%s: %q, want %q", c.stdout, got, c.want)
		}
	}
}

func TestShownInternalsFindsTheStateInToolOutputs(t *testing.T) {
	if got := Internals("./src/a.go:3: func ParseWidget()", "/s/lb"); got != nil {
		t.Errorf("a plain search result: %q", got)
	}
	if got, want := Internals("/s/lb/scopes/x/journal.jsonl:1: grep", "/s/lb"), []string{"/s/lb", "journal.jsonl"}; !reflect.DeepEqual(got, want) {
		t.Errorf("%q, want %q", got, want)
	}
	body := func(results ...string) []byte {
		s := `{"messages":[{"role":"user","content":[`
		for i, r := range results {
			if i > 0 {
				s += ","
			}
			s += `{"type":"tool_result","content":"` + r + `"}`
		}
		return []byte(s + `]}]}`)
	}
	log := &fakemodel.Log{}
	log.Add(fakemodel.Request{Main: true, Body: body("nothing")})
	log.Add(fakemodel.Request{Main: true, Body: body("nothing", "./.loopbreaker/hooks/c.calls/pending-1:grep")})
	log.Add(fakemodel.Request{Main: false, Body: body("./.loopbreaker/x")})
	n, first, found := ShownInternals(log, fakemodel.AnthropicToolResults, "/s/lb")
	if n != 1 || first != "./.loopbreaker/hooks/c.calls/pending-1:grep" || len(found) != 3 {
		t.Errorf("ShownInternals: %d %q %q, want 1 output with .loopbreaker/, .calls/, pending-", n, first, found)
	}
}

func TestSnapshotSeesAFileChangedAndADirectoryRemoved(t *testing.T) {
	dir := t.TempDir()
	WriteFiles(t, dir, map[string]string{"cfg.yaml": "repeat: 5\n", "state/scopes/a/state.json": "{}", "state/lock": ""})
	cfg, state := filepath.Join(dir, "cfg.yaml"), filepath.Join(dir, "state")
	s := Snap(cfg, state)
	WriteFiles(t, dir, map[string]string{"state/scopes/a/journal.jsonl": "{}\n"})
	if err := os.Remove(filepath.Join(state, "lock")); err != nil {
		t.Fatal(err)
	}
	if c := s.Changed(); len(c) != 0 {
		t.Errorf("loopbreaker's own work on its state is a change: %q", c)
	}
	WriteFiles(t, dir, map[string]string{"cfg.yaml": "repeat: 500\n"})
	if err := os.RemoveAll(state); err != nil {
		t.Fatal(err)
	}
	if c := s.Changed(); len(c) != 2 || !strings.Contains(c[0], "repeat: 500") || !strings.Contains(c[1], "directory is gone") {
		t.Errorf("Changed: %q", c)
	}
}
