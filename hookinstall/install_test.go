package hookinstall_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/hook"
)

// handlerRef is one handler of a settings document, where it sits.
type handlerRef struct {
	Event   string
	Group   int
	Matcher string
	Command string
}

type settingsDoc struct {
	keys     []string
	semantic map[string]any
	handlers []handlerRef
}

func readSettings(t *testing.T, data []byte) settingsDoc {
	t.Helper()
	var d settingsDoc
	if err := json.Unmarshal(data, &d.semantic); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, data)
	}
	d.keys = keysInOrder(t, data)
	hooks, _ := d.semantic["hooks"].(map[string]any)
	events := []string{}
	if raw, ok := rawMembers(t, data)["hooks"]; ok {
		events = keysInOrder(t, raw)
	}
	for _, ev := range events {
		groups, ok := hooks[ev].([]any)
		if !ok {
			continue
		}
		for gi, g := range groups {
			gm, _ := g.(map[string]any)
			matcher, _ := gm["matcher"].(string)
			hs, _ := gm["hooks"].([]any)
			for _, h := range hs {
				hm, _ := h.(map[string]any)
				cmd, _ := hm["command"].(string)
				d.handlers = append(d.handlers, handlerRef{ev, gi, matcher, cmd})
			}
		}
	}
	return d
}

func (d settingsDoc) without(key string) map[string]any {
	m := map[string]any{}
	for k, v := range d.semantic {
		if k != key {
			m[k] = v
		}
	}
	return m
}

const testCommand = "/opt/lb/bin/loopbreaker hook "

var settingsFixtures = []struct {
	tool hook.Tool
	file string
}{
	{"claude", "claude/settings-existing.json"},
	{"claude", "claude/settings-with-loopbreaker.json"},
	{"codex", "codex/hooks-existing.json"},
	{"gemini", "gemini/settings-existing.json"},
	{"gemini", "gemini/settings-legacy.json"},
}

func TestInstallMergesIntoExistingSettings(t *testing.T) {
	for _, f := range settingsFixtures {
		t.Run(f.file, func(t *testing.T) {
			orig, err := os.ReadFile(filepath.Join("testdata", f.file))
			if err != nil {
				t.Fatal(err)
			}
			cmd := testCommand + string(f.tool)
			out, changes, err := Install(f.tool, orig, cmd)
			if err != nil {
				t.Fatal(err)
			}
			if len(changes) == 0 {
				t.Fatal("no changes")
			}
			before, after := readSettings(t, orig), readSettings(t, out)

			// Everything but hooks is untouched, in the same order.
			if !slices.Equal(before.keys, after.keys) && !slices.Equal(append(before.keys, "hooks"), after.keys) {
				t.Errorf("top-level keys %q became %q", before.keys, after.keys)
			}
			if !reflect.DeepEqual(before.without("hooks"), after.without("hooks")) {
				t.Error("a key other than hooks changed")
			}
			// Every handler that is not loopbreaker's is still there, in
			// its event, group and matcher.
			var others []handlerRef
			for _, h := range before.handlers {
				if !hook.IsOurs(f.tool, h.Command, cmd) {
					others = append(others, h)
				}
			}
			var kept []handlerRef
			ours := map[string][]handlerRef{}
			for _, h := range after.handlers {
				if hook.IsOurs(f.tool, h.Command, cmd) {
					ours[h.Event] = append(ours[h.Event], h)
				} else {
					kept = append(kept, h)
				}
			}
			if !reflect.DeepEqual(others, kept) {
				t.Errorf("other hooks changed:\nbefore %+v\n after %+v", others, kept)
			}
			// Ours: exactly once per event, with the current command.
			for _, e := range Entries(f.tool) {
				hs := ours[e.Event]
				if len(hs) != 1 || hs[0].Command != cmd {
					t.Errorf("%s: our handlers %+v", e.Event, hs)
				}
			}
			if len(ours) != len(Entries(f.tool)) {
				t.Errorf("ours in %d events, want %d", len(ours), len(Entries(f.tool)))
			}
			// Non-event keys of legacy Gemini layouts are kept as they were.
			if f.file == "gemini/settings-legacy.json" {
				h := after.semantic["hooks"].(map[string]any)
				if h["enabled"] != true || !reflect.DeepEqual(h["disabled"], []any{"notify-desktop"}) {
					t.Errorf("legacy keys changed: %v %v", h["enabled"], h["disabled"])
				}
			}

			// Idempotent: a second install changes nothing, byte for byte.
			again, changes2, err := Install(f.tool, out, cmd)
			if err != nil || len(changes2) != 0 || !bytes.Equal(again, out) {
				t.Errorf("second install: %v, changes %v, identical %v", err, changes2, bytes.Equal(again, out))
			}

			// Uninstall removes exactly ours.
			un, uchanges, err := Uninstall(f.tool, out, cmd)
			if err != nil || len(uchanges) == 0 {
				t.Fatalf("uninstall: %v %v", err, uchanges)
			}
			u := readSettings(t, un)
			for _, h := range u.handlers {
				if hook.IsOurs(f.tool, h.Command, cmd) {
					t.Errorf("left behind: %+v", h)
				}
			}
			if !reflect.DeepEqual(u.without("hooks"), before.without("hooks")) {
				t.Error("uninstall changed a key other than hooks")
			}
			var remaining []handlerRef
			for _, h := range u.handlers {
				remaining = append(remaining, h)
			}
			if !reflect.DeepEqual(remaining, others) {
				t.Errorf("after uninstall\n got %+v\nwant %+v", remaining, others)
			}
			if f.file != "claude/settings-with-loopbreaker.json" {
				// Nothing of ours was there before: uninstall restores the
				// original, here even byte for byte.
				if !reflect.DeepEqual(u.semantic, before.semantic) {
					t.Errorf("uninstall did not restore the original:\n%s", un)
				}
				if !bytes.Equal(un, orig) {
					t.Errorf("uninstall restored the meaning but not the bytes:\n%s", un)
				}
			}
			if again, ch, _ := Uninstall(f.tool, un, cmd); len(ch) != 0 || !bytes.Equal(again, un) {
				t.Errorf("second uninstall changed %v", ch)
			}
		})
	}
}

// An older install under another path is updated in place — also inside
// a group it shares with a user's hook — not duplicated.
func TestInstallUpgradesAnOlderInstall(t *testing.T) {
	orig, _ := os.ReadFile("testdata/claude/settings-with-loopbreaker.json")
	out, changes, err := Install("claude", orig, testCommand+"claude")
	if err != nil {
		t.Fatal(err)
	}
	var updated, added []string
	for _, c := range changes {
		switch c.Action {
		case "updated":
			updated = append(updated, c.Event)
		case "added":
			added = append(added, c.Event)
		}
	}
	if !slices.Equal(updated, []string{"PreToolUse", "PostToolUse", "Stop"}) ||
		!slices.Equal(added, []string{"PostToolUseFailure", "UserPromptSubmit", "SessionStart"}) {
		t.Errorf("updated %q added %q", updated, added)
	}
	d := readSettings(t, out)
	var post []handlerRef
	for _, h := range d.handlers {
		if h.Event == "PostToolUse" {
			post = append(post, h)
		}
	}
	want := []handlerRef{
		{"PostToolUse", 0, "*", testCommand + "claude"},
		{"PostToolUse", 0, "*", "~/.claude/hooks/audit-log.sh"},
	}
	if !reflect.DeepEqual(post, want) {
		t.Errorf("shared group: %+v", post)
	}
	if strings.Contains(string(out), "/usr/local/bin/loopbreaker") || !strings.Contains(string(out), `"timeout": 10`) {
		t.Errorf("old handler kept:\n%s", out)
	}
	// Uninstalling the old install keeps the user's hook of the shared group.
	un, _, err := Uninstall("claude", orig, "")
	if err != nil {
		t.Fatal(err)
	}
	u := readSettings(t, un)
	want = []handlerRef{
		{"PreToolUse", 0, "Bash", `"$CLAUDE_PROJECT_DIR"/.claude/hooks/block-rm.sh`},
		{"PostToolUse", 0, "*", "~/.claude/hooks/audit-log.sh"},
	}
	if !reflect.DeepEqual(u.handlers, want) {
		t.Errorf("after uninstall: %+v", u.handlers)
	}
	if _, ok := u.semantic["hooks"].(map[string]any)["Stop"]; ok {
		t.Error("the Stop list emptied by uninstall is still there")
	}
}

func TestInstallFreshAndOddLayouts(t *testing.T) {
	cmd := testCommand + "gemini"
	for _, tt := range []struct {
		name string
		in   string
	}{
		{"no file", ""},
		{"empty object", "{}"},
		{"one line", `{"ui": {"theme": "GitHub"}, "hooks": {"AfterTool": [{"matcher": "x", "hooks": [{"type": "command", "command": "fmt"}]}]}}`},
		{"tabs", "{\n\t\"ui\": {\n\t\t\"theme\": \"GitHub\"\n\t}\n}\n"},
		{"empty hooks", "{\n  \"hooks\": {}\n}\n"},
		{"hooks first", "{\n  \"hooks\": {\n    \"SessionStart\": []\n  },\n  \"ui\": {}\n}\n"},
		{"only ours in an old event", `{"hooks": {"SessionEnd": [{"hooks": [{"type": "command", "command": "loopbreaker hook gemini"}]}]}}`},
		{"duplicate ours", `{"hooks": {"AfterTool": [{"hooks": [{"command": "loopbreaker hook gemini"}, {"command": "/x/loopbreaker hook gemini"}]}]}}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			out, _, err := Install("gemini", []byte(tt.in), cmd)
			if err != nil {
				t.Fatal(err)
			}
			d := readSettings(t, out)
			count := map[string]int{}
			for _, h := range d.handlers {
				if hook.IsOurs("gemini", h.Command, cmd) {
					count[h.Event]++
				}
			}
			for _, e := range Entries("gemini") {
				if count[e.Event] != 1 {
					t.Errorf("%s: %d of ours", e.Event, count[e.Event])
				}
			}
			if len(count) != len(Entries("gemini")) {
				t.Errorf("ours in %v", count)
			}
			if tt.name == "tabs" && !strings.Contains(string(out), "\n\t\"hooks\": {\n\t\t\"BeforeTool\": [") {
				t.Errorf("tab layout not followed:\n%s", out)
			}
			if again, ch, _ := Install("gemini", out, cmd); len(ch) != 0 || !bytes.Equal(again, out) {
				t.Errorf("not idempotent: %v\n%s\n%s", ch, out, again)
			}
			un, _, err := Uninstall("gemini", out, cmd)
			if err != nil {
				t.Fatal(err)
			}
			var got map[string]any
			json.Unmarshal(un, &got)
			if (tt.name == "no file" || tt.name == "empty object") && len(got) != 0 {
				t.Errorf("uninstall of a fresh install left %s", un)
			}
		})
	}
}

// Uninstall leaves structures alone that held nothing of loopbreaker's,
// empty ones included; it drops only what its removals empty.
func TestUninstallKeepsEmptyStructures(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"{\n  \"hooks\": {}\n}\n", "{\n  \"hooks\": {}\n}\n"},
		{"{\n  \"hooks\": {\n    \"Stop\": [],\n    \"PreToolUse\": [{\"hooks\": [{\"command\": \"loopbreaker hook claude\"}]}]\n  },\n  \"x\": {}\n}\n",
			"{\n  \"hooks\": {\n    \"Stop\": []\n  },\n  \"x\": {}\n}\n"},
		{"{\n  \"hooks\": {\n    \"PreToolUse\": [{\"hooks\": []}, {\"hooks\": [{\"command\": \"loopbreaker hook claude\"}]}]\n  }\n}\n",
			"{\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\n        \"hooks\": []\n      }\n    ]\n  }\n}\n"},
		{"{\"a\": 1, \"hooks\": {\"Stop\": [{\"hooks\": [{\"command\": \"loopbreaker hook claude\"}]}]}}\n", "{\"a\": 1}\n"},
		{"{\"hooks\": {\"Stop\": [{\"hooks\": [{\"command\": \"loopbreaker hook claude\"}]}]}, \"a\": 1}\n", "{\"a\": 1}\n"},
	} {
		out, _, err := Uninstall("claude", []byte(tt.in), "")
		if err != nil {
			t.Fatal(err)
		}
		if string(out) != tt.want {
			t.Errorf("uninstall of\n%s\n got %s\nwant %s", tt.in, out, tt.want)
		}
	}
}

func TestInstallRefusesWhatItCannotEdit(t *testing.T) {
	for _, in := range []string{`{"hooks": [1]}`, `{"a": 1,}`, `[]`, `{"a": 1} {"b": 2}`, `// comment` + "\n{}"} {
		if _, _, err := Install("claude", []byte(in), "loopbreaker hook claude"); err == nil {
			t.Errorf("%s: no error", in)
		}
	}
}

func TestIsOurs(t *testing.T) {
	for _, tt := range []struct {
		cmd  string
		want bool
	}{
		{"loopbreaker hook claude", true},
		{"/usr/local/bin/loopbreaker hook claude", true},
		{"'/Users/me/my tools/loopbreaker' hook claude", true},
		{`"C:\Program Files\lb\loopbreaker.exe" hook claude`, true},
		{"loopbreaker hook claude --session s1", true},
		{"/opt/wrap.sh hook claude", true}, // the command being installed
		{"loopbreaker hook codex", false},
		{"loopbreaker hook install claude", false},
		{"notloopbreaker hook claude", false},
		{"echo loopbreaker hook claude", false},
		{"python3 ~/.claude/hooks/protect_generated.py", false},
	} {
		if got := hook.IsOurs("claude", tt.cmd, "/opt/wrap.sh hook claude"); got != tt.want {
			t.Errorf("IsOurs(%q) = %v, want %v", tt.cmd, got, tt.want)
		}
	}
	if got := hook.PlainCommand("/Users/me/my tools/loopbreaker", "codex"); got != "'/Users/me/my tools/loopbreaker' hook codex" {
		t.Errorf("PlainCommand = %s", got)
	}
	if got := hook.Command("/Users/me/my tools/loopbreaker", "codex"); !strings.HasPrefix(got, "[ -x '/Users/me/my tools/loopbreaker' ] && exec '/Users/me/my tools/loopbreaker' hook codex || {") {
		t.Errorf("Command = %s", got)
	}
}

func TestInstallFile(t *testing.T) {
	dir := t.TempDir()
	orig, _ := os.ReadFile("testdata/claude/settings-existing.json")
	// A dotfiles setup: settings.json is a symlink into a repository.
	target := filepath.Join(dir, "dotfiles", "claude-settings.json")
	os.MkdirAll(filepath.Dir(target), 0o755)
	if err := os.WriteFile(target, orig, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "home", ".claude", "settings.json")
	os.MkdirAll(filepath.Dir(link), 0o755)
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	cmd := testCommand + "claude"
	res, err := InstallFile("claude", link, cmd)
	if err != nil {
		t.Fatal(err)
	}
	if res.Path != target || res.Backup != target+hook.BackupSuffix || res.Created || len(res.Changes) != 6 {
		t.Errorf("result %+v", res)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Error("the symlink was replaced")
	}
	if b, _ := os.ReadFile(res.Backup); !bytes.Equal(b, orig) {
		t.Error("the backup does not hold the previous content")
	}
	if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600 kept", fi.Mode().Perm())
	}
	installed, _ := os.ReadFile(target)
	if !strings.Contains(string(installed), cmd) {
		t.Fatal("not installed")
	}
	leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(target), ".*tmp*"))
	if len(leftovers) > 0 {
		t.Errorf("temporary files left: %q", leftovers)
	}

	// Again: nothing written, the backup still holds the original.
	res, err = InstallFile("claude", link, cmd)
	if err != nil || len(res.Changes) != 0 || res.BackupWritten {
		t.Errorf("second install: %+v %v", res, err)
	}
	if b, _ := os.ReadFile(target + hook.BackupSuffix); !bytes.Equal(b, orig) {
		t.Error("a no-op install overwrote the backup")
	}

	res, err = UninstallFile("claude", link, cmd)
	if err != nil || len(res.Changes) != 6 {
		t.Fatalf("uninstall: %+v %v", res, err)
	}
	if b, _ := os.ReadFile(target); !bytes.Equal(b, orig) {
		t.Errorf("uninstall did not restore the file:\n%s", b)
	}
	if _, err := os.Stat(target + hook.BackupSuffix); err == nil {
		t.Error("uninstall left the backup behind")
	}

	// A new file in a new directory; uninstalling a missing file is a no-op.
	fresh := filepath.Join(dir, "proj", ".gemini", "settings.json")
	res, err = InstallFile("gemini", fresh, testCommand+"gemini")
	if err != nil || !res.Created || res.Backup != "" {
		t.Fatalf("fresh: %+v %v", res, err)
	}
	if _, err := os.Stat(fresh + hook.BackupSuffix); err == nil {
		t.Error("a backup of nothing was written")
	}
	res, err = UninstallFile("codex", filepath.Join(dir, "none", "hooks.json"), "")
	if err != nil || len(res.Changes) != 0 {
		t.Errorf("missing file: %+v %v", res, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "none")); err == nil {
		t.Error("uninstall created a directory")
	}
}

func TestWarnings(t *testing.T) {
	if w := Warnings("claude", []byte(`{"disableAllHooks": true}`)); len(w) != 1 || !strings.Contains(w[0], "disableAllHooks") {
		t.Errorf("claude: %q", w)
	}
	if w := Warnings("claude", []byte(`{"disableAllHooks": false}`)); len(w) != 0 {
		t.Errorf("claude: %q", w)
	}
	if w := Warnings("gemini", []byte(`{"hooksConfig": {"enabled": false, "disabled": ["loopbreaker"]}}`)); len(w) != 2 {
		t.Errorf("gemini: %q", w)
	}
	if w := Warnings("gemini", []byte(`{"tools": {"enableHooks": false}, "hooks": {"disabled": ["loopbreaker"]}}`)); len(w) != 2 {
		t.Errorf("gemini legacy: %q", w)
	}
	for _, f := range []string{"gemini/settings-existing.json", "gemini/settings-legacy.json", "claude/settings-existing.json"} {
		b, _ := os.ReadFile(filepath.Join("testdata", f))
		if w := Warnings(hook.Tool(strings.Split(f, "/")[0]), b); len(w) != 0 {
			t.Errorf("%s: %q", f, w)
		}
	}

	dir := t.TempDir()
	cfg, _ := os.ReadFile("testdata/codex/config-existing.toml")
	os.WriteFile(filepath.Join(dir, "config.toml"), cfg, 0o644)
	if w := CodexConfigWarnings(dir); len(w) != 1 || !strings.Contains(w[0], "inline") {
		t.Errorf("codex: %q", w)
	}
	os.WriteFile(filepath.Join(dir, "config.toml"), []byte("model = \"x\"\n[features]\nhooks = false # off for now\n"), 0o644)
	if w := CodexConfigWarnings(dir); len(w) != 1 || !strings.Contains(w[0], "hooks = false") {
		t.Errorf("codex off: %q", w)
	}
	if w := CodexConfigWarnings(t.TempDir()); len(w) != 0 {
		t.Errorf("no config: %q", w)
	}
}

func TestSettingsPath(t *testing.T) {
	env := map[string]string{"HOME": "/home/u"}
	getenv := func(k string) string { return env[k] }
	for _, tt := range []struct {
		tool hook.Tool
		user bool
		want string
	}{
		{"claude", false, "/p/.claude/settings.json"},
		{"claude", true, "/home/u/.claude/settings.json"},
		{"codex", false, "/p/.codex/hooks.json"},
		{"codex", true, "/home/u/.codex/hooks.json"},
		{"gemini", false, "/p/.gemini/settings.json"},
		{"gemini", true, "/home/u/.gemini/settings.json"},
	} {
		if got, err := settingsPath(tt.tool, tt.user, "/p", getenv); err != nil || got != tt.want {
			t.Errorf("%s user=%v: %s %v, want %s", tt.tool, tt.user, got, err, tt.want)
		}
	}
	env["CODEX_HOME"] = "/cx"
	if got, _ := settingsPath("codex", true, "/p", getenv); got != "/cx/hooks.json" {
		t.Errorf("CODEX_HOME: %s", got)
	}
}

// keysInOrder are the keys of the JSON object data, in file order.
func keysInOrder(t *testing.T, data []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("not a JSON object: %s", data)
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	return keys
}

// rawMembers are the members of the JSON object data, as written.
func rawMembers(t *testing.T, data []byte) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// sameJSON compares two documents as JSON values.
func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}
