package hookpolicy

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/agent/claude"
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
	cfg := lb.Defaults()
	cfg.Scope.Deny = []string{"<secrets & keys>/**", "é\u2028"}
	cfg.Breakers = []lb.BreakerConfig{{Scope: "stakes:high", FailureThreshold: 3}}
	cfg.Notify.WebhookURL = "https://example.invalid/hook?a=1&b=2"
	getenv := func(k string) string { return map[string]string{"HOME": home}[k] }
	in := GuardInput{Agent: claude.New(), Project: project, Home: home, Getenv: getenv, Settings: cfg}

	doc := fingerprintOf(in)
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
	if got := NewGuard(in).Fingerprint; got != "claude="+want || len(want) != 12 {
		t.Fatalf("the fingerprint is %q, want %q (sha256 of encoding/json's bytes)", got, want)
	}
	cfg.Cooldown++
	in.Settings = cfg
	if NewGuard(in).Fingerprint == "claude="+want {
		t.Fatal("another configuration, the same fingerprint")
	}
}
