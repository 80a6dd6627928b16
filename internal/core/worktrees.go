package core

import (
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/continuity-md/continuity/handoff"
	"github.com/continuity-md/continuity/internal/agent"
	"github.com/continuity-md/continuity/internal/compat"
	"github.com/continuity-md/continuity/internal/gitfacts"
	"github.com/continuity-md/continuity/internal/inject"
	"github.com/continuity-md/continuity/internal/localstate"
	"github.com/continuity-md/continuity/internal/safefile"
	"github.com/continuity-md/continuity/internal/workspace"
)

// liveQuiet is how recent the last hook of a session whose client process
// could not be identified must be for it to count as live.
const liveQuiet = 30 * time.Minute

// recentFor is how long a session that is over stays among the
// repository's sessions (for `continuity status`) before it is pruned.
const recentFor = 24 * time.Hour

// Live reports whether a session of the repository is at work: its client
// process still runs (by the identity recovery uses), or, when that is not
// known, its last hook is recent; and it has not ended.
func Live(r localstate.RepoSession, now time.Time) bool {
	if r.Ended {
		return false
	}
	if r.Client != nil && r.Client.Known() {
		return !localstate.ProcessGone(*r.Client)
	}
	return now.Sub(r.Active) < liveQuiet
}

// recordRepoSession notes one hook call of the event's session among the
// repository's sessions: who, where, on which stream, what it touched. A
// subagent's calls are its parent's work: they renew the parent's entry and
// never end it.
func recordRepoSession(p *workspace.Workspace, now time.Time, ev agent.Event, host, stream string, client, candidate *localstate.Process, files []string) error {
	if p.Repo.Root == "" || ev.SessionID == "" {
		return nil
	}
	if stream != "" && (ev.Kind == agent.Start || ev.Kind == agent.BeforeCompact || ev.Kind == agent.End) {
		keep := func(w string) bool { return sameRepository(p, w) }
		if err := p.Local.AddStreamWorktree(stream, p.Root, keep); err != nil {
			return err
		}
	}
	branch := gitfacts.Branch(p.Repo)
	return p.Local.RecordRepoSession(ev.SessionID, now, func(r *localstate.RepoSession) {
		r.Agent = host
		if client != nil {
			r.Client, r.Candidate = client, nil
		} else if candidate != nil {
			r.Candidate = candidate
		}
		if stream != "" {
			r.Stream = stream
		}
		r.Worktree, r.Branch = p.Root, branch
		for _, f := range files {
			r.Files = append(slices.DeleteFunc(r.Files, func(s string) bool { return s == f }), f)
		}
		switch {
		case ev.Subagent != "":
		case ev.Kind == agent.End:
			r.Ended = true
		case ev.Kind == agent.Start:
			r.Ended = false
		}
	})
}

// pruneRepoSessions removes the repository's sessions whose worktree is
// gone, and those over (ended, or their client gone) for longer than
// recentFor.
func pruneRepoSessions(p *workspace.Workspace, now time.Time) int {
	over := func(r localstate.RepoSession) bool { return !Live(r, now) }
	return p.Local.PruneRepoSessions(over, func(r localstate.RepoSession) bool {
		if !sameRepository(p, r.Worktree) {
			return true
		}
		return !Live(r, now) && now.Sub(r.Active) > recentFor
	})
}

// crowded is how many sessions at work a start reads before it prunes
// them: those a crash left (no end event) are moved to the ended ones.
const crowded = 16

// sameRepository reports whether dir is a worktree of p's repository (one
// whose common git directory is p's): the only places another worktree's
// files are read from.
func sameRepository(p *workspace.Workspace, dir string) bool {
	if dir == "" || !filepath.IsAbs(dir) {
		return false
	}
	repo, err := gitfacts.Find(dir)
	return err == nil && repo.Root == filepath.Clean(dir) && repo.CommonDir == p.Repo.CommonDir
}

// worktreeName names a worktree for people, from p's: "this worktree", or
// "worktree ../proj-wt".
func worktreeName(p *workspace.Workspace, dir string) string {
	if dir == p.Root {
		return "this worktree"
	}
	if rel, err := filepath.Rel(p.Root, dir); err == nil {
		return "worktree " + inject.Word(rel)
	}
	return "worktree " + inject.Word(dir)
}

// others are the live ones of the repository's sessions at work on stream
// or on files its ledger names, most recently active first: neither the
// session self nor any of the client process client (when known; a
// client's earlier session is not another at work).
func others(p *workspace.Workspace, sessions []localstate.RepoSession, stream, self string, client *localstate.Process, ledgerFiles []string, now time.Time) []inject.Other {
	mine := func(id *localstate.Process) bool { return client != nil && id != nil && *id == *client }
	var out []inject.Other
	for _, r := range sessions {
		if r.ID == self || mine(r.Client) || mine(r.Candidate) {
			continue
		}
		var shared []string
		for _, f := range r.Files {
			if slices.Contains(ledgerFiles, f) {
				shared = append(shared, f)
			}
		}
		same := r.Stream == stream
		if !same && len(shared) == 0 || !Live(r, now) || !sameRepository(p, r.Worktree) {
			continue
		}
		if same && len(shared) == 0 && len(r.Files) > 0 {
			shared = r.Files[max(0, len(r.Files)-3):]
		}
		out = append(out, inject.Other{Agent: r.Agent, Worktree: worktreeName(p, r.Worktree), Branch: r.Branch,
			Since: r.Started, Stream: same, Files: shared})
	}
	return out
}

// fromOtherWorktrees gives in the stream's newest handoff and its ledger's
// goal, now and next when another worktree of the repository (one where a
// session worked on the stream) wrote them later than this one, uncommitted
// as they may be, and says where they come from (a handoff with substance
// only). Each worktree is read as its own workspace (its configuration, its
// memo of the latest handoff).
func fromOtherWorktrees(p *workspace.Workspace, e Env, in *inject.Input, name string, withHandoff bool) {
	var newest time.Time
	if in.Handoff != nil {
		newest = in.Handoff.Meta.Created
	}
	var ledgerTime time.Time
	if path, err := p.LedgerPath(name); err == nil {
		if fi, err := os.Stat(path); err == nil {
			ledgerTime = fi.ModTime()
		}
	}
	for _, w := range p.Local.StreamWorktrees(name) {
		if w == p.Root {
			continue
		}
		other, err := workspace.OpenWith(w, e.Getenv)
		if err != nil || other.Root != w || other.Repo.CommonDir != p.Repo.CommonDir {
			continue // removed, or no longer a worktree of this repository
		}
		where := func(t time.Time) string {
			s := worktreeName(p, other.Root)
			if b := gitfacts.Branch(other.Repo); b != "" {
				s += ", branch " + inject.Word(b)
			}
			return s + ", " + inject.Age(e.Now.Sub(t)) + " ago"
		}
		opts := safefile.Options{Root: other.Root}
		if hp, err := other.LatestHandoff(name, e.Now); withHandoff && err == nil && handoff.Time(hp).After(newest) {
			if src, err := safefile.Read(hp, opts); err == nil {
				if h, err := compat.ParseHandoff(src); err == nil && handoff.Substantial(h) {
					newest = handoff.Time(hp)
					in.Handoff, in.HandoffPath, in.HandoffFrom = h, relPath(p.Root, hp), where(newest)
				}
			}
		}
		if in.Ledger == nil {
			continue
		}
		lp, err := other.LedgerPath(name)
		if err != nil {
			continue
		}
		fi, err := os.Stat(lp)
		if err != nil || !fi.ModTime().After(ledgerTime) {
			continue
		}
		src, err := safefile.Read(lp, opts)
		if err != nil {
			continue
		}
		theirs, err := compat.ParseLedger(relPath(p.Root, lp), src)
		if err != nil {
			continue
		}
		l := *in.Ledger
		l.Goal, l.Now, l.Next = theirs.Goal, theirs.Now, theirs.Next
		in.Ledger, in.LedgerFrom, ledgerTime = &l, where(fi.ModTime()), fi.ModTime()
	}
}

// relPath is path relative to root, with forward slashes ("../proj-wt/…"
// for another worktree's file).
func relPath(root, path string) string {
	if rel, err := filepath.Rel(root, path); err == nil {
		return filepath.ToSlash(rel)
	}
	return path
}

// RepoSessionStatus is one of the repository's sessions as `continuity
// status` shows it.
type RepoSessionStatus struct {
	localstate.RepoSession
	Live bool `json:"live"`
	// Here says whether it works in the worktree status was asked in.
	Here bool `json:"here"`
}

// Status lists the repository's live and recent sessions, across its
// worktrees, live ones first, then most recently active first. It prunes
// the stale ones first.
func Status(p *workspace.Workspace, now time.Time) []RepoSessionStatus {
	pruneRepoSessions(p, now)
	var out []RepoSessionStatus
	for _, r := range p.Local.RepoSessions(true) {
		out = append(out, RepoSessionStatus{RepoSession: r, Live: Live(r, now), Here: r.Worktree == p.Root})
	}
	slices.SortStableFunc(out, func(a, b RepoSessionStatus) int {
		if a.Live != b.Live {
			if a.Live {
				return -1
			}
			return 1
		}
		return b.Active.Compare(a.Active)
	})
	return out
}
