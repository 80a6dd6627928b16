package localstate

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

	"github.com/continuity-md/continuity/internal/redact"
	"github.com/continuity-md/continuity/internal/safefile"
)

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
	Agent  string   `json:"agent,omitempty"` // the host's name: claude, codex, gemini
	Client *Process `json:"client,omitempty"`
	// Candidate is a client found by its age alone, seen by one hook call:
	// it may be a slow wrapper that ended with that hook. It becomes the
	// Client once another call of the session finds it again.
	Candidate  *Process `json:"candidate,omitempty"`
	Transcript string   `json:"transcript,omitempty"`
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

// sessionFile maps an agent session id to its state file. An id that may
// not name a file (redact.SafeName: not a UUID or a short plain name, or
// one that looks like a credential), or that the repository's own
// redaction rules change, is named by its digest: a payload can carry
// anything, and neither a path nor a secret reaches the disk as a name.
func (st *State) sessionFile(id string) string {
	return filepath.Join(st.SessionsDir(), st.fileKey(id)+".json")
}

// fileKey is the name agent session id's files go by.
func (st *State) fileKey(id string) string {
	if redact.SafeName(id) != id || st.redact(id) != id {
		sum := sha256.Sum256([]byte(id))
		return "h-" + hex.EncodeToString(sum[:12])
	}
	return id
}

// maxSessionFile bounds a session's state file read back.
const maxSessionFile = 1 << 20

// readSession reads a session's state file through the one reader.
func (st *State) readSession(path string) ([]byte, error) {
	return safefile.Read(path, safefile.Options{Root: st.root(), MaxSize: maxSessionFile})
}

// LoadSession returns the remembered state of agent session id (zero when none).
func (st *State) LoadSession(id string) Session {
	s := Session{ID: id}
	b, err := st.readSession(st.sessionFile(id))
	if err != nil {
		return s
	}
	if json.Unmarshal(b, &s) != nil {
		return Session{ID: id}
	}
	return s
}

// UpdateSession applies fn to agent session id's state under the state lock.
func (st *State) UpdateSession(id string, now time.Time, fn func(*Session)) error {
	path := st.sessionFile(id)
	if err := st.Mkdir(filepath.Dir(path)); err != nil {
		return fmt.Errorf("local state: %w", err)
	}
	// Not synced: a session's state is a cache and a log, cheap to lose in
	// a crash, and SessionStart waits for this write.
	opts := st.Options()
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
			markErr = st.markOpen(path, is)
		}
		return json.MarshalIndent(&s, "", "  ")
	})
	if err != nil && was && !is {
		// The close was not written: the session is still open.
		_ = st.markOpen(path, true)
	}
	if err == nil {
		err = markErr
	}
	return err
}

// Sessions lists the remembered agent sessions, newest first.
func (st *State) Sessions() []Session {
	ents, err := os.ReadDir(st.SessionsDir())
	if err != nil {
		return nil
	}
	var out []Session
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		b, err := st.readSession(filepath.Join(st.SessionsDir(), e.Name()))
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
func (st *State) Unfinished() []Session {
	ents, err := os.ReadDir(st.openDir())
	if err != nil {
		return nil
	}
	var out []Session
	for _, e := range ents {
		if e.Name() == markFile {
			continue
		}
		b, err := st.readSession(filepath.Join(st.SessionsDir(), e.Name()))
		var s Session
		if err == nil && json.Unmarshal(b, &s) != nil {
			s = Session{} // damaged: closed, so the index heals
		}
		if err == nil && s.open() {
			out = append(out, s)
		} else if err == nil || errors.Is(err, fs.ErrNotExist) {
			st.unmarkClosed(e.Name()) // pruned or closed: the index heals
		}
	}
	sortSessions(out)
	return out
}

// open reports a session a later start may have to recover.
func (s *Session) open() bool { return s.Transcript != "" && !s.Ended && s.Recovered == "" }

func (st *State) openDir() string { return filepath.Join(st.Dir, "open") }

// markOpen keeps the index of open sessions: the state file at path is
// open or no longer. Only a mark's name counts, so every mark is a hard
// link to one empty file (markFile), not a file of its own: on ext4 a new
// inode on the path of every session start costs more than the rest of
// its write (the allocator passes over the inodes freed a moment ago).
// Where a link is refused (no hard links, too many), an empty file.
func (st *State) markOpen(path string, open bool) error {
	mark := filepath.Join(st.openDir(), filepath.Base(path))
	if !open {
		if err := os.Remove(mark); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("local state: %w", err)
		}
		return nil
	}
	shared := filepath.Join(st.openDir(), markFile)
	opts := st.Options()
	opts.NoSync = true
	err := safefile.Link(shared, mark, opts)
	if errors.Is(err, fs.ErrNotExist) {
		if err = st.Mkdir(st.openDir()); err == nil {
			if err = safefile.Create(shared, nil, opts); err == nil || errors.Is(err, fs.ErrExist) {
				err = safefile.Link(shared, mark, opts)
			}
		}
	}
	if err == nil || errors.Is(err, fs.ErrExist) {
		return nil
	}
	if errors.Is(err, safefile.ErrOutsideRoot) || errors.Is(err, safefile.ErrNotRegular) {
		return fmt.Errorf("local state: %w", err)
	}
	if err := safefile.Create(mark, nil, opts); err != nil && !errors.Is(err, fs.ErrExist) {
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
func (st *State) unmarkClosed(name string) {
	path := filepath.Join(st.SessionsDir(), name)
	opts := st.Options()
	opts.NoSync = true // the lock every UpdateSession takes
	mark := filepath.Join(st.openDir(), name)
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
