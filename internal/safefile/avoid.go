package safefile

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
)

// ErrInGitDir: a write resolves into a directory it must avoid, git's own
// (refs, objects, hooks): a file there would break the repository or run.
var ErrInGitDir = errors.New("lands in git's own directory")

// checkAvoid refuses target (already resolved) when it lies in one of
// dirs, whose symlinks are resolved too.
func checkAvoid(target string, dirs []string) error {
	for _, d := range dirs {
		if d == "" {
			continue
		}
		r, err := filepath.Abs(d)
		if err == nil {
			r, err = filepath.EvalSymlinks(r)
		}
		if err != nil {
			continue // a directory that does not exist holds nothing
		}
		if target == r || strings.HasPrefix(target, r+string(filepath.Separator)) {
			return fmt.Errorf("%s %w %s", target, ErrInGitDir, r)
		}
	}
	return nil
}

// MkdirAllAvoiding is MkdirAll that also refuses a directory resolving
// into one of avoid (see Options.Avoid).
func MkdirAllAvoiding(dir, root string, avoid []string, perm fs.FileMode) error {
	target, err := resolveExisting(dir)
	if err == nil {
		err = checkAvoid(target, avoid)
	}
	if err != nil {
		return fmt.Errorf("create directory %s: %w", dir, err)
	}
	if err := MkdirAll(dir, root, perm); err != nil {
		return err
	}
	if final, err := filepath.EvalSymlinks(target); err != nil || checkAvoid(final, avoid) != nil {
		return fmt.Errorf("create directory %s: %w", dir, ErrInGitDir)
	}
	return nil
}
