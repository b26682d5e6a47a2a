package transcript_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/agent/all"

	"github.com/loopbreaker/loopbreaker/agent"

	"github.com/loopbreaker/loopbreaker/hook"
	"github.com/loopbreaker/loopbreaker/transcript"
)

// assertWarningTakenOff checks a guarded session of n calls read from
// path: the warning the agent recorded appended to result warned (counted
// from 1) is taken off, so that call has the same result as call same,
// and the last call, whose result loopbreaker's halt replaced, stays a
// failure (the tool's own output is not in the file).
func assertWarningTakenOff(t *testing.T, path string, n, warned, same int) {
	t.Helper()
	s, err := transcript.Read(path, all.Transcripts())
	if err != nil {
		t.Fatal(err)
	}
	calls := callsOf(s)
	if len(calls) != n {
		t.Fatalf("%d calls, want %d", len(calls), n)
	}
	a, b := hook.BuildToolCall(calls[same-1], "", ""), hook.BuildToolCall(calls[warned-1], "", "")
	if a.ResultHash != b.ResultHash || strings.Contains(string(calls[warned-1].ToolResponse), "loopbreaker") {
		t.Errorf("result %d still differs from result %d: %s", warned, same, calls[warned-1].ToolResponse)
	}
	if last := hook.BuildToolCall(calls[n-1], "", ""); last.Error == nil {
		t.Errorf("the halted call %d reads as a success: %s", n, calls[n-1].ToolResponse)
	}
}

// assertSameAsHooks checks that the calls of s, a session recorded in a
// run whose hook payloads are in hook/testdata/DIR, are the calls the
// hooks saw: hooks names the post-tool payload of each call in order, ""
// for a call with no payload kept there.
func assertSameAsHooks(t *testing.T, s *transcript.Session, a agent.Agent, dir string, hooks []string) {
	t.Helper()
	calls := callsOf(s)
	if len(calls) != len(hooks) {
		t.Fatalf("%d calls in the session, want %d", len(calls), len(hooks))
	}
	const root = "/home/dev/calc"
	for i, name := range hooks {
		if name == "" {
			continue
		}
		data, err := os.ReadFile(filepath.Join("..", "hook", "testdata", dir, name))
		if err != nil {
			t.Fatal(err)
		}
		p, err := a.Parse("", data)
		if err != nil {
			t.Fatal(err)
		}
		want := hook.BuildToolCall(p, root, root)
		got := hook.BuildToolCall(calls[i], root, root)
		if got.Tool != want.Tool || got.ArgsHash != want.ArgsHash || got.ResultHash != want.ResultHash || got.Edit != want.Edit {
			t.Errorf("call %d (%s): replayed %s args %s result %s edit %v, hook saw %s args %s result %s edit %v",
				i+1, name, got.Tool, got.ArgsHash, got.ResultHash, got.Edit, want.Tool, want.ArgsHash, want.ResultHash, want.Edit)
		}
		if (got.Error == nil) != (want.Error == nil) || got.Error != nil && got.Error.Signature != want.Error.Signature {
			t.Errorf("call %d (%s): replayed error %+v, hook saw %+v", i+1, name, got.Error, want.Error)
		}
		if len(got.Tests) != len(want.Tests) {
			t.Errorf("call %d (%s): replayed %d tests, hook saw %d", i+1, name, len(got.Tests), len(want.Tests))
		}
	}
}

// callsOf is the tool calls of a session, in order.
func callsOf(s *transcript.Session) []*hook.Payload {
	var calls []*hook.Payload
	for _, st := range s.Steps {
		if st.Call != nil {
			calls = append(calls, st.Call)
		}
	}
	return calls
}
