package safefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/gofrs/flock"
)

// Lock files of unsynced targets do not accumulate: a writer of local
// state (whose lock is per directory) removes its lock file before it lets
// the lock go, so that file exists only while some writer holds or waits
// for it. That is safe because taking a lock checks, once it is held, that
// the path still names the file locked: a writer that opened the file
// before another removed it holds a lock on a file no one else can reach,
// sees the path gone or replaced, and starts over on the path's current
// file. So two writers can never both hold "the" lock.
//
// A synced target's lock file (a person's ledger or handoff) stays: an
// older binary sharing the lock directory during an upgrade (a plugin's
// and the one on PATH at different versions) locks <id>.lock without that
// check, and could hold a removed file while a new writer holds its
// successor. Only prune removes those, and only ones it can lock without
// waiting (see RemoveStaleTemp).

// maxLockTries bounds the starting over; each try means another writer
// removed the lock file in between, which is rare and quick.
const maxLockTries = 1000

// lockMode says how acquire takes a lock.
type lockMode int

const (
	lockWait     lockMode = iota // wait for it, creating the file when missing
	lockTry                      // only try, creating the file when missing
	lockExisting                 // only try, and only on a file that exists
)

// acquire takes the exclusive lock at path as mode says; ok is false when
// another writer holds it (or, with lockExisting, when there is no file).
func acquire(path string, mode lockMode) (lock *flock.Flock, ok bool, err error) {
	opts := []flock.Option{flock.SetPermissions(0o600)}
	if mode == lockExisting {
		opts = append(opts, flock.SetFlag(os.O_RDONLY)) // no O_CREATE
	}
	for range maxLockTries {
		lock = flock.New(path, opts...)
		if mode != lockWait {
			ok, err = lock.TryLock()
			if mode == lockExisting && errors.Is(err, fs.ErrNotExist) {
				return nil, false, nil
			}
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
// caller holds the lock (from acquire). Only for lock files no older
// binary locks: an unsynced target's, or a stale one prune removes.
func release(lock *flock.Flock) {
	_ = os.Remove(lock.Path())
	_ = lock.Unlock()
}
