package filestore

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/fsname"
	"github.com/loopbreaker/loopbreaker/internal/storetest"
)

// checkEscaped checks that name is a safe path element for scope: the
// escaped scope itself, unescaped back to it; or, for a scope too long for
// that, a hashed name (an escaped prefix, fsname.HashMark and 32 hex digits) no
// longer than fsname.MaxLen, whose scope is read from its state file.
func checkEscaped(t *testing.T, scope, name string) {
	t.Helper()
	if name == "" || name == "." || name == ".." || strings.HasPrefix(name, ".") {
		t.Fatalf("escape(%q) = %q: not a safe path element", scope, name)
	}
	body := name
	if isHashed(name) {
		prefix, sum, _ := strings.Cut(name, string(fsname.HashMark))
		if len(name) > fsname.MaxLen || len(sum) != 32 || strings.Trim(sum, "0123456789abcdef") != "" {
			t.Fatalf("escape(%q) = %q: not a hashed name of at most %d bytes", scope, name, fsname.MaxLen)
		}
		if _, ok := unescapeScope(name); ok {
			t.Fatalf("unescape(%q) accepted a hashed name", name)
		}
		body = prefix
	}
	for _, c := range []byte(body) {
		ok := 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || strings.IndexByte("-_.!%", c) >= 0
		if !ok {
			t.Fatalf("escape(%q) = %q holds byte %q", scope, name, c)
		}
	}
	if body != name {
		return
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
	// A scope too long to escape whole gets a bounded name: a readable
	// prefix and a hash; two long scopes differing only at the end differ.
	a, err1 := escapeScope("agent:" + strings.Repeat("日", 100) + "a")
	b, err2 := escapeScope("agent:" + strings.Repeat("日", 100) + "b")
	if err1 != nil || err2 != nil || a == b || len(a) > fsname.MaxLen || !strings.HasPrefix(a, "agent%3a%e6%97%a5") || !isHashed(a) {
		t.Fatalf("long scopes: %q %v, %q %v", a, err1, b, err2)
	}
	if p := strings.Repeat("%25", 60); !strings.HasPrefix(mustEscape(t, strings.Repeat("%", 200)), p[:159]) {
		t.Fatalf("the prefix of 200 × %% is not its escaped start")
	}
	for _, name := range []string{"", "A", "%", "%4", "%4G", "%4A", "!", "!A", "!1", ".x", "a/b", "%2E", "x%41"} {
		if scope, ok := unescapeScope(name); ok {
			t.Errorf("unescape(%q) accepted a name escape never makes: %q", name, scope)
		}
	}

	// Scopes reads them back through the file system.
	s := openStore(t, Options{})
	for _, scope := range scopes {
		storetest.MustUpdate(t, s, iterate(1), scope)
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
	for _, s := range []string{"session:default", "agent:a/b", "Ü", ".", "%41", "!a", "agent:" + strings.Repeat("日", 30), strings.Repeat(" A0", 40)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, scope string) {
		name, err := escapeScope(scope)
		if err != nil {
			if scope != "" && len(scope) < fsname.MaxLen/3 {
				t.Fatalf("escape(%q): %v", scope, err)
			}
			return
		}
		checkEscaped(t, scope, name)
	})
}

func mustEscape(t *testing.T, scope string) string {
	t.Helper()
	name, err := escapeScope(scope)
	if err != nil {
		t.Fatal(err)
	}
	return name
}

// Scopes too long to escape whole are stored under hashed names, listed by
// their own names (read from their state files) by another Store on the
// directory, and loaded; a hand-made directory with a hashed-looking name
// that does not match its state is not taken for a scope.
func TestLongScopesStoredUnderHashedNames(t *testing.T) {
	s := openStore(t, Options{})
	dir := s.Dir()
	long := []string{"agent:" + strings.Repeat("日", 26), "agent:" + strings.Repeat("%", 200), "tag:" + strings.Repeat("Ab", 100)}
	for _, scope := range long {
		storetest.MustUpdate(t, s, iterate(10), scope)
	}
	other := reopen(t, s, Options{})
	got, err := other.Scopes(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := slices.Sorted(slices.Values(long))
	if !slices.Equal(got, want) {
		t.Fatalf("Scopes = %q, want %q", got, want)
	}
	for _, scope := range long {
		st, err := other.Load(context.Background(), scope)
		if err != nil || st.Scope != scope || st.Iterations != 1 {
			t.Fatalf("Load(%.20q...) = %+v, %v", scope, st, err)
		}
	}
	// A copy of a hashed directory under another hashed-looking name.
	src := filepath.Join(dir, "scopes", mustEscape(t, long[0]))
	fake := filepath.Join(dir, "scopes", "agent~0123")
	if err := os.MkdirAll(fake, 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(src, "state.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(fake, "state.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, _ := other.Scopes(context.Background()); len(got) != len(long) {
		t.Fatalf("a hand-made directory was listed: %q", got)
	}
}
