package localstate

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
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

// repoDir holds the repository's sessions ("" outside a git repository).
func (s *State) repoDir() string {
	if s.Common == "" {
		return ""
	}
	return filepath.Join(s.Common, "sessions")
}

// commonLockDir is the lock directory every worktree shares for the
// repository's sessions (see lockDirAt): a lock in one worktree's own
// directory would not keep out a writer in another.
func (s *State) commonLockDir() string {
	s.commonOnce.Do(func() { s.commonLocks = lockDirAt(filepath.Join(s.Common, "locks")) })
	return s.commonLocks
}

// ErrNoRepository reports local state outside a git repository: there are
// no repository sessions to record.
var ErrNoRepository = errors.New("not in a git repository")

// RecordRepoSession applies fn to agent session id's entry among the
// repository's sessions, under the lock every worktree shares, and writes
// it atomically. A new entry starts at now; Active is set to now.
func (s *State) RecordRepoSession(id string, now time.Time, fn func(*RepoSession)) error {
	dir := s.repoDir()
	if dir == "" {
		return ErrNoRepository
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("repository sessions: %w", err)
	}
	path := filepath.Join(dir, s.fileKey(id)+".json")
	opts := safefile.Options{LockDir: s.commonLockDir(), Root: s.Common, MaxSize: maxSessionFile, NoSync: true}
	err := safefile.Update(path, opts, func(old []byte) ([]byte, error) {
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
		return json.MarshalIndent(&r, "", "  ")
	})
	if err != nil {
		return fmt.Errorf("repository sessions: %w", err)
	}
	return nil
}

// RepoSessions lists the repository's sessions, most recently active first.
func (s *State) RepoSessions() []RepoSession {
	dir := s.repoDir()
	if dir == "" {
		return nil
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []RepoSession
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		b, err := safefile.Read(filepath.Join(dir, e.Name()), safefile.Options{Root: s.Common, MaxSize: maxSessionFile})
		var r RepoSession
		if err == nil && json.Unmarshal(b, &r) == nil && r.ID != "" {
			out = append(out, r)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Active.After(out[j].Active) })
	return out
}

// PruneRepoSessions removes the repository's sessions stale reports stale
// (a removed worktree, a dead client long quiet), each judged again under
// the shared lock so that an entry a hook just renewed stays. It returns
// how many it removed.
func (s *State) PruneRepoSessions(stale func(RepoSession) bool) int {
	n := 0
	for _, r := range s.RepoSessions() {
		if !stale(r) {
			continue
		}
		path := filepath.Join(s.repoDir(), s.fileKey(r.ID)+".json")
		opts := safefile.Options{LockDir: s.commonLockDir(), Root: s.Common, MaxSize: maxSessionFile, NoSync: true}
		_ = safefile.Update(path, opts, func(old []byte) ([]byte, error) {
			var now RepoSession
			if json.Unmarshal(old, &now) != nil || stale(now) {
				if err := os.Remove(path); err == nil || errors.Is(err, fs.ErrNotExist) {
					n++
				}
			}
			return nil, safefile.ErrNoChange
		})
	}
	return n
}
