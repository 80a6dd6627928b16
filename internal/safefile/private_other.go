//go:build !unix

package safefile

import (
	"errors"
	"os"
	"path/filepath"
)

// ErrNotPrivate: a directory meant for one user's locks and temporary
// files is not private to that user.
var ErrNotPrivate = errors.New("not a directory private to this user")

// PrivateDir returns dir/name, created when missing: where ownership and
// modes are not Unix's, the user's own directories are private already.
func PrivateDir(dir, name string) (string, error) {
	path := filepath.Join(dir, name)
	if err := os.Mkdir(path, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return "", err
	}
	if fi, err := os.Lstat(path); err != nil || !fi.IsDir() {
		return "", ErrNotPrivate
	}
	return path, nil
}
