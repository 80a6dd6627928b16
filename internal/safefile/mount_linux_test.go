package safefile_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/continuity-md/continuity/internal/safefile"
)

// mountTmpfs mounts a fresh tmpfs with the given options, or skips the test
// when that is not allowed (not root, no CAP_SYS_ADMIN).
func mountTmpfs(t *testing.T, data string) string {
	t.Helper()
	dir := t.TempDir()
	if os.Getuid() != 0 {
		t.Skip("mounting a tmpfs needs root")
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, data); err != nil {
		t.Skipf("cannot mount a tmpfs: %v", err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	return dir
}

// TestReadOnlyFileSystem covers the read-only case when running as root,
// where directory modes do not stop writes.
func TestReadOnlyFileSystem(t *testing.T) {
	dir := mountTmpfs(t, "size=1m")
	path := filepath.Join(dir, "f")
	write(t, path, "keep\n", 0o644)
	if err := syscall.Mount("", dir, "", syscall.MS_REMOUNT|syscall.MS_RDONLY, ""); err != nil {
		t.Skipf("cannot remount read-only: %v", err)
	}
	for _, lockDir := range []string{filepath.Join(t.TempDir(), "locks"), filepath.Join(dir, "locks")} {
		opts := safefile.Options{LockDir: lockDir}
		if err := safefile.Update(path, opts, appendLine("x")); err == nil {
			t.Fatalf("Update on a read-only file system (locks in %s) succeeded", lockDir)
		}
		if err := safefile.Create(filepath.Join(dir, "g"), []byte("x"), opts); err == nil {
			t.Fatal("Create on a read-only file system succeeded")
		}
	}
	if s := read(t, path); s != "keep\n" {
		t.Fatalf("file changed: %q", s)
	}
}

// TestDiskFull fills a small tmpfs: the write fails with ENOSPC, the target
// keeps its old content and no temporary file is left.
func TestDiskFull(t *testing.T) {
	dir := mountTmpfs(t, "size=256k")
	for _, sameFS := range []bool{true, false} {
		t.Run(fmt.Sprint("locks on same fs ", sameFS), func(t *testing.T) {
			work := filepath.Join(dir, fmt.Sprint(sameFS))
			if err := os.Mkdir(work, 0o755); err != nil {
				t.Fatal(err)
			}
			lockDir := filepath.Join(t.TempDir(), "locks")
			if sameFS {
				lockDir = filepath.Join(dir, "locks")
			}
			opts := safefile.Options{LockDir: lockDir}
			path := filepath.Join(work, "f")
			write(t, path, "keep\n", 0o644)
			err := safefile.Update(path, opts, func(old []byte) ([]byte, error) {
				return append(old, make([]byte, 1<<20)...), nil
			})
			if !errors.Is(err, syscall.ENOSPC) || !strings.HasPrefix(err.Error(), "write "+path) {
				t.Fatalf("Update on a full disk: %v", err)
			}
			if err := safefile.Create(filepath.Join(work, "g"), make([]byte, 1<<20), opts); !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("Create on a full disk: %v", err)
			}
			if s := read(t, path); s != "keep\n" {
				t.Fatalf("file changed: %q", s)
			}
			if got := names(t, work); fmt.Sprint(got) != "[f]" {
				t.Fatalf("directory holds %v", got)
			}
			if left := tempFiles(t, opts.LockDir); len(left) != 0 {
				t.Fatalf("temp files left: %v", left)
			}
		})
	}
}
