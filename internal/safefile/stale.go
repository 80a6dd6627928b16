package safefile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
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
// after its temporary file is gone) is never touched. Lock files older than
// cutoff that no writer holds go too (a synced target's lock file stays
// after its writer, see lock.go; an unsynced one's is removed by its writer,
// and one left is a killed writer's or an older version's): a lock file is removed
// only by the holder of its lock, and taking a lock checks that the path
// still names the file locked (see acquire), so two writers are never let
// in at once. Entries not named as this package names them are left alone.
// Failures do not stop the sweep; the first is returned.
func RemoveStaleTemp(lockDir string, cutoff time.Time, dryRun bool) ([]string, error) {
	var removed []string
	var first error
	if locks, err := os.ReadDir(lockDir); err == nil {
		for _, e := range locks {
			id, ok := strings.CutSuffix(e.Name(), ".lock")
			if !ok || !isTargetID(id) || !e.Type().IsRegular() {
				continue
			}
			if _, err := os.Lstat(filepath.Join(lockDir, "tmp", id)); err == nil {
				continue // swept with its directory below
			}
			path, err := removeStaleLock(filepath.Join(lockDir, e.Name()), cutoff, dryRun)
			if path != "" {
				removed = append(removed, path)
			}
			if err != nil && first == nil {
				first = err
			}
		}
	}
	tmp := filepath.Join(lockDir, "tmp")
	ents, err := os.ReadDir(tmp)
	if errors.Is(err, fs.ErrNotExist) {
		return removed, first
	}
	if err != nil {
		return removed, fmt.Errorf("list temporary files: %w", err)
	}
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
	_, lerr := os.Lstat(lockPath)
	if dryRun && errors.Is(lerr, fs.ErrNotExist) {
		return append(files, dir), nil // no lock to try, and a dry run creates none
	}
	mode := lockTry
	if dryRun {
		mode = lockExisting // the path may vanish after Lstat
	}
	lock, locked, err := acquire(lockPath, mode)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", lockPath, err)
	}
	if !locked {
		return nil, nil // a write is in progress
	}
	// Let the lock go, removing its file: the one this sweep created, or
	// one a killed writer left. A dry run keeps one it found.
	defer func() {
		if dryRun && lerr == nil {
			_ = lock.Unlock()
			return
		}
		release(lock)
	}()
	// Again under the lock: a writer may have used the directory meanwhile.
	if files, ok = staleContents(dir, cutoff); !ok {
		return nil, nil
	}
	if lerr == nil {
		files = append(files, lockPath)
	}
	if dryRun {
		return append(files, dir), nil
	}
	// Entry by entry, not os.RemoveAll: the directory holds only files,
	// and Wine (where CI runs the Windows tests) cannot RemoveAll.
	for _, f := range append(files[:len(files):len(files)], dir) {
		if f == lockPath {
			continue // release removes it, after letting it go where need be
		}
		if err := os.Remove(f); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("remove temporary files %s: %w", dir, err)
		}
	}
	return append(files, dir), nil
}

// removeStaleLock removes the lock file at path, with no temporary
// directory beside it, when it was last modified before cutoff and no
// writer holds it; it returns path when it did (or, with dryRun, would).
func removeStaleLock(path string, cutoff time.Time, dryRun bool) (string, error) {
	fi, err := os.Lstat(path)
	if err != nil || !fi.ModTime().Before(cutoff) {
		return "", nil
	}
	lock, locked, err := acquire(path, lockExisting) // gone since Lstat: nothing to remove

	if err != nil {
		return "", fmt.Errorf("lock %s: %w", path, err)
	}
	if !locked {
		return "", nil // a writer holds it, or it is gone
	}
	if dryRun {
		_ = lock.Unlock()
		return path, nil
	}
	release(lock)
	return path, nil
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
