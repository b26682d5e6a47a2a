// Package layering holds the test that keeps the packages depending in one
// direction: the domain, the engine and the hook path never reach the
// command line, the servers or the installer.
package layering
