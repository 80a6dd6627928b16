package core

import (
	"bufio"
	"bytes"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/continuity-md/continuity/internal/safefile"
	"github.com/continuity-md/continuity/internal/workspace"
	"github.com/continuity-md/continuity/ledger"
)

// Query is what search looks for.
type Query struct {
	Text    string    // case-insensitive
	Session string    // only this work stream ("" for all)
	Author  string    // only handoffs whose author has a word starting with each of these words
	Since   time.Time // only what was written since (zero for all)
	In      string    // "ledgers" or "handoffs": only that kind of file ("" for both)
}

// Hit is one matching line.
type Hit struct {
	Path    string `json:"path"`
	Line    int    `json:"line"`
	Text    string `json:"text"`
	Session string `json:"session"`
	Kind    string `json:"kind"`
	Author  string `json:"author,omitempty"`
}

// Search returns the lines of ledgers and handoffs that hold q.Text. A
// line is shown once per work stream: a handoff repeating a ledger's line
// (its goal, now, a decision), or an earlier handoff's, adds no hit.
func Search(p *workspace.Workspace, q Query) []Hit {
	needle := strings.ToLower(q.Text)
	hits := []Hit{}
	seen := map[string]bool{}
	scan := func(path, session, kind, who string) {
		src, err := safefile.Read(path, p.WriteOptions())
		if err != nil {
			return
		}
		sc := bufio.NewScanner(bytes.NewReader(src))
		sc.Buffer(make([]byte, 64<<10), len(src)+1)
		for n := 1; sc.Scan(); n++ {
			if !strings.Contains(strings.ToLower(sc.Text()), needle) {
				continue
			}
			text := strings.TrimSpace(sc.Text())
			key := session + "\x00" + lineKey(text)
			if seen[key] {
				continue
			}
			seen[key] = true
			hits = append(hits, Hit{p.Rel(path), n, text, session, kind, who})
		}
	}
	for _, name := range Names(p) {
		if q.Session != "" && name != q.Session {
			continue
		}
		if q.Author == "" && q.In != "handoffs" {
			if lp, _ := p.LedgerPath(name); lp != "" {
				if l, _, err := LoadLedger(p, name); err == nil && l != nil && (q.Since.IsZero() || l.Updated >= ledger.FormatTime(q.Since)) {
					scan(lp, name, "ledger", "")
				}
			}
		}
		if q.In == "ledgers" {
			continue
		}
		files := p.HandoffFiles(name)
		slices.Reverse(files) // newest first: a repeated line is shown where it was last written
		for _, f := range files {
			_, m, ok := ReadHandoff(p, f, time.Time{})
			if !ok || q.Author != "" && !AuthorMatches(m.Author, q.Author) || !q.Since.IsZero() && m.Created.Before(q.Since) {
				continue
			}
			scan(f, name, "handoff", m.Author)
		}
	}
	return hits
}

// lineKey is what makes two lines the same for search: the text without a
// list mark, a YAML key or quotes ("- RS256" in a handoff, "  - decision:
// RS256" in the ledger), nor a "(new)" mark.
func lineKey(s string) string {
	s = strings.TrimSpace(strings.TrimSuffix(s, " (new)"))
	s = strings.TrimLeft(s, "-*> ")
	for _, key := range []string{"decision:", "why:", "goal:", "now:", "- "} {
		s = strings.TrimSpace(strings.TrimPrefix(s, key))
	}
	s = strings.Trim(s, `"'`)
	return strings.ToLower(strings.Join(strings.Fields(s), " "))
}

// Since reads --since: a duration back from now (7d, 36h), a date or an
// RFC 3339 time. "" is the zero time.
func Since(since string, now time.Time) (time.Time, error) {
	if since == "" {
		return time.Time{}, nil
	}
	if d, err := workspace.ParseDuration(since); err == nil {
		return now.Add(-d), nil
	}
	for _, layout := range []string{"2006-01-02", time.RFC3339} {
		if t, err := time.Parse(layout, since); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("--since takes a date (2026-11-01) or a duration (7d), got %q", since)
}

// AuthorMatches reports whether each word of query starts a word of the
// author's name, ignoring case, in order: "Ana", "ana new" and "A N" find
// "Ana Newcomer"; "Newcomer Ana" and "na" do not.
func AuthorMatches(author, query string) bool {
	words := strings.Fields(strings.ToLower(author))
	i := 0
	for _, q := range strings.Fields(strings.ToLower(query)) {
		for i < len(words) && !strings.HasPrefix(words[i], q) {
			i++
		}
		if i == len(words) {
			return false
		}
		i++
	}
	return true
}
