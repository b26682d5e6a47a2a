package hookinstall

import (
	"bytes"
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

// OurEntries are loopbreaker's entries in a settings document of f, whole,
// as compact JSON after their event: each matcher group that holds one of
// loopbreaker's handlers (each handler, in a flat document). What they say
// (the matcher, the timeout) decides whether the hook runs.
func OurEntries(f *Format, data []byte) []string {
	if f.Merge != nil {
		return nil
	}
	var doc map[string]json.RawMessage
	if json.Unmarshal(data, &doc) != nil {
		return nil
	}
	events := doc
	if !f.TopLevel {
		if json.Unmarshal(doc["hooks"], &events) != nil {
			return nil
		}
	}
	key := f.CommandKey
	if key == "" {
		key = "command"
	}
	ours := func(h json.RawMessage) bool {
		var m map[string]json.RawMessage
		var c string
		if json.Unmarshal(h, &m) != nil || json.Unmarshal(m[key], &c) != nil {
			return false
		}
		_, ok := hook.ProgramOf(f.Tool, c)
		return ok
	}
	var out []string
	for ev, raw := range events {
		var items []json.RawMessage
		if json.Unmarshal(raw, &items) != nil {
			continue
		}
		for _, it := range items {
			mine := ours(it)
			if !f.Flat {
				var g struct {
					Hooks []json.RawMessage `json:"hooks"`
				}
				if json.Unmarshal(it, &g) == nil {
					mine = slices.ContainsFunc(g.Hooks, ours)
				}
			}
			if mine {
				var b bytes.Buffer
				if json.Compact(&b, it) == nil {
					out = append(out, ev+": "+b.String())
				}
			}
		}
	}
	slices.Sort(out)
	return out
}
