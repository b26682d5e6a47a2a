// Command loopbreaker-hook is the thin hook client: what an agent CLI's
// hook runs instead of `loopbreaker hook`. It forwards the call (the CLI's
// name and arguments, the payload on stdin, the environment and working
// directory) to the user's resident breaker over a Unix socket and prints
// its answer, starting the resident breaker when none runs. When the
// resident breaker cannot be reached it runs `loopbreaker hook …` itself,
// the same answer at the in-process cost, and says so once per agent
// session: it never lets a call through unchecked.
//
// With --protected ROOT (what protected mode's managed hooks run) it asks
// the protected breaker, a system service, on ROOT/run/loopbreaker, and
// nothing else: when it cannot, the tool call is denied (fail closed),
// never answered in-process, where the agent's user could reach the
// state.
//
// It imports the standard library and internal/residentwire only, so that
// it starts in about the time of a hello-world.
//
// A loop script's `check` and `record` go through it too, as they would
// run in-process (not in protected mode, whose breaker takes hook calls
// only).
//
//	loopbreaker-hook [hook] claude|codex|... [ARGS...] < payload.json
//	loopbreaker-hook [hook] claude|codex|... --protected ROOT [ARGS...] < payload.json
//	loopbreaker-hook check|record [FLAGS...]
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
	"path/filepath"
	"runtime"
	"time"

	"github.com/loopbreaker/loopbreaker/internal/residentwire"
)

// maxStdin is one byte over the largest payload loopbreaker reads (16 MiB,
// hook.MaxPayload): the breaker then says the payload is too large, as the
// in-process call does.
const maxStdin = 16<<20 + 1

// startWait bounds how long a client waits for the resident breaker it
// started to listen; it normally takes a few milliseconds.
const startWait = 3 * time.Second

func main() { os.Exit(run(os.Args[1:])) }

func run(args []string) int {
	// The agent CLI's hook timeout counts from now: whatever answers the
	// call counts from it too (residentwire.StartedEnv).
	env := residentwire.WithStarted(os.Environ(), residentwire.ProcessStarted())
	if len(args) > 0 && (args[0] == "check" || args[0] == "record") {
		return loopCommand(args, env)
	}
	if len(args) > 0 && args[0] == "hook" {
		args = args[1:]
	}
	if root, rest, ok := protectedRoot(args); ok {
		return protected(root, rest, env)
	}
	fwd := append([]string{"hook"}, args...)
	bin, err := mainBinary()
	if err != nil {
		fmt.Fprintf(os.Stderr, "loopbreaker-hook: %v: this call was NOT checked by loopbreaker; install loopbreaker beside loopbreaker-hook or on PATH\n", err)
		return 1
	}
	// What is not a hook call to answer (help, install, a person at a
	// terminal, the resident breaker switched off) goes to loopbreaker
	// itself, stdin untouched.
	if len(args) == 0 || args[0] == "" || args[0][0] == '-' || args[0] == "install" || args[0] == "uninstall" || args[0] == "status" ||
		os.Getenv("LOOPBREAKER_RESIDENT") == "off" || stdinIsDevice() {
		return runMain(bin, fwd, os.Stdin, env)
	}
	stdin, err := io.ReadAll(io.LimitReader(os.Stdin, maxStdin))
	if err != nil {
		return fallback(bin, fwd, stdin, env, fmt.Errorf("reading the payload: %w", err))
	}
	return forward(bin, fwd, stdin, env)
}

// loopCommand runs `check` or `record` (a loop script's calls, args)
// through the resident breaker, as `loopbreaker check|record` would run
// them: the same output and exit code. Stdin is read only when an option
// names it ("-", as `record --error-file -` does), so that a script's
// own input (a `while read` loop) is left alone.
func loopCommand(args, env []string) int {
	bin, err := mainBinary()
	if err != nil {
		fmt.Fprintf(os.Stderr, "loopbreaker-hook: %v: install loopbreaker beside loopbreaker-hook or on PATH\n", err)
		return 1
	}
	if os.Getenv("LOOPBREAKER_RESIDENT") == "off" {
		return runMain(bin, args, os.Stdin, env)
	}
	var stdin []byte
	if readsStdin(args) {
		if stdin, err = io.ReadAll(io.LimitReader(os.Stdin, maxStdin)); err != nil {
			return fallback(bin, args, stdin, env, fmt.Errorf("reading stdin: %w", err))
		}
	}
	return forward(bin, args, stdin, env)
}

// readsStdin reports whether an argument names stdin ("-", "--flag=-").
func readsStdin(args []string) bool {
	for _, a := range args {
		if a == "-" || (len(a) > 2 && a[0] == '-' && a[len(a)-2:] == "=-") {
			return true
		}
	}
	return false
}

// forward asks the resident breaker to run fwd (with stdin, in env) and
// prints its answer; when it cannot be asked, loopbreaker runs it in a
// process of its own.
func forward(bin string, fwd []string, stdin []byte, env []string) int {
	dir, err := residentwire.Dir(os.Getenv)
	if err != nil {
		return fallback(bin, fwd, stdin, env, err)
	}
	build, err := residentwire.Fingerprint(bin)
	if err != nil {
		return fallback(bin, fwd, stdin, env, fmt.Errorf("reading %s: %w", bin, err))
	}
	wd, err := os.Getwd()
	if err != nil {
		return fallback(bin, fwd, stdin, env, fmt.Errorf("reading the working directory: %w", err))
	}
	req := &residentwire.Request{Build: build, Args: fwd, Env: env, Dir: wd, Stdin: stdin}
	resp, c, err := ask(dir, req, bin)
	if err != nil {
		return fallback(bin, fwd, stdin, env, err)
	}
	defer c.Close()
	pass(resp)
	// Passed on: the resident breaker removes the call's running mark.
	// Killed before this, the call is reported by the project's next one,
	// as a killed in-process hook is.
	residentwire.WriteAck(c)
	return resp.Code
}

// pass prints an answer's output. Most answers print nothing, and an
// empty write would still be a system call each.
func pass(resp *residentwire.Response) {
	if len(resp.Stdout) > 0 {
		os.Stdout.Write(resp.Stdout)
	}
	if len(resp.Stderr) > 0 {
		os.Stderr.Write(resp.Stderr)
	}
}

// ask sends req to the resident breaker, starting it when none answers or
// when the one that answers is of another build. It returns the answer
// and the connection to acknowledge it on.
func ask(dir string, req *residentwire.Request, bin string) (*residentwire.Response, *os.File, error) {
	sock, err := residentwire.SocketPath(dir)
	if err != nil {
		return nil, nil, err
	}
	if err := residentwire.CheckPrivate(dir); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, nil, err
	}
	c, err := dial(sock)
	if err != nil {
		if c, err = start(dir, sock, bin); err != nil {
			return nil, nil, err
		}
	}
	resp, err := exchange(c, req)
	if err == nil && resp.Replaced {
		// Another build answered and is going away: start ours.
		c.Close()
		if c, err = start(dir, sock, bin); err != nil {
			return nil, nil, err
		}
		if resp, err = exchange(c, req); err == nil && resp.Replaced {
			err = fmt.Errorf("it is of another build than %s even after a restart", bin)
		}
	}
	if err == nil && resp.Err != "" {
		err = fmt.Errorf("refused the call: %s", resp.Err)
	}
	if err != nil {
		c.Close()
		return nil, nil, fmt.Errorf("the resident breaker on %s: %w", sock, err)
	}
	return resp, c, nil
}

// exchange sends req on c and reads the answer, leaving c open for the
// acknowledgement.
func exchange(c io.ReadWriter, req *residentwire.Request) (*residentwire.Response, error) {
	if err := residentwire.WriteRequest(c, req); err != nil {
		// A server that refuses the caller answers at once and closes:
		// its answer says why, better than the broken pipe.
		if resp, rerr := residentwire.ReadResponse(c); rerr == nil && resp.Err != "" {
			return resp, nil
		}
		return nil, fmt.Errorf("sending the call: %w", err)
	}
	resp, err := residentwire.ReadResponse(c)
	if err != nil {
		return nil, fmt.Errorf("reading the answer: %w", err)
	}
	return resp, nil
}

// start starts `loopbreaker resident run` in its own session, detached
// from the agent CLI, and waits for its socket.
func start(dir, sock, bin string) (*os.File, error) {
	if err := residentwire.MakePrivate(dir); err != nil {
		return nil, err
	}
	log, err := os.OpenFile(filepath.Join(dir, residentwire.LogName), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("opening the resident breaker's log: %w", err)
	}
	defer log.Close()
	// The resident breaker writes a byte to this pipe once it listens: the
	// client waits for that, not for a polling interval.
	ready, readyW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("starting the resident breaker: %w", err)
	}
	defer ready.Close()
	cmd := exec.Command(bin, "resident", "run", "--ready-fd", "3")
	cmd.Dir = "/"
	cmd.Env = residentEnv()
	cmd.Stdout, cmd.Stderr = log, log
	cmd.ExtraFiles = []*os.File{readyW}
	detach(cmd)
	err = cmd.Start()
	readyW.Close()
	if err != nil {
		return nil, fmt.Errorf("starting the resident breaker: %w", err)
	}
	go cmd.Wait()
	// Our server writes its byte once it listens; one started by another
	// call at the same moment may be the one that listens instead (ours
	// then waits for the lock and exits), so the socket is tried between
	// short waits on the pipe.
	deadline := time.Now().Add(startWait)
	buf := make([]byte, 1)
	for {
		c, err := dial(sock)
		if err == nil {
			return c, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("the resident breaker did not listen on %s within %v: see %s", sock, startWait, filepath.Join(dir, residentwire.LogName))
		}
		ready.SetReadDeadline(time.Now().Add(5 * time.Millisecond))
		if n, err := ready.Read(buf); n == 0 && err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
			// Ours exited without listening: wait for the other one.
			time.Sleep(2 * time.Millisecond)
		}
	}
}

// residentEnv is what the resident breaker is started with: where the
// user's files are, and nothing of the agent CLI's session (each call
// brings its own environment).
func residentEnv() []string {
	var env []string
	for _, k := range []string{"HOME", "USER", "LOGNAME", "PATH", "TMPDIR", "LANG", "LC_ALL",
		"XDG_RUNTIME_DIR", "XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME",
		"LOOPBREAKER_RESIDENT_IDLE"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// fallback runs fwd with `loopbreaker` in a process of its own, and says
// once per agent session (a loop command: per working directory) why.
func fallback(bin string, fwd []string, stdin []byte, env []string, why error) int {
	if firstFallback(fwd, stdin) {
		what := "This agent session's hook calls are answered by `loopbreaker hook`"
		if fwd[0] != "hook" {
			what = "`loopbreaker-hook check|record` here run as `loopbreaker check|record`"
		}
		fmt.Fprintf(os.Stderr, "loopbreaker-hook: %v. %s in a process of their own: the same answers, at the in-process cost (see `loopbreaker resident status`).\n", why, what)
	}
	return runMain(bin, fwd, bytes.NewReader(stdin), env)
}

// firstFallback reports whether this is the agent session's first call
// that fell back, leaving a mark so that the next is not. Without a
// place for marks every fall-back says so.
func firstFallback(fwd []string, stdin []byte) bool {
	dir, err := residentwire.FallbackDir(os.Getenv)
	if err != nil {
		return true
	}
	var p struct {
		SessionID string `json:"session_id"`
		Session   string `json:"sessionId"`
	}
	key := ""
	if fwd[0] == "hook" {
		json.Unmarshal(stdin, &p)
		if len(fwd) > 1 {
			key = fwd[1]
		}
	} else {
		key, _ = os.Getwd()
		key = fwd[0] + "\x00" + key
	}
	h := fnv.New64a()
	h.Write([]byte(key + "\x00" + p.SessionID + p.Session))
	mark := filepath.Join(dir, fmt.Sprintf("%016x", h.Sum64()))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return true
	}
	f, err := os.OpenFile(mark, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return !errors.Is(err, os.ErrExist)
	}
	f.Close()
	return true
}

// runMain runs loopbreaker with args, stdin and env, its output and exit
// code passed through.
func runMain(bin string, args []string, stdin io.Reader, env []string) int {
	cmd := exec.Command(bin, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr, cmd.Env = stdin, os.Stdout, os.Stderr, env
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee) && ee.ExitCode() >= 0:
		return ee.ExitCode()
	default:
		fmt.Fprintf(os.Stderr, "loopbreaker-hook: running %s: %v: this call was NOT checked by loopbreaker\n", bin, err)
		return 1
	}
}

// mainBinary is the loopbreaker the client falls back to and starts as
// the resident breaker: the one beside the client, else the first on
// PATH.
func mainBinary() (string, error) {
	name := "loopbreaker"
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), name)
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			return p, nil
		}
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("no loopbreaker binary beside loopbreaker-hook or on PATH")
	}
	return filepath.Abs(p)
}

// stdinIsDevice reports whether stdin is a terminal or another device: a
// person typed the command, and loopbreaker tells them how to use it.
func stdinIsDevice() bool {
	fi, err := os.Stdin.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
