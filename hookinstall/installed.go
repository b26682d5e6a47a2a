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
	var out []string
	walkOurs(f, data, func(ev string, entry json.RawMessage, _ []json.RawMessage) {
		var b bytes.Buffer
		if json.Compact(&b, entry) == nil {
			out = append(out, ev+": "+b.String())
		}
	})
	slices.Sort(out)
	return out
}

// OurHandlers are loopbreaker's handler objects in a settings document of
// f, in the document's order of events' entries: what the CLI runs as
// loopbreaker's hook (its command, and what the CLI adds to its
// environment, such as an "env").
func OurHandlers(f *Format, data []byte) []json.RawMessage {
	var out []json.RawMessage
	walkOurs(f, data, func(_ string, _ json.RawMessage, handlers []json.RawMessage) {
		out = append(out, handlers...)
	})
	return out
}

// walkOurs calls found with each entry of a settings document of f that
// holds one of loopbreaker's handlers (a matcher group, or the handler
// itself in a flat document), its event, and loopbreaker's handlers in
// it. Events come in sorted order.
func walkOurs(f *Format, data []byte, found func(event string, entry json.RawMessage, handlers []json.RawMessage)) {
	if f.Merge != nil {
		return
	}
	var doc map[string]json.RawMessage
	if json.Unmarshal(data, &doc) != nil {
		return
	}
	events := doc
	if !f.TopLevel {
		if json.Unmarshal(doc["hooks"], &events) != nil {
			return
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
	names := make([]string, 0, len(events))
	for ev := range events {
		names = append(names, ev)
	}
	slices.Sort(names)
	for _, ev := range names {
		var items []json.RawMessage
		if json.Unmarshal(events[ev], &items) != nil {
			continue
		}
		for _, it := range items {
			if f.Flat {
				if ours(it) {
					found(ev, it, []json.RawMessage{it})
				}
				continue
			}
			var g struct {
				Hooks []json.RawMessage `json:"hooks"`
			}
			if json.Unmarshal(it, &g) != nil {
				if ours(it) {
					found(ev, it, []json.RawMessage{it})
				}
				continue
			}
			if mine := slices.DeleteFunc(g.Hooks, func(h json.RawMessage) bool { return !ours(h) }); len(mine) > 0 {
				found(ev, it, mine)
			}
		}
	}
}
