package safefile

import (
	"crypto/sha256"
	"encoding/hex"
	"path/filepath"
)

// LockPath is the lock file of target (resolved) in lockDir.
func LockPath(lockDir, target string) string {
	sum := sha256.Sum256([]byte(target))
	return filepath.Join(lockDir, hex.EncodeToString(sum[:16])+".lock")
}

// Hold takes the writers' lock at lockPath as a cooperating program would
// (a synced target's: its lock file stays), and returns its release.
func Hold(lockPath string) (func(), error) {
	l, _, err := acquire(lockPath, lockWait)
	if err != nil {
		return nil, err
	}
	return func() { _ = l.Unlock() }, nil
}
