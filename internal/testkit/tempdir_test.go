package testkit

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRemove: a tree of directories and files goes whole.
func TestRemove(t *testing.T) {
	dir, err := os.MkdirTemp("", "tempdir-test")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "a", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"f", "a/g", "a/b/h"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(dir); !os.IsNotExist(err) {
		t.Fatalf("%s still there: %v", dir, err)
	}
}

// TestNew: the directory exists and is empty, and another test's is
// another.
func TestNew(t *testing.T) {
	a, b := TempDir(t), TempDir(t)
	if a == b {
		t.Fatalf("the same directory twice: %s", a)
	}
	ents, err := os.ReadDir(a)
	if err != nil || len(ents) != 0 {
		t.Fatalf("ReadDir(%s) = %v, %v; want empty", a, ents, err)
	}
}
