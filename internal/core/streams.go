package core

// Looking across a project's work streams: list them with their ledgers and
// handoffs, thin a stream's committed handoffs with git rm, lint ledgers.

import (
	"os"
	"strings"
	"time"

	"github.com/continuity-md/continuity/handoff"
	"github.com/continuity-md/continuity/internal/compat"
	"github.com/continuity-md/continuity/internal/inject"
	"github.com/continuity-md/continuity/internal/safefile"
	"github.com/continuity-md/continuity/internal/workspace"
)

// Names lists every work stream that has a ledger or handoffs.
func Names(p *workspace.Workspace) []string {
	return p.StreamNames()
}

// Handoff is one handoff as list shows it.
type Handoff struct {
	Path    string    `json:"path"`
	Event   string    `json:"event,omitempty"`
	Author  string    `json:"author,omitempty"`
	Branch  string    `json:"branch,omitempty"`
	Created time.Time `json:"created"`
	Stale   bool      `json:"stale"`
	Model   string    `json:"model,omitempty"`  // the model in use when it was written
	Tokens  int       `json:"tokens,omitempty"` // tokens in context when it was written (from the transcript's usage)
}

// Entry is one work stream as list shows it.
type Entry struct {
	Stream   string    `json:"stream"`
	Path     string    `json:"path,omitempty"` // the ledger; "" when the work stream has handoffs only
	Active   bool      `json:"active"`
	Goal     string    `json:"goal,omitempty"`
	Now      string    `json:"now,omitempty"`
	Updated  string    `json:"updated,omitempty"`
	Problem  string    `json:"problem,omitempty"`
	Handoffs int       `json:"handoffs"`
	Authors  []string  `json:"authors"`
	Latest   *Handoff  `json:"latest_handoff,omitempty"`
	Recent   []Handoff `json:"recent_handoffs"`
	// Future lists the handoffs dated beyond the clock skew allowed, never
	// taken for the latest.
	Future []string `json:"future_handoffs,omitempty"`
}

// ReadHandoff reads a handoff's front matter as list shows it; ok is false
// for a file that cannot be read or parsed.
func ReadHandoff(p *workspace.Workspace, path string, now time.Time) (h Handoff, meta handoff.Meta, ok bool) {
	src, err := safefile.Read(path, p.WriteOptions())
	if err != nil {
		return h, meta, false
	}
	parsed, err := compat.ParseHandoff(src)
	if err != nil {
		return h, meta, false
	}
	m := parsed.Meta
	stale := time.Duration(p.Config.StaleAfter)
	return Handoff{Path: p.Rel(path), Event: m.Event, Author: m.Author, Branch: m.Branch, Created: m.Created,
		Stale: stale > 0 && now.Sub(m.Created) > stale, Model: m.Model, Tokens: m.Tokens}, m, true
}

// List lists every work stream with its ledger's goal and now and its
// recent handoffs (the newest first, at most recent of them).
func List(p *workspace.Workspace, active string, recent int, now time.Time) []Entry {
	entries := []Entry{}
	for _, name := range Names(p) {
		e := Entry{Stream: name, Active: name == active, Authors: []string{}, Recent: []Handoff{}}
		if lp, _ := p.LedgerPath(name); lp != "" {
			if _, err := os.Stat(lp); err == nil {
				e.Path = p.Rel(lp)
				if l, _, err := LoadLedger(p, name); err != nil {
					e.Problem = strings.Split(err.Error(), "\n")[0]
				} else if l != nil {
					e.Goal, e.Now, e.Updated = l.Goal, l.Now, l.Updated
				}
			}
		}
		files := p.HandoffFiles(name)
		e.Handoffs = len(files)
		seen := map[string]bool{}
		// Handoffs dated in the future sort last; they are listed apart
		// and take no place among the recent ones.
		for i := len(files) - 1; i >= 0 && len(e.Recent) < recent; i-- {
			if handoff.FutureAt(files[i], now) {
				e.Future = append(e.Future, p.Rel(files[i]))
				continue
			}
			lh, _, ok := ReadHandoff(p, files[i], now)
			if !ok {
				continue
			}
			e.Recent = append(e.Recent, lh)
			if e.Latest == nil {
				l := lh
				e.Latest = &l
			}
			if lh.Author != "" && !seen[lh.Author] {
				seen[lh.Author] = true
				e.Authors = append(e.Authors, lh.Author)
			}
		}
		entries = append(entries, e)
	}
	return entries
}

// ContextSize says how full the agent's context was when a handoff was
// written, as the injected context says it: "handed off at 153k tokens"
// ("" when the handoff does not say).
func ContextSize(tokens int) string {
	if tokens <= 0 {
		return ""
	}
	return "handed off at " + inject.Tokens(tokens) + " tokens"
}
