//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package resident

import (
	"fmt"
	"net"

	"golang.org/x/sys/unix"
)

// peerOf reads the credentials the kernel recorded when the peer
// connected.
func peerOf(c *net.UnixConn) (Peer, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return Peer{}, err
	}
	var uid, gid int
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		var u, g int
		u, g, cerr = getpeereid(int(fd))
		uid, gid = u, g
	}); err != nil {
		return Peer{}, err
	}
	if cerr != nil {
		return Peer{}, fmt.Errorf("reading the peer's credentials: %w", cerr)
	}
	return Peer{UID: uid, GID: gid}, nil
}

func getpeereid(fd int) (int, int, error) {
	x, err := unix.GetsockoptXucred(fd, unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	if err != nil {
		return 0, 0, err
	}
	gid := 0
	if x.Ngroups > 0 {
		gid = int(x.Groups[0])
	}
	return int(x.Uid), gid, nil
}
