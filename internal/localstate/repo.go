package localstate

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/continuity-md/continuity/internal/safefile"
)

// RepoSession is what every worktree of a repository sees of one agent
// session at work in any of them: kept under the common git directory
// (`git rev-parse --git-common-dir`), one file a session.
type RepoSession struct {
	ID     string   `json:"id"`
	Agent  string   `json:"agent,omitempty"`  // claude, codex, gemini, …
	Client *Process `json:"client,omitempty"` // the client process, when identified
	// Candidate is a process that may be its client (found by its age
	// alone, not yet confirmed by a second hook call).
	Candidate *Process `json:"candidate,omitempty"`
	Stream    string   `json:"stream,omitempty"`
	// Worktree is the absolute root of the worktree the session works in.
	Worktree string `json:"worktree"`
	// Branch is the worktree's branch at the last hook ("" on a detached HEAD).
	Branch  string    `json:"branch,omitempty"`
	Started time.Time `json:"started"`
	Active  time.Time `json:"active"` // its last hook call
	// Files are the files it touched most recently, relative to its
	// worktree, the latest last (at most MaxRepoFiles).
	Files []string `json:"files,omitempty"`
	Ended bool     `json:"ended,omitempty"`
}

// MaxRepoFiles bounds RepoSession.Files.
const MaxRepoFiles = 20

// repoDir holds the repository's sessions at work (not ended), the ones
// a session start reads; ended is where they go once over, for `continuity
// status`; streams holds each stream's worktrees. All "" outside a git
// repository.
func (s *State) repoDir() string    { return s.commonPath("sessions") }
func (s *State) endedDir() string   { return s.commonPath("ended") }
func (s *State) streamsDir() string { return s.commonPath("streams") }

func (s *State) commonPath(name string) string {
	if s.Common == "" {
		return ""
	}
	return filepath.Join(s.Common, name)
}

// commonOptions are the safefile options for the repository's sessions.
func (s *State) commonOptions() safefile.Options {
	return safefile.Options{LockDir: s.commonLockDir(), Root: s.commonRoot(), MaxSize: maxSessionFile, NoSync: true}
}

// commonLockDir is the lock directory every worktree shares for the
// repository's sessions (see lockDirAt): a lock in one worktree's own
// directory would not keep out a writer in another.
func (s *State) commonLockDir() string {
	s.commonOnce.Do(func() { s.commonLocks = lockDirAt(filepath.Join(s.Common, "locks"), s.commonRoot()) })
	return s.commonLocks
}

// ErrNoRepository reports local state outside a git repository: there are
// no repository sessions to record.
var ErrNoRepository = errors.New("not in a git repository")

// RecordRepoSession applies fn to agent session id's entry among the
// repository's sessions, under the lock every worktree shares, and writes
// it atomically. A new entry starts at now; Active is set to now. An entry
// fn ends moves to the ended ones, out of the way of the starts that read
// the sessions at work; one that starts again comes back.
func (s *State) RecordRepoSession(id string, now time.Time, fn func(*RepoSession)) error {
	dir := s.repoDir()
	if dir == "" {
		return ErrNoRepository
	}
	if err := s.Mkdir(dir); err != nil {
		return fmt.Errorf("repository sessions: %w", err)
	}
	key := s.fileKey(id) + ".json"
	path, ended := filepath.Join(dir, key), filepath.Join(s.endedDir(), key)
	err := safefile.Update(path, s.commonOptions(), func(old []byte) ([]byte, error) {
		var r RepoSession
		if len(old) > 0 {
			_ = json.Unmarshal(old, &r) // a damaged entry is replaced, never fatal
		}
		if r.ID != id {
			r = RepoSession{ID: id}
		}
		if r.Started.IsZero() {
			r.Started = now.UTC()
		}
		fn(&r)
		r.ID = id
		r.Active = now.UTC()
		if len(r.Files) > MaxRepoFiles {
			r.Files = r.Files[len(r.Files)-MaxRepoFiles:]
		}
		b, err := json.MarshalIndent(&r, "", "  ")
		if err != nil || !r.Ended {
			_ = os.Remove(ended) // a session at work again is listed once
			return b, err
		}
		if err := s.writeEnded(ended, b); err != nil {
			return nil, err
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		return nil, safefile.ErrNoChange
	})
	if err != nil {
		return fmt.Errorf("repository sessions: %w", err)
	}
	return nil
}

// writeEnded writes an ended session's entry at path.
func (s *State) writeEnded(path string, b []byte) error {
	if err := s.Mkdir(filepath.Dir(path)); err != nil {
		return err
	}
	return safefile.Update(path, s.commonOptions(), func([]byte) ([]byte, error) { return b, nil })
}

// RepoSessions lists the repository's sessions at work (not ended), most
// recently active first; with ended, the ended ones too.
func (s *State) RepoSessions(ended bool) []RepoSession {
	if s.Common == "" {
		return nil
	}
	out := s.readEntries(s.repoDir())
	if ended {
		out = append(out, s.readEntries(s.endedDir())...)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Active.After(out[j].Active) })
	return out
}

// readEntries reads the entries in dir.
func (s *State) readEntries(dir string) []RepoSession {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []RepoSession
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		b, err := safefile.Read(filepath.Join(dir, e.Name()), safefile.Options{Root: s.commonRoot(), MaxSize: maxSessionFile})
		var r RepoSession
		if err == nil && json.Unmarshal(b, &r) == nil && r.ID != "" {
			out = append(out, r)
		}
	}
	return out
}

// PruneRepoSessions moves the sessions at work that over reports over (a
// dead client) to the ended ones, and removes the entries, at work or
// ended, that stale reports stale (a removed worktree, long over), each
// judged again under the shared lock so that an entry a hook just renewed
// stays. It returns how many it moved or removed.
func (s *State) PruneRepoSessions(over, stale func(RepoSession) bool) int {
	n := 0
	for _, r := range s.RepoSessions(true) {
		if !over(r) && !stale(r) {
			continue
		}
		key := s.fileKey(r.ID) + ".json"
		for _, dir := range []string{s.repoDir(), s.endedDir()} {
			path := filepath.Join(dir, key)
			_ = safefile.Update(path, s.commonOptions(), func(old []byte) ([]byte, error) {
				var now RepoSession
				if len(old) == 0 {
					return nil, safefile.ErrNoChange
				}
				bad := json.Unmarshal(old, &now) != nil
				switch {
				case bad || stale(now):
				case dir == s.repoDir() && over(now):
					if s.writeEnded(filepath.Join(s.endedDir(), key), old) != nil {
						return nil, safefile.ErrNoChange
					}
				default:
					return nil, safefile.ErrNoChange
				}
				if err := os.Remove(path); err == nil {
					n++
				}
				return nil, safefile.ErrNoChange
			})
		}
	}
	return n
}

// StreamWorktrees lists the worktrees where sessions worked on stream.
func (s *State) StreamWorktrees(stream string) []string {
	dir := s.streamsDir()
	if dir == "" {
		return nil
	}
	b, err := safefile.Read(filepath.Join(dir, s.fileKey(stream)+".json"), safefile.Options{Root: s.commonRoot(), MaxSize: maxSessionFile})
	var list []string
	if err != nil || json.Unmarshal(b, &list) != nil {
		return nil
	}
	return list
}

// maxStreamWorktrees bounds a stream's worktrees kept: the most recent.
const maxStreamWorktrees = 64

// AddStreamWorktree records that a session worked on stream in worktree
// (written only when it is new to the stream); keep (nil: all) says which
// of those already recorded stay (a removed worktree goes).
func (s *State) AddStreamWorktree(stream, worktree string, keep func(string) bool) error {
	dir := s.streamsDir()
	if dir == "" {
		return ErrNoRepository
	}
	if slices.Contains(s.StreamWorktrees(stream), worktree) {
		return nil
	}
	if err := s.Mkdir(dir); err != nil {
		return err
	}
	return safefile.Update(filepath.Join(dir, s.fileKey(stream)+".json"), s.commonOptions(), func(old []byte) ([]byte, error) {
		var list []string
		_ = json.Unmarshal(old, &list)
		if slices.Contains(list, worktree) {
			return nil, safefile.ErrNoChange
		}
		if keep != nil {
			list = slices.DeleteFunc(list, func(w string) bool { return !keep(w) })
		}
		list = append(list, worktree)
		if len(list) > maxStreamWorktrees {
			list = list[len(list)-maxStreamWorktrees:]
		}
		return json.Marshal(list)
	})
}
