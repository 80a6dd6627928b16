package main

import (
	"errors"
	"fmt"
	"io/fs"

	"github.com/spf13/cobra"

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
		Long: `Print a ledger, the active one by default: styled for a terminal, the file's exact
bytes when piped, its parsed fields with --json. NO_COLOR turns styling off.`,
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

func runShow(a *app, o showOptions) error {
	p, err := a.project()
	if err != nil {
		return err
	}
	name, err := a.ledgerName(p, o.Name)
	if err != nil {
		return err
	}
	path, err := p.LedgerPath(name)
	if err != nil {
		return usageError{err}
	}
	src, err := safefile.Read(path, p.WriteOptions())
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("ledger %s: %w (see `continuity list`)", p.Rel(path), ledger.ErrNotFound)
		}
		return err
	}
	if !o.JSON && !o.Terminal {
		_, err = a.out.Write(src)
		return err
	}
	l, err := ledger.Parse(p.Rel(path), src)
	if err != nil {
		if !o.JSON {
			_, werr := a.out.Write(src) // show what is there; the problem goes to stderr
			fmt.Fprintf(a.errw, "continuity: %v\n", firstLine(err))
			return werr
		}
		return err
	}
	l.Path = p.Rel(path)
	if !o.JSON {
		renderLedger(a.out, l)
		return nil
	}
	return writeJSON(a.out, withEmptyLists(l))
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
