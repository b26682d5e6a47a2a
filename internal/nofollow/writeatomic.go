package nofollow

import (
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"strconv"
)

// WriteAtomic writes the file name below d through a temporary file
// in the same directory and a rename, so that a reader (the agent's file
// watcher) never sees half a file. The temporary file is created new
// (never an existing file or link) and the rename replaces a name, never
// writes through a link.
func (d *Dir) WriteAtomic(name string, data []byte, perm fs.FileMode) error {
	var tmp string
	var f *os.File
	for {
		tmp = path.Join(path.Dir(name), "."+path.Base(name)+".tmp"+strconv.FormatUint(rand.Uint64(), 36))
		var err error
		f, err = d.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return err
		}
		break
	}
	_, err := f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if err == nil {
		err = f.Chmod(perm)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = d.Rename(tmp, name)
	}
	if err != nil {
		d.Remove(tmp)
	}
	return err
}
