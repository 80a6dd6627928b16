package safefile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/continuity-md/continuity/internal/testkit"
)

// TestLockRemovedNeverLetsTwoIn: writers that remove the lock file as they
// let it go still exclude each other: many goroutines (each lock an open
// file description of its own, as separate processes have) take and
// release one lock path in a loop, and never two are inside at once.
// A plain flock of the path (acquire without its check that the path
// still names the file locked) lets two in within a few hundred rounds.
func TestLockRemovedNeverLetsTwoIn(t *testing.T) {
	path := filepath.Join(testkit.TempDir(t), "x.lock")
	var inside, most, rounds atomic.Int32
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 300 {
				l, ok, err := acquire(path, lockWait)
				if err != nil || !ok {
					t.Error(err)
					return
				}
				n := inside.Add(1)
				for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
				}
				time.Sleep(10 * time.Microsecond)
				inside.Add(-1)
				rounds.Add(1)
				release(l)
			}
		}()
	}
	wg.Wait()
	if most.Load() != 1 {
		t.Errorf("%d writers inside at once", most.Load())
	}
	t.Logf("%d rounds, at most %d inside", rounds.Load(), most.Load())
}

// TestLockExistingCreatesNothing: prune's tries (and a dry run's) take a
// lock only on a file that is there: a path gone since it was listed is
// reported not locked, and no lock file is made for it.
func TestLockExistingCreatesNothing(t *testing.T) {
	path := filepath.Join(testkit.TempDir(t), "gone.lock")
	l, ok, err := acquire(path, lockExisting)
	if err != nil || ok || l != nil {
		t.Fatalf("acquire of a missing file: %v, %v, %v; want not locked, no error", l, ok, err)
	}
	if _, err := os.Lstat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("lock file made: %v", err)
	}
	// And on a file that is there, it locks it as a writer would.
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	l, ok, err = acquire(path, lockExisting)
	if err != nil || !ok {
		t.Fatalf("acquire of an existing file: %v, %v", ok, err)
	}
	if l2, ok2, _ := acquire(path, lockTry); ok2 {
		_ = l2.Unlock()
		t.Fatal("a second writer got the lock")
	}
	_ = l.Unlock()
}
