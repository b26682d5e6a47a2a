//go:build !unix

package main

import (
	"errors"
	"os"
)

// dial has no Unix socket to reach here: the resident breaker runs on
// Unix systems only, and the hooks run in-process.
func dial(string) (*os.File, error) {
	return nil, errors.New("the resident breaker runs on Unix systems only")
}
