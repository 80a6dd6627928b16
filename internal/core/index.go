package core

// The session index: one redacted record per session of the repository,
// read from every served agent's own transcripts (sessions from before
// continuity was installed, sessions without hooks, subagents), kept in
// local state under the common git directory, never committed, and kept
// after the agent deletes the transcript.
//
// The store is plain files: one small JSON record per session in
// index/sessions, and the transcript engine's checkpoints in
// index/checkpoints. A record is a few kilobytes (the accumulator's
// bounded lists), so search reads them all at grep speed; no daemon, no
// second format. A record that does not parse, is of another version or
// names another session is not trusted: the session is read again.

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/continuity-md/continuity/handoff"
	"github.com/continuity-md/continuity/internal/agent"
	"github.com/continuity-md/continuity/internal/gitfacts"
	"github.com/continuity-md/continuity/internal/safefile"
	"github.com/continuity-md/continuity/internal/transcript"
	"github.com/continuity-md/continuity/internal/workspace"
)

// recordVersion changes when SessionRecord changes shape; a record of
// another version is rebuilt from its transcript.
const recordVersion = 1

// maxRecordBytes bounds a record read back: the accumulator's lists are
// bounded, so a larger file is not one of ours.
const maxRecordBytes = 4 << 20

// indexReadBudget bounds the time one transcript may take to read: a
// hostile or enormous file stops there, marked partial, and the next run
// goes on from its checkpoint.
const indexReadBudget = 20 * time.Second

// SessionRecord is what the index keeps of one session.
type SessionRecord struct {
	Version    int           `json:"version"`
	Agent      string        `json:"agent"`
	Session    string        `json:"session"`
	Transcript string        `json:"transcript"`
	Size       int64         `json:"size"`     // the transcript's size when last read
	Modified   time.Time     `json:"modified"` // its modification time then
	Indexed    time.Time     `json:"indexed"`
	Facts      handoff.Facts `json:"facts"`
}

// Gone reports whether the record's transcript is no longer there.
func (r *SessionRecord) Gone() bool {
	_, err := os.Lstat(r.Transcript)
	return errors.Is(err, os.ErrNotExist)
}

// IndexOptions say what Index reads.
type IndexOptions struct {
	Hosts    []agent.Served
	Getenv   func(string) string
	Now      time.Time
	Progress func(done, total int) // nil: none
}

// IndexResult is what one run of Index did.
type IndexResult struct {
	Found     int            `json:"found"`     // transcripts of the repository's sessions found
	Read      int            `json:"read"`      // read (new or grown)
	Unchanged int            `json:"unchanged"` // unchanged since the last run: not read
	Partial   int            `json:"partial"`   // stopped at the time budget
	PerAgent  map[string]int `json:"per_agent"` // sessions found per agent
	Kept      int            `json:"kept"`      // records in the index, including sessions whose transcript is gone
	Problems  []string       `json:"problems,omitempty"`
	Store     string         `json:"store"`
}

// IndexDir is where the session index of p's repository is kept.
func IndexDir(p *workspace.Workspace) (string, error) {
	if p.Local == nil || p.Local.Common == "" {
		return "", errors.New("the session index needs a git repository")
	}
	return filepath.Join(p.Local.Common, "index"), nil
}

// storeRoot is the directory no write of the index leaves: the common git
// directory, which exists (its continuity directory may not yet).
func storeRoot(p *workspace.Workspace) string {
	if p.Repo.CommonDir != "" {
		return p.Repo.CommonDir
	}
	return p.Local.Common
}

// Index reads the transcripts of every session the hosts keep for p's
// repository (every worktree) and updates their records: only what was
// appended since the last run is read.
func Index(p *workspace.Workspace, o IndexOptions) (IndexResult, error) {
	dir, err := IndexDir(p)
	if err != nil {
		return IndexResult{}, err
	}
	res := IndexResult{PerAgent: map[string]int{}, Store: dir}
	dirs := worktreeDirs(p)
	type job struct {
		h agent.Served
		f agent.Found
	}
	var jobs []job
	for _, h := range o.Hosts {
		if h.Sessions == nil {
			continue
		}
		for _, f := range h.Sessions(o.Getenv, dirs) {
			jobs = append(jobs, job{h, f})
			res.PerAgent[h.Name()]++
		}
	}
	res.Found = len(jobs)
	for i, j := range jobs {
		if o.Progress != nil {
			o.Progress(i, len(jobs))
		}
		read, partial, err := indexOne(p, dir, j.h, j.f, o.Now)
		switch {
		case err != nil:
			res.Problems = append(res.Problems, fmt.Sprintf("%s %s: %v", j.h.Name(), j.f.Session, err))
		case read:
			res.Read++
		default:
			res.Unchanged++
		}
		if partial {
			res.Partial++
		}
	}
	if o.Progress != nil {
		o.Progress(len(jobs), len(jobs))
	}
	res.Kept = len(SessionRecords(p))
	return res, nil
}

// IndexSession updates the record of one session, as a hook does at its
// end; a session whose host lists no sessions is left alone.
func IndexSession(p *workspace.Workspace, h agent.Served, session, path string, now time.Time) error {
	dir, err := IndexDir(p)
	if err != nil || h.Sessions == nil || path == "" {
		return err
	}
	_, _, err = indexOne(p, dir, h, agent.Found{Session: session, Path: path}, now)
	return err
}

// indexOne brings the record of session f up to date.
func indexOne(p *workspace.Workspace, dir string, h agent.Served, f agent.Found, now time.Time) (read, partial bool, err error) {
	fi, err := os.Stat(f.Path)
	if err != nil {
		return false, false, err
	}
	if !fi.Mode().IsRegular() {
		return false, false, errors.New("not a regular file")
	}
	name := recordName(h.Name(), f.Session)
	old := loadRecord(p, dir, name, h.Name(), f.Session)
	if old != nil && old.Size == fi.Size() && old.Modified.Equal(fi.ModTime()) {
		return false, false, nil
	}
	paths := []string{f.Path}
	if h.TranscriptFiles != nil {
		paths = h.TranscriptFiles(f.Path)
	}
	cps := filepath.Join(dir, "checkpoints")
	var cp *transcript.Checkpoint
	if old != nil {
		cp = transcript.LoadCheckpoint(cps, storeRoot(p), name)
	}
	red := p.Redact
	facts, next, err := transcript.ReadFrom(paths, h.NewDecoder(p.Root, red), cp, now.Add(indexReadBudget))
	if err != nil {
		return false, false, err
	}
	if facts.Records == 0 {
		return false, false, transcript.ErrNotTranscript
	}
	if facts.Task == "" && len(facts.Prompts) > 0 {
		facts.Task = facts.Prompts[len(facts.Prompts)-1]
	}
	facts.Task, facts.LastAssistant = red(facts.Task), red(facts.LastAssistant)
	for i := range facts.Prompts {
		facts.Prompts[i] = red(facts.Prompts[i])
	}
	rec := SessionRecord{Version: recordVersion, Agent: h.Name(), Session: f.Session, Transcript: f.Path,
		Size: fi.Size(), Modified: fi.ModTime(), Indexed: now, Facts: *facts}
	if facts.Partial {
		rec.Size = -1 // read on next time
	}
	data, err := json.Marshal(rec)
	if err != nil {
		return false, false, err
	}
	if err := transcript.SaveCheckpoint(cps, storeRoot(p), name, next); err != nil {
		return false, false, err
	}
	sessions := filepath.Join(dir, "sessions")
	if err := safefile.MkdirAll(sessions, storeRoot(p), 0o755); err != nil {
		return false, false, err
	}
	opts := safefile.Options{LockDir: sessions, Root: storeRoot(p), NoSync: true, MaxSize: maxRecordBytes}
	if err := safefile.Update(filepath.Join(sessions, name+".json"), opts, func([]byte) ([]byte, error) { return data, nil }); err != nil {
		return false, false, err
	}
	return true, facts.Partial, nil
}

// recordName is a session's file name in the store: the agent and the
// session id, or a hash of the id when it is not a plain name.
func recordName(agentName, session string) string {
	plain := session != "" && len(session) <= 100
	for _, c := range session {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			plain = false
		}
	}
	if !plain || strings.HasPrefix(session, ".") {
		sum := sha256.Sum256([]byte(session))
		session = hex.EncodeToString(sum[:12])
	}
	return agentName + "-" + session
}

// loadRecord reads the record of file name, nil when there is none or it
// is not one to trust (see the package comment above).
func loadRecord(p *workspace.Workspace, dir, name, agentName, session string) *SessionRecord {
	data, err := safefile.Read(filepath.Join(dir, "sessions", name+".json"), safefile.Options{Root: storeRoot(p), MaxSize: maxRecordBytes})
	if err != nil {
		return nil
	}
	var r SessionRecord
	if json.Unmarshal(data, &r) != nil || r.Version != recordVersion || r.Agent == "" || r.Session == "" {
		return nil
	}
	if agentName != "" && (r.Agent != agentName || r.Session != session) {
		return nil
	}
	return &r
}

// SessionRecords are every record in p's index, the most recent first.
func SessionRecords(p *workspace.Workspace) []SessionRecord {
	dir, err := IndexDir(p)
	if err != nil {
		return nil
	}
	ents, err := os.ReadDir(filepath.Join(dir, "sessions"))
	if err != nil {
		return nil
	}
	var recs []SessionRecord
	for _, e := range ents {
		name, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || !e.Type().IsRegular() {
			continue
		}
		if r := loadRecord(p, dir, name, "", ""); r != nil && recordName(r.Agent, r.Session) == name {
			recs = append(recs, *r)
		}
	}
	sort.SliceStable(recs, func(i, j int) bool { return recs[i].Modified.After(recs[j].Modified) })
	return recs
}

// FindSessionRecord is the record of the session whose id is id or starts
// with it (at least 6 characters), nil when none or more than one.
func FindSessionRecord(p *workspace.Workspace, id string) (*SessionRecord, error) {
	if len(id) < 6 {
		return nil, nil
	}
	var match []SessionRecord
	for _, r := range SessionRecords(p) {
		if r.Session == id {
			return &r, nil
		}
		if strings.HasPrefix(r.Session, id) {
			match = append(match, r)
		}
	}
	switch len(match) {
	case 0:
		return nil, nil
	case 1:
		return &match[0], nil
	}
	return nil, fmt.Errorf("session %q is ambiguous: %d indexed sessions start so", id, len(match))
}

// worktreeDirs are the directories of the repository's worktrees, this
// one first.
func worktreeDirs(p *workspace.Workspace) []string {
	dirs := []string{p.Root}
	if p.Repo.Root == "" {
		return dirs
	}
	out, err := gitfacts.Git{Repo: p.Repo, Timeout: 2 * time.Second}.Run(context.Background(), "worktree", "list", "--porcelain")
	if err != nil {
		return dirs
	}
	for _, line := range strings.Split(string(out), "\n") {
		if d, ok := strings.CutPrefix(line, "worktree "); ok && filepath.Clean(d) != filepath.Clean(p.Root) {
			dirs = append(dirs, filepath.FromSlash(d))
		}
	}
	return dirs
}
