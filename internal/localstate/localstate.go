// Package localstate keeps what continuity remembers about a worktree
// that is never committed: each agent session's state (its hook runs, the
// handoff it last wrote, its client process and transcript), where the
// transcript checkpoints go, the worktree's chosen ledger, recovery
// claims and the index of open sessions. It lives under the worktree's git
// directory, so it needs no .gitignore entry. What every worktree of the
// repository must see, the repository's sessions (RepoSession), lives under
// the common git directory, under a lock they share. Every file is read and
// written through internal/safefile, under its locks.
package localstate

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/continuity-md/continuity/internal/safefile"
)

// State is one worktree's local state, in the directory Dir, and what
// it shares with the repository's other worktrees, in Common.
type State struct {
	// Dir holds the worktree's state: <git dir>/continuity in a repository.
	Dir string
	// Common holds what every worktree of the repository sees (its
	// sessions): <common git dir>/continuity/shared; "" outside a
	// repository.
	Common string
	// redact returns its argument with every secret replaced: a session id
	// that holds one never names a file.
	redact   func(string) string
	lockOnce sync.Once
	locks    string // see LockDir

	commonOnce  sync.Once
	commonLocks string // see commonLockDir
}

// New returns the local state kept in dir, sharing common with the
// repository's other worktrees ("" for none). redact (nil: none beyond the
// built-in rules) is the repository's redaction, applied to the names of
// state files.
func New(dir, common string, redact func(string) string) *State {
	if redact == nil {
		redact = func(s string) string { return s }
	}
	return &State{Dir: dir, Common: common, redact: redact}
}

// LockDir is where locks and temporary files go, for local state and the
// repository's files alike: under local state (see lockDirAt).
func (s *State) LockDir() string {
	s.lockOnce.Do(func() { s.locks = lockDirAt(filepath.Join(s.Dir, "locks"), s.root()) })
	return s.locks
}

// lockDirAt is d when it can be made inside root and written; else (an agent's sandbox,
// such as Codex's workspace-write, mounts .git read-only while the work tree
// stays writable) a directory private to the user named after d, so that
// every process of the user in the same plight shares it. Writers that do
// not share a lock are still kept from losing each other's writes by
// safefile's check before it replaces a file.
func lockDirAt(d, root string) string {
	if err := mkdirIn(d, root); err == nil && safefile.Writable(d) {
		return d
	}
	sum := sha256.Sum256([]byte(d))
	dir := privateLockDir("locks-" + hex.EncodeToString(sum[:8]))
	fallbackLocks.Lock()
	fallbackLocks.dirs = append(fallbackLocks.dirs, dir)
	fallbackLocks.Unlock()
	return dir
}

// Options are the safefile options for files in local state.
func (s *State) Options() safefile.Options {
	return safefile.Options{LockDir: s.LockDir(), Root: s.root()}
}

// Root is the directory no file of this worktree's local state may
// resolve outside of (see root): for readers and writers given a
// directory of local state, as the transcript checkpoints are.
func (s *State) Root() string { return s.root() }

// root is the directory local state never leaves, through a symlink
// planted anywhere below it or otherwise: the git directory holding Dir in
// a repository (Dir's own name a symlink to elsewhere is refused too), and
// outside one the user's state directory (Dir is <it>/continuity/<name>).
func (s *State) root() string {
	if s.Common != "" {
		return filepath.Dir(s.Dir)
	}
	return filepath.Dir(filepath.Dir(s.Dir))
}

// commonRoot is root for Common: the common git directory
// (Common is <it>/continuity/shared).
func (s *State) commonRoot() string { return filepath.Dir(filepath.Dir(s.Common)) }

// Mkdir creates the local state directory dir (under Dir or Common) and
// its parents, refusing one that resolves out of its root.
func (s *State) Mkdir(dir string) error {
	root := s.root()
	if s.Common != "" && (dir == s.Common || strings.HasPrefix(dir, s.Common+string(filepath.Separator))) {
		root = s.commonRoot()
	}
	return mkdirIn(dir, root)
}

// mkdirIn creates dir inside root, and root itself when missing (a git
// directory always is there; $XDG_STATE_HOME may not be yet).
func mkdirIn(dir, root string) error {
	if _, err := os.Lstat(root); errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(root, 0o700); err != nil {
			return err
		}
	}
	return safefile.MkdirAll(dir, root, 0o700)
}

// TranscriptDir is where the transcript checkpoints are kept (see
// transcript.LoadCheckpoint).
func (s *State) TranscriptDir() string { return filepath.Join(s.Dir, "transcripts") }

// SessionsDir is where each agent session's state file is kept.
func (s *State) SessionsDir() string { return filepath.Join(s.Dir, "sessions") }

// Chosen is the ledger chosen for this worktree with `continuity use`, as
// recorded ("" when none); the caller checks the name.
func (s *State) Chosen() string {
	b, err := safefile.Read(filepath.Join(s.Dir, "active"), safefile.Options{Root: s.root(), MaxSize: 4 << 10})
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// Choose records name as this worktree's ledger; the caller checks the name.
func (s *State) Choose(name string) error {
	return s.write(filepath.Join(s.Dir, "active"), []byte(name+"\n"))
}

// recoveryMark is the file that says a recovery waits for a later hook.
func (s *State) recoveryMark() string { return filepath.Join(s.Dir, "recovery-pending") }

// RecoveryPending reports whether a session of this worktree waits for
// its recovery (one stat: the turn-end hook asks every turn).
func (s *State) RecoveryPending() bool {
	_, err := os.Stat(s.recoveryMark())
	return err == nil
}

// SetRecoveryPending records whether a recovery waits.
func (s *State) SetRecoveryPending(on bool) error {
	if !on {
		if err := os.Remove(s.recoveryMark()); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("local state: %w", err)
		}
		return nil
	}
	return s.write(s.recoveryMark(), []byte("see sessions/*.json, field pending\n"))
}

// write replaces the state file at path with data.
func (s *State) write(path string, data []byte) error {
	if err := s.Mkdir(filepath.Dir(path)); err != nil {
		return fmt.Errorf("local state: %w", err)
	}
	err := safefile.Update(path, s.Options(), func([]byte) ([]byte, error) { return data, nil })
	if err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("local state: %w", err)
	}
	return nil
}

// maxMemo bounds a memo read back.
const maxMemo = 4 << 10

// Memo returns the memo named slot (a cache of something the workspace
// would otherwise recompute) and when it was written, by the file
// system's clock.
func (s *State) Memo(slot string) ([]byte, time.Time, error) {
	path := filepath.Join(s.Dir, "memo", slot)
	b, err := safefile.Read(path, safefile.Options{Root: s.root(), MaxSize: maxMemo})
	if err != nil {
		return nil, time.Time{}, err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, time.Time{}, err
	}
	return b, fi.ModTime(), nil
}

// SetMemo writes the memo named slot, unsynced (it is a cache), as a new
// file: its modification time must be now, even when its content is what
// the memo already said. A slot is a plain file name.
func (s *State) SetMemo(slot string, content []byte) error {
	if slot == "" || filepath.Base(slot) != slot || strings.HasPrefix(slot, ".") {
		return fmt.Errorf("memo %q: not a plain name", slot)
	}
	path := filepath.Join(s.Dir, "memo", slot)
	if err := s.Mkdir(filepath.Dir(path)); err != nil {
		return err
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	opts := s.Options()
	opts.NoSync = true
	return safefile.Update(path, opts, func([]byte) ([]byte, error) { return content, nil })
}
