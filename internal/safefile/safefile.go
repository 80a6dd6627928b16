// Package safefile is continuity's one writer for files: every write is atomic
// (a temporary file renamed over the target) and serialised between processes
// by a lock, with the target re-read under the lock so no concurrent change is lost.
package safefile

import (
	"errors"
)

// ErrNoChange may be returned by an Update function to skip the write.
var ErrNoChange = errors.New("no change")

// Options says where locks and temporary files live and what may be written.
type Options struct {
	// LockDir holds the lock files (local state, never committed). Required.
	LockDir string
	// Root, when set, confines writes: a target (after resolving symlinks)
	// outside Root is refused.
	Root string
	// MaxSize bounds how much of an existing target is read (0: 16 MiB).
	MaxSize int64
}

// Update locks path, reads its current bytes (nil when it does not exist),
// calls fn with them and atomically writes what fn returns. A symlinked path
// is resolved and its target written. fn returning ErrNoChange skips the write.
func Update(path string, opts Options, fn func(old []byte) ([]byte, error)) error {
	return errors.New("not implemented yet")
}

// Create atomically writes a new file at path; it fails if path exists.
func Create(path string, data []byte, opts Options) error {
	return errors.New("not implemented yet")
}
