//go:build !unix

package hookinstall

// Exposed cannot read owners and modes here: every path is reported, so
// that nothing is called protected on a system where it was not checked.
func Exposed(path string, _ int) []string {
	return []string{path + ": its owner and permissions cannot be checked on this system"}
}
