//go:build unix && !linux && !darwin && !freebsd

package resident

import (
	"errors"
	"net"
)

// peerOf: this system's Go support gives no way to read who connected
// (NetBSD's LOCAL_PEEREID, OpenBSD's SO_PEERCRED are not wrapped). Without
// a peer's credentials the resident breaker trusts no one: every call is
// refused, so the client answers in a process of its own, and protected
// mode fails closed.
func peerOf(*net.UnixConn) (Peer, error) {
	return Peer{}, errors.New("this system does not tell the resident breaker who connected (no peer credentials): calls are answered in the client's own process")
}
