package safefile_test

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
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
		if e.Name() != "state.json" && e.Name() != ".state.json0" && e.Name() != "locks" {
			t.Errorf("left behind: %s", e.Name())
		}
	}
	// The temporary name holds the previous version, a file of its own.
	prev, err := os.ReadFile(filepath.Join(dir, ".state.json0"))
	if err != nil || string(prev) != strings.Repeat("x", 16) {
		t.Errorf("previous version %q, %v", prev, err)
	}
}

// Unsynced writes of a target make and free no inode once it has been
// written twice: each swaps its content in and keeps the previous version
// under the temporary name for the next to overwrite.
func TestUpdateNoSyncReusesInodes(t *testing.T) {
	dir := t.TempDir()
	opts := safefile.Options{LockDir: filepath.Join(dir, "locks"), Root: dir, NoSync: true}
	path := filepath.Join(dir, "s.json")
	inodes := map[uint64]bool{}
	for i := range 12 {
		if err := safefile.Update(path, opts, func(old []byte) ([]byte, error) { return append(old, 'x'), nil }); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(path); len(got) != i+1 {
			t.Fatalf("write %d: %q", i+1, got)
		}
		inodes[fi.Sys().(*syscall.Stat_t).Ino] = true
	}
	if len(inodes) > 2 {
		t.Errorf("%d inodes over 12 writes, want 2", len(inodes))
	}
}

// A temporary name that is another link to the target (a writer killed
// between linking a new target and removing its other name) is never
// written through: the target keeps its content until the swap.
func TestUpdateNoSyncTempLinkedToTarget(t *testing.T) {
	dir := t.TempDir()
	opts := safefile.Options{LockDir: filepath.Join(dir, "locks"), Root: dir, NoSync: true}
	path := filepath.Join(dir, "s.json")
	tmp := filepath.Join(dir, ".s.json0")
	if err := os.WriteFile(path, []byte("first"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(path, tmp); err != nil {
		t.Fatal(err)
	}
	seen := ""
	if err := safefile.Update(path, opts, func(old []byte) ([]byte, error) { seen = string(old); return []byte("second"), nil }); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); seen != "first" || string(got) != "second" {
		t.Errorf("read %q, wrote %q; want first, second", seen, got)
	}
	if fi, err := os.Stat(tmp); err == nil {
		if target, _ := os.Stat(path); os.SameFile(fi, target) {
			t.Error("the temporary name is still a link to the target")
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
