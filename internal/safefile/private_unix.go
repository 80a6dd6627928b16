//go:build unix

package safefile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// ErrNotPrivate: a directory meant for one user's locks and temporary
// files is a symlink, is another user's, or others may write in it.
var ErrNotPrivate = errors.New("not a directory private to this user")

// PrivateDir returns dir/name, a directory only this user can reach, for
// locks and temporary files: created 0700 when missing; when present, it
// must be a directory (not a symlink) this user owns, and is made 0700.
// dir itself must be this user's and writable by no one else, once its
// symlinks are resolved (a user's cache directory may be a link), so no
// one else can put anything at dir/name first.
func PrivateDir(dir, name string) (string, error) {
	base, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(base)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() || !ownedByMe(fi) || fi.Mode().Perm()&0o022 != 0 {
		return "", fmt.Errorf("%s: %w", dir, ErrNotPrivate)
	}
	path := filepath.Join(base, name)
	if err := os.Mkdir(path, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return "", err
	}
	fi, err = os.Lstat(path)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() || !ownedByMe(fi) {
		return "", fmt.Errorf("%s: %w", path, ErrNotPrivate)
	}
	if fi.Mode().Perm() != 0o700 {
		if err := os.Chmod(path, 0o700); err != nil {
			return "", err
		}
	}
	return path, nil
}

func ownedByMe(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Geteuid()
}
