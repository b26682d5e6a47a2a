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
// process still shows the environment the person started it in. When
// every ancestor holds the same value it is the person's too (value,
// true, true). ok is false when not even pid's parent can be read (no
// /proc, another user's process).
func Before(pid int, name, value string) (before string, set, ok bool) {
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
		if v, has := env[name]; !has || v != value {
			return v, has, true
		}
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
