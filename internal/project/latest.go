package project

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/continuity-md/continuity/handoff"
	"github.com/continuity-md/continuity/internal/safefile"
)

// racyWindow is how long after a directory changed its modification time
// may still not tell a later change apart (coarse file system clocks): a
// memo written that soon after is not trusted.
const racyWindow = 2 * time.Second

// LatestHandoff returns the path of work stream name's newest handoff, as
// handoff.Latest does, without listing the directory each time: the answer
// is remembered in local state with the directory's modification time,
// size and inode, and used while they are unchanged (adding, removing or
// renaming a handoff changes them). A memo written within racyWindow of the
// directory's change is not trusted, so two changes within one tick of a
// coarse clock cannot hide the second. Errors are handoff.Latest's.
func (p *Project) LatestHandoff(name string) (string, error) {
	dir, err := p.HandoffSessionDir(name)
	if err != nil {
		return "", err
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return handoff.Latest(dir)
	}
	key := dirKey(fi)
	memo := filepath.Join(p.StateDir, "latest", name)
	if f, err := os.Open(memo); err == nil {
		var buf [512]byte
		n, _ := f.Read(buf[:])
		mfi, serr := f.Stat()
		f.Close()
		k, base, ok := strings.Cut(strings.TrimSpace(string(buf[:n])), " ")
		if ok && serr == nil && k == key && mfi.ModTime().Sub(fi.ModTime()) >= racyWindow &&
			base == filepath.Base(base) && strings.HasSuffix(base, ".md") {
			return filepath.Join(dir, base), nil
		}
	}
	path, err := handoff.Latest(dir)
	if err != nil {
		return "", err
	}
	// Best effort: without the memo the next call lists the directory again.
	_ = p.writeMemo(memo, key+" "+filepath.Base(path)+"\n")
	return path, nil
}

// dirKey identifies a directory's version: modification time, size, inode.
func dirKey(fi os.FileInfo) string {
	var ino uint64
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		ino = uint64(st.Ino)
	}
	return fmt.Sprintf("%d.%d.%d", fi.ModTime().UnixNano(), fi.Size(), ino)
}

// writeMemo writes a memo in local state, unsynced (it is a cache), as a
// new file: its modification time must be now, even when its content is
// what an untrusted memo already said.
func (p *Project) writeMemo(path, content string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	opts := p.StateOptions()
	opts.NoSync = true
	return safefile.Update(path, opts, func([]byte) ([]byte, error) { return []byte(content), nil })
}
