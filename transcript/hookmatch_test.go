package transcript_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/loopbreaker/loopbreaker/hook"
	"github.com/loopbreaker/loopbreaker/transcript"
)

// assertSameAsHooks checks that the calls of s, a session recorded in a
// run whose hook payloads are in hook/testdata/DIR, are the calls the
// hooks saw: hooks names the post-tool payload of each call in order, ""
// for a call with no payload kept there.
func assertSameAsHooks(t *testing.T, s *transcript.Session, tool hook.Tool, dir string, hooks []string) {
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
		p, err := hook.Parse(tool, data)
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
