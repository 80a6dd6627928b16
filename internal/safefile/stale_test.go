package safefile_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gofrs/flock"

	"github.com/continuity-md/continuity/internal/safefile"
)

// TestRemoveStaleTemp: what killed writers left (a target's temporary
// directory, its temporary file, its lock file; a lock file alone) goes
// once it is old and its lock is free; a locked one, a young one, entries
// not ours and the targets stay; a dry run removes nothing.
func TestRemoveStaleTemp(t *testing.T) {
	dir, opts := setup(t)
	targets := []string{"a.md", "b.md", "c.md", "d.md", "e.md", "f.md"}
	ids := map[string]string{}
	for _, name := range targets {
		path := filepath.Join(dir, name)
		if err := safefile.Create(path, []byte(name), opts); err != nil {
			t.Fatal(err)
		}
		resolved, err := filepath.EvalSymlinks(path)
		if err != nil {
			t.Fatal(err)
		}
		ids[name] = strings.TrimSuffix(filepath.Base(safefile.LockPath(opts.LockDir, resolved)), ".lock")
	}
	tmp := filepath.Join(opts.LockDir, "tmp")
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Fatalf("writes that ended left %d temporary directories", len(left))
	}
	lockOf := func(name string) string { return filepath.Join(opts.LockDir, ids[name]+".lock") }
	// Synced targets keep their lock files (see lock.go).
	for _, name := range targets {
		if _, err := os.Lstat(lockOf(name)); err != nil {
			t.Fatalf("write of %s left no lock file: %v", name, err)
		}
	}
	dirOf := func(name string) string { return filepath.Join(tmp, ids[name]) }
	// Killed writers of a, b, c, d left their directory and lock file, a's
	// with its temporary file; e's and f's left a lock file alone.
	for _, name := range []string{"a.md", "b.md", "c.md", "d.md"} {
		if err := os.MkdirAll(dirOf(name), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range targets {
		write(t, lockOf(name), "", 0o600)
	}
	killed := filepath.Join(dirOf("a.md"), ".a.md123456")
	write(t, killed, "half a hand", 0o600)
	write(t, filepath.Join(tmp, "notes"), "not ours", 0o600)
	write(t, filepath.Join(opts.LockDir, "notes.lock"), "not ours", 0o600)

	old := time.Now().Add(-2 * time.Hour)
	for _, p := range []string{killed, dirOf("a.md"), dirOf("b.md"), dirOf("c.md"), filepath.Join(tmp, "notes"),
		lockOf("a.md"), lockOf("b.md"), lockOf("c.md"), lockOf("e.md"), filepath.Join(opts.LockDir, "notes.lock")} {
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	// c is being written (its lock is held); d and f are young.
	held := flock.New(lockOf("c.md"))
	if ok, err := held.TryLock(); err != nil || !ok {
		t.Fatalf("take a writer's lock: %v, %v", ok, err)
	}
	defer func() { _ = held.Unlock() }()

	cutoff := time.Now().Add(-time.Hour)
	want := sortedCopy(lockOf("e.md"), killed, lockOf("a.md"), dirOf("a.md"), lockOf("b.md"), dirOf("b.md"))

	got, err := safefile.RemoveStaleTemp(opts.LockDir, cutoff, true)
	if err != nil || !slices.Equal(sortedCopy(got...), want) {
		t.Fatalf("dry run: %v, %v; want %v", got, err, want)
	}
	for _, p := range want {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("dry run removed %s: %v", p, err)
		}
	}

	got, err = safefile.RemoveStaleTemp(opts.LockDir, cutoff, false)
	if err != nil || !slices.Equal(sortedCopy(got...), want) {
		t.Fatalf("removed %v, %v; want %v", got, err, want)
	}
	for _, p := range want {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s is still there", p)
		}
	}
	if left := names(t, tmp); !slices.Equal(left, sortedCopy(ids["c.md"], ids["d.md"], "notes")) {
		t.Fatalf("left in tmp: %v", left)
	}
	wantLocks := sortedCopy(ids["c.md"]+".lock", ids["d.md"]+".lock", ids["f.md"]+".lock", "notes.lock", "tmp")
	if got := names(t, opts.LockDir); !slices.Equal(got, wantLocks) {
		t.Fatalf("lock dir holds %v, want %v", got, wantLocks)
	}
	if got := names(t, dir); !slices.Equal(got, targets) {
		t.Fatalf("targets %v, want %v", got, targets)
	}
	// Free the held lock: c's leftovers go at the next sweep, and a write
	// afterwards still works and leaves its lock file alone (a synced
	// target's), which a sweep keeps while it is young.
	if err := held.Unlock(); err != nil {
		t.Fatal(err)
	}
	got, err = safefile.RemoveStaleTemp(opts.LockDir, cutoff, false)
	if want := sortedCopy(lockOf("c.md"), dirOf("c.md")); err != nil || !slices.Equal(sortedCopy(got...), want) {
		t.Fatalf("second sweep: %v, %v; want %v", got, err, want)
	}
	if err := safefile.Update(filepath.Join(dir, "c.md"), opts, appendLine("again")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(lockOf("c.md")); err != nil {
		t.Errorf("the write left no lock file: %v", err)
	}
	if _, err := os.Lstat(dirOf("c.md")); err == nil {
		t.Error("the write left its temporary directory")
	}
	if got, err := safefile.RemoveStaleTemp(opts.LockDir, cutoff, false); err != nil || len(got) != 0 {
		t.Fatalf("sweep after the write: %v, %v; want nothing removed", got, err)
	}
	if got, err := safefile.RemoveStaleTemp(filepath.Join(dir, "no-such-locks"), cutoff, false); err != nil || len(got) != 0 {
		t.Fatalf("missing lock dir: %v, %v", got, err)
	}
}

func sortedCopy(s ...string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}
