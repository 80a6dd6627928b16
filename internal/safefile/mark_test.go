package safefile_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/continuity-md/continuity/internal/safefile"
)

// A mark, its index link and a lock file are written inside the root and
// never through a symlink planted at their name or their directory.
func TestMarksRefuseLinks(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	dir, opts := setup(t)
	opts.Root = dir
	outside := filepath.Join(filepath.Dir(dir), "outside")
	write(t, outside, "outside\n", 0o644)
	old := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := os.Chtimes(outside, old, old); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 28, 4, 0, 0, 0, time.UTC)

	// A new mark is created, an existing one gets the new time.
	mark := filepath.Join(dir, "mark")
	if err := safefile.Touch(mark, now, opts); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(mark); err != nil || !fi.ModTime().Equal(now) || fi.Size() != 0 {
		t.Fatalf("mark: %v %v", fi, err)
	}
	// A link at the mark's name, or a directory linked out of the root.
	link := filepath.Join(dir, "link")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	if err := safefile.Touch(link, now, opts); !errors.Is(err, safefile.ErrNotRegular) {
		t.Errorf("touch through a link: %v", err)
	}
	out := filepath.Join(dir, "out")
	if err := os.Symlink(filepath.Dir(dir), out); err != nil {
		t.Fatal(err)
	}
	if err := safefile.Touch(filepath.Join(out, "outside"), now, opts); !errors.Is(err, safefile.ErrOutsideRoot) {
		t.Errorf("touch through a linked directory: %v", err)
	}
	if err := safefile.Link(mark, filepath.Join(out, "new"), opts); !errors.Is(err, safefile.ErrOutsideRoot) {
		t.Errorf("link into a linked directory: %v", err)
	}
	if err := safefile.Link(link, filepath.Join(dir, "second"), opts); !errors.Is(err, safefile.ErrNotRegular) {
		t.Errorf("hard link to a symlink: %v", err)
	}
	if err := safefile.Link(mark, filepath.Join(dir, "second"), opts); err != nil {
		t.Fatal(err)
	}
	if err := safefile.Link(mark, filepath.Join(dir, "second"), opts); !errors.Is(err, fs.ErrExist) {
		t.Errorf("link twice: %v", err)
	}

	// A symlink planted at the lock file's name is not opened: the write
	// fails, and nothing is made where it points.
	target := filepath.Join(dir, "ledger.md")
	lockTarget := filepath.Join(filepath.Dir(dir), "lock-target")
	r, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(opts.LockDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(lockTarget, safefile.LockPath(opts.LockDir, filepath.Join(r, "ledger.md"))); err != nil {
		t.Fatal(err)
	}
	if err := safefile.Update(target, opts, func([]byte) ([]byte, error) { return []byte("x"), nil }); err == nil {
		t.Errorf("a write took a lock through a symlink")
	}
	if _, err := os.Lstat(lockTarget); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the lock's symlink was followed: %v", err)
	}

	if fi, err := os.Stat(outside); err != nil || !fi.ModTime().Equal(old) {
		t.Errorf("the outside file changed: %v %v", fi.ModTime(), err)
	}
}
