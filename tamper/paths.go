package tamper

import (
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// mode is what a command does to a path it names.
type mode int

const (
	// modeWrite changes the path: the path itself or one inside a
	// protected directory matters.
	modeWrite mode = iota
	// modeDelete removes the path and all below it: a directory holding a
	// protected path matters too.
	modeDelete
)

// analyzer collects the findings of one call.
type analyzer struct {
	prot    *Protected
	entries []entry
	// cwd is the working directory of the command being read; "" when
	// unknown (after `cd $DIR`).
	cwd string
	// cwds are the directories the subshells being read started in.
	cwds  []string
	found []Finding
}

func (a *analyzer) add(f Finding) {
	if !slices.Contains(a.found, f) {
		a.found = append(a.found, f)
	}
}

// path checks a literal path a command or tool changes.
func (a *analyzer) path(name string, m mode, via string) {
	a.word(arg{Text: name, Known: true}, m, via)
}

// word checks a word naming a path; an unknown word (an expansion the
// classifier cannot see) says nothing.
func (a *analyzer) word(w arg, m mode, via string) {
	if !w.Known || w.Text == "" {
		return
	}
	name := a.expandTilde(w.Text)
	var comps []string
	relative := !filepath.IsAbs(name)
	switch {
	case !relative:
		comps = split(filepath.Clean(name))
	case a.cwd != "":
		comps = split(filepath.Join(a.cwd, name))
		relative = false
	default:
		comps = strings.Split(filepath.ToSlash(filepath.Clean(name)), "/")
	}
	for _, e := range a.entries {
		if matches(comps, relative, w.Glob, e, m) {
			a.add(Finding{Kind: e.kind, Target: "/" + path.Join(e.path...), Via: via})
		}
	}
}

func (a *analyzer) expandTilde(s string) string {
	if a.prot.Home == "" {
		return s
	}
	if s == "~" {
		return a.prot.Home
	}
	if rest, ok := strings.CutPrefix(s, "~/"); ok {
		return filepath.Join(a.prot.Home, rest)
	}
	return s
}

// matches says whether comps (a path, or a glob when glob) reaches the
// protected entry e under mode m. A relative path whose base is unknown
// (after `cd "$DIR"`) is matched against every position of e's path, but
// only by what names loopbreaker's files: the path itself or one inside
// it, or a hidden directory holding it (`.local`, `.claude`); a plain
// name (`rm -rf state`) or a bare `*` there is more likely a scratch
// directory's than the project's.
func matches(comps []string, relative, glob bool, e entry, m mode) bool {
	if !relative {
		return matchFrom(comps, e, m, glob)
	}
	if glob && allWild(comps) {
		return false
	}
	for start := 1; start < len(e.path); start++ {
		tail := e.path[start:]
		if m == modeDelete && len(comps) < len(tail) && !strings.HasPrefix(comps[0], ".") {
			continue
		}
		if matchFrom(comps, entry{path: tail, dir: e.dir}, m, glob) {
			return true
		}
	}
	return false
}

// allWild: every component is a bare wildcard (`*`, `*/*`).
func allWild(comps []string) bool {
	for _, c := range comps {
		if strings.Trim(c, "*?") != "" {
			return false
		}
	}
	return true
}

// matchFrom compares two paths from their first component: the same
// path, a path inside a protected directory, or (deleting) a directory
// that holds the protected path.
func matchFrom(comps []string, e entry, m mode, glob bool) bool {
	n := min(len(comps), len(e.path))
	for i := range n {
		if !component(comps[i], e.path[i], glob) {
			return false
		}
	}
	switch {
	case len(comps) == len(e.path):
		return true
	case len(comps) > len(e.path):
		return e.dir
	default:
		return m == modeDelete
	}
}

// component matches one path component, as a glob when glob. As in a
// shell, a wildcard does not match a leading dot.
func component(pat, name string, glob bool) bool {
	if !glob || !strings.ContainsAny(pat, "*?[") {
		return pat == name
	}
	if strings.HasPrefix(name, ".") && !strings.HasPrefix(pat, ".") {
		return false
	}
	// A shell's [!x] is path.Match's [^x].
	ok, err := path.Match(strings.ReplaceAll(pat, "[!", "[^"), name)
	return ok && err == nil
}
