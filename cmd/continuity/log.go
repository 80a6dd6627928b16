package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/continuity-md/continuity/internal/core"
	"github.com/continuity-md/continuity/internal/workspace"
)

type logOptions struct {
	Stream string // only this work stream
	Author string // only handoffs whose author has a word starting with each of these words
	Agent  string // only handoffs this agent wrote
	Since  string // a date or a duration
	Limit  int    // at most this many entries (0: all)
	JSON   bool
}

func newLogCmd(a *app) *cobra.Command {
	var o logOptions
	c := &cobra.Command{
		Use:   "log",
		Short: "The repository's work as a timeline: who, which agent, which stream, newest first",
		Long: `Print every handoff of the repository, newest first, grouped by day: when, who wrote it
(git user.name), with which agent, on which event, in which work stream and on which branch, and
where the work stood (its task and checks; the first line of its summary when it has none).
--stream, --author ("Ana" finds "Ana Newcomer"), --agent and --since (a date such as 2026-11-01,
or a duration such as 7d) narrow it; -n keeps the newest N. --json prints a list of entries.`,
		Example: `  continuity log --since 7d
  continuity log --author Kim --agent codex`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.JSON = a.json
			return a.runWith(o, func() error { return runLog(a, o) })
		},
	}
	streamFlag(c, &o.Stream, "only this work stream")
	c.Flags().StringVar(&o.Author, "author", "", "only handoffs by this author (git user.name; a first name will do)")
	c.Flags().StringVar(&o.Agent, "agent", "", "only handoffs this agent wrote ("+strings.Join(hostNameList(), ", ")+")")
	c.Flags().StringVar(&o.Since, "since", "", "only handoffs written since a date or within a duration (7d)")
	c.Flags().IntVarP(&o.Limit, "limit", "n", 0, "at most this many handoffs, the newest (0: all)")
	return c
}

func runLog(a *app, o logOptions) error {
	if o.Stream != "" {
		if err := workspace.CheckName(o.Stream); err != nil {
			return usageError{Err: fmt.Errorf("--stream: %w", err)}
		}
	}
	if o.Limit < 0 {
		return usageError{Err: fmt.Errorf("--limit must be 0 or more, got %d", o.Limit)}
	}
	since, err := core.Since(o.Since, a.now())
	if err != nil {
		return usageError{Err: err}
	}
	p, err := a.project()
	if err != nil {
		return err
	}
	if o.Stream != "" && !core.HasStream(p, o.Stream) {
		return core.StreamNotFound(p, o.Stream)
	}
	entries := core.Log(p, core.LogQuery{Stream: o.Stream, Author: o.Author, Agent: o.Agent, Since: since})
	if o.Limit > 0 && len(entries) > o.Limit {
		entries = entries[:o.Limit]
	}
	if o.JSON {
		return writeJSON(a.out, entries)
	}
	if len(entries) == 0 {
		fmt.Fprintln(a.out, "no handoffs yet")
		return nil
	}
	loc := a.now().Location()
	width := 0 // piped or written to a file: whole lines
	if a.outTerminal() {
		width = 120
	}
	day := ""
	for _, e := range entries {
		if d := core.LogDay(e.Created, loc); d != day {
			if day != "" {
				fmt.Fprintln(a.out)
			}
			day = d
			fmt.Fprintln(a.out, d)
		}
		fmt.Fprintln(a.out, logLine(e, loc, width))
	}
	return nil
}

// logLine is one handoff on the timeline: "  14:05  Kim  claude
// pre-compact  auth-refactor  feature/auth  task · checks", its task cut
// to width runes (0: whole, as a pipe or a file gets it).
func logLine(e core.LogEntry, loc *time.Location, width int) string {
	parts := []string{"  " + e.Created.In(loc).Format("15:04"), orDash(e.Author), orDash(e.Agent), orDash(e.Event), e.Stream}
	if e.Branch != "" {
		parts = append(parts, e.Branch)
	}
	if e.Machine != "" {
		parts = append(parts, "(from "+e.Machine+")")
	}
	var state []string
	switch {
	case e.Task != "":
		state = append(state, e.Task)
	case e.Summary != "":
		state = append(state, e.Summary)
	}
	if e.Checks != "" {
		state = append(state, "checks: "+e.Checks)
	}
	line := strings.Join(parts, "  ")
	if len(state) > 0 {
		s := strings.Join(state, " · ")
		if width > 0 {
			s = cut(s, width)
		}
		line += "  " + s
	}
	return line
}

// orDash is s, or "-" when s is empty, so the columns of a line stay put.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// cut shortens s to at most n runes, ending with "…" when it was cut.
func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
