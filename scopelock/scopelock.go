// Package scopelock is the slice's scope lock: it tells,
// for a file an agent wants to edit, whether the edit is allowed, needs a
// one-sentence justification tied to the failing test, or is refused.
//
// The configuration is the scope section of loopbreaker.yaml
// (loopbreaker.ScopeConfig): allow, justify and deny globs, and
// files_in_scope, a JSON file listing the slice's files.
//
// Classify decides with this precedence, first match wins:
//
//  1. no scope configured (no glob, no files_in_scope): None, everything
//     goes — the lock is off;
//  2. a path outside the project, or an empty path: Deny;
//  3. loopbreaker's own files (loopbreaker.yaml, loopbreaker.yml, the
//     .loopbreaker/ state directory and the files_in_scope file): Deny, so
//     an agent cannot widen its own scope or edit the breaker's state;
//  4. scope.deny globs: Deny;
//  5. scope.allow globs and files_in_scope entries: Allow;
//  6. scope.justify globs: Justify;
//  7. anything else: Justify — out of scope needs a justification.
//
// Globs use path.Match syntax on slash-separated paths relative to the
// project root, anchored at the root ("*.go" matches main.go, not
// cmd/main.go), plus "**", which matches any number of directories
// (zero included): "**/*.go", "src/**", "docs/**/index.md". A pattern
// ending in "/" matches everything under that directory.
package scopelock

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/breaker"
)

// Verdict is what the scope lock says about editing one file.
type Verdict string

const (
	// None: no scope is configured, every edit is allowed.
	None Verdict = "none"
	// Allow: the file is in scope; no justification needed.
	Allow Verdict = "allow"
	// Justify: the edit needs a one-sentence justification tied to the
	// failing test (`loopbreaker scope justify`).
	Justify Verdict = "justify"
	// Deny: the edit is refused.
	Deny Verdict = "deny"
)

// Verdicts recorded in loopbreaker.ScopeViolation.Verdict.
const (
	RecordJustified = "justified"
	RecordViolation = "violation"
)

// protectedFiles are loopbreaker's own files, relative to the project:
// editing them would let an agent change its own limits.
var protectedFiles = [...]string{lb.ProjectFile, lb.ProjectFileAlt, ".loopbreaker/**"}

// Lock is a loaded scope configuration for one project.
type Lock struct {
	// roots are the project directory as given and with symbolic links
	// resolved, both absolute: a file may be named through either.
	roots      []string
	configured bool
	deny       []rule
	allow      []rule
	justify    []rule
	inScope    []rule
	protected  []rule
	// FilesInScope are the files_in_scope entries, normalised.
	filesInScope []string
	cfg          lb.ScopeConfig
}

// rule is one glob and the configuration key it came from.
type rule struct {
	key     string // e.g. scope.deny[1]
	pattern string // normalised
	// segments is pattern split on "/".
	segments []string
	// literal is set for files_in_scope entries: they match themselves
	// exactly as well as a glob.
	literal bool
}

// Match says why a file got its verdict.
type Match struct {
	// File is the path relative to the project, slash-separated ("" when
	// it is outside the project).
	File    string  `json:"file"`
	Verdict Verdict `json:"verdict"`
	// Rule names what decided: a key and its pattern, e.g.
	// `scope.deny[0] "db/migrations/**"`, or a short explanation.
	Rule string `json:"rule"`
}

// Load reads the scope configuration of the project in projectDir.
// cfg.FilesInScope, when set, names a JSON file ({"files_in_scope":
// ["path", ...]}) relative to projectDir; a missing or malformed file, or
// a bad glob, is an error that names it and says what to fix.
func Load(projectDir string, cfg lb.ScopeConfig) (*Lock, error) {
	root, err := filepath.Abs(projectDir)
	if err != nil {
		return nil, fmt.Errorf("scope lock: resolve the project directory %q: %w", projectDir, err)
	}
	l := &Lock{roots: []string{filepath.Clean(root)}, cfg: cfg}
	if real, err := filepath.EvalSymlinks(root); err == nil && real != root {
		l.roots = append(l.roots, real)
	}
	for _, g := range []struct {
		key  string
		pats []string
		dst  *[]rule
	}{
		{"scope.deny", cfg.Deny, &l.deny},
		{"scope.allow", cfg.Allow, &l.allow},
		{"scope.justify", cfg.Justify, &l.justify},
	} {
		for i, p := range g.pats {
			r, err := newRule(fmt.Sprintf("%s[%d]", g.key, i), p, false)
			if err != nil {
				return nil, err
			}
			*g.dst = append(*g.dst, r)
		}
	}
	if cfg.FilesInScope != "" {
		if err := l.loadFilesInScope(cfg.FilesInScope); err != nil {
			return nil, err
		}
	}
	l.configured = len(l.deny)+len(l.allow)+len(l.justify) > 0 || cfg.FilesInScope != ""
	for _, p := range protectedFiles {
		r, _ := newRule("loopbreaker's own files", p, false)
		l.protected = append(l.protected, r)
	}
	if cfg.FilesInScope != "" {
		if rel, ok := l.rel(cfg.FilesInScope); ok {
			r, err := newRule("the scope.files_in_scope file", rel, true)
			if err == nil {
				l.protected = append(l.protected, r)
			}
		}
	}
	return l, nil
}

// loadFilesInScope reads the files_in_scope JSON file.
func (l *Lock) loadFilesInScope(name string) error {
	file := name
	if !filepath.IsAbs(file) {
		file = filepath.Join(l.roots[0], file)
	}
	const want = `{"files_in_scope": ["src/cart.ts", "src/cart/**"]}`
	data, err := os.ReadFile(file)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("scope.files_in_scope: %s does not exist: create it as %s, or remove scope.files_in_scope from loopbreaker.yaml", file, want)
		}
		return fmt.Errorf("scope.files_in_scope: read %s: %w: make it readable, or remove scope.files_in_scope from loopbreaker.yaml", file, err)
	}
	var doc struct {
		Files *[]string `json:"files_in_scope"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		return fmt.Errorf("scope.files_in_scope: %s is not valid: %v: write it as %s", file, err, want)
	}
	if doc.Files == nil {
		return fmt.Errorf("scope.files_in_scope: %s has no \"files_in_scope\" list: write it as %s", file, want)
	}
	for i, p := range *doc.Files {
		key := fmt.Sprintf("files_in_scope[%d] (%s)", i, name)
		if strings.TrimSpace(p) == "" {
			return fmt.Errorf("scope.files_in_scope: %s: entry %d is empty: remove it or name a file relative to the project", file, i)
		}
		rel := p
		if filepath.IsAbs(p) {
			var ok bool
			if rel, ok = l.rel(p); !ok {
				return fmt.Errorf("scope.files_in_scope: %s: entry %d %q is outside the project %s: list files relative to the project root", file, i, p, l.roots[0])
			}
		}
		r, err := newRule(key, rel, true)
		if err != nil {
			return fmt.Errorf("scope.files_in_scope: %s: entry %d: %w", file, i, err)
		}
		l.inScope = append(l.inScope, r)
		l.filesInScope = append(l.filesInScope, r.pattern)
	}
	return nil
}

// newRule normalises and checks a glob.
func newRule(key, pattern string, literal bool) (rule, error) {
	p := strings.TrimSpace(filepath.ToSlash(pattern))
	dir := strings.HasSuffix(p, "/")
	// Patterns are anchored at the project root: a leading "/" or "./"
	// says the same thing.
	p = strings.TrimLeft(p, "/")
	if p == "" {
		return rule{}, fmt.Errorf("%s %q: empty pattern: name files relative to the project root, e.g. src/** or src/cart.ts", key, pattern)
	}
	p = path.Clean(p)
	if p == "." {
		return rule{}, fmt.Errorf("%s %q: names the project root itself: use ** for every file", key, pattern)
	}
	if p == ".." || strings.HasPrefix(p, "../") {
		return rule{}, fmt.Errorf("%s %q: leaves the project: name files relative to the project root", key, pattern)
	}
	if dir {
		p += "/**"
	}
	r := rule{key: key, pattern: p, segments: strings.Split(p, "/"), literal: literal}
	for _, s := range r.segments {
		if s == "**" {
			continue
		}
		if _, err := path.Match(s, ""); err != nil {
			if literal {
				// A listed file name with a stray "[" still matches itself.
				r.segments = nil
				return r, nil
			}
			return rule{}, fmt.Errorf("%s %q: bad glob (%v): use path.Match syntax (*, ?, [a-z], \\ to escape) plus ** for any number of directories", key, pattern, err)
		}
	}
	return r, nil
}

// match reports whether the normalised relative path rel matches r.
func (r rule) match(rel string) bool {
	if r.literal && rel == r.pattern {
		return true
	}
	if r.segments == nil {
		return false
	}
	return matchSegments(r.segments, strings.Split(rel, "/"))
}

// matchSegments matches pattern segments against path segments; "**"
// stands for zero or more whole segments.
func matchSegments(pat, name []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			// Collapse consecutive "**" and try every split point.
			for len(pat) > 0 && pat[0] == "**" {
				pat = pat[1:]
			}
			if len(pat) == 0 {
				return true
			}
			for i := 0; i <= len(name); i++ {
				if matchSegments(pat, name[i:]) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 {
			return false
		}
		if ok, _ := path.Match(pat[0], name[0]); !ok {
			return false
		}
		pat, name = pat[1:], name[1:]
	}
	return len(name) == 0
}

// Configured reports whether any scope is configured; when it is not,
// every file is None.
func (l *Lock) Configured() bool { return l != nil && l.configured }

// Config is the configuration the lock was loaded from.
func (l *Lock) Config() lb.ScopeConfig {
	if l == nil {
		return lb.ScopeConfig{}
	}
	return l.cfg
}

// FilesInScope lists the entries of the files_in_scope file, normalised.
func (l *Lock) FilesInScope() []string {
	if l == nil {
		return nil
	}
	return append([]string(nil), l.filesInScope...)
}

// Rel returns file as a clean slash-separated path relative to the
// project; ok is false when file is empty or outside the project. file may
// be absolute or relative to the project directory.
func (l *Lock) Rel(file string) (rel string, ok bool) {
	if l == nil {
		return "", false
	}
	return l.rel(file)
}

func (l *Lock) rel(file string) (string, bool) {
	if strings.TrimSpace(file) == "" {
		return "", false
	}
	if !filepath.IsAbs(file) {
		file = filepath.Join(l.roots[0], file)
	}
	file = filepath.Clean(file)
	for _, root := range l.roots {
		r, err := filepath.Rel(root, file)
		if err != nil {
			continue
		}
		r = filepath.ToSlash(r)
		if r == ".." || strings.HasPrefix(r, "../") {
			continue
		}
		return r, true
	}
	return "", false
}

// Classify says whether file may be edited; file is absolute or relative
// to the project directory. See the package documentation for the
// precedence. A nil Lock has no scope: None.
func (l *Lock) Classify(file string) Verdict { return l.Explain(file).Verdict }

// Explain is Classify with the rule that decided.
func (l *Lock) Explain(file string) Match {
	if !l.Configured() {
		rel, _ := l.Rel(file)
		return Match{File: rel, Verdict: None, Rule: "no scope configured"}
	}
	rel, ok := l.rel(file)
	if !ok {
		if strings.TrimSpace(file) == "" {
			return Match{Verdict: Deny, Rule: "empty path"}
		}
		return Match{Verdict: Deny, Rule: "outside the project " + l.roots[0]}
	}
	first := func(rules []rule) (rule, bool) {
		for _, r := range rules {
			if r.match(rel) {
				return r, true
			}
		}
		return rule{}, false
	}
	if r, ok := first(l.protected); ok {
		return Match{File: rel, Verdict: Deny, Rule: r.key}
	}
	if r, ok := first(l.deny); ok {
		return Match{File: rel, Verdict: Deny, Rule: fmt.Sprintf("%s %q", r.key, r.pattern)}
	}
	if r, ok := first(l.allow); ok {
		return Match{File: rel, Verdict: Allow, Rule: fmt.Sprintf("%s %q", r.key, r.pattern)}
	}
	if r, ok := first(l.inScope); ok {
		return Match{File: rel, Verdict: Allow, Rule: r.key}
	}
	if r, ok := first(l.justify); ok {
		return Match{File: rel, Verdict: Justify, Rule: fmt.Sprintf("%s %q", r.key, r.pattern)}
	}
	return Match{File: rel, Verdict: Justify, Rule: "not in scope (matches no scope.allow glob nor files_in_scope)"}
}

// Justified reports whether st records a justification (a ScopeViolation
// with Verdict "justified") for file in slice. file should be relative to
// the project as Lock.Rel returns it (Lock.Justified does that for you); it
// is cleaned before comparing. An empty slice means the state's current
// slice, as the engine records it.
func Justified(st *lb.BreakerState, slice, file string) bool {
	return findJustification(st, slice, file) != nil
}

// Justification returns the recorded justification of file in slice, or
// nil; the arguments are as for Justified.
func Justification(st *lb.BreakerState, slice, file string) *lb.ScopeViolation {
	return findJustification(st, slice, file)
}

// Justified is the package function Justified with file normalised
// relative to the project first.
func (l *Lock) Justified(st *lb.BreakerState, slice, file string) bool {
	if rel, ok := l.Rel(file); ok {
		file = rel
	}
	return Justified(st, slice, file)
}

func findJustification(st *lb.BreakerState, slice, file string) *lb.ScopeViolation {
	if st == nil {
		return nil
	}
	slice = EffectiveSlice(st, slice)
	file = cleanRel(file)
	for i := len(st.Violations) - 1; i >= 0; i-- {
		v := &st.Violations[i]
		if v.Verdict == RecordJustified && EffectiveSlice(st, v.Slice) == slice && cleanRel(v.File) == file {
			return v
		}
	}
	return nil
}

// EffectiveSlice is the slice an event naming slice is recorded under: the
// slice itself, else the state's current slice, else the engine's default.
func EffectiveSlice(st *lb.BreakerState, slice string) string {
	if slice != "" {
		return slice
	}
	if st != nil && st.Slice != "" {
		return st.Slice
	}
	return breaker.DefaultSlice
}

// cleanRel cleans a relative path for comparison.
func cleanRel(p string) string {
	p = filepath.ToSlash(p)
	if p == "" {
		return ""
	}
	return strings.TrimPrefix(path.Clean(p), "./")
}
