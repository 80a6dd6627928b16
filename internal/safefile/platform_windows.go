package safefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/windows"
)

// openNoFollow opens path for reading without following a symlink or
// junction in its last element: FILE_FLAG_OPEN_REPARSE_POINT opens the
// reparse point itself, which the caller's Stat of the open file then
// refuses as not a regular file. FILE_SHARE_DELETE lets writers rename
// over a file while it is being read, as on Unix.
func openNoFollow(path string) (*os.File, error) {
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	h, err := windows.CreateFile(p, windows.GENERIC_READ,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, nil,
		windows.OPEN_EXISTING, windows.FILE_ATTRIBUTE_NORMAL|windows.FILE_FLAG_OPEN_REPARSE_POINT, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(h), path), nil
}

// windowsTemp is a temporary file named as renameio names them on Unix
// ("." + base + random digits, which removeLeftovers recognises). renameio
// has no Windows implementation; Windows keeps no Unix modes, so the
// permission is not applied.
type windowsTemp struct {
	*os.File
	closed bool
}

func (t *windowsTemp) Close() error {
	t.closed = true
	return t.File.Close()
}

func (t *windowsTemp) Cleanup() error {
	if !t.closed {
		_ = t.Close()
	}
	if err := os.Remove(t.Name()); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// newTemp creates a temporary file for target in dir.
func newTemp(target, dir string, _ permission) (tempFile, error) {
	f, err := os.CreateTemp(dir, "."+filepath.Base(target)+"*")
	if err != nil {
		return nil, err
	}
	return &windowsTemp{File: f}, nil
}

// replaceRetryFor bounds how long replaceFile waits for another process
// to close the target.
const replaceRetryFor = 500 * time.Millisecond

// replaceFile renames tmp over target (MoveFileEx with
// MOVEFILE_REPLACE_EXISTING, atomic for readers on NTFS). Windows refuses
// to replace a file that another program holds open without
// FILE_SHARE_DELETE (an editor, a virus scanner, a reader in Go): that is
// retried for a moment before the error is returned.
func replaceFile(tmp, target string) error {
	start := time.Now()
	for {
		err := os.Rename(tmp, target)
		if err == nil || !sharingViolation(err) || time.Since(start) > replaceRetryFor {
			return err
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func sharingViolation(err error) bool {
	return errors.Is(err, windows.ERROR_SHARING_VIOLATION) || errors.Is(err, windows.ERROR_ACCESS_DENIED) ||
		errors.Is(err, windows.ERROR_LOCK_VIOLATION)
}

// crossDevice reports an error of a rename or link between two volumes.
func crossDevice(err error) bool {
	return errors.Is(err, windows.ERROR_NOT_SAME_DEVICE) || errors.Is(err, syscall.EXDEV)
}

// sameDevice reports whether a and b are on one volume (drive letter or
// UNC share), where a rename between them can work.
func sameDevice(a, b string) bool {
	va, vb := filepath.VolumeName(a), filepath.VolumeName(b)
	return va != "" && strings.EqualFold(va, vb)
}

// FileID is zero on Windows: the volume serial and file index need a
// handle, not a FileInfo from a path. A Version is then its size and
// times (100 ns on NTFS).
func FileID(fs.FileInfo) (dev, ino uint64) { return 0, 0 }

// Writable reports whether this process may create files in dir. Windows
// has no access(2) that answers for a directory's ACL: a file is made
// and removed.
func Writable(dir string) bool {
	f, err := os.CreateTemp(dir, ".continuity-probe*")
	if err != nil {
		return false
	}
	f.Close()
	_ = os.Remove(f.Name())
	return true
}

// removeOpenFiles: Windows refuses to remove a file opened without
// FILE_SHARE_DELETE, as the lock files are.
const removeOpenFiles = false

// noFollow: Windows' open has no such flag; a lock file there is one the
// lock directory's owner made (see acquire's check after opening).
const noFollow = 0

// chtimesNoFollow sets path's times to t. The caller has checked with
// Lstat that path is a regular file, not a reparse point.
func chtimesNoFollow(path string, t time.Time) error { return os.Chtimes(path, t, t) }
