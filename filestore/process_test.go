//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package filestore

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/internal/storetest"
)

// The tests below run this test binary again as helper processes; the
// environment says what the helper does.
const (
	helperModeEnv = "FILESTORE_TEST_HELPER"
	helperDirEnv  = "FILESTORE_TEST_DIR"
	helperNEnv    = "FILESTORE_TEST_N"
	crashSeedEnv  = "FILESTORE_CRASH_SEED"
)

// crashScopes are updated together by the crash helper, so that a kill
// can land in the middle of a multi-scope commit.
var crashScopes = []string{"session:default", "agent:x/y"}

func TestHelperProcess(t *testing.T) {
	mode := os.Getenv(helperModeEnv)
	if mode == "" {
		t.Skip("runs only as a helper process of other tests")
	}
	if err := runHelper(mode, os.Getenv(helperDirEnv)); err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		os.Exit(3)
	}
	os.Exit(0)
}

func runHelper(mode, dir string) error {
	ctx := context.Background()
	switch mode {
	case "increment":
		n, err := strconv.Atoi(os.Getenv(helperNEnv))
		if err != nil {
			return err
		}
		s, err := Open(dir, Options{})
		if err != nil {
			return err
		}
		for range n {
			if err := s.Update(ctx, []string{"shared"}, iterate(20)); err != nil {
				return err
			}
		}
		return nil
	case "loop":
		// Small journals so that kills also land in rotations; big and
		// varied entries so that they land in the middle of writes.
		s, err := Open(dir, Options{MaxJournalBytes: 64 << 10, KeepJournals: 1 << 20})
		if err != nil {
			return err
		}
		rng := rand.New(rand.NewPCG(uint64(os.Getpid()), 1))
		for i := 0; ; i++ {
			if err := s.Update(ctx, crashScopes, iterate(rng.IntN(32<<10))); err != nil {
				return err
			}
			if i == 0 {
				if _, err := os.Stdout.WriteString("ready\n"); err != nil {
					return err
				}
			}
		}
	}
	return fmt.Errorf("unknown helper mode %q", mode)
}

func helperCommand(t *testing.T, mode, dir string, env ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), helperModeEnv+"="+mode, helperDirEnv+"="+dir)
	cmd.Env = append(cmd.Env, env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	return cmd, &stderr
}

// Eight processes increment one scope 500 times each: no update is lost
// and the journal numbers them without gaps or duplicates.
func TestConcurrentProcesses(t *testing.T) {
	const procs, each = 8, 500
	dir := filepath.Join(t.TempDir(), ".loopbreaker")
	var cmds []*exec.Cmd
	var stderrs []*bytes.Buffer
	for range procs {
		cmd, stderr := helperCommand(t, "increment", dir, helperNEnv+"="+strconv.Itoa(each))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, stderrs = append(cmds, cmd), append(stderrs, stderr)
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("helper %d: %v\n%s", i, err, stderrs[i])
		}
	}
	s, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	st := storetest.MustLoad(t, s, "shared")
	if st.Iterations != procs*each || st.Seq != procs*each {
		t.Fatalf("iterations %d, seq %d; want %d", st.Iterations, st.Seq, procs*each)
	}
	es := storetest.MustJournal(t, s, "shared", 0)
	for _, e := range es {
		if e.Type != lb.EntryEvent {
			t.Fatalf("unexpected entry %+v", e)
		}
	}
	if got := seqs(es); !slices.Equal(got, seqRange(1, procs*each)) {
		t.Fatalf("journal has %d entries, seqs not 1..%d", len(got), procs*each)
	}
}

// A helper updating two scopes in a loop is killed with SIGKILL at random
// moments. After every kill the states load, the next update succeeds,
// both scopes saw the same updates, and the journals hold every seq
// exactly once.
func TestCrashKill9(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv(crashSeedEnv); v != "" {
		var err error
		if seed, err = strconv.ParseUint(v, 10, 64); err != nil {
			t.Fatalf("%s: %v", crashSeedEnv, err)
		}
	}
	t.Logf("seed %d (replay with %s=%d)", seed, crashSeedEnv, seed)
	rng := rand.New(rand.NewPCG(seed, seed))
	rounds := 30
	if testing.Short() {
		rounds = 8
	}
	dir := filepath.Join(t.TempDir(), ".loopbreaker")
	ctx := context.Background()
	var partialTails, behind, txns int
	for round := range rounds {
		cmd, stderr := helperCommand(t, "loop", dir)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "ready\n" {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			t.Fatalf("round %d: helper did not start: %q %v\n%s", round, line, err, stderr)
		}
		time.Sleep(time.Duration(rng.IntN(20_000)) * time.Microsecond)
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		err = cmd.Wait()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
			t.Fatalf("round %d: helper ended with %v before the kill\n%s", round, err, stderr)
		}

		s, err := Open(dir, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(dir, txnName)); err == nil {
			txns++
		}
		for _, scope := range crashScopes {
			st, err := s.Load(ctx, scope)
			if err != nil {
				t.Fatalf("round %d: Load after kill: %v", round, err)
			}
			js, err := s.JournalStats(ctx, scope)
			if err != nil {
				t.Fatal(err)
			}
			if js.TruncatedTail {
				partialTails++
			}
			if js.LastSeq < st.Seq {
				behind++
			}
		}
		if err := s.Update(ctx, crashScopes, iterate(10)); err != nil {
			t.Fatalf("round %d: Update after kill: %v", round, err)
		}
		var iterations []int
		for _, scope := range crashScopes {
			st := storetest.MustLoad(t, s, scope)
			events := checkContiguous(t, s, scope)
			if uint64(events) != st.Seq || events != st.Iterations {
				t.Fatalf("round %d: %s: %d events in the journals, seq %d, iterations %d", round, scope, events, st.Seq, st.Iterations)
			}
			iterations = append(iterations, st.Iterations)
		}
		if iterations[0] != iterations[1] {
			t.Fatalf("round %d: a multi-scope update was half applied: iterations %v", round, iterations)
		}
	}
	s, _ := Open(dir, Options{})
	st := storetest.MustLoad(t, s, crashScopes[0])
	rotated := rotatedPaths(t, s, crashScopes[0])
	t.Logf("%d rounds, %d updates, %d rotations; after the kills: %d half-written journal lines, %d journals behind their state, %d multi-scope commits to finish",
		rounds, st.Iterations, len(rotated), partialTails, behind, txns)
}

// Update waits for the lock while another process holds it, gives up when
// its context ends, and the abandoned wait does not keep the lock.
func TestUpdateWaitsForLockAndHonoursContext(t *testing.T) {
	s := openStore(t, Options{})
	held, err := os.OpenFile(filepath.Join(s.Dir(), lockName), os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Flock(int(held.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	err = s.Update(ctx, []string{"s"}, iterate(1))
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "lock") {
		t.Fatalf("Update while the lock is held: %v", err)
	}
	canceled, cancelNow := context.WithCancel(context.Background())
	cancelNow()
	if err := s.Update(canceled, []string{"s"}, iterate(1)); !errors.Is(err, context.Canceled) {
		t.Fatalf("Update with a canceled context: %v", err)
	}

	done := make(chan error, 1)
	go func() { done <- s.Update(context.Background(), []string{"s"}, iterate(1)) }()
	select {
	case err := <-done:
		t.Fatalf("Update did not wait for the lock: %v", err)
	case <-time.After(20 * time.Millisecond):
	}
	_ = held.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if st := storetest.MustLoad(t, s, "s"); st.Iterations != 1 {
		t.Fatalf("iterations %d", st.Iterations)
	}
}
