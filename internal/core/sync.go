package core

// Work that travels: a stream's latest handoff, its ledger and the
// uncommitted work go on this clone's refs of continuity's own
// (internal/travel) and through the repository's remote, when the
// configuration says `sync: ref`.

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/gofrs/flock"

	"github.com/continuity-md/continuity/handoff"
	"github.com/continuity-md/continuity/internal/compat"
	"github.com/continuity-md/continuity/internal/gitfacts"
	"github.com/continuity-md/continuity/internal/inject"
	"github.com/continuity-md/continuity/internal/localstate"
	"github.com/continuity-md/continuity/internal/safefile"
	"github.com/continuity-md/continuity/internal/travel"
	"github.com/continuity-md/continuity/internal/workspace"
)

// recordBudget bounds a hook's local record (git plumbing, no network).
const recordBudget = 1500 * time.Millisecond

// fetchEvery is how often session starts fetch in the background.
const fetchEvery = time.Minute

// Syncing reports whether the repository's snapshots travel (sync: ref).
func Syncing(p *workspace.Workspace) bool {
	return p.Config.Sync == "ref" && p.Repo.Root != "" && p.Repo.GitDir != ""
}

// travelRepo is the repository as internal/travel sees it.
func travelRepo(p *workspace.Workspace, timeout time.Duration) (travel.Repo, error) {
	scratch, err := p.Local.Scratch()
	if err != nil {
		return travel.Repo{}, err
	}
	return travel.Repo{Git: gitfacts.Git{Repo: p.Repo, Timeout: timeout}, Scratch: scratch}, nil
}

var hostChars = regexp.MustCompile(`[^a-z0-9-]+`)

// Machine is this clone's machine component, chosen once and kept in
// local state: the host's name (CONTINUITY_MACHINE over the system's), up
// to its first dot, and six hex digits of its own, so two clones on one
// host are two machines.
func Machine(p *workspace.Workspace, getenv func(string) string) (string, error) {
	if m := p.Local.LoadSync().Machine; travel.ValidName(m) {
		return m, nil
	}
	host := ""
	if getenv != nil {
		host = getenv("CONTINUITY_MACHINE")
	}
	if host == "" {
		host, _ = os.Hostname()
	}
	host, _, _ = strings.Cut(strings.ToLower(host), ".")
	host = strings.Trim(hostChars.ReplaceAllString(host, "-"), "-")
	if len(host) > 40 {
		host = strings.Trim(host[:40], "-")
	}
	if host == "" {
		host = "machine"
	}
	var id [3]byte
	_, _ = rand.Read(id[:])
	name := host + "-" + hex.EncodeToString(id[:])
	err := p.Local.UpdateSync(func(s *localstate.Sync) {
		if !travel.ValidName(s.Machine) {
			s.Machine = name
		}
		name = s.Machine
	})
	return name, err
}

// Share records stream's latest handoff (written at handoffRel), its
// ledger and the worktree's uncommitted work on this machine's ref, and
// starts a background push when e.Self names the binary. It returns a
// line for the person the first time the snapshots go to the remote ("" otherwise).
func Share(p *workspace.Workspace, e Env, stream, handoffRel, event string) (string, error) {
	if !Syncing(p) || workspace.CheckName(stream) != nil || !travel.ValidName(stream) {
		return "", nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), recordBudget)
	defer cancel()
	tr, err := travelRepo(p, recordBudget)
	if err != nil {
		return "", err
	}
	machine, err := Machine(p, e.Getenv)
	if err != nil {
		return "", err
	}
	s := travel.Snapshot{Meta: travel.Meta{Machine: travel.HostOf(machine), Stream: stream, Branch: gitfacts.Branch(p.Repo),
		Commit: gitfacts.FullCommit(p.Repo), Handoff: handoffRel, Event: event, Written: e.Now.UTC()}}
	if handoffRel != "" {
		if b, err := safefile.Read(filepath.Join(p.Root, filepath.FromSlash(handoffRel)), p.WriteOptions()); err == nil {
			s.Handoff = []byte(p.Redact(string(b)))
		}
	}
	if lp, err := p.LedgerPath(stream); err == nil {
		if b, err := safefile.Read(lp, p.WriteOptions()); err == nil {
			s.Ledger = []byte(p.Redact(string(b)))
		}
	}
	carry, err := tr.BuildCarry(ctx, func(b []byte) ([]byte, bool) {
		out := p.Redact(string(b))
		return []byte(out), out != string(b)
	}, strings.TrimSuffix(p.Rel(p.HandoffDir), "/")+"/")
	if err == nil {
		s.Carry = carry
	}
	if _, err := tr.Record(ctx, machine, s); err != nil {
		return "", err
	}
	return announce(p, tr, machine), startBackground(p, e, "push")
}

// announce is the line said once, the first time snapshots go to the remote.
func announce(p *workspace.Workspace, tr travel.Repo, machine string) string {
	if !p.Local.LoadSync().Announced.IsZero() {
		return ""
	}
	remote := tr.Remote(context.Background())
	if remote == "" {
		return ""
	}
	said := false
	_ = p.Local.UpdateSync(func(s *localstate.Sync) {
		if s.Announced.IsZero() {
			s.Announced, said = time.Now().UTC(), true
		}
	})
	if !said {
		return ""
	}
	return fmt.Sprintf("handoffs now go to %s's %s%s/…: as visible as the repository (sync: off in .continuity.yaml stops it)", remote, travel.Own, machine)
}

// startBackground starts `continuity sync --background KIND` detached,
// when e.Self names the binary (tests of the core leave it empty and call
// Background themselves).
func startBackground(p *workspace.Workspace, e Env, kind string) error {
	if e.Self == "" {
		return nil
	}
	if err := travel.Spawn(e.Self, p.Root, "sync", "--background", kind); err != nil {
		return fmt.Errorf("start the background %s: %w", kind, err)
	}
	return nil
}

// fetchSoon starts a background fetch for the next start, unless one ran
// or began within fetchEvery.
func fetchSoon(p *workspace.Workspace, e Env) error {
	if !Syncing(p) {
		return nil
	}
	f := p.Local.LoadSync().Fetch
	last := f.At
	if f.Started.After(last) {
		last = f.Started
	}
	if e.Now.Sub(last) < fetchEvery && !last.After(e.Now) {
		return nil
	}
	return startBackground(p, e, "fetch")
}

// Background runs one push or fetch (kind), bounded, for the whole
// clone one at a time (a second waits for the first, then runs: what it
// was started for may have been recorded after the first began), and
// keeps how it went in local state for doctor and status. It prints
// nothing.
func Background(p *workspace.Workspace, e Env, kind string) error {
	return locked(p, e, kind, nil)
}

// locked runs one push or fetch under the clone's lock for it.
func locked(p *workspace.Workspace, e Env, kind string, progress io.Writer) error {
	limit := travel.PushTimeout
	if kind == "fetch" {
		limit = travel.FetchTimeout
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*limit)
	defer cancel()
	lock := flock.New(p.Local.SyncLock(kind))
	ok, err := lock.TryLockContext(ctx, 100*time.Millisecond)
	if err != nil || !ok {
		return fmt.Errorf("another %s held the lock: %v", kind, err)
	}
	defer func() { _ = lock.Unlock() }()
	_, err = runTransfer(ctx, p, e, kind, progress)
	return err
}

// runTransfer pushes or fetches and records the run in local state.
func runTransfer(ctx context.Context, p *workspace.Workspace, e Env, kind string, progress io.Writer) (string, error) {
	tr, err := travelRepo(p, travel.PushTimeout)
	if err != nil {
		return "", err
	}
	remote := tr.Remote(ctx)
	start := time.Now()
	mark := func(fn func(r *localstate.SyncRun)) {
		_ = p.Local.UpdateSync(func(s *localstate.Sync) {
			if kind == "push" {
				fn(&s.Push)
			} else {
				fn(&s.Fetch)
			}
		})
	}
	if remote == "" {
		err := errors.New("the repository has no remote to sync through (git remote add origin URL)")
		mark(func(r *localstate.SyncRun) {
			r.At, r.OK, r.Error, r.Started = time.Now().UTC(), false, err.Error(), time.Time{}
		})
		return "", err
	}
	mark(func(r *localstate.SyncRun) { r.Started, r.Remote = start.UTC(), remote })
	var out string
	switch kind {
	case "push":
		var machine string
		machine, err = Machine(p, e.Getenv)
		if err == nil {
			say(progress, "pushing %s%s/* to %s…", travel.Own, machine, remote)
			out, err = tr.Push(ctx, remote, machine)
		}
	case "fetch":
		say(progress, "fetching %s* from %s…", travel.Own, remote)
		err = tr.Fetch(ctx, remote)
	default:
		err = fmt.Errorf("unknown transfer %q", kind)
	}
	mark(func(r *localstate.SyncRun) {
		r.At, r.OK, r.Remote, r.Took = time.Now().UTC(), err == nil, remote, time.Since(start).Round(10*time.Millisecond).String()
		r.Error = ""
		if err != nil {
			r.Error = p.Redact(oneLineCut(err.Error(), 400))
		}
	})
	return out, err
}

func say(w io.Writer, format string, args ...any) {
	if w != nil {
		fmt.Fprintf(w, format+"\n", args...)
	}
}

// SyncReport is what `continuity sync` did.
type SyncReport struct {
	Remote   string `json:"remote"`
	Machine  string `json:"machine"`
	Stream   string `json:"stream,omitempty"`
	Recorded bool   `json:"recorded"`
	Pushed   bool   `json:"pushed"`
	Fetched  bool   `json:"fetched"`
	// Snapshots are the streams' refs known after the fetch, newest first.
	Snapshots []travel.Entry `json:"snapshots"`
	Announce  string         `json:"announce,omitempty"`
}

// Sync does in the foreground what the hooks do in the background: it
// records the active stream (stream, "" for none) as it stands, pushes
// this machine's refs and fetches everyone's, saying each step on
// progress. A failed push still fetches; the error names both.
func Sync(p *workspace.Workspace, e Env, stream string, progress io.Writer) (SyncReport, error) {
	var rep SyncReport
	if !Syncing(p) {
		return rep, errors.New("sync is off in this repository: set `sync: ref` in .continuity.yaml (for the team) or in your own config, then run it again")
	}
	tr, err := travelRepo(p, travel.PushTimeout)
	if err != nil {
		return rep, err
	}
	rep.Remote = tr.Remote(context.Background())
	if rep.Machine, err = Machine(p, e.Getenv); err != nil {
		return rep, err
	}
	if stream != "" {
		rep.Stream = stream
		rel := ""
		if hp, err := p.LatestHandoff(stream, e.Now); err == nil {
			rel = p.Rel(hp)
		}
		say(progress, "recording stream %s on %s…", stream, travel.RefOf(rep.Machine, stream))
		noSpawn := e
		noSpawn.Self = ""
		rep.Announce, err = Share(p, noSpawn, stream, rel, "sync")
		if err != nil {
			return rep, fmt.Errorf("record %s: %w", stream, err)
		}
		rep.Recorded = true
	}
	perr := locked(p, e, "push", progress)
	rep.Pushed = perr == nil
	ferr := error(nil)
	if rep.Remote != "" {
		ferr = locked(p, e, "fetch", progress)
		rep.Fetched = ferr == nil
	}
	rep.Snapshots, _ = tr.List(context.Background(), "", rep.Machine)
	return rep, errors.Join(perr, ferr)
}

// Snapshot is one stream's snapshot as resume and the start see it.
type Snapshot struct {
	travel.Entry
	Meta    travel.Meta     `json:"meta"`
	Handoff *handoff.Parsed `json:"-"`
	Carry   *travel.Carry   `json:"carry,omitempty"`
	stored  travel.Stored
}

// From says where a snapshot was written, for people and models: "laptop
// (Kim), 2 h ago, branch feature/auth".
func (s Snapshot) From(now time.Time) string {
	who := oneLineCut(s.Host(), 60)
	if s.Author != "" {
		who += " (" + oneLineCut(s.Author, 60) + ")"
	}
	when := s.When
	if !s.Meta.Written.IsZero() && s.Meta.Written.Before(now.Add(time.Minute)) {
		when = s.Meta.Written
	}
	out := who + ", " + inject.Age(now.Sub(when)) + " ago"
	if b := oneLineCut(s.Meta.Branch, 100); b != "" {
		out += ", branch " + b
	}
	return out
}

// ErrNoSnapshot reports that no machine's snapshot matches.
var ErrNoSnapshot = errors.New("no snapshot")

// NewestSnapshot is the newest snapshot of stream written by another
// machine (or this one when from names it) whose machine or author
// matches from ("" for any): a machine by its name ("laptop"), a person
// by the start of each word of their name, as --author does.
func NewestSnapshot(p *workspace.Workspace, e Env, stream, from string) (Snapshot, error) {
	tr, err := travelRepo(p, 2*time.Second)
	if err != nil {
		return Snapshot{}, err
	}
	own := p.Local.LoadSync().Machine
	entries, err := tr.List(context.Background(), stream, own)
	if err != nil {
		return Snapshot{}, err
	}
	for _, en := range entries {
		if from == "" && (en.Machine == own || en.Remote == "") {
			continue // this machine's own: its files are here
		}
		if from != "" && !strings.EqualFold(en.Host(), from) && !strings.EqualFold(en.Machine, from) && !authorMatches(en.Author, from) {
			continue
		}
		st, err := tr.Read(context.Background(), en.Commit)
		if err != nil {
			continue // a snapshot that cannot be read is passed over
		}
		s := Snapshot{Entry: en, Meta: st.Meta, Carry: st.Carry, stored: st}
		if st.Handoff != nil {
			if h, err := compat.ParseHandoff(st.Handoff); err == nil {
				s.Handoff = h
			}
		}
		return s, nil
	}
	if from != "" {
		return Snapshot{}, fmt.Errorf("%w of stream %q from %q (`continuity sync` fetches the latest; `continuity sync --json` lists what is known)", ErrNoSnapshot, stream, from)
	}
	return Snapshot{}, fmt.Errorf("%w of stream %q from another machine", ErrNoSnapshot, stream)
}

// authorMatches: each word of from starts a word of author, in order.
func authorMatches(author, from string) bool {
	words := strings.Fields(strings.ToLower(author))
	i := 0
	for _, w := range strings.Fields(strings.ToLower(from)) {
		for i < len(words) && !strings.HasPrefix(words[i], w) {
			i++
		}
		if i == len(words) {
			return false
		}
		i++
	}
	return from != ""
}

// fromOtherMachines gives the start the newest handoff of the stream
// another machine pushed, when it is newer than the one chosen here and
// has substance, attributed ("from laptop (Kim), 2 h ago, branch
// feature/auth"). It reads only what the last fetch brought.
func fromOtherMachines(p *workspace.Workspace, e Env, in *inject.Input, name string) {
	if !Syncing(p) {
		return
	}
	s, err := NewestSnapshot(p, e, name, "")
	if err != nil || s.Handoff == nil || !handoff.Substantial(s.Handoff) {
		return
	}
	created := s.Handoff.Meta.Created
	if created.IsZero() {
		created = s.When
	}
	fromMachine := "machine " + oneLineCut(s.Host(), 60) + " (fetched from " + s.Remote + ")"
	ledgerFromMachine(p, in, name, s, fromMachine)
	if in.Handoff != nil && !created.After(in.Handoff.Meta.Created) {
		return
	}
	// The byline says who, when and on which branch: where is the machine.
	in.Handoff, in.HandoffPath = s.Handoff, s.Ref+":handoff.md"
	in.HandoffFrom = fromMachine
	in.HandoffCommitAuthor = s.Author
}

// ledgerFromMachine gives the start the goal, now and next of the
// stream's ledger as another machine recorded it, when that is later than
// this worktree's ledger file and they differ, saying where they come from
// (as another worktree's are).
func ledgerFromMachine(p *workspace.Workspace, in *inject.Input, name string, s Snapshot, from string) {
	if in.Ledger == nil || s.stored.Ledger == nil || s.Meta.Written.IsZero() {
		return
	}
	path, err := p.LedgerPath(name)
	if err != nil {
		return
	}
	fi, err := os.Stat(path)
	if err != nil || !s.Meta.Written.After(fi.ModTime()) {
		return
	}
	theirs, err := compat.ParseLedger(s.Ref+":ledger.md", s.stored.Ledger)
	if err != nil || theirs.Goal == in.Ledger.Goal && theirs.Now == in.Ledger.Now && slices.Equal(theirs.Next, in.Ledger.Next) {
		return
	}
	l := *in.Ledger
	l.Goal, l.Now, l.Next = theirs.Goal, theirs.Now, theirs.Next
	in.Ledger, in.LedgerFrom = &l, from
}

// ResumeFrom is what `continuity resume --from` gives: the newest
// snapshot of stream from a machine or person, its handoff as text, and,
// with carry, its uncommitted work applied to the worktree.
type ResumeFrom struct {
	Snapshot Snapshot        `json:"snapshot"`
	Text     string          `json:"text"`
	Applied  *travel.Applied `json:"applied,omitempty"`
}

// ResumeSnapshot gives the newest snapshot of stream from from ("" for any other
// machine) and, with carry, applies its uncommitted work (see
// travel.Repo.Apply for when it refuses).
func ResumeSnapshot(p *workspace.Workspace, e Env, stream, from string, carry bool) (ResumeFrom, error) {
	var r ResumeFrom
	s, err := NewestSnapshot(p, e, stream, from)
	if err != nil {
		return r, err
	}
	r.Snapshot = s
	var b strings.Builder
	fmt.Fprintf(&b, "Work stream %q, from %s (%s):\n\n", stream, s.From(e.Now), s.Ref)
	if s.Handoff != nil {
		for _, sec := range s.Handoff.Order {
			fmt.Fprintf(&b, "## %s\n\n%s\n\n", sec, strings.TrimSpace(s.Handoff.Sections[sec]))
		}
	} else {
		b.WriteString("(the snapshot holds no handoff)\n")
	}
	switch c := s.Carry; {
	case c == nil:
		b.WriteString("Uncommitted work: none recorded.\n")
	case !carry:
		fmt.Fprintf(&b, "Uncommitted work: %d files changed, %d deleted, at %s; `--carry` applies it here.\n", len(c.Files), len(c.Deleted), shortHash(c.Base))
	}
	r.Text = p.Redact(b.String())
	if !carry {
		return r, nil
	}
	if s.Carry == nil {
		return r, fmt.Errorf("the snapshot from %s holds no uncommitted work to carry", s.Host())
	}
	tr, err := travelRepo(p, 10*time.Second)
	if err != nil {
		return r, err
	}
	a, err := tr.Apply(context.Background(), s.Commit, s.Carry, p.WriteOptions())
	if err != nil {
		return r, fmt.Errorf("carry from %s: %w", s.Host(), err)
	}
	r.Applied = &a
	return r, nil
}

func shortHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// SyncStatus is the state of sync for status and doctor.
type SyncStatus struct {
	Mode    string             `json:"mode"` // off, ref
	Machine string             `json:"machine,omitempty"`
	Push    localstate.SyncRun `json:"push,omitzero"`
	Fetch   localstate.SyncRun `json:"fetch,omitzero"`
	// Problem is the latest failure in a line ("" when the last push and fetch went well).
	Problem string `json:"problem,omitempty"`
}

// running reports whether a push or fetch (kind) holds the clone's lock
// now: one begun and not over whose lock is free was killed.
func running(p *workspace.Workspace, kind string) bool {
	lock := flock.New(p.Local.SyncLock(kind))
	ok, err := lock.TryLock()
	if err != nil {
		return true // cannot tell: say nothing
	}
	if ok {
		_ = lock.Unlock()
	}
	return !ok
}

// SyncState reads the state of sync.
func SyncState(p *workspace.Workspace, now time.Time) SyncStatus {
	st := SyncStatus{Mode: p.Config.Sync}
	if st.Mode == "" {
		st.Mode = "off"
	}
	s := p.Local.LoadSync()
	st.Machine, st.Push, st.Fetch = s.Machine, s.Push, s.Fetch
	for _, r := range []struct {
		kind  string
		run   localstate.SyncRun
		limit time.Duration
	}{{"push", s.Push, 2 * travel.PushTimeout}, {"fetch", s.Fetch, 2 * travel.FetchTimeout}} {
		switch {
		case r.run.Unfinished(now, r.limit) || r.run.Unfinished(now, 0) && !running(p, r.kind):
			st.Problem = fmt.Sprintf("the %s begun %s ago never finished (its process was stopped); the next hook or `continuity sync` tries again", r.kind, inject.Age(now.Sub(r.run.Started)))
		case !r.run.At.IsZero() && !r.run.OK && st.Problem == "":
			st.Problem = fmt.Sprintf("the last %s (%s ago) failed: %s", r.kind, inject.Age(now.Sub(r.run.At)), r.run.Error)
		}
	}
	return st
}

// Line says the state of sync in a line, for status and doctor.
func (st SyncStatus) Line(now time.Time) string {
	if st.Mode != "ref" {
		return "off (sync: ref in .continuity.yaml sends handoffs and uncommitted work through the remote)"
	}
	machine := st.Machine
	if machine == "" {
		machine = "(named at the first handoff)"
	}
	out := "on: this machine is " + machine
	for _, r := range []struct {
		kind string
		run  localstate.SyncRun
	}{{"push", st.Push}, {"fetch", st.Fetch}} {
		switch {
		case r.run.At.IsZero():
			out += "; no " + r.kind + " yet"
		case r.run.OK:
			out += fmt.Sprintf("; last %s %s ago to %s (%s)", r.kind, inject.Age(now.Sub(r.run.At)), r.run.Remote, r.run.Took)
		default:
			out += fmt.Sprintf("; last %s %s ago failed", r.kind, inject.Age(now.Sub(r.run.At)))
		}
	}
	return out
}

// syncCheck is doctor's line on sync: only when it is on. A failed push or
// fetch is a warning: the hooks work, the work does not travel.
func syncCheck(p *workspace.Workspace, now time.Time) (Check, bool) {
	if !Syncing(p) {
		return Check{}, false
	}
	st := SyncState(p, now)
	c := Check{Name: "sync", OK: true, Info: st.Line(now)}
	if st.Problem != "" {
		c.Warn, c.Info = true, st.Problem
		c.Fix = "run `continuity sync`: it pushes and fetches in the foreground and says what went wrong"
	}
	return c, true
}

// machineEntries are the latest handoffs other machines recorded (what
// the last fetch brought), one per machine and stream, for the timeline:
// attributed to git's author of the ref's commit, never to what the
// handoff claims. One already among have (the same stream and time: the
// teammate committed it too) is left out.
func machineEntries(p *workspace.Workspace, stream string, have []LogEntry) []LogEntry {
	if !Syncing(p) {
		return nil
	}
	tr, err := travelRepo(p, 2*time.Second)
	if err != nil {
		return nil
	}
	own := p.Local.LoadSync().Machine
	entries, _ := tr.List(context.Background(), stream, own)
	seen := map[string]bool{}
	for _, e := range have {
		seen[e.Stream+" "+e.Created.UTC().Format(time.RFC3339)] = true
	}
	var out []LogEntry
	for _, en := range entries {
		if en.Remote == "" {
			continue // this machine's: its files are here
		}
		st, err := tr.Read(context.Background(), en.Commit)
		if err != nil || st.Handoff == nil {
			continue
		}
		h, err := compat.ParseHandoff(st.Handoff)
		if err != nil {
			continue
		}
		e := LogEntry{Created: h.Meta.Created, Stream: en.Stream, Author: oneLineCut(en.Author, 80), Agent: h.Meta.Agent, Event: h.Meta.Event,
			Branch: h.Meta.Branch, Path: en.Ref + ":handoff.md", Machine: en.Host()}
		if e.Created.IsZero() {
			e.Created = en.When
		}
		if seen[e.Stream+" "+e.Created.UTC().Format(time.RFC3339)] {
			continue
		}
		e.Task, e.Checks = stateEntry(&h.State)
		if e.Task == "" {
			e.Summary = firstText(h.Sections[handoff.HeadingSummary])
		}
		out = append(out, e)
	}
	return out
}
