package nofollow

import "golang.org/x/sys/unix"

func swapat(afd int, a string, bfd int, b string) error {
	return unix.Renameat2(afd, a, bfd, b, unix.RENAME_EXCHANGE)
}
