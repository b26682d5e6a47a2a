package tamper

import (
	"path"
	"path/filepath"
	"strings"
)

// find checks `find START... EXPRESSION` that deletes what it finds
// (-delete, or -exec/-execdir/-ok of rm): each starting point is deleted
// as far as the expression lets it. A starting point inside a protected
// directory counts whatever the tests. Without a name test that can be
// read, all below a starting point may go, so one that holds a protected
// path counts (`find "$XDG_STATE_HOME" -mindepth 1 -delete`). With
// -name/-iname tests, a protected path below the starting point counts
// when a test matches one of its components there
// (`find . -name 'loopbreaker.y*ml' -delete`), so that
// `find . -name '*.pyc' -delete` in the project is left alone. A negation
// (`!`, -not) or a test whose pattern is computed is read as no name
// test.
func (a *analyzer) find(args []arg) {
	i := 0
	for i < len(args) && !(args[i].Known && (strings.HasPrefix(args[i].Text, "-") || args[i].Text == "(" || args[i].Text == "!")) {
		i++
	}
	starts, expr := args[:i], args[i:]
	deletes, readable := false, true
	var names []string
	for j := 0; j < len(expr); j++ {
		w := expr[j]
		if !w.Known {
			continue
		}
		switch w.Text {
		case "-delete":
			deletes = true
		case "-exec", "-execdir", "-ok", "-okdir":
			if j+1 < len(expr) && expr[j+1].Known {
				switch filepath.Base(expr[j+1].Text) {
				case "rm", "rmdir", "unlink", "shred":
					deletes = true
				}
			}
		case "!", "-not":
			readable = false
		case "-name", "-iname":
			if j+1 < len(expr) {
				j++
				if expr[j].Known {
					names = append(names, expr[j].Text)
				} else {
					readable = false
				}
			}
		}
	}
	if !deletes {
		return
	}
	if len(starts) == 0 {
		starts = []arg{{Text: ".", Known: true}}
	}
	for _, st := range starts {
		if len(names) == 0 || !readable || st.Glob {
			a.word(st, modeDelete, "find -delete")
			continue
		}
		a.findNamed(st, names)
	}
}

// findNamed checks a starting point of a find that deletes only what
// names matches.
func (a *analyzer) findNamed(start arg, names []string) {
	if !start.Known {
		return
	}
	name := a.expandTilde(start.Text)
	if !filepath.IsAbs(name) {
		if a.cwd == "" {
			// Relative to an unknown directory: as a path.
			a.word(start, modeWrite, "find -delete")
			return
		}
		name = filepath.Join(a.cwd, name)
	}
	comps := split(filepath.Clean(name))
	for _, e := range a.entries {
		if len(comps) >= len(e.path) {
			// At or inside the entry: inside a protected directory any
			// deletion counts.
			if e.dir && hasPrefix(comps, e.path) || len(comps) == len(e.path) && hasPrefix(comps, e.path) {
				a.add(Finding{Kind: e.kind, Target: "/" + path.Join(e.path...), Via: "find -delete"})
			}
			continue
		}
		if !hasPrefix(e.path, comps) {
			continue
		}
		for _, c := range e.path[len(comps):] {
			if nameMatches(names, c) {
				a.add(Finding{Kind: e.kind, Target: "/" + path.Join(e.path...), Via: "find -delete"})
				break
			}
		}
	}
}

func hasPrefix(p, prefix []string) bool {
	if len(prefix) > len(p) {
		return false
	}
	for i := range prefix {
		if p[i] != prefix[i] {
			return false
		}
	}
	return true
}

// nameMatches: one of find's -name patterns matches a file name. find
// matches a leading dot with a wildcard; every test is also matched
// without case (-iname), which errs towards a refusal.
func nameMatches(names []string, name string) bool {
	for _, n := range names {
		if ok, err := path.Match(n, name); ok && err == nil {
			return true
		}
		if ok, err := path.Match(strings.ToLower(n), strings.ToLower(name)); ok && err == nil {
			return true
		}
	}
	return false
}
