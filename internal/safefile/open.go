package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
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
	for _, pseudo := range []string{"/proc", "/sys", "/dev"} {
		if target == pseudo || strings.HasPrefix(target, pseudo+string(filepath.Separator)) {
			return nil, nil, fmt.Errorf("open %s: %s %w", path, target, ErrPseudoFile)
		}
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
	f, err := os.OpenFile(target, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
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

// ReadRegular reads the regular file at path as OpenRegular opens it
// (symlinks resolved, never a FIFO, a device or a kernel file), at most max
// bytes when max > 0 (ErrTooLarge beyond). For files a repository or a
// person names that no writer of continuity's holds: an agent's settings,
// .gitattributes, a file given to scan. A missing file gives an error
// wrapping fs.ErrNotExist.
func ReadRegular(path string, max int64) ([]byte, error) {
	f, _, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if max <= 0 {
		return io.ReadAll(f)
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s: more than %d bytes: %w", path, max, ErrTooLarge)
	}
	return b, nil
}
