package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/loopbreaker/loopbreaker/internal/lazyre"
	"github.com/loopbreaker/loopbreaker/internal/nofollow"
	"github.com/loopbreaker/loopbreaker/internal/safeopen"
)

// decodeFile decodes one YAML layer as read (readLayerFile). A missing
// file is no layer unless mustExist (a file named by LOOPBREAKER_CONFIG).
func (s *schema) decodeFile(f fileRead, kind string, mustExist bool) ([]setting, []error) {
	if err := f.err; err != nil {
		if errors.Is(err, os.ErrNotExist) {
			if mustExist {
				return nil, []error{fmt.Errorf("%s: no such file (named by LOOPBREAKER_CONFIG); create it or unset the variable", f.name)}
			}
			return nil, nil
		}
		return nil, []error{fmt.Errorf("%s config: %w", kind, err)}
	}
	return s.decodeYAML(f.data, f.name, kind)
}

// maxConfigBytes bounds a configuration file; real ones are a few KiB.
const maxConfigBytes = 1 << 20

// readConfigFile reads a configuration file. A project file comes with a
// repository, which can ship it as a link to /dev/zero or an agent can
// replace it with a named pipe: anything but a regular file is refused
// before it is opened and again once open, without waiting on a pipe,
// and so is a file larger than maxConfigBytes, so that loading never
// hangs nor fills the memory.
func readConfigFile(path, name string) ([]byte, error) {
	// Refused before any open, so that no device is opened; then opened
	// without blocking and checked again once open (fstat), since the
	// file can be swapped for a pipe between the two.
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is %s, not a regular file; replace it with a YAML file", name, nofollow.Describe(fi.Mode()))
	}
	f, fi, err := safeopen.Open(path, safeopen.FollowLinks)
	if errors.Is(err, safeopen.ErrNotRegular) {
		return nil, fmt.Errorf("%s is not a regular file; replace it with a YAML file", name)
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// Sized from the file, so that it is read in one call rather than in
	// ten growing ones (every hook call reads it); the limit still holds
	// if the file grows meanwhile.
	buf := bytes.NewBuffer(make([]byte, 0, min(fi.Size(), maxConfigBytes)+bytes.MinRead))
	if _, err := buf.ReadFrom(io.LimitReader(f, maxConfigBytes+1)); err != nil {
		return nil, err
	}
	data := buf.Bytes()
	if len(data) > maxConfigBytes {
		return nil, fmt.Errorf("%s is larger than %d bytes; a configuration file is a few KiB, check that it is the right file", name, maxConfigBytes)
	}
	return data, nil
}

// decodeYAML walks the document's nodes itself so that every value keeps its
// line number.
func (s *schema) decodeYAML(data []byte, name, kind string) ([]setting, []error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if err == io.EOF { // empty or comments only
			return nil, nil
		}
		return nil, []error{syntaxError(name, err)}
	}
	var extra yaml.Node
	switch err := dec.Decode(&extra); {
	case err == io.EOF:
	case err != nil:
		return nil, []error{syntaxError(name, err)}
	default:
		return nil, []error{fmt.Errorf("%s:%d: a second YAML document (after ---); keep all settings in one document", name, extra.Line)}
	}

	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if root.Kind == yaml.ScalarNode && root.ShortTag() == "!!null" {
		return nil, nil
	}
	if root.Kind != yaml.MappingNode {
		return nil, []error{fmt.Errorf("%s:%d: want settings as key: value lines at the top level, got %s", name, root.Line, describeNode(root))}
	}
	w := &fileWalk{s: s, name: name, kind: kind, seen: map[string]int{}}
	w.mapping(root, "")
	return w.out, w.errs
}

type fileWalk struct {
	s          *schema
	name, kind string
	seen       map[string]int // dotted key -> line it was first set on
	out        []setting
	errs       []error
}

func (w *fileWalk) fail(line int, format string, args ...any) {
	w.errs = append(w.errs, fmt.Errorf("%s:%d: %s", w.name, line, fmt.Sprintf(format, args...)))
}

func (w *fileWalk) mapping(m *yaml.Node, prefix string) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], resolveAlias(m.Content[i+1])
		if k.Kind != yaml.ScalarNode || k.Value == "<<" {
			w.fail(k.Line, "keys must be plain names (no merge keys or complex keys)")
			continue
		}
		// A dotted name (no_progress.threshold: 3) reaches the same key as
		// the nested form, so lines copied from Print work as-is.
		key := k.Value
		if prefix != "" {
			key = prefix + "." + k.Value
		}
		if msg, unused := unusedKeys()[key]; unused {
			w.fail(k.Line, "%s", msg)
			continue
		}
		if lf := w.s.byKey[key]; lf != nil {
			if first, dup := w.seen[key]; dup {
				w.fail(k.Line, "%s is set twice (also on line %d); keep one", key, first)
				continue
			}
			w.seen[key] = k.Line
			val, ok := w.value(lf, key, k, v)
			if !ok {
				continue
			}
			w.out = append(w.out, setting{leaf: lf, value: val, src: Source{Kind: w.kind, Name: w.name, Line: k.Line}})
			continue
		}
		if w.s.groups[key] {
			switch {
			case v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null":
				// Every key under it commented out: nothing to set.
			case v.Kind != yaml.MappingNode:
				w.fail(k.Line, "%s: want keys under it (%s), got %s", key, strings.Join(w.s.childNames(key), ", "), describeNode(v))
			default:
				w.mapping(v, key)
			}
			continue
		}
		// Name the deepest key written, so that a misspelt group suggests
		// the full key (no_progres.threshold -> no_progress.threshold).
		shown := key
		for v.Kind == yaml.MappingNode && len(v.Content) >= 2 && v.Content[0].Kind == yaml.ScalarNode {
			shown += "." + v.Content[0].Value
			v = resolveAlias(v.Content[1])
		}
		w.fail(k.Line, "unknown key %q%s", shown, w.s.suggestKey(shown))
	}
}

// value parses v, the value of key node k, for lf; label names it in
// messages. Problems go to w.fail; ok is false when there were any.
func (w *fileWalk) value(lf *leaf, label string, k, v *yaml.Node) (val any, ok bool) {
	before := len(w.errs)
	switch lf.typ {
	case TypeStringList:
		val = w.stringList(label, k, v)
	case TypeMappingList:
		val = w.entryList(lf, label, k, v)
	default:
		var err error
		if val, err = lf.parseNode(v); err != nil {
			w.fail(k.Line, "%s: %v", label, err)
		}
	}
	return val, len(w.errs) == before
}

// stringList reads a list of strings; a single string is a list of one.
func (w *fileWalk) stringList(label string, k, v *yaml.Node) []string {
	switch v.Kind {
	case yaml.SequenceNode:
		items := make([]string, 0, len(v.Content))
		for i, e := range v.Content {
			e = resolveAlias(e)
			it, err := listItem(e)
			if err != nil {
				w.fail(e.Line, "%s[%d]: %v", label, i, err)
				continue
			}
			items = append(items, it)
		}
		return items
	case yaml.ScalarNode:
		if v.ShortTag() == "!!null" {
			w.fail(k.Line, `%s: no value; write a list such as ["src/**", "docs/*.md"], [] for none, or delete the line to use the default`, label)
			return nil
		}
		it, err := listItem(v)
		if err != nil {
			w.fail(k.Line, "%s: %v", label, err)
			return nil
		}
		return []string{it}
	}
	w.fail(k.Line, "%s: want %s, got %s", label, wantStringList, describeNode(v))
	return nil
}

// entry is one entry of a list of mappings as written: the fields it sets
// and their lines. Fields it leaves out are filled in by Loaded.fillList
// once every layer is applied.
type entry struct {
	line   int
	fields map[string]entryField
}

type entryField struct {
	value any
	line  int
}

// entryList is the parsed value of a TypeMappingList.
type entryList []entry

// entryList reads a list of mappings, checking each entry's keys against
// the entry struct.
func (w *fileWalk) entryList(lf *leaf, label string, k, v *yaml.Node) entryList {
	el := lf.elem
	fieldList := strings.Join(el.names(), ", ")
	if v.Kind != yaml.SequenceNode {
		if v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null" {
			w.fail(k.Line, "%s: no value; write [] for none, list entries (- %s: ...), or delete the line to use the default", label, el.names()[0])
		} else {
			w.fail(k.Line, "%s: want a list of mappings, one per entry starting with \"- \" (keys: %s), got %s", label, fieldList, describeNode(v))
		}
		return nil
	}
	list := make(entryList, 0, len(v.Content))
	type firstSeen struct{ index, line int }
	identities := map[string]firstSeen{}
	for i, e := range v.Content {
		e = resolveAlias(e)
		name := fmt.Sprintf("%s[%d]", label, i)
		if e.Kind != yaml.MappingNode {
			w.fail(e.Line, "%s: want a mapping with keys %s, got %s", name, fieldList, describeNode(e))
			continue
		}
		ent := entry{line: e.Line, fields: map[string]entryField{}}
		for j := 0; j+1 < len(e.Content); j += 2 {
			fk, fv := e.Content[j], resolveAlias(e.Content[j+1])
			if fk.Kind != yaml.ScalarNode || fk.Value == "<<" {
				w.fail(fk.Line, "%s: keys must be plain names (no merge keys or complex keys)", name)
				continue
			}
			fkey := name + "." + fk.Value
			f := el.byName[fk.Value]
			if f == nil {
				hint := ""
				if best := closestName(fk.Value, el.names()); best != "" {
					hint = fmt.Sprintf(" (did you mean %q?)", name+"."+best)
				} else {
					hint = " (keys: " + fieldList + ")"
				}
				w.fail(fk.Line, "unknown key %q%s", fkey, hint)
				continue
			}
			if prev, dup := ent.fields[fk.Value]; dup {
				w.fail(fk.Line, "%s is set twice (also on line %d); keep one", fkey, prev.line)
				continue
			}
			val, ok := w.value(f, fkey, fk, fv)
			if !ok {
				continue
			}
			ent.fields[fk.Value] = entryField{value: val, line: fk.Line}
		}
		for _, r := range el.required {
			if _, ok := ent.fields[r]; !ok {
				w.fail(e.Line, "%s: no %s; every entry of %s needs one", name, r, label)
			}
		}
		if id := el.info.identity; id != "" {
			if f, ok := ent.fields[id]; ok {
				idv := fmt.Sprint(f.value)
				if first, dup := identities[idv]; dup {
					w.fail(f.line, "%s: %s %q is already listed in %s[%d] (line %d); keep one entry per %s",
						name, id, idv, label, first.index, first.line, id)
				} else {
					identities[idv] = firstSeen{i, e.Line}
				}
			}
		}
		list = append(list, ent)
	}
	return list
}

func resolveAlias(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

// childNames lists the names directly under a group.
func (s *schema) childNames(group string) []string {
	var names []string
	var find func(n *node)
	find = func(n *node) {
		if n.key == group {
			for _, c := range n.children {
				names = append(names, c.name)
			}
			return
		}
		for _, c := range n.children {
			find(c)
		}
	}
	find(s.root)
	return names
}

var yamlLine = lazyre.New(`^yaml: line (\d+): (.*)$`)

// syntaxError turns "yaml: line 3: ..." into "name:3: invalid YAML: ...".
func syntaxError(name string, err error) error {
	msg := err.Error()
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		return fmt.Errorf("%s:%s: invalid YAML: %s", name, m[1], m[2])
	}
	return fmt.Errorf("%s: invalid YAML: %s", name, strings.TrimPrefix(msg, "yaml: "))
}
