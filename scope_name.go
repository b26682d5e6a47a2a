package loopbreaker

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxScopeValueLen bounds the value of a scope (the part after "kind:"),
// so that one request cannot make unbounded names.
const MaxScopeValueLen = 200

// ValidScope checks a scope name: global, or kind:value with a known kind
// and a value ScopeValueProblem accepts. Every way a scope comes in (the
// configuration, the HTTP API, MCP, the CLI) is checked here.
func ValidScope(scope string) error {
	if scope == "global" {
		return nil
	}
	kind, value, ok := strings.Cut(scope, ":")
	if !ok || value == "" {
		return fmt.Errorf("scope %q: want global or kind:value (category, stakes, agent, tag, session, slice)", scope)
	}
	switch kind {
	case "category", "stakes", "agent", "tag", "session", "slice":
	default:
		return fmt.Errorf("scope %q: unknown kind %q (want category, stakes, agent, tag, session or slice)", scope, kind)
	}
	if msg := ScopeValueProblem(value); msg != "" {
		return fmt.Errorf("scope %q: its value %s", scope, msg)
	}
	return nil
}

// ScopeValueProblem says what is wrong with the value of a scope (an
// agent id, a session name, a tag...), or "" when it is usable. Values are
// shown to people side by side (the dashboard, status), so characters that
// do not show, or that reorder the text around them, are refused: with
// them two different agents could look identical.
func ScopeValueProblem(v string) string {
	switch {
	case len(v) > MaxScopeValueLen:
		return fmt.Sprintf("is %d bytes long; send at most %d", len(v), MaxScopeValueLen)
	case !utf8.ValidString(v):
		return "is not valid UTF-8"
	case strings.IndexFunc(v, unicode.IsControl) >= 0:
		return "contains a control character (newline, tab, NUL...); send printable text"
	case strings.TrimSpace(v) != v:
		return "has leading or trailing spaces; trim them"
	}
	if i := strings.IndexFunc(v, invisible); i >= 0 {
		r, _ := utf8.DecodeRuneInString(v[i:])
		return fmt.Sprintf("contains the invisible character U+%04X (a bidi override, a zero-width or other formatting character): it would make two names look alike; send visible text only", r)
	}
	return ""
}

// invisible reports a formatting character (Unicode category Cf: bidi
// overrides and isolates, zero-width spaces and joiners, the BOM) or one
// of the other characters that render as nothing.
func invisible(r rune) bool {
	return unicode.Is(unicode.Cf, r) || r == '\u115F' || r == '\u1160' || r == '\u3164' || r == '\uFFA0'
}
