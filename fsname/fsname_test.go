package fsname_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopbreaker/loopbreaker/fsname"
)

// safe fails unless name is one path element that can be created inside
// a directory, and reads back to what was escaped.
func safe(t *testing.T, orig, name string) {
	t.Helper()
	if name == "" || name == "." || name == ".." || strings.HasPrefix(name, ".") || len(name) > fsname.MaxLen {
		t.Fatalf("Escape(%q) = %q: not a safe path element", orig, name)
	}
	for _, c := range []byte(name) {
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || strings.IndexByte("-_.!%~", c) >= 0) {
			t.Fatalf("Escape(%q) = %q holds byte %q", orig, name, c)
		}
	}
	if fsname.IsHashed(name) {
		return
	}
	if back, ok := fsname.Unescape(name); !ok || back != orig {
		t.Fatalf("Unescape(Escape(%q)) = %q, %v", orig, back, ok)
	}
}

// Every name an agent or a user may choose becomes a file of its own in
// the directory it is joined to: never the directory itself, its parent,
// a path with a separator, or a name too long to create.
func TestEscapeMakesOneFileInTheDirectory(t *testing.T) {
	dir := t.TempDir()
	names := []string{"", ".", "..", "../..", "/", "a/b", "a\\b", "../../etc/passwd", ".hidden",
		"Ünïcödé 日本語 🚀", "\xff\xfe invalid utf8", "nul\x00byte", "new\nline", "UPPER", "upper",
		"a%b!c", "%", "!", "~", strings.Repeat("x", 300), strings.Repeat("日", 200), "session:default"}
	seen := map[string]string{}
	for _, n := range names {
		e := fsname.Escape(n)
		safe(t, n, e)
		// Names differing only in case stay apart on a case-insensitive disk.
		if other, dup := seen[strings.ToLower(e)]; dup {
			t.Fatalf("%q and %q both escape to %q", n, other, e)
		}
		seen[strings.ToLower(e)] = n
		p := filepath.Join(dir, e)
		if filepath.Dir(p) != dir {
			t.Fatalf("Escape(%q) = %q leaves the directory: %s", n, e, p)
		}
		if err := os.WriteFile(p, []byte(n), 0o644); err != nil {
			t.Fatalf("Escape(%q) = %q: %v", n, e, err)
		}
	}
	ents, err := os.ReadDir(dir)
	if err != nil || len(ents) != len(names) {
		t.Fatalf("%d files for %d names (%v)", len(ents), len(names), err)
	}
}

// Long names get a bounded hashed form: a readable prefix and a hash, so
// two long names differing only at the end stay apart.
func TestEscapeHashesLongNames(t *testing.T) {
	a := fsname.Escape("agent:" + strings.Repeat("日", 100) + "a")
	b := fsname.Escape("agent:" + strings.Repeat("日", 100) + "b")
	if a == b || !fsname.IsHashed(a) || !strings.HasPrefix(a, "agent%3a%e6%97%a5") || len(a) > fsname.MaxLen {
		t.Fatalf("long names: %q, %q", a, b)
	}
	if _, ok := fsname.Unescape(a); ok {
		t.Fatalf("Unescape read a name back from its hash %q", a)
	}
}

// Unescape accepts only what Escape writes.
func TestUnescapeRefusesHandMadeNames(t *testing.T) {
	for _, name := range []string{"", "A", "%4", "%4G", "%4A", "!", "!A", "!1", ".x", "a/b", "%2E", "x%41", "%%"} {
		if got, ok := fsname.Unescape(name); ok {
			t.Errorf("Unescape(%q) accepted a name Escape never makes: %q", name, got)
		}
	}
}

func FuzzEscape(f *testing.F) {
	for _, s := range []string{"", ".", "..", "a/b", "Ü", "%41", "!a"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		safe(t, name, fsname.Escape(name))
	})
}
