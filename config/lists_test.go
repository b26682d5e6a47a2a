package config

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/loopbreaker/loopbreaker"
)

func TestStringLists(t *testing.T) {
	tests := []struct {
		name    string
		fix     fixture
		want    []string // scope.allow; nil = empty
		wantSrc Source
	}{
		{"yaml block list", fixture{project: "scope:\n  allow:\n    - src/**\n    - docs/*.md\n"},
			[]string{"src/**", "docs/*.md"}, Source{Kind: KindProject, Name: "loopbreaker.yaml", Line: 2}},
		{"yaml flow list", fixture{project: "scope.allow: [\"src/**\", 'a b/*.go']\n"},
			[]string{"src/**", "a b/*.go"}, Source{Kind: KindProject, Name: "loopbreaker.yaml", Line: 1}},
		{"single string is a list of one", fixture{project: "\nscope:\n  allow: src/**\n"},
			[]string{"src/**"}, Source{Kind: KindProject, Name: "loopbreaker.yaml", Line: 3}},
		{"empty list", fixture{project: "scope:\n  allow: []\n"},
			nil, Source{Kind: KindProject, Name: "loopbreaker.yaml", Line: 2}},
		{"env comma list", fixture{env: []string{"LOOPBREAKER_SCOPE_ALLOW=src/**, docs/*.md ,cmd/x.go"}},
			[]string{"src/**", "docs/*.md", "cmd/x.go"}, Source{Kind: KindEnv, Name: "LOOPBREAKER_SCOPE_ALLOW"}},
		{"env one item", fixture{env: []string{"LOOPBREAKER_SCOPE_ALLOW=src/**"}},
			[]string{"src/**"}, Source{Kind: KindEnv, Name: "LOOPBREAKER_SCOPE_ALLOW"}},
		{"empty env clears the file's list", fixture{project: "scope:\n  allow: [a, b]\n", env: []string{"LOOPBREAKER_SCOPE_ALLOW="}},
			nil, Source{Kind: KindEnv, Name: "LOOPBREAKER_SCOPE_ALLOW"}},
		{"flag comma list", fixture{flags: map[string]string{"scope.allow": "a/*,b/**"}},
			[]string{"a/*", "b/**"}, Source{Kind: KindFlag, Name: "--set scope.allow"}},
		{"empty flag clears", fixture{project: "scope.allow: [a]\n", flags: map[string]string{"scope.allow": ""}},
			nil, Source{Kind: KindFlag, Name: "--set scope.allow"}},
		{"project replaces the user list whole", fixture{user: "scope:\n  allow: [a, b, c]\n", project: "scope:\n  allow: [d]\n"},
			[]string{"d"}, Source{Kind: KindProject, Name: "loopbreaker.yaml", Line: 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := mustLoad(t, tt.fix.options(t))
			if !reflect.DeepEqual(l.Config.Scope.Allow, tt.want) {
				t.Errorf("scope.allow = %#v, want %#v", l.Config.Scope.Allow, tt.want)
			}
			if got := l.Sources["scope.allow"]; got != tt.wantSrc {
				t.Errorf("source = %+v, want %+v", got, tt.wantSrc)
			}
			if l.Config.Scope.Deny != nil || l.Config.Scope.Justify != nil {
				t.Errorf("other lists changed: %+v", l.Config.Scope)
			}
		})
	}
}

func TestStringListErrors(t *testing.T) {
	tests := []struct {
		name string
		fix  fixture
		want string
	}{
		{"number item", fixture{project: "scope:\n  allow:\n    - src/**\n    - docs/*\n    - 5\n"},
			`loopbreaker.yaml:5: scope.allow[2]: want a string, got "5" (quote it if you mean the text)`},
		{"flow list item", fixture{project: "scope:\n  deny: [a, true]\n"},
			`loopbreaker.yaml:2: scope.deny[1]: want a string, got "true"`},
		{"nested list item", fixture{project: "scope:\n  justify:\n    - [a, b]\n"},
			`loopbreaker.yaml:3: scope.justify[0]: want a string, got a list`},
		{"empty item", fixture{project: "scope:\n  allow: [a, \"\"]\n"},
			`loopbreaker.yaml:2: scope.allow[1]: empty string; delete it (write [] for an empty list)`},
		{"mapping", fixture{project: "scope:\n  allow:\n    src: true\n"},
			`loopbreaker.yaml:2: scope.allow: want a list of strings such as ["src/**", "docs/*.md"] ([] for none), got a mapping`},
		{"single number", fixture{project: "scope:\n  allow: 7\n"},
			`loopbreaker.yaml:2: scope.allow: want a string, got "7"`},
		{"no value", fixture{project: "scope:\n  allow:\n"},
			`loopbreaker.yaml:2: scope.allow: no value; write a list such as ["src/**", "docs/*.md"], [] for none`},
		{"env stray comma", fixture{env: []string{"LOOPBREAKER_SCOPE_DENY=a,,b"}},
			`env LOOPBREAKER_SCOPE_DENY: scope.deny: want a comma-separated list such as src/**,docs/*.md, but item 2 of "a,,b" is empty`},
		{"flag trailing comma", fixture{flags: map[string]string{"scope.allow": "a,"}},
			`flag --set scope.allow: scope.allow: want a comma-separated list`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantErr(t, tt.fix.options(t), tt.want) })
	}
}

// breakersFile puts its breakers list on line 14, as in the brief's
// example message, after thirteen lines of other settings.
const breakersFile = `# project settings
enabled: true
cooldown: 30m
run:
  max_iterations: 40
  checkpoint: true
scope:
  allow: [src/**]
  deny:
    - secrets/**
breaker_template:
  window: 2h
  notify: false
breakers:
  - scope: stakes:high
    failure_threshold: 3
    window: 24h
    cooldown: 1h
    notify: true
  - scope: category:auth
    failure_threshold: 2
`

func TestBreakersFromFile(t *testing.T) {
	opts := fixture{project: breakersFile, env: []string{"LOOPBREAKER_BREAKER_TEMPLATE_COOLDOWN=45m"}}.options(t)
	l := mustLoad(t, opts)
	want := []loopbreaker.BreakerConfig{
		{Scope: "stakes:high", FailureThreshold: 3, Window: 24 * time.Hour, Cooldown: time.Hour, Notify: true},
		// Left out: window and notify from the file's template, cooldown
		// from the template as the environment set it.
		{Scope: "category:auth", FailureThreshold: 2, Window: 2 * time.Hour, Cooldown: 45 * time.Minute, Notify: false},
	}
	if !reflect.DeepEqual(l.Config.Breakers, want) {
		t.Errorf("breakers =\n%+v\nwant\n%+v", l.Config.Breakers, want)
	}
	proj := func(line int) Source { return Source{Kind: KindProject, Name: "loopbreaker.yaml", Line: line} }
	if got := l.Sources["breakers"]; got != proj(14) {
		t.Errorf("source of breakers = %+v, want line 14", got)
	}
	for key, wantSrc := range map[string]Source{
		"breakers":                      proj(14),
		"breakers[0]":                   proj(15),
		"breakers[0].window":            proj(17),
		"breakers[1]":                   proj(20),
		"breakers[1].failure_threshold": proj(21),
		"breakers[1].window":            proj(12),
		"breakers[1].cooldown":          {Kind: KindEnv, Name: "LOOPBREAKER_BREAKER_TEMPLATE_COOLDOWN"},
		"breakers[1].notify":            proj(13),
		"scope.allow":                   proj(8),
		"no_progress.threshold":         {Kind: KindDefault},
	} {
		if got := l.SourceOf(key); got != wantSrc {
			t.Errorf("SourceOf(%s) = %+v, want %+v", key, got, wantSrc)
		}
	}
	if l.Config.Run.MaxIterations != 40 || !reflect.DeepEqual(l.Config.Scope.Deny, []string{"secrets/**"}) {
		t.Errorf("other new keys not set: run %+v scope %+v", l.Config.Run, l.Config.Scope)
	}
}

func TestBreakersLayers(t *testing.T) {
	tests := []struct {
		name string
		fix  fixture
		want []loopbreaker.BreakerConfig
	}{
		{"defaults: none", fixture{}, nil},
		{"empty list", fixture{project: "breakers: []\n"}, nil},
		{"template defaults fill a bare entry", fixture{project: "breakers:\n  - scope: global\n"},
			[]loopbreaker.BreakerConfig{{Scope: "global", FailureThreshold: 5, Window: time.Hour, Cooldown: 30 * time.Minute, Notify: true}}},
		{"user template fills the project's entry", fixture{
			user:    "breaker_template:\n  failure_threshold: 9\n",
			project: "breakers:\n  - scope: agent:codex\n    notify: false\n",
		}, []loopbreaker.BreakerConfig{{Scope: "agent:codex", FailureThreshold: 9, Window: time.Hour, Cooldown: 30 * time.Minute, Notify: false}}},
		{"flag template applies to entries", fixture{
			project: "breakers:\n  - scope: tag:flaky\n",
			flags:   map[string]string{"breaker_template.window": "10m"},
		}, []loopbreaker.BreakerConfig{{Scope: "tag:flaky", FailureThreshold: 5, Window: 10 * time.Minute, Cooldown: 30 * time.Minute, Notify: true}}},
		{"project list replaces the user list", fixture{
			user:    "breakers:\n  - scope: global\n  - scope: stakes:low\n",
			project: "breakers:\n  - scope: slice:42\n    failure_threshold: 1\n",
		}, []loopbreaker.BreakerConfig{{Scope: "slice:42", FailureThreshold: 1, Window: time.Hour, Cooldown: 30 * time.Minute, Notify: true}}},
		{"project empties the user list", fixture{
			user:    "breakers:\n  - scope: global\n",
			project: "breakers: []\n",
		}, nil},
		{"anchored value", fixture{
			project: "breakers:\n  - scope: global\n    window: &w 3h\n  - scope: stakes:low\n    window: *w\n",
		}, []loopbreaker.BreakerConfig{
			{Scope: "global", FailureThreshold: 5, Window: 3 * time.Hour, Cooldown: 30 * time.Minute, Notify: true},
			{Scope: "stakes:low", FailureThreshold: 5, Window: 3 * time.Hour, Cooldown: 30 * time.Minute, Notify: true},
		}},
		{"flow style", fixture{
			project: "breakers: [{scope: global, window: 3h}, {scope: \"session:a b\", cooldown: 0}]\n",
		}, []loopbreaker.BreakerConfig{
			{Scope: "global", FailureThreshold: 5, Window: 3 * time.Hour, Cooldown: 30 * time.Minute, Notify: true},
			{Scope: "session:a b", FailureThreshold: 5, Window: time.Hour, Cooldown: 0, Notify: true},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := mustLoad(t, tt.fix.options(t))
			if !reflect.DeepEqual(l.Config.Breakers, tt.want) {
				t.Errorf("breakers =\n%+v\nwant\n%+v", l.Config.Breakers, tt.want)
			}
		})
	}
}

func TestBreakersErrors(t *testing.T) {
	tests := []struct {
		name string
		fix  fixture
		want []string
	}{
		{"unknown key in an entry", fixture{project: strings.Replace(breakersFile, "  - scope: category:auth\n    failure_threshold: 2\n",
			"  - scope: category:auth\n    treshold: 2\n", 1)},
			[]string{`loopbreaker.yaml:21: unknown key "breakers[1].treshold" (did you mean "breakers[1].failure_threshold"?)`}},
		{"unknown key, nothing close", fixture{project: "breakers:\n  - scope: global\n    colour: red\n"},
			[]string{`loopbreaker.yaml:3: unknown key "breakers[0].colour" (keys: scope, failure_threshold, window, cooldown, notify)`}},
		{"bad duration in an entry", fixture{project: "breakers:\n  - scope: global\n    window: 1800\n"},
			[]string{`loopbreaker.yaml:3: breakers[0].window: want a duration, got the bare number 1800: write 30m or 1800s`}},
		{"bad integer in an entry", fixture{project: "breakers:\n  - scope: global\n  - scope: stakes:high\n    failure_threshold: three\n"},
			[]string{`loopbreaker.yaml:4: breakers[1].failure_threshold: want an integer, got "three"`}},
		{"bad bool in an entry", fixture{project: "breakers:\n  - scope: global\n    notify: yes\n"},
			[]string{`loopbreaker.yaml:3: breakers[0].notify: want true or false, got "yes"`}},
		{"scope not a string", fixture{project: "breakers:\n  - scope: [global]\n"},
			[]string{`loopbreaker.yaml:2: breakers[0].scope: want a string, got a list`}},
		{"every problem reported", fixture{project: "breakers:\n  - scope: global\n    window: soon\n    cooldwn: 5m\n"},
			[]string{`loopbreaker.yaml:3: breakers[0].window: want a duration`, `loopbreaker.yaml:4: unknown key "breakers[0].cooldwn" (did you mean "breakers[0].cooldown"?)`}},
		{"entry without scope", fixture{project: "breakers:\n  - scope: global\n  - window: 2h\n"},
			[]string{`loopbreaker.yaml:3: breakers[1]: no scope; every entry of breakers needs one`}},
		{"two entries, one scope", fixture{project: "breakers:\n  - scope: stakes:high\n  - scope: global\n  - scope: stakes:high\n"},
			[]string{`loopbreaker.yaml:4: breakers[2]: scope "stakes:high" is already listed in breakers[0] (line 2); keep one entry per scope`}},
		{"key twice in an entry", fixture{project: "breakers:\n  - scope: global\n    window: 1h\n    window: 2h\n"},
			[]string{`loopbreaker.yaml:4: breakers[0].window is set twice (also on line 3)`}},
		{"entry not a mapping", fixture{project: "breakers:\n  - global\n"},
			[]string{`loopbreaker.yaml:2: breakers[0]: want a mapping with keys scope, failure_threshold, window, cooldown, notify, got "global"`}},
		{"a mapping instead of a list", fixture{project: "breakers:\n  scope: global\n"},
			[]string{`loopbreaker.yaml:1: breakers: want a list of mappings, one per entry starting with "- "`, "got a mapping"}},
		{"no value", fixture{project: "breakers:\n"},
			[]string{`loopbreaker.yaml:1: breakers: no value; write [] for none`}},
		{"merge key in an entry", fixture{project: "x: &d {window: 2h}\nbreakers:\n  - <<: *d\n    scope: global\n"},
			[]string{`loopbreaker.yaml:3: breakers[0]: keys must be plain names`}},
		{"env refused", fixture{env: []string{`LOOPBREAKER_BREAKERS=[{"scope":"global"}]`}},
			[]string{"env LOOPBREAKER_BREAKERS: breakers cannot be set from the environment; list its entries in loopbreaker.yaml"}},
		{"env entry field refused", fixture{env: []string{"LOOPBREAKER_BREAKERS_0_WINDOW=1h"}},
			[]string{"env LOOPBREAKER_BREAKERS_0_WINDOW: breakers cannot be set from the environment; list its entries in loopbreaker.yaml"}},
		{"flag refused", fixture{flags: map[string]string{"breakers": "scope=global"}},
			[]string{"flag --set breakers: breakers cannot be set with --set; list its entries in loopbreaker.yaml"}},
		{"flag entry field refused", fixture{flags: map[string]string{"breakers[0].window": "1h"}},
			[]string{"flag --set breakers[0].window: breakers cannot be set with --set"}},
		{"template scope in a file", fixture{project: "breaker_template:\n  window: 2h\n  scope: global\n"},
			[]string{"loopbreaker.yaml:3: breaker_template.scope is not used: the template applies to any scope not listed in breakers"}},
		{"template scope dotted", fixture{project: "breaker_template.scope: global\n"},
			[]string{"loopbreaker.yaml:1: breaker_template.scope is not used"}},
		{"template scope in env", fixture{env: []string{"LOOPBREAKER_BREAKER_TEMPLATE_SCOPE=global"}},
			[]string{"env LOOPBREAKER_BREAKER_TEMPLATE_SCOPE: breaker_template.scope is not used: the template applies to any scope not listed in breakers"}},
		{"template scope as flag", fixture{flags: map[string]string{"breaker_template.scope": "global"}},
			[]string{"flag --set breaker_template.scope: breaker_template.scope is not used"}},
		{"template typo", fixture{project: "breaker_template:\n  treshold: 3\n"},
			[]string{`loopbreaker.yaml:2: unknown key "breaker_template.treshold" (did you mean "breaker_template.failure_threshold"?)`}},
		{"list misspelt", fixture{project: "breaker:\n  - scope: global\n"},
			[]string{`loopbreaker.yaml:1: unknown key "breaker" (did you mean "breakers"?)`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantErr(t, tt.fix.options(t), tt.want...) })
	}
}

func TestBreakersValidate(t *testing.T) {
	tests := []struct {
		name string
		fix  fixture
		want []string
	}{
		{"entry field", fixture{project: "breakers:\n  - scope: global\n  - scope: stakes:high\n    window: 0s\n"},
			[]string{"project loopbreaker.yaml:4: breakers[1].window must be positive, got 0s"}},
		{"bad scope names the scope's line", fixture{project: "breakers:\n  - failure_threshold: 2\n    scope: stake:high\n"},
			[]string{`project loopbreaker.yaml:3: breakers[0].scope: scope "stake:high": unknown kind "stake"`}},
		{"field taken from the template", fixture{
			project: "breakers:\n  - scope: global\n",
			env:     []string{"LOOPBREAKER_BREAKER_TEMPLATE_FAILURE_THRESHOLD=0"},
		}, []string{"env LOOPBREAKER_BREAKER_TEMPLATE_FAILURE_THRESHOLD: breakers[0].failure_threshold must be at least 1, got 0",
			"(breakers[0] leaves failure_threshold out, so it comes from breaker_template.failure_threshold)"}},
		{"template itself", fixture{project: "breaker_template:\n  cooldown: -1m\n"},
			[]string{"project loopbreaker.yaml:2: breaker_template.cooldown must not be negative"}},
		{"run", fixture{env: []string{"LOOPBREAKER_RUN_KEEP_OUTPUTS=-1"}},
			[]string{"run.keep_outputs must not be negative", "run.keep_outputs from env LOOPBREAKER_RUN_KEEP_OUTPUTS"}},
		{"server", fixture{project: "server:\n  max_body_bytes: 0\n"},
			[]string{"project loopbreaker.yaml:2: server.max_body_bytes must be positive"}},
		{"evict_after", fixture{flags: map[string]string{"evict_after": "0"}},
			[]string{"flag --set evict_after: evict_after must be positive"}},
		{"on_calls_per_hour", fixture{project: "budget:\n  on_calls_per_hour: wait\n"},
			[]string{`budget.on_calls_per_hour must be "halt" (open the breaker) or "pause"`}},
		{"completion_signals", fixture{flags: map[string]string{"run.completion_signals": "0"}},
			[]string{"run.completion_signals must be at least 1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { wantErr(t, tt.fix.options(t), tt.want...) })
	}
}

func TestNewScalarKeys(t *testing.T) {
	l := mustLoad(t, fixture{
		project: "run:\n  iteration_timeout: 20m\n  keep_outputs: 10\n  checkpoint: false\nevict_after: 2h\nserver:\n  addr: \":8080\"\nnotify:\n  webhook_url: https://example.com/hook\n  debounce: 0\n",
		env:     []string{"LOOPBREAKER_NOTIFY_RETRIES=0", "LOOPBREAKER_SCOPE_FILES_IN_SCOPE=.loopbreaker/scope.json"},
		flags:   map[string]string{"server.max_body_bytes": "4096", "notify.timeout": "2s"},
	}.options(t))
	c := l.Config
	want := loopbreaker.Defaults()
	want.Run = loopbreaker.RunConfig{IterationTimeout: 20 * time.Minute, MaxWait: 6 * time.Hour, KeepOutputs: 10, Checkpoint: false, CompletionSignals: 1}
	want.EvictAfter = 2 * time.Hour
	want.Server = loopbreaker.ServerConfig{Addr: ":8080", MaxBodyBytes: 4096}
	want.Notify = loopbreaker.NotifyConfig{WebhookURL: "https://example.com/hook", Debounce: 0, Retries: 0, Timeout: 2 * time.Second}
	want.Scope.FilesInScope = ".loopbreaker/scope.json"
	if !reflect.DeepEqual(c, want) {
		t.Errorf("config =\n%+v\nwant\n%+v", c, want)
	}
}

func TestPrintLists(t *testing.T) {
	l := mustLoad(t, fixture{project: breakersFile}.options(t))
	const wantBreakers = `[{"scope":"stakes:high","failure_threshold":3,"window":"24h","cooldown":"1h","notify":true},` +
		`{"scope":"category:auth","failure_threshold":2,"window":"2h","cooldown":"30m","notify":false}]`

	t.Run("key", func(t *testing.T) {
		// The whole list, one entry a line, that the table only sums up.
		var buf bytes.Buffer
		if err := l.PrintKey(&buf, "breakers", false); err != nil {
			t.Fatal(err)
		}
		want := "breakers (project loopbreaker.yaml:14):\n" +
			`  - {"scope":"stakes:high","failure_threshold":3,"window":"24h","cooldown":"1h","notify":true}` + "\n" +
			`  - {"scope":"category:auth","failure_threshold":2,"window":"2h","cooldown":"30m","notify":false}` + "\n"
		if buf.String() != want {
			t.Errorf("config breakers printed\n%s\nwant\n%s", buf.String(), want)
		}
		if err := l.PrintKey(&buf, "breaker", false); err == nil || !strings.Contains(err.Error(), `no setting "breaker"`) {
			t.Errorf("an unknown key: %v", err)
		}
	})

	t.Run("text", func(t *testing.T) {
		var buf bytes.Buffer
		if err := l.Print(&buf, false); err != nil {
			t.Fatal(err)
		}
		lines := map[string]string{}
		count := map[string]int{}
		for _, line := range strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n") {
			key, rest, _ := strings.Cut(line, " ")
			count[key]++
			lines[key] = strings.Join(strings.Fields(rest), " ")
		}
		for _, k := range Keys() {
			if count[k.Key] != 1 {
				t.Errorf("%s printed %d times", k.Key, count[k.Key])
			}
			delete(count, k.Key)
		}
		if len(count) > 0 {
			t.Errorf("lines for keys that are not keys: %v", count)
		}
		for key, want := range map[string]string{
			"breakers":                "[2 entries] (whole: loopbreaker config breakers) project loopbreaker.yaml:14",
			"scope.allow":             `["src/**"] project loopbreaker.yaml:8`,
			"scope.justify":           "[] default",
			"scope.files_in_scope":    `"" default`,
			"breaker_template.window": "2h project loopbreaker.yaml:12",
		} {
			if lines[key] != want {
				t.Errorf("%s: printed %q, want %q", key, lines[key], want)
			}
		}
		if strings.Contains(buf.String(), "breakers[") || strings.Contains(buf.String(), "breaker_template.scope") {
			t.Errorf("entries or the template scope printed as keys:\n%s", buf.String())
		}
	})

	t.Run("json", func(t *testing.T) {
		var buf bytes.Buffer
		if err := l.Print(&buf, true); err != nil {
			t.Fatal(err)
		}
		var rows []struct {
			Key    string          `json:"key"`
			Value  json.RawMessage `json:"value"`
			Source string          `json:"source"`
			Origin string          `json:"origin"`
		}
		if err := json.Unmarshal(buf.Bytes(), &rows); err != nil {
			t.Fatalf("JSON does not parse: %v\n%s", err, buf.String())
		}
		byKey := map[string]int{}
		for i, r := range rows {
			byKey[r.Key] = i
		}
		for key, want := range map[string]string{
			"breakers":      wantBreakers,
			"scope.allow":   `["src/**"]`,
			"scope.deny":    `["secrets/**"]`,
			"scope.justify": `[]`,
		} {
			i, ok := byKey[key]
			if !ok {
				t.Errorf("no row for %s", key)
				continue
			}
			var got, exp any
			if err := json.Unmarshal(rows[i].Value, &got); err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal([]byte(want), &exp); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, exp) {
				t.Errorf("%s = %s, want %s", key, rows[i].Value, want)
			}
		}
		if r := rows[byKey["breakers"]]; r.Source != KindProject || r.Origin != "loopbreaker.yaml:14" {
			t.Errorf("breakers from %s %s", r.Source, r.Origin)
		}
	})
}

// The printed value of a list is valid YAML for the same key, so a line of
// `loopbreaker config` can be pasted into loopbreaker.yaml.
func TestPrintedListsLoadBack(t *testing.T) {
	first := mustLoad(t, fixture{project: breakersFile}.options(t))
	var b strings.Builder
	for _, key := range []string{"breakers", "scope.allow", "scope.deny", "scope.justify"} {
		b.WriteString(key + ": " + valueOf(t, first, key) + "\n")
	}
	second := mustLoad(t, fixture{project: b.String()}.options(t))
	if !reflect.DeepEqual(first.Config.Breakers, second.Config.Breakers) ||
		!reflect.DeepEqual(first.Config.Scope, second.Config.Scope) {
		t.Errorf("printed lists do not load back:\n%s\n%+v %+v\nwant\n%+v %+v", b.String(),
			second.Config.Breakers, second.Config.Scope, first.Config.Breakers, first.Config.Scope)
	}
}

// The commented example in the sample works once uncommented.
func TestSampleBreakersExample(t *testing.T) {
	sample := SampleYAML()
	var out []string
	inExample := false
	for _, line := range strings.Split(sample, "\n") {
		switch {
		case line == "breakers: []":
			continue // replaced by the example
		case line == "# breakers:":
			inExample = true
			out = append(out, "breakers:")
			continue
		case inExample && strings.HasPrefix(line, "#   "):
			out = append(out, strings.TrimPrefix(line, "# "))
			continue
		}
		inExample = false
		out = append(out, line)
	}
	l := mustLoad(t, fixture{project: strings.Join(out, "\n")}.options(t))
	want := []loopbreaker.BreakerConfig{{Scope: "stakes:high", FailureThreshold: 3, Window: 24 * time.Hour, Cooldown: time.Hour, Notify: true}}
	if !reflect.DeepEqual(l.Config.Breakers, want) {
		t.Errorf("example loads to %+v, want %+v", l.Config.Breakers, want)
	}
	if !strings.Contains(sample, "\nbreakers: []\n") {
		t.Errorf("sample does not show the empty default list")
	}
}

func TestKeysOfLists(t *testing.T) {
	byKey := map[string]KeyInfo{}
	for _, k := range Keys() {
		byKey[k.Key] = k
	}
	for key, want := range map[string]struct{ typ, def string }{
		"breakers":                           {TypeMappingList, "[]"},
		"scope.allow":                        {TypeStringList, "[]"},
		"breaker_template.failure_threshold": {TypeInt, "5"},
		"evict_after":                        {TypeDuration, "24h"},
		"server.addr":                        {TypeString, "127.0.0.1:7777"},
		"server.max_body_bytes":              {TypeInt, "1048576"},
	} {
		k, ok := byKey[key]
		if !ok || k.Type != want.typ || k.Default != want.def {
			t.Errorf("%s: %+v, want type %s default %s", key, k, want.typ, want.def)
		}
	}
	for key := range byKey {
		if strings.HasPrefix(key, "breakers.") || strings.HasPrefix(key, "breakers[") || key == "breaker_template.scope" {
			t.Errorf("%s should not be a key", key)
		}
	}
}

// A user file may hold breakers too; its entries name the user file.
func TestBreakersInUserFile(t *testing.T) {
	opts := fixture{user: "breakers:\n  - scope: global\n    window: 5h\n"}.options(t)
	l := mustLoad(t, opts)
	path := filepath.Join(opts.UserConfigDir, "loopbreaker", "config.yaml")
	if got, want := l.SourceOf("breakers[0].window"), (Source{Kind: KindUser, Name: path, Line: 3}); got != want {
		t.Errorf("SourceOf = %+v, want %+v", got, want)
	}
	if got, want := l.SourceOf("breakers[0].cooldown"), (Source{Kind: KindDefault}); got != want {
		t.Errorf("SourceOf inherited default = %+v, want %+v", got, want)
	}
}
