package residentwire

import (
	"os"
	"strconv"
	"strings"
	"time"
)

// StartTicks is field 22 of /proc/PID/stat, the process's start in clock
// ticks since boot; "" when there is no such process.
func StartTicks(pid int) string {
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

// ProcessAge is how long ago this process started, by the kernel's count
// (its start time in clock ticks, against /proc/uptime): a hook's time
// starts when the agent CLI started it, not when its Go code first ran,
// which on a loaded machine is seconds later. 0 when unknown.
func ProcessAge() time.Duration {
	ticks, err := strconv.ParseUint(StartTicks(os.Getpid()), 10, 64)
	if err != nil {
		return 0
	}
	up, err := os.ReadFile("/proc/uptime")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(up))
	if len(f) == 0 {
		return 0
	}
	secs, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return 0
	}
	// Linux reports start times in USER_HZ, 100 on every architecture Go
	// supports.
	age := time.Duration(secs*float64(time.Second)) - time.Duration(ticks)*time.Second/100
	return max(age, 0)
}
