package gitrepo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
)

// loopbreaker runs git outside the agent's sandbox, in a repository the
// agent can configure: any program the repository's configuration (or a
// configuration file the agent's user can write) names for git to run
// would run with loopbreaker's rights, at a moment the agent chooses.
// Every git command is therefore run with each such program switched off
// by git's own switches: fixed keys below, and the per-driver keys
// (filters, diff drivers, merge drivers) of every driver the
// configuration names, read just before the command (programKeys).

// noProgramConfig is the configuration every git command runs with: each
// key that would make git run a program, set so that it runs none.
var noProgramConfig = [][2]string{
	{"core.fsmonitor", "false"},    // the fsmonitor hook `status` asks
	{"core.hooksPath", os.DevNull}, // every hook, reference-transaction included
	{"core.pager", "cat"},          // "cat" is no pager to git: nothing runs
	{"core.editor", ":"},           // ":" is no editor to git
	{"sequence.editor", ":"},
	{"core.askPass", ""},
	{"credential.helper", ""},   // empties the list of helpers
	{"protocol.allow", "never"}, // no transport: no ssh, no proxy command
	{"diff.external", ""},
	{"log.showSignature", "false"}, // verifying runs gpg.program
	{"commit.gpgSign", "false"},    // signing runs gpg.program
	{"tag.gpgSign", "false"},
	{"gc.auto", "0"}, // no `git gc --auto` behind a command
	{"maintenance.auto", "false"},
	{"submodule.recurse", "false"},   // a submodule has a configuration of its own
	{"status.submoduleSummary", "0"}, // the summary runs `git submodule`
}

// programEnv are the environment variables that name a program git would
// run; they are dropped from the environment git inherits (an agent can
// set a hook's environment through its CLI's settings). GIT_CONFIG_* are
// dropped too: the overrides below are passed that way, and a count
// inherited from outside would shift them.
var programEnv = []string{
	"GIT_EXTERNAL_DIFF", "GIT_PAGER", "PAGER", "GIT_EDITOR", "VISUAL", "EDITOR",
	"GIT_SEQUENCE_EDITOR", "GIT_SSH", "GIT_SSH_COMMAND", "GIT_ASKPASS", "SSH_ASKPASS",
	"GIT_PROXY_COMMAND", "GIT_EXEC_PATH", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT",
}

// driverPrograms are, per kind of driver, the keys that name its program,
// and for filters the key that makes a missing program fatal.
var driverPrograms = map[string][]string{
	"filter": {"clean", "smudge", "process", "required"},
	"diff":   {"textconv", "command"},
	"merge":  {"driver"},
}

// objectsOnly are the git commands loopbreaker runs that read and write
// objects and refs only, never a file of the work tree, and so run no
// filter or diff driver. Any other command (status, add, write-tree,
// which reads a temporary index, reset, …) may.
var objectsOnly = map[string]bool{
	"rev-parse": true, "symbolic-ref": true, "check-ref-format": true, "update-ref": true,
	"for-each-ref": true, "merge-base": true, "rev-list": true, "cat-file": true,
	"ls-tree": true, "diff-tree": true, "commit-tree": true,
}

// ErrProgramPlanted means the configuration named a new program while a
// git command ran: it may have run it.
var ErrProgramPlanted = errors.New("a program was configured for git while loopbreaker's git command ran")

// subcommand is the git command in args: the first argument that is not
// an option (after any `-c key=value`).
func subcommand(args []string) string {
	for i := 0; i < len(args); i++ {
		switch {
		case args[i] == "-c":
			i++
		case !strings.HasPrefix(args[i], "-"):
			return args[i]
		}
	}
	return ""
}

// gitEnv is the environment a git command runs in: base without
// programEnv, the overrides as GIT_CONFIG_KEY_n/VALUE_n (which, unlike
// `-c`, take any driver name, even one holding "="), then extra.
func gitEnv(base []string, overrides [][2]string, extra []string) []string {
	env := slices.DeleteFunc(slices.Clone(base), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return slices.Contains(programEnv, name) ||
			strings.HasPrefix(name, "GIT_CONFIG_KEY_") || strings.HasPrefix(name, "GIT_CONFIG_VALUE_")
	})
	env = append(env, "GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_COUNT="+strconv.Itoa(len(overrides)))
	for i, kv := range overrides {
		n := strconv.Itoa(i)
		env = append(env, "GIT_CONFIG_KEY_"+n+"="+kv[0], "GIT_CONFIG_VALUE_"+n+"="+kv[1])
	}
	return append(env, extra...)
}

// programKeys lists the per-driver keys that switch off every driver the
// configuration in force names (all scopes, includes followed), sorted.
func (r *Repo) programKeys(ctx context.Context) ([]string, error) {
	out, err := r.exec(ctx, runOpts{env: gitEnv(r.environ(), noProgramConfig, nil)}, "config", "-z", "--list")
	if err != nil {
		if exitCode(err) == 1 { // no configuration at all
			return nil, nil
		}
		return nil, err
	}
	seen := map[string]bool{}
	for _, entry := range bytes.Split(out, []byte{0}) {
		key, _, _ := strings.Cut(string(entry), "\n")
		first := strings.IndexByte(key, '.')
		last := strings.LastIndexByte(key, '.')
		if first < 0 || last <= first {
			continue // no subsection: no driver
		}
		kind, driver := key[:first], key[first+1:last]
		for _, v := range driverPrograms[kind] {
			seen[kind+"."+driver+"."+v] = true
		}
	}
	keys := make([]string, 0, len(seen))
	for k := range seen {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys, nil
}

// run runs git in r.Root with no program the configuration names, and
// returns its stdout. For a command that reads content, the drivers are
// listed just before it runs and again after: a driver configured in
// between (a race the agent could win) is reported, never ignored.
func (r *Repo) run(ctx context.Context, o runOpts, args ...string) ([]byte, error) {
	overrides := slices.Clone(noProgramConfig)
	var before []string
	content := !objectsOnly[subcommand(args)]
	if content {
		var err error
		if before, err = r.programKeys(ctx); err != nil {
			return nil, err
		}
		for _, k := range before {
			// Empty switches a driver's program off; "false" for required,
			// so that git does not fail on the filter it no longer runs.
			v := ""
			if strings.HasSuffix(k, ".required") {
				v = "false"
			}
			overrides = append(overrides, [2]string{k, v})
		}
	}
	out, err := r.exec(ctx, runOpts{env: gitEnv(r.environ(), overrides, o.env), stdin: o.stdin}, args...)
	if content {
		after, lerr := r.programKeys(ctx)
		if lerr == nil && !isSubset(after, before) {
			planted := slices.DeleteFunc(after, func(k string) bool { return slices.Contains(before, k) })
			return out, fmt.Errorf("gitrepo: git %s: %w (%s): remove it from the git configuration (git config --unset) and reset the breaker",
				subcommand(args), ErrProgramPlanted, strings.Join(planted, ", "))
		}
	}
	return out, err
}

// isSubset reports whether every element of sub is in set (both sorted).
func isSubset(sub, set []string) bool {
	for _, s := range sub {
		if _, found := slices.BinarySearch(set, s); !found {
			return false
		}
	}
	return true
}
