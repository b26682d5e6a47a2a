package nofollow

import "golang.org/x/sys/unix"

// openBeneath opens the directory name (several components) below fd in
// one system call that refuses any link on the way (openat2 with
// RESOLVE_NO_SYMLINKS, Linux 5.6), instead of one openat per component.
// On an error other than a missing component (an old kernel, a sandbox
// that filters openat2, a link or a file on the way) the caller walks the
// components, which says precisely what is wrong.
func openBeneath(fd int, name string) (int, error) {
	how := unix.OpenHow{
		Flags:   unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	}
	for {
		nfd, err := unix.Openat2(fd, name, &how)
		if err == unix.EINTR || err == unix.EAGAIN {
			continue
		}
		return nfd, err
	}
}
