//go:build !unix

package filestore

import "io/fs"

// fileID is unknown here; size and modification time remain.
func fileID(fs.FileInfo) uint64 { return 0 }
