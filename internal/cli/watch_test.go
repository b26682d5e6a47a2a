package cli

import (
	"bufio"
	"context"
	"io"
	"strings"
	"testing"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
)

// Not on a terminal, watch --interval prints a plain snapshot per
// interval until it is interrupted, then ends without an error.
func TestWatchPlainIntervals(t *testing.T) {
	dir := t.TempDir()
	environ := []string{"HOME=" + dir, "XDG_CONFIG_HOME=" + dir, "XDG_STATE_HOME=" + dir}
	if code := Main(context.Background(), []string{"record", "--files-changed", "1"},
		&Env{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard, Dir: dir, Environ: environ}); code != 0 {
		t.Fatalf("record: exit %d", code)
	}
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, []string{"watch", "--interval", "10ms"},
			&Env{Stdin: strings.NewReader(""), Stdout: pw, Stderr: io.Discard, Dir: dir, Environ: environ})
		pw.Close()
	}()
	sc := bufio.NewScanner(pr)
	heads := 0
	for heads < 3 && sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "loopbreaker watch: 1 breaker at ") {
			heads++
		}
		if len([]rune(line)) > 80 {
			t.Errorf("line of %d columns: %q", len([]rune(line)), line)
		}
	}
	if heads < 3 {
		t.Fatalf("saw %d snapshots, want 3", heads)
	}
	cancel()
	go io.Copy(io.Discard, pr) // the last snapshot may still be written
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("watch ended with exit %d after an interrupt, want 0", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("watch did not end after an interrupt")
	}
}

// The calls of the hour a state keeps are bounded by its budget: watch
// says "or more" once the count reaches the bound, never a figure that
// looks exact and is not.
func TestWatchSaysWhenTheHourCountIsABound(t *testing.T) {
	for _, atLeast := range []bool{false, true} {
		v := watchView{status: lb.Status{Scope: "session:s", State: lb.Closed, Spend: &lb.Spend{Calls: 250}}, hourCalls: 100, hourCallsAtLeast: atLeast}
		out := renderWatch([]watchView{v}, time.Now(), 100, plainStyle)
		want := "calls in the last hour: 100\n"
		if atLeast {
			want = "calls in the last hour: 100 or more\n"
		}
		if !strings.Contains(out, want) {
			t.Errorf("at least %v: no %q in\n%s", atLeast, want, out)
		}
	}
}

// At 80 columns an OPEN breaker reads whole: the reason, the spend and
// what to do next are wrapped, never cut; same_error's two counters say
// which is which; only the counter that tripped is marked, not another at
// its threshold.
func TestWatchAt80Columns(t *testing.T) {
	reason := "no progress in 3 consecutive iterations (3/3): no files changed, HEAD did not move, no edit in the turn, no test improved, no metric moved, no completion signal"
	st := lb.Status{
		Scope: "session:claude", State: lb.Open, Enabled: true, Detector: lb.DetectorNoProgress, Reason: reason,
		Iterations: 3, TotalOpens: 1, CooldownRemaining: 1800,
		Counters: []lb.Counter{
			{Name: lb.DetectorNoProgress, Value: 3, Threshold: 3, WarnAt: 2},
			{Name: lb.DetectorSameError, Value: 3, Threshold: 5, WarnAt: 4, Detail: "consecutive"},
			{Name: lb.DetectorSameError, Value: 3, Threshold: 5, WarnAt: 4, Detail: "since reset"},
			{Name: lb.DetectorPhaseFailure, Value: 3, Threshold: 3, WarnAt: 2},
			{Name: "budget_session_tokens", Unit: lb.UnitTokens, Value: 1200},
		},
		Spend: &lb.Spend{Tokens: 1234567, Calls: 250, CostUSD: 12.34, UnpricedTokens: 1000},
	}
	out := renderWatch([]watchView{{status: st, hourCalls: 12}}, time.Date(2026, 12, 6, 22, 0, 0, 0, time.UTC), 80, plainStyle)
	for _, l := range strings.Split(out, "\n") {
		if n := len([]rune(l)); n > 80 {
			t.Errorf("a line of %d columns: %q", n, l)
		}
		if strings.Contains(l, "…") {
			t.Errorf("a cut line: %q", l)
		}
	}
	joined := strings.Join(strings.Fields(out), " ")
	for _, want := range []string{
		"why: " + reason,
		"iterations 3, opened 1 time counters:",
		"no_progress 3/3 TRIPPED,",
		"same_error (consecutive) 3/5,",
		"same_error (since reset) 3/5,",
		"phase_failure 3/3 next:",
		`next: loopbreaker report --session claude says why; loopbreaker reset --session claude --guidance "what to do differently" lets the agent go on`,
		"spend: " + strings.Join(strings.Fields(st.Spend.Summary()), " "),
	} {
		if !strings.Contains(joined, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	if n := strings.Count(out, "TRIPPED"); n != 1 {
		t.Errorf("%d counters marked tripped, want 1 (no_progress):\n%s", n, out)
	}
	if strings.Contains(out, "budget_session_tokens") {
		t.Errorf("a budget that is off is listed among the counters:\n%s", out)
	}
}
