//go:build unix

package core

import (
	"os"

	"golang.org/x/sys/unix"
)

// heads reads the heads of the files in one directory, each opened
// relative to the directory (no path walk per file) with three system
// calls: open, read, close.
type heads struct {
	dir     *os.File
	entries []os.DirEntry
}

// openHeads opens dir and lists it.
func openHeads(dir string) (*heads, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	ents, err := f.ReadDir(-1)
	if err != nil {
		f.Close()
		return nil, err
	}
	return &heads{dir: f, entries: ents}, nil
}

// head reads at most len(buf) bytes of the regular file name. O_NOFOLLOW
// and O_NONBLOCK keep a file swapped for a symlink or a FIFO since the
// listing from being followed or blocking.
func (h *heads) head(name string, buf []byte) ([]byte, bool) {
	fd, err := unix.Openat(int(h.dir.Fd()), name, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, false
	}
	defer unix.Close(fd)
	n := 0
	for n < len(buf) {
		m, err := unix.Read(fd, buf[n:])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, false
		}
		n += m
		if m == 0 || n < len(buf) {
			break // a short read of a regular file is its end: no read more to hear it
		}
	}
	return buf[:n], true
}

func (h *heads) close() { h.dir.Close() }

// whole reads the regular file name into *buf (grown as needed), at most
// max bytes; ok is false for a longer file.
func (h *heads) whole(name string, buf *[]byte, max int64) ([]byte, bool) {
	fd, err := unix.Openat(int(h.dir.Fd()), name, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NOFOLLOW|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, false
	}
	defer unix.Close(fd)
	b := (*buf)[:0]
	for {
		if len(b) == cap(b) {
			b = append(b, 0)[:len(b)]
		}
		m, err := unix.Read(fd, b[len(b):cap(b)])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, false
		}
		want := cap(b) - len(b)
		b = b[:len(b)+m]
		if int64(len(b)) > max {
			return nil, false
		}
		if m == 0 || m < want {
			break // a short read of a regular file is its end
		}
	}
	*buf = b
	return b, true
}
