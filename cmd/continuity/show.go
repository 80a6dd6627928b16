package main

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/spf13/cobra"

	"github.com/continuity-md/continuity/internal/compat"
	"github.com/continuity-md/continuity/internal/core"
	"github.com/continuity-md/continuity/internal/safefile"
	"github.com/continuity-md/continuity/ledger"
)

type showOptions struct {
	Name     string // "" for the active ledger
	JSON     bool
	Terminal bool // style for a person; else the file's exact bytes
}

func newShowCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "show [NAME]",
		Short: "Print a ledger (the active one by default)",
		Long: `Print a ledger, the active one by default: styled for a terminal (with its latest handoff and
how full the agent's context was then), the file's exact bytes when piped, its parsed fields
with --json (and latest_handoff). NO_COLOR turns styling off.`,
		Args: maxArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o := showOptions{JSON: a.json, Terminal: a.isTerminal(a.out)}
			if len(args) == 1 {
				o.Name = args[0]
			}
			return a.runWith(o, func() error { return runShow(a, o) })
		},
	}
}

// shownLedger is show's --json output: the ledger's fields and its latest
// handoff.
type shownLedger struct {
	*ledger.Ledger
	Latest *core.Handoff `json:"latest_handoff,omitempty"`
}

func runShow(a *app, o showOptions) error {
	p, name, path, err := a.ledgerFile(o.Name)
	if err != nil {
		return err
	}
	src, err := safefile.Read(path, p.WriteOptions())
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return core.LedgerNotFound(p, name, path)
		}
		return err
	}
	if !o.JSON && !o.Terminal {
		_, err = a.out.Write(src)
		return err
	}
	l, err := compat.ParseLedger(p.Rel(path), src)
	if err != nil {
		if !o.JSON {
			_, werr := a.out.Write(src) // show what is there; the problem goes to stderr
			fmt.Fprintf(a.errw, "continuity: %v\n", firstLine(err))
			return werr
		}
		return err
	}
	l.Path = p.Rel(path)
	var latest *core.Handoff
	if hp, err := p.LatestHandoff(name, a.now()); err == nil && hp != "" {
		if h, _, ok := core.ReadHandoff(p, hp, a.now()); ok {
			latest = &h
		}
	}
	if !o.JSON {
		Ledger(a.out, l)
		if latest != nil {
			HandoffLine(a.out, latest.Path, core.ContextSize(latest.Tokens))
		}
		return nil
	}
	return writeJSON(a.out, shownLedger{withEmptyLists(l), latest})
}

// withEmptyLists returns l with every missing list as [] rather than nil,
// so --json gives [] (never null) for an empty list.
func withEmptyLists(l *ledger.Ledger) *ledger.Ledger {
	c := *l
	for _, list := range []*[]string{&c.Constraints, &c.Done, &c.Next, &c.Questions, &c.Files} {
		if *list == nil {
			*list = []string{}
		}
	}
	if c.Decisions == nil {
		c.Decisions = []ledger.Decision{}
	}
	return &c
}
