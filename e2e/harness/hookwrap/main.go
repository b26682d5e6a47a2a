// Command hookwrap stands in for loopbreaker in an agent CLI's hook
// settings during end-to-end tests: it runs the real loopbreaker with the
// same arguments and payload, passes its answer through unchanged, and
// appends one JSON line per call (payload, answer, exit code, duration)
// to a log. harness.Wrap installs it as <dir>/loopbreaker, with a
// <dir>/loopbreaker.wrap.json next to it that names the real binary and
// the log.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"
)

type config struct {
	Real string `json:"real"`
	Log  string `json:"log"`
	// Notify is a FIFO signalled after each logged call, for a test
	// waiting for a call (harness.WaitForCall); none reading: no signal.
	Notify string `json:"notify,omitempty"`
	// Client, when set, is the thin hook client (loopbreaker-hook) that
	// answers the hook calls instead of Real, through the resident
	// breaker (LOOPBREAKER_E2E_HOOK_CLIENT=1, harness.Build).
	Client string `json:"client,omitempty"`
	// HoldPre, when set, holds each PreToolUse call whose payload
	// contains it until PostToolUse calls are logged after it began (harness.HoldPreToolUse): a call of a batch
	// announced only after another call of the batch reported, as a
	// busy machine orders them.
	HoldPre string `json:"hold_pre,omitempty"`
	// HoldNth, when above 0, holds only the nth such call; HoldPosts is
	// how many PostToolUse calls to wait for (1 when 0). HoldEvent and
	// HoldAfter name the CLI's pre-tool and post-tool events, when they
	// are not PreToolUse and PostToolUse (Gemini: BeforeTool, AfterTool).
	HoldNth   int    `json:"hold_nth,omitempty"`
	HoldPosts int    `json:"hold_posts,omitempty"`
	HoldEvent string `json:"hold_event,omitempty"`
	HoldAfter string `json:"hold_after,omitempty"`
}

type call struct {
	Start   time.Time       `json:"start"`
	Ms      float64         `json:"ms"`
	Args    []string        `json:"args"`
	Cwd     string          `json:"cwd"`
	Payload json.RawMessage `json:"payload,omitempty"`
	Raw     string          `json:"raw,omitempty"`
	Stdout  string          `json:"stdout"`
	Stderr  string          `json:"stderr"`
	Exit    int             `json:"exit"`
}

func main() {
	os.Exit(run())
}

func run() int {
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "hookwrap:", err)
		return 1
	}
	var cfg config
	b, err := os.ReadFile(self + ".wrap.json")
	if err == nil {
		err = json.Unmarshal(b, &cfg)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "hookwrap: read its config:", err)
		return 1
	}
	payload, _ := io.ReadAll(os.Stdin)
	c := call{Start: time.Now(), Args: os.Args[1:]}
	c.Cwd, _ = os.Getwd()
	if json.Valid(payload) {
		c.Payload = payload
	} else {
		c.Raw = string(payload)
	}
	if cfg.HoldPre != "" {
		pre, post := eventMark(cfg.HoldEvent, "PreToolUse"), eventMark(cfg.HoldAfter, "PostToolUse")
		if bytes.Contains(payload, pre) && bytes.Contains(payload, []byte(cfg.HoldPre)) &&
			(cfg.HoldNth <= 0 || ordinal(cfg.Log) == cfg.HoldNth) {
			hold(cfg.Log, post, countLines(cfg.Log, post)+max(cfg.HoldPosts, 1))
		}
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(cfg.Real, os.Args[1:]...)
	if cfg.Client != "" && len(os.Args) > 2 && os.Args[1] == "hook" {
		cmd = exec.Command(cfg.Client, os.Args[1:]...)
		cmd.Env = clientEnv()
	}
	cmd.Stdin = bytes.NewReader(payload)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	c.Ms = float64(time.Since(c.Start).Microseconds()) / 1000
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		c.Exit = ee.ExitCode()
	case err != nil:
		fmt.Fprintf(&stderr, "hookwrap: %v\n", err)
		c.Exit = 127
	}
	c.Stdout, c.Stderr = stdout.String(), stderr.String()
	if line, err := json.Marshal(c); err == nil {
		if f, err := os.OpenFile(cfg.Log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			// One write per line: O_APPEND keeps parallel hook calls'
			// lines whole.
			f.Write(append(line, '\n'))
			f.Close()
		}
	}
	if cfg.Notify != "" {
		// Non-blocking: a FIFO nobody reads refuses the open, a full one
		// the write; the waiter reads the log again at each signal.
		if f, err := os.OpenFile(cfg.Notify, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Write([]byte{'\n'})
			f.Close()
		}
	}
	os.Stdout.Write(stdout.Bytes())
	os.Stderr.Write(stderr.Bytes())
	return c.Exit
}

// eventMark is how a payload of event (def when "") names it: the
// payload is logged as the CLI sent it, compact JSON.
func eventMark(event, def string) []byte {
	if event == "" {
		event = def
	}
	return []byte(`"hook_event_name":"` + event + `"`)
}

// countLines counts the logged calls whose line contains mark.
func countLines(log string, mark []byte) int {
	b, _ := os.ReadFile(log)
	return bytes.Count(b, mark)
}

// ordinal numbers the calls that may be held in the order they began
// (calls of one batch run at once: the log, written as each ends, cannot
// tell), by the first marker file next to the log this one could make.
func ordinal(log string) int {
	for n := 1; n < 10000; n++ {
		f, err := os.OpenFile(fmt.Sprintf("%s.held-%d", log, n), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
		if err == nil {
			f.Close()
			return n
		}
		if !errors.Is(err, os.ErrExist) {
			return 0
		}
	}
	return 0
}

// hold waits until want calls of the event mark names are logged: the
// condition is other processes' calls, which only polling the log can
// see. However long a loaded machine takes to run them, the hold waits;
// holdHang only bounds a hang (a CLI that runs no call before every
// pre-tool hook answered), and the CLI's own hook timeout ends it sooner.
func hold(log string, mark []byte, want int) {
	deadline := time.Now().Add(holdHang)
	for countLines(log, mark) < want && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
}

// holdHang bounds a hold that nothing will end.
const holdHang = 10 * time.Minute

// clientEnv is the environment with a runtime directory short enough for
// the resident breaker's socket (a test's home is too deep for one), one
// per home, and an idle time that ends the resident breaker soon after
// its test.
func clientEnv() []string {
	env := os.Environ()
	if os.Getenv("XDG_RUNTIME_DIR") == "" {
		h := fnv.New32a()
		h.Write([]byte(os.Getenv("HOME")))
		dir := fmt.Sprintf("%s/lbrt-%08x", os.TempDir(), h.Sum32())
		os.Mkdir(dir, 0o700)
		env = append(env, "XDG_RUNTIME_DIR="+dir)
	}
	return append(env, "LOOPBREAKER_RESIDENT_IDLE=30s")
}
