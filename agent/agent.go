// Package agent says what an agent CLI is to loopbreaker: one interface
// that each CLI's package implements (agent/claude, agent/codex, …) and
// the traits that tell them apart, so that the code which answers hooks,
// installs them and reads transcripts asks about behaviour, never about a
// name. agent/all lists every CLI; adding one touches its own package and
// that list.
package agent

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/loopbreaker/loopbreaker/cannotrun"

	"github.com/loopbreaker/loopbreaker/hook"
	"github.com/loopbreaker/loopbreaker/hookinstall"
	"github.com/loopbreaker/loopbreaker/transcript"
)

// Agent is one agent CLI: how it calls its hooks and reads the answers.
type Agent interface {
	// Dialect: what its events, tools and results mean.
	hook.Dialect
	// Name is the CLI's word on loopbreaker's command line
	// (`loopbreaker hook NAME`) and the default name of its session.
	Name() hook.Tool
	// Traits is what the CLI is and does, as data.
	Traits() Traits
	// Parse reads one hook payload. event is the word after the name on
	// the installed command line ("" when there is none); a CLI whose
	// payload names its event checks that the two agree.
	Parse(event string, data []byte) (*hook.Payload, error)
	// Render puts an outcome in the CLI's words for event.
	Render(event string, o hook.Outcome, reason string) hook.Answer
	// NudgeReachesModel reports whether a warning answered at event is
	// read by the model, rather than shown to the person only: a warning
	// is delivered once per episode, at the first event that can carry it.
	NudgeReachesModel(event string) bool
	// SettingsPath is where loopbreaker's hooks go: the user's settings
	// (user) or the project's. For some CLIs it is a folder of hook
	// scripts, or a file of loopbreaker's own. getenv reads HOME and the
	// CLI's own variables.
	SettingsPath(user bool, project string, getenv func(string) string) (string, error)
	// ProjectFiles are the paths a project install may write (settings,
	// their backups, trust), which a measurement of the agent's work
	// leaves out: installing the hooks is not the agent's progress.
	ProjectFiles(project string) []string
	// Guarded are the CLI's files and folders that decide whether and how
	// its hooks run, which the agent must not change, and the variables
	// that place them.
	Guarded(project string, getenv func(string) string) Guarded
	// Switches are the settings that decide whether the CLI runs its
	// hooks, and how, as they are set now in every file it reads them
	// from (project, local, user, managed): "PLACE: KEY = VALUE" lines.
	// A change between two hook calls of a session keeps the breaker OPEN
	// until a person accepts it.
	Switches(r *Reads, project string, getenv func(string) string) []string
	// Install puts loopbreaker's hooks into the settings at req.Path, or
	// takes them out (req.Uninstall), and says what the person must do
	// besides (trust, where to start the CLI).
	Install(ctx context.Context, req *InstallRequest) (*InstallResult, error)
	// Installed reads what the settings at path hold of loopbreaker's
	// hooks, with the reasons the file gives why they may not run
	// (switches that turn hooks off).
	Installed(r *Reads, path string) (hookinstall.Installed, []string)
	// Status says how the CLI treats hooks installed in s.Places beyond
	// their files: trust, and what its version makes of them.
	Status(ctx context.Context, s *StatusRequest) (trust string, warnings []string)
	// Sessions are the sessions the CLI recorded on disk for project (or
	// below) written after since, where loopbreaker knows how to find
	// them: a session with no hook call ran unguarded.
	Sessions(env *Env, project string, since time.Time) []hookinstall.AgentSession
	// Transcript reads the sessions the CLI records, for replay and for
	// what a turn end reads of them.
	Transcript() transcript.Reader
}

// MessageReader is implemented by a CLI that runs the calls of one model
// message at once and whose transcript tells which calls one message
// asked for: the hooks of a batch may come in any order on a busy machine
// (a call announced after another call of its batch reported), and the
// transcript places such a call in its batch.
type MessageReader interface {
	// MessageCalls returns the call ids (as the payloads name them) of
	// the model message that asked for the call p announces; nil when
	// the transcript does not say.
	MessageCalls(p *hook.Payload) []string
}

// MessageNamer is implemented by a CLI that runs the calls of one model
// message at once but names no call in its hook payloads (Droid), and
// fires no post-tool event for a call that failed: the same call
// announced again while the first waits is then either another call of
// the same message or the repeat of a call that failed. Its transcript
// writes each message's calls before they run, and tells the two apart by
// the message each was asked for in.
type MessageNamer interface {
	// MessageOf names the model message that asked for the call p
	// announces (by its tool and input): the latest message of the
	// transcript that asks for calls, when it asks for this one; "" when
	// the transcript does not say.
	MessageOf(p *hook.Payload) string
}

// EnvSetter is implemented by a CLI whose own files set variables in the
// environment its hooks run in (Claude Code's `env` in its settings).
// The agent can write those files, so a hook must not let them choose
// where loopbreaker keeps its state, which breaker it feeds, or its clock.
type EnvSetter interface {
	// SetEnv lists what the CLI's files that the agent's user can write
	// set in its hooks' environment, read through r; a file an
	// administrator owns (managed settings) is left out.
	SetEnv(r *Reads, project string, getenv func(string) string) []SetVar
}

// SetVar is one variable a CLI's file sets for its hooks.
type SetVar struct {
	File, Name, Value string
}

// Guarded is what the tamper guard protects of one CLI.
type Guarded struct {
	// Files are settings files (project and user), Dirs folders whose
	// every file is a hook or plugin.
	Files, Dirs []string
	// Vars are the environment variables that place them, by name, so
	// that a command naming $VAR/... is read as the path it is.
	Vars map[string]string
}

// Under joins each of rels (slash-separated) to base; none when base is
// "" (a home directory or variable that is not set).
func Under(base string, rels ...string) []string {
	if base == "" || !filepath.IsAbs(base) {
		return nil
	}
	out := make([]string, 0, len(rels))
	for _, r := range rels {
		out = append(out, filepath.Join(base, filepath.FromSlash(r)))
	}
	return out
}

// Vars are the variables among names that getenv sets, with their values.
func Vars(getenv func(string) string, names ...string) map[string]string {
	m := map[string]string{}
	for _, n := range names {
		if v := getenv(n); v != "" {
			m[n] = v
		}
	}
	return m
}

// Env is what an agent's install and status read of the world: the
// environment, and programs on PATH.
type Env struct {
	Getenv  func(string) string
	Environ []string
	// LookPath finds an executable on the PATH of Getenv.
	LookPath func(name string) (string, bool)
}

// InstallRequest is one `hook install` or `hook uninstall`.
type InstallRequest struct {
	*Env
	Project string
	// User: the user's settings, not the project's.
	User bool
	// Path is the CLI's SettingsPath for User and Project.
	Path string
	// Program is the loopbreaker program the hooks run.
	Program   string
	Uninstall bool
	// AgentVersion is the CLI's version as the person gave it ("" to ask
	// the CLI).
	AgentVersion string
	// Trust: save the CLI's trust of the hooks where loopbreaker can;
	// TrustProject: trust the project too.
	Trust, TrustProject bool
}

// InstallResult is what an install or uninstall did.
type InstallResult struct {
	hookinstall.FileResult
	// Command is the command line the hooks run, as shown to the person.
	Command string
	// Fallback says what the hooks do when the program is gone ("" for
	// the usual: they only warn).
	Fallback string
	// Folder: the settings are a folder of hook scripts, not a file.
	Folder bool
	// Summary replaces the usual account of the changes (nil: the usual
	// one).
	Summary []string
	// Notes are lines for the person after the account: what the CLI
	// needs besides (trust, where to start it). A note that starts with
	// "warning: " is a warning, for stderr.
	Notes []string
}

// StatusRequest is what `hook status` knows of one CLI.
type StatusRequest struct {
	*Env
	Project string
	// Executable and Version are the CLI's, "" when unknown.
	Executable, Version string
	Places              []Place
}

// Place is one settings file (or folder) and what it holds of
// loopbreaker's hooks.
type Place struct {
	Level string // "project" or "user"
	Path  string
	hookinstall.Installed
}

// InstalledAnywhere reports whether any place holds loopbreaker's hooks.
func (s *StatusRequest) InstalledAnywhere() bool {
	for _, p := range s.Places {
		if len(p.Events) > 0 {
			return true
		}
	}
	return false
}

// Hooked reports whether event is hooked in any place.
func (s *StatusRequest) Hooked(event string) bool {
	for _, p := range s.Places {
		if slices.Contains(p.Events, event) {
			return true
		}
	}
	return false
}

// Traits are the facts about a CLI that decide how loopbreaker treats it,
// where the answer is a value rather than code.
type Traits struct {
	// Display is the CLI's name for people ("Claude Code").
	Display string
	// EventArgument: the installed command names the event after the
	// CLI's name (`loopbreaker hook copilot preToolUse`), because the
	// payload does not, or not always.
	EventArgument bool
	// Events are the event names the command line may give, when
	// EventArgument; nil accepts any.
	Events []string
	// TryEvent is the event to name in a hint to run the hook by hand.
	TryEvent string
	// ProjectDirEnv is the variable in which the CLI tells its hooks the
	// project directory ("" when it does not).
	ProjectDirEnv string
	// SilentFileFailures: the CLI fires no post-tool event for a file tool
	// that failed before it ran (an edit whose old text is not there, a
	// patch that does not apply), and runs every pre-tool hook of a batch
	// before any call: an edit announced again while the first waits is
	// its failed repeat (the same edit twice in one batch fails the second
	// time anyway); a read announced again is not (identical reads of one
	// batch all run).
	SilentFileFailures bool
	// SilentFailures: the CLI fires no post-tool event for any call that
	// failed, and sends no call ids: a call announced again is its failed
	// repeat, and a call still unreported at the turn end failed.
	SilentFailures bool
	// LateResults: the CLI may end a turn while calls of a batch still
	// run (OpenCode's guard against repeated calls ends it before the
	// batch's reads report), and reports each call that failed as failed:
	// a call still pending at the turn end is unknown, not failed.
	LateResults bool
	// UnseenHaltEvents are the events whose halt answer the person does
	// not see (Copilot: a postToolUse answer goes to the model only; Qwen:
	// a failed call's answer too, and a refused prompt ends a headless run
	// with nothing shown). A halt message there does not count as shown,
	// and such a prompt is let through with the message for the model
	// until the person has seen it, so that the next refused call or the
	// turn end, which the person sees, shows it.
	UnseenHaltEvents []string
	// HaltUnseen, for a CLI that cannot show the person why it halted
	// (its headless run prints nothing a hook says), says what the person
	// sees instead; `hook status` says it beside the install, so that the
	// person knows to ask loopbreaker.
	HaltUnseen string
	// TaskNotifications: a prompt that starts with <task-notification> is
	// the CLI reporting a background task, not a person's prompt.
	TaskNotifications bool
	// CumulativeTurnText: each turn end carries the whole text of the
	// turn's retries so far, not only the last one.
	CumulativeTurnText bool
	// TranscriptRejections: calls the CLI rejects before they run appear
	// only in its transcript, which the turn end reads.
	TranscriptRejections bool
	// Executable is the CLI's command ("" for its Name).
	Executable string
	// VersionScratch is the pattern, below the home directory, of the
	// temporary files `Executable --version` leaves when it is stopped
	// mid-write ("" for none).
	VersionScratch string
	// Unseen says why a session may run with no hook call at all.
	Unseen string
	// EnvMarkers are the environment variables the CLI sets for the
	// commands its shell tool runs: a reset run under one is the agent's.
	EnvMarkers []string
	// Package is the CLI's npm package, which names the script node runs.
	Package string
	// InstallFlags are the flags of `hook install` only some CLIs read
	// (trust, trust-project, agent-version) that this one does.
	InstallFlags []string
}

// HarmlessStopper is a CLI that ends a run only after a tool call has run:
// while the breaker is OPEN a pre-tool call is replaced by a harmless one
// (replacement, an input of the same tool) whose result stops the agent.
type HarmlessStopper interface {
	StopInstead(event, reason string, replacement map[string]string) hook.Answer
}

// FailedCallNudger is a CLI that drops added context after a failed call:
// the warning must replace the call's error, carrying it first. ok is
// false for a call that did not fail.
type FailedCallNudger interface {
	NudgeFailedCall(p *hook.Payload, reason string) (ans hook.Answer, ok bool)
}

// Home is the user's home directory: HOME as getenv reads it, else the
// process's.
func Home(getenv func(string) string) (string, error) {
	if home := getenv("HOME"); home != "" {
		return home, nil
	}
	h, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("cannot find your home directory (%v): set HOME or use --project", err)
	}
	return h, nil
}

// UserDir is the directory named by the variable env when it is set,
// else home joined with elems: where a CLI keeps its user settings.
func UserDir(getenv func(string) string, env string, elems ...string) (string, error) {
	if env != "" {
		if d := getenv(env); d != "" {
			return d, nil
		}
	}
	home, err := Home(getenv)
	if err != nil {
		return "", err
	}
	return filepath.Join(append([]string{home}, elems...)...), nil
}

// Location is where a CLI keeps the settings file that holds loopbreaker's
// hooks: Project below the project directory; for the user, File in the
// directory UserEnv names, else in UserDir below the home directory. A
// CLI's Agent embeds it for SettingsPath and ProjectFiles.
type Location struct {
	Project string // relative to the project, slash-separated
	UserEnv string // "" when no variable moves it
	UserDir string // relative to the home directory, slash-separated
	File    string
}

// SettingsPath is the project's (user false) or the user's settings file.
func (l Location) SettingsPath(user bool, project string, getenv func(string) string) (string, error) {
	if !user {
		return filepath.Join(project, filepath.FromSlash(l.Project)), nil
	}
	dir, err := UserDir(getenv, l.UserEnv, filepath.FromSlash(l.UserDir))
	return filepath.Join(dir, l.File), err
}

// ProjectFiles are the project's settings file and its backup.
func (l Location) ProjectFiles(project string) []string {
	path := filepath.Join(project, filepath.FromSlash(l.Project))
	return []string{path, path + hook.BackupSuffix}
}

// Executable is the command of a's CLI.
func Executable(a Agent) string {
	if e := a.Traits().Executable; e != "" {
		return e
	}
	return string(a.Name())
}

// InstallFile is Install for a CLI whose hooks live in one settings file
// of format f: the project's (nothing followed below the project) or the
// user's.
func InstallFile(f *hookinstall.Format, req *InstallRequest, o hookinstall.Options) (*InstallResult, error) {
	var opts *hookinstall.Options
	if !req.Uninstall {
		opts = &o
	}
	var res hookinstall.FileResult
	var err error
	command := f.Command(req.Program, "")
	if req.User {
		res, err = hookinstall.EditUserFile(f, req.Path, command, opts)
	} else {
		rel, rerr := filepath.Rel(req.Project, req.Path)
		if rerr != nil {
			return nil, rerr
		}
		res, err = hookinstall.EditProjectFile(f, req.Project, filepath.ToSlash(rel), command, opts)
	}
	if err != nil {
		return nil, err
	}
	return &InstallResult{FileResult: res, Command: hook.PlainCommand(req.Program, f.Tool)}, nil
}

// InstalledFile is Installed for a CLI whose hooks live in one settings
// file of format f, read through r.
func InstalledFile(r *Reads, f *hookinstall.Format, path string) (hookinstall.Installed, []string) {
	data, err := r.ReadFile(path)
	if err != nil {
		return hookinstall.Installed{}, nil
	}
	in := hookinstall.FindInstalled(f, data)
	if len(in.Events) == 0 || f.Warnings == nil {
		return in, nil
	}
	return in, f.Warnings(path, data)
}

// UserDirOr is UserDir where a missing home directory is no error: the
// directory is then relative to the working directory, and finding
// nothing there is the answer.
func UserDirOr(getenv func(string) string, env string, elems ...string) string {
	dir, err := UserDir(getenv, env, elems...)
	if err != nil {
		return filepath.Join(elems...)
	}
	return dir
}

// UsageError is a mistake on the command line found while installing
// (a flag's value): the command exits as for any usage error.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// FolderTrust is a CLI's trust of a project folder, as `hook status`
// shows it: trusted or untrusted with why, with the warning for an
// untrusted folder; unknown says what is missing to know.
func FolderTrust(trusted, known bool, why, untrusted, unknown string) (string, []string) {
	switch {
	case trusted:
		return "trusted (" + why + ")", nil
	case known:
		return "untrusted (" + why + ")", []string{untrusted}
	}
	return "unknown: " + unknown, nil
}

// Resume is how a CLI continues its own session across the iterations of
// `loopbreaker run` (run.continue_session); a CLI that can implements
// Resumer.
type Resume struct {
	// Begin rewrites the first iteration's command so that the session it
	// starts has the id given; nil when the CLI picks its own id, which
	// FindID then reads from the iteration's output.
	Begin func(argv []string, id string) ([]string, bool)
	// Continue rewrites an iteration's command so that it continues the
	// session id; false when the command cannot (it manages sessions
	// itself, or keeps none).
	Continue func(argv []string, id string) ([]string, bool)
	// FindID reads the session's id from an iteration's output, "".
	FindID func(stdout, stderr []byte) string
}

// Resumer is a CLI whose sessions `loopbreaker run` can continue.
type Resumer interface{ Resume() Resume }

// PinnedResume is Resume for a CLI that takes its session's id on the
// command line: --session-id ID on the first iteration, --resume ID after
// it (Claude Code, and the CLIs that copy its flags), unless the command
// manages its session itself.
func PinnedResume() Resume {
	return Resume{
		Begin:    flagAfterProgram("--session-id", sessionFlags()),
		Continue: flagAfterProgram("--resume", sessionFlags()),
	}
}

// sessionFlags are the flags with which a command manages its session
// itself (Claude Code, Gemini CLI, Qwen Code): loopbreaker then leaves it
// as given.
func sessionFlags() []string {
	return []string{"--session-id", "--resume", "-r", "--continue", "-c", "--fork-session", "--no-session-persistence", "--session-file"}
}

// flagAfterProgram puts flag ID right after the program, unless the
// command already has one of the flags in own.
func flagAfterProgram(flag string, own []string) func(argv []string, id string) ([]string, bool) {
	return func(argv []string, id string) ([]string, bool) {
		for _, a := range argv[1:] {
			name, _, _ := strings.Cut(a, "=")
			if slices.Contains(own, name) {
				return argv, false
			}
		}
		out := append([]string{argv[0], flag, id}, argv[1:]...)
		return out, true
	}
}

// CannotRunner is a CLI whose words, when its model API refuses it or
// cannot be reached, loopbreaker knows: such a run or turn says nothing
// about whether the agent is stuck.
type CannotRunner interface {
	CannotRun() cannotrun.Words
}
