package origin

import (
	"bufio"
	"encoding/hex"
	"net"
	"net/netip"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
)

// Peer is the origin of the process at the other end of a TCP connection
// to this host (a reset sent to `loopbreaker serve` with curl): its user,
// the process and its ancestors, and whether it runs under an agent CLI
// (its environment, read from /proc when the server may, and its
// ancestry). ok is false when the client is not on this host or cannot be
// found (another host, no /proc, a process of another user the server may
// not look into): the caller says so rather than guess.
func Peer(remote, local net.Addr, agents []Signs) (org Origin, ok bool) {
	r, okR := addrPort(remote)
	l, okL := addrPort(local)
	if !okR || !okL || !r.Addr().IsLoopback() {
		return Origin{}, false
	}
	inode, uid, found := socketOf(r, l)
	if !found {
		return Origin{}, false
	}
	pid, found := processOf(inode)
	if !found {
		return Origin{UID: uid, User: userName(uid)}, false
	}
	p, ppid, found := readProc(pid)
	if !found {
		return Origin{UID: uid, User: userName(uid)}, false
	}
	org = Origin{UID: uid, User: userName(uid)}
	org.Chain = append([]Proc{p}, chain(ppid, nil)...)
	env := environOf(pid)
	org.Agent = agentOf(func(k string) string { return env[k] }, org.Chain, agents)
	return org, true
}

func addrPort(a net.Addr) (netip.AddrPort, bool) {
	t, ok := a.(*net.TCPAddr)
	if !ok {
		return netip.AddrPort{}, false
	}
	ap := t.AddrPort()
	return netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port()), true
}

// socketOf finds, in /proc/net/tcp and tcp6, the client's end of the
// connection (its local address is the server's remote one): its inode
// and owner.
func socketOf(client, server netip.AddrPort) (inode string, uid int, ok bool) {
	for _, table := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		f, err := os.Open(table)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		sc.Scan() // the header
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) < 10 {
				continue
			}
			loc, ok1 := parseProcAddr(fields[1])
			rem, ok2 := parseProcAddr(fields[2])
			if !ok1 || !ok2 || loc != client || rem != server {
				continue
			}
			u, err := strconv.Atoi(fields[7])
			if err != nil {
				continue
			}
			f.Close()
			return fields[9], u, true
		}
		f.Close()
	}
	return "", 0, false
}

// parseProcAddr reads "0100007F:1F90" (an IPv4 address in host order,
// then the port) or its 32-hex-digit IPv6 form.
func parseProcAddr(s string) (netip.AddrPort, bool) {
	host, port, ok := strings.Cut(s, ":")
	if !ok {
		return netip.AddrPort{}, false
	}
	p, err := strconv.ParseUint(port, 16, 16)
	if err != nil {
		return netip.AddrPort{}, false
	}
	b, err := hex.DecodeString(host)
	if err != nil || len(b) != 4 && len(b) != 16 {
		return netip.AddrPort{}, false
	}
	// Each 32-bit word is in the host's order: little-endian on the
	// platforms loopbreaker is built for (amd64, arm64).
	for i := 0; i < len(b); i += 4 {
		b[i], b[i+1], b[i+2], b[i+3] = b[i+3], b[i+2], b[i+1], b[i]
	}
	a, _ := netip.AddrFromSlice(b)
	return netip.AddrPortFrom(a.Unmap(), uint16(p)), true
}

// processOf finds the process holding the socket inode among those whose
// descriptors this process may read.
func processOf(inode string) (int, bool) {
	want := "socket:[" + inode + "]"
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return 0, false
	}
	for _, d := range procs {
		pid, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		fdDir := filepath.Join("/proc", d.Name(), "fd")
		fds, err := os.ReadDir(fdDir)
		if err != nil {
			continue
		}
		for _, fd := range fds {
			if t, err := os.Readlink(filepath.Join(fdDir, fd.Name())); err == nil && t == want {
				return pid, true
			}
		}
	}
	return 0, false
}

// environOf is a process's environment, empty when it cannot be read.
func environOf(pid int) map[string]string {
	if env, ok := environ(pid); ok {
		return env
	}
	return map[string]string{}
}

func userName(uid int) string {
	if u, err := user.LookupId(strconv.Itoa(uid)); err == nil {
		return u.Username
	}
	return "uid " + strconv.Itoa(uid)
}
