//go:build !linux

package lockholder

// Of cannot tell on this platform: there is no /proc/locks.
func Of(path string) (Holder, bool) { return Holder{}, false }
