package safefile

import (
	"fmt"
	"io/fs"
	"os"
)

// Version identifies one version of a regular file: its device and inode,
// its size, and its modification and change times. A file replaced (a new
// inode) or written in place (a new change time, which no program can set
// back) has another Version, except when two writes fall within one tick
// of a coarse file system clock: a cache keyed by a Version should not
// trust one whose change time is that recent.
type Version struct {
	Dev    uint64 `json:"dev"`
	Ino    uint64 `json:"ino"`
	Size   int64  `json:"size"`
	Mod    int64  `json:"mod"`    // Unix nanoseconds
	Change int64  `json:"change"` // Unix nanoseconds
}

// IsZero reports the zero Version: none known.
func (v Version) IsZero() bool { return v == Version{} }

// versionOf is the Version fi describes.
func versionOf(fi fs.FileInfo) Version {
	v := Version{Size: fi.Size(), Mod: fi.ModTime().UnixNano()}
	v.Dev, v.Ino = FileID(fi)
	ct := changeTime(fi)
	v.Change = ct.Nano()
	return v
}

// ReadVersion is Read, also returning the version of the file it read:
// what fstat said of the open file, when the path still names that same
// version once the bytes are read, else the zero Version (the file changed
// while it was read, so no version can be vouched for).
func ReadVersion(path string, opts Options) ([]byte, Version, error) {
	target, err := resolve(path)
	if err == nil {
		err = checkRoot(target, opts.Root)
	}
	if err != nil {
		return nil, Version{}, fmt.Errorf("read %s: %w", path, err)
	}
	data, fi, err := readRegular(target, opts.maxSize())
	if err != nil {
		return nil, Version{}, fmt.Errorf("read %s: %w", path, err)
	}
	v := versionOf(fi)
	if after, err := os.Lstat(target); err != nil || versionOf(after) != v {
		v = Version{}
	}
	return data, v, nil
}

// Stat returns the version of the regular file at path now, with Read's
// checks (symlinks resolved, confined to Options.Root, regular files only)
// but without reading it. A missing file gives an error wrapping
// fs.ErrNotExist.
func Stat(path string, opts Options) (Version, error) {
	target, err := resolve(path)
	if err == nil {
		err = checkRoot(target, opts.Root)
	}
	if err != nil {
		return Version{}, fmt.Errorf("stat %s: %w", path, err)
	}
	fi, err := os.Lstat(target)
	if err != nil {
		return Version{}, fmt.Errorf("stat %s: %w", path, err)
	}
	if pseudoFile(target, "/proc", "/sys", "/dev") {
		return Version{}, fmt.Errorf("stat %s: %s %w: %w", path, target, ErrPseudoFile, ErrNotRegular)
	}
	if !fi.Mode().IsRegular() {
		return Version{}, fmt.Errorf("stat %s: %s is %s: %w", path, target, kind(fi.Mode()), ErrNotRegular)
	}
	return versionOf(fi), nil
}
