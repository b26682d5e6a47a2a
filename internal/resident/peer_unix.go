//go:build unix

package resident

import (
	"fmt"
	"net"
)

// credentials runs read on the connection's descriptor.
func credentials(c *net.UnixConn, read func(fd int) (Peer, error)) (Peer, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return Peer{}, err
	}
	var p Peer
	var rerr error
	if err := raw.Control(func(fd uintptr) { p, rerr = read(int(fd)) }); err != nil {
		return Peer{}, err
	}
	if rerr != nil {
		return Peer{}, fmt.Errorf("reading the peer's credentials: %w", rerr)
	}
	return p, nil
}
