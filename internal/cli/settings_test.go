package cli

import (
	"context"
	"encoding/json"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/config"
	"github.com/loopbreaker/loopbreaker/mcpserver"
	"github.com/loopbreaker/loopbreaker/replay"
)

// settingsConfig gives four scopes four different cooldowns and failure
// thresholds: a session with a breakers: entry, a session without one (the
// top-level settings), an agent from the template and a configured stakes
// breaker whose entry leaves its window to the template.
const settingsConfig = `cooldown: 20m
failure_window:
  threshold: 6
  window: 2h
breaker_template:
  failure_threshold: 4
  window: 1h
  cooldown: 15m
breakers:
  - scope: session:default
    failure_threshold: 2
    window: 30m
    cooldown: 5m
  - scope: stakes:high
    failure_threshold: 3
    cooldown: 10m
`

// want is one scope's effective settings, the same for every way in.
type want struct {
	threshold int
	window    time.Duration
	cooldown  time.Duration
}

var settingsWant = map[string]want{
	"session:default": {2, 30 * time.Minute, 5 * time.Minute},
	"session:other":   {6, 2 * time.Hour, 20 * time.Minute},
	"agent:planner":   {4, time.Hour, 15 * time.Minute},
	"stakes:high":     {3, time.Hour, 10 * time.Minute},
}

// TestEverySurfaceResolvesTheSameSettings opens four breakers at 09:00 and
// asks every way in which cooldown, threshold and retry time each has:
// `status --json`, the HTTP API of a real `serve`, get_circuit_state of a
// real `loopbreaker mcp`, the engine a replay runs and the hook's answer.
// They must all say the same.
func TestEverySurfaceResolvesTheSameSettings(t *testing.T) {
	bin, err := exec.LookPath("loopbreaker")
	if err != nil {
		t.Fatalf("the re-executed binary is not on PATH: %v", err)
	}
	dir := project(t, settingsConfig)
	environ := func(now string, extra ...string) []string {
		return append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "XDG_CONFIG_HOME=" + dir + "/.xdg",
			"XDG_STATE_HOME=" + stateHome(dir), "LOOPBREAKER_NOW=" + now}, extra...)
	}
	run := func(env []string, stdin string, args ...string) (string, int) {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Dir, cmd.Env = dir, env
		if stdin != "" {
			f, err := os.Open(stdin)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			cmd.Stdin = f
		}
		out, err := cmd.Output()
		if ee, ok := err.(*exec.ExitError); ok {
			return string(out), ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return string(out), 0
	}
	const opened, asked = "2026-11-21T09:00:00Z", "2026-11-21T09:01:00Z"
	t0, _ := time.Parse(time.RFC3339, opened)
	for scope := range settingsWant {
		// Three iterations without progress open any breaker (no_progress).
		for i := range 3 {
			if out, code := run(environ(opened), "", "record", "--scope", scope, "--files-changed", "0"); code != 0 && i < 2 || i == 2 && code != 2 {
				t.Fatalf("record %d on %s exited %d:\n%s", i+1, scope, code, out)
			}
		}
	}
	retry := func(scope string) string {
		return t0.Add(settingsWant[scope].cooldown).Format(time.RFC3339)
	}
	utc := func(p *time.Time) string {
		if p == nil {
			return "none"
		}
		return p.UTC().Format(time.RFC3339)
	}

	t.Run("status", func(t *testing.T) {
		for scope, w := range settingsWant {
			out, code := run(environ(asked), "", "status", "--json", "--scope", scope)
			if code != 0 {
				t.Fatalf("status %s exited %d:\n%s", scope, code, out)
			}
			var st lb.Status
			if err := json.Unmarshal([]byte(out), &st); err != nil {
				t.Fatalf("status %s: %v\n%s", scope, err, out)
			}
			threshold := -1
			for _, c := range st.Counters {
				if c.Name == lb.DetectorFailureWindow {
					threshold = c.Threshold
				}
			}
			if utc(st.RetryAt) != retry(scope) || threshold != w.threshold {
				t.Errorf("status %s: retry %s threshold %d, want %s and %d", scope, utc(st.RetryAt), threshold, retry(scope), w.threshold)
			}
		}
	})

	t.Run("serve", func(t *testing.T) {
		s := startServer(t, dir, []string{"LOOPBREAKER_NOW=" + asked})
		for scope, w := range settingsWant {
			var b struct {
				RetryAt          *time.Time `json:"retry_at"`
				FailureThreshold int        `json:"failure_threshold"`
				WindowSeconds    float64    `json:"window_seconds"`
				CooldownSeconds  float64    `json:"cooldown_seconds"`
			}
			if code := s.call("GET", "/v1/breakers/"+url.PathEscape(scope), "", nil, &b); code != 200 {
				t.Fatalf("GET %s: %d", scope, code)
			}
			if utc(b.RetryAt) != retry(scope) || b.FailureThreshold != w.threshold ||
				b.WindowSeconds != w.window.Seconds() || b.CooldownSeconds != w.cooldown.Seconds() {
				t.Errorf("serve %s: %+v (retry %s), want %+v and retry %s", scope, b, utc(b.RetryAt), w, retry(scope))
			}
		}
		s.stop()
	})

	t.Run("mcp", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cmd := exec.Command(bin, "mcp")
		cmd.Dir, cmd.Env = dir, environ(asked)
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "settings-test", Version: "1"}, nil).
			Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 20 * time.Second}, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close()
		for scope, w := range settingsWant {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get_circuit_state", Arguments: map[string]any{"scope": scope}})
			if err != nil || res.IsError {
				t.Fatalf("get_circuit_state %s: %v %s", scope, err, mcpText(res))
			}
			raw, _ := json.Marshal(res.StructuredContent)
			var out mcpserver.StateOutput
			if err := json.Unmarshal(raw, &out); err != nil || len(out.Breakers) != 1 {
				t.Fatalf("get_circuit_state %s: %v %s", scope, err, raw)
			}
			b := out.Breakers[0]
			if utc(b.RetryAt) != retry(scope) || b.FailureThreshold != w.threshold ||
				b.WindowSeconds != w.window.Seconds() || b.CooldownSeconds != w.cooldown.Seconds() {
				t.Errorf("mcp %s: retry %s threshold %d window %vs cooldown %vs, want %s and %+v",
					scope, utc(b.RetryAt), b.FailureThreshold, b.WindowSeconds, b.CooldownSeconds, retry(scope), w)
			}
		}
	})

	t.Run("replay", func(t *testing.T) {
		loaded, err := config.Load(config.Options{ProjectDir: dir, UserConfigDir: dir + "/.xdg"})
		if err != nil {
			t.Fatal(err)
		}
		for scope, w := range settingsWant {
			session, ok := strings.CutPrefix(scope, "session:")
			if !ok {
				continue // a replay runs a session's breaker only
			}
			c := replay.Engine(loaded.Config, session, nil).Config
			if c.FailureWindow.Threshold != w.threshold || c.FailureWindow.Window != w.window || c.Cooldown != w.cooldown {
				t.Errorf("replay %s: threshold %d window %v cooldown %v, want %+v", scope, c.FailureWindow.Threshold, c.FailureWindow.Window, c.Cooldown, w)
			}
		}
	})

	// Last: a hook call past a cooldown lets the probe through and so
	// changes the state the others read.
	t.Run("hook", func(t *testing.T) {
		edit := "../../hook/testdata/claude/PreToolUse-edit.json"
		for scope := range settingsWant {
			session, ok := strings.CutPrefix(scope, "session:")
			if !ok {
				continue // a hook feeds a session's breaker only
			}
			out, _ := run(environ(asked, "LOOPBREAKER_SESSION="+session), edit, "hook", "claude")
			if !strings.Contains(out, `"permissionDecision":"deny"`) || !strings.Contains(out, "the cooldown ends ("+retry(scope)+")") {
				t.Errorf("hook %s at %s: want a deny until %s, got\n%s", scope, asked, retry(scope), out)
			}
			// A second before the retry time the call is still refused, at
			// it the call goes on as the probe.
			before := t0.Add(settingsWant[scope].cooldown - time.Second).Format(time.RFC3339)
			if out, _ := run(environ(before, "LOOPBREAKER_SESSION="+session), edit, "hook", "claude"); !strings.Contains(out, `"permissionDecision":"deny"`) {
				t.Errorf("hook %s at %s: want a deny, got\n%s", scope, before, out)
			}
			if out, _ := run(environ(retry(scope), "LOOPBREAKER_SESSION="+session), edit, "hook", "claude"); strings.Contains(out, `"deny"`) {
				t.Errorf("hook %s at %s: the cooldown is over, want the call let through, got\n%s", scope, retry(scope), out)
			}
		}
	})
}
