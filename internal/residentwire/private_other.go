//go:build !unix

package residentwire

import (
	"errors"
	"fmt"
	"os"
)

// errNoResident: the resident breaker needs Unix sockets and owners; on
// other systems the hooks run in-process.
var errNoResident = errors.New("the resident breaker runs on Unix systems only")

// MakePrivate reports that there is no resident breaker here.
func MakePrivate(string) error { return errNoResident }

// CheckPrivate reports that there is no resident breaker here.
func CheckPrivate(string) error { return errNoResident }

// Fingerprint tells one build of a binary from another by size and time.
func Fingerprint(path string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%d:%d", fi.Size(), fi.ModTime().UnixNano()), nil
}

// CheckSystem reports that there is no protected breaker here.
func CheckSystem(string) error { return errNoResident }

// CheckService reports that there is no protected breaker here.
func CheckService(string) error { return errNoResident }

// OwnedBy reports that there is no protected breaker here.
func OwnedBy(string, ...int) string { return errNoResident.Error() }

// OwnerOf reports that no owner can be read here.
func OwnerOf(string) int { return -1 }
