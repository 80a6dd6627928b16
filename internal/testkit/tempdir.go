package testkit

// TempDir gives a test a temporary directory removed when the test ends, as
// testing.T.TempDir does, in a way that also works under Wine, where CI runs
// the Windows test binaries: there os.RemoveAll, and so TempDir's own
// cleanup, fails with "Invalid function" (Wine 8 lacks the delete-on-handle
// call Go's RemoveAll uses on Windows), while removing one entry at a time
// works.

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// TempDir returns a new directory for t, removed when t ends. On every system
// but Windows it is t.TempDir().
func TempDir(t testing.TB) string {
	t.Helper()
	if runtime.GOOS != "windows" {
		return t.TempDir()
	}
	name := strings.NewReplacer("/", "_", `\`, "_", ":", "_").Replace(t.Name())
	if len(name) > 40 {
		name = name[:40]
	}
	dir, err := os.MkdirTemp("", name)
	if err != nil {
		t.Fatalf("tempdir: %v", err)
	}
	t.Cleanup(func() {
		if err := RemoveAll(dir); err != nil {
			t.Errorf("tempdir: cleanup: %v", err)
		}
	})
	return dir
}

// RemoveAll removes dir and everything in it: os.RemoveAll, and where that
// fails (under Wine), each entry on its own, deepest first.
func RemoveAll(dir string) error {
	if os.RemoveAll(dir) == nil {
		return nil
	}
	var paths []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err == nil {
			paths = append(paths, path)
		}
		return nil
	})
	if err != nil {
		return err
	}
	slices.Reverse(paths) // a directory after what it holds
	var first error
	for _, p := range paths {
		if err := os.Remove(p); err != nil && first == nil {
			first = err
		}
	}
	return first
}
