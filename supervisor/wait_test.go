package supervisor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
)

// A Claude Code run refused for its 5-hour limit is not recorded: the
// loop waits until the reset the CLI printed and runs the iteration again.
func TestUsageLimitWaitsForTheResetAndResumes(t *testing.T) {
	p := newProject(t, true, map[string]string{"a.txt": "a\n"})
	agent := script(t, `n=$(cat .count 2>/dev/null || echo 0); echo $((n+1)) > .count
if [ "$n" = 0 ]; then echo "You've hit your 5-hour limit · resets Nov 21, 2026, 11am (UTC)"; exit 1; fi
echo "<promise>COMPLETE</promise>"
`)
	clock := NewFrozenClock(testNow)
	cfg := p.config(agent)
	cfg.Now, cfg.After, cfg.MaxWait = clock.Now, clock.After, 6*time.Hour
	res := p.run(t, cfg)
	if res.Outcome != Completed {
		t.Fatalf("outcome %s, want completed\n%s", res.Outcome, p.err.String())
	}
	if got := p.b.state(t).Iterations; got != 1 {
		t.Errorf("the breaker recorded %d iterations, want 1 (the refused run is not one)", got)
	}
	// 09:30 to 11:00 and the margin.
	if want := 90*time.Minute + resetMargin; waited(clock) != want {
		t.Errorf("waited %s, want %s", waited(clock), want)
	}
	refused, err := os.ReadFile(filepath.Join(p.stateDir, "runs", "default", "1.refused.out"))
	if err != nil || !strings.Contains(string(refused), "You've hit your 5-hour limit") {
		t.Errorf("the refused run's output was not kept in 1.refused.out (%v): %q", err, refused)
	}
	for _, want := range []string{
		"claude hit a usage or rate limit: You've hit your 5-hour limit",
		"waiting until 2026-11-21T11:00:30Z for the limit to reset (1h30m30s; Ctrl-C stops)",
		"waiting for the limit to reset: 1h20m30s left",
		"the limit has reset; running iteration 1 again",
	} {
		if !strings.Contains(p.err.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, p.err.String())
		}
	}
}

// A reset beyond run.max_wait, a limit with no reset time, or an agent
// that is not logged in stop the loop at once with exit 3 and what to do;
// the breaker counts nothing (it used to open after three such runs as
// "no progress").
func TestCannotRunStopsWithoutCounting(t *testing.T) {
	tests := []struct {
		name, output string
		want         []string
	}{
		{"beyond max wait", "You've hit your 5-hour limit · resets Nov 21, 2026, 6pm (UTC)",
			[]string{"the limit resets at 2026-11-21T18:00:00Z, in 8h30m30s, longer than run.max_wait (6h0m0s)"}},
		{"no reset time", "ERROR: You’ve hit your usage limit. Try again later.",
			[]string{"codex hit a usage or rate limit", "did not say when it may work again"}},
		{"not logged in", "Not logged in · Please run /login",
			[]string{"claude is not logged in", "run `claude /login`"}},
		{"gemini without auth", "When using Gemini API, you must specify the GEMINI_API_KEY environment variable.",
			[]string{"run `gemini` and choose an auth method"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newProject(t, true, map[string]string{"a.txt": "a\n"})
			agent := script(t, "echo '"+strings.ReplaceAll(tt.output, "'", `'\''`)+"' >&2\nexit 1\n")
			clock := NewFrozenClock(testNow)
			cfg := p.config(agent)
			cfg.Now, cfg.After, cfg.MaxWait = clock.Now, clock.After, 6*time.Hour
			res := p.run(t, cfg)
			if res.Outcome != CannotRun || res.ExitCode() != ExitCannotRun {
				t.Fatalf("outcome %s (exit %d), want cannot_run (3)\n%s", res.Outcome, res.ExitCode(), p.err.String())
			}
			if waited(clock) != 0 {
				t.Errorf("waited %s, want no wait", waited(clock))
			}
			st := p.b.state(t)
			if st.Iterations != 0 || st.State != lb.Closed {
				t.Errorf("breaker %s after %d iterations, want CLOSED after none", st.State, st.Iterations)
			}
			for _, want := range tt.want {
				if !strings.Contains(p.err.String(), want) {
					t.Errorf("stderr lacks %q:\n%s", want, p.err.String())
				}
			}
		})
	}
}

// A limit still there after its reset stops the loop instead of waiting
// for ever.
func TestRefusedAgainAfterTheResetStops(t *testing.T) {
	p := newProject(t, true, nil)
	agent := script(t, `echo "Claude AI usage limit reached|$(( $(date -d "$NOW" +%s) + 600 ))"; exit 1`+"\n")
	clock := NewFrozenClock(testNow)
	cfg := p.config(agent)
	cfg.Environ = append(cfg.Environ, "NOW="+testNow.Format(time.RFC3339))
	cfg.Now, cfg.After, cfg.MaxWait = clock.Now, clock.After, time.Hour
	res := p.run(t, cfg)
	if res.Outcome != CannotRun {
		t.Fatalf("outcome %s, want cannot_run\n%s", res.Outcome, p.err.String())
	}
	if !strings.Contains(p.err.String(), "refused 4 times in a row") {
		t.Errorf("stderr does not say why it stopped:\n%s", p.err.String())
	}
	if st := p.b.state(t); st.Iterations != 0 {
		t.Errorf("the breaker recorded %d iterations, want none", st.Iterations)
	}
}

// waited is how long the loop waited on clock, which started at testNow.
func waited(clock *FrozenClock) time.Duration { return clock.Now().Sub(testNow) }
