package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/loopbreaker/loopbreaker/agent/all"
	"github.com/loopbreaker/loopbreaker/gitrepo"
	"github.com/loopbreaker/loopbreaker/internal/resident"
	"github.com/loopbreaker/loopbreaker/internal/residentwire"
	"github.com/loopbreaker/loopbreaker/session"
)

// defaultIdle is how long a resident breaker started by a hook call waits
// for the next one: long enough to span an agent's thinking between tool
// calls, short enough not to linger after the session.
const defaultIdle = 30 * time.Minute

// runResident is `loopbreaker resident`: the per-user process that answers
// the hook calls the thin client (loopbreaker-hook) forwards.
func runResident(ctx context.Context, env *Env, args []string) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		printResidentUsage(env)
		if len(args) == 0 {
			return usagef("resident: name an action: run, stop, status or unit")
		}
		return nil
	}
	switch args[0] {
	case "run":
		return runResidentServer(ctx, env, args[1:])
	case "stop":
		return runResidentStop(env, args[1:])
	case "status":
		return runResidentStatus(env, args[1:])
	case "unit":
		return runResidentUnit(env, args[1:])
	}
	return usagef("resident: unknown action %q: run, stop, status or unit", args[0])
}

func printResidentUsage(env *Env) {
	fmt.Fprint(env.Stdout, `loopbreaker resident: the per-user resident breaker that answers the hook calls of loopbreaker-hook

Usage:
  loopbreaker resident run [--idle 30m] [--wait]
      answer hook calls over the user's socket until idle for --idle (0:
      never). The thin client loopbreaker-hook starts it on the first hook
      call; --wait waits for a resident breaker already running to go away
      instead of exiting (for systemd and launchd).
  loopbreaker resident run --system --agent-user U --person-user P [--root /]
      the protected breaker: a system service, run as a user of its own,
      on /run/loopbreaker/resident.sock, with its state in
      /var/lib/loopbreaker and the configuration in force in
      /etc/loopbreaker/loopbreaker.yaml; it answers the hook events of the
      agents' users and the resets of the people's (docs/protected.md).
  loopbreaker resident stop
      ask the running resident breaker to exit (the next hook call starts
      a new one).
  loopbreaker resident status
      where the socket is and whether a resident breaker answers on it.
  loopbreaker resident unit systemd|launchd
      print a systemd user unit or a launchd agent that keeps it running.

The socket is $XDG_RUNTIME_DIR/loopbreaker/resident.sock, else
$XDG_STATE_HOME/loopbreaker/run/ (~/.local/state/loopbreaker/run/), in a
directory only the user can reach. See docs/resident.md.

Example:
  loopbreaker resident status
`)
}

// runResidentServer runs the server in the foreground.
func runResidentServer(ctx context.Context, env *Env, args []string) error {
	fs := newFlagSet("resident run", env)
	idle := defaultIdle
	if v := env.Getenv("LOOPBREAKER_RESIDENT_IDLE"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d < 0 {
			return fmt.Errorf("LOOPBREAKER_RESIDENT_IDLE=%q: want a duration such as 30m (0: never exit)", v)
		}
		idle = d
	}
	fs.DurationVar(&idle, "idle", idle, "exit after this long without a call; 0 never (env LOOPBREAKER_RESIDENT_IDLE)")
	wait := fs.Bool("wait", false, "wait for a resident breaker already running to go away, instead of exiting")
	readyFD := fs.Int("ready-fd", 0, "write one byte to this inherited `fd` and close it once the socket listens (how loopbreaker-hook learns it may call)")
	system := fs.Bool("system", false, "serve as the protected breaker, a system service running as a user of its own (see docs/protected.md)")
	root := fs.String("root", "/", "with --system: the system `root` below which run/loopbreaker, var/lib/loopbreaker and etc/loopbreaker are (an image, a test)")
	agents := fs.String("agent-user", "", "with --system: the agents' `users` (names or uids, comma-separated), whose hook events it answers")
	people := fs.String("person-user", "", "with --system: the people's `users` (names or uids, comma-separated), who may reset (root always may)")
	if err := parse(fs, args); err != nil {
		return err
	}
	var sys *systemMode
	if *system {
		var err error
		if sys, err = systemFromFlags(*root, *agents, *people); err != nil {
			return err
		}
		if !named(fs, "idle") && env.Getenv("LOOPBREAKER_RESIDENT_IDLE") == "" {
			idle = 0 // a service: its unit starts and stops it
		}
	} else if *agents != "" || *people != "" || named(fs, "root") {
		return usagef("resident run: --root, --agent-user and --person-user go with --system")
	}
	var dir string
	if sys != nil {
		dir = sys.run
	} else {
		var err error
		if dir, err = residentwire.Dir(env.Getenv); err != nil {
			return err
		}
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding this binary, whose build the clients compare: %w", err)
	}
	build, err := residentwire.Fingerprint(exe)
	if err != nil {
		return fmt.Errorf("reading this binary's build: %w", err)
	}
	after := env.after
	if after == nil {
		after = time.After
	}
	if idle == 0 {
		after = func(time.Duration) <-chan time.Time { return nil }
	}
	// What the calls keep between them is this server's alone.
	kept := &session.Kept{}
	marks := newHeldMarks()
	s := &resident.Server{
		Dir: dir, Build: build, Idle: idle, After: after,
		Handle: func(ctx context.Context, req *residentwire.Request, peer resident.Peer) *residentwire.Response {
			return residentAnswer(ctx, env, kept, req, peer, marks)
		},
		Delivered: func(req *residentwire.Request, _ resident.Peer, acked bool) { marks.delivered(req, acked) },
		Log:       env.Stderr,
	}
	if *wait {
		s.LockWait = 100 * 365 * 24 * time.Hour
	}
	if sys != nil {
		if err := sys.serve(s, env); err != nil {
			return err
		}
	}
	if *readyFD > 2 {
		ready := os.NewFile(uintptr(*readyFD), "ready")
		// Closed on every way out: a server that does not listen (another
		// one runs, an error) tells the client by the pipe's end.
		defer ready.Close()
		s.Ready = func() {
			ready.Write([]byte{1})
			ready.Close()
		}
	}
	err = s.Run(ctx)
	if errors.Is(err, resident.ErrRunning) {
		// Several hook calls may start one each; one wins.
		return nil
	}
	return err
}

// residentAnswer answers one forwarded call exactly as the process
// `loopbreaker ARGS...` started with the client's environment, working
// directory and stdin would: the same Main, on an Env made of them. Only
// a hook call, check and record are taken (residentCallable); anything
// else would let whoever reaches the socket run any command as this user
// (a reset above all). kept is what the server keeps between
// its calls. The call's running mark is the client's (peer), held in
// marks until the client acknowledged the answer.
func residentAnswer(ctx context.Context, env *Env, kept *session.Kept, req *residentwire.Request, peer resident.Peer, marks *heldMarks) *residentwire.Response {
	if err := residentCallable(req, true); err != nil {
		return &residentwire.Response{Err: err.Error()}
	}
	var stdout, stderr bytes.Buffer
	call := &Env{
		Stdin: bytes.NewReader(req.Stdin), Stdout: &stdout, Stderr: &stderr,
		Environ: req.Env, Dir: req.Dir, Now: env.Now, hookStarted: time.Now(), kept: kept,
		marks: marks, mark: marks.forCall(peer.PID),
	}
	// git too runs as in the call's own process: its PATH, HOME,
	// GIT_DIR and the rest, not those of the call that started this
	// server. (The protected breaker keeps its own: there, the agent's
	// environment must not choose the git the breaker runs.)
	code := Main(gitrepo.WithEnviron(ctx, req.Env), req.Args, call)
	marks.hold(req, call.mark)
	return &residentwire.Response{Code: code, Stdout: stdout.Bytes(), Stderr: stderr.Bytes()}
}

// residentCallable says why req is not a call the resident breaker
// answers: a hook call of a known CLI, or, with loop (the per-user
// breaker), a loop script's `check` or `record`, which change nothing a
// hook call could not. A reset, an install or anything else is refused.
func residentCallable(req *residentwire.Request, loop bool) error {
	if !filepath.IsAbs(req.Dir) {
		return fmt.Errorf("the working directory %q is not absolute", req.Dir)
	}
	if loop && len(req.Args) > 0 && (req.Args[0] == "check" || req.Args[0] == "record") {
		return nil
	}
	if len(req.Args) < 2 || req.Args[0] != "hook" {
		besides := ""
		if loop {
			besides = ", besides a loop script's check and record"
		}
		return fmt.Errorf("the resident breaker answers hook calls only (`hook CLI ...`)%s, not %q: run that with `loopbreaker` itself", besides, strings.Join(req.Args, " "))
	}
	if _, err := all.Lookup(req.Args[1]); err != nil {
		return fmt.Errorf("the resident breaker answers hook calls only: %v", err)
	}
	return nil
}

// runResidentStop asks the running server to go away: a call of no build
// is one the server hands over on.
func runResidentStop(env *Env, args []string) error {
	if err := parse(newFlagSet("resident stop", env), args); err != nil {
		return err
	}
	sock, c, err := dialResident(env)
	if err != nil {
		fmt.Fprintf(env.Stdout, "no resident breaker answers on %s\n", sock)
		return nil
	}
	defer c.Close()
	if err := residentwire.WriteRequest(c, &residentwire.Request{Build: "", Args: []string{"stop"}, Dir: "/"}); err != nil {
		return fmt.Errorf("asking the resident breaker to stop: %w", err)
	}
	resp, err := residentwire.ReadResponse(c)
	if err != nil {
		return fmt.Errorf("asking the resident breaker to stop: %w", err)
	}
	if !resp.Replaced {
		return fmt.Errorf("the resident breaker on %s did not agree to stop: %s", sock, resp.Err)
	}
	fmt.Fprintf(env.Stdout, "the resident breaker on %s is stopping\n", sock)
	return nil
}

// runResidentStatus says where the socket is and whether it answers.
func runResidentStatus(env *Env, args []string) error {
	if err := parse(newFlagSet("resident status", env), args); err != nil {
		return err
	}
	sock, c, err := dialResident(env)
	if err != nil {
		fmt.Fprintf(env.Stdout, "socket: %s\nresident breaker: not running (%v); the next hook call through loopbreaker-hook starts it\n", sock, err)
		return nil
	}
	c.Close()
	fmt.Fprintf(env.Stdout, "socket: %s\nresident breaker: running\n", sock)
	return nil
}

func dialResident(env *Env) (string, net.Conn, error) {
	dir, err := residentwire.Dir(env.Getenv)
	if err != nil {
		return "", nil, err
	}
	sock, err := residentwire.SocketPath(dir)
	if err != nil {
		return "", nil, err
	}
	if err := residentwire.CheckPrivate(dir); err != nil {
		return sock, nil, err
	}
	c, err := net.DialTimeout("unix", sock, 2*time.Second)
	return sock, c, err
}

// runResidentUnit prints a service definition that keeps the resident
// breaker running for the user.
func runResidentUnit(env *Env, args []string) error {
	if len(args) != 1 || (args[0] != "systemd" && args[0] != "launchd") {
		return usagef("resident unit: name systemd or launchd")
	}
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("finding this binary for the unit: %w", err)
	}
	logPath := filepath.Join(os.TempDir(), "loopbreaker-resident."+strconv.Itoa(os.Getuid())+".log")
	if dir, err := residentwire.Dir(env.Getenv); err == nil {
		logPath = filepath.Join(dir, residentwire.LogName)
	}
	if args[0] == "systemd" {
		fmt.Fprintf(env.Stdout, `# ~/.config/systemd/user/loopbreaker-resident.service
# systemctl --user daemon-reload && systemctl --user enable --now loopbreaker-resident
[Unit]
Description=loopbreaker resident breaker (answers the hook calls of loopbreaker-hook)

[Service]
ExecStart=%s resident run --idle 0 --wait
Restart=always
RestartSec=2

[Install]
WantedBy=default.target
`, exe)
		return nil
	}
	fmt.Fprintf(env.Stdout, `<?xml version="1.0" encoding="UTF-8"?>
<!-- ~/Library/LaunchAgents/dev.loopbreaker.resident.plist
     launchctl bootstrap gui/$(id -u) ~/Library/LaunchAgents/dev.loopbreaker.resident.plist -->
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
  <key>Label</key><string>dev.loopbreaker.resident</string>
  <key>ProgramArguments</key>
  <array>
    <string>%s</string>
    <string>resident</string><string>run</string>
    <string>--idle</string><string>0</string>
    <string>--wait</string>
  </array>
  <key>RunAtLoad</key><true/>
  <key>KeepAlive</key><true/>
  <key>StandardErrorPath</key><string>%s</string>
</dict>
</plist>
`, xmlText(exe), xmlText(logPath))
	return nil
}

// xmlText escapes s for a plist's text.
func xmlText(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}
