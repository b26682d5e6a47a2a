//go:build unix

package redisstore

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	lb "github.com/loopbreaker/loopbreaker"
	"github.com/loopbreaker/loopbreaker/internal/redistest"
	"github.com/loopbreaker/loopbreaker/internal/storetest"
)

// The tests below run this test binary again as helper processes.
const (
	helperModeEnv = "REDISSTORE_TEST_HELPER"
	helperURLEnv  = "REDISSTORE_TEST_URL"
	helperNEnv    = "REDISSTORE_TEST_N"
	helperIDEnv   = "REDISSTORE_TEST_ID"
)

// pairScopes are always updated together.
var pairScopes = []string{"session:default", "agent:x/y"}

func TestHelperProcess(t *testing.T) {
	mode := os.Getenv(helperModeEnv)
	if mode == "" {
		t.Skip("runs only as a helper process of other tests")
	}
	if err := runHelper(mode); err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		os.Exit(3)
	}
	os.Exit(0)
}

func runHelper(mode string) error {
	ctx := context.Background()
	s, err := Open(Options{URL: os.Getenv(helperURLEnv)})
	if err != nil {
		return err
	}
	defer s.Close()
	n, _ := strconv.Atoi(os.Getenv(helperNEnv))
	id, _ := strconv.Atoi(os.Getenv(helperIDEnv))
	switch mode {
	case "one-scope":
		for range n {
			if err := s.Update(ctx, []string{"global"}, storetest.Iterate("x")); err != nil {
				return err
			}
		}
	case "eight-scopes":
		for i := range n {
			if err := s.Update(ctx, []string{fmt.Sprintf("agent:%d", (id+i)%8)}, storetest.Iterate("x")); err != nil {
				return err
			}
		}
	case "ack":
		// Prints the seq of every acknowledged update, until killed.
		out := bufio.NewWriter(os.Stdout)
		for {
			var seq uint64
			err := s.Update(ctx, []string{"global"}, func(states []*lb.BreakerState) ([][]lb.JournalEntry, error) {
				es, err := storetest.Iterate("x")(states)
				seq = states[0].Seq + 1
				return es, err
			})
			if err == nil {
				fmt.Fprintln(out, seq)
				out.Flush()
			}
		}
	case "loop":
		rng := rand.New(rand.NewPCG(uint64(os.Getpid()), 1))
		fmt.Println("ready")
		for {
			summary := strings.Repeat("y", rng.IntN(64<<10))
			if err := s.Update(ctx, pairScopes, storetest.Iterate(summary)); err != nil {
				return err
			}
		}
	}
	return nil
}

func helper(t *testing.T, srv *redistest.Server, mode string, id, n int) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
	cmd.Env = append(os.Environ(), helperModeEnv+"="+mode, helperURLEnv+"="+srv.URL(),
		helperNEnv+"="+strconv.Itoa(n), helperIDEnv+"="+strconv.Itoa(id))
	cmd.Stderr = os.Stderr
	return cmd
}

// 8 processes × 500 updates, on one scope and spread over 8 scopes: exactly
// 4,000 journaled events with seqs without gaps.
func TestProcessesLoseNoUpdate(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	srv := redistest.Start(t, redistest.Options{})
	for _, mode := range []string{"one-scope", "eight-scopes"} {
		t.Run(mode, func(t *testing.T) {
			var cmds []*exec.Cmd
			for i := range 8 {
				c := helper(t, srv, mode, i, 500)
				if err := c.Start(); err != nil {
					t.Fatal(err)
				}
				cmds = append(cmds, c)
			}
			for _, c := range cmds {
				if err := c.Wait(); err != nil {
					t.Fatalf("helper: %v", err)
				}
			}
			s := open(t, srv, Options{})
			if mode == "one-scope" {
				checkJournal(t, s, "global", 4000)
				return
			}
			total := uint64(0)
			for i := range 8 {
				sc := fmt.Sprintf("agent:%d", i)
				st := storetest.MustLoad(t, s, sc)
				checkJournal(t, s, sc, st.Seq)
				total += st.Seq
			}
			if total != 4000 {
				t.Fatalf("8 scopes hold %d events, want 4000", total)
			}
		})
	}
}

// Writers killed with SIGKILL at random moments, in the middle of
// two-scope updates with big entries, leave both scopes at the same count
// and every journal matching its state: no torn update.
func TestKilledClientsLeaveNoTornState(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	srv := redistest.Start(t, redistest.Options{})
	rng := rand.New(rand.NewPCG(7, 7))
	for round := range 12 {
		var cmds []*exec.Cmd
		for i := range 3 {
			c := helper(t, srv, "loop", i, 0)
			stdout, _ := c.StdoutPipe()
			if err := c.Start(); err != nil {
				t.Fatal(err)
			}
			bufio.NewReader(stdout).ReadString('\n') // connected, writing
			cmds = append(cmds, c)
		}
		time.Sleep(time.Duration(5+rng.IntN(40)) * time.Millisecond) // not a cooldown: where the kill lands
		for _, c := range cmds {
			_ = c.Process.Signal(syscall.SIGKILL)
			_ = c.Wait()
		}
		s := open(t, srv, Options{})
		a, b := storetest.MustLoad(t, s, pairScopes[0]), storetest.MustLoad(t, s, pairScopes[1])
		if a.Iterations != b.Iterations || a.Seq != b.Seq {
			t.Fatalf("round %d: torn two-scope update: %s at %d, %s at %d", round, pairScopes[0], a.Iterations, pairScopes[1], b.Iterations)
		}
		for _, sc := range pairScopes {
			checkJournal(t, s, sc, storetest.MustLoad(t, s, sc).Seq)
		}
	}
}

// With appendfsync always, an update acknowledged before redis-server is
// killed is there after its restart.
func TestAOFRestartLosesNoAcknowledgedUpdate(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	srv := redistest.Start(t, redistest.Options{AOF: true})
	c := helper(t, srv, "ack", 0, 0)
	stdout, _ := c.StdoutPipe()
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Process.Kill(); _ = c.Wait() }()
	r := bufio.NewScanner(stdout)
	var acked uint64
	for acked < 300 && r.Scan() {
		acked, _ = strconv.ParseUint(r.Text(), 10, 64)
	}
	srv.Kill() // mid-stream: the helper is writing when the server dies
	_ = c.Process.Signal(syscall.SIGKILL)
	for r.Scan() { // lines acknowledged before the kill, still in the pipe
		if v, err := strconv.ParseUint(r.Text(), 10, 64); err == nil {
			acked = v
		}
	}
	srv.Restart()
	s := open(t, srv, Options{})
	st := storetest.MustLoad(t, s, "global")
	if st.Seq < acked {
		t.Fatalf("after the restart the state is at seq %d; %d updates were acknowledged", st.Seq, acked)
	}
	checkJournal(t, s, "global", st.Seq)
	t.Logf("%d updates acknowledged before the kill, %d found after the restart", acked, st.Seq)
}
