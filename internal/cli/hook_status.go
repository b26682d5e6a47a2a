package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/loopbreaker/loopbreaker/agent"
	"github.com/loopbreaker/loopbreaker/agent/all"
	"github.com/loopbreaker/loopbreaker/hook"
	"github.com/loopbreaker/loopbreaker/hookinstall"
	"github.com/loopbreaker/loopbreaker/session"
)

type hookStatusOptions struct {
	project string
	json    bool
	root    string
}

// hookStatusReport is `hook status --json`: one entry per agent CLI.
type hookStatusReport struct {
	Project  string                     `json:"project"`
	StateDir string                     `json:"state_dir"`
	Tools    []toolHookStatus           `json:"tools"`
	Warnings []string                   `json:"warnings"`
	Sessions []hook.Seen                `json:"sessions"`
	Unseen   []hookinstall.AgentSession `json:"sessions_without_hook_calls"`
	// Stopped are agent sessions whose own record went on after their
	// last hook call: the hooks stopped being called.
	Stopped []stoppedSession `json:"sessions_with_hooks_stopped"`
}

// stoppedSession is an agent session written to well after its last hook
// call.
type stoppedSession struct {
	hookinstall.AgentSession
	LastHookCall time.Time `json:"last_hook_call"`
}

// hookSilence is how long an agent session's record may go on after its
// last hook call before the hooks count as stopped: the CLI writes the
// turn's last lines after its last hook, never minutes after.
const hookSilence = 2 * time.Minute

type toolHookStatus struct {
	Tool hook.Tool `json:"tool"`
	// Program is the CLI's command, looked up on PATH.
	Program    string             `json:"-"`
	Executable string             `json:"executable,omitempty"`
	Version    string             `json:"version,omitempty"`
	Installs   []hookInstallPlace `json:"installs"`
	// Trust is how the agent CLI treats the hooks: "trusted", "untrusted",
	// "unknown", or a sentence.
	Trust    string   `json:"trust,omitempty"`
	Warnings []string `json:"warnings"`
	// HaltUnseen, where loopbreaker's hooks are installed for a CLI that
	// cannot show the person why it halted, says what the person sees
	// instead.
	HaltUnseen string `json:"halt_unseen,omitempty"`
	// LastCall is the newest hook call of this tool's sessions.
	LastCall *time.Time `json:"last_call,omitempty"`
}

type hookInstallPlace struct {
	Level     string    `json:"level"` // project, user or managed
	Path      string    `json:"path"`
	Installed bool      `json:"installed"`
	Events    []string  `json:"events,omitempty"`
	Programs  []string  `json:"programs,omitempty"`
	Modified  time.Time `json:"modified,omitzero"`
	// Exposed says, for managed hooks, what the agent's user could change
	// (empty: protected).
	Exposed []string `json:"exposed,omitempty"`
}

// runHookStatus is `loopbreaker hook status`: for each agent CLI, where
// loopbreaker's hooks are installed, the CLI's version, whether the CLI
// will run them (trust, switches), when a hook call last arrived per agent
// session, and which recent agent sessions of this project ran with no
// hook call at all.
func runHookStatus(ctx context.Context, env *Env, args []string) error {
	var o hookStatusOptions
	fs := newFlagSet("hook status", env)
	fs.StringVar(&o.project, "C", "", "project `dir`ectory (default: the nearest parent with loopbreaker.yaml, else the working directory)")
	fs.BoolVar(&o.json, "json", false, "print JSON instead of text")
	fs.StringVar(&o.root, "root", "/", "the system `root` below which the CLIs' managed settings are read (an image being built, a test)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("hook status: unexpected argument %q (it reports on %s together)", fs.Arg(0), strings.Replace(all.OneOf(), " or ", " and ", 1))
	}
	project := resolveProject(env, o.project)
	rep := hookStatusReport{Project: project, Warnings: []string{}}
	stateDir, _, err := stateDirOf(env, project)
	if err != nil {
		return err
	}
	rep.StateDir = stateDir
	seen, err := hook.ReadSeen(rep.StateDir)
	if err != nil {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("cannot read the hook call marks in %s: %v", rep.StateDir, err))
	}
	inStore, err := seenInStore(ctx, env, project)
	if err != nil {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("cannot read the sessions' hook calls from the breakers: %v", err))
	}
	killed, late := findKilled(rep.StateDir, false, nil)
	for _, what := range append(killed, findUnguarded(env, false)...) {
		// Reported to the breaker by the next hook call that runs.
		rep.Warnings = append(rep.Warnings, what+"; the next hook call records it")
	}
	for _, what := range late {
		rep.Warnings = append(rep.Warnings, what+"; the next hook call reports it")
	}
	seen = mergeSeen(seen, inStore)
	rep.Sessions = seen
	if rep.Sessions == nil {
		rep.Sessions = []hook.Seen{}
	}
	rep.Unseen = []hookinstall.AgentSession{}
	rep.Stopped = []stoppedSession{}
	if !session.HasProjectMarker(project) && env.Getenv("LOOPBREAKER_DIR") == "" {
		rep.Warnings = append(rep.Warnings, fmt.Sprintf("no loopbreaker.yaml in %s: installed hooks do nothing here (run `loopbreaker init`)", project))
	}
	for _, ag := range all.Agents() {
		tool := ag.Name()
		ts := toolStatus(ctx, env, ag, project)
		if place, warnings := managedStatus(env, ag, o.root, project, rep.StateDir); place != nil && place.Installed {
			ts.Installs = append(ts.Installs, *place)
			ts.Warnings = append(ts.Warnings, warnings...)
		}
		var since time.Time
		for _, p := range ts.Installs {
			if p.Installed && (since.IsZero() || p.Modified.Before(since)) {
				since = p.Modified
			}
			if p.Installed {
				ts.HaltUnseen = ag.Traits().HaltUnseen
			}
		}
		sessionsSeen := map[string]time.Time{}
		for _, s := range seen {
			if s.Tool != string(tool) {
				continue
			}
			sessionsSeen[s.SessionID] = s.Last
			if ts.LastCall == nil || s.Last.After(*ts.LastCall) {
				last := s.Last
				ts.LastCall = &last
			}
		}
		if !since.IsZero() {
			for _, a := range ag.Sessions(agentEnv(env), project, since) {
				if last, ok := sessionsSeen[a.ID]; ok {
					if a.Time.After(last.Add(hookSilence)) {
						rep.Stopped = append(rep.Stopped, stoppedSession{AgentSession: a, LastHookCall: last})
						ts.Warnings = append(ts.Warnings, fmt.Sprintf("session %s went on until %s, %s after its last hook call (%s): its hooks STOPPED being called, and what it did since ran unguarded (hooks removed from the settings, switched off, or the settings no longer read; see `loopbreaker report`)",
							a.ID, a.Time.UTC().Format(time.RFC3339), a.Time.Sub(last).Round(time.Second), last.UTC().Format(time.RFC3339)))
					}
					continue
				}
				rep.Unseen = append(rep.Unseen, a)
				ts.Warnings = append(ts.Warnings, fmt.Sprintf("session %s (%s) ran in this project after the install with NO hook call: it ran unguarded (%s)",
					a.ID, a.Time.UTC().Format(time.RFC3339), unseenHint(ag)))
			}
		}
		rep.Tools = append(rep.Tools, ts)
	}
	if o.json {
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	printHookStatus(env, rep)
	return nil
}

func unseenHint(a agent.Agent) string {
	if h := a.Traits().Unseen; h != "" {
		return h
	}
	return "hooks switched off, or the settings file not read"
}

func toolStatus(ctx context.Context, env *Env, a agent.Agent, project string) toolHookStatus {
	ts := toolHookStatus{Tool: a.Name(), Program: agent.Executable(a), Warnings: []string{}}
	if p, ok := lookPath(env, agent.Executable(a)); ok {
		ts.Executable = p
		if v, err := hookinstall.AgentVersion(ctx, p, env.Environ, a.Traits().VersionScratch); err == nil {
			ts.Version = v
		} else {
			ts.Warnings = append(ts.Warnings, err.Error())
		}
	}
	req := &agent.StatusRequest{Env: agentEnv(env), Project: project, Executable: ts.Executable, Version: ts.Version}
	for _, user := range []bool{false, true} {
		level := "project"
		if user {
			level = "user"
		}
		path, err := a.SettingsPath(user, project, env.Getenv)
		if err != nil {
			ts.Warnings = append(ts.Warnings, err.Error())
			continue
		}
		place := hookInstallPlace{Level: level, Path: path}
		in, warnings := a.Installed(nil, path)
		place.Installed, place.Events, place.Programs = len(in.Events) > 0, in.Events, in.Programs
		if fi, err := os.Stat(path); err == nil && (place.Installed || !fi.IsDir()) {
			place.Modified = fi.ModTime()
		}
		if place.Installed {
			for _, w := range warnings {
				ts.Warnings = append(ts.Warnings, path+": "+w)
			}
			for _, prog := range in.Programs {
				if !programThere(env, prog) {
					ts.Warnings = append(ts.Warnings, fmt.Sprintf("%s: the hooks run %s, which is missing: they do nothing but warn (the agent runs UNGUARDED); install again", path, prog))
				}
			}
		}
		ts.Installs = append(ts.Installs, place)
		req.Places = append(req.Places, agent.Place{Level: level, Path: path, Installed: in})
	}
	trust, warnings := a.Status(ctx, req)
	ts.Trust = trust
	ts.Warnings = append(ts.Warnings, warnings...)
	return ts
}

func programThere(env *Env, prog string) bool {
	if !strings.ContainsAny(prog, `/\`) {
		_, ok := lookPath(env, prog)
		return ok
	}
	fi, err := os.Stat(prog)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

func printHookStatus(env *Env, rep hookStatusReport) {
	w := env.Stdout
	now := env.Now()
	fmt.Fprintf(w, "project: %s\nstate:   %s\n", rep.Project, rep.StateDir)
	for _, ts := range rep.Tools {
		fmt.Fprintf(w, "\n%s\n", ts.Tool)
		switch {
		case ts.Executable == "":
			fmt.Fprintf(w, "  version:    unknown (%s is not on PATH)\n", ts.Program)
		case ts.Version == "":
			fmt.Fprintf(w, "  version:    unknown (%s)\n", ts.Executable)
		default:
			fmt.Fprintf(w, "  version:    %s (%s)\n", ts.Version, ts.Executable)
		}
		for _, p := range ts.Installs {
			if p.Installed {
				fmt.Fprintf(w, "  %-8s    installed in %s (%s)\n", p.Level+":", p.Path, strings.Join(p.Events, ", "))
				if p.Level == "managed" && len(p.Exposed) == 0 {
					fmt.Fprintf(w, "  protected:  yes (the file, its directories and the program are root's alone, the pins are set)\n")
				}
				for _, e := range p.Exposed {
					fmt.Fprintf(w, "  exposed:    %s\n", e)
				}
			} else {
				fmt.Fprintf(w, "  %-8s    not installed (%s)\n", p.Level+":", p.Path)
			}
		}
		if ts.Trust != "" {
			fmt.Fprintf(w, "  trust:      %s\n", ts.Trust)
		}
		if ts.HaltUnseen != "" {
			fmt.Fprintf(w, "  halts:      not shown to the person: %s; the reason is in `loopbreaker status --session %s`, or run the agent under `loopbreaker run`, which prints it\n", ts.HaltUnseen, ts.Tool)
		}
		if ts.LastCall != nil {
			fmt.Fprintf(w, "  last call:  %s (%s ago)\n", ts.LastCall.UTC().Format(time.RFC3339), now.Sub(*ts.LastCall).Round(time.Second))
		} else {
			fmt.Fprintf(w, "  last call:  none recorded in this project\n")
		}
		for _, s := range rep.Sessions {
			if s.Tool == string(ts.Tool) {
				calls := "1 call"
				if s.Calls != 1 {
					calls = fmt.Sprintf("%d calls", s.Calls)
				}
				fmt.Fprintf(w, "    session %s: last hook call %s (%s), %s since %s\n",
					s.SessionID, s.Last.UTC().Format(time.RFC3339), s.LastEvent, calls, s.First.UTC().Format(time.RFC3339))
			}
		}
		for _, msg := range ts.Warnings {
			fmt.Fprintf(w, "  warning: %s\n", msg)
		}
	}
	for _, msg := range rep.Warnings {
		fmt.Fprintf(w, "\nwarning: %s\n", msg)
	}
}

// seenInStore lists the agent sessions whose hook calls the project's
// session breakers recorded.
func seenInStore(ctx context.Context, env *Env, project string) ([]hook.Seen, error) {
	c := common{project: project, session: "default"}
	w, err := c.openRead(env)
	if err != nil {
		return nil, err
	}
	defer w.Close()
	scopes, err := w.Store.Scopes(ctx)
	if err != nil {
		return nil, err
	}
	var out []hook.Seen
	for _, sc := range scopes {
		if !strings.HasPrefix(sc, "session:") {
			continue
		}
		st, err := w.Store.Load(ctx, sc)
		if err != nil {
			return out, err
		}
		if st.Session == nil {
			continue
		}
		out = append(out, st.Session.Seen...)
	}
	return out, nil
}

// mergeSeen joins the marks of the breakers and those written when a hook
// call could not be recorded, one per agent session, newest first.
func mergeSeen(a, b []hook.Seen) []hook.Seen {
	byKey := map[string]hook.Seen{}
	for _, s := range append(a, b...) {
		k := string(s.Tool) + "\x00" + s.SessionID
		old, ok := byKey[k]
		if !ok {
			byKey[k] = s
			continue
		}
		if s.Last.After(old.Last) {
			old.Last, old.LastEvent = s.Last, s.LastEvent
		}
		if s.First.Before(old.First) {
			old.First = s.First
		}
		old.Calls += s.Calls
		byKey[k] = old
	}
	out := make([]hook.Seen, 0, len(byKey))
	for _, s := range byKey {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Last.After(out[j].Last) })
	return out
}
