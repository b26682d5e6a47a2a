package cli

import (
	"os"
	"strconv"
	"strings"
)

// processKey names a process for its mark: its id and its start time, so
// that a later process given the same id is not taken for it.
func processKey(pid int) string { return strconv.Itoa(pid) + "-" + startTime(pid) }

// stillRunning reports whether the process a mark named key was left by
// still runs.
func stillRunning(key string, pid int) bool {
	st := startTime(pid)
	return st != "" && key == strconv.Itoa(pid)+"-"+st
}

// startTime is field 22 of /proc/PID/stat, "" when there is no such
// process.
func startTime(pid int) string {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	s := string(stat)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 20 {
		return ""
	}
	return f[19]
}
