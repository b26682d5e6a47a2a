package hookpolicy

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/agent/claude"
	"github.com/loopbreaker/loopbreaker/config"
	"github.com/loopbreaker/loopbreaker/internal/jsonenc"
)

// The fingerprint is the one encoding/json's bytes give: breakers hold
// fingerprints made that way, and a different value for the same
// configuration and hook settings would count as a change that got past
// the hook.
func TestGuardFingerprintIsTheHashOfEncodingJSON(t *testing.T) {
	project, home := t.TempDir(), t.TempDir()
	for path, content := range map[string]string{
		filepath.Join(project, ".claude", "settings.json"): `{"permissions":{"allow":["Bash(go test:*)"]},"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"/usr/local/bin/loopbreaker hook claude"}]}],"Stop":[{"hooks":[{"type":"command","command":"loopbreaker hook claude"}]}]}}`,
		filepath.Join(home, ".claude", "settings.json"):    `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"loopbreaker hook claude"}]}]}}`,
		// Another CLI's settings are not read by a Claude Code hook.
		filepath.Join(home, ".gemini", "settings.json"): `{"hooks":{"AfterTool":[{"hooks":[{"type":"command","command":"loopbreaker hook gemini"}]}]}}`,
	} {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	getenv := func(k string) string { return map[string]string{"HOME": home}[k] }
	in := GuardInput{Agent: claude.New(), Project: project, Home: home, Getenv: getenv}

	doc := fingerprintOf(in, nil)
	installed := 0
	for _, pl := range doc.Hooks {
		if len(pl.Installed.Events) > 0 {
			installed++
		}
	}
	if installed != 2 {
		t.Fatalf("the settings files with loopbreaker's hooks: %d found, want 2 (%+v)", installed, doc.Hooks)
	}
	want := hashDoc(doc, json.Marshal)
	if got := NewGuard(in).Fingerprint; got != "claude/hooks="+want || len(want) != 12 {
		t.Fatalf("the fingerprint is %q, want %q (sha256 of encoding/json's bytes)", got, want)
	}
}

// The configuration in force is kept as jsonenc writes it and read back
// with encoding/json: every value comes back, odd strings included.
func TestKeptConfigRoundTrips(t *testing.T) {
	cfg := lb.Defaults()
	cfg.Scope.Deny = []string{"<secrets & keys>/**", "é\u2028"}
	cfg.Breakers = []lb.BreakerConfig{{Scope: "stakes:high", FailureThreshold: 3, Window: time.Hour}}
	cfg.Notify.WebhookURL = "https://example.invalid/hook?a=1&b=2"
	cfg.Cooldown += 7
	raw, err := jsonenc.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	std, _ := json.Marshal(cfg)
	if string(raw) != string(std) {
		t.Fatalf("jsonenc wrote\n%s\nencoding/json\n%s", raw, std)
	}
	back, _, err := config.InForce(lb.Defaults(), raw)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, cfg) {
		t.Fatalf("read back %+v\nwant %+v", back, cfg)
	}
	if _, _, err := config.InForce(lb.Defaults(), []byte(`{"NoSuchKey":1}`)); err == nil {
		t.Fatal("a kept configuration with an unknown key was read")
	}
}
