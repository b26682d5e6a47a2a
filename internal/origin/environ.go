package origin

import (
	"os"
	"strconv"
	"strings"
)

// Before is what name was in the environment pid's own came from: the
// ancestors of pid are read upwards while their environment (as each
// was started, /proc/PID/environ) holds name=value, and the first one
// that does not says what name was before: another value, or unset
// (set false). An agent CLI that copies variables from its settings
// into its own environment starts its hooks with them, while its own
// process still shows the environment the person started it in. An
// agent CLI (agents) passed on the way was started with the value: when
// what started it is no agent CLI (a shell, `loopbreaker run`), that
// gave it the value, which stands; a CLI that restarts itself with what
// its files set shows the value before in its first process. When every
// ancestor holds the value it stands too. ok is false when not even
// pid's parent can be read (no /proc, another user's process).
func Before(pid int, name, value string, agents []Signs) (before string, set, ok bool) {
	underCLI := false
	for range maxDepth {
		ppid, read := parentOf(pid)
		if !read || ppid <= 1 {
			return value, true, ok
		}
		env, read := environ(ppid)
		if !read {
			return value, true, ok
		}
		ok = true
		p, _, _ := readProc(ppid)
		cli := cliOf(p, agents) != ""
		if v, has := env[name]; !has || v != value {
			if underCLI && !cli {
				return value, true, true
			}
			return v, has, true
		}
		underCLI = underCLI || cli
		pid = ppid
	}
	return value, true, ok
}

// parentOf is pid's parent, from /proc/PID/stat.
func parentOf(pid int) (int, bool) {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	// pid (comm) state ppid ...: comm may hold spaces and parentheses.
	closing := strings.LastIndexByte(string(stat), ')')
	if closing < 0 {
		return 0, false
	}
	fields := strings.Fields(string(stat[closing+1:]))
	if len(fields) < 2 {
		return 0, false
	}
	ppid, err := strconv.Atoi(fields[1])
	return ppid, err == nil
}

// environ is the environment pid was started with.
func environ(pid int) (map[string]string, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/environ")
	if err != nil {
		return nil, false
	}
	out := map[string]string{}
	for _, kv := range strings.Split(string(b), "\x00") {
		if k, v, found := strings.Cut(kv, "="); found {
			out[k] = v
		}
	}
	return out, true
}
