package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// A Cache gives what Load gives, and sees at the next Load every change
// of what Load reads: the project file edited (same size, same time),
// deleted, made again; the user file created; a variable set; a flag.
func TestCacheSeesEveryChange(t *testing.T) {
	proj, user := t.TempDir(), t.TempDir()
	opts := Options{ProjectDir: proj, UserConfigDir: user}
	file := filepath.Join(proj, ProjectFile)
	writeFile(t, file, "no_progress:\n  threshold: 4\n")
	stamp := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	os.Chtimes(file, stamp, stamp)
	var c Cache
	check := func(step string, o Options, want string) {
		t.Helper()
		got, err := c.Load(o)
		if err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		plain := mustLoad(t, o)
		if !reflect.DeepEqual(got.Config, plain.Config) || !reflect.DeepEqual(got.Sources, plain.Sources) {
			t.Fatalf("%s: the cache's configuration differs from Load's", step)
		}
		if v := valueOf(t, got, "no_progress.threshold"); v != want {
			t.Fatalf("%s: no_progress.threshold = %s, want %s", step, v, want)
		}
	}
	check("first", opts, "4")
	check("again", opts, "4")
	// The same size and modification time: only the bytes tell.
	writeFile(t, file, "no_progress:\n  threshold: 6\n")
	os.Chtimes(file, stamp, stamp)
	check("edited", opts, "6")
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	check("deleted", opts, "3")
	writeFile(t, filepath.Join(user, "loopbreaker", "config.yaml"), "no_progress:\n  threshold: 7\n")
	check("user file", opts, "7")
	writeFile(t, file, "no_progress:\n  threshold: 5\n")
	check("project file again", opts, "5")
	env := opts
	env.Env = []string{"LOOPBREAKER_NO_PROGRESS_THRESHOLD=8"}
	check("variable", env, "8")
	env.Env = []string{"CB_NO_PROGRESS_THRESHOLD=9"}
	check("Ralph's variable", env, "9")
	flags := opts
	flags.Flags = map[string]string{"no_progress.threshold": "10"}
	check("flag", flags, "10")
	check("without", opts, "5")
}

// A Load that fails is never kept, and the cache says why each time.
func TestCacheKeepsNoFailure(t *testing.T) {
	proj := t.TempDir()
	opts := Options{ProjectDir: proj, UserConfigDir: t.TempDir()}
	file := filepath.Join(proj, ProjectFile)
	writeFile(t, file, "no_progress:\n  threshold: nope\n")
	var c Cache
	for i := 0; i < 2; i++ {
		if _, err := c.Load(opts); err == nil || !strings.Contains(err.Error(), "threshold") {
			t.Fatalf("load %d: %v, want the bad threshold named", i, err)
		}
	}
	writeFile(t, file, "no_progress:\n  threshold: 4\n")
	if l, err := c.Load(opts); err != nil || l.Config.NoProgress.Threshold != 4 {
		t.Fatalf("fixed: %v", err)
	}
	env := opts
	env.Env = []string{"LOOPBREAKER_NO_SUCH_KEY=1"}
	if _, err := c.Load(env); err == nil {
		t.Fatal("an unknown variable was accepted from the cache")
	}
}

// What a Cache hands out is the caller's: changing its lists and maps
// changes nothing the next Load gives.
func TestCacheHandsOutCopies(t *testing.T) {
	opts := Options{ProjectDir: t.TempDir(), UserConfigDir: t.TempDir()}
	writeFile(t, filepath.Join(opts.ProjectDir, ProjectFile), "scope:\n  allow: [src/**]\n")
	var c Cache
	first, err := c.Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	first.Config.Scope.Allow[0] = "changed"
	for p := range first.Config.Phases {
		delete(first.Config.Phases, p)
	}
	first.Config.Prices[0].Model = "changed"
	first.Sources["scope.allow"] = Source{Kind: KindFlag}
	second, err := c.Load(opts)
	if err != nil {
		t.Fatal(err)
	}
	want := mustLoad(t, opts)
	if !reflect.DeepEqual(second.Config, want.Config) || !reflect.DeepEqual(second.Sources, want.Sources) {
		t.Fatalf("a change to a configuration handed out reached the cache: allow %v, %d phases", second.Config.Scope.Allow, len(second.Config.Phases))
	}
}

// The variables that are no settings (the thin client's start, new with
// every call; the test clock) do not make a new configuration: one entry
// serves every call. LOOPBREAKER_CONFIG, which names the file, does.
func TestCacheKeysOnSettingsOnly(t *testing.T) {
	proj := t.TempDir()
	writeFile(t, filepath.Join(proj, ProjectFile), "no_progress:\n  threshold: 4\n")
	writeFile(t, filepath.Join(proj, "other.yaml"), "no_progress:\n  threshold: 6\n")
	user := t.TempDir()
	var c Cache
	for i, env := range [][]string{
		{"LOOPBREAKER_HOOK_STARTED=1765000000000000000"},
		{"LOOPBREAKER_HOOK_STARTED=1765000000100000000", "LOOPBREAKER_NOW=2026-12-01T09:00:00Z"},
		{"LOOPBREAKER_SESSION=s2"},
	} {
		if _, err := c.Load(Options{ProjectDir: proj, UserConfigDir: user, Env: env}); err != nil {
			t.Fatalf("load %d: %v", i, err)
		}
	}
	if n := len(c.entries); n != 1 {
		t.Fatalf("%d configurations kept for one configuration, want 1", n)
	}
	got, err := c.Load(Options{ProjectDir: proj, UserConfigDir: user, Env: []string{"LOOPBREAKER_CONFIG=other.yaml"}})
	if err != nil {
		t.Fatal(err)
	}
	if v := valueOf(t, got, "no_progress.threshold"); v != "6" {
		t.Fatalf("with LOOPBREAKER_CONFIG=other.yaml: no_progress.threshold = %s, want 6", v)
	}
}
