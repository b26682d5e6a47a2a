package report

import (
	"fmt"
	"path"
	"strings"

	"github.com/loopbreaker/loopbreaker/errsig"
	"github.com/loopbreaker/loopbreaker/internal/lazyre"
)

// Assertion shapes of common test frameworks, one line each: "expected
// 409, got 500" (many), "want 409, got 500", "got 500, want 409" (Go).
var (
	expectedGotRE = lazyre.New(`(?i)\bexpected\b[\s:]*(.+?)[,;]?\s+(?:but\s+)?(?:got|received|was|actual|found)\b[\s:]*(.+)$`)
	wantGotRE     = lazyre.New(`(?i)\bwant(?:ed)?\b[\s:]*(.+?)[,;]?\s+got\b[\s:]*(.+)$`)
	gotWantRE     = lazyre.New(`(?i)\bgot\b[\s:]*(.+?)[,;]?\s+want(?:ed)?\b[\s:]*(.+)$`)
	// Labelled lines on their own: testify ("expected: 409" / "actual  :
	// 500"), Jest ("Expected: 409" / "Received: 500").
	expectedLineRE = lazyre.New(`(?im)^\s*(?:expected|want(?:ed)?)\s*:\s*(.+?)\s*$`)
	actualLineRE   = lazyre.New(`(?im)^\s*(?:actual|got|received)\s*:\s*(.+?)\s*$`)
	// Go's "Add(2, 3) = -1, want 5" (the call, what it gave, what the test
	// wants), after an optional "calc_test.go:7: ".
	goEqualsWantRE = lazyre.New(`^(?:\S+\.go:\d+: )?(.+?) = (.+?),\s+want(?:ed)?\b[\s:]*(.+)$`)
	// pytest's assertion rewriting: "E       assert -1 == 5" and
	// "E        +  where -1 = add(2, 3)". By pytest's convention the left
	// side is what the code gave; only pytest's own "E" lines are read, a
	// bare "assert a == b" does not say which side is expected.
	pytestAssertRE = lazyre.New(`(?m)^E\s+assert (.+?) == (.+?)\s*$`)
	pytestWhereRE  = lazyre.New(`(?m)^E\s+\+\s+where (.+?) = (.+?)\s*$`)
	// Rust's assert_eq!: "  left: -1" / " right: 5" (older: backquoted,
	// with a comma); assert_eq!(actual, expected) is the usual order.
	cargoLeftRE  = lazyre.New("(?m)^\\s*left:\\s*(?:`([^`]*)`,?|(.+?),?)\\s*$")
	cargoRightRE = lazyre.New("(?m)^\\s*right:\\s*(?:`([^`]*)`.*|(.+?),?)\\s*$")
)

// expected is what the test expects and where that came from.
type expected struct {
	text   string
	source string
	// value is the expected value alone ("409"), got what was produced,
	// when the failure message states them.
	value, got string
}

// expectation says what the test expects: the caller's knowledge first,
// then the failure message's own words, else where to look.
func expectation(known, failure, test string) expected {
	if k := strings.TrimSpace(known); k != "" {
		return expected{text: clip(oneLine(k), 2*maxLineBytes), source: "options"}
	}
	if want, got, line, ok := parseAssertion(failure); ok {
		return expected{
			text:   fmt.Sprintf("expects %s (the failure message says: %s)", want, withoutNoise(line)),
			source: "failure message", value: want, got: got,
		}
	}
	where := "the slice's contract or the test's source"
	if test != "" {
		where = fmt.Sprintf("the assertion in %s's source or the slice's contract", test)
	}
	if failure == "" {
		return expected{text: "unknown: no failure message was recorded; read " + where, source: "unknown"}
	}
	return expected{text: "unknown: the failure message does not state an expected value; read " + where, source: "unknown"}
}

// withoutNoise is a failure line as errsig normalises it: temp
// directories and addresses differ from run to run and say nothing about
// what the test expects. The assertion's own place (calc_test.go:42: ) is
// kept: it says where to read the test.
func withoutNoise(line string) string {
	if m := assertionPlaceRE.FindStringSubmatch(line); m != nil {
		return m[1] + errsig.Normalize(m[2])
	}
	return errsig.Normalize(line)
}

var assertionPlaceRE = lazyre.New(`^([\w./-]+:\d+: )(.*)$`)

// parseAssertion finds "expected X, got Y" in any of its usual shapes and
// returns X, Y and the line it read them from.
func parseAssertion(msg string) (want, got, line string, ok bool) {
	for l := range strings.Lines(msg) {
		l = strings.TrimSpace(l)
		if m := expectedGotRE.FindStringSubmatch(l); m != nil {
			return value(m[1]), value(m[2]), clip(l, maxLineBytes), true
		}
		if m := wantGotRE.FindStringSubmatch(l); m != nil {
			return value(m[1]), value(m[2]), clip(l, maxLineBytes), true
		}
		if m := gotWantRE.FindStringSubmatch(l); m != nil {
			return value(m[2]), value(m[1]), clip(l, maxLineBytes), true
		}
		if m := goEqualsWantRE.FindStringSubmatch(l); m != nil {
			return value(m[3]), value(m[2]), clip(l, maxLineBytes), true
		}
	}
	if m := pytestAssertRE.FindStringSubmatch(msg); m != nil {
		line := "assert " + m[1] + " == " + m[2]
		if w := pytestWhereRE.FindStringSubmatch(msg); w != nil && strings.TrimSpace(w[1]) == strings.TrimSpace(m[1]) {
			line += " (where " + w[1] + " = " + w[2] + ")"
		}
		return value(m[2]), value(m[1]), clip(line, maxLineBytes), true
	}
	if l := cargoLeftRE.FindStringSubmatch(msg); l != nil {
		if r := cargoRightRE.FindStringSubmatch(msg); r != nil {
			lv, rv := value(l[1]+l[2]), value(r[1]+r[2])
			return rv, lv, clip("assert_eq: left: "+lv+" / right: "+rv+" (left is taken as the actual value)", maxLineBytes), true
		}
	}
	if e := expectedLineRE.FindStringSubmatch(msg); e != nil {
		if a := actualLineRE.FindStringSubmatch(msg); a != nil {
			w, g := value(e[1]), value(a[1])
			return w, g, clip("expected: "+w+" / actual: "+g, maxLineBytes), true
		}
	}
	return "", "", "", false
}

func value(s string) string {
	s = strings.TrimRight(strings.TrimSpace(s), ",;.")
	// A remark in parentheses after the value that holds the run's noise
	// (a temp directory, an address) is no part of it.
	if i := strings.LastIndex(s, " ("); i > 0 && strings.HasSuffix(s, ")") && errsig.Normalize(s[i:]) != strings.TrimSpace(s[i:]) {
		s = strings.TrimSpace(s[:i])
	}
	return clip(s, maxLineBytes/2)
}

// sourcePathRE matches file paths with a source-like extension. A match
// counts only with a directory or a line number, so that "response.json()"
// or "fmt.Println" are not taken for files.
var sourcePathRE = lazyre.New(`[A-Za-z0-9_.@+\-/\\]*[A-Za-z0-9_\-]\.(?:go|py|js|mjs|cjs|jsx|ts|tsx|rs|java|kt|kts|rb|php|c|h|cc|cpp|cxx|hpp|cs|swift|scala|sql|ya?ml|json|toml|sh|vue|svelte|ex|exs|erl|hs|ml|lua|dart|css|scss|html|proto)\b(:\d+)?`)

// filesInText lists the project files an error names, in order, without
// test files (tests are the truth, not the suspect) and without toolchain
// or dependency paths.
func filesInText(text string) []string {
	var out []string
	for _, m := range sourcePathRE.FindAllStringSubmatch(text, 200) {
		p, lineNo := m[0], m[1]
		p = strings.TrimSuffix(p, lineNo)
		p = strings.ReplaceAll(p, `\`, "/")
		if lineNo == "" && !strings.Contains(p, "/") {
			continue
		}
		p = strings.TrimPrefix(p, "./")
		if isTestFile(p) || isOutsideProject(p) {
			continue
		}
		if !containsPath(out, p) {
			out = append(out, p)
		}
	}
	return out
}

func isTestFile(p string) bool {
	base := path.Base(p)
	return strings.Contains(base, "_test.") || strings.HasPrefix(base, "test_") ||
		strings.Contains(base, ".test.") || strings.Contains(base, ".spec.") || strings.Contains(base, "_spec.") ||
		strings.Contains(p, "/__tests__/")
}

func isOutsideProject(p string) bool {
	for _, s := range []string{"/pkg/mod/", "/usr/local/go/", "/usr/lib/go", "/goroot/", "node_modules/", "site-packages/", "dist-packages/", "/lib/python", "/rustc/", "/.cargo/registry/"} {
		if strings.Contains(p, s) {
			return true
		}
	}
	return false
}

// samePath reports whether two spellings name the same file: an error may
// print an absolute path where the attempt recorded a relative one.
func samePath(a, b string) bool {
	a, b = strings.TrimPrefix(a, "./"), strings.TrimPrefix(b, "./")
	if a == b {
		return true
	}
	if len(a) < len(b) {
		a, b = b, a
	}
	return strings.HasSuffix(a, "/"+b)
}

func containsPath(list []string, p string) bool {
	for _, q := range list {
		if samePath(q, p) {
			return true
		}
	}
	return false
}
