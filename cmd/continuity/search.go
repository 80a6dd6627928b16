package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/continuity-md/continuity/handoff"
	"github.com/continuity-md/continuity/internal/config"
	"github.com/continuity-md/continuity/internal/project"
	"github.com/continuity-md/continuity/internal/safefile"
	"github.com/continuity-md/continuity/ledger"
)

type searchOptions struct {
	Text    string
	Session string // only this work stream
	Author  string // only handoffs whose author has a word starting with each of these words
	Since   string // a date or a duration
	JSON    bool
}

// searchHit is one matching line.
type searchHit struct {
	Path    string `json:"path"`
	Line    int    `json:"line"`
	Text    string `json:"text"`
	Session string `json:"session"`
	Kind    string `json:"kind"`
	Author  string `json:"author,omitempty"`
}

func newSearchCmd(a *app) *cobra.Command {
	var o searchOptions
	c := &cobra.Command{
		Use:   "search TEXT",
		Short: "Search ledgers and handoffs (filters: --session, --author, --since)",
		Long: `Search every ledger and handoff for TEXT (case-insensitive) and print FILE:LINE: the line.
--session keeps one work stream, --author the handoffs one person wrote (front matter author:
"Ana" finds "Ana Newcomer", each word matching the start of a word of the name),
--since those written since a date (2026-11-01) or within a duration (7d, 36h).`,
		Example:     `  continuity search "refresh token" --author Kim --since 7d`,
		Annotations: map[string]string{"args": "the TEXT to look for"},
		Args:        exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Text, o.JSON = args[0], a.json
			return a.runWith(o, func() error { return runSearch(a, o) })
		},
	}
	c.Flags().StringVar(&o.Session, "session", "", "only this work stream")
	c.Flags().StringVar(&o.Author, "author", "", "only handoffs by this author (git user.name; a first name will do)")
	c.Flags().StringVar(&o.Since, "since", "", "only what was written since a date or within a duration (7d)")
	return c
}

func runSearch(a *app, o searchOptions) error {
	if strings.TrimSpace(o.Text) == "" {
		return usageError{errors.New("search needs some text to look for")}
	}
	if o.Session != "" {
		if err := project.CheckName(o.Session); err != nil {
			return usageError{fmt.Errorf("--session: %w", err)}
		}
	}
	after, err := sinceTime(o.Since, a.now())
	if err != nil {
		return err
	}
	p, err := a.project()
	if err != nil {
		return err
	}
	needle := strings.ToLower(o.Text)
	hits := []searchHit{}
	scan := func(path, session, kind, who string) {
		src, err := safefile.Read(path, p.WriteOptions())
		if err != nil {
			return
		}
		sc := bufio.NewScanner(bytes.NewReader(src))
		sc.Buffer(make([]byte, 64<<10), len(src)+1)
		for n := 1; sc.Scan(); n++ {
			if strings.Contains(strings.ToLower(sc.Text()), needle) {
				hits = append(hits, searchHit{p.Rel(path), n, strings.TrimSpace(sc.Text()), session, kind, who})
			}
		}
	}
	for _, name := range workStreams(p) {
		if o.Session != "" && name != o.Session {
			continue
		}
		if o.Author == "" {
			if lp, _ := p.LedgerPath(name); lp != "" {
				if l, _, err := loadLedger(p, name); err == nil && l != nil && (after.IsZero() || l.Updated >= ledger.FormatTime(after)) {
					scan(lp, name, "ledger", "")
				}
			}
		}
		for _, f := range p.HandoffFiles(name) {
			src, err := safefile.Read(f, p.WriteOptions())
			if err != nil {
				continue
			}
			h, err := handoff.Parse(src)
			if err != nil {
				continue
			}
			if o.Author != "" && !authorMatches(h.Meta.Author, o.Author) {
				continue
			}
			if !after.IsZero() && h.Meta.Created.Before(after) {
				continue
			}
			scan(f, name, "handoff", h.Meta.Author)
		}
	}
	if o.JSON {
		return writeJSON(a.out, hits)
	}
	for _, h := range hits {
		fmt.Fprintf(a.out, "%s:%d: %s\n", h.Path, h.Line, h.Text)
	}
	if len(hits) == 0 {
		fmt.Fprintf(a.errw, "continuity: no match for %q\n", o.Text)
		return errSilent
	}
	return nil
}

// sinceTime reads --since: a duration back from now (7d, 36h), a date or an
// RFC 3339 time. "" is the zero time.
func sinceTime(since string, now time.Time) (time.Time, error) {
	if since == "" {
		return time.Time{}, nil
	}
	if d, err := config.ParseDuration(since); err == nil {
		return now.Add(-d), nil
	}
	for _, layout := range []string{"2006-01-02", time.RFC3339} {
		if t, err := time.Parse(layout, since); err == nil {
			return t, nil
		}
	}
	return time.Time{}, usageError{fmt.Errorf("--since takes a date (2026-11-01) or a duration (7d), got %q", since)}
}

// authorMatches reports whether each word of query starts a word of the
// author's name, ignoring case, in order: "Ana", "ana new" and "A N" find
// "Ana Newcomer"; "Newcomer Ana" and "na" do not.
func authorMatches(author, query string) bool {
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
