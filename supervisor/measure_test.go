package supervisor

import (
	"bytes"
	"strings"
	"testing"
)

func TestParseAgentResult(t *testing.T) {
	for _, tc := range []struct {
		name      string
		out       string
		want      bool
		denials   int
		isError   bool
		resultHas string
	}{
		{"claude json", `{"type":"result","subtype":"success","is_error":false,"result":"Done.","num_turns":3,"permission_denials":[{"tool_name":"Bash"}]}`, true, 1, false, "Done."},
		{"stream json, result last", "{\"type\":\"system\",\"subtype\":\"init\"}\n{\"type\":\"assistant\",\"message\":{}}\n{\"type\":\"result\",\"is_error\":true,\"subtype\":\"error_max_turns\",\"result\":\"gave up\"}\n", true, 0, true, "gave up"},
		{"pretty printed", "{\n  \"type\": \"result\",\n  \"result\": \"ok\"\n}\n", true, 0, false, "ok"},
		{"array of messages", `[{"type":"system"},{"type":"result","result":"from array"}]`, true, 0, false, "from array"},
		{"text before the json", "thinking...\n" + `{"type":"result","result":"end"}` + "\n", true, 0, false, "end"},
		{"other json", `{"type":"assistant","result":"no"}`, false, 0, false, ""},
		{"plain text", "just text\n", false, 0, false, ""},
		{"broken json", `{"type":"result",`, false, 0, false, ""},
		{"empty", "", false, 0, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := parseAgentResult([]byte(tc.out))
			if (r != nil) != tc.want {
				t.Fatalf("got %+v, want found=%v", r, tc.want)
			}
			if r == nil {
				return
			}
			if len(r.PermissionDenials) != tc.denials || r.IsError != tc.isError || !strings.Contains(r.Result, tc.resultHas) {
				t.Errorf("got %+v", r)
			}
		})
	}
}

func TestErrorLines(t *testing.T) {
	out := strings.Join([]string{
		"compiling...",
		"main.go:3: undefined: Foo (error)",
		"    context line one",
		"\tcontext line two",
		"not indented: ends the context",
		"PASS: 12 tests, 0 failures",
		"no errors found",
		`{"type":"result","is_error":false}`,
		"Traceback (most recent call last):",
		"  File \"x.py\", line 3",
		"ValueError: bad value",
		"agent: loopbreaker warned me: warning: the same error repeated",
	}, "\n")
	c := newCapture(discard{}, nil, echoLines("warning: the same error repeated"))
	c.Write([]byte(out))
	c.finish()
	got := strings.Join(c.scan.errors(), "\n")
	want := strings.Join([]string{
		"main.go:3: undefined: Foo (error)",
		"    context line one",
		"\tcontext line two",
		"Traceback (most recent call last):",
		"  File \"x.py\", line 3",
		"ValueError: bad value",
	}, "\n")
	if got != want {
		t.Errorf("error lines:\n%s\nwant:\n%s", got, want)
	}
}

// Many error lines keep the first and the last ones.
func TestErrorLinesBounded(t *testing.T) {
	c := newCapture(discard{}, nil, nil)
	for i := range 100 {
		c.Write([]byte("error number " + strings.Repeat("x", i%3) + string(rune('a'+i%26)) + "\n"))
	}
	lines := c.scan.errors()
	if len(lines) != errorKeepHead+1+errorKeepTail || lines[errorKeepHead] != "…" {
		t.Fatalf("%d lines: %q", len(lines), lines)
	}
}

// The head and tail kept for parsing are the real start and end of a
// stream larger than both.
func TestCaptureHeadTail(t *testing.T) {
	c := newCapture(discard{}, nil, nil)
	total := headBytes + tailBytes + 12345
	data := bytes.Repeat([]byte("0123456789abcdef"), total/16+1)[:total]
	for len(data) > 0 {
		k := min(len(data), 7000)
		c.Write(data[:k])
		data = data[k:]
	}
	all := bytes.Repeat([]byte("0123456789abcdef"), total/16+1)[:total]
	text := c.text()
	if !bytes.HasPrefix(text, all[:headBytes]) || !bytes.HasSuffix(text, all[total-tailBytes:]) || !bytes.Contains(text, []byte("output truncated")) {
		t.Error("text is not head + marker + tail")
	}
	if !bytes.Equal(c.lastText(), all[total-tailBytes:]) {
		t.Error("lastText is not the tail")
	}
	if c.n != int64(total) {
		t.Errorf("counted %d of %d bytes", c.n, total)
	}
	small := newCapture(discard{}, nil, nil)
	small.Write([]byte("short"))
	if string(small.text()) != "short" || string(small.lastText()) != "short" {
		t.Errorf("small stream: %q", small.text())
	}
}
