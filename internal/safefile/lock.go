package safefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/gofrs/flock"
)

// Lock files stay once made, and do not accumulate: an unsynced target
// (local state) is locked by its directory's one lock file, a synced
// target (a person's ledger or handoff) by its own. Removing an unsynced
// directory's lock file after every write, as an earlier version did, cost
// an inode freed and another made on the path of every hook call; ext4's
// allocator then passes over the inodes freed a moment ago.
//
// Taking a lock still checks, once it is held, that the path names the
// file locked: prune removes stale lock files (ones it can lock without
// waiting), and a writer that opened such a file before it went holds a
// lock no one else can reach; it sees the path gone or replaced and starts
// over on the path's current file. So two writers never both hold "the"
// lock. (Side by side with another version sharing the lock directory,
// as during an upgrade, this holds as long as any version that removes
// lock files makes that check too.)

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
	// Never through a symlink planted at the lock file's name: opening it
	// would create (or open) a file wherever it points.
	flag := os.O_CREATE | os.O_RDONLY | noFollow
	if mode == lockExisting {
		flag = os.O_RDONLY | noFollow // no O_CREATE
	}
	opts := []flock.Option{flock.SetPermissions(0o600), flock.SetFlag(flag)}
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
// caller holds the lock (from acquire). Only for a stale one prune removes.
func release(lock *flock.Flock) {
	if !removeOpenFiles {
		// Windows removes no file that is open: let the lock go (closing
		// it) first. A writer that opened the file meanwhile keeps it
		// from being removed, and one that opens it later finds it gone.
		_ = lock.Unlock()
		_ = os.Remove(lock.Path())
		return
	}
	_ = os.Remove(lock.Path())
	_ = lock.Unlock()
}
