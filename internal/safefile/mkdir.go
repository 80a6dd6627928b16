package safefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// MkdirAll creates dir and its missing parents, like os.MkdirAll, but only
// inside root: dir is first resolved (every symlink among its existing
// parts followed), and when that lies outside root nothing is created and
// the error wraps ErrOutsideRoot. A repository whose thoughts/ is a
// symlink to elsewhere cannot make continuity create directories there.
func MkdirAll(dir, root string, perm fs.FileMode) error {
	target, err := resolveExisting(dir)
	if err == nil {
		err = checkRoot(target, root)
	}
	if err != nil {
		return fmt.Errorf("create directory %s: %w", dir, err)
	}
	if err := os.MkdirAll(target, perm); err != nil {
		return fmt.Errorf("create directory %s: %w", dir, err)
	}
	// A symlink planted while the directories were made would show here.
	if final, err := filepath.EvalSymlinks(target); err != nil || checkRoot(final, root) != nil {
		return fmt.Errorf("create directory %s: %w %s", dir, ErrOutsideRoot, root)
	}
	return nil
}

// resolveExisting resolves the symlinks of the longest existing prefix of
// path and appends the missing rest, which cannot hold a symlink. A
// dangling symlink counts as existing: it resolves to where it points.
func resolveExisting(path string) (string, error) {
	p, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	var rest []string
	for {
		_, err := os.Lstat(p)
		if err == nil {
			r, err := resolve(p)
			if err != nil {
				return "", err
			}
			return filepath.Join(append([]string{r}, rest...)...), nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		parent := filepath.Dir(p)
		if parent == p {
			return "", err
		}
		rest = append([]string{filepath.Base(p)}, rest...)
		p = parent
	}
}
