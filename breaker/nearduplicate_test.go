package breaker

import (
	"encoding/json"
	"fmt"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
)

// shell is a Bash call with its canonical arguments.
func shell(cmd, info string) lb.ToolCall {
	args, _ := json.Marshal(map[string]string{"command": cmd})
	tc := lb.ToolCall{Tool: "Bash", Args: args, ArgsHash: cmd, ResultHash: "raw:" + cmd, InfoHash: info}
	return tc
}

func TestNearDuplicatesTrip(t *testing.T) {
	// no_new_info off, to see near_duplicate on its own.
	r := newRig(t, func(c *lb.Config) { c.ToolCalls.NoNewInfo = 0 })
	n := lb.Defaults().ToolCalls.NearDuplicate
	for i := 1; i <= n; i++ {
		d := r.tool(shell(fmt.Sprintf("sed -n '%d,%dp' src/app.py", 10*i, 10*i+20), "same-lines"))
		switch {
		case i == n:
			r.expect(d, lb.Open, false, fmt.Sprintf("call %d with one changing argument", i))
			if d.Detector != lb.DetectorNearDuplicate {
				t.Fatalf("detector %q, want near_duplicate", d.Detector)
			}
		case i == n-1:
			r.expect(d, lb.HalfOpen, true, fmt.Sprintf("call %d warns", i))
		default:
			r.expect(d, lb.Closed, true, fmt.Sprintf("call %d", i))
		}
	}
}

func TestNotNearDuplicates(t *testing.T) {
	tests := []struct {
		name  string
		calls func(i int) lb.ToolCall
	}{
		{"one changing argument, different results", func(i int) lb.ToolCall {
			return shell(fmt.Sprintf("sed -n '%d,%dp' src/app.py", i, i+9), fmt.Sprintf("lines-%d", i))
		}},
		{"two changing arguments", func(i int) lb.ToolCall {
			return shell(fmt.Sprintf("grep -n key%d file%d.py", i, i), "same")
		}},
		{"the changing argument moves", func(i int) lb.ToolCall {
			if i%2 == 0 {
				return shell(fmt.Sprintf("pytest -k t%d tests/a.py", i), "same")
			}
			return shell(fmt.Sprintf("pytest -k t0 tests/b%d.py", i), "same")
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t, func(c *lb.Config) { c.ToolCalls.NoNewInfo = 0 })
			for i := 0; i < 20; i++ {
				r.expect(r.tool(tt.calls(i)), lb.Closed, true, fmt.Sprintf("call %d", i))
			}
		})
	}
}

func TestArgTokens(t *testing.T) {
	tok := func(tool, args string) []uint32 {
		ts, ok := argTokens(tool, []byte(args), nil)
		if !ok {
			t.Fatalf("%s: too many tokens", args)
		}
		return ts
	}
	a := tok("Bash", `{"command":"sed -n '10,20p' src/app.py"}`)
	b := tok("Bash", `{"command":"sed -n '30,40p' src/app.py"}`)
	c := tok("Read", `{"command":"sed -n '10,20p' src/app.py"}`)
	if len(a) != 6 || len(b) != 6 {
		t.Fatalf("tokens %d and %d, want the tool, the key and 4 words", len(a), len(b))
	}
	diff := 0
	for i := range a {
		if a[i] != b[i] {
			diff++
		}
	}
	if diff != 1 {
		t.Fatalf("%d tokens differ, want the line range only", diff)
	}
	if a[0] == c[0] {
		t.Fatal("the tool name is not a token")
	}
	long := `{"command":"` + fmt.Sprint(make([]int, 60)) + `"}`
	if _, ok := argTokens("Bash", []byte(long), nil); ok {
		t.Fatal("a call of more than maxArgTokens tokens is compared")
	}
}
