package codex

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/hook"
	"github.com/loopbreaker/loopbreaker/hookinstall"
)

// realCodex is the pinned New() CLI the end-to-end tier installs, or the
// test is skipped with the reason.
func realCodex(t *testing.T) string {
	t.Helper()
	home, _ := os.UserHomeDir()
	p := filepath.Join(home, ".cache", "loopbreaker", "agents", "codex-0.169.0", "node_modules", ".bin", "codex")
	if _, err := os.Stat(p); err != nil {
		t.Skipf("the real New() CLI 0.169.0 is not installed at %s (the end-to-end tier installs it): %v", p, err)
	}
	return p
}

func codexEnv(codexHome string) []string {
	return []string{"CODEX_HOME=" + codexHome, "HOME=" + codexHome, "PATH=/usr/bin:/bin", "RUST_LOG=error"}
}

// Against the real New(): the hooks install writes are untrusted (New()
// would skip them), TrustHooks saves their trust through the
// app-server so that hooks/list reports them trusted, for a project
// install (with the project marked trusted) and a user install.
func TestTrustCodexHooksWithTheRealCodex(t *testing.T) {
	codex := realCodex(t)
	ctx := context.Background()
	root := t.TempDir()
	codexHome := filepath.Join(root, "codex-home")
	project := filepath.Join(root, "repo")
	os.MkdirAll(codexHome, 0o755)
	os.MkdirAll(project, 0o755)
	command := hook.Command("/opt/lb/loopbreaker", New().Name())

	file, _ := New().SettingsPath(false, project, nil)
	if _, err := hookinstall.EditUserFile(New().Format(), file, command, &hookinstall.Options{}); err != nil {
		t.Fatal(err)
	}
	o := TrustOptions{Program: codex, Environ: codexEnv(codexHome), Dir: project, File: file, Command: command}

	// Not trusted project: New() does not even load the file.
	ro := o
	ro.ReadOnly = true
	got, err := TrustHooks(ctx, ro)
	if err != nil {
		t.Fatal(err)
	}
	if !got.NotListed || got.AllTrusted() {
		t.Fatalf("untrusted project: %+v", got)
	}

	o.TrustProject = true
	got, err = TrustHooks(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if !got.ProjectTrusted || got.Trusted != 5 || !got.AllTrusted() || len(got.Hooks) != 5 {
		t.Fatalf("after trust: %+v", got)
	}
	cfg, _ := os.ReadFile(filepath.Join(codexHome, "config.toml"))
	if !strings.Contains(string(cfg), `trust_level = "trusted"`) || strings.Count(string(cfg), "trusted_hash") != 5 {
		t.Errorf("config.toml:\n%s", cfg)
	}
	// Checked independently: a read-only listing says trusted.
	got, err = TrustHooks(ctx, ro)
	if err != nil || !got.AllTrusted() || got.Trusted != 0 {
		t.Fatalf("listing after trust: %+v %v", got, err)
	}

	// User level: CODEX_HOME/hooks.json.
	userFile, _ := New().SettingsPath(true, "", func(k string) string {
		if k == "CODEX_HOME" {
			return codexHome
		}
		return ""
	})
	if _, err := hookinstall.EditUserFile(New().Format(), userFile, command, &hookinstall.Options{}); err != nil {
		t.Fatal(err)
	}
	uo := TrustOptions{Program: codex, Environ: codexEnv(codexHome), Dir: root, File: userFile, Command: command}
	got, err = TrustHooks(ctx, uo)
	if err != nil || !got.AllTrusted() || got.Trusted != 5 {
		t.Fatalf("user level: %+v %v", got, err)
	}
}

func TestTrustCodexHooksSaysWhatWentWrong(t *testing.T) {
	_, err := TrustHooks(context.Background(), TrustOptions{Program: filepath.Join(t.TempDir(), "codex")})
	if err == nil || !strings.Contains(err.Error(), "app-server") {
		t.Errorf("missing codex: %v", err)
	}
	// A program that is not an app-server.
	fake := filepath.Join(t.TempDir(), "codex")
	os.WriteFile(fake, []byte("#!/bin/sh\necho 'error: unknown subcommand app-server' >&2\nexit 2\n"), 0o755)
	_, err = TrustHooks(context.Background(), TrustOptions{Program: fake})
	if err == nil || !strings.Contains(err.Error(), "unknown subcommand") {
		t.Errorf("not an app-server: %v", err)
	}
}
