package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/loopbreaker/loopbreaker/agent/all"
	"github.com/loopbreaker/loopbreaker/config"
	"github.com/loopbreaker/loopbreaker/hookinstall"
	"github.com/loopbreaker/loopbreaker/internal/residentwire"
	"github.com/loopbreaker/loopbreaker/internal/shell"
)

// unitName is the systemd unit of the protected breaker.
const unitName = "loopbreaker-protected.service"

// protectRecordName is the file, root's, in which setup notes what it did,
// so that teardown undoes exactly that.
const protectRecordName = "protect.json"

// protectRecord is what `protect setup` changed.
type protectRecord struct {
	User        string   `json:"user"`
	UID         int      `json:"uid"`
	CreatedUser bool     `json:"created_user,omitempty"`
	Created     []string `json:"created,omitempty"` // directories and files, in the order made
	CLIs        []string `json:"clis"`
	Unit        string   `json:"unit"`
	Enabled     bool     `json:"enabled,omitempty"` // systemctl enabled it
}

type protectOptions struct {
	agents, people, clis, user, root, command string
	noStart                                   bool
}

func runProtectSetup(ctx context.Context, env *Env, args []string) error {
	var o protectOptions
	flags := newFlagSet("protect setup", env)
	flags.StringVar(&o.agents, "agent-user", "", "the `users` the agents run as (names or uids, comma-separated): their hook events are answered, nothing else")
	flags.StringVar(&o.people, "person-user", "", "the `users` of the people who may reset (names or uids, comma-separated; root always may)")
	// The first CLI with a managed scope (Claude Code) unless told.
	managed := managedCLIs()
	flags.StringVar(&o.clis, "cli", managed[0], "the agent `CLIs` whose managed hooks to install (comma-separated): "+strings.Join(managed, ", "))
	flags.StringVar(&o.user, "user", "loopbreaker", "the breaker's own system `user` (created with useradd --system when missing; a uid is taken as it is)")
	flags.StringVar(&o.root, "root", "/", "the system `root` (an image being built, a test)")
	flags.StringVar(&o.command, "command", "", "the loopbreaker `program` the breaker runs, with loopbreaker-hook beside it (default: this one)")
	flags.BoolVar(&o.noStart, "no-start", false, "write the systemd unit without enabling it")
	if err := parse(flags, args); err != nil {
		return err
	}
	if os.Getuid() != 0 {
		return fmt.Errorf("protect setup: run it as root (sudo loopbreaker protect setup ...): it creates a system user and writes below /etc, /run and /var/lib")
	}
	root, err := filepath.Abs(o.root)
	if err != nil {
		return err
	}
	sys, err := systemFromFlags(root, o.agents, o.people)
	if err != nil {
		return err
	}
	if len(sys.rule.People) == 0 {
		return usagef("protect setup: name the person who may reset with --person-user (a name or a uid)")
	}
	clis, err := protectCLIs(o.clis)
	if err != nil {
		return err
	}
	program, client, err := protectPrograms(env, o.command)
	if err != nil {
		return err
	}
	rec := &protectRecord{User: o.user, CLIs: clis}
	recPath := filepath.Join(root, residentwire.SystemConfigDir, protectRecordName)
	if data, err := os.ReadFile(recPath); err == nil {
		// Set up before: keep what that set-up created, so that teardown
		// still removes it.
		var old protectRecord
		if json.Unmarshal(data, &old) == nil {
			rec.CreatedUser, rec.Created = old.CreatedUser, old.Created
			for _, c := range old.CLIs {
				if !slices.Contains(rec.CLIs, c) {
					rec.CLIs = append(rec.CLIs, c)
				}
			}
		}
	}
	// The record's directory first, and the record as soon as the user
	// exists: a set-up refused halfway is still undone by teardown.
	if err := protectDir(filepath.Dir(recPath), 0, 0o755, rec); err != nil {
		return err
	}
	rec.UID, err = breakerUser(env, o.user, root, rec)
	if werr := writeRecord(recPath, rec); err == nil {
		err = werr
	}
	if err != nil {
		return err
	}
	if rec.UID == 0 || slices.Contains(sys.rule.Agents, rec.UID) || slices.Contains(sys.rule.People, rec.UID) {
		return usagef("protect setup: the breaker's user (uid %d) must be a user of its own: neither root, an agent's nor a person's", rec.UID)
	}
	for _, d := range []struct {
		path  string
		owner int
		mode  os.FileMode
	}{
		{sys.run, rec.UID, 0o755},
		{sys.state, rec.UID, 0o750},
	} {
		if err := protectDir(d.path, d.owner, d.mode, rec); err != nil {
			return err
		}
	}
	if err := protectConfig(sys.config, rec); err != nil {
		return err
	}
	unit := filepath.Join(root, "etc", "systemd", "system", unitName)
	rec.Unit = unit
	ids := func(l []int) string {
		var w []string
		for _, i := range l {
			w = append(w, strconv.Itoa(i))
		}
		return strings.Join(w, ",")
	}
	run := []string{program, "resident", "run", "--system", "--root", root, "--agent-user", ids(sys.rule.Agents), "--person-user", ids(sys.rule.People), "--wait"}
	if err := writeRecord(recPath, rec); err != nil {
		return err
	}
	if err := writeUnit(unit, o.user, run, rec); err != nil {
		return err
	}
	if err := writeRecord(recPath, rec); err != nil {
		return err
	}
	for _, name := range clis {
		a, _ := all.Lookup(name)
		if err := runManagedInstall(env, a, "install", root, env.Dir, client, root); err != nil {
			return err
		}
	}
	started := false
	if !o.noStart && root == "/" && systemdRuns() {
		for _, args := range [][]string{{"daemon-reload"}, {"enable", "--now", unitName}} {
			if out, err := exec.Command("systemctl", args...).CombinedOutput(); err != nil {
				return fmt.Errorf("protect setup: systemctl %s: %v\n%s\nthe unit is written (%s): start it by hand, or run `sudo loopbreaker protect teardown`", strings.Join(args, " "), err, out, unit)
			}
		}
		rec.Enabled, started = true, true
		if err := writeRecord(recPath, rec); err != nil {
			return err
		}
	}
	fmt.Fprintf(env.Stdout, "protected breaker: runs as %s (uid %d) on %s\n", o.user, rec.UID, filepath.Join(sys.run, residentwire.SocketName))
	fmt.Fprintf(env.Stdout, "  state: %s (%s's)\n  configuration in force: %s (root's; a project's loopbreaker.yaml is not read)\n", sys.state, o.user, sys.config)
	fmt.Fprintf(env.Stdout, "  hook events from uid %s; resets from uid %s and root (`loopbreaker protect reset`)\n", ids(sys.rule.Agents), ids(sys.rule.People))
	if started {
		fmt.Fprintf(env.Stdout, "  systemd: %s enabled and started\n", unitName)
	} else {
		why := "no systemd runs here"
		if o.noStart {
			why = "--no-start"
		}
		fmt.Fprintf(env.Stdout, "  systemd unit written to %s, not started (%s); start the breaker with `systemctl enable --now %s`, or without systemd:\n    setpriv --reuid=%d --regid=%d --clear-groups %s &\n",
			unit, why, unitName, rec.UID, rec.UID, strings.Join(quoteAll(run), " "))
	}
	fmt.Fprintln(env.Stdout, "  until it answers, every tool call of the agents is denied (fail closed); `loopbreaker protect status` checks it")
	return nil
}

func quoteAll(words []string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = shell.Quote(w)
	}
	return out
}

// protectCLIs reads --cli: each must have a managed scope.
func protectCLIs(list string) ([]string, error) {
	var out []string
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		a, err := all.Lookup(name)
		if err != nil {
			return nil, usagef("protect: --cli: %v", err)
		}
		if _, err := managedScope("install", a); err != nil {
			return nil, err
		}
		out = append(out, name)
	}
	return out, nil
}

// protectPrograms are the loopbreaker the breaker runs and the client
// beside it that the hooks run; refused when a user other than root could
// change or replace either.
func protectPrograms(env *Env, command string) (program, client string, err error) {
	program = command
	if program == "" {
		exe, err := os.Executable()
		if err != nil {
			return "", "", fmt.Errorf("cannot find this program's path (%v): pass --command /usr/local/bin/loopbreaker", err)
		}
		if program, _, err = hookProgram(env, exe); err != nil {
			return "", "", err
		}
	}
	if !filepath.IsAbs(program) {
		return "", "", usagef("protect setup: --command %s: give an absolute path", program)
	}
	if client, err = hookClient(program); err != nil {
		return "", "", err
	}
	var why []string
	for _, p := range []string{program, client} {
		why = append(why, hookinstall.Exposed(p, managedOwner)...)
	}
	if len(why) > 0 {
		return "", "", fmt.Errorf("protect setup: refused, because a user other than root could change or replace the programs the breaker and the hooks run:\n  %s\ninstall loopbreaker and loopbreaker-hook in a root-owned directory such as /usr/local/bin (chown root:root, chmod go-w), then run the command again",
			strings.Join(why, "\n  "))
	}
	return program, client, nil
}

// breakerUser is the uid of the breaker's own user, created with useradd
// when missing (noted in rec).
func breakerUser(env *Env, name, root string, rec *protectRecord) (int, error) {
	if n, err := strconv.Atoi(name); err == nil && n >= 0 {
		return n, nil
	}
	if u, err := user.Lookup(name); err == nil {
		return strconv.Atoi(u.Uid)
	}
	home := filepath.Join(root, residentwire.SystemStateDir)
	shell := "/bin/false"
	for _, s := range []string{"/usr/sbin/nologin", "/sbin/nologin"} {
		if _, err := os.Stat(s); err == nil {
			shell = s
			break
		}
	}
	args := []string{"--system", "--no-create-home", "--home-dir", home, "--shell", shell, "--user-group", name}
	if root != "/" {
		args = append([]string{"--root", root}, args...)
	}
	if out, err := exec.Command("useradd", args...).CombinedOutput(); err != nil {
		return 0, fmt.Errorf("protect setup: could not create the breaker's user %s with `useradd %s`: %v %s\ncreate a system user for it yourself (adduser --system %s, or your system's way), then run the command again; or give an existing one with --user",
			name, strings.Join(args, " "), err, strings.TrimSpace(string(out)), name)
	}
	rec.CreatedUser = true
	u, err := user.Lookup(name)
	if err != nil {
		return 0, fmt.Errorf("protect setup: useradd created %s, but it cannot be looked up: %v", name, err)
	}
	fmt.Fprintf(env.Stdout, "created the system user %s (uid %s)\n", name, u.Uid)
	return strconv.Atoi(u.Uid)
}

// protectDir makes dir owner's with mode, or refuses one that exists and
// another user could change; the directories above it must be root's.
func protectDir(dir string, owner int, mode os.FileMode, rec *protectRecord) error {
	if why := hookinstall.Exposed(filepath.Dir(dir), managedOwner); len(why) > 0 {
		return fmt.Errorf("protect setup: refused: a user other than root could change a directory above %s:\n  %s\nmake them root's and writable by root only, then run the command again", dir, strings.Join(why, "\n  "))
	}
	_, err := os.Lstat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
			return err
		}
		if err := os.Mkdir(dir, mode); err != nil {
			return err
		}
		rec.Created = append(rec.Created, dir)
		if err := os.Chown(dir, owner, owner); err != nil {
			return err
		}
		return os.Chmod(dir, mode)
	case err != nil:
		return err
	}
	if why := residentwire.OwnedBy(dir, owner); why != "" {
		return fmt.Errorf("protect setup: refused: %s: the agent's user could reach the breaker's files there; run `sudo chown %d: %s && sudo chmod %o %s` (or remove it), then run the command again", why, owner, dir, mode, dir)
	}
	return nil
}

// protectConfig writes loopbreaker's commented defaults as the
// configuration in force when there is none, or refuses one that a user
// other than root could change.
func protectConfig(path string, rec *protectRecord) error {
	if _, err := os.Lstat(path); err == nil {
		if why := residentwire.OwnedBy(path, 0); why != "" {
			return fmt.Errorf("protect setup: refused: %s: the configuration in force must be root's; run `sudo chown root: %s && sudo chmod 644 %s`, then run the command again", why, path, path)
		}
		return nil
	}
	if err := os.WriteFile(path, []byte(config.SampleYAML()), 0o644); err != nil {
		return fmt.Errorf("protect setup: writing the configuration in force: %w", err)
	}
	rec.Created = append(rec.Created, path)
	return nil
}

func writeRecord(path string, rec *protectRecord) error {
	data, _ := json.MarshalIndent(rec, "", "  ")
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("protect: writing %s: %w", path, err)
	}
	return nil
}

// writeUnit writes the systemd unit that keeps the breaker running as
// its own user.
func writeUnit(path, userName string, run []string, rec *protectRecord) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		rec.Created = append(rec.Created, path)
	}
	unit := fmt.Sprintf(`# written by loopbreaker protect setup; removed by loopbreaker protect teardown
[Unit]
Description=loopbreaker protected breaker (answers the agents' hook calls; see docs/protected.md)

[Service]
User=%s
ExecStart=%s
Restart=always
RestartSec=1
NoNewPrivileges=yes

[Install]
WantedBy=multi-user.target
`, userName, strings.Join(quoteAll(run), " "))
	return os.WriteFile(path, []byte(unit), 0o644)
}

// systemdRuns reports whether systemd is this machine's init.
func systemdRuns() bool {
	fi, err := os.Stat("/run/systemd/system")
	return err == nil && fi.IsDir()
}

func runProtectTeardown(ctx context.Context, env *Env, args []string) error {
	flags := newFlagSet("protect teardown", env)
	root := flags.String("root", "/", "the system `root` (an image being built, a test)")
	if err := parse(flags, args); err != nil {
		return err
	}
	if os.Getuid() != 0 {
		return fmt.Errorf("protect teardown: run it as root (sudo loopbreaker protect teardown)")
	}
	r, err := filepath.Abs(*root)
	if err != nil {
		return err
	}
	recPath := filepath.Join(r, residentwire.SystemConfigDir, protectRecordName)
	data, err := os.ReadFile(recPath)
	if err != nil {
		return fmt.Errorf("protect teardown: no protected set-up below %s (%v): nothing to undo", r, err)
	}
	var rec protectRecord
	if err := json.Unmarshal(data, &rec); err != nil {
		return fmt.Errorf("protect teardown: %s: %v: remove what `protect setup` printed by hand", recPath, err)
	}
	for _, name := range rec.CLIs {
		a, err := all.Lookup(name)
		if err != nil {
			continue
		}
		if err := runManagedInstall(env, a, "uninstall", r, env.Dir, "", ""); err != nil {
			return err
		}
	}
	if rec.Enabled && systemdRuns() {
		if out, err := exec.Command("systemctl", "disable", "--now", unitName).CombinedOutput(); err != nil {
			fmt.Fprintf(env.Stderr, "loopbreaker: warning: systemctl disable --now %s: %v %s\n", unitName, err, out)
		}
	}
	for i := len(rec.Created) - 1; i >= 0; i-- {
		if err := os.RemoveAll(rec.Created[i]); err != nil {
			return fmt.Errorf("protect teardown: removing %s: %w", rec.Created[i], err)
		}
		fmt.Fprintf(env.Stdout, "removed %s\n", rec.Created[i])
	}
	if rec.Enabled && systemdRuns() {
		exec.Command("systemctl", "daemon-reload").Run()
	}
	if rec.CreatedUser {
		if out, err := exec.Command("userdel", rec.User).CombinedOutput(); err != nil {
			fmt.Fprintf(env.Stderr, "loopbreaker: warning: userdel %s: %v %s: remove the user by hand\n", rec.User, err, out)
		} else {
			fmt.Fprintf(env.Stdout, "removed the system user %s\n", rec.User)
		}
	}
	if err := os.Remove(recPath); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if !rec.Enabled {
		fmt.Fprintln(env.Stdout, "a protected breaker started by hand is still running: stop it (it no longer has its socket's directory)")
	}
	return nil
}
