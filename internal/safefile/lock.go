package safefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/gofrs/flock"
)

// Lock files do not accumulate: one per target would leave a file in local
// state for every handoff ever written. A writer removes its lock file
// before it lets the lock go, so a lock file exists only while some writer
// holds or waits for it. That is safe because taking a lock checks, once
// it is held, that the path still names the file locked: a writer that
// opened the file before another removed it holds a lock on a file no one
// else can reach, sees the path gone or replaced, and starts over on the
// path's current file. So two writers can never both hold "the" lock.

// maxLockTries bounds the starting over; each try means another writer
// removed the lock file in between, which is rare and quick.
const maxLockTries = 1000

// acquire takes the exclusive lock at path, waiting for it; try only
// tries (ok false when another writer holds it).
func acquire(path string, try bool) (lock *flock.Flock, ok bool, err error) {
	for range maxLockTries {
		lock = flock.New(path, flock.SetPermissions(0o600))
		if try {
			ok, err = lock.TryLock()
		} else {
			err = lock.Lock()
			ok = err == nil
		}
		if err != nil || !ok {
			return nil, false, err
		}
		held, serr := lock.Stat()
		now, lerr := os.Lstat(path)
		if serr == nil && lerr == nil && os.SameFile(held, now) {
			return lock, true, nil
		}
		_ = lock.Unlock()
		if serr != nil {
			return nil, false, serr
		}
		if lerr != nil && !errors.Is(lerr, fs.ErrNotExist) {
			return nil, false, lerr
		}
	}
	return nil, false, fmt.Errorf("lock %s: removed under every try", path)
}

// release removes the lock file at path and then lets the lock go; the
// caller holds the lock (from acquire).
func release(lock *flock.Flock) {
	_ = os.Remove(lock.Path())
	_ = lock.Unlock()
}
