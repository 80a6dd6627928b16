package safefile_test

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/continuity-md/continuity/internal/safefile"
)

// NoSync writes like Update: new files 0644 less the umask, old files keep
// their bits, concurrent read-modify-writes lose nothing, and no temporary
// file is left behind.
func TestUpdateNoSync(t *testing.T) {
	dir := t.TempDir()
	opts := safefile.Options{LockDir: filepath.Join(dir, "locks"), Root: dir, NoSync: true}
	path := filepath.Join(dir, "state.json")
	add := func(old []byte) ([]byte, error) { return append(old, 'x'), nil }
	if err := safefile.Update(path, opts, add); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o644 {
		t.Fatalf("new file: %v, %v; want 0644", fi.Mode(), err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			if err := safefile.Update(path, opts, add); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	got, err := os.ReadFile(path)
	if err != nil || string(got) != strings.Repeat("x", 17) {
		t.Fatalf("after 17 updates: %q, %v", got, err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("permissions %v, want 0600 kept", fi.Mode().Perm())
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if e.Name() != "state.json" && e.Name() != "locks" {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}
