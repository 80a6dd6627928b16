package safefile_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/gofrs/flock"

	"github.com/continuity-md/continuity/internal/safefile"
)

// TestRemoveStaleTemp: the per-target temporary directories and a killed
// writer's temporary file go once they are old and their lock is free; a
// locked one, a young one, the lock files and the targets stay; a dry run
// removes nothing.
func TestRemoveStaleTemp(t *testing.T) {
	dir, opts := setup(t)
	targets := []string{"a.md", "b.md", "c.md", "d.md"}
	for _, name := range targets {
		if err := safefile.Create(filepath.Join(dir, name), []byte(name), opts); err != nil {
			t.Fatal(err)
		}
	}
	tmp := filepath.Join(opts.LockDir, "tmp")
	ids := names(t, tmp)
	if len(ids) != len(targets) {
		t.Fatalf("temporary directories %v, want one per target", ids)
	}
	locks := names(t, opts.LockDir)
	// A writer killed mid-write left its temporary file in ids[0]'s directory,
	// and something not ours sits beside the directories.
	killed := filepath.Join(tmp, ids[0], ".a.md123456")
	write(t, killed, "half a hand", 0o600)
	write(t, filepath.Join(tmp, "notes"), "not ours", 0o600)

	old := time.Now().Add(-2 * time.Hour)
	for _, p := range []string{killed, filepath.Join(tmp, ids[0]), filepath.Join(tmp, ids[1]), filepath.Join(tmp, ids[2]), filepath.Join(tmp, "notes")} {
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	// ids[2] is being written (its lock is held); ids[3] is young.
	held := flock.New(filepath.Join(opts.LockDir, ids[2]+".lock"))
	if ok, err := held.TryLock(); err != nil || !ok {
		t.Fatalf("take a writer's lock: %v, %v", ok, err)
	}
	defer func() { _ = held.Unlock() }()

	cutoff := time.Now().Add(-time.Hour)
	want := []string{killed, filepath.Join(tmp, ids[0]), filepath.Join(tmp, ids[1])}

	got, err := safefile.RemoveStaleTemp(opts.LockDir, cutoff, true)
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("dry run: %v, %v; want %v", got, err, want)
	}
	if _, err := os.Stat(killed); err != nil {
		t.Fatalf("dry run removed %s: %v", killed, err)
	}

	got, err = safefile.RemoveStaleTemp(opts.LockDir, cutoff, false)
	if err != nil || !slices.Equal(got, want) {
		t.Fatalf("removed %v, %v; want %v", got, err, want)
	}
	if left := names(t, tmp); !slices.Equal(left, sortedCopy(ids[2], ids[3], "notes")) {
		t.Fatalf("left in tmp: %v", left)
	}
	if got := names(t, opts.LockDir); !slices.Equal(got, locks) {
		t.Fatalf("lock files %v, want all kept: %v", got, locks)
	}
	if got := names(t, dir); !slices.Equal(got, targets) {
		t.Fatalf("targets %v, want %v", got, targets)
	}
	// The held lock may be any target's (ids are hashes): free it before
	// writing again, or the write would wait for it forever.
	if err := held.Unlock(); err != nil {
		t.Fatal(err)
	}
	// Writing a pruned target again recreates its directory.
	if err := safefile.Update(filepath.Join(dir, "a.md"), opts, appendLine("again")); err != nil {
		t.Fatal(err)
	}
	// A second sweep may take only the directory whose lock was held (old,
	// and free now); the one the write just used is young and stays.
	before := names(t, tmp)
	got, err = safefile.RemoveStaleTemp(opts.LockDir, cutoff, false)
	if err != nil || len(got) > 1 || len(got) == 1 && got[0] != filepath.Join(tmp, ids[2]) {
		t.Fatalf("second sweep: %v, %v; want at most %s", got, err, ids[2])
	}
	for _, name := range before {
		if _, err := os.Stat(filepath.Join(tmp, name)); err != nil && name != ids[2] {
			t.Fatalf("second sweep removed %s: %v", name, err)
		}
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
