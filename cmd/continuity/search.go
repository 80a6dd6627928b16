package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/continuity-md/continuity/internal/core"
	"github.com/continuity-md/continuity/internal/workspace"
)

type searchOptions struct {
	Text   string
	Stream string // only this work stream
	Author string // only handoffs whose author has a word starting with each of these words
	Since  string // a date or a duration
	In     string // ledgers, handoffs, or "" for both
	JSON   bool
}

func newSearchCmd(a *app) *cobra.Command {
	var o searchOptions
	c := &cobra.Command{
		Use:   "search TEXT",
		Short: "Search ledgers and handoffs (filters: --stream, --author, --since, --in)",
		Long: `Search every ledger and handoff for TEXT (case-insensitive) and print FILE:LINE: the line.
--stream keeps one work stream, --author the handoffs one person wrote (front matter author:
"Ana" finds "Ana Newcomer", each word matching the start of a word of the name),
--since those written since a date (2026-11-01) or within a duration (7d, 36h), --in ledgers or
handoffs only one kind of file. A line a handoff repeats from the ledger (or from another handoff)
is shown once.`,
		Example:     `  continuity search "refresh token" --author Kim --since 7d`,
		Annotations: map[string]string{"args": "the TEXT to look for"},
		Args:        exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Text, o.JSON = args[0], a.json
			return a.runWith(o, func() error { return runSearch(a, o) })
		},
	}
	streamFlag(c, &o.Stream, "only this work stream", "session")
	c.Flags().StringVar(&o.Author, "author", "", "only handoffs by this author (git user.name; a first name will do)")
	c.Flags().StringVar(&o.Since, "since", "", "only what was written since a date or within a duration (7d)")
	c.Flags().StringVar(&o.In, "in", "", "only ledgers or only handoffs")
	return c
}

func runSearch(a *app, o searchOptions) error {
	if strings.TrimSpace(o.Text) == "" {
		return usageError{Err: errors.New("search needs some text to look for")}
	}
	if o.Stream != "" {
		if err := workspace.CheckName(o.Stream); err != nil {
			return usageError{Err: fmt.Errorf("--stream: %w", err)}
		}
	}
	since, err := core.Since(o.Since, a.now())
	if err != nil {
		return usageError{Err: err}
	}
	switch o.In {
	case "", "ledgers", "handoffs":
	default:
		return usageError{Err: fmt.Errorf("--in takes ledgers or handoffs, got %q", o.In)}
	}
	p, err := a.project()
	if err != nil {
		return err
	}
	hits := core.Search(p, core.Query{Text: o.Text, Stream: o.Stream, Author: o.Author, Since: since, In: o.In})
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
