package transcript_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/loopbreaker/loopbreaker/hook"
	"github.com/loopbreaker/loopbreaker/transcript"
)

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

// matchHookPayloads checks that the first calls of a recorded session
// are, one by one, the calls whose post-tool payloads the hook got in the
// same run (hook/testdata/DIR/NAME): same call, same result, same error,
// same tests.
func matchHookPayloads(t *testing.T, calls []*hook.Payload, tool hook.Tool, dir string, names []string) {
	t.Helper()
	const root = "/home/dev/calc"
	for i, name := range names {
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
