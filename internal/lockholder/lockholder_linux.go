package lockholder

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// Of returns the process that holds a flock on the file at path, other
// than this one; ok is false when none does or it cannot be told
// (/proc/locks unreadable, the file gone).
func Of(path string) (h Holder, ok bool) {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return Holder{}, false
	}
	data, err := os.ReadFile("/proc/locks")
	if err != nil {
		return Holder{}, false
	}
	// A line is "N: FLOCK ADVISORY WRITE PID MAJ:MIN:INODE START END"
	// (the device numbers in hex); a process waiting for the lock is
	// listed as "N: -> FLOCK …".
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 6 || f[1] != "FLOCK" || !sameFile(f[5], &st) {
			continue
		}
		pid, err := strconv.Atoi(f[4])
		if err != nil || pid == os.Getpid() {
			continue
		}
		return describe(pid), true
	}
	return Holder{}, false
}

// sameFile tells whether /proc/locks' "MAJ:MIN:INODE" names the file st.
func sameFile(field string, st *syscall.Stat_t) bool {
	parts := strings.Split(field, ":")
	if len(parts) != 3 {
		return false
	}
	major, err1 := strconv.ParseUint(parts[0], 16, 32)
	minor, err2 := strconv.ParseUint(parts[1], 16, 32)
	ino, err3 := strconv.ParseUint(parts[2], 10, 64)
	dev := uint64(st.Dev) //nolint:unconvert // int32 on some platforms
	return err1 == nil && err2 == nil && err3 == nil && ino == uint64(st.Ino) &&
		uint32(major) == unix.Major(dev) && uint32(minor) == unix.Minor(dev)
}

func describe(pid int) Holder {
	h := Holder{PID: pid, Program: "an unknown program"}
	if comm, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm"); err == nil {
		h.Program = strings.TrimSpace(string(comm))
	}
	theirs, err1 := os.Stat("/proc/" + strconv.Itoa(pid) + "/exe")
	mine, err2 := os.Stat("/proc/self/exe")
	h.Same = err1 == nil && err2 == nil && os.SameFile(theirs, mine)
	return h
}
