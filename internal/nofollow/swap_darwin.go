package nofollow

import "golang.org/x/sys/unix"

func swapat(afd int, a string, bfd int, b string) error {
	return unix.RenameatxNp(afd, a, bfd, b, unix.RENAME_SWAP)
}
