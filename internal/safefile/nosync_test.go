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

// An unsynced write makes no temp dir under the lock dir (its temporary
// file goes beside the target), and the writes of one directory share one
// lock file, made once and kept: no inode made and freed per write.
func TestUpdateNoSyncMakesNoTempDir(t *testing.T) {
	dir := t.TempDir()
	opts := safefile.Options{LockDir: filepath.Join(dir, "locks"), Root: dir, NoSync: true}
	var lock os.FileInfo
	for _, name := range []string{"a.json", "b.json", "c.json", "a.json"} {
		if err := safefile.Update(filepath.Join(dir, name), opts, func(old []byte) ([]byte, error) { return append(old, name...), nil }); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(filepath.Join(dir, name)); !strings.HasSuffix(string(got), name) {
			t.Errorf("%s holds %q", name, got)
		}
		locks, _ := filepath.Glob(filepath.Join(opts.LockDir, "*.lock"))
		if len(locks) != 1 {
			t.Fatalf("lock files after writing %s: %v, want the directory's one", name, locks)
		}
		fi, err := os.Stat(locks[0])
		if err != nil {
			t.Fatal(err)
		}
		if lock != nil && !os.SameFile(lock, fi) {
			t.Errorf("the lock file was made again for %s", name)
		}
		lock = fi
	}
	if tmp, _ := filepath.Glob(filepath.Join(opts.LockDir, "tmp", "*")); len(tmp) != 0 {
		t.Errorf("temp dirs %v made for unsynced writes", tmp)
	}
}

// What an unsynced writer killed mid-write leaves (its one temporary name)
// is removed by the next unsynced write, and the directory is not listed
// for others: a file of another target's pattern stays.
func TestUpdateNoSyncLeftover(t *testing.T) {
	dir := t.TempDir()
	opts := safefile.Options{LockDir: filepath.Join(dir, "locks"), Root: dir, NoSync: true}
	path := filepath.Join(dir, "s.json")
	left := filepath.Join(dir, ".s.json0")
	other := filepath.Join(dir, ".t.json123")
	for _, f := range []string{left, other} {
		if err := os.WriteFile(f, []byte("half"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := safefile.Update(path, opts, func([]byte) ([]byte, error) { return []byte("x"), nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(left); !os.IsNotExist(err) {
		t.Errorf("leftover %s kept (%v)", left, err)
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("another target's file removed: %v", err)
	}
	if got, _ := os.ReadFile(path); string(got) != "x" {
		t.Errorf("content %q", got)
	}
}
