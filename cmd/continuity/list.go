package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/continuity-md/continuity/handoff"
	"github.com/continuity-md/continuity/internal/core"
	"github.com/continuity-md/continuity/internal/inject"
)

type listOptions struct {
	Recent int // how many recent handoffs to read per work stream
	JSON   bool
}

func newListCmd(a *app) *cobra.Command {
	var o listOptions
	c := &cobra.Command{
		Use:   "list",
		Short: "List work streams: ledgers and their handoffs, whoever wrote them",
		Long: `List every work stream (a ledger, or handoffs that arrived from teammates), the active one
marked with *, with its goal and now, how many handoffs it has, who wrote the recent ones, and the
latest handoff: by whom, how long ago, on which branch, how full the agent's context was (when the
handoff says), and whether it is stale (stale_after).`,
		Args: exactArgs(0),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.JSON = a.json
			return a.runWith(o, func() error { return runList(a, o) })
		},
	}
	c.Flags().IntVar(&o.Recent, "recent", 10, "how many recent handoffs to read per work stream")
	return c
}

func runList(a *app, o listOptions) error {
	if o.Recent < 0 {
		return usageError{Err: fmt.Errorf("--recent must be 0 or more, got %d", o.Recent)}
	}
	p, err := a.project()
	if err != nil {
		return err
	}
	active, _, _ := p.Active(a.getenv)
	now := a.now()
	entries := core.List(p, active, o.Recent, now)
	if o.JSON {
		return writeJSON(a.out, entries)
	}
	if len(entries) == 0 {
		fmt.Fprintln(a.out, "no ledgers yet: start one with `continuity new NAME --goal TEXT`")
		return nil
	}
	for _, e := range entries {
		mark := " "
		if e.Active {
			mark = "*"
		}
		fmt.Fprintf(a.out, "%s %s", mark, e.Stream)
		switch {
		case e.Path == "":
			fmt.Fprint(a.out, "  (handoffs only, no ledger here)")
		case e.Updated != "":
			fmt.Fprintf(a.out, "  (updated %s)", e.Updated)
		}
		fmt.Fprintln(a.out)
		if e.Problem != "" {
			fmt.Fprintf(a.out, "    problem: %s\n", e.Problem)
		}
		if e.Goal != "" {
			fmt.Fprintf(a.out, "    goal: %s\n", e.Goal)
		}
		if e.Now != "" {
			fmt.Fprintf(a.out, "    now:  %s\n", e.Now)
		}
		if e.Latest != nil {
			l := e.Latest
			by := inject.Byline(handoff.Meta{Event: l.Event, Author: l.Author, Branch: l.Branch, Created: l.Created}, now)
			if l.Stale {
				by += ", stale"
			}
			size := core.ContextSize(l.Tokens)
			if size != "" {
				size = ", " + size
			}
			fmt.Fprintf(a.out, "    handoffs: %d, latest %s (%s)%s\n", e.Handoffs, l.Path, by, size)
			if len(e.Authors) > 1 {
				fmt.Fprintf(a.out, "    recent authors: %s\n", strings.Join(e.Authors, ", "))
			}
		}
		for _, f := range e.Future {
			fmt.Fprintf(a.out, "    dated in the future: %s (never taken for the latest)\n", f)
		}
	}
	return nil
}
