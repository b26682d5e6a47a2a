package hookinstall

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"

	"github.com/loopbreaker/loopbreaker/hook"
)

// GitHub Copilot CLI reads every *.json of .github/hooks (project) and of
// $COPILOT_HOME/hooks (user): {"version": 1, "hooks": {EVENT: [HANDLER,
// ...]}}, each handler {"type": "command", "bash": CMD, "timeoutSec": N},
// with no matcher groups. loopbreaker keeps its hooks in a file of its own
// (hook.CopilotHooksFile), so that nothing of the person's is rewritten;
// the merge below still keeps any handler that is not loopbreaker's, in
// case the person put one in that file. Its payloads name no event, so each
// handler's command names its own (`loopbreaker hook copilot EVENT`).

// copilotTimeout is the handlers' timeoutSec.
const copilotTimeout = 10

// copilotHandler is loopbreaker's handler of event, for the program of
// the installed command.
func copilotHandler(program, event string) json.RawMessage {
	b, _ := hook.MarshalNoEscape(struct {
		Type    string `json:"type"`
		Bash    string `json:"bash"`
		Timeout int    `json:"timeoutSec"`
	}{"command", hook.EventCommand(program, hook.Copilot, event), copilotTimeout})
	return b
}

// copilotDoc is a Copilot hooks file, read.
type copilotDoc struct {
	// other are the top-level keys besides "hooks", as written.
	other map[string]json.RawMessage
	// events in file order, with their handlers.
	events   []string
	handlers map[string][]json.RawMessage
}

func parseCopilotDoc(data []byte) (*copilotDoc, error) {
	d := &copilotDoc{other: map[string]json.RawMessage{}, handlers: map[string][]json.RawMessage{}}
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

// copilotCommand is a handler's command; ok is false for a handler that
// is no command of ours to judge.
func copilotCommand(h json.RawMessage) (string, bool) {
	var c struct {
		Bash string `json:"bash"`
	}
	if json.Unmarshal(h, &c) != nil || c.Bash == "" {
		return "", false
	}
	return c.Bash, true
}

// render writes the document: "version" first, then "hooks", then the
// other keys in order of name; an empty document is "".
func (d *copilotDoc) render() ([]byte, error) {
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

// mergeCopilot installs (o != nil) or uninstalls loopbreaker's handlers in
// a Copilot hooks document: every handler of ours is taken out, then, to
// install, one per event of CopilotEvents is put at the end of its event,
// running the program of command.
func mergeCopilot(data []byte, command string, o *Options) ([]byte, []Change, error) {
	d, err := parseCopilotDoc(data)
	if err != nil {
		return nil, nil, err
	}
	before := map[string][]json.RawMessage{}
	for _, ev := range d.events {
		kept := d.handlers[ev][:0:0]
		for _, h := range d.handlers[ev] {
			if c, ok := copilotCommand(h); ok && hook.IsOurs(hook.Copilot, c, command) {
				before[ev] = append(before[ev], h)
				continue
			}
			kept = append(kept, h)
		}
		d.handlers[ev] = kept
	}
	var changes []Change
	if o != nil {
		program, ok := hook.ProgramOf(hook.Copilot, command)
		if !ok {
			program = command
		}
		if _, ok := d.other["version"]; !ok {
			d.other["version"] = json.RawMessage("1")
		}
		for _, ev := range hook.CopilotEvents() {
			ours := copilotHandler(program, ev)
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
		if len(before[ev]) > 0 && (o == nil || !slices.Contains(hook.CopilotEvents(), ev)) {
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

// findCopilotInstalled is FindInstalled for a Copilot hooks document.
func findCopilotInstalled(data []byte) Installed {
	var in Installed
	d, err := parseCopilotDoc(data)
	if err != nil {
		return in
	}
	for _, ev := range d.events {
		for _, h := range d.handlers[ev] {
			c, ok := copilotCommand(h)
			if !ok {
				continue
			}
			prog, ok := hook.ProgramOf(hook.Copilot, c)
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

// removeCopilotDirs removes, when uninstall removed loopbreaker's hooks
// file, the hooks directory it leaves empty, and then an empty .github of
// a project: the directories an install into a project without them
// made. Neither is removed when anything is left in it.
func removeCopilotDirs(sf settingsFile, res *FileResult) {
	dir := filepath.Dir(res.Path)
	sub := sf.dir()
	if sub == "" {
		if os.Remove(dir) == nil {
			res.RemovedDir = dir
		}
		return
	}
	for sub != "" && sub != "." {
		if sf.root.RemoveDir(sub) != nil {
			return
		}
		res.RemovedDir = dir
		dir = filepath.Dir(dir)
		sub = path.Dir(sub)
	}
}
