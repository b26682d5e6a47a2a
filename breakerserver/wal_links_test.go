//go:build unix

package breakerserver

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loopbreaker/loopbreaker/filestore"
	"github.com/loopbreaker/loopbreaker/internal/nofollow"
)

// The write-ahead log's directory is below the state directory, which a
// cloned repository can ship: a link there is refused, not written into.
func TestWALDirectoryLinkIsRefused(t *testing.T) {
	base := t.TempDir()
	state := filepath.Join(base, ".loopbreaker")
	outside := filepath.Join(base, "outside")
	os.MkdirAll(outside, 0o755)
	st, err := filestore.Open(state, filestore.Options{})
	if err != nil {
		t.Fatal(err)
	}
	walDir := filepath.Join(state, "wal")
	if err := os.Symlink(outside, walDir); err != nil {
		t.Fatal(err)
	}
	_, err = Open(context.Background(), st, testConfig(), Options{WALDir: walDir, CheckpointEvery: time.Hour})
	if !errors.Is(err, nofollow.ErrUnexpected) || !strings.Contains(err.Error(), walDir+" is a symbolic link") {
		t.Fatalf("err = %v; want the link named", err)
	}
	if des, _ := os.ReadDir(outside); len(des) != 0 {
		t.Fatalf("the log was written through the link: %v", des)
	}
}
