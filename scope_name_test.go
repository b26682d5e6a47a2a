package loopbreaker

import (
	"strings"
	"testing"
)

func TestValidScope(t *testing.T) {
	for _, tt := range []struct {
		scope string
		want  string // in the error; "" when valid
	}{
		{"global", ""},
		{"agent:builder-7", ""},
		{"session:Ünïcödé 日本", ""},
		{"agent:" + strings.Repeat("x", MaxScopeValueLen), ""},
		{"agent:" + strings.Repeat("x", MaxScopeValueLen+1), "201 bytes long; send at most 200"},
		{"team:x", `unknown kind "team"`},
		{"agent:", "want global or kind:value"},
		{"agent", "want global or kind:value"},
		{"agent:a\nb", "control character"},
		{"agent: bob", "leading or trailing spaces"},
		{"agent:\xff", "not valid UTF-8"},
		{"agent:bob\u202egpj", "U+202E"},     // right-to-left override
		{"agent:bob\u2066x\u2069", "U+2066"}, // left-to-right isolate
		{"agent:b\u200bob", "U+200B"},        // zero-width space
		{"agent:bo\u200db", "U+200D"},        // zero-width joiner
		{"agent:\ufeffbob", "U+FEFF"},        // byte order mark
		{"agent:bob\u3164", "U+3164"},        // a filler that renders as nothing
	} {
		err := ValidScope(tt.scope)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("ValidScope(%q): %v", tt.scope, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("ValidScope(%q) = %v, want an error with %q", tt.scope, err, tt.want)
		}
	}
}
