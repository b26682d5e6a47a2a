package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/loopbreaker/loopbreaker/agent"
	"github.com/loopbreaker/loopbreaker/agent/all"
	"github.com/loopbreaker/loopbreaker/config"
	"github.com/loopbreaker/loopbreaker/hook"
	"github.com/loopbreaker/loopbreaker/hookinstall"
	"github.com/loopbreaker/loopbreaker/internal/lazyre"
	"github.com/loopbreaker/loopbreaker/internal/safeopen"
)

// managedOwner is who must own a managed install and everything it runs:
// root, the one user the agent's user cannot act as.
const managedOwner = 0

// managedScope is a's managed scope, or a usage error naming the CLIs that
// have one.
func managedScope(verb string, a agent.Agent) (agent.ManagedScope, error) {
	if m, ok := a.(agent.Managed); ok {
		return m.ManagedScope(), nil
	}
	return agent.ManagedScope{}, usagef("hook %s %s --managed: loopbreaker installs no managed hooks for %s (docs/protected.md says which CLIs have a scope their user cannot switch off, and why); --managed is for %s",
		verb, a.Name(), a.Traits().Display, strings.Join(managedCLIs(), ", "))
}

// managedCLIs are the names of the CLIs that have a managed scope.
func managedCLIs() []string {
	var with []string
	for _, a := range all.Agents() {
		if _, ok := a.(agent.Managed); ok {
			with = append(with, string(a.Name()))
		}
	}
	return with
}

// runManagedInstall is `hook install|uninstall TOOL --managed`: loopbreaker's
// hooks, with the CLI's pins, in the CLI's managed settings below root.
// An install refuses a file, a directory above it or a program that a
// user other than root could change, and, for a CLI without a
// managed-only switch, a copy of the hooks in the project's or the user's
// settings (the CLI would run both).
// With protected (protect setup's root) the hooks run the thin client in
// protected mode, which asks the protected breaker below that root and
// denies a call it cannot answer.
func runManagedInstall(env *Env, a agent.Agent, verb, root, project, program, protected string) error {
	scope, err := managedScope(verb, a)
	if err != nil {
		return err
	}
	path := scope.Path(root)
	tool := a.Name()
	if verb != "install" {
		res, err := editManaged(scope, path, "", false)
		if err != nil {
			return err
		}
		printInstall(env, tool, verb, &agent.InstallResult{FileResult: res}, program, "")
		return nil
	}
	if err := managedRefusals(env, a, scope, path, project, program); err != nil {
		return err
	}
	res, err := editManaged(scope, path, managedCommand(scope, program, protected, tool), true)
	if err != nil {
		return err
	}
	pins := scope.Pinned
	for _, p := range scope.Format.Pins {
		pins = append(pins, p.String())
	}
	printInstall(env, tool, verb, &agent.InstallResult{FileResult: res, Command: hook.PlainCommand(program, tool)}, program, "")
	fmt.Fprintf(env.Stdout, "  managed: %s pinned: %s\n", strings.Join(pins, ", "), scope.Why)
	if !scope.ManagedOnly {
		fmt.Fprintf(env.Stdout, "  %s has no managed-only switch: a copy of these hooks in a project's or a user's settings runs twice (`loopbreaker hook status` there says so)\n", a.Traits().Display)
	}
	if protected != "" {
		fmt.Fprintf(env.Stdout, "  the hooks ask the protected breaker below %s and deny a tool call it does not answer\n", protected)
		return nil
	}
	fmt.Fprintln(env.Stdout, "  the hooks act only in projects with loopbreaker.yaml (run `loopbreaker init` there as the agent's user)")
	fmt.Fprintln(env.Stdout, "  not protected yet: the hooks run as the agent's user and keep the breaker's state and configuration where that user can write; `loopbreaker hook status` names what is still exposed")
	return nil
}

// managedCommand is the command the managed hooks of scope run: the
// CLI's own (the guard that fails open), or protected mode's, which fails
// closed.
func managedCommand(scope agent.ManagedScope, program, protected string, tool hook.Tool) string {
	if protected != "" {
		return hook.ProtectedCommand(program, protected, tool)
	}
	return scope.Format.Command(program, "")
}

// protectedFlag finds `--protected ROOT` in a managed file: the root of
// the protected breaker its hooks ask ("" for hooks that are not
// protected mode's).
var protectedFlag = lazyre.New(`hook [a-z-]+ --protected ('[^']*'|[^\s'"\\]+)`)

func protectedRootIn(data []byte) string {
	m := protectedFlag.FindSubmatch(data)
	if m == nil {
		return ""
	}
	return strings.ReplaceAll(strings.Trim(string(m[1]), "'"), `'\''`, "'")
}

// editManaged installs or uninstalls the hooks running command in the
// managed file at path: merged with the pins, or written whole.
func editManaged(scope agent.ManagedScope, path, command string, install bool) (hookinstall.FileResult, error) {
	if scope.Own == nil {
		var o *hookinstall.Options
		if install {
			o = &hookinstall.Options{}
		}
		return hookinstall.EditUserFile(scope.Format, path, command, o)
	}
	own := scope.Own(command)
	data, err := readManaged(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return hookinstall.FileResult{}, fmt.Errorf("%w: loopbreaker writes the managed file whole and leaves what it cannot read; remove it or put a regular file there, then run the command again", err)
	}
	if err == nil && !own.Ours(data) {
		if install {
			return hookinstall.FileResult{}, fmt.Errorf("%s exists and is not %s, which loopbreaker writes whole: move it aside and install again, then add your settings back to it by hand (keep loopbreaker's hooks and pins)", path, own.What)
		}
		return hookinstall.FileResult{Path: path, Warnings: []string{fmt.Sprintf("%s is not %s: left as it is", path, own.What)}}, nil
	}
	return hookinstall.EditOwnUserFile(own, path, install)
}

// managedInstalled reads what the managed file at path holds of
// loopbreaker's hooks, with the file's warnings.
func managedInstalled(scope agent.ManagedScope, path string) (hookinstall.Installed, []string) {
	if scope.Find == nil {
		return agent.InstalledFile(nil, scope.Format, path)
	}
	data, err := readManaged(path)
	if errors.Is(err, fs.ErrNotExist) {
		return hookinstall.Installed{}, nil
	}
	if err != nil {
		return hookinstall.Installed{}, []string{err.Error()}
	}
	return scope.Find(data), nil
}

// readManaged reads a managed settings file without waiting on it: one
// planted as a named pipe or a link to a device must not hang the
// person's install or status.
func readManaged(path string) ([]byte, error) {
	return safeopen.ReadFile(path, safeopen.FollowLinks, safeopen.SmallFileLimit)
}

// managedRefusals is why a managed install must not go ahead: what a user
// other than root could change, and copies that would run twice.
func managedRefusals(env *Env, a agent.Agent, scope agent.ManagedScope, path, project, program string) error {
	var why []string
	if !filepath.IsAbs(program) {
		p, ok := lookPath(env, program)
		if !ok {
			return fmt.Errorf("hook install %s --managed: --command %s is not on PATH: give the absolute path of a loopbreaker owned by root", a.Name(), program)
		}
		program = p
	}
	why = append(why, hookinstall.Exposed(path, managedOwner)...)
	why = append(why, hookinstall.Exposed(program, managedOwner)...)
	if len(why) > 0 {
		return fmt.Errorf("hook install %s --managed: refused, because the agent's user could change or replace what the managed hooks are:\n  %s\nmake them root's and writable by root only (chown root:root, chmod go-w; the program in a root-owned directory such as /usr/local/bin), then run the command again",
			a.Name(), strings.Join(why, "\n  "))
	}
	if scope.ManagedOnly {
		return nil
	}
	why = append(why, ownCopies(env, a, project)...)
	if len(why) > 0 {
		return fmt.Errorf("hook install %s --managed: refused: loopbreaker's hooks are also in %s, and %s has no managed-only switch, so each hook would run twice: take them out first (`loopbreaker hook uninstall %s`, with --user for the user's)",
			a.Name(), strings.Join(why, " and "), a.Traits().Display, a.Name())
	}
	return nil
}

// ownCopies are the project's and the user's settings files of a that
// hold loopbreaker's hooks.
func ownCopies(env *Env, a agent.Agent, project string) []string {
	var out []string
	for _, user := range []bool{false, true} {
		p, err := a.SettingsPath(user, project, env.Getenv)
		if err != nil {
			continue
		}
		if in, _ := a.Installed(nil, p); len(in.Events) > 0 {
			out = append(out, p)
		}
	}
	return out
}

// managedStatus is the managed place of a (nil for a CLI without a
// managed scope) and, when it holds loopbreaker's hooks, why it is NOT
// protected: pins missing, files the agent's user could change, copies
// that run twice, the breaker's own files within that user's reach.
func managedStatus(env *Env, a agent.Agent, root, project, stateDir string) (*hookInstallPlace, []string) {
	m, ok := a.(agent.Managed)
	if !ok {
		return nil, nil
	}
	scope := m.ManagedScope()
	path := scope.Path(root)
	place := &hookInstallPlace{Level: "managed", Path: path}
	in, warnings := managedInstalled(scope, path)
	if len(in.Events) == 0 {
		return place, nil
	}
	place.Installed, place.Events, place.Programs = true, in.Events, in.Programs
	for i, w := range warnings {
		warnings[i] = path + ": " + w
	}
	var exposed []string
	data, _ := readManaged(path)
	protected := protectedRootIn(data)
	if scope.Own != nil && len(in.Programs) > 0 && !bytes.Equal(data, scope.Own(managedCommand(scope, in.Programs[0], protected, a.Name())).Content) {
		exposed = append(exposed, fmt.Sprintf("%s is not as loopbreaker wrote it (its pins may be gone): install again", path))
	}
	for _, p := range hookinstall.PinsHeld(scope.Format.Pins, data) {
		exposed = append(exposed, fmt.Sprintf("%s does not hold %s: the agent's user can switch the hooks off; install again", path, p))
	}
	exposed = append(exposed, hookinstall.Exposed(path, managedOwner)...)
	for _, prog := range in.Programs {
		if p, ok := lookPath(env, prog); ok && !filepath.IsAbs(prog) {
			prog = p
		}
		exposed = append(exposed, hookinstall.Exposed(prog, managedOwner)...)
	}
	if !scope.ManagedOnly {
		for _, c := range ownCopies(env, a, project) {
			warnings = append(warnings, fmt.Sprintf("loopbreaker's hooks are in %s as well as in %s: %s runs each twice; `loopbreaker hook uninstall %s` there", c, path, a.Traits().Display, a.Name()))
		}
	}
	if protected != "" {
		// The protected breaker reads neither the project's file nor the
		// agent's state: its own are checked instead.
		exposed = append(exposed, protectedExposed(protected, in.Programs)...)
	} else {
		for _, p := range []string{filepath.Join(project, config.ProjectFile), stateDir} {
			for _, why := range hookinstall.Exposed(p, managedOwner) {
				exposed = append(exposed, why+" (the breaker's configuration or state: today's hooks run as the agent's user and keep them within its reach)")
			}
		}
	}
	place.Exposed = exposed
	if len(exposed) > 0 {
		warnings = append(warnings, fmt.Sprintf("managed hooks in %s are NOT protected: %d thing(s) the agent's user could change (listed under exposed); make them root's and writable by root only", path, len(exposed)))
	}
	return place, warnings
}
