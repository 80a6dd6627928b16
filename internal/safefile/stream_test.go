package safefile_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/continuity-md/continuity/internal/safefile"
	"github.com/continuity-md/continuity/internal/testkit"
)

// TestWriteStream: what fill writes replaces the file whole, with the
// file's permissions kept; a fill that fails leaves the file as it was and
// no temporary file beside it.
func TestWriteStream(t *testing.T) {
	dir := testkit.TempDir(t)
	path := filepath.Join(dir, "ours.md")
	if err := os.WriteFile(path, []byte("before\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := safefile.WriteStream(path, func(w io.Writer) error {
		_, _ = io.WriteString(w, "half")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("a failing fill: %v, want %v", err, boom)
	}
	if b, _ := os.ReadFile(path); string(b) != "before\n" {
		t.Fatalf("after a failing fill: %q", b)
	}
	if err := safefile.WriteStream(path, func(w io.Writer) error {
		for range 3 {
			if _, err := io.WriteString(w, "line\n"); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "line\nline\nline\n" {
		t.Fatalf("after a stream: %q", b)
	}
	if fi, err := os.Stat(path); err != nil || runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, %v; want 0600 kept", fi.Mode(), err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("%d entries in the directory, want the file alone", len(ents))
	}
}
