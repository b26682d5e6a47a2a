package hookinstall_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/hookinstall"
)

// pinnedFormat is a managed settings file of Claude Code's shape with one
// pin, as an agent package gives it.
func pinnedFormat() *hookinstall.Format {
	return &hookinstall.Format{
		Tool:    "claude",
		Entries: []hookinstall.Entry{{Event: "PreToolUse", Matcher: "*"}, {Event: "Stop"}},
		Command: hookinstall.GuardedCommand("claude"),
		Handler: hookinstall.StandardHandler("", 10),
		Pins:    []hookinstall.Pin{{Key: "allowManagedHooksOnly", Value: json.RawMessage("true")}},
	}
}

// The pins go in with the hooks and out with them: a file the install
// created is gone after the uninstall, and one that held the pin before
// gets its bytes back.
func TestPinsComeAndGoWithTheHooks(t *testing.T) {
	f := pinnedFormat()
	dir := t.TempDir()
	path := filepath.Join(dir, "etc", "claude-code", "managed-settings.json")
	res, err := hookinstall.EditUserFile(f, path, f.Command("/usr/local/bin/loopbreaker", ""), &hookinstall.Options{})
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil || doc["allowManagedHooksOnly"] != true || doc["hooks"] == nil {
		t.Fatalf("installed %s (%v), want the hooks and allowManagedHooksOnly: true", data, err)
	}
	if got := changeList(res.Changes); !strings.Contains(got, "added allowManagedHooksOnly = true") {
		t.Errorf("changes %s do not name the pin", got)
	}
	if missing := hookinstall.PinsHeld(f.Pins, data); len(missing) != 0 {
		t.Errorf("PinsHeld after install: missing %v", missing)
	}
	res, err = hookinstall.EditUserFile(f, path, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Removed {
		t.Fatalf("uninstall of a file the install created: %+v, want it removed", res)
	}

	// An administrator's file that holds the pin already, and more.
	before := "{\n  \"allowManagedHooksOnly\": true,\n  \"permissions\": {\"deny\": [\"WebFetch\"]}\n}\n"
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(path, []byte(before), 0o644)
	if _, err := hookinstall.EditUserFile(f, path, f.Command("/usr/local/bin/loopbreaker", ""), &hookinstall.Options{}); err != nil {
		t.Fatal(err)
	}
	if res, err = hookinstall.EditUserFile(f, path, "", nil); err != nil || !res.Restored {
		t.Fatalf("uninstall: %+v, %v; want the administrator's file restored", res, err)
	}
	if got, _ := os.ReadFile(path); string(got) != before {
		t.Errorf("after uninstall:\n%s\nwant the bytes from before:\n%s", got, before)
	}
}

// A pin with another value is set, and an uninstall of a file without
// loopbreaker's hooks leaves the pin alone: it is the administrator's.
func TestPinsOverrideAndStay(t *testing.T) {
	f := pinnedFormat()
	out, changes, err := hookinstall.Merge(f, []byte(`{"allowManagedHooksOnly": false}`), f.Command("/lb", ""), &hookinstall.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(changeList(changes), "updated allowManagedHooksOnly = true") || len(hookinstall.PinsHeld(f.Pins, out)) != 0 {
		t.Errorf("install over false: %s (%s), want the pin set to true", out, changeList(changes))
	}
	admin := []byte(`{"allowManagedHooksOnly": true}`)
	out, changes, err = hookinstall.Merge(f, admin, "", nil)
	if err != nil || len(changes) != 0 || string(out) != string(admin) {
		t.Errorf("uninstall without hooks: %s, %v, %v; want nothing changed", out, changes, err)
	}
	if missing := hookinstall.PinsHeld(f.Pins, []byte(`{"hooks": {}}`)); len(missing) != 1 {
		t.Errorf("PinsHeld of a file without the pin: %v, want it missing", missing)
	}
}

func changeList(cs []hookinstall.Change) string {
	var s []string
	for _, c := range cs {
		s = append(s, c.String())
	}
	return strings.Join(s, "; ")
}
