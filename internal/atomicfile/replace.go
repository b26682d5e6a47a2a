package atomicfile

import "io/fs"

// Replace replaces the file at path with data, as Write does, without
// making a new file each time: data goes into spare, a file beside path
// that Replace keeps for the purpose, which then trades places with path
// in one rename (RENAME_EXCHANGE on Linux, RENAME_SWAP on macOS); the old
// file is the next spare. A new file costs the file system an inode, the
// dearest part of a small write: on ext4 without a journal the allocator
// skips, one by one, every inode freed in the last minutes, and a hook
// call frees several.
//
// Writers of one path take turns by spare's flock. One that finds it
// taken, a spare that is not a plain file of its own (a link, a hard
// link, a directory), a file system or a platform that cannot swap: each
// falls back to Write. A reader sees the old file or the new one, as with
// Write; only one that held the old file open across the next Replace
// (when it is the spare being written again, in place) may read a newer
// content, or old and new bytes mixed: a file whose reader must tell
// that carries a check of its own (the witness's marks do).
func Replace(path, spare string, data []byte, perm fs.FileMode) error {
	if replaceSwapped(path, spare, data, perm) {
		return nil
	}
	return Write(path, data, perm)
}

// Place puts a file holding data at path, as Write does, in the file
// spare: filled, then renamed to path. It is for a file that comes and
// goes (a mark that says a call is at work), whose writer renames it back
// to spare when it goes, instead of removing it: the next Place makes no
// new file. The spare is its writer's alone (nothing locks it). A spare
// that is not a plain file of its own, or a platform without the checks,
// falls back to Write.
func Place(path, spare string, data []byte, perm fs.FileMode) error {
	if placed(path, spare, data, perm) {
		return nil
	}
	return Write(path, data, perm)
}
