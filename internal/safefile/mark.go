package safefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// Marks are files whose name or time is all they say (an index entry, the
// time a stream was last given). They are written here like any other file:
// inside Options.Root once every symlink of their directory is resolved, and
// never through a symlink in their own name, which would carry the write (a
// new time, a link) to wherever it points.

// Touch sets the modification time of the mark at path to t, creating it
// empty (as Create does) when missing. A symlink or anything but a regular
// file at path is refused (ErrNotRegular), and so is a path whose directory
// resolves outside opts.Root (ErrOutsideRoot).
func Touch(path string, t time.Time, opts Options) error {
	if err := checkDir(path, opts); err != nil {
		return fmt.Errorf("touch %s: %w", path, err)
	}
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		if err := Create(path, nil, opts); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
		fi, err = os.Lstat(path)
	}
	if err != nil {
		return fmt.Errorf("touch %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("touch %s: %s is %s: %w", path, path, kind(fi.Mode()), ErrNotRegular)
	}
	if err := chtimesNoFollow(path, t); err != nil {
		return fmt.Errorf("touch %s: %w", path, err)
	}
	return nil
}

// Link makes newname a hard link to the mark oldname, both in directories
// inside opts.Root (a hard link carries no write anywhere, but a directory
// linked out of the root would put the new name there). An existing
// newname gives an error wrapping fs.ErrExist, as os.Link does. A symlink
// at oldname is refused: the new name would be a second link to elsewhere.
func Link(oldname, newname string, opts Options) error {
	for _, p := range []string{oldname, newname} {
		if err := checkDir(p, opts); err != nil {
			return fmt.Errorf("link %s: %w", newname, err)
		}
	}
	if fi, err := os.Lstat(oldname); err != nil {
		return err
	} else if !fi.Mode().IsRegular() {
		return fmt.Errorf("link %s: %s is %s: %w", newname, oldname, kind(fi.Mode()), ErrNotRegular)
	}
	return os.Link(oldname, newname)
}

// checkDir refuses path when its directory, every symlink resolved, lies
// outside opts.Root or in a directory of opts.Avoid.
func checkDir(path string, opts Options) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(abs))
	if err != nil {
		return err
	}
	if err := checkRoot(dir, opts.Root); err != nil {
		return err
	}
	return checkAvoid(dir, opts.Avoid)
}
