package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// loadFile reads one YAML layer. path is opened, name is shown in messages
// and sources. A missing file is no layer unless mustExist (a file named
// by LOOPBREAKER_CONFIG).
func (s *schema) loadFile(path, name, kind string, mustExist bool) ([]setting, []error) {
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			if mustExist {
				return nil, []error{fmt.Errorf("%s: no such file (named by LOOPBREAKER_CONFIG); create it or unset the variable", name)}
			}
			return nil, nil
		}
		return nil, []error{fmt.Errorf("%s config: %w", kind, err)}
	}
	return s.decodeYAML(data, name, kind)
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
		if lf := w.s.byKey[key]; lf != nil {
			if first, dup := w.seen[key]; dup {
				w.fail(k.Line, "%s is set twice (also on line %d); keep one", key, first)
				continue
			}
			w.seen[key] = k.Line
			val, err := lf.parseNode(v)
			if err != nil {
				w.fail(k.Line, "%s: %v", key, err)
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

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// syntaxError turns "yaml: line 3: ..." into "name:3: invalid YAML: ...".
func syntaxError(name string, err error) error {
	msg := err.Error()
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		return fmt.Errorf("%s:%s: invalid YAML: %s", name, m[1], m[2])
	}
	return fmt.Errorf("%s: invalid YAML: %s", name, strings.TrimPrefix(msg, "yaml: "))
}
