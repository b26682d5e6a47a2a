package realpath

import (
	"os"
	"path/filepath"
	"testing"
)

// A path through a link resolves to the link's target, and its part that
// does not exist yet is kept as it is.
func TestOfResolvesTheExistingPart(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(base, "real")
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(base, "link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ in, want string }{
		{link, target},
		{filepath.Join(link, "not", "yet"), filepath.Join(target, "not", "yet")},
		{filepath.Join(base, "missing", "deeper"), filepath.Join(base, "missing", "deeper")},
		{target, target},
	} {
		if got := Of(c.in); got != c.want {
			t.Errorf("Of(%s) = %s, want %s", c.in, got, c.want)
		}
	}
}
