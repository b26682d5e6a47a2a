package waitfor

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The bound in these tests only ends a hang: each wait is woken by the
// write it waits for, which another goroutine makes after the wait began
// or before it (both must work).

func TestFileSaysWakesOnTheWrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "later", "deeper", "job.log")
	go func() {
		os.MkdirAll(filepath.Dir(path), 0o755)
		os.WriteFile(path, []byte("working\n"), 0o644)
		f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		f.WriteString("done\n")
		f.Close()
	}()
	if err := FileSays(path, "done", time.Minute); err != nil {
		t.Fatal(err)
	}
}

func TestFileSaysWhatIsAlreadyThere(t *testing.T) {
	path := filepath.Join(t.TempDir(), "job.log")
	os.WriteFile(path, []byte("done\n"), 0o644)
	if err := FileSays(path, "done", time.Minute); err != nil {
		t.Fatal(err)
	}
}

func TestNotEmptyWakesOnANewEntry(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "running")
	go func() {
		os.MkdirAll(dir, 0o755)
		os.WriteFile(filepath.Join(dir, "123"), nil, 0o644)
	}()
	if err := NotEmpty(dir, time.Minute); err != nil {
		t.Fatal(err)
	}
}

func TestAWaitForWhatNeverComesEnds(t *testing.T) {
	path := filepath.Join(t.TempDir(), "job.log")
	os.WriteFile(path, []byte("still working\n"), 0o644)
	// A short bound: what is tested is that the wait ends with an error
	// naming the file, not how long it took.
	err := FileSays(path, "done", 50*time.Millisecond)
	if err == nil {
		t.Fatal("a wait for a word never written returned no error")
	}
	if want := path; !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not name %s", err, want)
	}
}

func TestAnUnwatchablePathIsAnError(t *testing.T) {
	file := filepath.Join(t.TempDir(), "plain")
	os.WriteFile(file, nil, 0o644)
	if err := NotEmpty(filepath.Join(file, "below"), time.Minute); err == nil {
		t.Fatal("waiting below a plain file returned no error")
	}
}
