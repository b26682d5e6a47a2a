package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/tamper"
)

// The fingerprint is the one encoding/json's bytes give: breakers hold
// fingerprints made that way, and a different value for the same
// configuration and hook settings would count as a change that got past
// the hook.
func TestGuardFingerprintIsTheHashOfEncodingJSON(t *testing.T) {
	project, home := t.TempDir(), t.TempDir()
	for path, content := range map[string]string{
		filepath.Join(project, ".claude", "settings.json"): `{"permissions":{"allow":["Bash(go test:*)"]},"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"/usr/local/bin/loopbreaker hook claude"}]}],"Stop":[{"hooks":[{"type":"command","command":"loopbreaker hook claude"}]}]}}`,
		filepath.Join(home, ".gemini", "settings.json"):    `{"hooks":{"AfterTool":[{"hooks":[{"type":"command","command":"loopbreaker hook gemini"}]}]}}`,
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
	env := &Env{Environ: []string{"HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, ".config")}}
	w := &workspace{project: project, cfg: cfg}

	doc := fingerprintOf(env, w)
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
	if got := guardFingerprint(env, w); got != want || len(want) != 12 {
		t.Fatalf("guardFingerprint = %q, want %q (sha256 of encoding/json's bytes)", got, want)
	}
	w.cfg.Cooldown++
	if guardFingerprint(env, w) == want {
		t.Fatal("another configuration, the same fingerprint")
	}
}

// The agent may not write the hook settings a variable of the agent CLI
// points at, outside the project and the home directory: each of them
// can run more code inside the CLI.
func TestGuardProtectsSettingsNamedByVariables(t *testing.T) {
	project, home, elsewhere := t.TempDir(), t.TempDir(), t.TempDir()
	env := &Env{Environ: []string{
		"HOME=" + home,
		"OPENCODE_CONFIG=" + filepath.Join(elsewhere, "team.json"),
		"COPILOT_HOME=" + filepath.Join(elsewhere, "copilot"),
		"PI_CODING_AGENT_DIR=" + filepath.Join(elsewhere, "pi"),
	}}
	w := &workspace{project: project, cfg: lb.Defaults()}
	guard := hookGuard(env, w)
	for _, path := range []string{
		filepath.Join(elsewhere, "team.json"),
		filepath.Join(elsewhere, "copilot", "hooks", "undo.json"),
		filepath.Join(elsewhere, "pi", "extensions", "undo.js"),
	} {
		got := tamper.Check(tamper.Call{Cwd: project, Writes: []string{path}}, guard.Protected)
		if len(got) == 0 || got[0].Kind != tamper.KindHooks {
			t.Errorf("a write of %s: findings %v, want the hook settings refused", path, got)
		}
	}
	if got := tamper.Check(tamper.Call{Cwd: project, Writes: []string{filepath.Join(elsewhere, "notes.md")}}, guard.Protected); len(got) > 0 {
		t.Errorf("a write beside them: refused as %v", got)
	}
}
