// Package origin says where a command came from: the user, the terminal,
// the chain of processes that started it, and whether it runs under an
// agent CLI (from the agent's environment markers or from an ancestor
// that is an agent CLI, or `loopbreaker run`, which runs one). A reset
// records it and refuses to run under an agent: the agent under guard
// must not reset its own breaker, whatever the spelling of the command
// (an alias, a copy of the binary, a script, Python's subprocess).
package origin

import (
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
)

// Proc is one process of the chain.
type Proc struct {
	PID  int
	Name string   // the kernel's name of the process (comm)
	Exe  string   // its executable, "" when it cannot be read
	Args []string // its command line, as far as it can be read
}

// Origin is where a command came from.
type Origin struct {
	User string
	UID  int
	// TTY is the terminal of the command's standard streams, "" for none.
	TTY string
	// Chain are the command's ancestors, its parent first.
	Chain []Proc
	// Agent says why the command runs under an agent CLI ("" when
	// nothing says it does): the environment marker or the ancestor.
	Agent string
}

// maxDepth bounds the walk up the process tree.
const maxDepth = 64

// Options tune Of; the zero value reads the running process.
type Options struct {
	// Getenv reads the command's environment (nil: os.Getenv).
	Getenv func(string) string
	// Stop ends the walk before an ancestor (nil: walk up to init). The
	// CLI's tests stop at the test binary that runs them.
	Stop func(Proc) bool
	// Agents are the signs of each agent CLI.
	Agents []Signs
}

// Of is the origin of the running process.
func Of(o Options) Origin {
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	org := Origin{UID: os.Getuid(), TTY: terminal()}
	if u, err := user.Current(); err == nil {
		org.User = u.Username
	} else {
		org.User = getenv("USER")
	}
	org.Chain = chain(os.Getppid(), o.Stop)
	org.Agent = agentOf(getenv, org.Chain, o.Agents)
	return org
}

// chain walks up from pid through /proc. Where there is no /proc (not
// Linux) it is empty: the environment markers still count.
func chain(pid int, stop func(Proc) bool) []Proc {
	var out []Proc
	for range maxDepth {
		if pid <= 1 {
			break
		}
		p, ppid, ok := readProc(pid)
		if !ok || stop != nil && stop(p) {
			break
		}
		out = append(out, p)
		pid = ppid
	}
	return out
}

// readProc reads one process: /proc/PID/stat (name, parent), cmdline
// and exe.
func readProc(pid int) (p Proc, ppid int, ok bool) {
	dir := filepath.Join("/proc", strconv.Itoa(pid))
	stat, err := os.ReadFile(filepath.Join(dir, "stat"))
	if err != nil {
		return Proc{}, 0, false
	}
	// pid (comm) state ppid ...: comm may hold spaces and parentheses.
	open, closing := strings.IndexByte(string(stat), '('), strings.LastIndexByte(string(stat), ')')
	if open < 0 || closing < open {
		return Proc{}, 0, false
	}
	fields := strings.Fields(string(stat[closing+1:]))
	if len(fields) < 2 {
		return Proc{}, 0, false
	}
	ppid, err = strconv.Atoi(fields[1])
	if err != nil {
		return Proc{}, 0, false
	}
	p = Proc{PID: pid, Name: string(stat[open+1 : closing])}
	p.Exe, _ = os.Readlink(filepath.Join(dir, "exe"))
	if cmd, err := os.ReadFile(filepath.Join(dir, "cmdline")); err == nil {
		p.Args = strings.Split(strings.TrimRight(string(cmd), "\x00"), "\x00")
	}
	return p, ppid, true
}

// terminal is the terminal the command's standard streams are on.
func terminal() string {
	for _, fd := range []string{"0", "1", "2"} {
		if t, err := os.Readlink("/proc/self/fd/" + fd); err == nil && (strings.HasPrefix(t, "/dev/pts/") || strings.HasPrefix(t, "/dev/tty")) {
			return t
		}
	}
	return ""
}

// String is the origin on one line, for the journal and the report:
// "root (uid 0), terminal /dev/pts/3, parents bash[812] < sshd[80]".
func (o Origin) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (uid %d)", o.User, o.UID)
	if o.TTY != "" {
		b.WriteString(", terminal " + o.TTY)
	} else {
		b.WriteString(", no terminal")
	}
	if len(o.Chain) > 0 {
		names := make([]string, 0, len(o.Chain))
		for i, p := range o.Chain {
			if i == 8 {
				names = append(names, "…")
				break
			}
			names = append(names, fmt.Sprintf("%s[%d]", p.Name, p.PID))
		}
		b.WriteString(", parents " + strings.Join(names, " < "))
	}
	if o.Agent != "" {
		b.WriteString(", under an agent: " + o.Agent)
	}
	return b.String()
}
