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
