package residentwire

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// StartTicks is field 22 of /proc/PID/stat, the process's start in clock
// ticks since boot; "" when there is no such process.
func StartTicks(pid int) string {
	stat, err := readProc("/proc/" + strconv.Itoa(pid) + "/stat")
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
	up, err := readProc("/proc/uptime")
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

// readProc reads a small file of /proc with plain system calls. The thin
// client reads two of them before every call: os.ReadFile would stat each
// and try to register it with the runtime's poller (which /proc refuses),
// six more system calls than the open, reads and close needed.
func readProc(path string) ([]byte, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	buf := make([]byte, 0, 512)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := syscall.Read(fd, buf[len(buf):cap(buf)])
		switch {
		case err == syscall.EINTR:
			continue
		case err != nil:
			return nil, &os.PathError{Op: "read", Path: path, Err: err}
		case n == 0:
			return buf, nil
		}
		buf = buf[:len(buf)+n]
	}
}
