package safefile_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/continuity-md/continuity/internal/safefile"
	"github.com/continuity-md/continuity/internal/testkit"
)

// TestWriteStream: the file becomes what fill wrote, keeps its mode, and
// a fill that fails leaves it as it was, with no temporary file behind.
func TestWriteStream(t *testing.T) {
	dir := testkit.TempDir(t)
	path := filepath.Join(dir, "merged.md")
	mustDo(t, os.WriteFile(path, []byte("old\n"), 0o600))
	if err := safefile.WriteStream(path, func(w io.Writer) error { _, err := io.WriteString(w, "new\n"); return err }); err != nil {
		t.Fatal(err)
	}
	if s := read(t, path); s != "new\n" {
		t.Fatalf("content %q", s)
	}
	if fi, _ := os.Stat(path); unixModes && fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600 kept", fi.Mode().Perm())
	}
	boom := errors.New("boom")
	if err := safefile.WriteStream(path, func(w io.Writer) error { io.WriteString(w, "half"); return boom }); !errors.Is(err, boom) {
		t.Fatalf("err %v, want the fill's", err)
	}
	if s := read(t, path); s != "new\n" {
		t.Fatalf("content after a failed fill %q", s)
	}
	if got := names(t, dir); len(got) != 1 {
		t.Errorf("directory holds %v", got)
	}
}
