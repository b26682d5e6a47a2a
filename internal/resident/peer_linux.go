package resident

import (
	"net"

	"golang.org/x/sys/unix"
)

// peerOf reads the credentials the kernel recorded when the peer
// connected (SO_PEERCRED).
func peerOf(c *net.UnixConn) (Peer, error) {
	return credentials(c, func(fd int) (Peer, error) {
		cred, err := unix.GetsockoptUcred(fd, unix.SOL_SOCKET, unix.SO_PEERCRED)
		if err != nil {
			return Peer{}, err
		}
		return Peer{UID: int(cred.Uid), GID: int(cred.Gid), PID: int(cred.Pid)}, nil
	})
}
