package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/loopbreaker/loopbreaker/agent/all"
	"github.com/loopbreaker/loopbreaker/hookinstall"
	"github.com/loopbreaker/loopbreaker/internal/resident"
	"github.com/loopbreaker/loopbreaker/internal/residentwire"
	"github.com/loopbreaker/loopbreaker/session"
)

// systemPath is the PATH of every call the protected breaker answers: the
// programs it runs (git) are the system's, never ones an agent's PATH
// names.
const systemPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// systemMode is the protected breaker's side of a call: the places below
// the system root that hold its configuration and state, which belong to
// root or to the breaker's own user, never to the agent's.
type systemMode struct {
	root     string
	run      string // the socket's directory
	state    string // every project's state
	config   string // the configuration in force
	cfgHome  string // the directory of the user file the layers read
	rule     resident.Rule
	agentEnv []string // the agents' variables that name a project

	// marks are the running marks of answered calls whose clients have
	// not acknowledged the answer yet.
	marks *heldMarks

	// kept is what the calls keep between them, as the per-user
	// breaker's do (session.Kept).
	kept session.Kept
}

func newSystemMode(root string, rule resident.Rule) (*systemMode, error) {
	root, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	s := &systemMode{
		root:    root,
		run:     residentwire.SystemDir(root),
		state:   filepath.Join(root, residentwire.SystemStateDir),
		config:  filepath.Join(root, residentwire.SystemConfigDir, residentwire.SystemConfigName),
		cfgHome: filepath.Join(root, filepath.Dir(residentwire.SystemConfigDir)),
		rule:    rule,
		marks:   newHeldMarks(),
	}
	for _, a := range all.Agents() {
		if v := a.Traits().ProjectDirEnv; v != "" {
			s.agentEnv = append(s.agentEnv, v)
		}
	}
	return s, nil
}

// check refuses to serve when what the breaker decides by could be
// changed by someone else than root and the breaker's own user.
func (s *systemMode) check() error {
	if err := residentwire.CheckService(s.state); err != nil {
		return fmt.Errorf("the protected breaker's state: %w", err)
	}
	for _, p := range []string{s.config, filepath.Dir(s.config)} {
		if why := residentwire.OwnedBy(p, 0, os.Getuid()); why != "" {
			return fmt.Errorf("the protected breaker's configuration: %s: run `sudo loopbreaker protect setup` again", why)
		}
	}
	return nil
}

// environ is the environment of one call: the agent's variables that
// name its project and its home (where its CLI's settings are, for the
// guard), when the CLI started the client (the call's hook timeout counts
// from then), and nothing else of the caller's. No other LOOPBREAKER_
// variable, PATH or XDG_ directory of the agent's reaches the call: the
// configuration in force is the system's (LOOPBREAKER_CONFIG replaces the project's
// loopbreaker.yaml), and the state is the breaker's.
func (s *systemMode) environ(req *residentwire.Request, peer resident.Peer) []string {
	caller := &Env{Environ: req.Env}
	env := []string{"PATH=" + systemPath}
	if h := caller.Getenv("HOME"); filepath.IsAbs(h) {
		env = append(env, "HOME="+h)
	}
	for _, k := range s.agentEnv {
		if v := caller.Getenv(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	if v := caller.Getenv(residentwire.StartedEnv); v != "" {
		// When the CLI started the client: a forged one can only make the
		// forger's own call give up sooner (clockOf bounds it).
		env = append(env, residentwire.StartedEnv+"="+v)
	}
	name := strconv.Itoa(peer.UID)
	if u, err := user.LookupId(name); err == nil {
		name = u.Username
	}
	return append(env,
		"USER="+name,
		"XDG_CONFIG_HOME="+s.cfgHome,
		"LOOPBREAKER_CONFIG="+s.config,
		"LOOPBREAKER_STATE_DIR="+s.state,
		// The witness that tells an erased state from a new one lives
		// beside the state root: the breaker's too, not the agent's.
		"XDG_STATE_HOME="+s.state,
	)
}

// systemAnswer answers one call of the protected breaker. The rule has
// already let the peer make it (resident.Rule.Call): a hook event of an
// agent's user, or a person's reset.
func systemAnswer(ctx context.Context, env *Env, s *systemMode, req *residentwire.Request, peer resident.Peer) *residentwire.Response {
	if !filepath.IsAbs(req.Dir) {
		return &residentwire.Response{Err: fmt.Sprintf("the working directory %q is not absolute", req.Dir)}
	}
	if len(req.Args) > 0 && req.Args[0] == "hook" {
		if err := residentCallable(req, false); err != nil {
			return &residentwire.Response{Err: err.Error()}
		}
	}
	var stdout, stderr bytes.Buffer
	call := &Env{
		Stdin: bytes.NewReader(req.Stdin), Stdout: &stdout, Stderr: &stderr,
		Environ: s.environ(req, peer), Dir: req.Dir, Now: env.Now, system: s,
		hookStarted: time.Now(), kept: &s.kept, marks: s.marks, mark: s.marks.forCall(peer.PID),
	}
	code := Main(ctx, req.Args, call)
	s.marks.hold(req, call.mark)
	return &residentwire.Response{Code: code, Stdout: stdout.Bytes(), Stderr: stderr.Bytes()}
}

// userIDs reads a list of users, by name or uid, comma-separated.
func userIDs(list string) ([]int, error) {
	var out []int
	for _, w := range strings.Split(list, ",") {
		w = strings.TrimSpace(w)
		if w == "" {
			continue
		}
		id, err := userID(w)
		if err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, nil
}

func userID(w string) (int, error) {
	if n, err := strconv.Atoi(w); err == nil && n >= 0 {
		return n, nil
	}
	u, err := user.Lookup(w)
	if err != nil {
		return 0, fmt.Errorf("no user %q: %w", w, err)
	}
	return strconv.Atoi(u.Uid)
}

// systemFromFlags reads `resident run --system`'s flags.
func systemFromFlags(root, agents, people string) (*systemMode, error) {
	var rule resident.Rule
	var err error
	if rule.Agents, err = userIDs(agents); err != nil {
		return nil, usagef("resident run --agent-user: %v", err)
	}
	if rule.People, err = userIDs(people); err != nil {
		return nil, usagef("resident run --person-user: %v", err)
	}
	if len(rule.Agents) == 0 {
		return nil, usagef("resident run --system: name the agents' users with --agent-user (names or uids)")
	}
	for _, a := range rule.Agents {
		if a == 0 || a == os.Getuid() {
			return nil, usagef("resident run --system: the agent's user (uid %d) must be neither root nor the breaker's own user, or it could change the breaker's state", a)
		}
		for _, p := range rule.People {
			if p == a {
				return nil, usagef("resident run --system: uid %d is both an agent's user and a person's: an agent could reset its own breaker", a)
			}
		}
	}
	return newSystemMode(root, rule)
}

// serve makes s the protected breaker: the rule decides who calls, a call
// never hands the server over, and each call runs with the system's
// configuration and state.
func (s *systemMode) serve(srv *resident.Server, env *Env) error {
	if err := s.check(); err != nil {
		return err
	}
	// The projects belong to the agents' users: git refuses to read a
	// repository of another user unless its global configuration says
	// so, and the breaker's own is a file it writes in its state.
	gitConfig := filepath.Join(s.state, "gitconfig")
	if err := os.WriteFile(gitConfig, []byte("# written by loopbreaker resident run --system: the projects it measures belong to the agents' users\n[safe]\n\tdirectory = *\n"), 0o644); err != nil {
		return fmt.Errorf("writing the protected breaker's git configuration: %w", err)
	}
	if err := os.Setenv("GIT_CONFIG_GLOBAL", gitConfig); err != nil {
		return err
	}
	srv.Fixed = true
	srv.Delivered = func(req *residentwire.Request, _ resident.Peer, acked bool) { s.marks.delivered(req, acked) }
	srv.Accept = s.rule.Connect
	srv.Authorise = func(p resident.Peer, req *residentwire.Request) error { return s.rule.Call(p, req.Args) }
	srv.Handle = func(ctx context.Context, req *residentwire.Request, peer resident.Peer) *residentwire.Response {
		return systemAnswer(ctx, env, s, req, peer)
	}
	return nil
}

// exposed lists why a user other than root and the breaker's own (the
// owner of its socket's directory) could change what the protected
// breaker decides by: its socket's directory, its configuration, its
// state. Nothing found is nil.
func (s *systemMode) exposed() []string {
	breaker := residentwire.OwnerOf(s.run)
	var out []string
	if breaker < 0 {
		return []string{fmt.Sprintf("%s is missing: run `sudo loopbreaker protect setup`", s.run)}
	}
	for _, p := range []string{s.run, s.state} {
		if why := residentwire.OwnedBy(p, breaker); why != "" {
			out = append(out, why)
		}
	}
	for _, p := range []string{filepath.Dir(s.config), s.config} {
		if why := residentwire.OwnedBy(p, 0); why != "" {
			out = append(out, why)
		}
	}
	return out
}

// protectedExposed is what `hook status` lists for managed hooks of
// protected mode that ask the breaker below root: what the breaker decides
// by (exposed), and the loopbreaker beside each client program, which the
// breaker runs.
func protectedExposed(root string, clients []string) []string {
	s, err := newSystemMode(root, resident.Rule{})
	if err != nil {
		return []string{err.Error()}
	}
	out := s.exposed()
	for _, c := range clients {
		out = append(out, hookinstall.Exposed(filepath.Join(filepath.Dir(c), "loopbreaker"), managedOwner)...)
	}
	return out
}
