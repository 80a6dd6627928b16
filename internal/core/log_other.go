//go:build !unix

package core

import (
	"io"
	"os"
	"path/filepath"
)

// heads reads the heads of the files in one directory.
type heads struct {
	dir     string
	entries []os.DirEntry
}

// openHeads lists dir.
func openHeads(dir string) (*heads, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	return &heads{dir: dir, entries: ents}, nil
}

// head reads at most len(buf) bytes of the regular file name.
func (h *heads) head(name string, buf []byte) ([]byte, bool) {
	f, err := os.Open(filepath.Join(h.dir, name))
	if err != nil {
		return nil, false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, false
	}
	n, err := io.ReadFull(f, buf)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return nil, false
	}
	return buf[:n], true
}

func (h *heads) close() {}

// whole reads the regular file name, at most max bytes; ok is false for a
// longer file.
func (h *heads) whole(name string, buf *[]byte, max int64) ([]byte, bool) {
	f, err := os.Open(filepath.Join(h.dir, name))
	if err != nil {
		return nil, false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() || fi.Size() > max {
		return nil, false
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil || int64(len(b)) > max {
		return nil, false
	}
	*buf = b
	return b, true
}
