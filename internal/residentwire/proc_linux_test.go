package residentwire

import (
	"bytes"
	"os"
	"testing"
)

// readProc returns a file whole, past the size of its first buffer, and
// says which file it could not open.
func TestReadProcReadsTheWholeFile(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "proc")
	if err != nil {
		t.Fatal(err)
	}
	want := bytes.Repeat([]byte("0123456789 "), 300)
	f.Write(want)
	f.Close()
	if got, err := readProc(f.Name()); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("readProc = %d bytes, %v; want the %d written", len(got), err, len(want))
	}
	if _, err := readProc(f.Name() + ".none"); !os.IsNotExist(err) {
		t.Fatalf("a missing file: %v, want a not-exist error", err)
	}
	if StartTicks(os.Getpid()) == "" {
		t.Fatal("no start time read for this process")
	}
}
