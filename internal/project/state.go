package project

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/continuity-md/continuity/internal/gitfacts"
	"github.com/continuity-md/continuity/internal/proc"
	"github.com/continuity-md/continuity/internal/redact"
	"github.com/continuity-md/continuity/internal/safefile"
)

// EnvLedger names the environment variable that selects the active ledger
// (exported to the agent's shell through CLAUDE_ENV_FILE at SessionStart).
const EnvLedger = "CONTINUITY_LEDGER"

// ErrNoLedger reports that the project has no ledger to work on.
var ErrNoLedger = errors.New("no ledger yet")

// Active resolves the active ledger's name and says how it was chosen: the
// CONTINUITY_LEDGER variable, the worktree's `continuity use` choice, the
// ledger named after the current branch, or the most recently modified one.
func (p *Project) Active(getenv func(string) string) (name, why string, err error) {
	if getenv != nil {
		if v := strings.TrimSpace(getenv(EnvLedger)); v != "" {
			if err := CheckName(v); err != nil {
				return "", "", fmt.Errorf("%s: %w", EnvLedger, err)
			}
			return v, "set by " + EnvLedger, nil
		}
	}
	if b, err := os.ReadFile(filepath.Join(p.StateDir, "active")); err == nil {
		if v := strings.TrimSpace(string(b)); CheckName(v) == nil {
			return v, "chosen with continuity use", nil
		}
	}
	if p.Repo.Root != "" {
		if slug := gitfacts.Slug(gitfacts.Branch(p.Repo)); slug != "" {
			if path, err := p.LedgerPath(slug); err == nil {
				if _, err := os.Stat(path); err == nil {
					return slug, "named after the current branch", nil
				}
			}
		}
	}
	ls, err := p.Ledgers()
	if err != nil {
		return "", "", err
	}
	if len(ls) == 0 {
		return "", "", ErrNoLedger
	}
	return ls[0].Name, "the most recently modified ledger", nil
}

// SetActive records name as this worktree's active ledger.
func (p *Project) SetActive(name string) error {
	if err := CheckName(name); err != nil {
		return err
	}
	return p.writeState(filepath.Join(p.StateDir, "active"), []byte(name+"\n"))
}

// Run is the outcome of one hook run, kept for `continuity doctor`.
type Run struct {
	Event    string    `json:"event"`
	At       time.Time `json:"at"`
	OK       bool      `json:"ok"`
	Message  string    `json:"message,omitempty"`
	Duration string    `json:"duration,omitempty"`
}

// Session is what the hooks remember about one agent session.
type Session struct {
	ID          string    `json:"id"`
	Ledger      string    `json:"ledger,omitempty"`
	Handoff     string    `json:"handoff,omitempty"`      // last handoff written, relative to the root
	HandoffHash string    `json:"handoff_hash,omitempty"` // fingerprint of its content, to skip repeats
	Updated     time.Time `json:"updated"`
	Runs        []Run     `json:"runs,omitempty"` // most recent last, bounded
	// HandoffContent fingerprints what the last handoff said apart from its
	// time: an equal one is not written again.
	HandoffContent string `json:"handoff_content,omitempty"`

	// What the hooks saw of the session, for the recovery of one that dies
	// without an end event: the client process its hooks ran for (when it
	// could be identified), its transcript (when the host named one), the
	// last hook call, and whether an end event came.
	Agent  string         `json:"agent,omitempty"` // the host's name: claude, codex, gemini
	Client *proc.Identity `json:"client,omitempty"`
	// Candidate is a client found by its age alone, seen by one hook call:
	// it may be a slow wrapper that ended with that hook. It becomes the
	// Client once another call of the session finds it again.
	Candidate  *proc.Identity `json:"candidate,omitempty"`
	Transcript string         `json:"transcript,omitempty"`
	// TranscriptRoot is the host's transcript directory for the project
	// in the session's own environment, as its hooks found it: a recovery,
	// run from another session's environment, accepts a transcript under
	// it.
	TranscriptRoot string    `json:"transcript_root,omitempty"`
	Seen           time.Time `json:"seen,omitzero"`
	Ended          bool      `json:"ended,omitempty"`
	// Recovered says what a later session's recovery did for this one (the
	// handoff it wrote, or why none was needed): it is never recovered twice.
	Recovered string `json:"recovered,omitempty"`
	// Pending says why this session waits for its recovery: its transcript
	// was too large to read at the start that found it.
	Pending string `json:"pending,omitempty"`
	// Claimed is when a hook began recovering this session: two sessions
	// starting at once do not both write its handoff.
	Claimed time.Time `json:"claimed,omitzero"`
}

// recoveryMark is the file that says a recovery waits for a later hook.
func (p *Project) recoveryMark() string { return filepath.Join(p.StateDir, "recovery-pending") }

// RecoveryPending reports whether a session of this worktree waits for
// its recovery (one stat: the turn-end hook asks every turn).
func (p *Project) RecoveryPending() bool {
	_, err := os.Stat(p.recoveryMark())
	return err == nil
}

// SetRecoveryPending records whether a recovery waits.
func (p *Project) SetRecoveryPending(on bool) error {
	if !on {
		if err := os.Remove(p.recoveryMark()); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("local state: %w", err)
		}
		return nil
	}
	return p.writeState(p.recoveryMark(), []byte("see sessions/*.json, field pending\n"))
}

// sessionFile maps an agent session id to its state file; an id that is not
// a plain token is hashed so it can never name a path outside the state dir,
// and so is one that holds or looks like a credential (redact.SafeName), so
// that no secret reaches the disk as a file name.
func (p *Project) sessionFile(id string) string {
	key := id
	// A name that is not a plain token, or that looks like a secret (a
	// payload can carry anything), is never used as a file name.
	if !plainToken(id, 80, "_-", true) || redact.SafeName(id) != id || p.Redact(id) != id {
		sum := sha256.Sum256([]byte(id))
		key = "h-" + hex.EncodeToString(sum[:12])
	}
	return filepath.Join(p.StateDir, "sessions", key+".json")
}

// LoadSession returns the remembered state of agent session id (zero when none).
func (p *Project) LoadSession(id string) Session {
	s := Session{ID: id}
	b, err := os.ReadFile(p.sessionFile(id))
	if err != nil {
		return s
	}
	if json.Unmarshal(b, &s) != nil {
		return Session{ID: id}
	}
	return s
}

// UpdateSession applies fn to agent session id's state under the state lock.
func (p *Project) UpdateSession(id string, now time.Time, fn func(*Session)) error {
	path := p.sessionFile(id)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("local state: %w", err)
	}
	// Not synced: a session's state is a cache and a log, cheap to lose in
	// a crash, and SessionStart waits for this write.
	opts := p.StateOptions()
	opts.NoSync = true
	var was, is bool
	var markErr error
	err := safefile.Update(path, opts, func(old []byte) ([]byte, error) {
		s := Session{ID: id}
		if len(old) > 0 {
			_ = json.Unmarshal(old, &s) // a damaged state file is replaced, never fatal
		}
		was = len(old) > 0 && s.open()
		fn(&s)
		is = s.open()
		s.ID = id
		s.Updated = now.UTC()
		if len(s.Runs) > 20 {
			s.Runs = s.Runs[len(s.Runs)-20:]
		}
		if was != is {
			// Only when a session opens or closes, not a write per call;
			// under the lock, so that two updates mark in their order. A
			// mark made for a write that then fails is harmless (Unfinished
			// heals it).
			markErr = p.markOpen(path, is)
		}
		return marshalSession(&s), nil
	})
	if err != nil && was && !is {
		// The close was not written: the session is still open.
		_ = p.markOpen(path, true)
	}
	if err == nil {
		err = markErr
	}
	return err
}

// Sessions lists the remembered agent sessions, newest first.
func (p *Project) Sessions() []Session {
	ents, err := os.ReadDir(filepath.Join(p.StateDir, "sessions"))
	if err != nil {
		return nil
	}
	var out []Session
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(p.StateDir, "sessions", e.Name()))
		if err != nil {
			continue
		}
		var s Session
		if json.Unmarshal(b, &s) == nil {
			out = append(out, s)
		}
	}
	sortSessions(out)
	return out
}

// Unfinished lists the remembered agent sessions that are open: they named
// a transcript, saw no end event and were not recovered. What a session
// start looks through for one that died: it reads only these (an index of
// open sessions, kept by UpdateSession when a session opens or closes).
func (p *Project) Unfinished() []Session {
	ents, err := os.ReadDir(p.openDir())
	if err != nil {
		return nil
	}
	var out []Session
	for _, e := range ents {
		if e.Name() == markFile {
			continue
		}
		b, err := os.ReadFile(filepath.Join(p.StateDir, "sessions", e.Name()))
		var s Session
		// Without its runs, the part that costs most to decode: a start
		// reads these.
		var head struct {
			ID, Ledger, Agent, Transcript, Recovered, Pending string
			TranscriptRoot                                    string `json:"transcript_root"`
			Client                                            *proc.Identity
			Seen, Updated                                     time.Time
			Ended                                             bool
		}
		if err == nil && json.Unmarshal(b, &head) == nil {
			s = Session{ID: head.ID, Ledger: head.Ledger, Agent: head.Agent, Transcript: head.Transcript, Recovered: head.Recovered,
				Pending: head.Pending, Client: head.Client, Seen: head.Seen, Updated: head.Updated, Ended: head.Ended,
				TranscriptRoot: head.TranscriptRoot}
		}
		if err == nil && s.open() {
			out = append(out, s)
		} else if err == nil || errors.Is(err, fs.ErrNotExist) {
			p.unmarkClosed(e.Name()) // pruned or closed: the index heals
		}
	}
	sortSessions(out)
	return out
}

// open reports a session a later start may have to recover.
func (s *Session) open() bool { return s.Transcript != "" && !s.Ended && s.Recovered == "" }

func (p *Project) openDir() string { return filepath.Join(p.StateDir, "open") }

// markOpen keeps the index of open sessions: the state file at path is
// open or no longer. Only a mark's name counts, so every mark is a hard
// link to one empty file (markFile), not a file of its own: on ext4 a new
// inode on the path of every session start costs more than the rest of
// its write (the allocator passes over the inodes freed a moment ago).
// Where a link is refused (no hard links, too many), an empty file.
func (p *Project) markOpen(path string, open bool) error {
	mark := filepath.Join(p.openDir(), filepath.Base(path))
	if !open {
		if err := os.Remove(mark); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("local state: %w", err)
		}
		return nil
	}
	shared := filepath.Join(p.openDir(), markFile)
	err := os.Link(shared, mark)
	if errors.Is(err, fs.ErrNotExist) {
		if err = os.MkdirAll(p.openDir(), 0o700); err == nil {
			if err = os.WriteFile(shared, nil, 0o600); err == nil {
				err = os.Link(shared, mark)
			}
		}
	}
	if err == nil || errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err := os.WriteFile(mark, nil, 0o600); err != nil {
		return fmt.Errorf("local state: %w", err)
	}
	return nil
}

// markFile is the empty file the index's marks are links to; its name is
// no state file's (those end in .json).
const markFile = ".mark"

// unmarkClosed removes the index's mark of the state file name if the
// session is closed or gone, judged under the state lock: a session
// reopened at the same moment keeps the mark its update made.
func (p *Project) unmarkClosed(name string) {
	path := filepath.Join(p.StateDir, "sessions", name)
	opts := p.StateOptions()
	opts.NoSync = true // the lock every UpdateSession takes
	mark := filepath.Join(p.openDir(), name)
	err := safefile.Update(path, opts, func(old []byte) ([]byte, error) {
		var s Session
		if len(old) == 0 || json.Unmarshal(old, &s) != nil || !s.open() {
			_ = os.Remove(mark)
		}
		return nil, safefile.ErrNoChange
	})
	if _, serr := os.Stat(filepath.Dir(path)); err != nil && errors.Is(serr, fs.ErrNotExist) {
		_ = os.Remove(mark) // no sessions at all: none to reopen
	}
}

func sortSessions(s []Session) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j].Updated.After(s[j-1].Updated); j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

func (p *Project) writeState(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("local state: %w", err)
	}
	err := safefile.Update(path, p.StateOptions(), func([]byte) ([]byte, error) { return data, nil })
	if err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("local state: %w", err)
	}
	return nil
}
