package safefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"
)

// RemoveStaleTemp removes what writers left in lockDir's temporary
// directory: one directory per target ever written, and in it the temporary
// files of writers killed mid-write. It returns the paths removed, files
// before the directory holding them; with dryRun it removes nothing and
// returns what it would remove.
//
// A target's directory is removed only when it and everything in it were
// last modified before cutoff, and only while that target's lock is free: the
// lock is tried without waiting and held during the removal, so a write in
// progress (which holds the lock from before it creates the directory until
// after its temporary file is gone) is never touched. Lock files are kept:
// deleting one that another process has just opened would let two writers in
// at once. Entries not named as this package names them are left alone.
// Failures do not stop the sweep; the first is returned.
func RemoveStaleTemp(lockDir string, cutoff time.Time, dryRun bool) ([]string, error) {
	tmp := filepath.Join(lockDir, "tmp")
	ents, err := os.ReadDir(tmp)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list temporary files: %w", err)
	}
	var removed []string
	var first error
	for _, e := range ents {
		if !e.IsDir() || !isTargetID(e.Name()) {
			continue
		}
		paths, err := removeStaleTargetDir(lockDir, e.Name(), cutoff, dryRun)
		removed = append(removed, paths...)
		if err != nil && first == nil {
			first = err
		}
	}
	return removed, first
}

// removeStaleTargetDir removes lockDir/tmp/id when it is stale and its
// lock is free; see RemoveStaleTemp.
func removeStaleTargetDir(lockDir, id string, cutoff time.Time, dryRun bool) ([]string, error) {
	dir := filepath.Join(lockDir, "tmp", id)
	// Cheap checks first: most directories of a busy repository are young.
	files, ok := staleContents(dir, cutoff)
	if !ok {
		return nil, nil
	}
	lockPath := filepath.Join(lockDir, id+".lock")
	if _, err := os.Lstat(lockPath); dryRun && errors.Is(err, fs.ErrNotExist) {
		return append(files, dir), nil // no lock to try, and a dry run creates none
	}
	lock := flock.New(lockPath, flock.SetPermissions(0o600))
	locked, err := lock.TryLock()
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", lockPath, err)
	}
	if !locked {
		return nil, nil // a write is in progress
	}
	defer func() { _ = lock.Unlock() }()
	// Again under the lock: a writer may have used the directory meanwhile.
	if files, ok = staleContents(dir, cutoff); !ok {
		return nil, nil
	}
	if dryRun {
		return append(files, dir), nil
	}
	if err := os.RemoveAll(dir); err != nil {
		return nil, fmt.Errorf("remove temporary files %s: %w", dir, err)
	}
	return append(files, dir), nil
}

// staleContents lists the entries of dir and reports whether dir and every
// entry were last modified before cutoff.
func staleContents(dir string, cutoff time.Time) ([]string, bool) {
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() || !fi.ModTime().Before(cutoff) {
		return nil, false
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, false
	}
	var files []string
	for _, e := range ents {
		info, err := e.Info()
		if err != nil || !info.ModTime().Before(cutoff) {
			return nil, false
		}
		files = append(files, filepath.Join(dir, e.Name()))
	}
	return files, true
}

// isTargetID reports whether name is a target's id as begin names it: 32
// lowercase hex digits.
func isTargetID(name string) bool {
	if len(name) != 32 {
		return false
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}
