package core

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/continuity-md/continuity/internal/safefile"
	"github.com/continuity-md/continuity/internal/workspace"
)

// staleTempAge is how old a temporary file or directory must be before
// Prune removes it: far longer than any write takes.
const staleTempAge = time.Hour

// Prune removes local state by age and count: remembered agent sessions
// past the project's retention (by age and count) and transcript
// checkpoints (by age; they were never removed before), and temporary
// files that killed writes left. It only ever looks inside the project's state directory, never at
// a committed file. Failures do not stop it; the first is returned.
func Prune(p *workspace.Workspace, now time.Time, dryRun bool) ([]string, error) {
	days, max := p.Config.Retention.Days, p.Config.Retention.Max
	cutoff := now.Add(-time.Duration(days) * 24 * time.Hour)
	var removed []string
	var first error
	fail := func(err error) {
		if err != nil && first == nil {
			first = err
		}
	}
	// Agent sessions: by age, then by count (newest kept).
	type entry struct {
		path string
		mod  time.Time
	}
	var sessions []entry
	if ents, err := os.ReadDir(p.Local.SessionsDir()); err == nil {
		for _, e := range ents {
			if info, err := e.Info(); err == nil && !e.IsDir() {
				sessions = append(sessions, entry{filepath.Join(p.Local.SessionsDir(), e.Name()), info.ModTime()})
			}
		}
	}
	sort.Slice(sessions, func(i, j int) bool { return sessions[i].mod.After(sessions[j].mod) })
	for i, s := range sessions {
		if (days > 0 && s.mod.Before(cutoff)) || (max > 0 && i >= max) {
			if !dryRun {
				if err := os.Remove(s.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
					fail(err)
					continue
				}
			}
			removed = append(removed, s.path)
		}
	}
	// Transcript checkpoints past the retention's age (a session that old
	// is not resumed): only their own names, never the lock file that
	// their writers share in that directory.
	if days > 0 {
		dir := p.Local.TranscriptDir()
		if ents, err := os.ReadDir(dir); err == nil {
			for _, e := range ents {
				name := e.Name()
				if !strings.HasPrefix(name, "transcript-") || !strings.HasSuffix(name, ".json") {
					continue
				}
				info, err := e.Info()
				if err != nil || !info.Mode().IsRegular() || !info.ModTime().Before(cutoff) {
					continue
				}
				path := filepath.Join(dir, name)
				if !dryRun {
					if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
						fail(err)
						continue
					}
				}
				removed = append(removed, path)
			}
		}
	}
	// Temporary files and directories under the locks, and lock files a
	// killed writer left (a writer removes its own; taking a lock checks
	// that the path still names the file locked, so removing one never
	// lets two writers in).
	lockDir := p.Local.Options().LockDir
	if strings.HasPrefix(lockDir, p.Local.Dir+string(filepath.Separator)) { // never outside local state
		tmp, err := safefile.RemoveStaleTemp(lockDir, now.Add(-staleTempAge), dryRun)
		removed = append(removed, tmp...)
		fail(err)
	}
	if !dryRun {
		// A stamp whose time alone matters: unsynced (a write of that
		// kind leaves no temporary directory behind in the local state
		// this prune has just cleared, nor a lock file).
		stamp := filepath.Join(p.Local.Dir, "pruned")
		opts := p.Local.Options()
		opts.NoSync = true
		data := []byte(now.UTC().Format(time.RFC3339) + "\n")
		if err := safefile.Update(stamp, opts, func([]byte) ([]byte, error) { return data, nil }); err != nil && !errors.Is(err, fs.ErrNotExist) {
			fail(fmt.Errorf("local state: %w", err))
		}
	}
	return removed, first
}

// PruneLazily prunes at most once a day; a session start calls it.
func PruneLazily(p *workspace.Workspace, now time.Time) {
	info, err := os.Stat(filepath.Join(p.Local.Dir, "pruned"))
	if err == nil && now.Sub(info.ModTime()) < 24*time.Hour {
		return
	}
	if _, err := os.Stat(p.Local.Dir); err != nil {
		return
	}
	_, _ = Prune(p, now, false)
	pruneRepoSessions(p, now)
}
