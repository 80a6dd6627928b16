package safefile

import (
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestLockRemovedNeverLetsTwoIn: writers that remove the lock file as they
// let it go still exclude each other: many goroutines (each lock an open
// file description of its own, as separate processes have) take and
// release one lock path in a loop, and never two are inside at once.
// A plain flock of the path (acquire without its check that the path
// still names the file locked) lets two in within a few hundred rounds.
func TestLockRemovedNeverLetsTwoIn(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	var inside, most, rounds atomic.Int32
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 300 {
				l, ok, err := acquire(path, false)
				if err != nil || !ok {
					t.Error(err)
					return
				}
				n := inside.Add(1)
				if n > most.Load() {
					most.Store(n)
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
