package localstate

import (
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/continuity-md/continuity/internal/safefile"
)

// privateLockDir returns a directory for locks and temporary files private
// to the user (0700, owned, never a symlink), named name, under the user's
// runtime directory ($XDG_RUNTIME_DIR), else the user's cache directory.
// Never a shared, predictable directory such as /tmp: another user could
// create it first, or plant a symlink there, and have this user's writes
// and clean-ups act on their directory. When neither can be had, a new
// directory of a random name in the temporary directory (created by this
// process, 0700), which no other process shares.
func privateLockDir(name string) string {
	var bases []string
	if d := os.Getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(d) {
		bases = append(bases, d)
	}
	if d, err := os.UserCacheDir(); err == nil {
		bases = append(bases, d)
	}
	for _, base := range bases {
		if base != "" {
			_ = os.MkdirAll(base, 0o700)
		}
		if dir, err := safefile.PrivateDir(base, "continuity"); err == nil {
			if dir, err := safefile.PrivateDir(dir, name); err == nil {
				return dir
			}
		}
	}
	if dir, err := os.MkdirTemp("", "continuity-"+name+"-"); err == nil {
		return dir
	}
	return filepath.Join(os.TempDir(), "continuity-unusable") // writes then fail, and say so
}

// fallbackLocks are the lock directories outside local state this process
// used.
var fallbackLocks struct {
	sync.Mutex
	dirs []string
}

// ReleaseLocks cleans up the lock directories outside local state this
// process used: lock files and temporary directories no writer holds go,
// then the directory itself when that leaves it empty. Another process's
// write in progress holds its lock and keeps its files. Programs call it
// as they exit.
func ReleaseLocks() {
	fallbackLocks.Lock()
	dirs := fallbackLocks.dirs
	fallbackLocks.dirs = nil
	fallbackLocks.Unlock()
	for _, d := range dirs {
		_, _ = safefile.RemoveStaleTemp(d, time.Now().Add(time.Second), false)
		// rmdir removes only empty directories, and never follows a link.
		_ = os.Remove(filepath.Join(d, "tmp"))
		_ = os.Remove(d)
	}
}
