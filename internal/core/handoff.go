package core

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/continuity-md/continuity/handoff"
	"github.com/continuity-md/continuity/internal/compat"
	"github.com/continuity-md/continuity/internal/gitfacts"
	"github.com/continuity-md/continuity/internal/localstate"
	"github.com/continuity-md/continuity/internal/safefile"
	"github.com/continuity-md/continuity/internal/transcript"
	"github.com/continuity-md/continuity/internal/workspace"
	"github.com/continuity-md/continuity/ledger"
)

// Request says what a handoff is written for.
type Request struct {
	Name         string // the work stream
	Event        string // pre-compact, session-end, manual
	Trigger      string
	Reason       string
	AgentSession string // "" for none (a handoff written by hand)
	Transcript   string // path; "" for none
	SkipIfSame   bool   // session end: nothing new since the session's last handoff, nothing written
	// Recovered, for a handoff recovered for a session that ended without
	// one, says why it is over: the summary opens with it.
	Recovered string
	// Named says a person named the transcript (on the command line): it
	// is read whole, without the hook's deadline, and a file that is not a
	// transcript of the host is refused with nothing written.
	Named bool
}

// Written is what WriteHandoff did.
type Written struct {
	Path    string   // relative to the root; "" when nothing was written
	Message string   // one line saying what happened
	Read    string   // what the transcript held, in a few words ("" when none was read)
	Files   []string // the files the session touched, relative to the root, first touch first
	// Warnings are what went wrong short of failing (an unread transcript,
	// a ledger left as it was): the handoff at Path was written all the same.
	Warnings []string
	// record is what the session's local state learns (nil: nothing).
	record func(*localstate.Session)
}

// Warning is the warnings as one error, nil when there are none.
func (w Written) Warning() error {
	if len(w.Warnings) == 0 {
		return nil
	}
	if w.Path == "" {
		return errors.New(strings.Join(w.Warnings, "; "))
	}
	return fmt.Errorf("wrote %s, but: %s", w.Path, strings.Join(w.Warnings, "; "))
}

// gitBudget bounds the git calls of a handoff: a slow or locked
// repository never holds a hook.
const gitBudget = 400 * time.Millisecond

// WriteHandoff writes a handoff for one work stream: the transcript's
// facts, git's, the ledger's, redacted, rendered, written under a name of
// its own; then the ledger learns the session's files and local state the
// handoff. A handoff equal to the session's previous one apart from its
// time and name is not written again. A handoff written with problems
// (an unread transcript, a ledger left as it was) returns its path and the
// problems as Warnings, with no error: the error says nothing was written.
func WriteHandoff(p *workspace.Workspace, e Env, r Request) (Written, error) {
	w, err := writeHandoff(p, e, r)
	if err == nil && w.record != nil && r.AgentSession != "" {
		if err := p.Local.UpdateSession(r.AgentSession, e.Now, w.record); err != nil {
			w.Warnings = append(w.Warnings, "local state: "+err.Error())
		}
	}
	return w, err
}

// writeHandoff is WriteHandoff but for local state: what the session's
// state learns is returned (Written.record), for the hook to write in its
// one update of the call.
func writeHandoff(p *workspace.Workspace, e Env, r Request) (Written, error) {
	facts, fw, err := readFacts(p, e, r) // fw: what went wrong short of failing
	if err != nil {
		return Written{}, err
	}
	warn := fw.lines
	read := readLine(facts)
	work, talk := activityHash(facts), talkHash(facts)
	if r.SkipIfSame && idle(facts) && !fw.refused {
		return Written{Read: read, Message: "nothing happened in this session; no handoff", Files: facts.Files}, nil
	}
	if r.Event == "session-end" && r.Transcript != "" && len(fw.lines) == 0 && !substantial(facts) {
		// Local state still remembers the session ran, on which stream.
		return Written{Read: read, Message: "nothing of substance in this session (no edit, no command beyond looking, no plan); no handoff", Files: facts.Files,
			record: func(s *localstate.Session) {
				if s.Ledger == "" {
					s.Ledger = r.Name
				}
			}}, nil
	}
	var prev localstate.Session
	// The same work and talk as the session's previous handoff: nothing
	// new at its end. The same work, only the talk new, moments after the
	// session's uncommitted previous end: the new handoff takes its place
	// (a compaction's or a recovery's handoff stays: each is a moment of
	// its own).
	replace := ""
	if r.AgentSession != "" {
		prev = p.Local.LoadSession(r.AgentSession)
		prevWork, prevTalk, _ := strings.Cut(prev.HandoffHash, ".")
		if prev.Handoff != "" && prevWork == work {
			switch {
			case r.SkipIfSame && prevTalk == talk:
				return Written{Read: read, Message: "nothing new since " + prev.Handoff}, nil
			case replaceable(p, prev.Handoff, e.Now):
				replace = prev.Handoff
			}
		}
	}
	l, _, lerr := LoadLedger(p, r.Name)
	if lerr != nil {
		warn = append(warn, firstLine(lerr))
	}
	meta := newMeta(r, e, facts)
	dirty, commits := gitMeta(p, &meta, facts.Started, gitBudget)
	sessionFiles := facts.Files
	h := build(p, r.Name, meta, facts, dirty, commits, l)
	if r.Recovered != "" {
		h.Summary = recoveredSummary(r.Recovered, facts, h.Summary)
	}
	if facts.Partial {
		h.Summary = strings.TrimSpace(fmt.Sprintf("(This handoff was written from the first %s of the transcript: the hook ran out of time. The next one goes on from there.)\n\n%s", sizeText(facts.Bytes), h.Summary))
	}
	if prevPath, err := p.LatestHandoff(r.Name, e.Now); err == nil {
		markDecisions(p, prevPath, h)
	}
	keepSections(h, p.Config.Handoff.Sections)
	h.Redact(p.Redact)
	content := contentHash(h)
	if r.AgentSession != "" && prev.Handoff != "" && prev.HandoffContent == content {
		return Written{Read: read, Message: "nothing new since " + prev.Handoff, Files: sessionFiles}, nil
	}
	body, problem, err := render(p, h)
	if err != nil {
		return Written{}, err
	}
	if problem != "" {
		warn = append(warn, problem)
	}
	path, err := write(p, r, meta.Created, body)
	if err != nil {
		return Written{}, err
	}
	if replace != "" {
		path = replaceWith(p, replace, path, &warn)
	}
	rel := p.Rel(path)
	if l != nil {
		if err := updateLedgerFiles(p, r.Name, sessionFiles, e.Now); err != nil {
			warn = append(warn, "ledger files not updated: "+firstLine(err))
		}
	}
	w := Written{Path: rel, Message: "wrote " + rel, Read: read, Files: sessionFiles, Warnings: warn,
		record: func(s *localstate.Session) {
			s.Ledger, s.Handoff, s.HandoffHash, s.HandoffContent = r.Name, rel, work+"."+talk, content
		}}
	if replace != "" {
		w.Message += " (in place of " + replace + ", which said the same but for the summary)"
	}
	return w, nil
}

// readFacts reads what the host's transcript says (nothing when the
// request names none). A hook reads only what was appended since its
// session's last hook (a checkpoint in local state) and stops at a deadline
// inside the host's budget; a transcript that cannot be read is then a
// warning, not a failure. A transcript a person named is read whole, and
// one that cannot be read or is not a transcript is an error.
func readFacts(p *workspace.Workspace, e Env, r Request) (*handoff.Facts, readWarnings, error) {
	if r.Transcript == "" {
		return &handoff.Facts{}, readWarnings{}, nil
	}
	fail := func(err error) (*handoff.Facts, readWarnings, error) {
		if r.Named {
			return nil, readWarnings{}, fmt.Errorf("transcript %s: %w", r.Transcript, err)
		}
		return &handoff.Facts{}, readWarnings{lines: []string{fmt.Sprintf("transcript not read (%v)", err)}, refused: isRefusal(err)}, nil
	}
	// Never a device, a FIFO or a /proc file, whatever a payload says (one
	// could hold the hook forever), and for a hook only the host's own.
	files, err := transcriptFiles(p, e, r.Transcript, r.Named)
	if err != nil {
		return fail(err)
	}
	d := newDecoder(p, e)
	var cp *transcript.Checkpoint
	var deadline time.Time
	stateDir := p.Local.TranscriptDir()
	if !r.Named {
		if r.AgentSession != "" {
			cp = transcript.LoadCheckpoint(stateDir, p.Local.Root(), r.AgentSession)
		}
		if b := e.Host.Limits().EndBudget; b > 0 {
			deadline = time.Now().Add(b * 6 / 10)
		}
	}
	facts, next, err := transcript.ReadFrom(files, d, cp, deadline)
	if err != nil {
		return fail(err)
	}
	if err := transcript.Recognised(facts); err != nil {
		return fail(err)
	}
	if r.Named && facts.Bytes == 0 {
		return fail(fmt.Errorf("%w (an empty file)", transcript.ErrNotTranscript))
	}
	var warn readWarnings
	if !r.Named && r.AgentSession != "" && next != nil {
		if err := transcript.SaveCheckpoint(stateDir, p.Local.Root(), r.AgentSession, next); err != nil {
			warn.lines = append(warn.lines, "transcript checkpoint not kept: "+firstLine(err))
		}
	}
	if facts.Partial {
		warn.lines = append(warn.lines, "the transcript was read only in part before the deadline; the next hook goes on from there")
	}
	return facts, warn, nil
}

// newDecoder is the host's decoder for the project: paths relative to its
// root, texts redacted, its own check commands recognised.
func newDecoder(p *workspace.Workspace, e Env) transcript.Decoder {
	d := e.Host.NewDecoder(p.Root, p.Redact)
	if cp, ok := d.(transcript.CheckPatterns); ok && len(p.Config.Handoff.Checks) > 0 {
		cp.SetCheckPatterns(checkPatterns(p.Config.Handoff.Checks))
	}
	return d
}

// checkPatterns compiles a project's own check commands (the config
// checked them: one that does not compile is passed over).
func checkPatterns(res []string) []*regexp.Regexp {
	var out []*regexp.Regexp
	for _, s := range res {
		if re, err := regexp.Compile(s); err == nil {
			out = append(out, re)
		}
	}
	return out
}

// TurnBudget bounds the reading of a turn-end checkpoint: the host waits
// for the hook before the next turn, and what is left is read by the next
// one.
const TurnBudget = 2 * time.Second

// Checkpoint reads what agent session id appended to its transcript since
// its last hook and keeps, in local state, where the reading stopped and
// what the transcript held so far (redacted): the turn-end hook, so that a
// later handoff (or the recovery of a session that died) reads only what is
// new. No committed file is written. moved is false when nothing was
// appended, and then nothing is written at all.
func Checkpoint(p *workspace.Workspace, e Env, id, path string) (msg string, moved bool, err error) {
	msg, _, moved, err = checkpoint(p, e, id, path)
	return msg, moved, err
}

// checkpoint is Checkpoint, also returning the files the session touched
// so far (relative to the root) when it read something new.
func checkpoint(p *workspace.Workspace, e Env, id, path string) (msg string, files []string, moved bool, err error) {
	stateDir := p.Local.TranscriptDir()
	cp := transcript.LoadCheckpoint(stateDir, p.Local.Root(), id)
	tfiles, err := transcriptFiles(p, e, path, false)
	if err != nil {
		return "", nil, false, fmt.Errorf("transcript not read (%v)", err)
	}
	deadline := time.Now().Add(TurnBudget)
	if b := e.Host.Limits().EndBudget; b > 0 && b*6/10 < TurnBudget {
		deadline = time.Now().Add(b * 6 / 10)
	}
	if cp != nil && readToEnd(cp, tfiles) {
		return "", nil, false, nil // the common turn end of a session that did nothing: no state decoded
	}
	before := int64(0)
	if cp != nil {
		for _, m := range cp.Files {
			before += m.Offset
		}
	}
	facts, next, err := transcript.ReadFrom(tfiles, newDecoder(p, e), cp, deadline)
	if err != nil {
		return "", nil, false, err
	}
	after := int64(0)
	for _, m := range next.Files {
		after += m.Offset
	}
	if cp != nil && after == before {
		return "", nil, false, nil
	}
	if err := transcript.SaveCheckpoint(stateDir, p.Local.Root(), id, next); err != nil {
		return "", facts.Files, true, err
	}
	return fmt.Sprintf("checkpoint at %s: %d files, %d commands, %d errors so far", sizeText(after), len(facts.Files), len(facts.Commands), len(facts.Errors)), facts.Files, true, nil
}

// readLine says in a few words what a transcript held ("" for none read).
func readLine(f *handoff.Facts) string {
	if f.Lines == 0 && f.Bytes == 0 {
		return ""
	}
	return fmt.Sprintf("%d lines (%s), %d records understood: %d files, %d commands, %d errors, %d prompts",
		f.Lines, sizeText(f.Bytes), f.Records, len(f.Files), len(f.Commands), len(f.Errors), len(f.Prompts))
}

// sizeText is n bytes for people.
func sizeText(n int64) string {
	switch {
	case n >= 10<<20:
		return fmt.Sprintf("%d MB", n>>20)
	case n >= 10<<10:
		return fmt.Sprintf("%d KB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// newMeta is a handoff's front matter before git's facts: the request's,
// the writing agent and what the transcript says of the model and context.
func newMeta(r Request, e Env, f *handoff.Facts) handoff.Meta {
	return handoff.Meta{Stream: r.Name, Created: e.Now.UTC(), Event: r.Event, Trigger: r.Trigger, Reason: r.Reason,
		AgentSession: r.AgentSession, Agent: e.Host.Name(), Model: f.Model, Tokens: f.Tokens, Version: e.Version}
}

// gitMeta fills a handoff's git facts, bounded in time, and returns the
// uncommitted paths and the commits made on the branch since the session
// started (started: the transcript's first timestamp; none when "").
func gitMeta(p *workspace.Workspace, m *handoff.Meta, started string, budget time.Duration) ([]string, []handoff.Commit) {
	if p.Repo.Root == "" {
		return nil, nil
	}
	m.Branch = gitfacts.Branch(p.Repo)
	m.Commit = gitfacts.Commit(p.Repo)
	ctx, cancel := context.WithTimeout(context.Background(), budget)
	defer cancel()
	m.Author = gitfacts.Author(ctx, p.Repo)
	files, err := gitfacts.Status(ctx, p.Repo)
	if err == nil {
		m.Dirty = len(files)
	}
	var commits []handoff.Commit
	if t, err := time.Parse(time.RFC3339, started); err == nil && m.Commit != "" {
		log, _ := gitfacts.Log(ctx, p.Repo, t)
		for _, c := range log {
			commits = append(commits, handoff.Commit{Hash: c.Hash, Subject: c.Subject})
		}
	}
	return files, commits
}

// build assembles the handoff: the files the session touched, and apart
// from them what is uncommitted in the work tree (continuity's own files
// left out); the commits the session's commands reported and those git
// shows on the branch since the session started.
func build(p *workspace.Workspace, name string, meta handoff.Meta, f *handoff.Facts, dirty []string, commits []handoff.Commit, l *ledger.Ledger) *handoff.Handoff {
	h := handoff.Build(meta, f, l)
	h.Uncommitted = notOurs(p, dirty)
	h.Commits = mergeCommits(h.Commits, commits)
	lpath, _ := p.LedgerPath(name)
	h.LedgerPath = p.Rel(lpath)
	return h
}

// mergeCommits joins the commits a transcript reported with git's, oldest
// first, each once (an abbreviated hash matches its longer form).
func mergeCommits(seen, fromGit []handoff.Commit) []handoff.Commit {
	out := append([]handoff.Commit(nil), fromGit...)
	for _, c := range seen {
		dup := slices.ContainsFunc(out, func(o handoff.Commit) bool {
			return strings.HasPrefix(o.Hash, c.Hash) || strings.HasPrefix(c.Hash, o.Hash)
		})
		if !dup {
			out = append(out, c)
		}
	}
	return out
}

// activityHash fingerprints the work a transcript says was done (not the
// conversation about it: see talkHash), to tell whether any work is new
// since the last handoff.
func activityHash(f *handoff.Facts) string {
	b, _ := json.Marshal(struct {
		Files, Outside, Commands, Errors []string
		Tasks                            []handoff.Task
		Checks                           []handoff.Check
		Commits                          []handoff.Commit
	}{f.Files, f.Outside, f.Commands, f.Errors, f.Plan, f.Checks, f.Commits})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:12])
}

// contentHash fingerprints what a handoff says apart from its time (and
// its name, which is not in it) and the marks of what is new since the
// one before.
func contentHash(h *handoff.Handoff) string {
	c := *h
	c.Created = time.Time{}
	c.NewDecisions = nil
	b, _ := json.Marshal(c)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:12])
}

// talkHash fingerprints the conversation: the prompts and the last reply.
func talkHash(f *handoff.Facts) string {
	b, _ := json.Marshal(struct {
		Prompts []string
		Last    string
	}{f.Prompts, f.LastAssistant})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:12])
}

// idle reports a transcript with no sign of anything: no prompt, no reply,
// no tool use (the empty session that follows a cleared one ends like this).
func idle(f *handoff.Facts) bool {
	return !substantial(f) && len(f.Prompts) == 0 && f.LastAssistant == ""
}

// substantial reports a transcript with work in it: a file written, a
// command beyond looking, a failed call, a plan, a commit, a check. A
// chat-only session (prompts and replies), or one that only looked at
// files, has none: its handoff would only push the one that says where the
// work stands out of sight.
func substantial(f *handoff.Facts) bool {
	return len(f.Files) > 0 || len(f.Outside) > 0 || len(f.Commands) > 0 || len(f.Errors) > 0 || f.Worked()
}

// replaceWith puts the handoff just written at path in the place of the
// session's previous one (old, relative to the root) and returns where it
// now is: under old's name when path only took a "~N" name because old
// held its own, else under its own, old removed. The new file is written
// before the old one goes: nothing is lost when either step fails.
func replaceWith(p *workspace.Workspace, old, path string, warn *[]string) string {
	oldPath := filepath.Join(p.Root, filepath.FromSlash(old))
	if strings.HasPrefix(filepath.Base(path), strings.TrimSuffix(filepath.Base(oldPath), ".md")+"~") {
		if err := os.Rename(path, oldPath); err != nil {
			*warn = append(*warn, "the session's previous handoff was kept: "+firstLine(err))
			return path
		}
		return oldPath
	}
	if err := os.Remove(oldPath); err != nil && !errors.Is(err, fs.ErrNotExist) {
		*warn = append(*warn, "the session's previous handoff was kept: "+firstLine(err))
	}
	return path
}

// replaceWindow is how recent a session's previous handoff must be for a
// new one that says the same but for its summary to take its place.
const replaceWindow = 10 * time.Minute

// replaceable reports whether the handoff at rel (the session's previous
// one) may give way to a new one: a session's end (not a compaction's nor
// a recovery's), written (by its name) within replaceWindow, and never
// committed (git does not track it; without git nothing is committed).
func replaceable(p *workspace.Workspace, rel string, now time.Time) bool {
	base := path.Base(rel)
	if strings.Contains(base, "_pre-compact_") || strings.Contains(base, "_recovered_") {
		return false
	}
	written, _, named := handoff.NameTime(base)
	if !named || now.Sub(written) > replaceWindow || written.Sub(now) > replaceWindow {
		return false
	}
	if fi, err := os.Lstat(filepath.Join(p.Root, filepath.FromSlash(rel))); err != nil || !fi.Mode().IsRegular() {
		return false
	}
	if p.Repo.Root == "" {
		return true
	}
	ctx, cancel := context.WithTimeout(context.Background(), gitBudget)
	defer cancel()
	tracked, err := gitfacts.Tracked(ctx, p.Repo, rel)
	return err == nil && !tracked
}

// markDecisions marks the handoff's decisions that the previous handoff of
// the stream (at prevPath) did not list, by whole line: "RS256" is new
// after "RS256, not HS256". A decision whose reason or date changed is
// marked too. Without a readable previous handoff nothing is marked.
func markDecisions(p *workspace.Workspace, prevPath string, h *handoff.Handoff) {
	src, err := safefile.Read(prevPath, p.WriteOptions())
	if err != nil {
		return
	}
	prev, err := handoff.Parse(src)
	if err != nil {
		return
	}
	listed := map[string]bool{}
	for _, line := range strings.Split(prev.Sections["Decisions"], "\n") {
		line = strings.TrimSuffix(strings.TrimSpace(line), handoff.NewMark)
		listed[line] = true
	}
	h.NewDecisions = nil
	for _, d := range h.Decisions {
		if !listed[handoff.DecisionLine(d)] {
			h.NewDecisions = append(h.NewDecisions, d.Decision)
		}
	}
}

// keepSections empties the sections of h that the configuration leaves out
// (none when keep is empty).
func keepSections(h *handoff.Handoff, keep []string) {
	if len(keep) == 0 {
		return
	}
	on := map[string]bool{}
	for _, k := range keep {
		on[k] = true
	}
	for key, drop := range map[string]func(){
		"summary": func() { h.Summary = "" }, "goal": func() { h.Goal = "" }, "now": func() { h.Now = "" },
		"done": func() { h.Done = nil }, "next": func() { h.Next = nil }, "decisions": func() { h.Decisions, h.NewDecisions = nil, nil },
		"files": func() { h.Files, h.Outside = nil, nil }, "commands": func() { h.Commands = nil }, "errors": func() { h.Errors = nil },
		"state":    func() { h.State = handoff.State{} },
		"requests": func() { h.Prompts = nil },
	} {
		if !on[key] {
			drop()
		}
	}
}

// notOurs drops continuity's own directories (and their parents, which git
// reports when they are untracked) from a list of repository paths.
func notOurs(p *workspace.Workspace, paths []string) []string {
	own := []string{p.Rel(p.LedgerDir) + "/", p.Rel(p.HandoffDir) + "/"}
	var out []string
	for _, f := range paths {
		mine := f == workspace.ConfigFile
		for _, d := range own {
			if strings.HasPrefix(f, d) || (strings.HasSuffix(f, "/") && strings.HasPrefix(d, f)) {
				mine = true
			}
		}
		if !mine {
			out = append(out, f)
		}
	}
	return out
}

// render renders a redacted handoff within the project's size bound, and
// redacts the whole file again: a project's template may print more. A
// project template that cannot be used (not a tracked file, broken, too
// slow, printing too much) gives way to the built-in one; problem says why.
func render(p *workspace.Workspace, h *handoff.Handoff) (body []byte, problem string, err error) {
	tmpl, terr := p.HandoffTemplate()
	if terr != nil {
		problem = terr.Error() + "; the built-in template was used"
	}
	body, rproblem, err := handoff.RenderProject(h, tmpl, p.Config.Handoff.MaxBytes, handoff.TemplateTimeout)
	if err != nil {
		return nil, problem, err
	}
	if problem == "" {
		problem = rproblem
	}
	return []byte(p.Redact(string(body))), problem, nil
}

// write creates the handoff file, never over another: a name taken in the
// same second gets "~2", "~3", … (only the file name changes, and enough
// tries that a burst of hooks never loses a handoff).
func write(p *workspace.Workspace, r Request, created time.Time, body []byte) (string, error) {
	dir, err := p.StreamHandoffDir(r.Name)
	if err != nil {
		return "", err
	}
	if err := p.MkdirAll(dir); err != nil {
		return "", err
	}
	id := r.AgentSession
	if id == "" {
		// No session (a handoff written by hand): a random id, so two
		// people's handoffs of the same second never share a name.
		var b [4]byte
		_, _ = rand.Read(b[:])
		id = hex.EncodeToString(b[:])
	}
	base := handoff.FileName(created, r.Event, id)
	path := filepath.Join(dir, base)
	for i := 2; ; i++ {
		err = safefile.Create(path, body, p.WriteOptions())
		if !errors.Is(err, fs.ErrExist) || i > 999 {
			break
		}
		path = filepath.Join(dir, fmt.Sprintf("%s~%d.md", strings.TrimSuffix(base, ".md"), i))
	}
	return path, err
}

// updateLedgerFiles adds the files a session touched (inside the
// repository) that the ledger's files list lacks, and then refreshes
// updated; with none new the ledger is left as it was.
func updateLedgerFiles(p *workspace.Workspace, name string, files []string, now time.Time) error {
	var rel []string
	for _, f := range notOurs(p, files) {
		if !filepath.IsAbs(f) && !strings.HasPrefix(f, "../") && !strings.HasSuffix(f, "/") {
			rel = append(rel, p.Redact(f))
		}
	}
	path, err := p.LedgerPath(name)
	if err != nil {
		return err
	}
	return safefile.Update(path, p.WriteOptions(), func(old []byte) ([]byte, error) {
		if old == nil {
			return nil, safefile.ErrNoChange
		}
		// Only a new file changes the ledger: updated never moves alone.
		if l, err := ledger.Parse(p.Rel(path), old); err == nil {
			rel = slices.DeleteFunc(rel, func(f string) bool { return slices.Contains(l.Files, f) })
		}
		if len(rel) == 0 {
			return nil, safefile.ErrNoChange
		}
		out, err := ledger.Apply(old, now, ledger.Append(ledger.KeyFiles, rel...))
		if err != nil {
			if _, perr := compat.ParseLedger(p.Rel(path), old); perr != nil {
				return nil, perr
			}
		}
		return out, err
	})
}

// AddSummary adds a compaction summary (as the host sends it) to the
// handoff agent session id wrote before the compaction.
func AddSummary(p *workspace.Workspace, id, raw string) (string, error) {
	summary := p.Redact(handoff.CleanSummary(raw))
	if summary == "" {
		return "no compaction summary in the payload", nil
	}
	s := p.Local.LoadSession(id)
	if s.Handoff == "" && s.Ledger != "" {
		// The session ran, with nothing of substance to hand off.
		return "no handoff from before the compaction (nothing of substance); summary not recorded", nil
	}
	if s.Handoff == "" {
		return "", errors.New("no handoff from before the compaction for this session; summary not recorded")
	}
	path := filepath.Join(p.Root, filepath.FromSlash(s.Handoff))
	err := safefile.Update(path, p.WriteOptions(), func(old []byte) ([]byte, error) {
		if old == nil {
			return nil, fmt.Errorf("handoff %s: %w", s.Handoff, fs.ErrNotExist)
		}
		return handoff.SetSummary(old, summary)
	})
	if err != nil {
		return "", err
	}
	return "added the compaction summary to " + s.Handoff, nil
}

// uuidAtEnd finds a session id (a UUID) at the end of a transcript's name.
var uuidAtEnd = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
})

// SessionOf is the agent session a transcript file belongs to, from its
// name: the UUID it ends with (hosts name transcripts after their session),
// else the name without its .jsonl or .json extension; "" when neither.
func SessionOf(transcript string) string {
	if transcript == "" {
		return ""
	}
	base := filepath.Base(transcript)
	stem := strings.TrimSuffix(base, filepath.Ext(base))
	if id := uuidAtEnd().FindString(stem); id != "" {
		return id
	}
	if ext := filepath.Ext(base); ext != ".jsonl" && ext != ".json" {
		return ""
	}
	return stem
}

// LatestTranscript is the newest transcript (*.jsonl) the host keeps for
// the project at root ("" when none is found).
func LatestTranscript(e Env, root string) string {
	dir := e.Host.TranscriptDir(e.Getenv, root)
	if dir == "" {
		return ""
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	var best string
	var bestT int64
	for _, ent := range ents {
		if filepath.Ext(ent.Name()) != ".jsonl" || !ent.Type().IsRegular() {
			continue
		}
		if info, err := ent.Info(); err == nil && info.ModTime().UnixNano() > bestT {
			best, bestT = filepath.Join(dir, ent.Name()), info.ModTime().UnixNano()
		}
	}
	return best
}
