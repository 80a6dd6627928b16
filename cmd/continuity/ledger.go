package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/continuity-md/continuity/internal/core"
)

type newOptions struct {
	Name string
	Goal string
	JSON bool
}

func newNewCmd(a *app) *cobra.Command {
	var o newOptions
	c := &cobra.Command{
		Use:   "new NAME",
		Short: "Start a ledger and make it active in this worktree",
		Long: `Start a ledger, thoughts/ledgers/CONTINUITY_NAME.md, and make it the active one in
this worktree. NAME is a slug such as auth-refactor; a work stream outlives many agent sessions.`,
		Example:     `  continuity new auth-refactor --goal "Replace session cookies with short-lived JWTs"`,
		Annotations: map[string]string{"args": "the ledger's NAME (a slug such as auth-refactor)"},
		Args:        exactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name, o.JSON = args[0], a.json
			return a.runWith(o, func() error { return runNew(a, o) })
		},
	}
	c.Flags().StringVar(&o.Goal, "goal", "", "what this work stream is for")
	return c
}

func runNew(a *app, o newOptions) error {
	p, err := a.project()
	if err != nil {
		return err
	}
	path, err := p.LedgerPath(o.Name)
	if err != nil {
		return usageError{Err: err}
	}
	if err := core.Start(p, o.Name, path, o.Goal, a.now()); err != nil {
		return err
	}
	if o.JSON {
		return writeJSON(a.out, map[string]string{"stream": o.Name, "path": p.Rel(path)})
	}
	fmt.Fprintf(a.out, "created %s (active in this worktree)\n", p.Rel(path))
	return nil
}

func newUseCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "use NAME",
		Short: "Make a ledger the active one in this worktree",
		Long: `Make a ledger the active one in this worktree. The choice is local state under the git
directory: never committed, no .gitignore entry needed. Without a choice the active ledger is
the one named after the current branch, else the most recently modified one.`,
		Annotations: map[string]string{"args": "the NAME of a ledger"},
		Args:        exactArgs(1),
		RunE:        func(cmd *cobra.Command, args []string) error { return runUse(a, args[0]) },
	}
}

// runUse makes ledger name the active one (resume calls it too).
func runUse(a *app, name string) error {
	p, err := a.project()
	if err != nil {
		return err
	}
	path, err := p.LedgerPath(name)
	if err != nil {
		return usageError{Err: err}
	}
	if err := core.Use(p, name, path); err != nil {
		return err
	}
	if a.json {
		return writeJSON(a.out, map[string]string{"stream": name, "path": p.Rel(path)})
	}
	fmt.Fprintf(a.out, "active ledger: %s\n", p.Rel(path))
	return nil
}
