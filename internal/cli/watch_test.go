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
