package residentwire

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"
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
// (its start time in clock ticks, against the time since boot): a hook's
// time starts when the agent CLI started it, not when its Go code first
// ran, which on a loaded machine is seconds later. 0 when unknown.
func ProcessAge() time.Duration {
	ticks, err := strconv.ParseUint(StartTicks(os.Getpid()), 10, 64)
	if err != nil {
		return 0
	}
	up, ok := sinceBoot()
	if !ok {
		return 0
	}
	// Linux reports start times in USER_HZ, 100 on every architecture Go
	// supports.
	age := up - time.Duration(ticks)*time.Second/100
	return max(age, 0)
}

// clockBoottime is CLOCK_BOOTTIME of <linux/time.h>.
const clockBoottime = 7

// sinceBoot is the time since boot, suspend included: the clock process
// start times count on, which /proc/uptime shows rounded to 10 ms. Asked
// for directly it spares the thin client opening, reading and parsing
// /proc/uptime on every call, about 3 % of a hello-world's CPU
// (docs/benchmarks.md).
func sinceBoot() (time.Duration, bool) {
	var ts syscall.Timespec
	if _, _, e := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockBoottime, uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}

// readProc reads a small file of /proc with plain system calls. The thin
// client reads its /proc/PID/stat before every call: os.ReadFile would
// stat it and try to register it with the runtime's poller (which /proc
// refuses), three more system calls than the open, reads and close
// needed.
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
