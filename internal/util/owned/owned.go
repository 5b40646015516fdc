// Package owned keeps the files orgsync keeps (the state directory, the
// log file) its own: a folder or a file that another user could change
// (writable by its group or by every user, owned by another user) is
// refused with the chmod or chown that fixes it, and a file is never
// opened through a symbolic link. On Windows, whose files carry access
// lists instead of modes, only the links are refused.
package owned

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/user"
	"strconv"
)

// Dir checks the folder at path, named what in the error (state.dir): it
// must belong to the user running orgsync or to root, and be writable by
// no one else: by its group only when that is the group orgsync runs as
// (a Kubernetes volume's fsGroup), by every user never. The folder may be
// a link to one: what it leads to is checked.
func Dir(what, path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s %s is not a folder", what, path)
	}
	return trusted(what, path, fi, true)
}

// File checks the file at path, when there is one, named what in the
// error: not a link, belonging to the user running orgsync, writable by
// no one else.
func File(what, path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return linkError(what, path)
	}
	return trusted(what, path, fi, false)
}

// OpenAppend opens the file at path for appending, created (mode 0600)
// when missing, never through a link.
func OpenAppend(path string) (*os.File, error) {
	return open(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
}

// Open opens the file at path for reading, never through a link.
func Open(path string) (*os.File, error) { return open(path, os.O_RDONLY, 0) }

// ReadFile reads the file at path, never through a link.
func ReadFile(path string) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// ErrLink says that a file is a symbolic link.
var ErrLink = errors.New("is a symbolic link")

// linkError is the error of a file at path (named what) that is a link.
func linkError(what, path string) error {
	return fmt.Errorf("%s %s %w: orgsync never reads or writes its files through one (it could lead anywhere): "+
		"put the file itself there (or remove the link)", what, path, ErrLink)
}

// trusted checks that fi, the folder (dir) or file at path, belongs to
// the user running orgsync (or root, for a folder) and that no one else
// can write to it.
func trusted(what, path string, fi fs.FileInfo, dir bool) error {
	uid, gid, ok := ownerOf(fi)
	if !ok {
		return nil // no owner nor mode to check (Windows)
	}
	me := os.Geteuid()
	perm := fi.Mode().Perm()
	fix := "0600"
	if dir {
		fix = "0700"
	}
	switch {
	case uid != me && !(dir && uid == 0):
		return fmt.Errorf("%s %s belongs to %s, not to %s, who runs orgsync: whoever owns it can change what orgsync keeps there; "+
			"fix it with chown %s %s (or run orgsync as %[3]s)", what, path, userName(uid), userName(me), chownName(me), path)
	case perm&0o002 != 0:
		return fmt.Errorf("%s %s can be written by every user (mode %04o): anyone could change what orgsync keeps there; fix it with chmod %s %s",
			what, path, perm, fix, path)
	case perm&0o020 != 0 && (!dir || gid != os.Getegid()):
		return fmt.Errorf("%s %s can be written by its group %s (mode %04o): its members could change what orgsync keeps there; fix it with chmod %s %s",
			what, path, groupName(gid), perm, fix, path)
	}
	return nil
}

// userName names user id uid: its name and id, or the id.
func userName(uid int) string {
	id := strconv.Itoa(uid)
	if u, err := user.LookupId(id); err == nil {
		return u.Username + " (uid " + id + ")"
	}
	return "uid " + id
}

// chownName is how chown names user id uid: its name, or the id.
func chownName(uid int) string {
	id := strconv.Itoa(uid)
	if u, err := user.LookupId(id); err == nil && u.Username != "" {
		return u.Username
	}
	return id
}

// groupName names group id gid: its name and id, or the id.
func groupName(gid int) string {
	id := strconv.Itoa(gid)
	if g, err := user.LookupGroupId(id); err == nil {
		return g.Name + " (gid " + id + ")"
	}
	return "gid " + id
}
