//go:build unix

package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/breaker"
	"github.com/loopbreaker/loopbreaker/filestore"
	"github.com/loopbreaker/loopbreaker/internal/resident"
	"github.com/loopbreaker/loopbreaker/internal/residentwire"
	"github.com/loopbreaker/loopbreaker/session"
)

// BenchmarkResidentAnswer is the resident breaker's share of a warm hook
// call, in process: a PreToolUse and a PostToolUse of Claude Code
// answered by residentAnswer in a project made by `loopbreaker init`
// whose session journal holds 10,000 tool calls. cpu-ms/call is this
// process's CPU time per call, garbage collection included. A CPU profile
// of it is the resident breaker's (less the socket), with the seeding of
// the journal, which -focus=residentAnswer leaves out:
//
//	go test -run='^$' -bench=ResidentAnswer -benchtime=300x -cpuprofile=/tmp/res.prof ./internal/cli/
func BenchmarkResidentAnswer(b *testing.B) {
	dir := b.TempDir()
	project := filepath.Join(dir, "p")
	state := filepath.Join(dir, "state")
	environ := []string{"HOME=" + dir, "XDG_CONFIG_HOME=" + dir, "LOOPBREAKER_DIR=" + state, "PATH=" + os.Getenv("PATH"), "LOOPBREAKER_TOOL_CALLS_NO_EFFECT=0"}
	if err := os.MkdirAll(project, 0o755); err != nil {
		b.Fatal(err)
	}
	env := &Env{Environ: environ, Dir: project, Now: time.Now, Stdout: os.Stderr, Stderr: os.Stderr}
	if code := Main(context.Background(), []string{"init"}, &Env{Environ: environ, Dir: project, Now: time.Now, Stdout: new(discard), Stderr: os.Stderr}); code != 0 {
		b.Fatalf("init: exit %d", code)
	}
	store, err := filestore.Open(state, filestore.Options{})
	if err != nil {
		b.Fatal(err)
	}
	cfg := lb.Defaults()
	cfg.ToolCalls.NoEffect = 0
	svc := &breaker.Service{Store: store, Engine: breaker.New(cfg)}
	for i := 0; i < 10_000; i++ {
		tc := lb.ToolCall{
			Tool: "Bash", Args: json.RawMessage(fmt.Sprintf(`{"command":"make step%d"}`, i)),
			ArgsHash: fmt.Sprintf("%016x", i), ResultHash: fmt.Sprintf("%016x", i),
		}
		if _, err := svc.Apply(context.Background(), []string{"session:claude"}, lb.Event{Kind: lb.EventToolCall, Caller: "claude", ToolCall: &tc}); err != nil {
			b.Fatal(err)
		}
	}
	store.Close()
	kept, marks := &session.Kept{}, newHeldMarks()
	call := func(in []byte) {
		// No peer named: the call marks and unmarks itself, as the
		// in-process hook does.
		resp := residentAnswer(context.Background(), env, kept, &residentwire.Request{Args: []string{"hook", "claude"}, Env: environ, Dir: project, Stdin: in}, resident.Peer{}, marks)
		if resp.Err != "" || resp.Code != 0 || len(resp.Stdout) != 0 || len(resp.Stderr) != 0 {
			b.Fatalf("answer: %+v\nstdout: %s\nstderr: %s", resp, resp.Stdout, resp.Stderr)
		}
	}
	i := 0
	cpu0 := processCPU()
	for b.Loop() {
		i++
		id := fmt.Sprintf("toolu_res%06d", i)
		cmd := fmt.Sprintf("go test ./internal/pkg%d/...", i)
		pre, _ := json.Marshal(map[string]any{"session_id": "s1", "transcript_path": "", "cwd": project, "hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_use_id": id, "tool_input": map[string]any{"command": cmd}})
		post, _ := json.Marshal(map[string]any{"session_id": "s1", "transcript_path": "", "cwd": project, "hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_use_id": id, "tool_input": map[string]any{"command": cmd},
			"tool_response": map[string]any{"stdout": fmt.Sprintf("ok  \texample.com/calc/internal/pkg%d\t0.0%ds\n", i, i%10), "stderr": "", "interrupted": false, "isImage": false}})
		call(pre)
		call(post)
	}
	b.ReportMetric((processCPU()-cpu0).Seconds()*1000/float64(2*i), "cpu-ms/call")
}

// processCPU is the CPU time this process used so far, user and system,
// garbage collection included.
func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
