package localstate

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/continuity-md/continuity/internal/safefile"
)

// Sync is what the repository remembers of its snapshots' travel (see
// internal/travel): this clone's machine name, whether the person has been
// told where they go, and how the last push and fetch went. It lives under
// the common git directory: every worktree of the clone is one machine.
type Sync struct {
	// Machine is this clone's component of its refs ("laptop-3f9a1c"),
	// chosen once.
	Machine string `json:"machine,omitempty"`
	// Announced is when the person was told that snapshots now go to the
	// remote (said once).
	Announced time.Time `json:"announced,omitzero"`
	Push      SyncRun   `json:"push,omitzero"`
	Fetch     SyncRun   `json:"fetch,omitzero"`
}

// SyncRun is one push or fetch: begun when Started is set, over when At
// is; one begun and never over was stopped (killed, or the machine went
// down).
type SyncRun struct {
	Started time.Time `json:"started,omitzero"`
	At      time.Time `json:"at,omitzero"` // when the last one ended
	OK      bool      `json:"ok,omitempty"`
	Remote  string    `json:"remote,omitempty"`
	Error   string    `json:"error,omitempty"`
	// Took is how long it took ("1.2s").
	Took string `json:"took,omitempty"`
}

// Unfinished reports a run begun after the last one ended and not over
// after limit: its process was killed.
func (r SyncRun) Unfinished(now time.Time, limit time.Duration) bool {
	return !r.Started.IsZero() && r.Started.After(r.At) && now.Sub(r.Started) > limit
}

func (s *State) syncPath() string { return s.commonPath("sync.json") }

// LoadSync returns the repository's sync state (zero when none, or
// outside a repository).
func (s *State) LoadSync() Sync {
	var st Sync
	path := s.syncPath()
	if path == "" {
		return st
	}
	b, err := safefile.Read(path, safefile.Options{Root: s.Common, MaxSize: maxSessionFile})
	if err == nil {
		_ = json.Unmarshal(b, &st) // a damaged file reads as none and is replaced
	}
	return st
}

// UpdateSync applies fn to the repository's sync state under the lock
// every worktree shares and writes it atomically.
func (s *State) UpdateSync(fn func(*Sync)) error {
	path := s.syncPath()
	if path == "" {
		return ErrNoRepository
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("sync state: %w", err)
	}
	err := safefile.Update(path, s.commonOptions(), func(old []byte) ([]byte, error) {
		var st Sync
		if len(old) > 0 {
			_ = json.Unmarshal(old, &st)
		}
		fn(&st)
		return json.MarshalIndent(&st, "", "  ")
	})
	if err != nil {
		return fmt.Errorf("sync state: %w", err)
	}
	return nil
}

// SyncLock is the path of the lock one push or fetch at a time holds, for
// the whole clone.
func (s *State) SyncLock(kind string) string {
	return filepath.Join(s.commonLockDir(), "sync-"+kind+".lock")
}

// Scratch is a private directory for temporary files of git's (a
// record's index), made on demand.
func (s *State) Scratch() (string, error) {
	d := filepath.Join(s.Dir, "scratch")
	if err := os.MkdirAll(d, 0o700); err != nil {
		return "", fmt.Errorf("local state: %w", err)
	}
	return d, nil
}
