//go:build unix

package owned

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
)

// open opens the file at path with O_NOFOLLOW: a link there is refused by
// the system itself, however it got there.
func open(path string, flag int, perm os.FileMode) (*os.File, error) {
	f, err := os.OpenFile(path, flag|syscall.O_NOFOLLOW, perm)
	if errors.Is(err, syscall.ELOOP) {
		return nil, linkError("the file", path)
	}
	return f, err
}

// ownerOf is the user and group that own fi.
func ownerOf(fi fs.FileInfo) (uid, gid int, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return int(st.Uid), int(st.Gid), true
}
