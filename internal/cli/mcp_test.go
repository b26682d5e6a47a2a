package cli

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loopbreaker/loopbreaker/mcpserver"
)

// TestMCPOverStdio drives the real binary (the test binary re-executed as
// `loopbreaker`, see TestMain): the CLI opens the session's breaker, then
// an MCP client from the official SDK talks to `loopbreaker mcp` over a
// real stdin/stdout pipe, reads the breaker, finds no way to reset it, and
// closes stdin, upon which the server must exit 0 on its own.
func TestMCPOverStdio(t *testing.T) {
	bin, err := exec.LookPath("loopbreaker")
	if err != nil {
		t.Fatalf("the re-executed binary is not on PATH: %v", err)
	}
	dir := t.TempDir()
	environ := func(now string) []string {
		return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "XDG_CONFIG_HOME=" + dir + "/.xdg", "XDG_STATE_HOME=" + stateHome(dir), "LOOPBREAKER_NOW=" + now}
	}
	// Three iterations without progress open the session's breaker.
	for i, want := range []int{0, 0, 2} {
		cmd := exec.Command(bin, "record", "--files-changed", "0", "--summary", fmt.Sprintf("attempt %d", i+1))
		cmd.Dir, cmd.Env = dir, environ("2026-11-21T09:00:00Z")
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		got := 0
		if errors.As(err, &ee) {
			got = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("record %d exited %d, want %d:\n%s", i+1, got, want, out)
		}
	}
	stateDir := testStateDir(dir)
	before := fingerprint(t, stateDir)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.Command(bin, "mcp")
	cmd.Dir, cmd.Env = dir, environ("2026-11-21T09:10:00Z")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	const terminate = 20 * time.Second
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "cli-test", Version: "1"}, nil).
		Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: terminate}, nil)
	if err != nil {
		t.Fatalf("connect: %v\nstderr: %s", err, stderr.String())
	}
	closed := false
	defer func() {
		if !closed {
			cs.Close()
		}
	}()

	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
		if a := tool.Annotations; a == nil || !a.ReadOnlyHint || !a.IdempotentHint {
			t.Errorf("%s is not annotated read-only and idempotent: %+v", tool.Name, a)
		}
	}
	slices.Sort(names)
	if want := []string{"get_circuit_state", "get_report", "list_breakers"}; !slices.Equal(names, want) {
		t.Fatalf("tools %v, want %v (and no reset)", names, want)
	}

	call := func(name string, args map[string]any) *mcp.CallToolResult {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return res
	}
	decode := func(res *mcp.CallToolResult, out any) {
		t.Helper()
		if res.IsError {
			t.Fatalf("tool error: %s", mcpText(res))
		}
		raw, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
	}

	var state mcpserver.StateOutput
	decode(call("get_circuit_state", map[string]any{}), &state)
	if state.Allowed || len(state.Breakers) != 1 {
		t.Fatalf("get_circuit_state: %+v", state)
	}
	b := state.Breakers[0]
	if want := "[OPEN] session:default — no_progress 3/3, cooldown ends in 20m"; b.Summary != want || b.RetryAt == nil || b.RetryAt.UTC().Format(time.RFC3339) != "2026-11-21T09:30:00Z" {
		t.Errorf("breaker %q retry_at %v, want %q at 09:30", b.Summary, b.RetryAt, want)
	}

	var list mcpserver.ListOutput
	decode(call("list_breakers", map[string]any{"skip_closed": true}), &list)
	if list.Open != 1 || len(list.Breakers) != 1 || list.Breakers[0].Scope != "session:default" {
		t.Errorf("list_breakers: %+v", list)
	}

	// A scope nothing used reads CLOSED and unknown; a malformed one is a
	// tool error that says what to send.
	decode(call("get_circuit_state", map[string]any{"scope": "agent:nobody"}), &state)
	if !state.Allowed || state.Breakers[0].Known || state.Breakers[0].State != "CLOSED" {
		t.Errorf("unknown scope: %+v", state)
	}
	if res := call("get_circuit_state", map[string]any{"scope": "nobody"}); !res.IsError || !strings.Contains(mcpText(res), "want global or kind:value") {
		t.Errorf("malformed scope: isError=%v %s", res.IsError, mcpText(res))
	}
	if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "reset", Arguments: map[string]any{}}); err == nil && !res.IsError {
		t.Errorf("a reset over MCP answered %+v", res)
	}

	report := call("get_report", map[string]any{})
	if md := mcpText(report); report.IsError || !strings.Contains(md, "no progress") || !strings.Contains(md, "loopbreaker reset") {
		t.Errorf("get_report:\n%s", md)
	}

	if res := call("get_report", map[string]any{"session": "a\nb"}); !res.IsError || !strings.Contains(mcpText(res), "want a session name on one line") {
		t.Errorf("get_report of a bad session name: isError=%v %s", res.IsError, mcpText(res))
	}

	if after := fingerprint(t, stateDir); !maps.Equal(before, after) {
		t.Error("the MCP server changed the breaker's files")
	}

	// Closing stdin ends the server: exit 0, before the transport sends
	// SIGTERM (a server ended by the signal has no exit code: -1).
	err = cs.Close()
	closed = true
	if err != nil {
		t.Fatalf("the server did not exit cleanly when stdin closed: %v\nstderr: %s", err, stderr.String())
	}
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	if stderr.Len() > 0 {
		t.Errorf("stderr: %s", stderr.String())
	}
}

func mcpText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// fingerprint hashes every file under dir with its modification time.
func fingerprint(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		out[p] = fmt.Sprintf("%x %d", sha256.Sum256(data), info.ModTime().UnixNano())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
