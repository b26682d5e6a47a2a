package residentwire

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
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

// sinceBoot reads the clock /proc/uptime shows, which start times count
// on: a process's age is measured on one clock.
func TestSinceBootIsUptime(t *testing.T) {
	up, err := os.ReadFile("/proc/uptime")
	if err != nil {
		t.Skipf("no /proc/uptime: %v", err)
	}
	secs, err := strconv.ParseFloat(strings.Fields(string(up))[0], 64)
	if err != nil {
		t.Fatal(err)
	}
	got, ok := sinceBoot()
	if diff := got - time.Duration(secs*float64(time.Second)); !ok || diff < 0 || diff > time.Second {
		t.Fatalf("sinceBoot = %v, %v; /proc/uptime said %.2f s just before", got, ok, secs)
	}
	if age := ProcessAge(); age < 0 || age > time.Hour {
		t.Fatalf("ProcessAge of the test process = %v", age)
	}
}
