package hookinstall

import (
	"encoding/json"
	"slices"

	"github.com/loopbreaker/loopbreaker/hook"
)

// Installed is what a settings file holds of loopbreaker's hooks.
type Installed struct {
	// Events with a loopbreaker handler, in file order.
	Events []string `json:"events"`
	// Programs the handlers run (see ProgramOf), without repeats.
	Programs []string `json:"programs"`
}

// FindInstalled reads loopbreaker's handlers out of a settings document
// of f; an unreadable document holds none.
func FindInstalled(f *Format, data []byte) Installed {
	switch {
	case f.Find != nil:
		return f.Find(data)
	case f.Flat:
		return findFlat(f, data)
	}
	var in Installed
	obj, err := parseObject(data)
	if err != nil {
		return in
	}
	hooks := obj
	if !f.TopLevel {
		hi := obj.find("hooks")
		if hi < 0 {
			return in
		}
		if hooks, err = parseObject(obj.members[hi].raw); err != nil {
			return in
		}
	}
	for _, m := range hooks.members {
		var groups []struct {
			Hooks []struct {
				Command string `json:"command"`
			} `json:"hooks"`
		}
		if json.Unmarshal(m.raw, &groups) != nil {
			continue
		}
		found := false
		for _, g := range groups {
			for _, h := range g.Hooks {
				prog, ok := hook.ProgramOf(f.Tool, h.Command)
				if !ok {
					continue
				}
				found = true
				if !slices.Contains(in.Programs, prog) {
					in.Programs = append(in.Programs, prog)
				}
			}
		}
		if found && !slices.Contains(in.Events, m.key) {
			in.Events = append(in.Events, m.key)
		}
	}
	return in
}
