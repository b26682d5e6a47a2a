package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestMCPSurvivesMalformedFrames writes malformed frames to the real
// `loopbreaker mcp` over a pipe, each followed by a valid request: every
// bad frame gets a JSON-RPC error, the valid request after it its answer,
// and closing stdin still ends the server with exit 0.
func TestMCPSurvivesMalformedFrames(t *testing.T) {
	bin, err := exec.LookPath("loopbreaker")
	if err != nil {
		t.Fatalf("the re-executed binary is not on PATH: %v", err)
	}
	dir := t.TempDir()
	cmd := exec.Command(bin, "mcp")
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "XDG_CONFIG_HOME=" + dir + "/.xdg", "LOOPBREAKER_NOW=2026-11-21T09:00:00Z"}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	answers := bufio.NewReaderSize(stdout, 1<<20)
	type answer struct {
		ID     json.RawMessage `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	send := func(frame string) {
		t.Helper()
		if _, err := io.WriteString(stdin, frame+"\n"); err != nil {
			t.Fatalf("write (the server is gone?): %v\nstderr: %s", err, stderr.String())
		}
	}
	next := func() answer {
		t.Helper()
		line, err := answers.ReadBytes('\n')
		if err != nil {
			t.Fatalf("no answer (the server exited?): %v\nstderr: %s", err, stderr.String())
		}
		var a answer
		if err := json.Unmarshal(line, &a); err != nil {
			t.Fatalf("answer %q: %v", line, err)
		}
		return a
	}

	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if a := next(); a.Error != nil || len(a.Result) == 0 {
		t.Fatalf("initialize: %+v", a)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	long := `{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{"x":"` + strings.Repeat("a", 50<<20) + `"}}`
	for i, bad := range []struct{ frame, want string }{
		{"garbage", "not valid JSON"},
		{"{{{{", "not valid JSON"},
		{strings.Repeat("[", 5000) + strings.Repeat("]", 5000), "nested more than"},
		{`{"a":` + strings.Repeat(`{"a":`, 200) + "1" + strings.Repeat("}", 201), "nested more than"},
		{long, "longer than"},
		{`[{"jsonrpc":"2.0","id":2,"method":"tools/list"}]`, "batches are not supported"},
		{`{"jsonrpc":"2.0","id":{"x":1},"method":"tools/list"}`, "not a JSON-RPC 2.0 message"},
		{`"a string"`, "is a JSON object"},
		{`{"jsonrpc":"1.0","id":3,"method":"tools/list"}`, "not a JSON-RPC 2.0 message"},
	} {
		send(bad.frame)
		a := next()
		if a.Error == nil || !strings.Contains(a.Error.Message, bad.want) {
			t.Errorf("frame %d (%.40q): answer %+v, want an error saying %q", i, bad.frame, a, bad.want)
		}
		send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list"}`, 100+i))
		if a := next(); a.Error != nil || string(a.ID) != fmt.Sprint(100+i) || !strings.Contains(string(a.Result), "get_circuit_state") {
			t.Fatalf("tools/list after frame %d: %+v\nstderr: %s", i, a, stderr.String())
		}
	}
	// A scope is bounded as in the HTTP API.
	send(`{"jsonrpc":"2.0","id":77,"method":"tools/call","params":{"name":"get_circuit_state","arguments":{"scope":"agent:` + strings.Repeat("x", 100_000) + `"}}}`)
	if a := next(); !strings.Contains(string(a.Result), "send at most 200") {
		t.Errorf("a 100 kB scope: %s %+v", a.Result, a.Error)
	}

	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("after stdin closed: %v\nstderr: %s", err, stderr.String())
	}
	if stderr.Len() > 0 {
		t.Errorf("stderr: %s", stderr.String())
	}
}
