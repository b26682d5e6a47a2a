package hook

import (
	"bytes"
	"encoding/json"
	"slices"
	"sort"
	"strings"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/errsig"
)

// maxArgWords bounds the argument words removed from a result.
const maxArgWords = 64

// InfoHash hashes what a call's result says once the call's own arguments
// are taken out of it and it is normalised: find_file "setup.md" and
// find_file "install.txt" both answering `no matches for "…"` say the
// same, and so do two searches that find nothing. It is lb.InfoEmpty when
// nothing is left (no output, or only an exit status), so that empty
// answers compare equal whatever the command.
func InfoHash(text string, args json.RawMessage) string {
	text = dropExitLines(text)
	words := argWords(args)
	// Longest first: a path goes before the file name inside it.
	sort.Slice(words, func(i, j int) bool {
		if len(words[i]) != len(words[j]) {
			return len(words[i]) > len(words[j])
		}
		return words[i] < words[j]
	})
	for _, w := range words {
		text = strings.ReplaceAll(text, w, "")
	}
	norm := strings.Join(strings.Fields(errsig.Normalize(text)), " ")
	if norm == "" {
		return lb.InfoEmpty
	}
	return hash16([]byte(norm))
}

// dropExitLines removes the exit-status lines the agent CLIs add to a
// shell command's output (Claude's "Exit code N", Gemini's "exit N"
// header, Codex's "Process exited with code N").
func dropExitLines(text string) string {
	if !strings.Contains(strings.ToLower(text), "exit") {
		return text
	}
	lines := strings.Split(text, "\n")
	keep := lines[:0]
	for _, l := range lines {
		if !isExitLine(l) {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

func isExitLine(line string) bool {
	l := strings.ToLower(strings.TrimSpace(line))
	for _, prefix := range []string{"exit code:", "exit code", "process exited with code", "exit"} {
		if rest, ok := strings.CutPrefix(l, prefix); ok {
			rest = strings.TrimSpace(rest)
			return rest != "" && strings.Trim(rest, "-0123456789") == ""
		}
	}
	return false
}

// argWords are the strings of a call's arguments, the quoted phrases
// inside them and their words (at least 3 bytes, quotes trimmed), as they
// may be echoed in its result: search_dir "build instructions" answers
// `No matches found for "build instructions" in /repo`, and the phrase,
// removed whole, takes its short words ("in", "to") with it.
func argWords(args json.RawMessage) []string {
	if len(args) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil
	}
	var words []string
	add := func(w string) {
		w = strings.Trim(w, `"'`+"`")
		if len(w) >= 3 && len(words) < maxArgWords && !slices.Contains(words, w) {
			words = append(words, w)
		}
	}
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			add(x)
			for _, q := range quoted(x) {
				add(q)
			}
			for _, f := range strings.Fields(x) {
				add(f)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	return words
}

// quoted returns the phrases between matching double or single quotes in
// a command line (`grep -r "two words" docs` gives "two words").
func quoted(s string) []string {
	var out []string
	for i := 0; i < len(s); i++ {
		q := s[i]
		if q != '"' && q != '\'' {
			continue
		}
		j := strings.IndexByte(s[i+1:], q)
		if j < 0 {
			break
		}
		out = append(out, s[i+1:i+1+j])
		i += j + 1
	}
	return out
}
