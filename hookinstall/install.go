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

// HandlerName is the name of loopbreaker's handlers where a CLI shows
// one (and the handle to disable them by).
const HandlerName = "loopbreaker"

// group is a matcher group of loopbreaker's handler for e.
func group(f *Format, e Entry, command string) json.RawMessage {
	keys := []string{"hooks"}
	vals := []json.RawMessage{mustArray(f.Handler(command))}
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

// Merge merges loopbreaker's hooks running command into a settings
// document of f (empty data = no file yet) and returns the new document
// (o != nil), or takes them out (o == nil). command is what f.Command makes
// of the program; for a flat document, whose commands name their event,
// the program is read back from it. An install adds one group per event
// of f's entries, or updates loopbreaker's handler where one exists (a
// re-install, or an install from another path), leaves every other hook,
// group and key alone, and removes loopbreaker handlers from events it no
// longer uses and duplicates. Installing twice changes nothing the second
// time: the bytes come back as given. An uninstall removes loopbreaker's
// handlers (see hook.IsOurs) and the groups, event lists and hooks object
// that held nothing else; anything that was empty before stays.
func Merge(f *Format, data []byte, command string, o *Options) ([]byte, []Change, error) {
	out, changes, err := mergeHooks(f, data, command, o)
	if err != nil || len(f.Pins) == 0 {
		return out, changes, err
	}
	return pin(f.Pins, out, changes, o != nil)
}

// mergeHooks is Merge without the pins.
func mergeHooks(f *Format, data []byte, command string, o *Options) ([]byte, []Change, error) {
	install := o != nil
	switch {
	case f.Merge != nil:
		return f.Merge(data, command, install)
	case f.Flat:
		return mergeFlat(f, data, command, install)
	case f.TopLevel:
		return mergeTopLevel(f, data, command, o)
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
	plan, err := planHooks(f, hooks, command, o)
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
func planHooks(f *Format, h *object, command string, o *Options) (*hooksPlan, error) {
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
		entries = f.entries(*o)
		for _, e := range entries {
			want[e.Event] = e
		}
	}
	ours := f.Handler(command)
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
		newGroups, ec, err := mergeEvent(f.Tool, key, groups, ours, command, wanted)
		if err != nil {
			return nil, err
		}
		if wanted {
			seen[key] = true
			if !ec.found {
				newGroups = append(newGroups, group(f, e, command))
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
			p.addVals = append(p.addVals, mustArray(group(f, e, command)))
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

// DisableAllHooksWarning is the warning for a settings document whose
// "disableAllHooks": true switches every hook off, in the CLIs that read
// that switch.
func DisableAllHooksWarning(_ string, data []byte) []string {
	var doc struct {
		Off bool `json:"disableAllHooks"`
	}
	if json.Unmarshal(data, &doc) == nil && doc.Off {
		return []string{`"disableAllHooks": true in this file switches every hook off, loopbreaker's included; remove it for the hooks to run`}
	}
	return nil
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

// EditUserFile installs (o != nil) or uninstalls loopbreaker's hooks
// running command in the user's settings file at path (on install created
// with its directory when missing). A link at path (a dotfiles setup) is
// the user's own and is followed, once; the file's backup and temporary
// files beside its target are never reached through another link. An
// uninstall leaves nothing behind: a file the install created is deleted
// (with the CLI's own directory when that is left empty), a file that
// existed gets its original bytes back from the backup, which is then
// removed. A missing file is nothing to do.
func EditUserFile(f *Format, path, command string, o *Options) (FileResult, error) {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real // keep a dotfiles symlink a symlink
	}
	return editFile(f, filepath.Dir(path), filepath.Base(path), command, o, UserLinkHint)
}

// EditProjectFile is EditUserFile for the settings file rel
// (slash-separated) below project. A project can be a cloned repository,
// which can ship its settings file, the file's directory or its backup as
// a link to any file of the person's (~/.bashrc): below project nothing
// is followed, and a link or a file of another type there is an error
// that names it and says what to do.
func EditProjectFile(f *Format, project, rel, command string, o *Options) (FileResult, error) {
	return editFile(f, project, rel, command, o, ProjectLinkHint)
}

// ProjectLinkHint is what to do about a link in a project's settings.
const ProjectLinkHint = "loopbreaker never writes through a link in a project (a cloned repository can ship any link): remove it and run the command again"

// UserLinkHint is what to do about a link beside a user's settings file.
const UserLinkHint = "loopbreaker follows a link only at the settings file's own path: remove it and run the command again"

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

func editFile(f *Format, rootPath, rel, command string, o *Options, hint string) (FileResult, error) {
	install := o != nil
	res := FileResult{Path: filepath.Join(rootPath, filepath.FromSlash(rel))}
	root, err := OpenRoot(rootPath, hint, install)
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
	out, changes, err := Merge(f, data, command, o)
	if err != nil {
		return res, fmt.Errorf("%s: %w", res.Path, err)
	}
	res.Changes = changes
	if f.Warnings != nil {
		res.Warnings = f.Warnings(res.Path, out)
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
		return res, installFile(f, sf, &res, data, out, perm, hasBackup)
	}
	return res, uninstallFile(f, sf, &res, out, original, perm, hasBackup)
}

// OpenRoot opens the directory the settings live in, without following
// links below it; an install creates it when missing. A missing directory
// to uninstall from is nil and no error: nothing to do.
func OpenRoot(rootPath, hint string, install bool) (*nofollow.Dir, error) {
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

func installFile(f *Format, sf settingsFile, res *FileResult, data, out []byte, perm fs.FileMode, hasBackup bool) error {
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
	if !res.Created && !hasBackup && !hasOurHooks(f, data) {
		res.Backup = res.Path + hook.BackupSuffix
		if err := sf.root.WriteAtomic(sf.backup(), data, perm); err != nil {
			return fmt.Errorf("saving the backup %s: %w", res.Backup, err)
		}
		res.BackupWritten = true
	}
	return sf.root.WriteAtomic(sf.rel, withNewline(out), perm)
}

func uninstallFile(f *Format, sf settingsFile, res *FileResult, out, original []byte, perm fs.FileMode, hasBackup bool) error {
	switch {
	case hasBackup && untouchedSinceInstall(f, out, original):
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
	case emptyDocument(withoutAgentKeys(f, out)):
		// Nothing is left but what install started from: the file was
		// created by install (a file that existed has a backup).
		if err := sf.root.Remove(sf.rel); err != nil {
			return err
		}
		res.Removed = true
		res.RemovedDir = removeEmptyDirs(f, sf, filepath.Dir(res.Path))
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
// loopbreaker's handlers.
func hasOurHooks(f *Format, data []byte) bool {
	_, changes, err := Merge(f, data, "", nil)
	return err == nil && len(changes) > 0
}

// withoutAgentKeys drops from a settings document the keys the agent CLI
// adds by itself when it reads the file (Format.AgentKeys), which are not
// the person's changes. Uninstall then restores the original or removes a
// file the install created; the CLI writes them again when it needs them.
func withoutAgentKeys(f *Format, doc []byte) []byte {
	if len(f.AgentKeys) == 0 {
		return doc
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(doc, &m) != nil {
		return doc
	}
	n := len(m)
	for _, k := range f.AgentKeys {
		delete(m, k)
	}
	if len(m) == n {
		return doc
	}
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
func untouchedSinceInstall(f *Format, out, original []byte) bool {
	for _, o := range []Options{{}, {Optional: true}} {
		installed, _, err := Merge(f, original, "loopbreaker hook "+string(f.Tool), &o)
		if err != nil {
			return false
		}
		roundTrip, _, err := Merge(f, installed, "", nil)
		if err == nil && sameDocument(withoutAgentKeys(f, out), withoutAgentKeys(f, roundTrip)) {
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

// WriteAtomic writes a file through a temporary file in the same
// directory and a rename, so that a reader (the agent's file watcher)
// never sees half a file.
func WriteAtomic(path string, data []byte, perm fs.FileMode) error {
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

// removeEmptyDirs removes, after the file the install had created, the
// directories it leaves empty: for a user's file its own directory (when
// named f.OwnDir), for a project's up to f.DirLevels directories below the
// project, never through a link. dir is the file's directory; the result
// is the outermost directory removed, "" for none.
func removeEmptyDirs(f *Format, sf settingsFile, dir string) string {
	sub := sf.dir()
	if sub == "" {
		// The user's directory, reached as chosen.
		if (f.OwnDir == "" || filepath.Base(dir) == f.OwnDir) && os.Remove(dir) == nil {
			return dir
		}
		return ""
	}
	removed := ""
	for level := 0; level < f.DirLevels && sub != "." && sub != ""; level++ {
		if sf.root.RemoveDir(sub) != nil {
			break
		}
		removed = dir
		sub, dir = path.Dir(sub), filepath.Dir(dir)
	}
	return removed
}

// mergeTopLevel is Merge for a document whose own members are the event
// lists: the whole document is the hooks object, and its other members
// (switches such as "hooksDisabled") are left as they are.
func mergeTopLevel(f *Format, data []byte, command string, o *Options) ([]byte, []Change, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		if o == nil {
			return data, nil, nil
		}
		data = []byte("{}\n")
	}
	doc, err := parseObject(data)
	if err != nil {
		return nil, nil, fmt.Errorf("not a JSON object (%v): fix the file, or add the hooks by hand", err)
	}
	plan, err := planHooks(f, doc, command, o)
	if err != nil || len(plan.changes) == 0 {
		return data, nil, err
	}
	ind, multiline := doc.indent()
	if !multiline && len(doc.members) == 0 {
		multiline = true
	}
	if out, ok := plan.splice(doc, indentUnit(ind)); ok {
		return out, plan.changes, nil
	}
	out, err := render(plan.compact(), "", "  ", multiline)
	if err != nil {
		return nil, nil, err
	}
	return out, plan.changes, nil
}
