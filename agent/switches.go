package agent

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/loopbreaker/loopbreaker/hookinstall"
	"github.com/loopbreaker/loopbreaker/internal/safeopen"
)

// The switches that decide whether a CLI runs its hooks, as lines
// "PLACE: KEY = VALUE" for those that are set: a change of any of them
// between two hook calls of a session is a change of the guard, which a
// person must accept (see Agent.Switches).

// Reads reads a CLI's settings files for one look at them (a hook call's
// guard): each file once, so that the switches, the hooks and what is
// installed are read from the same bytes, and a file the guard reads
// three ways costs one read. A file an agent can replace is read without
// blocking, regular files only, up to safeopen.SmallFileLimit; a link is
// followed (a person's settings may live in their dotfiles). A nil *Reads
// reads every time.
type Reads struct {
	done map[string]fileRead
}

type fileRead struct {
	data []byte
	err  error
}

// ReadFile reads the settings file at path, once per Reads.
func (r *Reads) ReadFile(path string) ([]byte, error) {
	if r == nil {
		return safeopen.ReadFile(path, safeopen.FollowLinks, safeopen.SmallFileLimit)
	}
	if f, ok := r.done[path]; ok {
		return f.data, f.err
	}
	data, err := safeopen.ReadFile(path, safeopen.FollowLinks, safeopen.SmallFileLimit)
	if r.done == nil {
		r.done = map[string]fileRead{}
	}
	r.done[path] = fileRead{data, err}
	return data, err
}

// JSONSwitches are the switches among keys (dotted paths into the JSON
// document) set in each of files that exists, read through r.
func JSONSwitches(r *Reads, files []string, keys ...string) []string {
	var out []string
	for _, f := range files {
		data, err := r.ReadFile(f)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				out = append(out, f+": unreadable ("+err.Error()+")")
			}
			continue
		}
		var doc any
		if json.Unmarshal(stripLineComments(data), &doc) != nil {
			out = append(out, f+": not JSON")
			continue
		}
		for _, k := range keys {
			if v, ok := lookup(doc, strings.Split(k, ".")); ok {
				b, _ := json.Marshal(v)
				out = append(out, f+": "+k+" = "+string(b))
			}
		}
	}
	return out
}

// JSONEnv is what the object at key (a dotted path) of each of files
// sets, read through r, in the files' order and each file's keys sorted:
// the variables a CLI's settings put in its hooks' environment. A value
// that is not a string is given as its JSON. A file that cannot be read
// or is not JSON sets nothing (its switches say so).
func JSONEnv(r *Reads, files []string, key string) []SetVar {
	var out []SetVar
	for _, f := range files {
		data, err := r.ReadFile(f)
		if err != nil {
			continue
		}
		var doc any
		if json.Unmarshal(stripLineComments(data), &doc) != nil {
			continue
		}
		v, _ := lookup(doc, strings.Split(key, "."))
		obj, _ := v.(map[string]any)
		names := make([]string, 0, len(obj))
		for name := range obj {
			names = append(names, name)
		}
		slices.Sort(names)
		for _, name := range names {
			value, ok := obj[name].(string)
			if !ok {
				b, _ := json.Marshal(obj[name])
				value = string(b)
			}
			out = append(out, SetVar{File: f, Name: name, Value: value})
		}
	}
	return out
}

// lookup follows path through nested objects.
func lookup(doc any, path []string) (any, bool) {
	for _, p := range path {
		m, ok := doc.(map[string]any)
		if !ok {
			return nil, false
		}
		if doc, ok = m[p]; !ok {
			return nil, false
		}
	}
	return doc, true
}

// stripLineComments drops whole-line // comments (JSONC settings).
func stripLineComments(data []byte) []byte {
	lines := strings.Split(string(data), "\n")
	kept := lines[:0]
	for _, l := range lines {
		if !strings.HasPrefix(strings.TrimSpace(l), "//") {
			kept = append(kept, l)
		}
	}
	return []byte(strings.Join(kept, "\n"))
}

// DirSwitches are the files of each directory of dirs that exists, with
// a hash of their content: every file there is a hook, a plugin or an
// extension the CLI loads, and one added, removed or changed changes what
// runs.
func DirSwitches(dirs []string) []string {
	var out []string
	for _, d := range dirs {
		entries, err := os.ReadDir(d)
		if err != nil {
			continue
		}
		for _, e := range entries {
			what := "a directory"
			if !e.IsDir() {
				data, err := safeopen.ReadFile(filepath.Join(d, e.Name()), safeopen.NoLinks, safeopen.SmallFileLimit)
				if err != nil {
					what = "unreadable (" + err.Error() + ")"
				} else {
					sum := sha256.Sum256(data)
					what = hex.EncodeToString(sum[:8])
				}
			}
			out = append(out, d+": "+e.Name()+" = "+what)
		}
	}
	return out
}

// HookEntries are loopbreaker's hook entries in the settings files of
// format f, whole (event, matcher, handler with its timeout): a narrowed
// matcher or a timeout too short to answer silences the hook as surely as
// removing it. The files are read through r.
func HookEntries(r *Reads, f *hookinstall.Format, files []string) []string {
	var out []string
	for _, path := range files {
		data, err := r.ReadFile(path)
		if err != nil {
			continue
		}
		for _, e := range hookinstall.OurEntries(f, data) {
			out = append(out, path+": "+e)
		}
	}
	slices.Sort(out)
	return out
}

// HookEnv is what loopbreaker's own handlers in the settings files of
// format f set in their "env" object, read through r: a CLI that merges a
// handler's env into the environment it runs the handler in (Gemini CLI,
// Qwen Code) puts them in loopbreaker's.
func HookEnv(r *Reads, f *hookinstall.Format, files []string) []SetVar {
	var out []SetVar
	for _, path := range files {
		data, err := r.ReadFile(path)
		if err != nil {
			continue
		}
		for _, h := range hookinstall.OurHandlers(f, stripLineComments(data)) {
			var handler struct {
				Env map[string]any `json:"env"`
			}
			if json.Unmarshal(h, &handler) != nil {
				continue
			}
			names := make([]string, 0, len(handler.Env))
			for name := range handler.Env {
				names = append(names, name)
			}
			slices.Sort(names)
			for _, name := range names {
				value, ok := handler.Env[name].(string)
				if !ok {
					b, _ := json.Marshal(handler.Env[name])
					value = string(b)
				}
				out = append(out, SetVar{File: path, Name: name, Value: value})
			}
		}
	}
	return out
}

// EnvSwitches are the variables of set that keep chooses, as switch lines
// "FILE: env.NAME = "VALUE"": what a CLI's files set in its environment
// that decides whether, or through what, its hooks run.
func EnvSwitches(set []SetVar, keep func(name string) bool) []string {
	var out []string
	for _, v := range set {
		if keep(v.Name) {
			out = append(out, v.File+": env."+v.Name+" = "+strconv.Quote(v.Value))
		}
	}
	return out
}

// Named chooses the variables names.
func Named(names ...string) func(string) bool {
	return func(name string) bool { return slices.Contains(names, name) }
}
