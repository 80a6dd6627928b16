//go:build !windows

package safefile

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
	"time"

	"github.com/google/renameio/v2"
	"golang.org/x/sys/unix"
)

// openNoFollow opens path for reading without following a symlink in its
// last element (O_NOFOLLOW) and without blocking on a FIFO (O_NONBLOCK).
func openNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
}

// pendingFile is renameio's temporary file: "." + base + random digits,
// created with the permission asked for.
type pendingFile struct{ *renameio.PendingFile }

// Close closes the file and keeps its name, for install to use.
func (p pendingFile) Close() error { return p.File.Close() }

// newTemp creates a temporary file for target in dir.
func newTemp(target, dir string, perm permission) (tempFile, error) {
	opt := renameio.WithPermissions(perm.mode)
	if perm.exact {
		opt = renameio.WithStaticPermissions(perm.mode)
	}
	pf, err := renameio.NewPendingFile(target, renameio.WithTempDir(dir), opt)
	if err != nil {
		return nil, err
	}
	return pendingFile{pf}, nil
}

// replaceFile renames tmp over target: rename(2) replaces atomically.
func replaceFile(tmp, target string) error { return os.Rename(tmp, target) }

// crossDevice reports an error of a rename or link between two file systems.
func crossDevice(err error) bool { return errors.Is(err, syscall.EXDEV) }

// sameDevice reports whether a and b are on one file system (device).
func sameDevice(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	if err != nil {
		return false
	}
	sa, ok1 := fa.Sys().(*syscall.Stat_t)
	sb, ok2 := fb.Sys().(*syscall.Stat_t)
	return ok1 && ok2 && sa.Dev == sb.Dev
}

// FileID is the device and inode of the file fi describes (zero when the
// platform's stat says neither).
func FileID(fi fs.FileInfo) (dev, ino uint64) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Dev), uint64(st.Ino) //nolint:unconvert // Dev's type varies by platform
	}
	return 0, 0
}

// Writable reports whether this process may create files in dir
// (access(2) with W_OK: no file is made).
func Writable(dir string) bool { return unix.Access(dir, unix.W_OK) == nil }

// removeOpenFiles: a file can be removed while a process holds it open.
const removeOpenFiles = true

// noFollow makes an open fail on a symlink in the path's last element.
const noFollow = syscall.O_NOFOLLOW

// chtimesNoFollow sets path's access and modification times to t, on the
// path itself, never on where a symlink there points.
func chtimesNoFollow(path string, t time.Time) error {
	ts := []unix.Timespec{unix.NsecToTimespec(t.UnixNano()), unix.NsecToTimespec(t.UnixNano())}
	if err := unix.UtimesNanoAt(unix.AT_FDCWD, path, ts, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return &fs.PathError{Op: "chtimes", Path: path, Err: err}
	}
	return nil
}
