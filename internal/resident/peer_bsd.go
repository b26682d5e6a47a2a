//go:build darwin || freebsd

package resident

import (
	"net"

	"golang.org/x/sys/unix"
)

// peerOf reads the credentials the kernel recorded when the peer
// connected (LOCAL_PEERCRED; no process id).
func peerOf(c *net.UnixConn) (Peer, error) {
	return credentials(c, func(fd int) (Peer, error) {
		x, err := unix.GetsockoptXucred(fd, unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
		if err != nil {
			return Peer{}, err
		}
		p := Peer{UID: int(x.Uid)}
		if x.Ngroups > 0 {
			p.GID = int(x.Groups[0])
		}
		return p, nil
	})
}
