package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/internal/redact"
)

// Print writes every key with its effective value and source, sorted by key.
// Text: one line per key, "key  value  source" in aligned columns, an empty
// string as "", a list on one line as JSON (breakers: [{"scope":...}]); source
// as Source.String ("project loopbreaker.yaml:12", "env LOOPBREAKER_COOLDOWN",
// "default"). JSON: an array of {key, value, source, origin} where value is
// typed (number, boolean, string for durations and strings, array for lists,
// with durations inside written as strings such as "1h"), source is
// the kind ("default", "user", "project", "env", "flag") and origin is
// Source.Location ("loopbreaker.yaml:12", "" for a default).
func (l *Loaded) Print(w io.Writer, asJSON bool) error {
	sch, err := buildSchema()
	if err != nil {
		return err
	}
	leaves := append([]*leaf(nil), sch.leaves...)
	sort.Slice(leaves, func(i, j int) bool { return leaves[i].key < leaves[j].key })

	if asJSON {
		type row struct {
			Key    string `json:"key"`
			Value  any    `json:"value"`
			Source string `json:"source"`
			Origin string `json:"origin"`
		}
		rows := make([]row, 0, len(leaves))
		for _, lf := range leaves {
			v := redactSecret(lf.get(&l.Config))
			switch x := v.(type) {
			case time.Duration:
				v = formatDuration(x)
			case int64, bool, string:
			default: // lists, as arrays with durations written as in YAML
				v = json.RawMessage(formatValue(v))
			}
			src := l.source(lf.key)
			rows = append(rows, row{Key: lf.key, Value: v, Source: src.Kind, Origin: src.Location()})
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rows)
	}

	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, lf := range leaves {
		val := summary(lf.key, redactSecret(lf.get(&l.Config)))
		if val == "" {
			val = `""` // an empty column would shift the source into it
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", lf.key, val, l.source(lf.key))
	}
	return tw.Flush()
}

// maxTableValue is the widest value the table shows whole: one long value
// (the price table is over a thousand characters) would pad every line
// of the aligned table to its width.
const maxTableValue = 60

// summary is a value as the table shows it: whole when short; a list as
// its number of entries, a long text cut; either pointing at
// `loopbreaker config KEY`, which prints it whole.
func summary(key string, v any) string {
	val := formatValue(v)
	if len(val) <= maxTableValue {
		return val
	}
	whole := "(whole: loopbreaker config " + key + ")"
	if list := reflect.ValueOf(v); list.Kind() == reflect.Slice {
		return fmt.Sprintf("[%d entries] %s", list.Len(), whole)
	}
	cut := val[:maxTableValue-20]
	for !utf8.ValidString(cut) {
		cut = cut[:len(cut)-1]
	}
	return cut + "… " + whole
}

// PrintKey writes one key's whole value and its source: a list one entry
// a line. JSON: the {key, value, source, origin} object of Print's array.
func (l *Loaded) PrintKey(w io.Writer, key string, asJSON bool) error {
	sch, err := buildSchema()
	if err != nil {
		return err
	}
	var lf *leaf
	for _, c := range sch.leaves {
		if c.key == key {
			lf = c
		}
	}
	if lf == nil {
		return fmt.Errorf("no setting %q: `loopbreaker config` lists every key", key)
	}
	if asJSON {
		var rows []json.RawMessage
		var all strings.Builder
		if err := l.Print(&all, true); err != nil {
			return err
		}
		if err := json.Unmarshal([]byte(all.String()), &rows); err != nil {
			return err
		}
		for _, r := range rows {
			var k struct{ Key string }
			if json.Unmarshal(r, &k) == nil && k.Key == key {
				var b bytes.Buffer
				if err := json.Indent(&b, r, "", "  "); err != nil {
					return err
				}
				_, err := fmt.Fprintf(w, "%s\n", b.Bytes())
				return err
			}
		}
		return fmt.Errorf("no setting %q in the JSON", key)
	}
	v := redactSecret(lf.get(&l.Config))
	fmt.Fprintf(w, "%s (%s):\n", key, l.source(key))
	if list := reflect.ValueOf(v); list.Kind() == reflect.Slice && lf.elem != nil {
		if list.Len() == 0 {
			_, err := fmt.Fprintln(w, "  []")
			return err
		}
		for i := 0; i < list.Len(); i++ {
			fmt.Fprintf(w, "  - %s\n", listJSON(list.Index(i)))
		}
		return nil
	}
	val := formatValue(v)
	if val == "" {
		val = `""`
	}
	_, err = fmt.Fprintf(w, "  %s\n", val)
	return err
}

// source is where key came from; a Loaded built by hand without Sources
// reads as defaults.
func (l *Loaded) source(key string) Source {
	if s, ok := l.Sources[key]; ok {
		return s
	}
	return Source{Kind: KindDefault}
}

// writeExample shows an example list of mappings as comments, one field a
// line, so that it can be uncommented as is.
func writeExample(b *strings.Builder, indent, name string, el *elemSchema) {
	fmt.Fprintf(b, "%s# For example, instead of the empty list above:\n", indent)
	fmt.Fprintf(b, "%s# %s:\n", indent, name)
	list := reflect.ValueOf(el.info.example)
	for i := 0; i < list.Len(); i++ {
		entry := list.Index(i)
		for j, f := range el.fields {
			v := f.getIn(entry)
			val := formatValue(v)
			if s, ok := v.(string); ok {
				val = strconv.Quote(s)
			}
			lead := "    "
			if j == 0 {
				lead = "  - "
			}
			fmt.Fprintf(b, "%s# %s%s: %s\n", indent, lead, f.key, val)
		}
	}
	if el.template != "" {
		fmt.Fprintf(b, "%s# A field an entry leaves out takes its value from %s.\n", indent, el.template)
	}
}

// SampleYAML is a loopbreaker.yaml with every key at its default and a
// comment on each saying what it does (written by `loopbreaker init`). It
// loads back to exactly loopbreaker.Defaults().
func SampleYAML() string {
	sch, err := buildSchema()
	if err != nil {
		return "# " + err.Error() + "\n"
	}
	def := loopbreaker.Defaults()
	var b strings.Builder
	b.WriteString(`# loopbreaker.yaml: settings of the loopbreaker circuit breaker.
#
# Every key is shown at its default. Delete a key to follow future defaults.
# Priority, highest first: --set key=value flags, LOOPBREAKER_<KEY>
# environment variables (e.g. LOOPBREAKER_NO_PROGRESS_THRESHOLD), this file,
# the user file ~/.config/loopbreaker/config.yaml, built-in defaults.
# Durations need a unit: 45s, 30m, 1h30m.
`)
	var write func(n *node, depth int)
	write = func(n *node, depth int) {
		indent := strings.Repeat("  ", depth)
		if depth == 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%s# %s\n", indent, sch.describe(n.key))
		if n.leaf == nil {
			fmt.Fprintf(&b, "%s%s:\n", indent, n.name)
			for _, c := range n.children {
				write(c, depth+1)
			}
			return
		}
		v := n.leaf.get(&def)
		val := formatValue(v)
		if s, ok := v.(string); ok {
			val = strconv.Quote(s)
		}
		if _, userOnly := userOnlyKeys()[n.leaf.key]; userOnly {
			// Shown, commented out: this file may not set it.
			fmt.Fprintf(&b, "%s# (not in this file: user file or %s only)\n%s# %s: %s\n", indent, envName(n.leaf.key), indent, n.name, val)
			return
		}
		if list := reflect.ValueOf(v); n.leaf.elem != nil && list.Len() > 0 {
			// A default list of mappings (the price table): one entry a
			// line, so that it can be edited where it stands.
			fmt.Fprintf(&b, "%s%s:\n", indent, n.name)
			for i := 0; i < list.Len(); i++ {
				fmt.Fprintf(&b, "%s  - %s\n", indent, listJSON(list.Index(i)))
			}
			return
		}
		fmt.Fprintf(&b, "%s%s: %s\n", indent, n.name, val)
		if n.leaf.elem != nil && n.leaf.elem.info.example != nil {
			writeExample(&b, indent, n.name, n.leaf.elem)
		}
	}
	for _, c := range sch.root.children {
		write(c, 0)
	}
	return b.String()
}

// redactSecret hides the password of a URL-valued setting (store:
// redis://user:password@host, or a credential in its query) so that
// `config` never prints it.
func redactSecret(v any) any {
	s, ok := v.(string)
	if !ok || !strings.Contains(s, "://") {
		return v
	}
	return redact.URL(s)
}
