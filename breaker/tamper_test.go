package breaker

import (
	"strings"
	"testing"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
)

func (r *rig) tamper(what string) lb.Decision {
	r.t.Helper()
	r.clock.Advance(time.Minute)
	return r.apply(lb.Event{Kind: lb.EventTamper, Caller: "claude", Tamper: &lb.Tamper{Tool: "Bash", What: []string{what}, Command: what}}).Decision
}

// The first refused attempt warns, the second opens; the reason and the
// kept attempts say what was tried; a person's reset clears the count
// but not the record.
func TestTamperWarnsThenOpens(t *testing.T) {
	r := newRig(t)
	d := r.tamper("runs `loopbreaker reset`")
	r.expect(d, lb.HalfOpen, true, "first attempt")
	if d.Detector != lb.DetectorTamper || !strings.Contains(d.Reason, "loopbreaker reset") {
		t.Errorf("warning by %s: %q", d.Detector, d.Reason)
	}
	d = r.tamper("changes loopbreaker's configuration /p/loopbreaker.yaml (rm)")
	r.expect(d, lb.Open, false, "second attempt")
	if d.Detector != lb.DetectorTamper || !strings.Contains(d.Reason, "2 attempts (2/2)") || !strings.Contains(d.Reason, "loopbreaker.yaml") {
		t.Errorf("opened by %s: %q", d.Detector, d.Reason)
	}
	if len(r.s.Tampers) != 2 || r.s.Tampers[0].Tool != "Bash" {
		t.Fatalf("tampers kept: %+v", r.s.Tampers)
	}
	r.reset(lb.Reset{})
	if r.s.Counters.Tamper != 0 || len(r.s.Tampers) != 2 {
		t.Errorf("after reset: count %d, kept %d", r.s.Counters.Tamper, len(r.s.Tampers))
	}
	r.expect(r.tamper("runs `loopbreaker reset`"), lb.HalfOpen, true, "first attempt after the reset")
}

// tamper.threshold 0 keeps the record but never opens.
func TestTamperThresholdZero(t *testing.T) {
	r := newRig(t, func(c *lb.Config) { c.Tamper.Threshold = 0 })
	for range 5 {
		r.expect(r.tamper("runs `loopbreaker reset`"), lb.Closed, true, "not counted")
	}
	if len(r.s.Tampers) != 5 {
		t.Errorf("kept %d attempts, want 5", len(r.s.Tampers))
	}
}

func (r *rig) checkWith(fp string) lb.Decision {
	r.t.Helper()
	return r.apply(lb.Event{Kind: lb.EventCheck, Caller: "claude", Fingerprint: fp}).Decision
}

// The first fingerprint is kept; another one opens the breaker at once
// and keeps it OPEN past the cooldown; a person's reset accepts the next
// one.
func TestFingerprintChangeOpensUntilReset(t *testing.T) {
	r := newRig(t)
	r.expect(r.checkWith("aaaa"), lb.Closed, true, "first fingerprint")
	if r.s.Fingerprint != "aaaa" {
		t.Fatalf("fingerprint kept: %q", r.s.Fingerprint)
	}
	r.expect(r.checkWith("aaaa"), lb.Closed, true, "same fingerprint")
	d := r.checkWith("bbbb")
	r.expect(d, lb.Open, false, "changed fingerprint")
	if d.Detector != lb.DetectorTamper || !strings.Contains(d.Reason, "configuration or hook settings changed") {
		t.Errorf("opened by %s: %q", d.Detector, d.Reason)
	}
	r.checkWith("bbbb")
	if n := len(r.s.Tampers); n != 1 || !r.s.Tampers[0].Detected {
		t.Fatalf("the change is recorded once: %+v", r.s.Tampers)
	}
	// The cooldown would offer a probe; the changed configuration keeps
	// it OPEN.
	r.clock.Advance(r.e.Config.Cooldown + time.Minute)
	r.expect(r.checkWith("bbbb"), lb.Open, false, "after the cooldown")
	// Putting the old configuration back is what the person agreed to.
	r.expect(r.checkWith("aaaa"), lb.Open, false, "old fingerprint while OPEN")
	r.reset(lb.Reset{By: "alice"})
	r.expect(r.checkWith("bbbb"), lb.Closed, true, "accepted by the reset")
	if r.s.Fingerprint != "bbbb" {
		t.Errorf("fingerprint after reset: %q", r.s.Fingerprint)
	}
}

// Events without a fingerprint (a loop's record, the CLI) neither keep
// nor compare one.
func TestNoFingerprintNoCompare(t *testing.T) {
	r := newRig(t)
	r.checkWith("aaaa")
	r.expect(r.check("loop"), lb.Closed, true, "check without fingerprint")
	if r.s.Fingerprint != "aaaa" {
		t.Errorf("fingerprint: %q", r.s.Fingerprint)
	}
}

func TestTamperEventNeedsData(t *testing.T) {
	r := newRig(t)
	if _, err := r.e.Apply(r.s, &lb.Event{Kind: lb.EventTamper}); err == nil {
		t.Fatal("a tamper event without data was accepted")
	}
}

// Two agent CLIs that feed one session each keep their own fingerprint:
// Gemini's is not a change of Claude Code's, and a change of either opens.
func TestFingerprintPerSender(t *testing.T) {
	r := newRig(t)
	r.expect(r.checkWith("claude=aaaa"), lb.Closed, true, "claude's first")
	r.expect(r.checkWith("gemini=cccc"), lb.Closed, true, "gemini's first")
	if r.s.Fingerprint != "claude=aaaa gemini=cccc" {
		t.Fatalf("fingerprints kept: %q", r.s.Fingerprint)
	}
	r.expect(r.checkWith("claude=aaaa"), lb.Closed, true, "claude's again")
	r.expect(r.checkWith("gemini=dddd"), lb.Open, false, "gemini's changed")
	if n := len(r.s.Tampers); n != 1 || r.s.Tampers[0].Command != "gemini=dddd" {
		t.Fatalf("the change: %+v", r.s.Tampers)
	}
}
