package hookinstall

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/loopbreaker/loopbreaker/hook"
	"github.com/loopbreaker/loopbreaker/internal/nofollow"
)

// Entry is one hook loopbreaker installs: an event, the matcher of its
// group ("" = none, for events that take no matcher) and the handler.
type Entry struct {
	Event   string
	Matcher string
}

// Options tune what is installed.
type Options struct {
	// PostToolBatch adds Claude Code's PostToolBatch event (2.1.x), the
	// only one that reports tool calls rejected before they ran (an Edit
	// whose old text is not found). Claude Code 2.0.x drops every hook of
	// a settings file that names an event it does not know, so it is set
	// only for versions that know it (see KnowsPostToolBatch).
	PostToolBatch bool
}

// Entries lists the events loopbreaker hooks into for tool, in the order
// they are added to a settings file, with the default Options.
func Entries(tool hook.Tool) []Entry { return EntriesFor(tool, Options{}) }

// EntriesFor lists the events loopbreaker hooks into for tool.
func EntriesFor(tool hook.Tool, o Options) []Entry {
	switch tool {
	case hook.Claude:
		e := []Entry{
			{"PreToolUse", "*"}, {"PostToolUse", "*"}, {"PostToolUseFailure", "*"},
			{"Stop", ""}, {"UserPromptSubmit", ""}, {"SessionStart", ""},
		}
		if o.PostToolBatch {
			e = append(e, Entry{"PostToolBatch", ""})
		}
		return e
	case hook.Codex:
		// Omitted matchers match everything; Codex ignores them on
		// UserPromptSubmit and Stop anyway.
		return []Entry{
			{"PreToolUse", ""}, {"PostToolUse", ""}, {"Stop", ""},
			{"UserPromptSubmit", ""}, {"SessionStart", ""},
		}
	case hook.Qwen:
		return []Entry{
			{"PreToolUse", "*"}, {"PostToolUse", "*"}, {"PostToolUseFailure", "*"},
			{"Stop", ""}, {"UserPromptSubmit", ""}, {"SessionStart", ""},
		}
	case hook.Gemini:
		return []Entry{
			{"BeforeTool", "*"}, {"AfterTool", "*"}, {"BeforeAgent", ""},
			{"AfterAgent", ""}, {"SessionStart", ""},
		}
	case hook.Copilot:
		var e []Entry
		for _, ev := range hook.CopilotEvents() {
			e = append(e, Entry{Event: ev})
		}
		return e
	}
	return nil
}

// HandlerName is the name Gemini CLI shows for loopbreaker's hooks (and
// the handle of `/hooks disable`).
const HandlerName = "loopbreaker"

// handler is loopbreaker's handler object for tool: timeouts are 10 s
// (Claude, Codex, Qwen: seconds; Gemini: milliseconds).
func handler(tool hook.Tool, command string) json.RawMessage {
	var v any
	if tool == hook.Gemini {
		v = struct {
			Name    string `json:"name"`
			Type    string `json:"type"`
			Command string `json:"command"`
			Timeout int    `json:"timeout"`
		}{HandlerName, "command", command, 10000}
	} else {
		v = struct {
			Type    string `json:"type"`
			Command string `json:"command"`
			Timeout int    `json:"timeout"`
		}{"command", command, 10}
	}
	b, _ := hook.MarshalNoEscape(v)
	return b
}

func group(tool hook.Tool, e Entry, command string) json.RawMessage {
	keys := []string{"hooks"}
	vals := []json.RawMessage{mustArray(handler(tool, command))}
	if e.Matcher != "" {
		m, _ := json.Marshal(e.Matcher)
		keys = append([]string{"matcher"}, keys...)
		vals = append([]json.RawMessage{m}, vals...)
	}
	b, _ := compactObject(keys, vals)
	return b
}

func mustArray(elems ...json.RawMessage) json.RawMessage {
	b, _ := compactArray(elems)
	return b
}

// Change is one edit of a settings file.
type Change struct {
	Event string
	// Action is "added", "updated" or "removed".
	Action string
}

func (c Change) String() string { return c.Action + " " + c.Event }

// Install merges loopbreaker's hooks for tool into a settings document
// (empty data = no file yet) and returns the new document. It adds one
// group per event of Entries, or updates loopbreaker's handler where one
// exists (a re-install, or an install from another path), leaves every
// other hook, group and key alone, and removes loopbreaker handlers from
// events it no longer uses and duplicates. Installing twice changes
// nothing the second time: the bytes come back as given.
func Install(tool hook.Tool, data []byte, command string) ([]byte, []Change, error) {
	return merge(tool, data, command, &Options{})
}

// InstallWith is Install with Options.
func InstallWith(tool hook.Tool, data []byte, command string, o Options) ([]byte, []Change, error) {
	return merge(tool, data, command, &o)
}

// Uninstall removes loopbreaker's handlers for tool (see IsOurs) and the
// groups, event lists and hooks object that held nothing else; anything
// that was empty before stays.
func Uninstall(tool hook.Tool, data []byte, command string) ([]byte, []Change, error) {
	return merge(tool, data, command, nil)
}

// merge installs (o != nil) or uninstalls (o == nil).
func merge(tool hook.Tool, data []byte, command string, o *Options) ([]byte, []Change, error) {
	if tool == hook.Copilot {
		return mergeCopilot(data, command, o)
	}
	install := o != nil
	if tool == hook.Pi {
		return mergePi(data, command, install)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		if !install {
			return data, nil, nil
		}
		data = []byte("{}\n")
	}
	doc, err := parseObject(data)
	if err != nil {
		return nil, nil, fmt.Errorf("not a JSON object (%v): fix the file, or add the hooks by hand", err)
	}
	hi := doc.find("hooks")
	var hooks *object
	if hi >= 0 {
		m := doc.members[hi]
		if t := bytes.TrimSpace(m.raw); len(t) == 0 || t[0] != '{' {
			return nil, nil, fmt.Errorf(`"hooks" is not an object (%s): fix it by hand first`, hook.Excerpt(t, 40))
		}
		// Offsets into the document, so that edits can be spliced in.
		if hooks, err = parseSub(data, m.valStart, m.valEnd); err != nil {
			return nil, nil, fmt.Errorf(`"hooks": %v`, err)
		}
	}
	plan, err := planHooks(tool, hooks, command, o)
	if err != nil {
		return nil, nil, err
	}
	if len(plan.changes) == 0 {
		return data, nil, nil
	}
	ind, multiline := doc.indent()
	if !multiline && len(doc.members) == 0 {
		ind, multiline = "  ", true
	}
	unit := indentUnit(ind)
	if hooks == nil {
		val, err := render(plan.compact(), ind, unit, multiline)
		if err != nil {
			return nil, nil, err
		}
		return doc.addMember("hooks", val, ind, multiline), plan.changes, nil
	}
	if plan.empty() {
		return doc.removeMember(hi), plan.changes, nil
	}
	if out, ok := plan.splice(hooks, unit); ok {
		return out, plan.changes, nil
	}
	val, err := render(plan.compact(), lineIndent(doc.src, doc.members[hi].start), unit, multiline)
	if err != nil {
		return nil, nil, err
	}
	return doc.replaceValue(hi, val), plan.changes, nil
}

// parseSub parses the object src[from:to] and shifts its offsets so that
// they are offsets into src.
func parseSub(src []byte, from, to int) (*object, error) {
	o, err := parseObject(src[from:to])
	if err != nil {
		return nil, err
	}
	o.src = src
	o.open += from
	o.close += from
	for i := range o.members {
		o.members[i].start += from
		o.members[i].valStart += from
		o.members[i].valEnd += from
	}
	return o, nil
}

// render lays a compact value out at a member's indentation.
func render(compact []byte, prefix, unit string, multiline bool) ([]byte, error) {
	if !multiline {
		return compact, nil
	}
	var b bytes.Buffer
	if err := json.Indent(&b, compact, prefix, unit); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// hooksPlan is the edit of a hooks object: per existing key its new value
// (nil: removed; changed[i] false: untouched), then keys to add.
type hooksPlan struct {
	keys    []string
	vals    []json.RawMessage
	changed []bool
	addKeys []string
	addVals []json.RawMessage
	changes []Change
}

func (p *hooksPlan) empty() bool {
	if len(p.addKeys) > 0 {
		return false
	}
	for _, v := range p.vals {
		if v != nil {
			return false
		}
	}
	return true
}

// compact is the whole new hooks object.
func (p *hooksPlan) compact() []byte {
	var keys []string
	var vals []json.RawMessage
	for i, k := range p.keys {
		if p.vals[i] != nil {
			keys, vals = append(keys, k), append(vals, p.vals[i])
		}
	}
	keys, vals = append(keys, p.addKeys...), append(vals, p.addVals...)
	b, _ := compactObject(keys, vals)
	return b
}

// splice applies the plan to the document around the hooks object,
// rewriting only the event lists that change and leaving the rest of the
// object byte for byte. ok is false when the layout does not allow it
// (one-line object, or keys to add after a removed last key); the caller
// then renders the whole object.
func (p *hooksPlan) splice(h *object, unit string) ([]byte, bool) {
	ind, multiline := h.indent()
	n := len(h.members)
	if !multiline || n == 0 || p.vals[n-1] == nil && len(p.addKeys) > 0 {
		return nil, false
	}
	first := -1 // first kept member
	for i := range p.vals {
		if p.vals[i] != nil {
			first = i
			break
		}
	}
	if first < 0 {
		return nil, false
	}
	type edit struct {
		from, to int
		text     []byte
	}
	var edits []edit
	if first > 0 {
		edits = append(edits, edit{h.members[0].start, h.members[first].start, nil})
	}
	for i := first; i < n; i++ {
		m := h.members[i]
		switch {
		case p.vals[i] == nil:
			edits = append(edits, edit{h.members[i-1].valEnd, m.valEnd, nil})
		case p.changed[i]:
			val, err := render(p.vals[i], lineIndent(h.src, m.start), unit, true)
			if err != nil {
				return nil, false
			}
			edits = append(edits, edit{m.valStart, m.valEnd, val})
		}
	}
	if len(p.addKeys) > 0 {
		var ins []byte
		for i, k := range p.addKeys {
			kb, _ := json.Marshal(k)
			val, err := render(p.addVals[i], ind, unit, true)
			if err != nil {
				return nil, false
			}
			ins = append(ins, ",\n"...)
			ins = append(ins, ind...)
			ins = append(ins, kb...)
			ins = append(ins, ": "...)
			ins = append(ins, val...)
		}
		end := h.members[n-1].valEnd
		edits = append(edits, edit{end, end, ins})
	}
	// Edits are in document order and disjoint: apply them back to front.
	out := append([]byte(nil), h.src...)
	for i := len(edits) - 1; i >= 0; i-- {
		e := edits[i]
		out = append(out[:e.from], append(append([]byte(nil), e.text...), out[e.to:]...)...)
	}
	return out, true
}

// planHooks decides the edit of the hooks object h (nil: none yet).
func planHooks(tool hook.Tool, h *object, command string, o *Options) (*hooksPlan, error) {
	install := o != nil
	p := &hooksPlan{}
	if h != nil {
		for _, m := range h.members {
			p.keys = append(p.keys, m.key)
			p.vals = append(p.vals, m.raw)
		}
	}
	p.changed = make([]bool, len(p.keys))
	want := map[string]Entry{}
	var entries []Entry
	if install {
		entries = EntriesFor(tool, *o)
		for _, e := range entries {
			want[e.Event] = e
		}
	}
	ours := handler(tool, command)
	seen := map[string]bool{}
	for i, key := range p.keys {
		groups, ok := objectElems(p.vals[i])
		if !ok {
			// Not an event list (legacy "enabled"/"disabled" keys, or
			// something this version does not know): leave it.
			continue
		}
		e, wanted := want[key]
		if seen[key] {
			wanted = false // a duplicate key: keep ours in one place
		}
		newGroups, ec, err := mergeEvent(tool, key, groups, ours, command, wanted)
		if err != nil {
			return nil, err
		}
		if wanted {
			seen[key] = true
			if !ec.found {
				newGroups = append(newGroups, group(tool, e, command))
				ec.changes = append(ec.changes, Change{key, "added"})
			}
		}
		if len(ec.changes) == 0 {
			continue
		}
		p.changes = append(p.changes, ec.changes...)
		p.changed[i] = true
		if len(newGroups) == 0 && len(groups) > 0 {
			p.vals[i] = nil // emptied by us
			continue
		}
		arr, err := compactArray(newGroups)
		if err != nil {
			return nil, err
		}
		p.vals[i] = arr
	}
	if install {
		for _, e := range entries {
			if seen[e.Event] {
				continue
			}
			p.addKeys = append(p.addKeys, e.Event)
			p.addVals = append(p.addVals, mustArray(group(tool, e, command)))
			p.changes = append(p.changes, Change{e.Event, "added"})
		}
	}
	return p, nil
}

type eventChanges struct {
	found   bool
	changes []Change
}

// mergeEvent edits one event's groups: loopbreaker's first handler is
// kept (updated to the current command and timeout) when wanted, every
// other loopbreaker handler removed, groups emptied by a removal dropped.
func mergeEvent(tool hook.Tool, event string, groups []json.RawMessage, ours json.RawMessage, command string, wanted bool) ([]json.RawMessage, eventChanges, error) {
	var ec eventChanges
	out := make([]json.RawMessage, 0, len(groups))
	for _, g := range groups {
		obj, err := parseObject(g)
		if err != nil {
			return nil, ec, fmt.Errorf("hooks.%s: %v", event, err)
		}
		hi := obj.find("hooks")
		var handlers []json.RawMessage
		if hi < 0 || json.Unmarshal(obj.members[hi].raw, &handlers) != nil {
			out = append(out, g) // not a group we understand: leave it
			continue
		}
		kept := make([]json.RawMessage, 0, len(handlers))
		changed := false
		for _, h := range handlers {
			var hc struct {
				Command string `json:"command"`
			}
			if json.Unmarshal(h, &hc) != nil || !hook.IsOurs(tool, hc.Command, command) {
				kept = append(kept, h)
				continue
			}
			if wanted && !ec.found {
				ec.found = true
				if sameJSON(h, ours) {
					kept = append(kept, h)
				} else {
					kept = append(kept, ours)
					changed = true
					ec.changes = append(ec.changes, Change{event, "updated"})
				}
				continue
			}
			changed = true
			ec.changes = append(ec.changes, Change{event, "removed"})
		}
		switch {
		case !changed:
			out = append(out, g)
		case len(kept) == 0 && len(handlers) > 0:
			// emptied by us: drop the group
		default:
			keys := make([]string, len(obj.members))
			vals := make([]json.RawMessage, len(obj.members))
			for i, m := range obj.members {
				keys[i], vals[i] = m.key, m.raw
			}
			arr, err := compactArray(kept)
			if err != nil {
				return nil, ec, err
			}
			vals[hi] = arr
			b, err := compactObject(keys, vals)
			if err != nil {
				return nil, ec, err
			}
			out = append(out, b)
		}
	}
	return out, ec, nil
}

func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// Warnings are reasons the installed hooks may not run, read from a
// settings document: hooks switched off, or loopbreaker's hooks disabled
// by name.
func Warnings(tool hook.Tool, data []byte) []string {
	var doc map[string]json.RawMessage
	if json.Unmarshal(data, &doc) != nil {
		return nil
	}
	var out []string
	switch tool {
	case hook.Claude, hook.Qwen:
		var off bool
		if json.Unmarshal(doc["disableAllHooks"], &off) == nil && off {
			out = append(out, `"disableAllHooks": true in this file switches every hook off, loopbreaker's included; remove it for the hooks to run`)
		}
	case hook.Gemini:
		var hc struct {
			Enabled  *bool    `json:"enabled"`
			Disabled []string `json:"disabled"`
		}
		hasConfig := json.Unmarshal(doc["hooksConfig"], &hc) == nil && doc["hooksConfig"] != nil
		if hasConfig && hc.Enabled != nil && !*hc.Enabled {
			out = append(out, `"hooksConfig": {"enabled": false} switches hooks off; set it to true for loopbreaker's hooks to run (not changed for you)`)
		}
		if slices.Contains(hc.Disabled, HandlerName) {
			out = append(out, `"hooksConfig.disabled" lists "loopbreaker": its hooks stay off until you remove it`)
		}
		var tools struct {
			EnableHooks *bool `json:"enableHooks"`
		}
		if !hasConfig && json.Unmarshal(doc["tools"], &tools) == nil && tools.EnableHooks != nil && !*tools.EnableHooks {
			out = append(out, `"tools": {"enableHooks": false} switches hooks off in Gemini CLI before 0.26; set it to true (not changed for you)`)
		}
		var legacy struct {
			Disabled []string `json:"disabled"`
		}
		if json.Unmarshal(doc["hooks"], &legacy) == nil && slices.Contains(legacy.Disabled, HandlerName) {
			out = append(out, `"hooks.disabled" lists "loopbreaker": its hooks stay off until you remove it`)
		}
	}
	return out
}

// CodexConfigWarnings reads the config.toml next to a Codex hooks.json
// just enough to warn: hooks switched off in [features], or inline
// [hooks] tables that Codex merges with hooks.json (with a warning of its
// own).
func CodexConfigWarnings(dir string) []string {
	data, err := os.ReadFile(filepath.Join(dir, "config.toml"))
	if err != nil {
		return nil
	}
	var out []string
	section := ""
	inline := false
	for line := range strings.SplitSeq(string(data), "\n") {
		l := strings.TrimSpace(line)
		if i := strings.Index(l, "#"); i >= 0 && !strings.ContainsAny(l[:i], `"'`) {
			l = strings.TrimSpace(l[:i])
		}
		if strings.HasPrefix(l, "[") {
			section = strings.Trim(l, "[] ")
			if section == "hooks" || strings.HasPrefix(section, "hooks.") {
				inline = true
			}
			continue
		}
		k, v, ok := strings.Cut(l, "=")
		if !ok || section != "features" {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if (k == "hooks" || k == "codex_hooks") && v == "false" {
			out = append(out, fmt.Sprintf("%s: [features] %s = false switches hooks off; set it to true (not changed for you)", filepath.Join(dir, "config.toml"), k))
		}
	}
	if inline {
		out = append(out, fmt.Sprintf("%s also defines hooks inline ([hooks] tables): Codex merges them with hooks.json and warns; consider keeping one of the two", filepath.Join(dir, "config.toml")))
	}
	return out
}

// FileResult is what InstallFile or UninstallFile did.
type FileResult struct {
	// Path is the file written (symbolic links followed).
	Path    string
	Changes []Change
	// Backup is where the content from before loopbreaker's first install
	// is kept ("" when there is none). BackupWritten says whether this
	// call wrote it; a later install never overwrites it.
	Backup        string
	BackupWritten bool
	// Created: install created the file. Removed: uninstall deleted the
	// file install had created (and RemovedDir its directory, when
	// nothing else was left in it). Restored: uninstall put the backup
	// back byte for byte.
	Created    bool
	Removed    bool
	RemovedDir string
	Restored   bool
	// BackupDropped: the file changed besides loopbreaker's hooks since
	// the install, so uninstall removed only the hooks and dropped the
	// outdated backup.
	BackupDropped bool
	Warnings      []string
}

// InstallFile installs loopbreaker's hooks into the user's settings file
// at path (created with its directory when missing). A link at path (a
// dotfiles setup) is the user's own and is followed, once; the file's
// backup and temporary files beside its target are never reached through
// another link.
func InstallFile(tool hook.Tool, path, command string) (FileResult, error) {
	return editUserFile(tool, path, command, &Options{})
}

// InstallFileWith is InstallFile with Options.
func InstallFileWith(tool hook.Tool, path, command string, o Options) (FileResult, error) {
	return editUserFile(tool, path, command, &o)
}

// UninstallFile removes loopbreaker's hooks from the user's settings file
// at path, leaving nothing behind: a file the install created is deleted
// (with its .claude/.codex/.gemini/.qwen directory, or Copilot's hooks
// directory, when that is left empty), a file that existed gets its original bytes back from the
// backup, which is then removed. A missing file is nothing to do.
func UninstallFile(tool hook.Tool, path, command string) (FileResult, error) {
	return editUserFile(tool, path, command, nil)
}

// InstallProjectFile is InstallFileWith for the settings file of tool in
// project (SettingsPath with user false). A project can be a cloned
// repository, which can ship its settings file, the file's directory or
// its backup as a link to any file of the person's (~/.bashrc): below
// project nothing is followed, and a link or a file of another type there
// is an error that names it and says what to do.
func InstallProjectFile(tool hook.Tool, project, command string, o Options) (FileResult, error) {
	return editProjectFile(tool, project, command, &o)
}

// UninstallProjectFile is UninstallFile for the settings file of tool in
// project, with InstallProjectFile's rule for links.
func UninstallProjectFile(tool hook.Tool, project, command string) (FileResult, error) {
	return editProjectFile(tool, project, command, nil)
}

// projectLinkHint is what to do about a link in a project's settings.
const projectLinkHint = "loopbreaker never writes through a link in a project (a cloned repository can ship any link): remove it and run the command again"

// userLinkHint is what to do about a link beside a user's settings file.
const userLinkHint = "loopbreaker follows a link only at the settings file's own path: remove it and run the command again"

func editUserFile(tool hook.Tool, path, command string, o *Options) (FileResult, error) {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real // keep a dotfiles symlink a symlink
	}
	return editFile(tool, filepath.Dir(path), filepath.Base(path), command, o, userLinkHint)
}

func editProjectFile(tool hook.Tool, project, command string, o *Options) (FileResult, error) {
	path, err := hook.SettingsPath(tool, false, project, nil)
	if err != nil {
		return FileResult{}, err
	}
	rel, err := filepath.Rel(project, path)
	if err != nil {
		return FileResult{}, err
	}
	return editFile(tool, project, filepath.ToSlash(rel), command, o, projectLinkHint)
}

// settingsFile is a settings file below a directory the person chose,
// opened from it without following links.
type settingsFile struct {
	root *nofollow.Dir
	// rel is the file below root ("settings.json", ".claude/settings.json").
	rel string
}

func (sf settingsFile) backup() string { return sf.rel + hook.BackupSuffix }

// dir is the directory holding the file, below root ("" for root itself).
func (sf settingsFile) dir() string { return strings.TrimSuffix(path.Dir(sf.rel), ".") }

func editFile(tool hook.Tool, rootPath, rel, command string, o *Options, hint string) (FileResult, error) {
	install := o != nil
	res := FileResult{Path: filepath.Join(rootPath, filepath.FromSlash(rel))}
	root, err := openRoot(rootPath, hint, install)
	if root == nil || err != nil {
		return res, err // nil, nil: nothing to uninstall
	}
	defer root.Close()
	sf := settingsFile{root: root, rel: rel}
	data, err := root.ReadFile(rel)
	perm := fs.FileMode(0o644)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if !install {
			return res, nil
		}
		res.Created = true
	case err != nil:
		return res, err
	default:
		if fi, err := root.Lstat(rel); err == nil {
			perm = fi.Mode().Perm()
		}
	}
	out, changes, err := merge(tool, data, command, o)
	if err != nil {
		return res, fmt.Errorf("%s: %w", res.Path, err)
	}
	res.Changes = changes
	res.Warnings = Warnings(tool, out)
	if tool == hook.Codex && install {
		res.Warnings = append(res.Warnings, CodexConfigWarnings(filepath.Dir(res.Path))...)
	}
	original, berr := root.ReadFile(sf.backup())
	switch {
	case berr == nil:
		res.Backup = res.Path + hook.BackupSuffix
	case !errors.Is(berr, fs.ErrNotExist):
		return res, berr
	}
	hasBackup := berr == nil
	if len(changes) == 0 {
		return res, nil
	}
	if install {
		return res, installFile(tool, sf, &res, data, out, perm, hasBackup)
	}
	return res, uninstallFile(tool, sf, &res, out, original, perm, hasBackup)
}

// openRoot opens the directory the settings live in, without following
// links below it; an install creates it when missing. A missing directory
// to uninstall from is nil and no error: nothing to do.
func openRoot(rootPath, hint string, install bool) (*nofollow.Dir, error) {
	root, err := nofollow.OpenRoot(rootPath, hint)
	if errors.Is(err, fs.ErrNotExist) && install {
		if err = os.MkdirAll(rootPath, 0o755); err == nil {
			root, err = nofollow.OpenRoot(rootPath, hint)
		}
	}
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return root, err
}

func installFile(tool hook.Tool, sf settingsFile, res *FileResult, data, out []byte, perm fs.FileMode, hasBackup bool) error {
	if dir := sf.dir(); dir != "" {
		d, err := sf.root.MkdirAll(dir, 0o755)
		if err != nil {
			return err
		}
		d.Close()
	}
	// The backup is the content from before loopbreaker's first install:
	// a file that already holds loopbreaker's hooks (an upgrade, or a
	// second install of a file the first one created) is not worth one,
	// and an existing backup is never overwritten.
	if !res.Created && !hasBackup && !hasOurHooks(tool, data) {
		res.Backup = res.Path + hook.BackupSuffix
		if err := sf.root.WriteAtomic(sf.backup(), data, perm); err != nil {
			return fmt.Errorf("saving the backup %s: %w", res.Backup, err)
		}
		res.BackupWritten = true
	}
	return sf.root.WriteAtomic(sf.rel, withNewline(out), perm)
}

func uninstallFile(tool hook.Tool, sf settingsFile, res *FileResult, out, original []byte, perm fs.FileMode, hasBackup bool) error {
	switch {
	case hasBackup && untouchedSinceInstall(tool, out, original):
		if err := sf.root.WriteAtomic(sf.rel, original, perm); err != nil {
			return err
		}
		res.Restored = true
		return removeIfThere(sf.root, sf.backup())
	case hasBackup:
		if err := sf.root.WriteAtomic(sf.rel, withNewline(out), perm); err != nil {
			return err
		}
		res.BackupDropped = true
		return removeIfThere(sf.root, sf.backup())
	case emptyDocument(withoutAgentKeys(tool, out)):
		// Nothing is left but what install started from: the file was
		// created by install (a file that existed has a backup).
		if err := sf.root.Remove(sf.rel); err != nil {
			return err
		}
		res.Removed = true
		dir := filepath.Dir(res.Path)
		if tool == hook.Copilot {
			removeCopilotDirs(sf, res)
			return nil
		}
		if tool == hook.Pi {
			res.RemovedDir = removePiDirs(sf, dir)
			return nil
		}
		switch filepath.Base(dir) {
		case ".claude", ".codex", ".gemini", ".qwen":
			// Only when empty; a link is never removed as a directory.
			var err error
			if sub := sf.dir(); sub != "" {
				err = sf.root.RemoveDir(sub)
			} else {
				err = os.Remove(dir) // the user's directory, reached as chosen
			}
			if err == nil {
				res.RemovedDir = dir
			}
		}
		return nil
	}
	return sf.root.WriteAtomic(sf.rel, withNewline(out), perm)
}

func withNewline(b []byte) []byte {
	if len(b) > 0 && b[len(b)-1] != '\n' {
		b = append(b, '\n')
	}
	return b
}

func removeIfThere(root *nofollow.Dir, name string) error {
	if err := root.Remove(name); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// hasOurHooks reports whether a settings document holds any of
// loopbreaker's handlers for tool.
func hasOurHooks(tool hook.Tool, data []byte) bool {
	_, changes, err := merge(tool, data, "", nil)
	return err == nil && len(changes) > 0
}

// withoutAgentKeys drops from a settings document the keys the agent CLI
// adds by itself when it reads the file, which are not the person's
// changes: Qwen Code writes "$version" (its settings format) into every
// settings file it loads. Uninstall then restores the original or removes
// a file the install created; Qwen writes the key again when it needs it.
func withoutAgentKeys(tool hook.Tool, doc []byte) []byte {
	if tool != hook.Qwen {
		return doc
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(doc, &m) != nil {
		return doc
	}
	if _, ok := m["$version"]; !ok {
		return doc
	}
	delete(m, "$version")
	b, err := hook.MarshalNoEscape(m)
	if err != nil {
		return doc
	}
	return b
}

// emptyDocument: only whitespace, or an empty JSON object.
func emptyDocument(b []byte) bool {
	t := bytes.TrimSpace(b)
	if len(t) == 0 {
		return true
	}
	var m map[string]json.RawMessage
	return json.Unmarshal(t, &m) == nil && len(m) == 0
}

// untouchedSinceInstall reports whether out, a settings document with
// loopbreaker's hooks just removed, is what an install and an uninstall
// make of original: nothing else changed, so original can come back
// byte for byte (with the empty lists and objects the removal drops).
func untouchedSinceInstall(tool hook.Tool, out, original []byte) bool {
	for _, o := range []Options{{}, {PostToolBatch: true}} {
		installed, _, err := merge(tool, original, "loopbreaker hook "+string(tool), &o)
		if err != nil {
			return false
		}
		roundTrip, _, err := merge(tool, installed, "", nil)
		if err == nil && sameDocument(withoutAgentKeys(tool, out), withoutAgentKeys(tool, roundTrip)) {
			return true
		}
	}
	return false
}

// sameDocument compares two settings documents as JSON values, an empty
// file being an empty object.
func sameDocument(a, b []byte) bool {
	if emptyDocument(a) || emptyDocument(b) {
		return emptyDocument(a) && emptyDocument(b)
	}
	return sameJSON(a, b)
}

// writeAtomic writes a file through a temporary file in the same
// directory and a rename, so that a reader (the agent's file watcher)
// never sees half a file.
func writeAtomic(path string, data []byte, perm fs.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	_, err = tmp.Write(data)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(name, perm)
	}
	if err == nil {
		err = os.Rename(name, path)
	}
	if err != nil {
		os.Remove(name)
	}
	return err
}
