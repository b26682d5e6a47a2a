package config

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/loopbreaker/loopbreaker"
)

// fixture is a project directory and a user config directory with optional
// files, plus the env and flags to load with.
type fixture struct {
	project string // loopbreaker.yaml content; "" = no file
	user    string // user config.yaml content; "" = no file
	env     []string
	flags   map[string]string
}

func (f fixture) options(t *testing.T) Options {
	t.Helper()
	proj, user := t.TempDir(), t.TempDir()
	if f.project != "" {
		writeFile(t, filepath.Join(proj, "loopbreaker.yaml"), f.project)
	}
	if f.user != "" {
		writeFile(t, filepath.Join(user, "loopbreaker", "config.yaml"), f.user)
	}
	return Options{ProjectDir: proj, UserConfigDir: user, Env: f.env, Flags: f.flags}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mustLoad(t *testing.T, opts Options) *Loaded {
	t.Helper()
	l, err := Load(opts)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return l
}

// valueOf reads a key's effective value as Print shows it.
func valueOf(t *testing.T, l *Loaded, key string) string {
	t.Helper()
	sch, err := buildSchema()
	if err != nil {
		t.Fatal(err)
	}
	lf := sch.byKey[key]
	if lf == nil {
		t.Fatalf("no key %q", key)
	}
	return formatValue(lf.get(&l.Config))
}

func TestEachLayerAlone(t *testing.T) {
	tests := []struct {
		name    string
		fix     fixture
		key     string
		want    string
		wantSrc Source
	}{
		{"defaults", fixture{}, "cooldown", "30m", Source{Kind: KindDefault}},
		{"user file", fixture{user: "# mine\ncooldown: 1h\n"}, "cooldown", "1h", Source{Kind: KindUser, Line: 2}},
		{"project file", fixture{project: "no_progress:\n  threshold: 4\n"}, "no_progress.threshold", "4",
			Source{Kind: KindProject, Name: "loopbreaker.yaml", Line: 2}},
		{"project phase profile", fixture{project: "phases:\n  GREEN:\n    no_progress: 9\n"}, "phases.GREEN.no_progress", "9",
			Source{Kind: KindProject, Name: "loopbreaker.yaml", Line: 3}},
		{"project dotted key", fixture{project: "same_error.threshold: 8\n"}, "same_error.threshold", "8",
			Source{Kind: KindProject, Name: "loopbreaker.yaml", Line: 1}},
		{"project string", fixture{project: "on_error: continue\n"}, "on_error", "continue",
			Source{Kind: KindProject, Name: "loopbreaker.yaml", Line: 1}},
		{"project bool", fixture{project: "journal:\n  fsync: true\n"}, "journal.fsync", "true",
			Source{Kind: KindProject, Name: "loopbreaker.yaml", Line: 2}},
		{"project int64", fixture{project: "journal:\n  max_bytes: 1048576\n"}, "journal.max_bytes", "1048576",
			Source{Kind: KindProject, Name: "loopbreaker.yaml", Line: 2}},
		{"env duration", fixture{env: []string{"LOOPBREAKER_COOLDOWN=1h30m"}}, "cooldown", "1h30m",
			Source{Kind: KindEnv, Name: "LOOPBREAKER_COOLDOWN"}},
		{"env nested", fixture{env: []string{"LOOPBREAKER_NO_PROGRESS_THRESHOLD=6"}}, "no_progress.threshold", "6",
			Source{Kind: KindEnv, Name: "LOOPBREAKER_NO_PROGRESS_THRESHOLD"}},
		{"env phase", fixture{env: []string{"LOOPBREAKER_PHASES_GREEN_NO_PROGRESS=4"}}, "phases.GREEN.no_progress", "4",
			Source{Kind: KindEnv, Name: "LOOPBREAKER_PHASES_GREEN_NO_PROGRESS"}},
		{"env bool", fixture{env: []string{"LOOPBREAKER_AUTO_RESET=true"}}, "auto_reset", "true",
			Source{Kind: KindEnv, Name: "LOOPBREAKER_AUTO_RESET"}},
		{"env empty counts as unset", fixture{env: []string{"LOOPBREAKER_COOLDOWN="}}, "cooldown", "30m", Source{Kind: KindDefault}},
		{"flag", fixture{flags: map[string]string{"output_decline.percent": "50"}}, "output_decline.percent", "50",
			Source{Kind: KindFlag, Name: "--set output_decline.percent"}},
		{"flag duration", fixture{flags: map[string]string{"probe_timeout": "90s"}}, "probe_timeout", "1m30s",
			Source{Kind: KindFlag, Name: "--set probe_timeout"}},
		{"project list", fixture{project: "scope:\n  deny: [a/**, b]\n"}, "scope.deny", `["a/**","b"]`,
			Source{Kind: KindProject, Name: "loopbreaker.yaml", Line: 2}},
		{"env list", fixture{env: []string{"LOOPBREAKER_SCOPE_JUSTIFY=go.mod"}}, "scope.justify", `["go.mod"]`,
			Source{Kind: KindEnv, Name: "LOOPBREAKER_SCOPE_JUSTIFY"}},
		{"project breakers", fixture{project: "breakers:\n  - scope: global\n"}, "breakers",
			`[{"scope":"global","failure_threshold":5,"window":"1h","cooldown":"30m","notify":true}]`,
			Source{Kind: KindProject, Name: "loopbreaker.yaml", Line: 1}},
		{"env int64", fixture{env: []string{"LOOPBREAKER_SERVER_MAX_BODY_BYTES=2048"}}, "server.max_body_bytes", "2048",
			Source{Kind: KindEnv, Name: "LOOPBREAKER_SERVER_MAX_BODY_BYTES"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := tt.fix.options(t)
			if tt.wantSrc.Kind == KindUser {
				tt.wantSrc.Name = filepath.Join(opts.UserConfigDir, "loopbreaker", "config.yaml")
			}
			l := mustLoad(t, opts)
			if got := valueOf(t, l, tt.key); got != tt.want {
				t.Errorf("%s = %s, want %s", tt.key, got, tt.want)
			}
			if got := l.Sources[tt.key]; got != tt.wantSrc {
				t.Errorf("source of %s = %+v, want %+v", tt.key, got, tt.wantSrc)
			}
			// Every other key keeps its default.
			def := loopbreaker.Defaults()
			sch, _ := buildSchema()
			for _, lf := range sch.leaves {
				if lf.key == tt.key {
					continue
				}
				if got, want := lf.get(&l.Config), lf.get(&def); !reflect.DeepEqual(got, want) {
					t.Errorf("%s = %v, want default %v", lf.key, got, want)
				}
				if l.Sources[lf.key].Kind != KindDefault {
					t.Errorf("%s source = %v, want default", lf.key, l.Sources[lf.key])
				}
			}
		})
	}
}

func TestConfigFieldsAreSet(t *testing.T) {
	l := mustLoad(t, fixture{
		project: "cooldown: 5m\nphases:\n  REFACTOR:\n    same_error: 2\njournal:\n  max_bytes: 1024\n",
		env:     []string{"LOOPBREAKER_TOOL_CALLS_HISTORY=40"},
	}.options(t))
	c := l.Config
	if c.Cooldown != 5*time.Minute || c.Phases[loopbreaker.PhaseRefactor].SameError != 2 ||
		c.Phases[loopbreaker.PhaseRefactor].NoProgress != 5 || c.Journal.MaxBytes != 1024 || c.ToolCalls.History != 40 {
		t.Errorf("config not set as written: %+v", c)
	}
}

func TestUserFileLocation(t *testing.T) {
	tests := []struct {
		name string
		env  func(xdg, home string) []string
		dir  func(xdg, home string) string // directory holding loopbreaker/config.yaml
	}{
		{"XDG_CONFIG_HOME", func(x, h string) []string { return []string{"XDG_CONFIG_HOME=" + x, "HOME=" + h} },
			func(x, h string) string { return x }},
		{"HOME fallback", func(x, h string) []string { return []string{"HOME=" + h} },
			func(x, h string) string { return filepath.Join(h, ".config") }},
		{"relative XDG_CONFIG_HOME ignored", func(x, h string) []string { return []string{"XDG_CONFIG_HOME=rel", "HOME=" + h} },
			func(x, h string) string { return filepath.Join(h, ".config") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			xdg, home := t.TempDir(), t.TempDir()
			path := filepath.Join(tt.dir(xdg, home), "loopbreaker", "config.yaml")
			writeFile(t, path, "warn_margin: 2\n")
			l := mustLoad(t, Options{ProjectDir: t.TempDir(), Env: tt.env(xdg, home)})
			if l.Config.WarnMargin != 2 {
				t.Errorf("warn_margin = %d, want 2 from %s", l.Config.WarnMargin, path)
			}
			if want := (Source{Kind: KindUser, Name: path, Line: 1}); l.Sources["warn_margin"] != want {
				t.Errorf("source = %+v, want %+v", l.Sources["warn_margin"], want)
			}
		})
	}
	t.Run("no HOME, no file", func(t *testing.T) {
		l := mustLoad(t, Options{ProjectDir: t.TempDir()})
		if l.Sources["warn_margin"].Kind != KindDefault {
			t.Errorf("source = %v", l.Sources["warn_margin"])
		}
	})
}

func TestProjectFileNames(t *testing.T) {
	t.Run("yml accepted", func(t *testing.T) {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "loopbreaker.yml"), "warn_margin: 0\n")
		l := mustLoad(t, Options{ProjectDir: dir})
		if want := (Source{Kind: KindProject, Name: "loopbreaker.yml", Line: 1}); l.Sources["warn_margin"] != want || l.Config.WarnMargin != 0 {
			t.Errorf("got %d from %+v", l.Config.WarnMargin, l.Sources["warn_margin"])
		}
	})
	t.Run("both yaml and yml", func(t *testing.T) {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "loopbreaker.yaml"), "warn_margin: 0\n")
		writeFile(t, filepath.Join(dir, "loopbreaker.yml"), "warn_margin: 2\n")
		_, err := Load(Options{ProjectDir: dir})
		if err == nil || !strings.Contains(err.Error(), "delete loopbreaker.yml") || !strings.Contains(err.Error(), dir) {
			t.Fatalf("err = %v, want one telling to delete loopbreaker.yml in %s", err, dir)
		}
	})
	t.Run("LOOPBREAKER_CONFIG relative to the project", func(t *testing.T) {
		dir := t.TempDir()
		writeFile(t, filepath.Join(dir, "loopbreaker.yaml"), "warn_margin: 0\n")
		writeFile(t, filepath.Join(dir, "ci", "lb.yaml"), "\nwarn_margin: 3\n")
		l := mustLoad(t, Options{ProjectDir: dir, Env: []string{"LOOPBREAKER_CONFIG=ci/lb.yaml"}})
		if want := (Source{Kind: KindProject, Name: "ci/lb.yaml", Line: 2}); l.Sources["warn_margin"] != want || l.Config.WarnMargin != 3 {
			t.Errorf("got %d from %+v, want 3 from %+v", l.Config.WarnMargin, l.Sources["warn_margin"], want)
		}
	})
	t.Run("LOOPBREAKER_CONFIG absolute", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "x.yaml")
		writeFile(t, path, "warn_margin: 4\n")
		l := mustLoad(t, Options{ProjectDir: t.TempDir(), Env: []string{"LOOPBREAKER_CONFIG=" + path}})
		if l.Config.WarnMargin != 4 || l.Sources["warn_margin"].Name != path {
			t.Errorf("got %d from %+v", l.Config.WarnMargin, l.Sources["warn_margin"])
		}
	})
	t.Run("LOOPBREAKER_CONFIG missing", func(t *testing.T) {
		_, err := Load(Options{ProjectDir: t.TempDir(), Env: []string{"LOOPBREAKER_CONFIG=nope.yaml"}})
		if err == nil || !strings.Contains(err.Error(), "nope.yaml: no such file") {
			t.Fatalf("err = %v", err)
		}
	})
}

// TestPriority sets one key in all five places and removes the highest
// layer one at a time.
func TestPriority(t *testing.T) {
	const key = "same_error.threshold" // default 5
	full := fixture{
		user:    "same_error:\n  threshold: 6\n",
		project: "# project\nsame_error:\n  threshold: 7\n",
		env:     []string{"LOOPBREAKER_SAME_ERROR_THRESHOLD=8"},
		flags:   map[string]string{key: "9"},
	}
	steps := []struct {
		name    string
		drop    func(f *fixture)
		want    int
		wantSrc Source
	}{
		{"all five", func(f *fixture) {}, 9, Source{Kind: KindFlag, Name: "--set " + key}},
		{"no flag", func(f *fixture) { f.flags = nil }, 8, Source{Kind: KindEnv, Name: "LOOPBREAKER_SAME_ERROR_THRESHOLD"}},
		{"no env", func(f *fixture) { f.env = nil }, 7, Source{Kind: KindProject, Name: "loopbreaker.yaml", Line: 3}},
		{"no project", func(f *fixture) { f.project = "" }, 6, Source{Kind: KindUser, Line: 2}},
		{"no user", func(f *fixture) { f.user = "" }, 5, Source{Kind: KindDefault}},
	}
	f := full
	for _, st := range steps {
		st.drop(&f)
		t.Run(st.name, func(t *testing.T) {
			opts := f.options(t)
			if st.wantSrc.Kind == KindUser {
				st.wantSrc.Name = filepath.Join(opts.UserConfigDir, "loopbreaker", "config.yaml")
			}
			l := mustLoad(t, opts)
			if l.Config.SameError.Threshold != st.want {
				t.Errorf("%s = %d, want %d", key, l.Config.SameError.Threshold, st.want)
			}
			if l.Sources[key] != st.wantSrc {
				t.Errorf("source = %+v, want %+v", l.Sources[key], st.wantSrc)
			}
		})
	}
}

func TestRalphAliases(t *testing.T) {
	tests := []struct {
		env     []string
		key     string
		want    string
		wantVar string
	}{
		{[]string{"CB_NO_PROGRESS_THRESHOLD=4"}, "no_progress.threshold", "4", "CB_NO_PROGRESS_THRESHOLD"},
		{[]string{"CB_SAME_ERROR_THRESHOLD=6"}, "same_error.threshold", "6", "CB_SAME_ERROR_THRESHOLD"},
		// Taken as is, not converted from Ralph's "declines by more than N%".
		{[]string{"CB_OUTPUT_DECLINE_THRESHOLD=60"}, "output_decline.percent", "60", "CB_OUTPUT_DECLINE_THRESHOLD"},
		{[]string{"CB_PERMISSION_DENIAL_THRESHOLD=3"}, "permission_denials.threshold", "3", "CB_PERMISSION_DENIAL_THRESHOLD"},
		{[]string{"CB_COOLDOWN_MINUTES=45"}, "cooldown", "45m", "CB_COOLDOWN_MINUTES"},
		{[]string{"CB_AUTO_RESET=true"}, "auto_reset", "true", "CB_AUTO_RESET"},
		// The LOOPBREAKER_ name wins, whichever order they come in.
		{[]string{"CB_COOLDOWN_MINUTES=45", "LOOPBREAKER_COOLDOWN=10m"}, "cooldown", "10m", "LOOPBREAKER_COOLDOWN"},
		{[]string{"LOOPBREAKER_NO_PROGRESS_THRESHOLD=2", "CB_NO_PROGRESS_THRESHOLD=4"}, "no_progress.threshold", "2", "LOOPBREAKER_NO_PROGRESS_THRESHOLD"},
		// A shadowed alias is not parsed at all.
		{[]string{"CB_AUTO_RESET=yes please", "LOOPBREAKER_AUTO_RESET=false"}, "auto_reset", "false", "LOOPBREAKER_AUTO_RESET"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.env, ","), func(t *testing.T) {
			l := mustLoad(t, fixture{env: tt.env}.options(t))
			if got := valueOf(t, l, tt.key); got != tt.want {
				t.Errorf("%s = %s, want %s", tt.key, got, tt.want)
			}
			if want := (Source{Kind: KindEnv, Name: tt.wantVar}); l.Sources[tt.key] != want {
				t.Errorf("source = %+v, want %+v", l.Sources[tt.key], want)
			}
		})
	}
	t.Run("alias above the project file", func(t *testing.T) {
		l := mustLoad(t, fixture{project: "cooldown: 1h\n", env: []string{"CB_COOLDOWN_MINUTES=5"}}.options(t))
		if l.Config.Cooldown != 5*time.Minute {
			t.Errorf("cooldown = %s, want 5m", l.Config.Cooldown)
		}
	})
}

// wantErr loads and checks that the error contains every fragment.
func wantErr(t *testing.T, opts Options, fragments ...string) {
	t.Helper()
	l, err := Load(opts)
	if err == nil {
		t.Fatalf("Load succeeded (%+v), want an error with %q", l.Config, fragments)
	}
	for _, f := range fragments {
		if !strings.Contains(err.Error(), f) {
			t.Errorf("error %q\n  does not contain %q", err, f)
		}
	}
}

func TestUnknownKeys(t *testing.T) {
	tests := []struct {
		name string
		fix  fixture
		want []string
	}{
		{"misspelt group", fixture{project: "enabled: true\n\n# detectors\nno_progres:\n  threshold: 5\n"},
			[]string{`loopbreaker.yaml:4: unknown key "no_progres.threshold" (did you mean "no_progress.threshold"?)`}},
		{"misspelt leaf", fixture{project: "same_error:\n  treshold: 5\n"},
			[]string{`loopbreaker.yaml:2: unknown key "same_error.treshold" (did you mean "same_error.threshold"?)`}},
		{"phase in lower case", fixture{project: "phases:\n  green:\n    no_progress: 2\n"},
			[]string{`loopbreaker.yaml:2: unknown key "phases.green.no_progress" (did you mean "phases.GREEN.no_progress"?)`}},
		{"unknown phase", fixture{project: "phases:\n  BLUE:\n    no_progress: 2\n"},
			[]string{`loopbreaker.yaml:2: unknown key "phases.BLUE.no_progress"`}},
		{"nothing close", fixture{project: "colour: blue\n"},
			[]string{`loopbreaker.yaml:1: unknown key "colour"`}},
		{"user file", fixture{user: "cooldwn: 5m\n"},
			[]string{`config.yaml:1: unknown key "cooldwn" (did you mean "cooldown"?)`}},
		{"all problems reported", fixture{project: "cooldwn: 5m\nwarn_margn: 1\n"},
			[]string{`loopbreaker.yaml:1: unknown key "cooldwn"`, `loopbreaker.yaml:2: unknown key "warn_margn" (did you mean "warn_margin"?)`}},
		{"env", fixture{env: []string{"LOOPBREAKER_COLDOWN=5m"}},
			[]string{"env LOOPBREAKER_COLDOWN: not a loopbreaker setting (did you mean LOOPBREAKER_COOLDOWN?); unset it (every LOOPBREAKER_* variable is read as a setting, except those listed in docs/configuration.md)"}},
		{"env phase", fixture{env: []string{"LOOPBREAKER_PHASES_GREN_NO_PROGRESS=5"}},
			[]string{"env LOOPBREAKER_PHASES_GREN_NO_PROGRESS: not a loopbreaker setting (did you mean LOOPBREAKER_PHASES_GREEN_NO_PROGRESS?)"}},
		{"flag", fixture{flags: map[string]string{"no_progress.treshold": "4"}},
			[]string{`flag --set no_progress.treshold: unknown key "no_progress.treshold" (did you mean "no_progress.threshold"?)`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantErr(t, tt.fix.options(t), tt.want...) })
	}
}

func TestNonConfigEnvAllowed(t *testing.T) {
	env := []string{"PATH=/bin", "CB_SOMETHING_ELSE=1"}
	for _, n := range NonConfigEnv() {
		if n == "LOOPBREAKER_CONFIG" { // names a file; tested elsewhere
			continue
		}
		env = append(env, strings.TrimSuffix(n, "*")+"X=anything")
		env = append(env, strings.TrimSuffix(n, "*")+"=anything")
	}
	// TrimSuffix+"X" turns exact names into unknown ones; keep only those
	// that the allowlist really covers.
	var allowed []string
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, envPrefix) || isNonConfigEnv(name) {
			allowed = append(allowed, kv)
		}
	}
	if len(allowed) < len(NonConfigEnv())+2 {
		t.Fatalf("test setup kept only %v", allowed)
	}
	l := mustLoad(t, fixture{env: append(allowed, "LOOPBREAKER_HOOK_PRE_TOOL=1")}.options(t))
	for k, s := range l.Sources {
		if s.Kind != KindDefault {
			t.Errorf("%s set by %v", k, s)
		}
	}
	// And one step outside the allowlist is an error.
	wantErr(t, fixture{env: []string{"LOOPBREAKER_DIRS=x"}}.options(t), "LOOPBREAKER_DIRS", "did you mean LOOPBREAKER_DIR?")
}

func TestBadValues(t *testing.T) {
	tests := []struct {
		name string
		fix  fixture
		want string
	}{
		{"int word", fixture{project: "same_error:\n  threshold: five\n"}, `loopbreaker.yaml:2: same_error.threshold: want an integer, got "five"`},
		{"int quoted", fixture{project: "warn_margin: \"1\"\n"}, `loopbreaker.yaml:1: warn_margin: want an integer, got "1"`},
		{"int float", fixture{project: "warn_margin: 1.5\n"}, `loopbreaker.yaml:1: warn_margin: want an integer, got "1.5"`},
		{"int list", fixture{project: "warn_margin: [1]\n"}, `loopbreaker.yaml:1: warn_margin: want an integer, got a list`},
		{"int out of range", fixture{project: "warn_margin: 99999999999999999999\n"}, `loopbreaker.yaml:1: warn_margin: want an integer`},
		{"bool yes", fixture{project: "enabled: yes\n"}, `loopbreaker.yaml:1: enabled: want true or false, got "yes"`},
		{"bool number", fixture{project: "enabled: 1\n"}, `loopbreaker.yaml:1: enabled: want true or false, got "1"`},
		{"duration bare", fixture{project: "cooldown: 1800\n"}, `loopbreaker.yaml:1: cooldown: want a duration, got the bare number 1800: write 30m or 1800s`},
		{"duration word", fixture{project: "cooldown: soon\n"}, `loopbreaker.yaml:1: cooldown: want a duration such as 30m or 1h30m, got "soon"`},
		{"string number", fixture{project: "on_error: 5\n"}, `loopbreaker.yaml:1: on_error: want a string, got "5"`},
		{"no value", fixture{project: "cooldown:\n"}, `loopbreaker.yaml:1: cooldown: no value; write a duration such as 30m or delete the line`},
		{"scalar for group", fixture{project: "\nno_progress: 3\n"}, `loopbreaker.yaml:2: no_progress: want keys under it (threshold, files_count), got "3"`},
		{"mapping for leaf", fixture{project: "cooldown:\n  minutes: 5\n"}, `loopbreaker.yaml:1: cooldown: want a duration such as 30m, got a mapping`},
		{"set twice", fixture{project: "no_progress:\n  threshold: 3\nno_progress.threshold: 4\n"}, `loopbreaker.yaml:3: no_progress.threshold is set twice (also on line 2)`},
		{"env int", fixture{env: []string{"LOOPBREAKER_WARN_MARGIN=one"}}, `env LOOPBREAKER_WARN_MARGIN: warn_margin: want an integer, got "one"`},
		{"env bool", fixture{env: []string{"LOOPBREAKER_ENABLED=on"}}, `env LOOPBREAKER_ENABLED: enabled: want true or false, got "on"`},
		{"env duration bare", fixture{env: []string{"LOOPBREAKER_COOLDOWN=30"}}, `env LOOPBREAKER_COOLDOWN: cooldown: want a duration, got the bare number 30: write 30m or 1800s`},
		{"alias minutes", fixture{env: []string{"CB_COOLDOWN_MINUTES=30m"}}, `env CB_COOLDOWN_MINUTES: cooldown: want a whole number of minutes, got "30m"`},
		{"alias bool", fixture{env: []string{"CB_AUTO_RESET=1"}}, `env CB_AUTO_RESET: auto_reset: want true or false, got "1"`},
		{"flag", fixture{flags: map[string]string{"journal.keep": "many"}}, `flag --set journal.keep: journal.keep: want an integer, got "many"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantErr(t, tt.fix.options(t), tt.want) })
	}
}

func TestZeroDurationNeedsNoUnit(t *testing.T) {
	l := mustLoad(t, fixture{project: "cooldown: 0\n"}.options(t))
	if l.Config.Cooldown != 0 || l.Sources["cooldown"].Kind != KindProject {
		t.Errorf("cooldown = %s from %v", l.Config.Cooldown, l.Sources["cooldown"])
	}
}

func TestMalformedYAML(t *testing.T) {
	tests := []struct {
		name, content, want string
	}{
		{"bad indentation", "enabled: true\nno_progress:\n  threshold: 3\n files_count: true\n", "loopbreaker.yaml:3: invalid YAML: did not find expected key"},
		{"tab", "enabled: true\n\tcooldown: 5m\n", "loopbreaker.yaml:2: invalid YAML"},
		{"unclosed quote", "on_error: \"stop\n", "loopbreaker.yaml:"},
		{"two documents", "enabled: true\n---\nenabled: false\n", "loopbreaker.yaml:2: a second YAML document"},
		{"top-level list", "- enabled\n", "loopbreaker.yaml:1: want settings as key: value lines at the top level, got a list"},
		{"top-level scalar", "hello\n", `loopbreaker.yaml:1: want settings as key: value lines at the top level, got "hello"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantErr(t, fixture{project: tt.content}.options(t), tt.want) })
	}
}

func TestEmptyFilesAreFine(t *testing.T) {
	for _, content := range []string{"\n", "# nothing yet\n", "---\n", "no_progress:\n  # threshold: 3\n"} {
		l := mustLoad(t, fixture{project: content, user: content}.options(t))
		if !reflect.DeepEqual(l.Config, loopbreaker.Defaults()) {
			t.Errorf("%q: config differs from defaults", content)
		}
	}
}

func TestValidateNamesSource(t *testing.T) {
	tests := []struct {
		name string
		fix  fixture
		want []string
	}{
		{"project", fixture{project: "enabled: true\noutput_decline:\n  percent: 150\n"},
			[]string{"project loopbreaker.yaml:3: output_decline.percent must be between 1 and 100, got 150"}},
		{"env", fixture{env: []string{"LOOPBREAKER_OUTPUT_DECLINE_PERCENT=150"}},
			[]string{"env LOOPBREAKER_OUTPUT_DECLINE_PERCENT: output_decline.percent must be between 1 and 100"}},
		{"alias", fixture{env: []string{"CB_OUTPUT_DECLINE_THRESHOLD=150"}},
			[]string{"env CB_OUTPUT_DECLINE_THRESHOLD: output_decline.percent must be between 1 and 100"}},
		{"flag", fixture{flags: map[string]string{"on_error": "ignore"}},
			[]string{`flag --set on_error: on_error must be "stop" or "continue", got "ignore"`}},
		{"user", fixture{user: "no_progress:\n  threshold: 0\n"},
			[]string{"config.yaml:2: no_progress.threshold must be at least 1, got 0", "user "}},
		{"two keys", fixture{project: "output_decline:\n  min_samples: 9\n"},
			[]string{"output_decline.min_samples (9) cannot exceed output_decline.window (5)",
				"output_decline.min_samples from project loopbreaker.yaml:2", "output_decline.window from default"}},
		{"a run longer than the history", fixture{project: "tool_calls:\n  no_new_info: 40\n"},
			[]string{"tool_calls.history (30) must hold at least tool_calls.repeat, tool_calls.no_new_info and 2×tool_calls.cycle calls"}},
		{"phase group", fixture{env: []string{"LOOPBREAKER_PHASES_RED_SAME_ERROR=-1"}},
			[]string{"env LOOPBREAKER_PHASES_RED_SAME_ERROR: phases.RED: thresholds must not be negative"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantErr(t, tt.fix.options(t), tt.want...) })
	}
}

func TestSampleYAMLRoundTrips(t *testing.T) {
	sample := SampleYAML()
	l := mustLoad(t, fixture{project: sample}.options(t))
	if !reflect.DeepEqual(l.Config, loopbreaker.Defaults()) {
		t.Errorf("sample loads to\n%+v\nwant\n%+v", l.Config, loopbreaker.Defaults())
	}
	// Every key is written (and so comes from the file) with a comment
	// above it; a key the file may not set is shown commented out.
	lines := strings.Split(sample, "\n")
	for _, k := range Keys() {
		if _, userOnly := userOnlyKeys()[k.Key]; userOnly {
			if !strings.Contains(sample, "\n# "+k.Key+": ") {
				t.Errorf("%s is not shown commented out in the sample", k.Key)
			}
			continue
		}
		src := l.Sources[k.Key]
		if src.Kind != KindProject {
			t.Errorf("%s not in the sample (source %v)", k.Key, src)
			continue
		}
		comment := strings.TrimSpace(lines[src.Line-2])
		if !strings.HasPrefix(comment, "# ") || len(comment) < 10 {
			t.Errorf("%s (line %d) has no comment above it: %q", k.Key, src.Line, comment)
		}
	}
}

func TestKeys(t *testing.T) {
	keys := Keys()
	sch, err := buildSchema()
	if err != nil {
		t.Fatalf("schema: %v (a Config field of a new type needs support in package config)", err)
	}
	if len(keys) != len(sch.leaves) || len(keys) < 30 {
		t.Fatalf("%d keys, %d leaves", len(keys), len(sch.leaves))
	}
	if !sort.SliceIsSorted(keys, func(i, j int) bool { return keys[i].Key < keys[j].Key }) {
		t.Error("keys not sorted")
	}
	types := map[string]bool{TypeInt: true, TypeBool: true, TypeDuration: true, TypeString: true,
		TypeStringList: true, TypeMappingList: true, TypeNumber: true}
	seen := map[string]bool{}
	for _, k := range keys {
		if seen[k.Key] {
			t.Errorf("%s listed twice", k.Key)
		}
		seen[k.Key] = true
		if !types[k.Type] {
			t.Errorf("%s: type %q", k.Key, k.Type)
		}
		if k.Description == "" || strings.Contains(k.Description, "\n") {
			t.Errorf("%s: description %q (add it to descriptions())", k.Key, k.Description)
		}
		if isNonConfigEnv(envName(k.Key)) {
			t.Errorf("%s: its variable %s is in NonConfigEnv", k.Key, envName(k.Key))
		}
		// The default string is valid input for its key: as text for a
		// value, as YAML for a list.
		if k.Type == TypeStringList || k.Type == TypeMappingList {
			if _, errs := sch.decodeYAML([]byte(k.Key+": "+k.Default+"\n"), "x.yaml", KindProject); len(errs) > 0 {
				t.Errorf("%s: default %q does not parse: %v", k.Key, k.Default, errs)
			}
		} else if _, err := sch.byKey[k.Key].parseText(k.Default); err != nil {
			t.Errorf("%s: default %q does not parse: %v", k.Key, k.Default, err)
		}
	}
	for g := range sch.groups {
		if sch.describe(g) == "" {
			t.Errorf("group %s has no description", g)
		}
	}
	for _, want := range []string{"cooldown", "no_progress.threshold", "phases.RED.no_progress", "phases.DOCUMENT.same_error", "journal.max_bytes"} {
		if !seen[want] {
			t.Errorf("missing key %s", want)
		}
	}
	if k := keys[sort.Search(len(keys), func(i int) bool { return keys[i].Key >= "cooldown" })]; k.Type != TypeDuration || k.Default != "30m" {
		t.Errorf("cooldown: %+v", k)
	}
}

func TestPrint(t *testing.T) {
	opts := fixture{
		user:    "warn_margin: 2\n",
		project: "enabled: true\nno_progress:\n  threshold: 4\n",
		env:     []string{"LOOPBREAKER_COOLDOWN=45m"},
		flags:   map[string]string{"phases.GREEN.no_progress": "7"},
	}.options(t)
	l := mustLoad(t, opts)
	userPath := filepath.Join(opts.UserConfigDir, "loopbreaker", "config.yaml")
	wantSrc := map[string]string{
		"warn_margin":              "user " + userPath + ":1",
		"enabled":                  "project loopbreaker.yaml:1",
		"no_progress.threshold":    "project loopbreaker.yaml:3",
		"cooldown":                 "env LOOPBREAKER_COOLDOWN",
		"phases.GREEN.no_progress": "flag --set phases.GREEN.no_progress",
		"same_error.threshold":     "default",
	}

	t.Run("text", func(t *testing.T) {
		var buf bytes.Buffer
		if err := l.Print(&buf, false); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
		keys := Keys()
		if len(lines) != len(keys) {
			t.Fatalf("%d lines for %d keys:\n%s", len(lines), len(keys), buf.String())
		}
		count := map[string]int{}
		for _, line := range lines {
			f := strings.Fields(line)
			if len(f) < 3 {
				t.Fatalf("short line %q", line)
			}
			key, value, src := f[0], f[1], strings.Join(f[2:], " ")
			count[key]++
			want := valueOf(t, l, key)
			if want == "" {
				want = `""`
			}
			if len(want) > maxTableValue {
				// Summed up, pointing at `config KEY`; the whole value is
				// PrintKey's (TestPrintKey).
				_, after, ok := strings.Cut(line, " (whole: loopbreaker config "+key+") ")
				if !ok {
					t.Errorf("%s: a %d-character value printed whole or without pointing at config %s: %q", key, len(want), key, line)
					continue
				}
				value, src = want, strings.TrimSpace(after)
			}
			if value != want {
				t.Errorf("%s: printed %s, want %s", key, value, want)
			}
			if want, ok := wantSrc[key]; ok && src != want {
				t.Errorf("%s: source %q, want %q", key, src, want)
			}
			if _, ok := wantSrc[key]; !ok && src != "default" {
				t.Errorf("%s: source %q, want default", key, src)
			}
		}
		for _, k := range keys {
			if count[k.Key] != 1 {
				t.Errorf("%s printed %d times", k.Key, count[k.Key])
			}
		}
		if !strings.Contains(buf.String(), "45m") {
			t.Errorf("cooldown value missing:\n%s", buf.String())
		}
	})

	t.Run("json", func(t *testing.T) {
		var buf bytes.Buffer
		if err := l.Print(&buf, true); err != nil {
			t.Fatal(err)
		}
		var rows []struct {
			Key    string `json:"key"`
			Value  any    `json:"value"`
			Source string `json:"source"`
			Origin string `json:"origin"`
		}
		if err := json.Unmarshal(buf.Bytes(), &rows); err != nil {
			t.Fatalf("JSON does not parse: %v\n%s", err, buf.String())
		}
		if len(rows) != len(Keys()) {
			t.Fatalf("%d rows for %d keys", len(rows), len(Keys()))
		}
		byKey := map[string]int{}
		for i, r := range rows {
			byKey[r.Key] = i
			if got := strings.TrimSpace(r.Source + " " + r.Origin); wantSrc[r.Key] != "" && got != wantSrc[r.Key] {
				t.Errorf("%s: %q %q, want %q", r.Key, r.Source, r.Origin, wantSrc[r.Key])
			}
		}
		check := map[string]any{"cooldown": "45m", "no_progress.threshold": 4.0, "enabled": true, "on_error": "stop"}
		for k, want := range check {
			i, ok := byKey[k]
			if !ok {
				t.Errorf("no row for %s", k)
				continue
			}
			if rows[i].Value != want {
				t.Errorf("%s = %#v, want %#v", k, rows[i].Value, want)
			}
		}
	})
}

func TestEditDistanceAndClosest(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"abc", "", 3}, {"kitten", "sitting", 3}, {"no_progres", "no_progress", 1}} {
		if got := editDistance(tt.a, tt.b); got != tt.d {
			t.Errorf("editDistance(%q,%q) = %d, want %d", tt.a, tt.b, got, tt.d)
		}
	}
	if got := closest("xyz", []string{"cooldown", "enabled"}); got != "" {
		t.Errorf("closest suggested %q for nonsense", got)
	}
}

// `config` never prints a Redis password, whether in the URL's user info
// or in its query (where go-redis does not read it, but people put it).
func TestPrintHidesStoreSecrets(t *testing.T) {
	const secret = "Hunter2-s3cret"
	l := mustLoad(t, fixture{env: []string{"LOOPBREAKER_STORE=redis://bob:" + secret + "@h:6379/0?prefix=p&password=" + secret}}.options(t))
	for _, asJSON := range []bool{false, true} {
		var buf bytes.Buffer
		if err := l.Print(&buf, asJSON); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(buf.String(), secret) || !strings.Contains(buf.String(), "redis://bob:xxxxx@h:6379/0?prefix=p") || strings.Count(buf.String(), "xxxxx") != 2 {
			t.Fatalf("config (json: %v) shows the password or no store:\n%s", asJSON, buf.String())
		}
	}
}

// Files names the files Load reads besides loopbreaker.yaml, as Load finds
// them: a relative LOOPBREAKER_CONFIG is the project's, a relative
// XDG_CONFIG_HOME is ignored (the XDG spec), no HOME means no user file.
func TestFilesAreWhereLoadReads(t *testing.T) {
	for _, c := range []struct {
		env  []string
		want []string
	}{
		{nil, nil},
		{[]string{"HOME=/home/dev"}, []string{"/home/dev/.config/loopbreaker/config.yaml"}},
		{[]string{"HOME=/home/dev", "XDG_CONFIG_HOME=/xdg"}, []string{"/xdg/loopbreaker/config.yaml"}},
		{[]string{"HOME=/home/dev", "XDG_CONFIG_HOME=rel"}, []string{"/home/dev/.config/loopbreaker/config.yaml"}},
		{[]string{"LOOPBREAKER_CONFIG=team/lb.yaml"}, []string{"/proj/team/lb.yaml"}},
		{[]string{"LOOPBREAKER_CONFIG=/etc/lb/../lb/team.yaml", "HOME=/h"}, []string{"/etc/lb/team.yaml", "/h/.config/loopbreaker/config.yaml"}},
	} {
		if got := Files("/proj", c.env); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Files(/proj, %q) = %q, want %q", c.env, got, c.want)
		}
	}
}
