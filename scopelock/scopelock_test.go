package scopelock

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	lb "github.com/loopbreaker/loopbreaker"
)

func writeFile(t *testing.T, dir, name, content string) {
	t.Helper()
	full := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mustLoad(t *testing.T, dir string, cfg lb.ScopeConfig) *Lock {
	t.Helper()
	l, err := Load(dir, cfg)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return l
}

func TestMatchSegments(t *testing.T) {
	for _, tc := range []struct {
		pattern, path string
		want          bool
	}{
		{"*.go", "main.go", true},
		{"*.go", "cmd/main.go", false}, // anchored at the root
		{"**/*.go", "main.go", true},   // ** matches zero directories
		{"**/*.go", "cmd/lb/main.go", true},
		{"**/*.go", "cmd/lb/main.ts", false},
		{"src/**", "src", true},
		{"src/**", "src/a/b/c.ts", true},
		{"src/**", "srcx/a.ts", false},
		{"src/**/test_*.py", "src/test_a.py", true},
		{"src/**/test_*.py", "src/x/y/test_a.py", true},
		{"src/**/test_*.py", "src/x/y/a_test.py", false},
		{"a/**/b/**/c", "a/b/c", true},
		{"a/**/b/**/c", "a/x/b/y/z/c", true},
		{"a/**/b/**/c", "a/x/y/z/c", false},
		{"a/**/**/c", "a/c", true},
		{"src/*", "src/a.ts", true},
		{"src/*", "src/a/b.ts", false}, // * does not cross "/"
		{"src/?.ts", "src/a.ts", true},
		{"src/[ab].ts", "src/b.ts", true},
		{"src/[ab].ts", "src/c.ts", false},
		{"**", "anything/at/all", true},
		{"db/migrations/", "db/migrations/001.sql", true}, // a trailing "/" is the directory's content
		{"./src/a.ts", "src/a.ts", true},
		{"/src/a.ts", "src/a.ts", true},
	} {
		r, err := newRule("test", tc.pattern, false)
		if err != nil {
			t.Fatalf("newRule(%q): %v", tc.pattern, err)
		}
		if got := r.match(tc.path); got != tc.want {
			t.Errorf("%q matches %q = %v, want %v", tc.pattern, tc.path, got, tc.want)
		}
	}
}

func TestBadGlobsAreErrorsNamingTheKey(t *testing.T) {
	for _, tc := range []struct {
		cfg  lb.ScopeConfig
		want string
	}{
		{lb.ScopeConfig{Deny: []string{"ok/**", "bad["}}, `scope.deny[1] "bad["`},
		{lb.ScopeConfig{Allow: []string{""}}, `scope.allow[0] "": empty pattern`},
		{lb.ScopeConfig{Justify: []string{"../elsewhere/*"}}, "leaves the project"},
		{lb.ScopeConfig{Allow: []string{"."}}, "names the project root"},
	} {
		_, err := Load(t.TempDir(), tc.cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Load(%+v) = %v, want an error containing %q", tc.cfg, err, tc.want)
		}
	}
}

func TestClassifyPrecedence(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "graph/GRAPH.json", `{"files_in_scope": ["src/cart/service.ts", "src/cart/types/**", "src/db/schema.ts"]}`)
	l := mustLoad(t, dir, lb.ScopeConfig{
		Allow:        []string{"src/cart/**", "**/*.test.ts", "src/shared/format.ts"},
		Justify:      []string{"src/shared/**", "src/cart/**", "package.json"},
		Deny:         []string{"src/routes/**", "src/db/**", "src/shared/format.ts"},
		FilesInScope: "graph/GRAPH.json",
	})
	for _, tc := range []struct {
		file string
		want Verdict
		rule string
	}{
		{"src/cart/cart.ts", Allow, "scope.allow[0]"},            // allow beats justify
		{"src/cart/deep/x/y.ts", Allow, "scope.allow[0]"},        // ** at depth
		{"src/routes/cart.test.ts", Deny, "scope.deny[0]"},       // deny beats allow
		{"src/shared/format.ts", Deny, "scope.deny[2]"},          // deny beats an exact allow
		{"src/db/schema.ts", Deny, "scope.deny[1]"},              // deny beats files_in_scope
		{"src/cart/types/money.ts", Allow, "scope.allow[0]"},     // allow glob first
		{"src/shared/util.ts", Justify, "scope.justify[0]"},      // justify glob
		{"package.json", Justify, "scope.justify[2]"},            // justify glob
		{"README.md", Justify, "not in scope"},                   // anything else needs a justification
		{"lib/other.test.ts", Allow, "scope.allow[1]"},           // **/ at the root level
		{"./src/cart/../cart/cart.ts", Allow, "scope.allow[0]"},  // cleaned
		{filepath.Join(dir, "src", "cart", "a.ts"), Allow, ""},   // absolute inside
		{"/etc/passwd", Deny, "outside the project"},             // absolute outside
		{"../sibling/x.ts", Deny, "outside the project"},         // relative outside
		{"src/../../x.ts", Deny, "outside the project"},          // escapes after cleaning
		{"", Deny, "empty path"},                                 // no file
		{"loopbreaker.yaml", Deny, "loopbreaker's own files"},    // the breaker's own configuration
		{".loopbreaker/state/x.json", Deny, "loopbreaker's own"}, // the breaker's state
		{"graph/GRAPH.json", Deny, "files_in_scope file"},        // the agent cannot widen its scope
	} {
		m := l.Explain(tc.file)
		if m.Verdict != tc.want || !strings.Contains(m.Rule, tc.rule) {
			t.Errorf("Explain(%q) = %+v, want %s by %q", tc.file, m, tc.want, tc.rule)
		}
		if got := l.Classify(tc.file); got != m.Verdict {
			t.Errorf("Classify(%q) = %s, Explain says %s", tc.file, got, m.Verdict)
		}
	}
}

func TestFilesInScopeAllowsListedFilesOnly(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "GRAPH.json", `{"files_in_scope": ["src/cart.ts", "./src/cart/", "src/weird[1].ts", "`+filepath.ToSlash(filepath.Join(dir, "abs.ts"))+`"], "other": 1}`)
	l := mustLoad(t, dir, lb.ScopeConfig{FilesInScope: "GRAPH.json"})
	for _, tc := range []struct {
		file string
		want Verdict
	}{
		{"src/cart.ts", Allow},
		{"src/cart/a/b.ts", Allow}, // a listed directory
		{"src/weird[1].ts", Allow}, // a literal name that is a bad glob still matches itself
		{"abs.ts", Allow},          // listed as an absolute path inside the project
		{"src/cart.tsx", Justify},
		{"src/order.ts", Justify},
	} {
		if got := l.Classify(tc.file); got != tc.want {
			t.Errorf("Classify(%q) = %s, want %s", tc.file, got, tc.want)
		}
	}
	if got := strings.Join(l.FilesInScope(), ","); got != "src/cart.ts,src/cart/**,src/weird[1].ts,abs.ts" {
		t.Errorf("FilesInScope() = %s", got)
	}
}

func TestFilesInScopeErrorsSayWhatToFix(t *testing.T) {
	for _, tc := range []struct {
		name, content string
		want          []string
	}{
		{"missing", "", []string{"does not exist", `{"files_in_scope": [`, "remove scope.files_in_scope"}},
		{"malformed", `{"files_in_scope": ["a.ts",}`, []string{"is not valid", "write it as"}},
		{"not a list", `{"files_in_scope": "a.ts"}`, []string{"is not valid"}},
		{"no key", `{"files": ["a.ts"]}`, []string{`has no "files_in_scope" list`}},
		{"empty entry", `{"files_in_scope": ["a.ts", " "]}`, []string{"entry 1 is empty"}},
		{"outside", `{"files_in_scope": ["/elsewhere/a.ts"]}`, []string{"outside the project"}},
		{"escaping", `{"files_in_scope": ["../a.ts"]}`, []string{"leaves the project"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.name != "missing" {
				writeFile(t, dir, "scope.json", tc.content)
			}
			_, err := Load(dir, lb.ScopeConfig{FilesInScope: "scope.json"})
			if err == nil {
				t.Fatal("Load succeeded")
			}
			msg := err.Error()
			for _, w := range append([]string{filepath.Join(dir, "scope.json")}, tc.want...) {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not contain %q", msg, w)
				}
			}
		})
	}
}

func TestNoScopeConfiguredAllowsEverything(t *testing.T) {
	dir := t.TempDir()
	l := mustLoad(t, dir, lb.ScopeConfig{})
	if l.Configured() {
		t.Fatal("Configured() with an empty configuration")
	}
	for _, f := range []string{"src/a.ts", "loopbreaker.yaml", "/etc/passwd", ""} {
		if got := l.Classify(f); got != None {
			t.Errorf("Classify(%q) = %s, want none", f, got)
		}
	}
	var nilLock *Lock
	if got := nilLock.Classify("a.go"); got != None {
		t.Errorf("nil Lock: Classify = %s, want none", got)
	}
}

func TestSymlinkedProjectDirectory(t *testing.T) {
	real := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(real, link); err != nil {
		t.Skip("symbolic links unavailable:", err)
	}
	l := mustLoad(t, link, lb.ScopeConfig{Allow: []string{"src/**"}})
	for _, f := range []string{filepath.Join(link, "src/a.go"), filepath.Join(real, "src/a.go")} {
		if got := l.Classify(f); got != Allow {
			t.Errorf("Classify(%q) = %s, want allow", f, got)
		}
	}
}

func TestJustified(t *testing.T) {
	st := lb.NewBreakerState("session:default")
	st.Slice = "S2"
	st.Violations = []lb.ScopeViolation{
		{File: "src/shared/a.ts", Test: "T1", Slice: "S1", Justification: "x", Verdict: RecordJustified},
		{File: "src/shared/b.ts", Test: "T1", Slice: "S2", Justification: "y", Verdict: RecordJustified},
		{File: "src/shared/c.ts", Test: "T1", Slice: "S2", Verdict: RecordViolation},
		{File: "src/shared/d.ts", Slice: "default", Justification: "z", Verdict: RecordJustified},
	}
	for _, tc := range []struct {
		slice, file string
		want        bool
	}{
		{"S1", "src/shared/a.ts", true},
		{"S2", "src/shared/a.ts", false}, // a justification belongs to its slice
		{"", "src/shared/a.ts", false},   // "" is the current slice, S2
		{"", "src/shared/b.ts", true},
		{"", "./src/shared/b.ts", true},  // cleaned
		{"S2", "src/shared/c.ts", false}, // a violation is no justification
		{"S2", "src/shared/zzz.ts", false},
	} {
		if got := Justified(st, tc.slice, tc.file); got != tc.want {
			t.Errorf("Justified(%q, %q) = %v, want %v", tc.slice, tc.file, got, tc.want)
		}
	}
	// With no current slice, events are recorded under the engine's default.
	st.Slice = ""
	if !Justified(st, "", "src/shared/d.ts") {
		t.Error("a justification recorded under the default slice is not found with slice \"\"")
	}
	if Justified(nil, "S1", "src/shared/a.ts") {
		t.Error("Justified(nil state) = true")
	}
	dir := t.TempDir()
	l := mustLoad(t, dir, lb.ScopeConfig{Allow: []string{"x"}})
	if !l.Justified(st, "S1", filepath.Join(dir, "src", "shared", "a.ts")) {
		t.Error("Lock.Justified does not normalise an absolute path")
	}
}
