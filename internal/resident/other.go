//go:build !unix

package resident

import (
	"context"
	"errors"
	"net"
	"time"
)

func peerOf(*net.UnixConn) (Peer, error) {
	return Peer{}, errors.New("the resident breaker runs on Unix systems only")
}

func lockDir(context.Context, string, time.Duration) (func(), error) {
	return nil, errors.New("the resident breaker runs on Unix systems only")
}
