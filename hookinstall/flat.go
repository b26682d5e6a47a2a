package hookinstall

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"

	"github.com/loopbreaker/loopbreaker/hook"
)

// A flat hooks document lists each event's handlers directly, with no
// matcher groups: {"version": 1, "hooks": {EVENT: [HANDLER, ...]}}. The
// merge keeps any handler that is not loopbreaker's; each handler's
// command may name its own event.

// flatDoc is a flat hooks document, read.
type flatDoc struct {
	// other are the top-level keys besides "hooks", as written.
	other map[string]json.RawMessage
	// events in file order, with their handlers.
	events   []string
	handlers map[string][]json.RawMessage
}

func parseFlat(data []byte) (*flatDoc, error) {
	d := &flatDoc{other: map[string]json.RawMessage{}, handlers: map[string][]json.RawMessage{}}
	if len(bytes.TrimSpace(data)) == 0 {
		return d, nil
	}
	obj, err := parseObject(data)
	if err != nil {
		return nil, fmt.Errorf("not a JSON object (%v): fix the file, or add the hooks by hand", err)
	}
	for _, m := range obj.members {
		if m.key != "hooks" {
			d.other[m.key] = m.raw
			continue
		}
		hooks, err := parseObject(m.raw)
		if err != nil {
			return nil, fmt.Errorf(`"hooks" is not an object (%s): fix it by hand first`, hook.Excerpt(bytes.TrimSpace(m.raw), 40))
		}
		for _, ev := range hooks.members {
			hs, ok := objectElems(ev.raw)
			if !ok {
				return nil, fmt.Errorf(`"hooks.%s" is not a list of hooks: fix it by hand first`, ev.key)
			}
			if _, dup := d.handlers[ev.key]; !dup {
				d.events = append(d.events, ev.key)
			}
			d.handlers[ev.key] = append(d.handlers[ev.key], hs...)
		}
	}
	return d, nil
}

// handlerCommand is a handler's command (under f.CommandKey); ok is false
// for a handler that is no command of ours to judge.
func handlerCommand(f *Format, h json.RawMessage) (string, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(h, &m) != nil {
		return "", false
	}
	key := f.CommandKey
	if key == "" {
		key = "command"
	}
	var c string
	if json.Unmarshal(m[key], &c) != nil || c == "" {
		return "", false
	}
	return c, true
}

// render writes the document: "version" first, then "hooks", then the
// other keys in order of name; an empty document is "".
func (d *flatDoc) render() ([]byte, error) {
	var keys []string
	var vals []json.RawMessage
	if v, ok := d.other["version"]; ok {
		keys, vals = append(keys, "version"), append(vals, v)
	}
	var evKeys []string
	var evVals []json.RawMessage
	for _, ev := range d.events {
		if len(d.handlers[ev]) == 0 {
			continue
		}
		arr, err := compactArray(d.handlers[ev])
		if err != nil {
			return nil, err
		}
		evKeys, evVals = append(evKeys, ev), append(evVals, arr)
	}
	if len(evKeys) > 0 {
		h, err := compactObject(evKeys, evVals)
		if err != nil {
			return nil, err
		}
		keys, vals = append(keys, "hooks"), append(vals, h)
	}
	var rest []string
	for k := range d.other {
		if k != "version" {
			rest = append(rest, k)
		}
	}
	sort.Strings(rest)
	for _, k := range rest {
		keys, vals = append(keys, k), append(vals, d.other[k])
	}
	// Only a version left: nothing of anyone's.
	if len(keys) == 0 || len(keys) == 1 && keys[0] == "version" {
		return nil, nil
	}
	compact, err := compactObject(keys, vals)
	if err != nil {
		return nil, err
	}
	return render(compact, "", "  ", true)
}

// mergeFlat installs or uninstalls loopbreaker's handlers in a flat
// document: every handler of ours is taken out, then, to install, one per
// event of f's entries is put at the end of its event, running the program
// of command.
func mergeFlat(f *Format, data []byte, command string, install bool) ([]byte, []Change, error) {
	program, ok := hook.ProgramOf(f.Tool, command)
	if !ok {
		program = command
	}
	d, err := parseFlat(data)
	if err != nil {
		return nil, nil, err
	}
	before := map[string][]json.RawMessage{}
	for _, ev := range d.events {
		kept := d.handlers[ev][:0:0]
		for _, h := range d.handlers[ev] {
			if c, ok := handlerCommand(f, h); ok && hook.IsOurs(f.Tool, c, command) {
				before[ev] = append(before[ev], h)
				continue
			}
			kept = append(kept, h)
		}
		d.handlers[ev] = kept
	}
	var changes []Change
	var events []string
	for _, e := range f.Entries {
		events = append(events, e.Event)
	}
	if install {
		if _, ok := d.other["version"]; !ok && f.Version != "" {
			d.other["version"] = json.RawMessage(f.Version)
		}
		for _, ev := range events {
			ours := f.Handler(f.Command(program, ev))
			switch {
			case len(before[ev]) == 0:
				changes = append(changes, Change{ev, "added"})
			case len(before[ev]) > 1 || !sameJSON(before[ev][0], ours):
				changes = append(changes, Change{ev, "updated"})
			}
			if !slices.Contains(d.events, ev) {
				d.events = append(d.events, ev)
			}
			d.handlers[ev] = append(d.handlers[ev], ours)
		}
	}
	for _, ev := range d.events {
		if len(before[ev]) > 0 && (!install || !slices.Contains(events, ev)) {
			changes = append(changes, Change{ev, "removed"})
		}
	}
	if len(changes) == 0 {
		return data, nil, nil
	}
	out, err := d.render()
	if err != nil {
		return nil, nil, err
	}
	if out == nil {
		out = []byte("{}\n")
	}
	return out, changes, nil
}

// findFlat is FindInstalled for a flat document.
func findFlat(f *Format, data []byte) Installed {
	var in Installed
	d, err := parseFlat(data)
	if err != nil {
		return in
	}
	for _, ev := range d.events {
		for _, h := range d.handlers[ev] {
			c, ok := handlerCommand(f, h)
			if !ok {
				continue
			}
			prog, ok := hook.ProgramOf(f.Tool, c)
			if !ok {
				continue
			}
			if !slices.Contains(in.Events, ev) {
				in.Events = append(in.Events, ev)
			}
			if !slices.Contains(in.Programs, prog) {
				in.Programs = append(in.Programs, prog)
			}
		}
	}
	return in
}
