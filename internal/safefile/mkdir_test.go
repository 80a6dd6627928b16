package safefile_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/continuity-md/continuity/internal/testkit"

	"github.com/continuity-md/continuity/internal/safefile"
)

func TestMkdirAllStaysInsideRoot(t *testing.T) {
	needUnix(t, "symlinks")
	for name, plant := range map[string]func(root, outside string) string{
		"first part a symlink out": func(root, outside string) string {
			symlink(t, outside, filepath.Join(root, "thoughts"))
			return filepath.Join(root, "thoughts", "shared", "handoffs", "x")
		},
		"deeper part a symlink out": func(root, outside string) string {
			mustDo(t, os.MkdirAll(filepath.Join(root, "thoughts", "shared"), 0o755))
			symlink(t, outside, filepath.Join(root, "thoughts", "shared", "handoffs"))
			return filepath.Join(root, "thoughts", "shared", "handoffs", "x")
		},
		"relative symlink climbing out": func(root, outside string) string {
			rel, _ := filepath.Rel(root, outside)
			symlink(t, rel, filepath.Join(root, "thoughts"))
			return filepath.Join(root, "thoughts", "ledgers")
		},
		"dangling symlink out": func(root, outside string) string {
			symlink(t, filepath.Join(outside, "not-yet"), filepath.Join(root, "thoughts"))
			return filepath.Join(root, "thoughts", "ledgers")
		},
	} {
		t.Run(name, func(t *testing.T) {
			root, outside := testkit.TempDir(t), testkit.TempDir(t)
			dir := plant(root, outside)
			err := safefile.MkdirAll(dir, root, 0o755)
			if !errors.Is(err, safefile.ErrOutsideRoot) {
				t.Errorf("MkdirAll = %v, want ErrOutsideRoot", err)
			}
			if ents, _ := os.ReadDir(outside); len(ents) != 0 {
				t.Errorf("created outside the root: %v", ents)
			}
		})
	}
	t.Run("inside, through a symlink that stays inside", func(t *testing.T) {
		root := testkit.TempDir(t)
		mustDo(t, os.MkdirAll(filepath.Join(root, "real"), 0o755))
		symlink(t, "real", filepath.Join(root, "thoughts"))
		if err := safefile.MkdirAll(filepath.Join(root, "thoughts", "a", "b"), root, 0o755); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Stat(filepath.Join(root, "real", "a", "b")); err != nil || !fi.IsDir() {
			t.Errorf("not created: %v", err)
		}
	})
}

func mustDo(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// symlink makes newname a symlink to oldname (see needUnix on Windows).
func symlink(t *testing.T, oldname, newname string) {
	t.Helper()
	needUnix(t, "symlinks")
	mustDo(t, os.Symlink(oldname, newname))
}
