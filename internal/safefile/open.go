package safefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrPseudoFile reports a path under /proc, /sys or /dev: files there can
// block a reader forever or never end, whatever their mode says.
var ErrPseudoFile = errors.New("is a kernel or device file")

// OpenRegular opens the regular file at path for reading, without blocking:
// symlinks are resolved first, and a target under /proc, /sys or /dev, one
// that is not a regular file (a FIFO, a socket, a device, a directory), or
// one outside every root in roots (when any is given) is refused before it
// is opened. The size is not bounded: the caller reads within a deadline.
func OpenRegular(path string, roots ...string) (*os.File, fs.FileInfo, error) {
	target, err := resolve(path)
	if err != nil {
		return nil, nil, fmt.Errorf("open %s: %w", path, err)
	}
	if pseudoFile(target, "/proc", "/sys", "/dev") {
		return nil, nil, fmt.Errorf("open %s: %s %w", path, target, ErrPseudoFile)
	}
	if len(roots) > 0 {
		inside := false
		for _, r := range roots {
			if r != "" && checkRoot(target, r) == nil {
				inside = true
				break
			}
		}
		if !inside {
			return nil, nil, fmt.Errorf("open %s: %w %s", path, ErrOutsideRoot, strings.Join(roots, " or "))
		}
	}
	fi, err := os.Lstat(target)
	if err != nil {
		return nil, nil, fmt.Errorf("open %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("open %s: %s is %s: %w", path, target, kind(fi.Mode()), ErrNotRegular)
	}
	f, err := openNoFollow(target)
	if err != nil {
		return nil, nil, fmt.Errorf("open %s: %w", path, err)
	}
	// The path may have been swapped since the Lstat: judge the open file.
	if fi, err = f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		if err == nil {
			err = fmt.Errorf("%s is %s: %w", target, kind(fi.Mode()), ErrNotRegular)
		}
		return nil, nil, fmt.Errorf("open %s: %w", path, err)
	}
	return f, fi, nil
}

// pseudoFile reports whether the resolved path target lies under one of
// the kernel's trees in dirs.
func pseudoFile(target string, dirs ...string) bool {
	for _, d := range dirs {
		if target == d || strings.HasPrefix(target, d+string(filepath.Separator)) {
			return true
		}
	}
	return false
}
