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

// Against the real New(): uninstalling takes back what the install added
// to config.toml, only that. The hooks' trust goes; the project's trust
// goes when the install added it, and stays when the person had given it;
// the rest of config.toml (another project, a setting) stays.
func TestUntrustCodexHooksWithTheRealCodex(t *testing.T) {
	codex := realCodex(t)
	ctx := context.Background()
	for _, trustedBefore := range []bool{false, true} {
		root := t.TempDir()
		codexHome := filepath.Join(root, "codex-home")
		project := filepath.Join(root, "repo")
		os.MkdirAll(codexHome, 0o755)
		os.MkdirAll(project, 0o755)
		dir := hookinstall.CanonicalPath(project)
		cfgFile := filepath.Join(codexHome, "config.toml")
		before := "model = \"gpt-test\"\n\n[projects.\"/elsewhere\"]\ntrust_level = \"trusted\"\n"
		if trustedBefore {
			before += "\n[projects." + tomlKey(dir) + "]\ntrust_level = \"trusted\"\n"
		}
		if err := os.WriteFile(cfgFile, []byte(before), 0o600); err != nil {
			t.Fatal(err)
		}
		command := hook.Command("/opt/lb/loopbreaker", New().Name())
		file, _ := New().SettingsPath(false, project, nil)
		if _, err := hookinstall.EditUserFile(New().Format(), file, command, &hookinstall.Options{}); err != nil {
			t.Fatal(err)
		}
		o := TrustOptions{Program: codex, Environ: codexEnv(codexHome), Dir: project, File: file, Command: command,
			TrustProject: true, ConfigFile: cfgFile}
		got, err := TrustHooks(ctx, o)
		if err != nil || !got.AllTrusted() || got.ProjectTrusted == trustedBefore {
			t.Fatalf("trusted before %v: install's trust %+v %v", trustedBefore, got, err)
		}

		u, err := UntrustHooks(ctx, o)
		if err != nil || u.Hooks != 5 || u.Project == trustedBefore {
			t.Fatalf("trusted before %v: untrust %+v %v", trustedBefore, u, err)
		}
		if _, err := hookinstall.EditUserFile(New().Format(), file, command, nil); err != nil {
			t.Fatal(err)
		}
		cfg, _ := os.ReadFile(cfgFile)
		text := string(cfg)
		if strings.Contains(text, "trusted_hash") || strings.Contains(text, "hooks.state") {
			t.Errorf("trusted before %v: the hooks' trust is left:\n%s", trustedBefore, text)
		}
		if got := projectTrusted(cfgFile, dir); got != trustedBefore {
			t.Errorf("trusted before %v: the project is trusted after uninstall: %v\n%s", trustedBefore, got, text)
		}
		if !projectTrusted(cfgFile, "/elsewhere") || !strings.Contains(text, `model = "gpt-test"`) {
			t.Errorf("trusted before %v: the rest of config.toml changed:\n%s", trustedBefore, text)
		}
		if _, err := os.Stat(trustRecord(cfgFile)); !os.IsNotExist(err) {
			t.Errorf("trusted before %v: the record of added trust is left: %v", trustedBefore, err)
		}
	}
}
