package filestore

import (
	"context"
	"slices"
	"strings"
	"testing"
)

func checkEscaped(t *testing.T, scope, name string) {
	t.Helper()
	if name == "" || name == "." || name == ".." || strings.HasPrefix(name, ".") {
		t.Fatalf("escape(%q) = %q: not a safe path element", scope, name)
	}
	for _, c := range []byte(name) {
		ok := 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || strings.IndexByte("-_.!%", c) >= 0
		if !ok {
			t.Fatalf("escape(%q) = %q holds byte %q", scope, name, c)
		}
	}
	back, ok := unescapeScope(name)
	if !ok || back != scope {
		t.Fatalf("unescape(escape(%q)) = %q, %v", scope, back, ok)
	}
}

func TestEscapeScope(t *testing.T) {
	scopes := []string{
		"session:default", "agent:a/b", "agent:a\\b", "Ünïcödé 日本語 🚀", ".", "..", ".hidden", "../../etc/passwd",
		"a%b!c", "UPPER", "upper", "Upper", "with space", "nul\x00byte", "trailing.", "a..b", "-dash", "_", "\xff\xfe invalid utf8",
		"tab\there", "new\nline", "x",
	}
	names := map[string]string{}
	for _, scope := range scopes {
		name, err := escapeScope(scope)
		if err != nil {
			t.Fatalf("escape(%q): %v", scope, err)
		}
		checkEscaped(t, scope, name)
		// Distinct scopes stay distinct even on a case-insensitive disk.
		folded := strings.ToLower(name)
		if other, dup := names[folded]; dup {
			t.Fatalf("%q and %q both escape to %q", scope, other, folded)
		}
		names[folded] = scope
	}

	if _, err := escapeScope(""); err == nil {
		t.Fatal("empty scope accepted")
	}
	if _, err := escapeScope(strings.Repeat("日", 100)); err == nil || !strings.Contains(err.Error(), "too long") {
		t.Fatalf("long scope: %v", err)
	}
	for _, name := range []string{"", "A", "%", "%4", "%4G", "%4A", "!", "!A", "!1", ".x", "a/b", "%2E", "x%41"} {
		if scope, ok := unescapeScope(name); ok {
			t.Errorf("unescape(%q) accepted a name escape never makes: %q", name, scope)
		}
	}

	// Scopes reads them back through the file system.
	s := openStore(t, Options{})
	for _, scope := range scopes {
		mustUpdate(t, s, iterate(1), scope)
	}
	got, err := s.Scopes(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := slices.Clone(scopes)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("Scopes = %q\nwant %q", got, want)
	}
}

func FuzzEscapeScope(f *testing.F) {
	for _, s := range []string{"session:default", "agent:a/b", "Ü", ".", "%41", "!a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, scope string) {
		name, err := escapeScope(scope)
		if err != nil {
			if scope != "" && len(scope) < maxEscapedLen/3 {
				t.Fatalf("escape(%q): %v", scope, err)
			}
			return
		}
		checkEscaped(t, scope, name)
	})
}
